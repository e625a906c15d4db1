package write_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
)

// TestNullOrderingValueRefused: a record without an ordering (precombine) value fails an
// upsert, and an insert with hoodie.combine.before.insert=true, with Java's message
// (HoodieAvroUtils.getNestedFieldVal throws HoodieException "The value of ts can not be
// null"), on both table types, leaving no instant; a plain insert does not read it.
func TestNullOrderingValueRefused(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "city", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "amt", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	cases := []struct {
		op       string
		settings map[string]string
		refused  bool
	}{
		{"upsert", nil, true},
		{"insert", map[string]string{"hoodie.combine.before.insert": "true"}, true},
		{"insert", nil, false},
	}
	for _, mor := range []bool{false, true} {
		for _, c := range cases {
			t.Run(map[bool]string{false: "cow", true: "mor"}[mor]+"/"+c.op, func(t *testing.T) {
				ctx := context.Background()
				dir := createAmtTable(t, ctx, mor, "DOUBLE")
				before := instantFiles(t, dir)
				rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(`[{"id":"a","city":"sf","ts":1,"amt":1},{"id":"b","city":"sf","ts":null,"amt":2}]`))
				if err != nil {
					t.Fatal(err)
				}
				defer rec.Release()
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				_, err = tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: c.op, Settings: c.settings})
				if !c.refused {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), "The value of ts can not be null") || !strings.Contains(err.Error(), `"b"`) {
					t.Fatalf("got %v, want Java's null ordering value error naming the record", err)
				}
				if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
					t.Errorf("timeline changed: %v -> %v", before, after)
				}
			})
		}
	}
}

// TestNullInNotNullColumnRefused: a batch whose schema declares a column NOT NULL (as the
// SQL engine's rows cast to the table schema do) but that holds a null fails before any
// instant, naming the row and column, instead of the Parquet writer storing "" for it. (A
// batch that declares the column nullable makes the table column nullable, as Spark's
// datasource writes do.)
func TestNullInNotNullColumnRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "nn", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		Schema: "id STRING NOT NULL, name STRING NOT NULL, ts BIGINT"}); err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(`[{"id":"a","name":"x","ts":1},{"id":"b","name":null,"ts":1}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	before := instantFiles(t, dir)
	_, err = tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: "insert"})
	if err == nil || !strings.Contains(err.Error(), `input row 2: column "name" is NOT NULL`) {
		t.Fatalf("got %v", err)
	}
	if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("timeline changed: %v -> %v", before, after)
	}
}

// TestNullInNotNullColumnRefusedStreaming: the same null in a streamed bulk_insert
// (WriteReader) fails the write instead of storing ""; nothing is committed.
func TestNullInNotNullColumnRefusedStreaming(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "nn", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		Schema: "id STRING NOT NULL, name STRING NOT NULL, ts BIGINT"}); err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(`[{"id":"a","name":"x","ts":1},{"id":"b","name":null,"ts":1}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rdr, err := array.NewRecordReader(sc, []arrow.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.WriteReader(ctx, rdr, hudi.WriteOptions{Operation: "bulk_insert"})
	if err == nil || !strings.Contains(err.Error(), `input row 2: column "name" is NOT NULL`) {
		t.Fatalf("got %v", err)
	}
	for _, f := range instantFiles(t, dir) {
		if strings.HasSuffix(f, ".commit") {
			t.Errorf("committed: %s", f)
		}
	}
}
