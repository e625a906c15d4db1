package jsonl

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func checkedMem(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// buildArray builds a one-column array of type dt with fill.
func buildArray(t testing.TB, mem memory.Allocator, dt arrow.DataType, fill func(b array.Builder)) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	fill(b)
	return b.NewArray()
}

func encodeAll(arr arrow.Array) []string {
	out := make([]string, arr.Len())
	for i := range out {
		out[i] = string(AppendValue(nil, arr, i))
	}
	return out
}

func fromJSON(t testing.TB, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	arr, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	if err != nil {
		t.Fatalf("array.FromJSON(%s): %v", dt, err)
	}
	return arr
}

func TestAppendValueTypes(t *testing.T) {
	point1 := 0.1 // a variable, so 0.1+0.2 is computed in float64 rather than exactly
	mem := checkedMem(t)
	ts := func(unit arrow.TimeUnit) arrow.DataType { return &arrow.TimestampType{Unit: unit, TimeZone: "UTC"} }
	cases := []struct {
		name string
		dt   arrow.DataType
		fill func(b array.Builder)
		want []string
	}{
		{"bool", arrow.FixedWidthTypes.Boolean, func(b array.Builder) {
			b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
			b.AppendNull()
		}, []string{"true", "false", "null"}},
		{"int8", arrow.PrimitiveTypes.Int8, func(b array.Builder) {
			b.(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
			b.AppendNull()
		}, []string{"-128", "127", "null"}},
		{"int16", arrow.PrimitiveTypes.Int16, func(b array.Builder) {
			b.(*array.Int16Builder).AppendValues([]int16{300, -32768}, nil)
		}, []string{"300", "-32768"}},
		{"int32", arrow.PrimitiveTypes.Int32, func(b array.Builder) {
			b.(*array.Int32Builder).AppendValues([]int32{15000, math.MinInt32}, nil)
		}, []string{"15000", "-2147483648"}},
		{"int64 exact", arrow.PrimitiveTypes.Int64, func(b array.Builder) {
			b.(*array.Int64Builder).AppendValues([]int64{9876543210, math.MaxInt64, math.MinInt64, 9007199254740993}, nil)
			b.AppendNull()
		}, []string{"9876543210", "9223372036854775807", "-9223372036854775808", "9007199254740993", "null"}},
		{"uint64 exact", arrow.PrimitiveTypes.Uint64, func(b array.Builder) {
			b.(*array.Uint64Builder).AppendValues([]uint64{math.MaxUint64, 0}, nil)
		}, []string{"18446744073709551615", "0"}},
		{"uint8", arrow.PrimitiveTypes.Uint8, func(b array.Builder) {
			b.(*array.Uint8Builder).AppendValues([]uint8{255}, nil)
		}, []string{"255"}},
		{"float32", arrow.PrimitiveTypes.Float32, func(b array.Builder) {
			b.(*array.Float32Builder).AppendValues([]float32{0.1, 1, 1e-45, 3.4028235e38, -2.5, 0, float32(math.NaN()),
				float32(math.Inf(1)), float32(math.Inf(-1)), 1e16, 123456789, 0.0001, 0.00001}, nil)
			b.AppendNull()
		}, []string{"0.1", "1.0", "1e-45", "3.4028235e+38", "-2.5", "0.0", `"NaN"`, `"Infinity"`, `"-Infinity"`,
			"1e+16", "123456790.0", "0.0001", "1e-05", "null"}},
		{"float64", arrow.PrimitiveTypes.Float64, func(b array.Builder) {
			b.(*array.Float64Builder).AppendValues([]float64{19.1, 0, math.Copysign(0, -1), point1 + 0.2, 5e-324,
				math.MaxFloat64, 1e15, 123.456, math.NaN(), 1234567890123456789}, nil)
		}, []string{"19.1", "0.0", "-0.0", "0.30000000000000004", "5e-324", "1.7976931348623157e+308",
			"1000000000000000.0", "123.456", `"NaN"`, "1.2345678901234568e+18"}},
		{"float16", arrow.FixedWidthTypes.Float16, func(b array.Builder) {
			b.(*array.Float16Builder).AppendValues([]float16.Num{float16.New(1.5), float16.New(0.1)}, nil)
		}, []string{"1.5", "0.099975586"}},
		{"decimal128(10,5)", &arrow.Decimal128Type{Precision: 10, Scale: 5}, func(b array.Builder) {
			db := b.(*array.Decimal128Builder)
			db.Append(decimal128.FromI64(1234567890))
			db.Append(decimal128.FromI64(-150000))
			db.Append(decimal128.FromI64(0))
			db.Append(decimal128.FromI64(5))
			db.Append(decimal128.FromI64(-5))
			db.AppendNull()
		}, []string{`"12345.67890"`, `"-1.50000"`, `"0.00000"`, `"0.00005"`, `"-0.00005"`, "null"}},
		{"decimal128(4,2)", &arrow.Decimal128Type{Precision: 4, Scale: 2}, func(b array.Builder) {
			db := b.(*array.Decimal128Builder)
			db.Append(decimal128.FromI64(-150))
			db.Append(decimal128.FromI64(0))
			db.Append(decimal128.FromI64(9999))
		}, []string{`"-1.50"`, `"0.00"`, `"99.99"`}},
		{"decimal128 scale 0", &arrow.Decimal128Type{Precision: 5, Scale: 0}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(12))
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(-7))
		}, []string{`"12"`, `"-7"`}},
		{"decimal128 negative scale", &arrow.Decimal128Type{Precision: 5, Scale: -2}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(12))
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(0))
		}, []string{`"1200"`, `"0"`}},
		{"decimal128 beyond int64", &arrow.Decimal128Type{Precision: 38, Scale: 10}, func(b array.Builder) {
			db := b.(*array.Decimal128Builder)
			n, _ := decimal128.FromString("-12345678901234567890123.4567890123", 38, 10)
			db.Append(n)
			db.Append(decimal128.GetMaxValue(38))
			db.Append(decimal128.FromI64(math.MinInt64))
		}, []string{`"-12345678901234567890123.4567890123"`, `"9999999999999999999999999999.9999999999"`,
			`"-922337203.6854775808"`}},
		{"decimal256", &arrow.Decimal256Type{Precision: 60, Scale: 3}, func(b array.Builder) {
			n, _ := decimal256.FromString("-123456789012345678901234567890123456789012345.678", 60, 3)
			b.(*array.Decimal256Builder).Append(n)
			b.(*array.Decimal256Builder).Append(decimal256.FromI64(1))
		}, []string{`"-123456789012345678901234567890123456789012345.678"`, `"0.001"`}},
		{"decimal32", &arrow.Decimal32Type{Precision: 9, Scale: 2}, func(b array.Builder) {
			b.(*array.Decimal32Builder).Append(decimal.Decimal32(-5))
		}, []string{`"-0.05"`}},
		{"decimal64", &arrow.Decimal64Type{Precision: 18, Scale: 4}, func(b array.Builder) {
			b.(*array.Decimal64Builder).Append(decimal.Decimal64(123456789))
		}, []string{`"12345.6789"`}},
		{"string", arrow.BinaryTypes.String, func(b array.Builder) {
			b.(*array.StringBuilder).AppendValues([]string{"Alice", "", "quote\" back\\ nl\n tab\t ctl\x01", "é ☃ 😀", "bad\xffutf8", "</script>"}, nil)
			b.AppendNull()
		}, []string{`"Alice"`, `""`, `"quote\" back\\ nl\n tab\t ctl\u0001"`, `"é ☃ 😀"`, `"bad\ufffdutf8"`, `"</script>"`, "null"}},
		{"large string", arrow.BinaryTypes.LargeString, func(b array.Builder) {
			b.(*array.LargeStringBuilder).Append("x")
		}, []string{`"x"`}},
		{"string view", arrow.BinaryTypes.StringView, func(b array.Builder) {
			b.(*array.StringViewBuilder).Append("a longer string that is not inlined")
		}, []string{`"a longer string that is not inlined"`}},
		{"binary", arrow.BinaryTypes.Binary, func(b array.Builder) {
			b.(*array.BinaryBuilder).AppendValues([][]byte{[]byte("binary data"), {}, {0xff, 0x00}}, nil)
			b.AppendNull()
		}, []string{`"YmluYXJ5IGRhdGE="`, `""`, `"/wA="`, "null"}},
		{"fixed size binary", &arrow.FixedSizeBinaryType{ByteWidth: 3}, func(b array.Builder) {
			b.(*array.FixedSizeBinaryBuilder).Append([]byte{1, 2, 3})
		}, []string{`"AQID"`}},
		{"date32", arrow.FixedWidthTypes.Date32, func(b array.Builder) {
			b.(*array.Date32Builder).AppendValues([]arrow.Date32{19448, 0, -1, -719528, -719529, 2932897, -25567}, nil)
			b.AppendNull()
		}, []string{`"2023-04-01"`, `"1970-01-01"`, `"1969-12-31"`, `"0000-01-01"`, `"-0001-12-31"`, `"10000-01-01"`, `"1900-01-01"`, "null"}},
		{"date64", arrow.FixedWidthTypes.Date64, func(b array.Builder) {
			b.(*array.Date64Builder).AppendValues([]arrow.Date64{1680307200000, -86400000, -1}, nil)
		}, []string{`"2023-04-01"`, `"1969-12-31"`, `"1969-12-31"`}},
		{"timestamp us", ts(arrow.Microsecond), func(b array.Builder) {
			b.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1680368460000000, 0, -1, -2208988800000000, 1680368460123456}, nil)
			b.AppendNull()
		}, []string{`"2023-04-01T17:01:00.000000Z"`, `"1970-01-01T00:00:00.000000Z"`, `"1969-12-31T23:59:59.999999Z"`,
			`"1900-01-01T00:00:00.000000Z"`, `"2023-04-01T17:01:00.123456Z"`, "null"}},
		{"timestamp ms", ts(arrow.Millisecond), func(b array.Builder) {
			b.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1680368460123, -1}, nil)
		}, []string{`"2023-04-01T17:01:00.123000Z"`, `"1969-12-31T23:59:59.999000Z"`}},
		{"timestamp ns", ts(arrow.Nanosecond), func(b array.Builder) {
			b.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1680368460123456789, -1, math.MinInt64}, nil)
		}, []string{`"2023-04-01T17:01:00.123456Z"`, `"1969-12-31T23:59:59.999999Z"`, `"1677-09-21T00:12:43.145224Z"`}},
		{"timestamp s, zone ignored", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "America/Chicago"}, func(b array.Builder) {
			b.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1680368460, 253402300800}, nil)
		}, []string{`"2023-04-01T17:01:00.000000Z"`, `"10000-01-01T00:00:00.000000Z"`}},
		{"time64 us", arrow.FixedWidthTypes.Time64us, func(b array.Builder) {
			b.(*array.Time64Builder).AppendValues([]arrow.Time64{0, 45296789012}, nil)
		}, []string{`"00:00:00.000000"`, `"12:34:56.789012"`}},
		{"time64 ns", arrow.FixedWidthTypes.Time64ns, func(b array.Builder) {
			b.(*array.Time64Builder).AppendValues([]arrow.Time64{45296789012345}, nil)
		}, []string{`"12:34:56.789012"`}},
		{"time32 ms", arrow.FixedWidthTypes.Time32ms, func(b array.Builder) {
			b.(*array.Time32Builder).AppendValues([]arrow.Time32{86399999}, nil)
		}, []string{`"23:59:59.999000"`}},
		{"null type", arrow.Null, func(b array.Builder) { b.AppendNull() }, []string{"null"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			arr := buildArray(t, mem, tc.dt, tc.fill)
			defer arr.Release()
			got := encodeAll(arr)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestAppendValueNested(t *testing.T) {
	mem := checkedMem(t)
	mapType := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	elem := arrow.StructOf(
		arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "tags", Type: mapType, Nullable: true},
	)
	dt := arrow.ListOf(elem)
	arr := fromJSON(t, mem, dt, `[
		[{"name": "a", "tags": [{"key": "z", "value": 1}, {"key": "b", "value": null}, {"key": "é", "value": 3}, {"key": "Z", "value": 4}]},
		 null,
		 {"name": null, "tags": null},
		 {"name": "c", "tags": []}],
		[],
		null
	]`)
	defer arr.Release()
	want := []string{
		`[{"name":"a","tags":[{"key":"Z","value":4},{"key":"b","value":null},{"key":"z","value":1},{"key":"é","value":3}]},null,{"name":null,"tags":null},{"name":"c","tags":[]}]`,
		`[]`,
		`null`,
	}
	got := encodeAll(arr)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}

	// Sliced arrays must honour the offset.
	sl := array.NewSlice(arr, 1, 3)
	defer sl.Release()
	if got := encodeAll(sl); got[0] != "[]" || got[1] != "null" {
		t.Errorf("slice: got %v", got)
	}
}

