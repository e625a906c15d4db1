package expr

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/jsonl"
)

func checkedMem(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// testRecord has 6 rows; the canonical JSON decoder builds it so the data reads naturally.
func testRecord(t testing.TB, mem memory.Allocator) arrow.RecordBatch {
	t.Helper()
	n := func(name string, dt arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: dt, Nullable: true}
	}
	schema := arrow.NewSchema([]arrow.Field{
		n("id", arrow.PrimitiveTypes.Int32),
		n("big", arrow.PrimitiveTypes.Int64),
		n("fare", arrow.PrimitiveTypes.Float64),
		n("city", arrow.BinaryTypes.String),
		n("amount", &arrow.Decimal128Type{Precision: 10, Scale: 2}),
		n("day", arrow.FixedWidthTypes.Date32),
		n("ts", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}),
		n("ok", arrow.FixedWidthTypes.Boolean),
		n("u", arrow.PrimitiveTypes.Uint64),
		n("st", arrow.StructOf(n("x", arrow.PrimitiveTypes.Int32), n("name", arrow.BinaryTypes.String))),
		n("ts_ms", &arrow.TimestampType{Unit: arrow.Millisecond}),
		n("f32", arrow.PrimitiveTypes.Float32),
		n("Mixed", arrow.BinaryTypes.String),
		n("bin", arrow.BinaryTypes.Binary),
	}, nil)
	input := `{"id":1,"big":9007199254740993,"fare":19.9,"city":"sao_paulo","amount":"10.50","day":"2024-01-15","ts":"2024-01-15T10:30:00.000000Z","ok":true,"u":18446744073709551615,"st":{"x":1,"name":"a"},"ts_ms":"2024-01-15T10:30:00.000000Z","f32":0.1,"Mixed":"A","bin":"YQ=="}
{"id":2,"big":9007199254740992,"fare":25.0,"city":"chennai","amount":"-1.50","day":"1969-12-31","ts":"1969-12-31T23:59:59.999999Z","ok":false,"u":0,"st":{"x":null,"name":"b"},"ts_ms":"1969-12-31T23:59:59.999000Z","f32":"NaN","Mixed":"b","bin":"Yg=="}
{"id":null,"big":null,"fare":null,"city":null,"amount":null,"day":null,"ts":null,"ok":null,"u":null,"st":null,"ts_ms":null,"f32":null,"Mixed":null,"bin":null}
{"id":4,"big":-5,"fare":"NaN","city":"san_francisco","amount":"0.00","day":"2024-01-16","ts":"2024-01-15T10:30:00.000001Z","ok":true,"u":5,"st":{"x":4,"name":null},"ts_ms":"2024-01-15T10:30:00.001000Z","f32":2.5,"Mixed":"c","bin":""}
{"id":5,"big":0,"fare":20.0,"city":"O'Hare","amount":"99999999.99","day":"2000-02-29","ts":"2000-02-29T00:00:00.000000Z","ok":false,"u":7,"st":{"x":5,"name":"e"},"ts_ms":"2000-02-29T00:00:00.000000Z","f32":-1,"Mixed":"d","bin":"ZQ=="}
{"id":6,"big":6,"fare":-0.0,"city":"sao_paulo","amount":"10.5","day":"2024-01-15","ts":"2024-01-15T04:30:00.000000Z","ok":null,"u":6,"st":{"x":6,"name":"f"},"ts_ms":null,"f32":0,"Mixed":null,"bin":null}
`
	var rec arrow.RecordBatch
	for r, err := range jsonl.Decode(strings.NewReader(input), schema, mem, 100) {
		if err != nil {
			t.Fatal(err)
		}
		rec = r
	}
	return rec
}

func selected(mask []bool) string {
	var ids []string
	for i, m := range mask {
		if m {
			ids = append(ids, fmt.Sprint(i+1))
		}
	}
	return strings.Join(ids, ",")
}

