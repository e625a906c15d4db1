package mdtwrite_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

var withIndexes = map[string]string{"hoodie.metadata.index.column.stats.enable": "true", "hoodie.metadata.index.bloom.filter.enable": "true"}

// writeFares writes rows (uuid, city, fare) with operation op.
func writeFares(t *testing.T, tb *hudi.Table, op string, ts int64, rows []fareRow, settings map[string]string) {
	t.Helper()
	s := arrow.NewSchema([]arrow.Field{{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer rb.Release()
	for _, r := range rows {
		rb.Field(0).(*array.StringBuilder).Append(r.uuid)
		rb.Field(1).(*array.Int64Builder).Append(ts)
		rb.Field(2).(*array.Float64Builder).Append(r.fare)
		rb.Field(3).(*array.StringBuilder).Append(r.city)
	}
	rec := rb.NewRecord()
	defer rec.Release()
	if _, err := tb.Write(context.Background(), []arrow.Record{rec}, hudi.WriteOptions{Operation: op, Settings: settings}); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
}

type fareRow struct {
	uuid, city string
	fare       float64
}

// The column_stats and bloom_filters partitions (hoodie.metadata.index.column.stats.enable,
// hoodie.metadata.index.bloom.filter.enable) are built with the metadata table — Java's
// default file group counts (2 and 4), initialization instants …011 and …012 after the
// files partition's …010 — listed in hoodie.metadata.partitions, and kept current by
// upserts (merge-on-read: log files indexed from their records), a delete, compaction,
// clustering, a clean and a rollback: after each step Validate compares every record with
// the stats and filters of the files.
//
// Not under -race (testutil.RaceSample: ~11 s there; the other tests of this file take the
// same paths under it); scripts/test runs it without.
func TestIndexPartitionsKeptByWrites(t *testing.T) {
	for i, typ := range []string{"mor", "cow"} {
		t.Run(typ, func(t *testing.T) {
			testutil.RaceSample(t, i+1)
			t.Parallel()
			ctx := context.Background()
			tb, dir := tripsTable(t, typ, 0, nil)
			settings := map[string]string{"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1", "hoodie.clean.automatic": "false",
				"hoodie.metadata.compact.max.delta.commits": "3"}
			for k, v := range withIndexes {
				settings[k] = v
			}
			writeFares(t, tb, "upsert", 1, []fareRow{{"k1", "sf", 1}, {"k2", "sf", 2}, {"k3", "la", 20}}, settings)
			if got := metadataPartitions(t, dir); got != "bloom_filters,column_stats,files" {
				t.Fatalf("hoodie.table.metadata.partitions = %q", got)
			}
			for _, c := range []struct {
				glob string
				n    int
			}{{"column_stats/.col-stats-000*-0_00000000000000011.log.1_0-0-0", 2}, {"bloom_filters/.bloom-filters-000*-0_00000000000000012.log.1_0-0-0", 4}} {
				if m, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", c.glob)); len(m) != c.n {
					t.Errorf("%d initial log files %s, want %d", len(m), c.glob, c.n)
				}
			}
			v := mustValidate(t, dir, "first upsert")
			// 2 base files × 9 columns (5 meta fields + 4).
			if v.ColumnStatsRecords != 18 || v.BloomFilterFiles != 2 || v.ColumnStatsUnindexed != 0 {
				t.Fatalf("validated %d column stats records, %d bloom filters, %d unindexed files; want 18, 2, 0",
					v.ColumnStatsRecords, v.BloomFilterFiles, v.ColumnStatsUnindexed)
			}
			writeFares(t, tb, "upsert", 2, []fareRow{{"k2", "sf", 3}, {"k4", "nyc", 10}, {"k5", "la", 21}}, settings)
			mustValidate(t, dir, "upsert")
			writeFares(t, tb, "delete", 3, []fareRow{{"k3", "la", 0}}, settings)
			if v := mustValidate(t, dir, "delete"); v.ColumnStatsUnindexed != 0 {
				t.Errorf("delete: %d base files without column stats", v.ColumnStatsUnindexed)
			}
			if typ == "mor" {
				if _, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Settings: settings}); err != nil {
					t.Fatal(err)
				}
				if v := mustValidate(t, dir, "compaction"); v.ColumnStatsUnindexed != 0 {
					t.Errorf("compaction: %d base files without column stats", v.ColumnStatsUnindexed)
				}
			}
			if _, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true, Settings: settings}); err != nil {
				t.Fatal(err)
			}
			if v := mustValidate(t, dir, "clustering"); v.ColumnStatsUnindexed != 0 {
				t.Errorf("clustering: %d base files without column stats", v.ColumnStatsUnindexed)
			}
			res, err := tb.Clean(ctx, hudi.CleanOptions{Settings: settings})
			if err != nil {
				t.Fatal(err)
			}
			if res == nil || res.FilesDeleted == 0 {
				t.Fatalf("the clean deleted nothing: %+v", res)
			}
			mustValidate(t, dir, "clean")
			writeFares(t, tb, "upsert", 4, []fareRow{{"k6", "sf", 4}, {"k2", "la", 22}}, settings)
			mustValidate(t, dir, "upsert after the clean")
			if _, err := tb.Rollback(ctx, lastCommit(t, dir), hudi.RollbackOptions{}); err != nil {
				t.Fatal(err)
			}
			mustValidate(t, dir, "rollback of the last upsert")
			if n := mdtCompactions(t, dir); n == 0 {
				t.Error("the metadata table was never compacted (hoodie.metadata.compact.max.delta.commits=3)")
			}
		})
	}
}

