package write_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
)

// amtRow is an input row of the promotion tests: amt holds a Go value of the batch's
// amt type (int32, int64, float32, float64, string, []byte) or nil.
type amtRow struct {
	id, city string
	ts       int64
	amt      any
}

func amtBatch(t *testing.T, amtType arrow.DataType, rows []amtRow) arrow.Record {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "city", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "amt", Type: amtType, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.city)
		b.Field(2).(*array.Int64Builder).Append(r.ts)
		if r.amt == nil {
			b.Field(3).AppendNull()
			continue
		}
		switch v := r.amt.(type) {
		case int32:
			b.Field(3).(*array.Int32Builder).Append(v)
		case int64:
			b.Field(3).(*array.Int64Builder).Append(v)
		case float32:
			b.Field(3).(*array.Float32Builder).Append(v)
		case float64:
			b.Field(3).(*array.Float64Builder).Append(v)
		case string:
			b.Field(3).(*array.StringBuilder).Append(v)
		case []byte:
			b.Field(3).(*array.BinaryBuilder).Append(v)
		default:
			t.Fatalf("amt value %T", v)
		}
	}
	return b.NewRecordBatch()
}

func amtWrite(t *testing.T, ctx context.Context, dir, op string, amtType arrow.DataType, rows []amtRow, settings map[string]string) (*hudi.WriteResult, error) {
	t.Helper()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := amtBatch(t, amtType, rows)
	defer rec.Release()
	return tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: op, Settings: settings})
}

// amtScan returns "id|city|ts|amt" rows, amt printed by its Arrow type: numbers with %v,
// strings quoted, bytes quoted as text; plus the amt column's type.
func amtScan(t *testing.T, ctx context.Context, dir string, o hudi.ScanOptions) ([]string, arrow.DataType) {
	t.Helper()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tbl.Scan(ctx, o)
	if err != nil {
		t.Fatalf("scan %+v: %v", o, err)
	}
	var out []string
	var typ arrow.DataType
	err = s.Run(ctx, func(rec arrow.Record) error {
		idx := func(name string) int {
			for i, f := range rec.Schema().Fields() {
				if f.Name == name {
					return i
				}
			}
			t.Fatalf("no column %s", name)
			return -1
		}
		id, city := rec.Column(idx("id")).(*array.String), rec.Column(idx("city")).(*array.String)
		ts, amt := rec.Column(idx("ts")).(*array.Int64), rec.Column(idx("amt"))
		typ = amt.DataType()
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, fmt.Sprintf("%s|%s|%d|%s", id.Value(i), city.Value(i), ts.Value(i), amtText(amt, i)))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %+v: %v", o, err)
	}
	sort.Strings(out)
	return out, typ
}

func amtText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch a := a.(type) {
	case *array.String:
		return fmt.Sprintf("%q", a.Value(i))
	case *array.Binary:
		return fmt.Sprintf("b%q", a.Value(i))
	}
	return a.ValueStr(i)
}

func instantFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".hoodie"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), "hoodie.properties") {
			out = append(out, e.Name())
		}
	}
	return out
}

