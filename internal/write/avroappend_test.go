package write

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/logfile"
)

// avroCol is one column of a differential case: the Avro type of its record field and
// the Arrow array that feeds it.
type avroCol struct {
	avro string // JSON of the field's Avro type
	arr  arrow.Array
}

func jsonArr(t *testing.T, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(memory.DefaultAllocator, dt, strings.NewReader(js))
	if err != nil {
		t.Fatalf("%s from %s: %v", dt, js, err)
	}
	return a
}

func float32Arr(vs ...float32) arrow.Array {
	b := array.NewFloat32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vs, nil)
	b.AppendNull()
	return b.NewArray()
}

func float64Arr(vs ...float64) arrow.Array {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vs, nil)
	b.AppendNull()
	return b.NewArray()
}

// TestAvroAppendMatchesGeneric holds the direct appenders to the generic route's bytes
// (and its errors) for every Arrow/Avro pairing the log writer converts. Every array
// ends in a null (or holds some), written as the null branch of the nullable form and
// refused by the plain one.
func TestAvroAppendMatchesGeneric(t *testing.T) {
	nan32 := math.Float32frombits(0x7fc00001) // a NaN with payload: its bits must survive
	nan64 := math.Float64frombits(0x7ff8000000000123)
	strs := `["", "a", "héllo wörld", "日本語 🚀", "` + strings.Repeat("x", 200) + `", null]`
	bins := `["", "AA==", "/wD+", "` + strings.Repeat("QUJD", 60) + `", null]` // base64
	dict := func(t *testing.T) arrow.Array {
		idx := jsonArr(t, arrow.PrimitiveTypes.Int32, `[0, 1, null, 2, 1, 0]`)
		vals := jsonArr(t, arrow.BinaryTypes.String, `["x", "", null]`)
		return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, vals)
	}
	cases := []struct {
		name string
		cols func(t *testing.T) []avroCol
		// generic is false where the generic route is taken (maps).
		generic bool
	}{
		{name: "boolean", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"boolean"`, jsonArr(t, arrow.FixedWidthTypes.Boolean, `[true, false, null]`)}}
		}},
		{name: "int from int8", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"int"`, jsonArr(t, arrow.PrimitiveTypes.Int8, `[-128, 127, 0, -1, null]`)}}
		}},
		{name: "int from int16", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"int"`, jsonArr(t, arrow.PrimitiveTypes.Int16, `[-32768, 32767, 64, -65, null]`)}}
		}},
		{name: "int from int32", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"int"`, jsonArr(t, arrow.PrimitiveTypes.Int32, `[-2147483648, 2147483647, 0, 63, -64, 8191, -8193, null]`)}}
		}},
		{name: "int from uint8", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"int"`, jsonArr(t, arrow.PrimitiveTypes.Uint8, `[0, 255, null]`)}}
		}},
		{name: "int from uint16", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"int"`, jsonArr(t, arrow.PrimitiveTypes.Uint16, `[0, 65535, null]`)}}
		}},
		{name: "date from date32", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`{"type":"int","logicalType":"date"}`, jsonArr(t, arrow.FixedWidthTypes.Date32, `[-719162, 0, 20000, 2932896, null]`)}}
		}},
		{name: "date from date64", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`{"type":"int","logicalType":"date"}`, jsonArr(t, arrow.FixedWidthTypes.Date64, `[-86400000, -1, 0, 1728000000000, null]`)}}
		}},
		{name: "time-millis from time32", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`{"type":"int","logicalType":"time-millis"}`, jsonArr(t, arrow.FixedWidthTypes.Time32s, `[0, 86399, 3600, null]`)},
				{`{"type":"int","logicalType":"time-millis"}`, jsonArr(t, arrow.FixedWidthTypes.Time32ms, `[0, 86399999, 1, null]`)},
			}
		}},
		{name: "time-millis from time64", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`{"type":"int","logicalType":"time-millis"}`, jsonArr(t, arrow.FixedWidthTypes.Time64us, `[0, 86399999999, 1999, null]`)},
				{`{"type":"int","logicalType":"time-millis"}`, jsonArr(t, arrow.FixedWidthTypes.Time64ns, `[0, 86399999999999, 1999999, null]`)},
			}
		}},
		{name: "long from int64", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"long"`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[-9223372036854775808, 9223372036854775807, 0, -1, 1, 4611686018427387904, null]`)}}
		}},
		{name: "long widened", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`"long"`, jsonArr(t, arrow.PrimitiveTypes.Int32, `[-2147483648, 2147483647, null]`)},
				{`"long"`, jsonArr(t, arrow.PrimitiveTypes.Uint32, `[0, 4294967295, null]`)},
				{`"long"`, jsonArr(t, arrow.PrimitiveTypes.Int16, `[-32768, 32767, null]`)},
				{`"long"`, jsonArr(t, arrow.PrimitiveTypes.Int8, `[-128, 127, null]`)},
			}
		}},
		{name: "timestamps", cols: func(t *testing.T) []avroCol {
			var cols []avroCol
			for _, lt := range []string{"timestamp-micros", "timestamp-millis", "timestamp-nanos", "local-timestamp-micros", "local-timestamp-millis"} {
				for _, dt := range []arrow.DataType{arrow.FixedWidthTypes.Timestamp_s, arrow.FixedWidthTypes.Timestamp_ms,
					arrow.FixedWidthTypes.Timestamp_us, &arrow.TimestampType{Unit: arrow.Nanosecond}} {
					cols = append(cols, avroCol{`{"type":"long","logicalType":"` + lt + `"}`,
						jsonArr(t, dt, `[0, -1, 1700000000, -62135596800, 9999999999, null]`)})
				}
			}
			return cols
		}},
		{name: "time-micros from time64", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`{"type":"long","logicalType":"time-micros"}`, jsonArr(t, arrow.FixedWidthTypes.Time64us, `[0, 86399999999, null]`)},
				{`{"type":"long","logicalType":"time-micros"}`, jsonArr(t, arrow.FixedWidthTypes.Time64ns, `[0, 86399999999999, 1999, null]`)},
			}
		}},
		{name: "float", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`"float"`, float32Arr(0, float32(math.Copysign(0, -1)), nan32, float32(math.Inf(1)), float32(math.Inf(-1)),
				math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1.5)}}
		}},
		{name: "double", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`"double"`, float64Arr(0, math.Copysign(0, -1), nan64, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64,
					-math.MaxFloat64, math.SmallestNonzeroFloat64, 1.37)},
				{`"double"`, float32Arr(0, float32(math.Copysign(0, -1)), nan32, float32(math.Inf(1)), float32(math.Inf(-1)),
					math.MaxFloat32, math.SmallestNonzeroFloat32, 0.1, 1.5)},
			}
		}},
		{name: "string", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`"string"`, jsonArr(t, arrow.BinaryTypes.String, strs)},
				{`"string"`, jsonArr(t, arrow.BinaryTypes.LargeString, strs)},
				{`"string"`, jsonArr(t, arrow.BinaryTypes.StringView, strs)},
				{`"string"`, jsonArr(t, arrow.BinaryTypes.Binary, bins)},
				{`"string"`, jsonArr(t, arrow.BinaryTypes.LargeBinary, bins)},
			}
		}},
		{name: "enum", cols: func(t *testing.T) []avroCol {
			e := `{"type":"enum","name":"E","symbols":["A","B","héllo"]}`
			return []avroCol{
				{e, jsonArr(t, arrow.BinaryTypes.String, `["A", "héllo", "B", null]`)},
				{`"E"`, jsonArr(t, arrow.BinaryTypes.Binary, `["QQ==", "Qg==", "QQ==", null]`)},
			}
		}},
		{name: "enum unknown symbol", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`{"type":"enum","name":"E","symbols":["A"]}`, jsonArr(t, arrow.BinaryTypes.String, `["A", "Z"]`)}}
		}},
		{name: "bytes", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`"bytes"`, jsonArr(t, arrow.BinaryTypes.Binary, bins)},
				{`"bytes"`, jsonArr(t, arrow.BinaryTypes.LargeBinary, bins)},
				{`"bytes"`, jsonArr(t, arrow.BinaryTypes.BinaryView, bins)},
				{`"bytes"`, jsonArr(t, &arrow.FixedSizeBinaryType{ByteWidth: 3}, `["AAAA", "/wD+", null]`)},
				{`"bytes"`, jsonArr(t, arrow.BinaryTypes.String, strs)},
			}
		}},
		{name: "fixed", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`{"type":"fixed","name":"F3","size":3}`, jsonArr(t, arrow.BinaryTypes.Binary, `["AAAA", "/wD+", null]`)},
				{`"F3"`, jsonArr(t, &arrow.FixedSizeBinaryType{ByteWidth: 3}, `["AAAA", "/wD+", null]`)},
				{`{"type":"fixed","name":"F0","size":0}`, jsonArr(t, arrow.BinaryTypes.Binary, `["", "", null]`)},
			}
		}},
		{name: "fixed of the wrong size", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`{"type":"fixed","name":"F3","size":3}`, jsonArr(t, arrow.BinaryTypes.Binary, `["AAAA", "AA=="]`)}}
		}},
		{name: "decimal", cols: func(t *testing.T) []avroCol {
			d := func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
			vals := `["0", "1.00", "-1.00", "127.99", "-128.00", "1.28", "-1.29", "99999999.99", "-99999999.99", null]`
			return []avroCol{
				{`{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`, jsonArr(t, d(10, 2), vals)},
				{`{"type":"fixed","name":"D5","size":5,"logicalType":"decimal","precision":10,"scale":2}`, jsonArr(t, d(10, 2), vals)},
				{`{"type":"fixed","name":"D16","size":16,"logicalType":"decimal","precision":38,"scale":0}`,
					jsonArr(t, d(38, 0), `["99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "0", null]`)},
				{`{"type":"bytes","logicalType":"decimal","precision":40,"scale":3}`,
					jsonArr(t, &arrow.Decimal256Type{Precision: 40, Scale: 3}, `["-1234567890123456789012345678901234567.891", "0.001", null]`)},
			}
		}},
		{name: "decimal too wide for its fixed", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`{"type":"fixed","name":"D1","size":1,"logicalType":"decimal","precision":2,"scale":0}`,
				jsonArr(t, &arrow.Decimal128Type{Precision: 5, Scale: 0}, `["1", "300"]`)}}
		}},
		{name: "record", cols: func(t *testing.T) []avroCol {
			st := arrow.StructOf(
				arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64},
				arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
				arrow.Field{Name: "c", Type: arrow.StructOf(arrow.Field{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true}), Nullable: true},
			)
			return []avroCol{{`["null", {"type":"record","name":"R","fields":[{"name":"b","type":["null","string"]},{"name":"a","type":"long"},
				{"name":"c","type":["null",{"type":"record","name":"C","fields":[{"name":"d","type":["double","null"]}]}]}]}]`,
				jsonArr(t, st, `[{"a": -5, "b": "x", "c": {"d": -0.5}}, {"a": 7, "b": null, "c": null}, null, {"a": 0, "b": "", "c": {"d": null}}]`)}}
		}},
		{name: "array", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`{"type":"array","items":"long"}`, jsonArr(t, arrow.ListOf(arrow.PrimitiveTypes.Int64), `[[1, -2, 9223372036854775807], [], [0], null]`)},
				{`["null",{"type":"array","items":["null","string"]}]`, jsonArr(t, arrow.LargeListOf(arrow.BinaryTypes.String), `[["a", null, ""], [], null, [null]]`)},
				{`{"type":"array","items":{"type":"array","items":"int"}}`,
					jsonArr(t, arrow.FixedSizeListOf(2, arrow.ListOf(arrow.PrimitiveTypes.Int32)), `[[[1], []], [[-1, 2], [3]], null]`)},
			}
		}},
		{name: "array of nulls", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`{"type":"array","items":"null"}`, jsonArr(t, arrow.ListOf(arrow.Null), `[[null, null], [], [null]]`)}}
		}},
		{name: "map", generic: true, cols: func(t *testing.T) []avroCol {
			// One entry a map: the generic route's Go map has only one order then.
			return []avroCol{{`{"type":"map","values":["null","long"]}`,
				jsonArr(t, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), `[[{"key": "k", "value": 1}], [], [{"key": "é", "value": null}], null]`)}}
		}},
		{name: "dictionary", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`["null","string"]`, dict(t)},
				{`["string","null"]`, dict(t)},
				{`"string"`, dict(t)},
			}
		}},
		{name: "nullable unions", cols: func(t *testing.T) []avroCol {
			return []avroCol{
				{`["null","long"]`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[null, -9223372036854775808, 5, null]`)},
				{`["long","null"]`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[null, 9223372036854775807, 5, null]`)},
				{`["null","string"]`, jsonArr(t, arrow.BinaryTypes.String, `[null, "", "日本", null]`)},
				{`["string","null"]`, jsonArr(t, arrow.BinaryTypes.String, `[null, "", "日本", null]`)},
				{`["null","double"]`, float64Arr(math.Inf(-1), nan64, math.Copysign(0, -1))},
				{`["double","null"]`, float64Arr(math.Inf(-1), nan64, math.Copysign(0, -1))},
				{`["null",{"type":"int","logicalType":"date"}]`, jsonArr(t, arrow.FixedWidthTypes.Date32, `[null, -1, 1, null]`)},
				{`["null",{"type":"long","logicalType":"timestamp-micros"}]`, jsonArr(t, arrow.FixedWidthTypes.Timestamp_ms, `[null, -1, 1, null]`)},
				{`["null","bytes"]`, jsonArr(t, arrow.BinaryTypes.Binary, `[null, "", "AA==", null]`)},
				{`["null","boolean"]`, jsonArr(t, arrow.FixedWidthTypes.Boolean, `[null, true, false, null]`)},
				{`["long"]`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[1, -1, 0]`)},
				{`["null"]`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[1, null, 0, null]`)},
				{`"null"`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[1, null, 0, null]`)},
			}
		}},
		{name: "null in a one-branch union", cols: func(t *testing.T) []avroCol {
			return []avroCol{{`["long"]`, jsonArr(t, arrow.PrimitiveTypes.Int64, `[1, null]`)}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cols := c.cols(t)
			var fields []string
			var afs []arrow.Field
			var arrs []arrow.Array
			rows := cols[0].arr.Len()
			for k, col := range cols {
				name := fmt.Sprintf("f%d", k)
				fields = append(fields, fmt.Sprintf(`{"name":%q,"type":%s}`, name, col.avro))
				afs = append(afs, arrow.Field{Name: name, Type: col.arr.DataType(), Nullable: true})
				arrs = append(arrs, col.arr)
				rows = min(rows, col.arr.Len())
			}
			for k := range arrs {
				arrs[k] = array.NewSlice(arrs[k], 0, int64(rows))
			}
			sch := arrow.NewSchema(afs, nil)
			rec := array.NewRecord(sch, arrs, int64(rows))
			defer rec.Release()
			// Every column alone, then all together (named types declared once).
			encs := map[string]*avroRowEncoder{}
			js := `{"type":"record","name":"T","namespace":"n","fields":[` + strings.Join(fields, ",") + `]}`
			enc, err := newAvroRowEncoder(js, sch)
			if err != nil {
				t.Fatal(err)
			}
			encs["all"] = enc
			if enc.direct == c.generic {
				t.Fatalf("direct = %v, want %v", enc.direct, !c.generic)
			}
			for k, f := range fields {
				if cols[k].avro == `"E"` || cols[k].avro == `"F3"` {
					continue // a reference to a type declared by another column
				}
				one, err := newAvroRowEncoder(`{"type":"record","name":"T","namespace":"n","fields":[`+f+`]}`,
					arrow.NewSchema([]arrow.Field{{Name: afs[k].Name, Type: afs[k].Type, Nullable: true}}, nil))
				if err != nil {
					t.Fatal(err)
				}
				encs[afs[k].Name] = one
				if strings.HasPrefix(cols[k].avro, "[") || cols[k].avro == `"null"` {
					continue
				}
				// The same type nullable, with null first and second.
				for _, u := range []string{`["null",` + cols[k].avro + `]`, `[` + cols[k].avro + `,"null"]`} {
					wrapped, err := newAvroRowEncoder(fmt.Sprintf(`{"type":"record","name":"T","namespace":"n","fields":[{"name":%q,"type":%s}]}`, afs[k].Name, u),
						arrow.NewSchema([]arrow.Field{{Name: afs[k].Name, Type: afs[k].Type, Nullable: true}}, nil))
					if err != nil {
						t.Fatal(err)
					}
					encs[afs[k].Name+" as "+u] = wrapped
				}
			}
			for name, enc := range encs {
				r := rec
				if name != "all" {
					idx := rec.Schema().FieldIndices(strings.Fields(name)[0])[0]
					r = array.NewRecord(arrow.NewSchema([]arrow.Field{rec.Schema().Field(idx)}, nil), []arrow.Array{rec.Column(idx)}, rec.NumRows())
					defer r.Release()
				}
				for i := range rows {
					prefix := []byte{0xAB} // appending must keep what dst holds
					want, werr := enc.appendGeneric(bytes.Clone(prefix), r, i)
					got, gerr := enc.appendRecord(bytes.Clone(prefix), r, i)
					switch {
					case werr != nil && gerr == nil:
						t.Errorf("%s row %d: generic fails (%v), direct writes %x", name, i, werr, got)
					case werr == nil && gerr != nil:
						t.Errorf("%s row %d: generic writes %x, direct fails: %v", name, i, want, gerr)
					case werr != nil:
						// Our own refusals read the same; the encoding library's words are its own.
						if !strings.Contains(werr.Error(), "avro encode") && werr.Error() != gerr.Error() {
							t.Errorf("%s row %d: error %q, generic %q", name, i, gerr, werr)
						}
					case !bytes.Equal(got, want):
						t.Errorf("%s row %d: direct %x, generic %x", name, i, got, want)
					}
				}
			}
		})
	}
}

// TestAvroDataBlockMatchesGeneric compares whole AVRO_DATA_BLOCK contents of a trips-like
// batch: dataBlock's (direct appenders, built in place) against the generic records put
// together by logfile.EncodeAvroDataBlock, as the block was built before.
func TestAvroDataBlockMatchesGeneric(t *testing.T) {
	rec, avroSchema := tripsRows(t, 1000)
	defer rec.Release()
	env := &writeEnv{avroWithMeta: avroSchema, outSchema: rec.Schema()}
	enc, err := env.rowEncoder()
	if err != nil {
		t.Fatal(err)
	}
	if !enc.direct {
		t.Fatal("trips rows take the generic route")
	}
	var want [][]byte
	for _, r := range []arrow.Record{rec.NewSlice(0, 1), rec.NewSlice(1, 600), rec.NewSlice(600, 1000)} {
		defer r.Release()
		for i := range int(r.NumRows()) {
			b, err := enc.appendGeneric(nil, r, i)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
		}
	}
	block, err := env.dataBlock([]arrow.Record{rec.NewSlice(0, 1), rec.NewSlice(1, 600), rec.NewSlice(600, 1000)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(block.Content, logfile.EncodeAvroDataBlock(want)) {
		t.Fatal("AVRO_DATA_BLOCK content differs from the generic route's")
	}
	empty, err := env.dataBlock(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(empty.Content, logfile.EncodeAvroDataBlock(nil)) {
		t.Fatalf("empty block content %x", empty.Content)
	}
}