// Enabling the indexes on a table whose metadata table has only the files partition
// builds them from a listing (Parquet base files: column stats from their footers, bloom
// filters from them), and a later write without the settings keeps them current.
func TestIndexPartitionsBuiltOnExistingTable(t *testing.T) {
	tb, dir := tripsTable(t, "cow", 0, nil)
	writeFares(t, tb, "upsert", 1, []fareRow{{"k1", "sf", 1}, {"k2", "la", 20}}, nil)
	writeFares(t, tb, "upsert", 2, []fareRow{{"k3", "nyc", 10}, {"k2", "la", 21}}, nil)
	if got := metadataPartitions(t, dir); got != "files" {
		t.Fatalf("hoodie.table.metadata.partitions = %q", got)
	}
	writeFares(t, tb, "upsert", 3, []fareRow{{"k4", "sf", 2}}, withIndexes)
	if got := metadataPartitions(t, dir); got != "bloom_filters,column_stats,files" {
		t.Fatalf("hoodie.table.metadata.partitions = %q", got)
	}
	for _, g := range []string{"column_stats/col-stats-*_*010.hfile", "bloom_filters/bloom-filters-*_*011.hfile"} {
		if m, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", g)); len(m) == 0 {
			t.Errorf("no base file %s at its initialization instant", g)
		}
	}
	// Every slice is compared: 4 base files of the listing (the la file group has two).
	v := mustValidate(t, dir, "indexes built")
	if v.ColumnStatsUnindexed != 0 || v.BloomFilterFiles < 4 {
		t.Fatalf("%d unindexed base files, %d bloom filters", v.ColumnStatsUnindexed, v.BloomFilterFiles)
	}
	writeFares(t, tb, "upsert", 4, []fareRow{{"k5", "nyc", 11}}, nil)
	if v := mustValidate(t, dir, "upsert without the settings"); v.ColumnStatsUnindexed != 0 {
		t.Fatalf("%d unindexed base files after a write without the settings", v.ColumnStatsUnindexed)
	}
}

