package read

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The image text is Avro 1.11's GenericData.toString of the record as Java's
// HoodieCDCUtils.recordToJson prints it. Expected strings follow that method by hand:
// "field": value joined by ", "; strings escaped by writeEscapedString (\" \\ \b \f \n \r
// \t, \u00XX for U+0000–001F and U+007F–009F, \u20XX for U+2000–20FF); Float/Double as
// Java's toString, NaN and infinities quoted; bytes as {"bytes": "…"} of ISO-8859-1
// characters; fixed as Arrays.toString of the signed bytes; a timestamp-micros as its long;
// a date as its int.
func TestImageRendererAvroToString(t *testing.T) {
	const avroSchema = `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[` +
		`{"name":"s","type":["null","string"],"default":null},` +
		`{"name":"i","type":["null","int"],"default":null},` +
		`{"name":"l","type":["null","long"],"default":null},` +
		`{"name":"f","type":["null","float"],"default":null},` +
		`{"name":"d","type":["null","double"],"default":null},` +
		`{"name":"b","type":["null","boolean"],"default":null},` +
		`{"name":"bin","type":["null","bytes"],"default":null},` +
		`{"name":"dec","type":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.t.t_record.dec","size":5,"logicalType":"decimal","precision":10,"scale":2}],"default":null},` +
		`{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},` +
		`{"name":"at","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},` +
		`{"name":"st","type":["null",{"type":"record","name":"st","namespace":"hoodie.t.t_record","fields":[{"name":"x","type":["null","long"],"default":null}]}],"default":null},` +
		`{"name":"arr","type":["null",{"type":"array","items":["null","string"]}],"default":null},` +
		`{"name":"m","type":["null",{"type":"map","values":["null","int"]}],"default":null}]}`
	r, err := newImageRenderer(avroSchema)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "_hoodie_commit_time", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "st", Type: st, Nullable: true},
		{Name: "arr", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	// Row 0: values.
	b.Field(0).(*array.StringBuilder).Append("20240101000000000")
	b.Field(1).(*array.StringBuilder).Append("a\"b\\c\n\t\x01\u007f\u2028é/😀")
	b.Field(2).(*array.Int32Builder).Append(-7)
	b.Field(3).(*array.Int64Builder).Append(1695158649187)
	b.Field(4).(*array.Float32Builder).Append(0.1)
	b.Field(5).(*array.Float64Builder).Append(1e10)
	b.Field(6).(*array.BooleanBuilder).Append(true)
	b.Field(7).(*array.BinaryBuilder).Append([]byte{'h', 0, 0xe9, '"'})
	b.Field(8).(*array.Decimal128Builder).Append(decimal128.FromBigInt(big.NewInt(-1234)))
	b.Field(9).(*array.Date32Builder).Append(19723)
	b.Field(10).(*array.TimestampBuilder).Append(1704067200000001)
	sb := b.Field(11).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int64Builder).Append(5)
	lb := b.Field(12).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).Append("x")
	lb.ValueBuilder().(*array.StringBuilder).AppendNull()
	mb := b.Field(13).(*array.MapBuilder)
	mb.Append(true)
	// Utf8 hashes (4 buckets for 2 entries): "b" 98 → 2, "a" 97 → 1: "a" first.
	mb.KeyBuilder().(*array.StringBuilder).Append("b")
	mb.ItemBuilder().(*array.Int32Builder).Append(2)
	mb.KeyBuilder().(*array.StringBuilder).Append("a")
	mb.ItemBuilder().(*array.Int32Builder).Append(1)
	// Row 1: nulls, and the quoted floats.
	b.Field(0).(*array.StringBuilder).AppendNull()
	b.Field(1).(*array.StringBuilder).AppendNull()
	b.Field(2).(*array.Int32Builder).AppendNull()
	b.Field(3).(*array.Int64Builder).AppendNull()
	b.Field(4).(*array.Float32Builder).Append(float32(math.Inf(-1)))
	b.Field(5).(*array.Float64Builder).Append(math.NaN())
	for _, i := range []int{6, 7, 8, 9, 10, 11, 12, 13} {
		b.Field(i).AppendNull()
	}
	rec := b.NewRecord()
	defer rec.Release()
	want := []string{
		`{"s": "a\"b\\c\n\t\u0001\u007F\u2028é/😀", "i": -7, "l": 1695158649187, "f": 0.1, "d": 1.0E10, "b": true, ` +
			`"bin": {"bytes": "h\u0000é\""}, "dec": [-1, -1, -1, -5, 46], "day": 19723, "at": 1704067200000001, ` +
			`"st": {"x": 5}, "arr": ["x", null], "m": {"a": 1, "b": 2}}`,
		`{"s": null, "i": null, "l": null, "f": "-Infinity", "d": "NaN", "b": null, "bin": null, "dec": null, "day": null, ` +
			`"at": null, "st": null, "arr": null, "m": null}`,
	}
	for i, w := range want {
		got, err := r.render(rec, i)
		if err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, got, w)
		}
		if strings.Contains(got, "_hoodie_") {
			t.Errorf("row %d prints a meta column", i)
		}
	}
}

// HoodieFileGroupId.hashCode is Objects.hash(partitionPath, fileId):
// 31*(31*1 + "sf".hashCode()) + "abc-0".hashCode() = 31*(31+3667) + 92597637.
func TestFileGroupIDHash(t *testing.T) {
	if got, want := fileGroupIDHash("sf", "abc-0"), int32(92712275); got != want {
		t.Errorf("fileGroupIDHash = %d, want %d", got, want)
	}
	if got, want := fileGroupIDHash("", "abc-0"), int32(31*31+92597637); got != want {
		t.Errorf("fileGroupIDHash(non-partitioned) = %d, want %d", got, want)
	}
}