func createAmtTable(t *testing.T, ctx context.Context, mor bool, amtDDL string) string {
	t.Helper()
	dir := t.TempDir()
	co := hudi.CreateOptions{Name: "amt", RecordKeyFields: []string{"id"}, PrecombineField: "ts", PartitionFields: []string{"city"},
		Schema: "id STRING, city STRING, ts BIGINT, amt " + amtDDL}
	if mor {
		co.Type = "mor"
	}
	if _, err := hudi.Create(ctx, dir, co); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDoubleColumnTakesStrings is the case: a table whose amt is DOUBLE takes a
// batch whose amt is a string. Hudi's promotion chart (seed "Type Promotions") makes the
// table column a string; the old double files then read as Java's Double.toString prints
// them, in the partition the upsert merged into and in the one it did not touch, in every
// kind of read, on both table types.
func TestDoubleColumnTakesStrings(t *testing.T) {
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			ctx := context.Background()
			dir := createAmtTable(t, ctx, mor, "DOUBLE")
			first, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{
				{"a", "sf", 1, 1.5}, {"b", "sf", 1, 1e7}, {"c", "la", 1, 0.0001}, {"d", "la", 1, nil}, {"e", "la", 1, 100.0},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			second, err := amtWrite(t, ctx, dir, "upsert", arrow.BinaryTypes.String, []amtRow{
				{"a", "sf", 2, "twelve"}, {"f", "nyc", 2, "7"},
			}, nil)
			if err != nil {
				t.Fatalf("string batch into double table: %v", err)
			}
			want := []string{`a|sf|2|"twelve"`, `b|sf|1|"1.0E7"`, `c|la|1|"1.0E-4"`, `d|la|1|null`, `e|la|1|"100.0"`, `f|nyc|2|"7"`}
			reads := map[string]hudi.ScanOptions{"snapshot": {}, "incremental from start": {Incremental: true}}
			if !mor {
				reads["read-optimized"] = hudi.ScanOptions{ReadOptimized: true}
			}
			for name, o := range reads {
				got, typ := amtScan(t, ctx, dir, o)
				if typ.ID() != arrow.STRING {
					t.Errorf("%s: amt is %s, want string", name, typ)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s:\ngot  %v\nwant %v", name, got, want)
				}
			}
			got, _ := amtScan(t, ctx, dir, hudi.ScanOptions{Incremental: true, Begin: first.Instant, End: second.Instant})
			if w := []string{`a|sf|2|"twelve"`, `f|nyc|2|"7"`}; strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("incremental (%s, %s]: got %v, want %v", first.Instant, second.Instant, got, w)
			}
			got, typ := amtScan(t, ctx, dir, hudi.ScanOptions{AsOf: first.Instant})
			if typ.ID() != arrow.FLOAT64 || strings.Join(got, "|") != "a|sf|1|1.5|b|sf|1|1e+07|c|la|1|0.0001|d|la|1|null|e|la|1|100" {
				t.Errorf("time travel to %s: %s %v", first.Instant, typ, got)
			}
			if mor {
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true}); err != nil {
					t.Fatalf("compact: %v", err)
				}
				for name, o := range map[string]hudi.ScanOptions{"snapshot after compaction": {}, "read-optimized after compaction": {ReadOptimized: true}} {
					if got, _ := amtScan(t, ctx, dir, o); strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s:\ngot  %v\nwant %v", name, got, want)
					}
				}
			}
		})
	}
}

// TestSchemaChangeRefusedWhenFilesUnreadable: a change Hudi's evolution rules accept but
// that would leave existing files unreadable (here decimal → string: the promotion chart
// does not cover decimals and hudi-go does not convert decimal files to text) is refused
// before an instant is created, naming the column and both types; the table is untouched.
// hudi-go's own choice: Java does not define a decimal → string read.
func TestSchemaChangeRefusedWhenFilesUnreadable(t *testing.T) {
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			ctx := context.Background()
			dir := createAmtTable(t, ctx, mor, "DECIMAL(10,2)")
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "city", Type: arrow.BinaryTypes.String},
				{Name: "ts", Type: arrow.PrimitiveTypes.Int64}, {Name: "amt", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}}, nil)
			rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(`[{"id":"a","city":"sf","ts":1,"amt":"1.50"}]`))
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if _, err := tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: "upsert"}); err != nil {
				t.Fatal(err)
			}
			before := instantFiles(t, dir)
			_, err = amtWrite(t, ctx, dir, "upsert", arrow.BinaryTypes.String, []amtRow{{"b", "la", 2, "x"}}, nil)
			if err == nil {
				t.Fatal("a decimal → string change that leaves decimal files unreadable was committed")
			}
			for _, want := range []string{`column "amt"`, "decimal(10,2)", "string"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			t.Logf("refused: %v", err)
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("timeline changed: %v -> %v", before, after)
			}
			if got, _ := amtScan(t, ctx, dir, hudi.ScanOptions{}); strings.Join(got, ",") != "a|sf|1|1.5" {
				t.Errorf("table after the refusal: %v", got)
			}
		})
	}
}