// Validate reports a column_stats record that differs from its file, a missing one, and a
// missing bloom filter.
func TestValidateIndexDifferences(t *testing.T) {
	ctx := context.Background()
	tb, dir := tripsTable(t, "cow", 0, nil)
	writeFares(t, tb, "upsert", 1, []fareRow{{"k1", "sf", 1}, {"k2", "la", 20}}, nil)
	writeFares(t, tb, "upsert", 2, []fareRow{{"k3", "nyc", 10}}, withIndexes) // builds them: base files
	mustValidate(t, dir, "upsert")
	var changed, dropped, droppedBloom string
	rewritePartition(t, dir, "column_stats", func(recs []*mdt.Record) []*mdt.Record {
		var out []*mdt.Record
		for _, r := range recs {
			switch {
			case r.ColumnStats.ColumnName == "fare" && changed == "":
				cs := *r.ColumnStats
				cs.NullCount++
				changed = cs.FileName
				out = append(out, &mdt.Record{Key: r.Key, Type: r.Type, ColumnStats: &cs})
			case r.ColumnStats.ColumnName == "uuid" && dropped == "":
				dropped = r.ColumnStats.FileName
			default:
				out = append(out, r)
			}
		}
		return out
	})
	rewritePartition(t, dir, "bloom_filters", func(recs []*mdt.Record) []*mdt.Record {
		if len(recs) > 0 && droppedBloom == "" {
			droppedBloom = recs[0].Key
			return recs[1:]
		}
		return recs
	})
	if changed == "" || dropped == "" || droppedBloom == "" {
		t.Fatal("nothing rewritten")
	}
	v, err := mdtwrite.Validate(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(v.Differences, "\n")
	for _, want := range []string{changed + " column fare: the metadata table has", dropped + " column uuid: no record", "bloom_filters: "} {
		if !strings.Contains(got, want) {
			t.Errorf("differences lack %q:\n%s", want, got)
		}
	}
}

// rewritePartition rewrites every base file of a metadata partition through edit.
func rewritePartition(t *testing.T, dir, partition string, edit func([]*mdt.Record) []*mdt.Record) {
	t.Helper()
	enc, _ := mdt.NewEncoder()
	bases, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", partition, "*.hfile"))
	if len(bases) == 0 {
		t.Fatalf("no %s base file", partition)
	}
	for _, b := range bases {
		recs, err := mdt.DecodeHFile(mustRead(t, b), b)
		if err != nil {
			t.Fatal(err)
		}
		body, err := enc.BuildHFile(edit(recs), mdt.BaseFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Data skipping (hoodie.enable.data.skipping) prunes file slices of a table whose
// column_stats partition hudi-go wrote: fares are per city (sf 1–4, nyc 10–11, la 20–22),
// and a filter on fare keeps only the slices whose stats may match, with the rows of the
// plain read. Under -race only merge-on-read runs (its log files' stats decide slices).
func TestDataSkippingOnOwnColumnStats(t *testing.T) {
	ctx := context.Background()
	for i, typ := range []string{"mor", "cow"} {
		t.Run(typ, func(t *testing.T) {
			testutil.RaceSample(t, i)
			tb, dir := tripsTable(t, typ, 0, nil)
			writeFares(t, tb, "upsert", 1, []fareRow{{"k1", "sf", 1}, {"k2", "nyc", 10}, {"k3", "la", 20}}, withIndexes)
			writeFares(t, tb, "upsert", 2, []fareRow{{"k1", "sf", 4}, {"k4", "la", 22}, {"k5", "nyc", 11}}, withIndexes)
			tt, err := table.Open(ctx, local.New(dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				filter string
				pruned int
				rows   int
			}{{"fare >= 20", 2, 2}, {"fare < 5", 2, 1}, {"fare = 10.5", 2, 0}, {"fare = 15", 3, 0}, {"fare > 100 OR city = 'nyc'", 2, 2}} {
				f, err := expr.Parse(c.filter)
				if err != nil {
					t.Fatal(err)
				}
				count := func(skip bool) (int, read.DataSkipping) {
					s, err := read.Plan(ctx, tt, read.Options{Filter: f, DataSkipping: skip, Logger: slog.New(slog.DiscardHandler)})
					if err != nil {
						t.Fatal(err)
					}
					n := 0
					if err := s.Run(ctx, func(rec arrow.Record) error { n += int(rec.NumRows()); return nil }); err != nil {
						t.Fatal(err)
					}
					return n, s.DataSkipping()
				}
				with, ds := count(true)
				without, _ := count(false)
				if !ds.Used || ds.Pruned != c.pruned || with != without || with != c.rows {
					t.Errorf("%s: %d rows with skipping (used %v %s, %d of %d slices pruned), %d without; want %d rows, %d pruned",
						c.filter, with, ds.Used, ds.Reason, ds.Pruned, ds.Slices, without, c.rows, c.pruned)
				}
			}
		})
	}
}

// An upsert through the BLOOM index with hoodie.bloom.index.use.metadata=true takes the
// base files' filters from the bloom_filters partition and finds the stored keys. The
// lookup really reads the partition: after its filters are replaced by empty ones, an
// upsert misses a stored key and inserts it a second time (the test fails when the
// setting is ignored).
func TestBloomIndexUsesMetadata(t *testing.T) {
	useMeta := map[string]string{"hoodie.index.type": "BLOOM", "hoodie.bloom.index.use.metadata": "true"}
	tb, dir := tripsTable(t, "cow", 0, nil)
	writeFares(t, tb, "upsert", 1, []fareRow{{"k1", "sf", 1}, {"k2", "la", 20}}, nil)
	writeFares(t, tb, "upsert", 2, []fareRow{{"k3", "nyc", 10}}, withIndexes) // builds bloom_filters from the footers
	writeFares(t, tb, "upsert", 3, []fareRow{{"k1", "sf", 5}, {"k9", "nyc", 11}}, useMeta)
	wantRows(t, dir, "upsert with the metadata table's filters", map[string]string{"k1": "sf", "k2": "la", "k3": "nyc", "k9": "nyc"})
	mustValidate(t, dir, "upsert with the metadata table's filters")

	empty, err := bloom.New(bloom.DynamicV0, bloom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	rewritePartition(t, dir, "bloom_filters", func(recs []*mdt.Record) []*mdt.Record {
		for _, r := range recs {
			r.BloomFilter.Filter = []byte(empty.Serialize())
			n++
		}
		return recs
	})
	if n < 2 {
		t.Fatalf("%d filters replaced", n)
	}
	// Without small-file handling a key taken for an insert goes to a new file group
	// (merged into its old file, it would replace the stored row and hide the miss).
	writeFares(t, tb, "upsert", 4, []fareRow{{"k2", "la", 27}}, map[string]string{"hoodie.index.type": "BLOOM", "hoodie.bloom.index.use.metadata": "true",
		"hoodie.parquet.small.file.limit": "0"})
	wantRows(t, dir, "upsert with empty filters in the metadata table", map[string]string{"k1": "sf", "k2": "la+la", "k3": "nyc", "k9": "nyc"})
}

// A restore to a savepoint keeps column_stats and bloom_filters in line with the table:
// the metadata table, restored to the savepoint, would list the stats and filter of a file
// a clean deleted after it (the clean's tombstones are rolled back); the restore's sync
// deltacommit tombstones them.
func TestRestoreKeepsIndexPartitions(t *testing.T) {
	ctx := context.Background()
	tb, dir := tripsTable(t, "cow", 0, nil)
	settings := map[string]string{"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1",
		"hoodie.clean.automatic": "false"}
	for k, v := range withIndexes {
		settings[k] = v
	}
	writeFares(t, tb, "upsert", 1, []fareRow{{"k1", "sf", 1}, {"k2", "la", 20}}, settings)
	writeFares(t, tb, "upsert", 2, []fareRow{{"k1", "sf", 2}}, settings)
	sp := lastCommit(t, dir)
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, sp, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFares(t, tb, "upsert", 3, []fareRow{{"k2", "la", 21}}, settings)
	res, err := tb.Clean(ctx, hudi.CleanOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if res == nil || res.FilesDeleted == 0 {
		t.Fatalf("the clean deleted nothing: %+v", res)
	}
	mustValidate(t, dir, "clean")
	if _, err := tb.Savepoint(ctx, hudi.SavepointRestore, sp, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := metadataPartitions(t, dir); got != "bloom_filters,column_stats,files" {
		t.Fatalf("after the restore hoodie.table.metadata.partitions = %q", got)
	}
	mustValidate(t, dir, "restore")
}

func mdtCompactions(t *testing.T, dir string) int {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", ".hoodie", "*001.commit"))
	return len(m)
}