func TestMapNonStringKeysSortByJSONText(t *testing.T) {
	mem := checkedMem(t)
	arr := fromJSON(t, mem, arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
		`[[{"key": 10, "value": "ten"}, {"key": 9, "value": "nine"}, {"key": -1, "value": "m"}]]`)
	defer arr.Release()
	// By canonical JSON text: "-1" < "10" < "9".
	want := `[{"key":-1,"value":"m"},{"key":10,"value":"ten"},{"key":9,"value":"nine"}]`
	if got := string(AppendValue(nil, arr, 0)); got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestDictionaryAndStructNulls(t *testing.T) {
	mem := checkedMem(t)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for _, s := range []string{"sao_paulo", "chennai", "sao_paulo"} {
		if err := b.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	b.AppendNull()
	arr := b.NewArray()
	defer arr.Release()
	if got := strings.Join(encodeAll(arr), ","); got != `"sao_paulo","chennai","sao_paulo",null` {
		t.Errorf("dictionary: got %s", got)
	}

	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.StructOf(arrow.Field{Name: "c", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), Nullable: true})
	sarr := fromJSON(t, mem, st, `[{"a": 1, "b": {"c": true}}, null, {"a": null, "b": null}, {"a": 2, "b": {"c": null}}]`)
	defer sarr.Release()
	want := []string{`{"a":1,"b":{"c":true}}`, `null`, `{"a":null,"b":null}`, `{"a":2,"b":{"c":null}}`}
	if got := encodeAll(sarr); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("struct: got %v", got)
	}
	sl := array.NewSlice(sarr, 2, 4)
	defer sl.Release()
	if got := encodeAll(sl); got[0] != want[2] || got[1] != want[3] {
		t.Errorf("sliced struct: got %v", got)
	}
}