func TestEvaluate(t *testing.T) {
	mem := checkedMem(t)
	rec := testRecord(t, mem)
	defer rec.Release()
	// Row numbers (1-based) expected to be selected; row 3 is all nulls.
	cases := []struct{ filter, want string }{
		{"id = 1", "1"},
		{"id != 1", "2,4,5,6"},
		{"id <> 1", "2,4,5,6"},
		{"id > 2.5", "4,5,6"},
		{"id >= 2.0", "2,4,5,6"},
		{"id < 1.5", "1"},
		{"id = 1.5", ""},
		{"id = '4'", "4"},
		{"id > 10000000000000000000", ""},
		{"id > -10000000000000000000", "1,2,4,5,6"},
		{"2 < id", "4,5,6"},
		{"big = 9007199254740993", "1"}, // beyond float64 precision: must be exact
		{"big > 9007199254740992", "1"},
		{"fare > 20", "2"},
		{"fare >= 20", "2,5"},
		{"fare = 0", "6"},
		{"fare != 20", "1,2,4,6"}, // NaN != 20 is true
		{"fare < 100", "1,2,5,6"}, // NaN compares false
		{"fare = 'NaN'", ""},
		{"f32 = 0.1", ""}, // float32(0.1) != 0.1 as a double, as in SQL
		{"f32 > 0", "1,4"},
		{"city = 'sao_paulo'", "1,6"},
		{"city = 'O''Hare'", "5"},
		{"city > 's'", "1,4,6"},
		{"city IN ('chennai', 'O''Hare')", "2,5"},
		{"city NOT IN ('chennai', 'O''Hare')", "1,4,6"},
		{"city NOT IN ('chennai', NULL)", ""},
		{"city IN ('chennai', NULL)", "2"},
		{"city LIKE 'sa%'", "1,4,6"},
		{"city LIKE 'sa_\\_%'", "1,4,6"},
		{"city LIKE '%a_l%'", "1,6"},
		{"city LIKE '%a_o%'", ""},
		{"city LIKE '%i'", "2"},
		{"city LIKE 'chennai'", "2"},
		{"city NOT LIKE 's%'", "2,5"},
		{"city IS NULL", "3"},
		{"city IS NOT NULL", "1,2,4,5,6"},
		{"amount = 10.5", "1,6"},
		{"amount = '10.50'", "1,6"},
		{"amount > 10.499", "1,5,6"},
		{"amount < 0", "2"},
		{"amount >= 99999999.99", "5"},
		{"amount < 1e20", "1,2,4,5,6"},
		{"amount BETWEEN -2 AND 0", "2,4"},
		{"amount NOT BETWEEN -2 AND 0", "1,5,6"},
		{"day = '2024-01-15'", "1,6"},
		{"day < '1970-01-01'", "2"},
		{"day > '2024-01-15 10:00:00'", "4"},
		{"day >= '2024-01-15T00:00:00Z'", "1,4,6"},
		{"ts = '2024-01-15 10:30:00'", "1"},
		{"ts = '2024-01-15T10:30:00Z'", "1"},
		{"ts = '2024-01-15T05:30:00-05:00'", "1"},
		{"ts > '2024-01-15 10:30:00'", "4"},
		{"ts < '1970-01-01'", "2"},
		{"ts >= '2024-01-15'", "1,4,6"},
		{"ts > '2024-01-15 10:30:00.0000005'", "4"},
		{"ts_ms = '2024-01-15 10:30:00.001'", "4"},
		{"ts_ms < '1970-01-01'", "2"},
		{"ok", "1,4"},
		{"ok = false", "2,5"},
		{"NOT ok", "2,5"},
		{"ok IS NULL", "3,6"},
		{"u > 10", "1"},
		{"u = 18446744073709551615", "1"},
		{"u >= -1", "1,2,4,5,6"},
		{"st.x > 1", "4,5,6"},
		{"st.x IS NULL", "2,3"},
		{"st.name = 'a'", "1"},
		{"ST.X = 4", "4"},
		{"mixed = 'A'", "1"},
		{"bin = 'a'", "1"},
		{"bin = ''", "4"},
		{"id = 1 OR id = 2", "1,2"},
		{"id > 1 AND city = 'sao_paulo'", "6"},
		{"NOT (id > 1)", "1"},
		{"NOT id IN (1, 2)", "4,5,6"},
		{"id = NULL", ""},
		{"NOT (id = NULL)", ""},
		{"id = NULL OR city = 'chennai'", "2"},
		{"id BETWEEN 2 AND NULL", ""},
		{"NOT (id BETWEEN 5 AND NULL)", "1,2,4"}, // id < 5 makes the conjunction FALSE
		{"ok OR id IS NULL", "1,3,4"},
	}
	for _, tc := range cases {
		e, err := Parse(tc.filter)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.filter, err)
			continue
		}
		mask, err := Evaluate(e, rec)
		if err != nil {
			t.Errorf("Evaluate(%q): %v", tc.filter, err)
			continue
		}
		if got := selected(mask); got != tc.want {
			t.Errorf("%s: selected rows %q, want %q", tc.filter, got, tc.want)
		}
	}
}

