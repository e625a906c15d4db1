package write_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/merge"
)

// Small-file routing is off so that merge-on-read updates go to log files: with it, the
// inserts of a batch go into the table's one small log-free file group, whose updates
// are then merged into a new base file as on copy-on-write (Java's delta-commit executor
// does the same for small files), and the log merge would not be exercised.
var partialSettings = map[string]string{"hoodie.datasource.write.payload.class": merge.PartialUpdatePayload,
	"hoodie.parquet.small.file.limit": "0"}

func partialWrite(t *testing.T, ctx context.Context, dir, op, rowsJSON string, fields ...arrow.Field) (*hudi.WriteResult, error) {
	t.Helper()
	if fields == nil {
		fields = []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "city", Type: arrow.BinaryTypes.String},
			{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, {Name: "_hoodie_is_deleted", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}}
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, arrow.NewSchema(fields, nil), strings.NewReader(rowsJSON))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: op, Settings: partialSettings})
}

func partialRows(t *testing.T, ctx context.Context, dir string, o hudi.ScanOptions) map[string]string {
	t.Helper()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	o.Columns = []string{"_hoodie_commit_time", "id", "ts", "name", "price"}
	s, err := tbl.Scan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = s.Run(ctx, func(rec arrow.Record) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			var parts []string
			for c := 2; c < int(rec.NumCols()); c++ {
				parts = append(parts, rec.Column(c).ValueStr(i))
			}
			out[rec.Column(1).ValueStr(i)] = rec.Column(0).ValueStr(i) + "|" + strings.Join(parts, "|")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPartialUpdateAvroPayload pins Java 0.14's PartialUpdateAvroPayload on copy-on-write
// (merge handle) and merge-on-read (log records merged by the reader and by compaction)
// tables — the cases of its class comment, and its preCombine: a null field of
// the newer record keeps the stored value; a stored record with a greater ordering value is
// the base and only its null fields take the incoming values; within one batch the record
// with the greater ordering value is the base; a column missing from the input counts as
// null; a soft delete deletes. Every merged record is a new write (new commit time).
func TestPartialUpdateAvroPayload(t *testing.T) {
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) { testPartialUpdate(t, mor) })
	}
}

func testPartialUpdate(t *testing.T, mor bool) {
	ctx := context.Background()
	dir := t.TempDir()
	co := hudi.CreateOptions{Name: "pu", RecordKeyFields: []string{"id"}, PrecombineField: "ts", PartitionFields: []string{"city"},
		Schema: "id STRING, city STRING, ts BIGINT, name STRING, price DOUBLE, _hoodie_is_deleted BOOLEAN"}
	if mor {
		// Readers and compaction merge with the table's payload class.
		co.Type = "mor"
		co.Settings = partialSettings
	}
	if _, err := hudi.Create(ctx, dir, co); err != nil {
		t.Fatal(err)
	}
	first, err := partialWrite(t, ctx, dir, "upsert", `[
		{"id":"1","city":"sf","ts":1,"name":"name_1","price":1.5},
		{"id":"2","city":"sf","ts":2,"name":"name_1","price":null},
		{"id":"3","city":"sf","ts":1,"name":"a","price":1},
		{"id":"4","city":"sf","ts":1,"name":"d","price":1}]`)
	if err != nil {
		t.Fatal(err)
	}
	// case 1: incoming newer with a null name; case 2: incoming older (ts 1 < 2);
	// in-batch: key 5 twice, the earlier with the greater ts; key 4 soft-deleted.
	second, err := partialWrite(t, ctx, dir, "upsert", `[
		{"id":"1","city":"sf","ts":2,"name":null,"price":2.5},
		{"id":"2","city":"sf","ts":1,"name":null,"price":1.25},
		{"id":"5","city":"sf","ts":5,"name":"n5","price":null},
		{"id":"5","city":"sf","ts":3,"name":"n3","price":3.5},
		{"id":"4","city":"sf","ts":9,"name":null,"price":null,"_hoodie_is_deleted":true}]`)
	if err != nil {
		t.Fatal(err)
	}
	if second.Records.Updated != 2 || second.Records.Inserted != 1 || second.Records.Deleted != 1 {
		t.Errorf("counts: %+v", second.Records)
	}
	// A batch without the price column: the missing column is null, so stored prices stay.
	third, err := partialWrite(t, ctx, dir, "upsert", `[{"id":"3","city":"sf","ts":4,"name":"b"}]`,
		arrow.Field{Name: "id", Type: arrow.BinaryTypes.String}, arrow.Field{Name: "city", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "ts", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true})
	if err != nil {
		t.Fatal(err)
	}
	// An older record for key 1 after its update: against the stored, merged record (COW)
	// the stored name_1 stays; merge-on-read logs hold the partial update (name null), so
	// the log merge (preCombine, the earlier log record the base) takes the older record's
	// name — Java's result differs between the table types the same way.
	fourth, err := partialWrite(t, ctx, dir, "upsert", `[{"id":"1","city":"sf","ts":1,"name":"zz","price":null}]`)
	if err != nil {
		t.Fatal(err)
	}
	name1 := "name_1"
	if mor {
		name1 = "zz"
	}
	want := map[string]string{
		"1": fourth.Instant + "|2|" + name1 + "|2.5",
		"2": second.Instant + "|2|name_1|1.25",
		"3": third.Instant + "|4|b|1",
		"5": second.Instant + "|5|n5|3.5",
	}
	if mor {
		// The log record of a merge where the stored record is newer carries the log's
		// meta fields (mergeDisorderRecordsWithMetadata): the same commit times.
		checkPartialRows(t, partialRows(t, ctx, dir, hudi.ScanOptions{}), want, "snapshot")
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true})
		if err != nil || !res.Completed {
			t.Fatalf("compact: %+v %v", res, err)
		}
		checkPartialRows(t, partialRows(t, ctx, dir, hudi.ScanOptions{ReadOptimized: true}), want, "read-optimized after compaction")
	}
	checkPartialRows(t, partialRows(t, ctx, dir, hudi.ScanOptions{}), want, "snapshot")
	_ = first
}

func checkPartialRows(t *testing.T, got, want map[string]string, what string) {
	t.Helper()
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(got) != len(want) {
		t.Errorf("%s: keys %v, want 1,2,3,5", what, keys)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: key %s: got %q, want %q", what, k, got[k], w)
		}
	}
}

// TestPartialUpdatePayloadGlobalIndexRefused: with a global index (whose cross-partition
// merge is not implemented for the partial-update payload) a write with
// PartialUpdateAvroPayload is refused before any instant, instead of being merged as a
// whole-record overwrite (the payload used to be accepted and ignored).
func TestPartialUpdatePayloadGlobalIndexRefused(t *testing.T) {
	ctx := context.Background()
	global := map[string]string{"hoodie.datasource.write.payload.class": merge.PartialUpdatePayload, "hoodie.index.type": "GLOBAL_SIMPLE"}
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			dir := createAmtTable(t, ctx, mor, "DOUBLE")
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 1, 1.0}}, nil); err != nil {
				t.Fatal(err)
			}
			before := instantFiles(t, dir)
			_, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 3, nil}}, global)
			if !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Fatalf("write: %v", err)
			}
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("timeline changed: %v -> %v", before, after)
			}
		})
	}
}