// allTypesRecord builds a record holding every supported type, with a null row.
func allTypesRecord(t testing.TB, mem memory.Allocator) arrow.RecordBatch {
	t.Helper()
	fields := []arrow.Field{
		{Name: "_hoodie_commit_time", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d32", Type: &arrow.Decimal32Type{Precision: 9, Scale: 3}, Nullable: true},
		{Name: "d64", Type: &arrow.Decimal64Type{Precision: 18, Scale: 0}, Nullable: true},
		{Name: "d128", Type: &arrow.Decimal128Type{Precision: 38, Scale: 5}, Nullable: true},
		{Name: "d256", Type: &arrow.Decimal256Type{Precision: 50, Scale: 2}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "sv", Type: arrow.BinaryTypes.StringView, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		{Name: "fbin", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4}, Nullable: true},
		{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "date64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "t32", Type: arrow.FixedWidthTypes.Time32s, Nullable: true},
		{Name: "t64", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "llist", Type: arrow.LargeListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "flist", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.ListOf(arrow.StructOf(
				arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, &arrow.Decimal128Type{Precision: 6, Scale: 2}), Nullable: true},
			)), Nullable: true},
		), Nullable: true},
		{Name: "map", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(
			arrow.Field{Name: "f1", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			arrow.Field{Name: "f2", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})), Nullable: true},
		{Name: "imap", Type: arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String), Nullable: true},
	}
	schema := arrow.NewSchema(fields, nil)
	// The input is written in the canonical encoding itself, which keeps it readable; the
	// per-type tests above pin the encoding independently of Decode.
	input := `{"_hoodie_commit_time":"20240418173550988","b":true,"i8":-8,"i16":-16,"i32":-32,"i64":-9223372036854775808,"u8":8,"u16":16,"u32":4294967295,"u64":18446744073709551615,"f16":0.5,"f32":0.1,"f64":3.14159,"d32":"-1.500","d64":"123456789012345678","d128":"12345.67890","d256":"-123456789012345678901234567890123456789012345.67","s":"Alice \"A\"\n☃","ls":"large","sv":"view","bin":"YmluYXJ5IGRhdGE=","lbin":"","fbin":"AAECAw==","date32":"1969-07-20","date64":"2023-04-01","ts_s":"1900-01-01T00:00:00.000000Z","ts_ms":"2023-04-01T17:01:00.123000Z","ts_us":"1969-12-31T23:59:59.999999Z","ts_ns":"2262-04-11T23:47:16.854775Z","t32":"23:59:59.000000","t64":"12:34:56.789012","list":[1,null,3],"llist":["a",null],"flist":[1.5,"NaN"],"st":{"x":1,"y":[{"m":[{"key":"a","value":"1.50"},{"key":"b","value":null}]},{"m":null},null]},"map":[{"key":"key1","value":{"f1":123.456,"f2":true}},{"key":"key2","value":{"f1":"-Infinity","f2":null}}],"imap":[{"key":-1,"value":"neg"},{"key":10,"value":"ten"},{"key":2,"value":"two"}]}
{"_hoodie_commit_time":null,"b":null,"i8":null,"i16":null,"i32":null,"i64":null,"u8":null,"u16":null,"u32":null,"u64":null,"f16":null,"f32":null,"f64":null,"d32":null,"d64":null,"d128":null,"d256":null,"s":null,"ls":null,"sv":null,"bin":null,"lbin":null,"fbin":null,"date32":null,"date64":null,"ts_s":null,"ts_ms":null,"ts_us":null,"ts_ns":null,"t32":null,"t64":null,"list":null,"llist":null,"flist":null,"st":null,"map":null,"imap":null}
{"_hoodie_commit_time":"20240418173551906","b":false,"i8":127,"i16":32767,"i32":2147483647,"i64":9223372036854775807,"u8":0,"u16":0,"u32":0,"u64":0,"f16":-65504.0,"f32":1e-45,"f64":-0.0,"d32":"0.000","d64":"-1","d128":"-0.00001","d256":"0.00","s":"","ls":"","sv":"","bin":"","lbin":"AA==","fbin":"/////w==","date32":"-0044-03-15","date64":"1970-01-01","ts_s":"1970-01-01T00:00:00.000000Z","ts_ms":"1969-12-31T23:59:59.999000Z","ts_us":"2023-04-01T17:01:00.000000Z","ts_ns":"1677-09-21T00:12:43.145225Z","t32":"00:00:00.000000","t64":"00:00:00.000001","list":[],"llist":[],"flist":[null,2.0],"st":{"x":null,"y":[]},"map":[],"imap":[]}
`
	var rec arrow.RecordBatch
	for r, err := range Decode(strings.NewReader(input), schema, mem, 100) {
		if err != nil {
			t.Fatalf("decode all-types input: %v", err)
		}
		if rec != nil {
			t.Fatal("expected a single batch")
		}
		rec = r
	}
	return rec
}

