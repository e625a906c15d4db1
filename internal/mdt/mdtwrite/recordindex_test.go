package mdtwrite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/storage/local"
)

var withRecordIndex = map[string]string{"hoodie.metadata.record.index.enable": "true"}

// writeRows writes rows uuid→city with operation op.
func writeRows(t *testing.T, tb *hudi.Table, op string, ts int64, rows [][2]string, settings map[string]string) {
	t.Helper()
	if err := writeRowsErr(tb, op, ts, rows, settings); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
}

func writeRowsErr(tb *hudi.Table, op string, ts int64, rows [][2]string, settings map[string]string) error {
	s := arrow.NewSchema([]arrow.Field{{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer rb.Release()
	for _, r := range rows {
		rb.Field(0).(*array.StringBuilder).Append(r[0])
		rb.Field(1).(*array.Int64Builder).Append(ts)
		rb.Field(2).(*array.Float64Builder).Append(1)
		rb.Field(3).(*array.StringBuilder).Append(r[1])
	}
	rec := rb.NewRecord()
	defer rec.Release()
	_, err := tb.Write(context.Background(), []arrow.Record{rec}, hudi.WriteOptions{Operation: op, Settings: settings})
	return err
}

func metadataPartitions(t *testing.T, dir string) string {
	t.Helper()
	pp, err := props.Parse(strings.NewReader(string(mustRead(t, filepath.Join(dir, ".hoodie", "hoodie.properties")))))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := pp.Get("hoodie.table.metadata.partitions")
	return v
}

// The record_index partition (hoodie.metadata.record.index.enable=true) is built with the
// metadata table — at the files partition's initialization instant plus one suffix
// (…010 files, …011 record_index), with Java's default of 10 file groups for a small
// table, each started with its empty log file — listed in hoodie.metadata.partitions, and
// kept current by upserts (inserts and updates), deletes, a move of a key to another
// partition under a global index, clustering, compaction and a rollback: after each step
// Validate compares every key of the snapshot with its entry.
func TestRecordIndexKeptByWrites(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tb, dir := tripsTable(t, typ, 0, nil)
			settings := map[string]string{"hoodie.metadata.record.index.enable": "true", "hoodie.index.type": "GLOBAL_SIMPLE",
				"hoodie.simple.index.update.partition.path": "true"}
			writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}, {"k2", "sf"}, {"k3", "la"}}, settings)
			if got := metadataPartitions(t, dir); got != "files,record_index" {
				t.Fatalf("hoodie.table.metadata.partitions = %q", got)
			}
			initLogs, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", "record_index", ".record-index-00*-0_00000000000000011.log.1_0-0-0"))
			if len(initLogs) != 10 {
				t.Fatalf("%d initial record_index log files, want 10", len(initLogs))
			}
			v := mustValidate(t, dir, "first upsert")
			if v.RecordIndexKeys != 3 {
				t.Fatalf("validated %d record index keys, want 3", v.RecordIndexKeys)
			}
			writeRows(t, tb, "upsert", 2, [][2]string{{"k2", "sf"}, {"k4", "nyc"}, {"k5", "la"}}, settings)
			mustValidate(t, dir, "upsert")
			writeRows(t, tb, "upsert", 3, [][2]string{{"k1", "nyc"}}, settings) // moves to another partition
			mustValidate(t, dir, "partition move")
			writeRows(t, tb, "delete", 4, [][2]string{{"k3", "la"}, {"k4", "nyc"}}, settings)
			v = mustValidate(t, dir, "delete")
			if v.RecordIndexKeys != 3 {
				t.Fatalf("validated %d record index keys after the delete, want 3", v.RecordIndexKeys)
			}
			if typ == "mor" {
				if _, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Settings: withRecordIndex}); err != nil {
					t.Fatal(err)
				}
				mustValidate(t, dir, "compaction")
			}
			if _, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true, Settings: withRecordIndex}); err != nil {
				t.Fatal(err)
			}
			mustValidate(t, dir, "clustering")
			writeRows(t, tb, "upsert", 5, [][2]string{{"k6", "sf"}, {"k2", "la"}}, settings)
			mustValidate(t, dir, "upsert after clustering")
			if _, err := tb.Rollback(ctx, lastCommit(t, dir), hudi.RollbackOptions{}); err != nil {
				t.Fatal(err)
			}
			mustValidate(t, dir, "rollback of the last upsert")
		})
	}
}