func TestEvaluateErrors(t *testing.T) {
	mem := checkedMem(t)
	rec := testRecord(t, mem)
	defer rec.Release()
	cases := []struct{ filter, want string }{
		{"nope = 1", `unknown column "nope"`},
		{"st.nope = 1", `unknown column "st.nope"`},
		{"id.x = 1", `unknown column "id.x"`},
		{"id = 'abc'", `column "id" (int32) = 'abc': expected a number`},
		{"id = true", `expected a number, got TRUE`},
		{"day = 'yesterday'", `column "day"`},
		{"ts > 'noon'", `invalid timestamp "noon"`},
		{"ok = 1", `expected TRUE or FALSE`},
		{"id LIKE '1%'", `LIKE needs a string column`},
		{"city LIKE 'a\\'", `pattern ends with an escape character`},
		{"st = 1", `comparisons on struct`},
		{"id IN (1, 'x')", `IN (..., 'x', ...)`},
	}
	for _, tc := range cases {
		e, err := Parse(tc.filter)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.filter, err)
			continue
		}
		_, err = Evaluate(e, rec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Evaluate(%q) error = %v, want it to contain %q", tc.filter, err, tc.want)
		}
	}
}

func TestEvaluateDictionary(t *testing.T) {
	mem := checkedMem(t)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for _, s := range []string{"sao_paulo", "chennai", "", "sao_paulo"} {
		if s == "" {
			b.AppendNull()
			continue
		}
		if err := b.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	arr := b.NewArray()
	defer arr.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "city", Type: dt, Nullable: true}}, nil), []arrow.Array{arr}, 4)
	defer rec.Release()
	e, _ := Parse("city = 'sao_paulo' OR city LIKE 'ch%'")
	mask, err := Evaluate(e, rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := selected(mask); got != "1,2,4" {
		t.Errorf("got %s", got)
	}
}

func TestFilter(t *testing.T) {
	mem := checkedMem(t)
	ctx := exec.WithAllocator(context.Background(), mem)
	rec := testRecord(t, mem)
	defer rec.Release()
	render := func(r arrow.RecordBatch) string {
		var sb strings.Builder
		enc := jsonl.NewEncoder(&sb, jsonl.Options{Columns: []string{"id", "city", "st"}})
		if err := enc.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	cases := []struct{ filter, want string }{
		{"city = 'sao_paulo'", `{"id":1,"city":"sao_paulo","st":{"x":1,"name":"a"}}
{"id":6,"city":"sao_paulo","st":{"x":6,"name":"f"}}
`},
		{"id > 100", ""},
		{"id IS NULL OR id IS NOT NULL", render(rec)},
	}
	for _, tc := range cases {
		e, err := Parse(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Filter(ctx, e, rec)
		if err != nil {
			t.Fatalf("Filter(%q): %v", tc.filter, err)
		}
		if got := render(out); got != tc.want {
			t.Errorf("Filter(%q):\n%s\nwant\n%s", tc.filter, got, tc.want)
		}
		if out.NumCols() != rec.NumCols() {
			t.Errorf("Filter(%q) changed the column count", tc.filter)
		}
		out.Release()
	}
	e, _ := Parse("nope = 1")
	if _, err := Filter(ctx, e, rec); err == nil {
		t.Error("Filter with an unknown column succeeded")
	}
}