func encodeRecords(t testing.TB, opts Options, recs ...arrow.RecordBatch) string {
	t.Helper()
	var buf bytes.Buffer
	enc := NewEncoder(&buf, opts)
	for _, rec := range recs {
		if err := enc.WriteRecord(rec); err != nil {
			t.Fatalf("WriteRecord: %v", err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return buf.String()
}

func TestGoldenAllTypes(t *testing.T) {
	mem := checkedMem(t)
	rec := allTypesRecord(t, mem)
	defer rec.Release()
	got := encodeRecords(t, Options{}, rec)
	golden := filepath.Join("testdata", "all_types.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs from %s:\n got %s\nwant %s", i+1, golden, gl[i], wl[i])
			}
		}
		t.Fatalf("output has %d lines, golden %d", len(gl), len(wl))
	}
}

func TestRoundTrip(t *testing.T) {
	mem := checkedMem(t)
	rec := allTypesRecord(t, mem)
	defer rec.Release()
	first := encodeRecords(t, Options{}, rec)
	// Batch size 2 splits the input: the encoder must give the same text across batches.
	var recs []arrow.RecordBatch
	for r, err := range Decode(strings.NewReader(first), rec.Schema(), mem, 2) {
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		recs = append(recs, r)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if len(recs) != 2 {
		t.Fatalf("got %d batches, want 2", len(recs))
	}
	if second := encodeRecords(t, Options{}, recs...); second != first {
		t.Errorf("round trip differs:\nfirst  %s\nsecond %s", first, second)
	}
}

func TestEncoderOptions(t *testing.T) {
	mem := checkedMem(t)
	rec := allTypesRecord(t, mem)
	defer rec.Release()
	sl := rec.NewSlice(0, 1)
	defer sl.Release()

	out := encodeRecords(t, Options{DropMetaColumns: true, Columns: []string{"i32", "_hoodie_commit_time", "s"}}, sl)
	if want := `{"i32":-32,"s":"Alice \"A\"\n☃"}` + "\n"; out != want {
		t.Errorf("projection: got %q want %q", out, want)
	}
	out = encodeRecords(t, Options{DropMetaColumns: true}, sl)
	if strings.Contains(out, "_hoodie_") || !strings.HasPrefix(out, `{"b":true,`) {
		t.Errorf("DropMetaColumns: got %s", out)
	}
	out = encodeRecords(t, Options{Columns: []string{"_hoodie_commit_time"}}, sl)
	if want := `{"_hoodie_commit_time":"20240418173550988"}` + "\n"; out != want {
		t.Errorf("meta projection: got %q", out)
	}

	var buf bytes.Buffer
	err := NewEncoder(&buf, Options{Columns: []string{"nope"}}).WriteRecord(sl)
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown projected column: err = %v", err)
	}

	// No columns at all still gives one (empty) object per row.
	empty := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 2)
	defer empty.Release()
	if out := encodeRecords(t, Options{}, empty); out != "{}\n{}\n" {
		t.Errorf("empty schema: got %q", out)
	}
}

