package write_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/merge"
)

var partialSettings = map[string]string{"hoodie.datasource.write.payload.class": merge.PartialUpdatePayload}

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

func partialRows(t *testing.T, ctx context.Context, dir string) map[string]string {
	t.Helper()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tbl.Scan(ctx, hudi.ScanOptions{Columns: []string{"_hoodie_commit_time", "id", "ts", "name", "price"}})
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

// TestPartialUpdateAvroPayloadCOW pins Java 0.14's PartialUpdateAvroPayload on a
// copy-on-write table (the cases of its class comment, and its preCombine): a null field of
// the newer record keeps the stored value; a stored record with a greater ordering value is
// the base and only its null fields take the incoming values; within one batch the record
// with the greater ordering value is the base; a column missing from the input counts as
// null; a soft delete deletes. Every merged record is a new write (new commit time).
func TestPartialUpdateAvroPayloadCOW(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "pu", RecordKeyFields: []string{"id"}, PrecombineField: "ts", PartitionFields: []string{"city"},
		Schema: "id STRING, city STRING, ts BIGINT, name STRING, price DOUBLE, _hoodie_is_deleted BOOLEAN"}); err != nil {
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
	got := partialRows(t, ctx, dir)
	want := map[string]string{
		"1": second.Instant + "|2|name_1|2.5",
		"2": second.Instant + "|2|name_1|1.25",
		"3": third.Instant + "|4|b|1",
		"5": second.Instant + "|5|n5|3.5",
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(got) != len(want) {
		t.Errorf("keys %v, want 1,2,3,5", keys)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("key %s: got %q, want %q", k, got[k], w)
		}
	}
	_ = first
}

// TestPartialUpdatePayloadRefused: what the partial-update merge is not implemented for is
// refused before any instant instead of being merged as a whole-record overwrite (it was
// accepted and ignored): writes to merge-on-read tables and with global indexes, and the
// merging reads, compactions and clusterings of a merge-on-read table whose payload it is
// (a read-optimized read, which merges nothing, still works).
func TestPartialUpdatePayloadRefused(t *testing.T) {
	ctx := context.Background()
	partial := map[string]string{"hoodie.datasource.write.payload.class": merge.PartialUpdatePayload}
	global := map[string]string{"hoodie.datasource.write.payload.class": merge.PartialUpdatePayload, "hoodie.index.type": "GLOBAL_SIMPLE"}
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			dir := createAmtTable(t, ctx, mor, "DOUBLE")
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 1, 1.0}}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 2, 2.0}}, nil); err != nil {
				t.Fatal(err)
			}
			before := instantFiles(t, dir)
			settings := []map[string]string{global}
			if mor {
				settings = append(settings, partial)
			}
			for _, s := range settings {
				_, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 3, nil}}, s)
				if !errors.Is(err, merge.ErrUnsupportedPayload) {
					t.Fatalf("write with %v: %v", s, err)
				}
			}
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("timeline changed: %v -> %v", before, after)
			}
			if !mor {
				return
			}
			// A table whose hoodie.properties names the payload (as Java writes it).
			pp := filepath.Join(dir, ".hoodie", "hoodie.properties")
			b, err := os.ReadFile(pp)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(string(b), "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload", merge.PartialUpdatePayload)
			if !strings.Contains(text, merge.PartialUpdatePayload) {
				t.Fatalf("no payload class in hoodie.properties:\n%s", b)
			}
			if err := os.WriteFile(pp, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Scan(ctx, hudi.ScanOptions{}); !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Errorf("snapshot read: %v", err)
			}
			if got, _ := amtScan(t, ctx, dir, hudi.ScanOptions{ReadOptimized: true}); strings.Join(got, ",") != "a|sf|1|1" {
				t.Errorf("read-optimized: %v", got)
			}
			before = instantFiles(t, dir)
			if _, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true}); !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Errorf("compaction: %v", err)
			}
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("the refused compaction changed the timeline: %v -> %v", before, after)
			}
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 3, 3.0}}, nil); !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Errorf("write to the table: %v", err)
			}
		})
	}
}