// Enabling the record index on a table that has a metadata table without one builds it
// from the table's snapshot (on merge-on-read, keys deleted by a log block are left out),
// at the latest instant plus the first free initialization suffix; a write without the
// setting keeps the built index current, as Java keeps every partition
// hoodie.properties lists.
// Merge-on-read only: copy-on-write tables get their index built on an existing table in
// TestValidateRecordIndexDifferences and TestRecordIndexLookupReadsTheIndex (CI cost).
func TestRecordIndexBuiltOnExistingTable(t *testing.T) {
	for _, typ := range []string{"mor"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			tb, dir := tripsTable(t, typ, 0, nil)
			writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}, {"k2", "sf"}, {"k3", "la"}, {"k4", "nyc"}}, nil)
			writeRows(t, tb, "upsert", 2, [][2]string{{"k2", "sf"}, {"k5", "la"}}, nil)
			writeRows(t, tb, "delete", 3, [][2]string{{"k1", "sf"}}, nil)
			if got := metadataPartitions(t, dir); got != "files" {
				t.Fatalf("hoodie.table.metadata.partitions = %q", got)
			}
			writeRows(t, tb, "upsert", 4, [][2]string{{"k6", "nyc"}}, withRecordIndex)
			if got := metadataPartitions(t, dir); got != "files,record_index" {
				t.Fatalf("hoodie.table.metadata.partitions = %q", got)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", "record_index", "record-index-*_*010.hfile")); len(m) == 0 {
				t.Error("no record_index base file at the initialization instant …010")
			}
			if v := mustValidate(t, dir, "record index built"); v.RecordIndexKeys != 5 {
				t.Fatalf("validated %d record index keys, want 5", v.RecordIndexKeys)
			}
			writeRows(t, tb, "upsert", 5, [][2]string{{"k7", "la"}, {"k2", "sf"}}, nil)
			mustValidate(t, dir, "upsert without the setting")
		})
	}
}

// Validate reports a record index that differs from the snapshot: a key whose entry was
// removed behind the writer's back, and a key the snapshot does not have.
func TestValidateRecordIndexDifferences(t *testing.T) {
	ctx := context.Background()
	tb, dir := tripsTable(t, "cow", 0, nil)
	writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}, {"k2", "la"}}, nil)
	writeRows(t, tb, "upsert", 2, [][2]string{{"k3", "sf"}}, withRecordIndex)
	mustValidate(t, dir, "upsert")
	// Rewrite the record index's base files with k1 left out and a stray key added.
	m, err := mdt.Open(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := m.ReadPartition(ctx, mdt.PartitionRecordIndex)
	if err != nil {
		t.Fatal(err)
	}
	stray := *recs["k2"]
	stray.Key = "ghost"
	enc, _ := mdt.NewEncoder()
	bases, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", "record_index", "record-index-*.hfile"))
	if len(bases) == 0 {
		t.Fatal("no record_index base file")
	}
	for i, b := range bases {
		old, err := mdt.DecodeHFile(mustRead(t, b), b)
		if err != nil {
			t.Fatal(err)
		}
		var keep []*mdt.Record
		for _, r := range old {
			if r.Key != "k1" {
				keep = append(keep, r)
			}
		}
		if i == 0 {
			keep = append(keep, &stray)
		}
		body, err := enc.BuildHFile(keep, mdt.BaseFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := mdtwrite.Validate(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(v.Differences, "\n")
	for _, want := range []string{`record_index: key "k1"`, `record_index: key "ghost" is not in the snapshot`} {
		if !strings.Contains(got, want) {
			t.Errorf("differences lack %q:\n%s", want, got)
		}
	}
}

// Count is Java's estimateFileGroupCount.
func TestRecordIndexFileGroupCount(t *testing.T) {
	d := mdtwrite.DefaultFileGroupSizing
	for _, tc := range []struct {
		s    mdtwrite.FileGroupSizing
		n    int64
		want int
	}{
		{d, 0, 10},
		{d, 100_000_000, 10},   // 2e8 expected / 22369621 per group = 8 → min
		{d, 1_000_000_000, 89}, // 2e9 / 22369621
		{d, 200_000_000_000, d.MaxCount},
		{mdtwrite.FileGroupSizing{MinCount: 3, MaxCount: 3, GrowthFactor: 2, MaxSizeBytes: 1 << 30}, 1 << 40, 3},
		{mdtwrite.FileGroupSizing{MinCount: 1, MaxCount: 100, GrowthFactor: 1, MaxSizeBytes: 4800}, 1000, 10},
	} {
		if got := tc.s.Count(tc.n); got != tc.want {
			t.Errorf("%+v.Count(%d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}

// lastCommit is the latest completed commit or deltacommit of the table at dir.
func lastCommit(t *testing.T, dir string) string {
	t.Helper()
	var last string
	for _, ext := range []string{"*.commit", "*.deltacommit"} {
		m, _ := filepath.Glob(filepath.Join(dir, ".hoodie", ext))
		for _, f := range m {
			if in := strings.SplitN(filepath.Base(f), ".", 2)[0]; in > last {
				last = in
			}
		}
	}
	return last
}