// TestEncoderSchemaChange: the column plan is cached per schema and must be rebuilt when a
// different schema arrives.
func TestEncoderSchemaChange(t *testing.T) {
	mem := checkedMem(t)
	mk := func(name string, v int32) arrow.RecordBatch {
		schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int32}}, nil)
		arr := buildArray(t, mem, arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).Append(v) })
		defer arr.Release()
		return array.NewRecordBatch(schema, []arrow.Array{arr}, 1)
	}
	r1, r2, r3 := mk("a", 1), mk("a", 2), mk("b", 3)
	defer r1.Release()
	defer r2.Release()
	defer r3.Release()
	if got := encodeRecords(t, Options{}, r1, r2, r3); got != "{\"a\":1}\n{\"a\":2}\n{\"b\":3}\n" {
		t.Errorf("got %q", got)
	}
}

func TestWriteTableAndCSV(t *testing.T) {
	mem := checkedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "fare", Type: &arrow.Decimal128Type{Precision: 6, Scale: 2}, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	input := `{"id":1,"name":"Alice","fare":"19.10","tags":["a","b"]}
{"id":22,"name":"Bob, \"the\" builder\nline2","fare":null,"tags":[]}
{"id":null,"name":null,"fare":"-1.50","tags":null}
`
	var recs []arrow.RecordBatch
	for r, err := range Decode(strings.NewReader(input), schema, mem, 2) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var buf bytes.Buffer
	if err := WriteTable(&buf, schema, recs); err != nil {
		t.Fatal(err)
	}
	wantTable := `  id | name                      |  fare | tags
---- | ------------------------- | ----- | ---------
   1 | Alice                     | 19.10 | ["a","b"]
  22 | Bob, "the" builder\nline2 |  NULL | []
NULL | NULL                      | -1.50 | NULL
`
	if buf.String() != wantTable {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), wantTable)
	}

	buf.Reset()
	proj := arrow.NewSchema([]arrow.Field{schema.Field(1), schema.Field(0)}, nil)
	if err := WriteCSV(&buf, proj, recs); err != nil {
		t.Fatal(err)
	}
	wantCSV := "name,id\nAlice,1\n\"Bob, \"\"the\"\" builder\nline2\",22\n,\n"
	if buf.String() != wantCSV {
		t.Errorf("csv:\n%q\nwant\n%q", buf.String(), wantCSV)
	}

	bad := arrow.NewSchema([]arrow.Field{{Name: "missing", Type: arrow.BinaryTypes.String}}, nil)
	if err := WriteTable(&buf, bad, recs); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("WriteTable with unknown column: err = %v", err)
	}

	var text []byte
	text, ok := AppendText(text, recs[0].Column(1), 0)
	if !ok || string(text) != "Alice" {
		t.Errorf("AppendText = %q, %v", text, ok)
	}
}

func BenchmarkEncoder(b *testing.B) {
	mem := memory.NewGoAllocator()
	rec := allTypesRecord(b, mem)
	defer rec.Release()
	enc := NewEncoder(discard{}, Options{})
	b.ReportAllocs()
	for b.Loop() {
		if err := enc.WriteRecord(rec); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
