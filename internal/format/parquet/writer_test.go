package parquet

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

var metaCols = []string{"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"}

const testAvroSchema = `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[]}`

func metaFields() []arrow.Field {
	fs := make([]arrow.Field, len(metaCols))
	for i, n := range metaCols {
		fs[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	return fs
}

// allTypesSchema uses the names the reader gives back for parquet-avro's layout (list
// element "array", required; map "key"/"value"), so written and read types compare
// equal. It has lists of primitives, structs, lists and maps, a map of lists and a
// struct holding a list and a map.
func allTypesSchema() *arrow.Schema {
	fs := append(metaFields(),
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		arrow.Field{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		arrow.Field{Name: "dec10", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		arrow.Field{Name: "dec38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 9}, Nullable: true},
		arrow.Field{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		arrow.Field{Name: "tags", Type: elemList(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
		arrow.Field{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "c", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}), Nullable: true},
		), Nullable: true},
		// arrow-go reads the repeated struct element of a 2-level list as nullable.
		arrow.Field{Name: "recs", Type: nullableElemList(arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "c", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		)), Nullable: true},
		arrow.Field{Name: "lol", Type: elemList(elemList(arrow.BinaryTypes.String)), Nullable: true},
		arrow.Field{Name: "lom", Type: elemList(arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)), Nullable: true},
		arrow.Field{Name: "mol", Type: arrow.MapOfWithMetadata(arrow.BinaryTypes.String, arrow.Metadata{}, elemList(&arrow.Decimal128Type{Precision: 10, Scale: 2}), arrow.Metadata{}), Nullable: true},
		arrow.Field{Name: "sl", Type: arrow.StructOf(
			arrow.Field{Name: "tl", Type: elemList(&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}), Nullable: true},
			arrow.Field{Name: "dm", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32), Nullable: true},
		), Nullable: true},
	)
	return arrow.NewSchema(fs, nil)
}

// elemList is a list as the reader gives back parquet-avro's 2-level lists: element
// "array", required.
func elemList(dt arrow.DataType) *arrow.ListType {
	return arrow.ListOfField(arrow.Field{Name: "array", Type: dt, Nullable: false})
}

func nullableElemList(dt arrow.DataType) *arrow.ListType {
	return arrow.ListOfField(arrow.Field{Name: "array", Type: dt, Nullable: true})
}

// allTypesRecord fills n rows starting at row base; every column is null somewhere,
// and so are list elements, map values and struct children.
func allTypesRecord(mem memory.Allocator, sc *arrow.Schema, base, n int) arrow.Record {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	big38, _ := new(big.Int).SetString("12345678901234567890123456789", 10)
	for r := base; r < base+n; r++ {
		null := func(col int) bool { return (r+col)%7 == 0 }
		c := 0
		for ; c < len(metaCols); c++ {
			sb := b.Field(c).(*array.StringBuilder)
			if null(c) {
				sb.AppendNull()
			} else {
				sb.Append(fmt.Sprintf("%s-%d", metaCols[c], r))
			}
		}
		appendOr := func(fb array.Builder, f func()) {
			if null(c) {
				fb.AppendNull()
			} else {
				f()
			}
			c++
		}
		appendOr(b.Field(c), func() { b.Field(c).(*array.Int32Builder).Append(int32(r) - 1<<20) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.Int64Builder).Append(int64(r) << 33) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.Float32Builder).Append(float32(r) / 3) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.Float64Builder).Append(float64(r) / 7) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.BooleanBuilder).Append(r%2 == 0) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.StringBuilder).Append(strings.Repeat("é", r%5) + fmt.Sprint(r)) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.BinaryBuilder).Append([]byte{byte(r), 0, byte(r >> 8)}) })
		appendOr(b.Field(c), func() { b.Field(c).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r)*101 - 50000)) })
		appendOr(b.Field(c), func() {
			v := decimal128.FromBigInt(new(big.Int).Add(big38, big.NewInt(int64(r))))
			if r%2 == 1 {
				v = v.Negate()
			}
			b.Field(c).(*array.Decimal128Builder).Append(v)
		})
		appendOr(b.Field(c), func() { b.Field(c).(*array.Date32Builder).Append(arrow.Date32(19000 + r)) })
		appendOr(b.Field(c), func() {
			b.Field(c).(*array.TimestampBuilder).Append(arrow.Timestamp(time.Date(2024, 4, 18, 17, 35, 50, 0, time.UTC).UnixMicro() + int64(r)))
		})
		appendOr(b.Field(c), func() {
			lb := b.Field(c).(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.StringBuilder)
			for k := 0; k < r%4; k++ {
				// no null elements: the 2-level form cannot hold them (TestWriterRefusesNullListElement)
				vb.Append(fmt.Sprintf("t%d", k))
			}
		})
		appendOr(b.Field(c), func() {
			mb := b.Field(c).(*array.MapBuilder)
			mb.Append(true)
			kb, ib := mb.KeyBuilder().(*array.StringBuilder), mb.ItemBuilder().(*array.Int32Builder)
			for k := 0; k < r%3; k++ {
				kb.Append(fmt.Sprintf("k%d", k))
				if k == 1 {
					ib.AppendNull()
				} else {
					ib.Append(int32(r * k))
				}
			}
		})
		appendOr(b.Field(c), func() {
			sb := b.Field(c).(*array.StructBuilder)
			sb.Append(true)
			if r%3 == 0 {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(r))
			}
			if r%4 == 0 {
				sb.FieldBuilder(1).AppendNull()
			} else {
				sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprint("s", r))
			}
			cb := sb.FieldBuilder(2).(*array.StructBuilder)
			if r%5 == 0 {
				cb.AppendNull()
			} else {
				cb.Append(true)
				cb.FieldBuilder(0).(*array.Float64Builder).Append(float64(r) * 1.5)
			}
		})
		appendOr(b.Field(c), func() { // recs: list<struct<a string, c struct<x long>>>
			lb := b.Field(c).(*array.ListBuilder)
			lb.Append(true)
			eb := lb.ValueBuilder().(*array.StructBuilder)
			for k := 0; k < r%4; k++ {
				eb.Append(true)
				if (r+k)%3 == 0 {
					eb.FieldBuilder(0).AppendNull()
				} else {
					eb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprintf("r%d.%d", r, k))
				}
				cb := eb.FieldBuilder(1).(*array.StructBuilder)
				if (r+k)%5 == 1 {
					cb.AppendNull()
				} else {
					cb.Append(true)
					if (r+k)%2 == 0 {
						cb.FieldBuilder(0).AppendNull()
					} else {
						cb.FieldBuilder(0).(*array.Int64Builder).Append(int64(r*k) << 35)
					}
				}
			}
		})
		appendOr(b.Field(c), func() { // lol: list<list<string>>, inner lists empty too
			lb := b.Field(c).(*array.ListBuilder)
			lb.Append(true)
			ib := lb.ValueBuilder().(*array.ListBuilder)
			for k := 0; k < r%3; k++ {
				ib.Append(true)
				for j := 0; j < (r+k)%3; j++ {
					ib.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("l%d.%d.%d", r, k, j))
				}
			}
		})
		appendOr(b.Field(c), func() { // lom: list<map<string,int>>
			lb := b.Field(c).(*array.ListBuilder)
			lb.Append(true)
			mb := lb.ValueBuilder().(*array.MapBuilder)
			for k := 0; k < r%3; k++ {
				mb.Append(true)
				for j := 0; j < (r+k)%3; j++ {
					mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", j))
					if j == 1 {
						mb.ItemBuilder().AppendNull()
					} else {
						mb.ItemBuilder().(*array.Int32Builder).Append(int32(r + j))
					}
				}
			}
		})
		appendOr(b.Field(c), func() { // mol: map<string, list<decimal(10,2)>>, null and empty values
			mb := b.Field(c).(*array.MapBuilder)
			mb.Append(true)
			for k := 0; k < r%3; k++ {
				mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("m%d", k))
				vb := mb.ItemBuilder().(*array.ListBuilder)
				if (r+k)%4 == 0 {
					vb.AppendNull()
					continue
				}
				vb.Append(true)
				for j := 0; j < (r+k)%3; j++ {
					vb.ValueBuilder().(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r*100 + j)))
				}
			}
		})
		appendOr(b.Field(c), func() { // sl: struct<tl list<timestamp>, dm map<string,date>>
			sb := b.Field(c).(*array.StructBuilder)
			sb.Append(true)
			tl := sb.FieldBuilder(0).(*array.ListBuilder)
			if r%4 == 1 {
				tl.AppendNull()
			} else {
				tl.Append(true)
				for k := 0; k < r%3; k++ {
					tl.ValueBuilder().(*array.TimestampBuilder).Append(arrow.Timestamp(1700000000000000 + int64(r*k)))
				}
			}
			dm := sb.FieldBuilder(1).(*array.MapBuilder)
			if r%5 == 2 {
				dm.AppendNull()
			} else {
				dm.Append(true)
				for k := 0; k < r%2+1; k++ {
					dm.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("d%d", k))
					dm.ItemBuilder().(*array.Date32Builder).Append(arrow.Date32(19000 + r + k))
				}
			}
		})
	}
	return b.NewRecordBatch()
}

func writeRecords(t testing.TB, o WriterOptions, sc *arrow.Schema, recs ...arrow.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readColumns reads the whole file back with the package's reader, one concatenated
// array per top-level column.
func readColumns(t *testing.T, mem memory.Allocator, b []byte) (*arrow.Schema, []arrow.Array, int) {
	t.Helper()
	f, err := OpenBytes(b, "written.parquet", mem, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var chunks [][]arrow.Array
	err = f.ReadBatches(context.Background(), nil, nil, func(rec arrow.Record) error {
		if chunks == nil {
			chunks = make([][]arrow.Array, rec.NumCols())
		}
		for i, c := range rec.Columns() {
			c.Retain()
			chunks[i] = append(chunks[i], c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]arrow.Array, len(chunks))
	for i, cs := range chunks {
		out[i], err = array.Concatenate(cs, mem)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			c.Release()
		}
	}
	return f.Schema(), out, f.NumRowGroups()
}

func TestWriterRoundTripAllTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := allTypesSchema()
	r1 := allTypesRecord(mem, sc, 0, 500)
	defer r1.Release()
	r2 := allTypesRecord(mem, sc, 500, 1234)
	defer r2.Release()
	empty := allTypesRecord(mem, sc, 0, 0)
	defer empty.Release()

	b := writeRecords(t, WriterOptions{Mem: mem, KeyValue: map[string]string{KeyAvroSchema: testAvroSchema, KeyWriterModelName: "avro"}}, sc, r1, empty, r2)

	rsc, cols, _ := readColumns(t, mem, b)
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if len(cols) != sc.NumFields() {
		t.Fatalf("read %d columns, wrote %d", len(cols), sc.NumFields())
	}
	for i, f := range sc.Fields() {
		if got := rsc.Field(i); got.Name != f.Name || !arrow.TypeEqual(got.Type, f.Type) {
			t.Errorf("field %d read back as %s, wrote %s", i, got, f)
			continue
		}
		want, err := array.Concatenate([]arrow.Array{r1.Column(i), r2.Column(i)}, mem)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(want, cols[i]) {
			t.Errorf("column %s differs:\nwrote %v\nread  %v", f.Name, array.NewSlice(want, 0, 8), array.NewSlice(cols[i], 0, 8))
		}
		if want.NullN() == 0 {
			t.Errorf("column %s: test data has no nulls", f.Name)
		}
		want.Release()
	}
}

// javaMinBytes is Spark's Decimal.minBytesForPrecision, which Hudi's Avro schema
// converter uses for the decimal `fixed` size: the least n with 2^(8n-1) >= 10^p.
func javaMinBytes(p int) int {
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	n := 1
	for new(big.Int).Lsh(big.NewInt(1), uint(8*n-1)).Cmp(ten) < 0 {
		n++
	}
	return n
}

func TestDecimalSizeMatchesJava(t *testing.T) {
	for p := 1; p <= 38; p++ {
		if got, want := int(pqarrow.DecimalSize(int32(p))), javaMinBytes(p); got != want {
			t.Errorf("decimal(%d): pqarrow size %d, Java %d", p, got, want)
		}
	}
	if javaMinBytes(10) != 5 || javaMinBytes(15) != 7 {
		t.Fatal("javaMinBytes disagrees with the observed Hudi files")
	}
}

func TestWriterPhysicalSchema(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := allTypesSchema()
	rec := allTypesRecord(mem, sc, 0, 50)
	defer rec.Release()
	b := writeRecords(t, WriterOptions{Mem: mem, KeyValue: map[string]string{KeyAvroSchema: testAvroSchema, KeyWriterModelName: "avro"}}, sc, rec)

	r, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md := r.MetaData()
	if got := md.Schema.Root().Name(); got != "hoodie.t.t_record" {
		t.Errorf("root name %q, want the Avro full name", got)
	}
	if cb := md.GetCreatedBy(); !strings.HasPrefix(cb, "parquet-go version ") {
		t.Errorf("created_by %q", cb)
	}
	type want struct {
		phys    pq.Type
		logical string
		conv    schema.ConvertedType
		length  int
		rep     pq.Repetition
	}
	none := schema.ConvertedTypes.None
	opt := pq.Repetitions.Optional
	utf8 := want{pq.Types.ByteArray, "String", schema.ConvertedTypes.UTF8, -1, opt}
	wants := map[string]want{
		"i":                   {pq.Types.Int32, "None", none, -1, opt},
		"l":                   {pq.Types.Int64, "None", none, -1, opt},
		"f":                   {pq.Types.Float, "None", none, -1, opt},
		"d":                   {pq.Types.Double, "None", none, -1, opt},
		"b":                   {pq.Types.Boolean, "None", none, -1, opt},
		"s":                   utf8,
		"bin":                 {pq.Types.ByteArray, "None", none, -1, opt},
		"dec10":               {pq.Types.FixedLenByteArray, "Decimal(precision=10, scale=2)", schema.ConvertedTypes.Decimal, 5, opt},
		"dec38":               {pq.Types.FixedLenByteArray, "Decimal(precision=38, scale=9)", schema.ConvertedTypes.Decimal, 16, opt},
		"date":                {pq.Types.Int32, "Date", schema.ConvertedTypes.Date, -1, opt},
		"ts":                  {pq.Types.Int64, "Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false)", schema.ConvertedTypes.TimestampMicros, -1, opt},
		"tags.array":          {pq.Types.ByteArray, "String", schema.ConvertedTypes.UTF8, -1, pq.Repetitions.Repeated},
		"m.key_value.key":     {pq.Types.ByteArray, "String", schema.ConvertedTypes.UTF8, -1, pq.Repetitions.Required},
		"m.key_value.value":   {pq.Types.Int32, "None", none, -1, opt},
		"st.a":                {pq.Types.Int32, "None", none, -1, opt},
		"st.b":                utf8,
		"st.c.x":              {pq.Types.Double, "None", none, -1, opt},
		"_hoodie_commit_time": utf8,
		"_hoodie_file_name":   utf8,
	}
	seen := 0
	for i := 0; i < md.Schema.NumColumns(); i++ {
		col := md.Schema.Column(i)
		w, ok := wants[col.Path()]
		if !ok {
			continue
		}
		seen++
		n := col.SchemaNode().(*schema.PrimitiveNode)
		got := want{col.PhysicalType(), col.LogicalType().String(), n.ConvertedType(), col.TypeLength(), n.RepetitionType()}
		if got.phys != pq.Types.FixedLenByteArray {
			got.length = -1
		}
		if got != w {
			t.Errorf("column %s: got %+v, want %+v", col.Path(), got, w)
		}
	}
	if seen != len(wants) {
		t.Errorf("found %d of %d expected columns", seen, len(wants))
	}
	ts := md.Schema.Column(md.Schema.ColumnIndexByName("ts")).LogicalType().(schema.TimestampLogicalType)
	if !ts.IsAdjustedToUTC() || ts.TimeUnit() != schema.TimeUnitMicros {
		t.Errorf("ts logical type %s", ts)
	}

	// 2-level list and MAP/key_value (MAP_KEY_VALUE), as parquet-avro writes them
	// (TestAvroLayout* compare the whole footer schema).
	root := md.Schema.Root()
	tags := root.Field(root.FieldIndexByName("tags")).(*schema.GroupNode)
	if tags.LogicalType().String() != "List" || tags.Field(0).Name() != "array" || tags.Field(0).RepetitionType() != pq.Repetitions.Repeated ||
		tags.Field(0).Type() != schema.Primitive {
		t.Errorf("list layout: %s / %s", tags.LogicalType(), tags.Field(0).Name())
	}
	m := root.Field(root.FieldIndexByName("m")).(*schema.GroupNode)
	if m.LogicalType().String() != "Map" || m.Field(0).Name() != "key_value" || m.Field(0).RepetitionType() != pq.Repetitions.Repeated ||
		m.Field(0).ConvertedType() != schema.ConvertedTypes.MapKeyValue {
		t.Errorf("map layout: %s / %s %s", m.LogicalType(), m.Field(0).Name(), m.Field(0).ConvertedType())
	}

	kv := md.KeyValueMetadata()
	if v := kv.FindValue(KeyAvroSchema); v == nil || *v != testAvroSchema {
		t.Errorf("footer %s = %v", KeyAvroSchema, v)
	}
	if v := kv.FindValue(KeyWriterModelName); v == nil || *v != "avro" {
		t.Errorf("footer %s = %v", KeyWriterModelName, v)
	}
	if kv.FindValue("ARROW:schema") != nil {
		t.Error("footer carries ARROW:schema")
	}
	if got := kv.Keys(); len(got) != 2 || got[0] != KeyAvroSchema {
		t.Errorf("footer keys %v", got)
	}
}

// tripsSchema is the hudi quickstart trips table with meta columns: 11 columns.
func tripsSchema() *arrow.Schema {
	fs := metaFields()
	fs = append(fs,
		arrow.Field{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "rider", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "driver", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	)
	return arrow.NewSchema(fs, nil)
}

var cities = []string{"san_francisco", "sao_paulo", "chennai"}

// tripsRecord builds n deterministic trips rows starting at row base.
func tripsRecord(mem memory.Allocator, sc *arrow.Schema, base, n int) arrow.Record {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for i := range sc.Fields() {
		b.Field(i).Reserve(n)
	}
	s := func(i int) *array.StringBuilder { return b.Field(i).(*array.StringBuilder) }
	x := uint64(base)*0x9E3779B97F4A7C15 + 1
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for r := base; r < base+n; r++ {
		u1, u2 := next(), next()
		uuid := fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(u1), uint16(u1>>32), (u1>>48)&0xfff, u2&0xfff, (u2>>12)&0xffffffffffff)
		city := cities[r%len(cities)]
		s(0).Append("20240418173550988")
		s(1).Append(fmt.Sprintf("20240418173550988_%d_%d", r%4, r))
		s(2).Append(uuid)
		s(3).Append(city)
		s(4).Append("a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet")
		b.Field(5).(*array.Int64Builder).Append(1695159649087 + int64(r)*1000 + int64(u2%997))
		s(6).Append(uuid)
		s(7).Append(fmt.Sprintf("rider-%c", 'A'+rune(u1%26)))
		s(8).Append(fmt.Sprintf("driver-%c", 'K'+rune(u2%16)))
		b.Field(9).(*array.Float64Builder).Append(float64(u1%10000) / 100)
		s(10).Append(city)
	}
	return b.NewRecordBatch()
}

func TestWriterFooterCodecAndDictionary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := tripsSchema()
	rec := tripsRecord(mem, sc, 0, 5000)
	defer rec.Release()

	var buf bytes.Buffer
	w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, DictionaryColumns: []string{"_hoodie_partition_path", "city"}})
	if err != nil {
		t.Fatal(err)
	}
	w.AddKeyValue(KeyMinRecordKey, "placeholder")
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	// Decided after the data, as Hudi does with its bloom filter and key range.
	w.AddKeyValue(KeyBloomFilter, "AAAA")
	w.AddKeyValue(KeyBloomFilterType, "DYNAMIC_V0")
	w.AddKeyValue(KeyMinRecordKey, "a")
	w.AddKeyValue(KeyMaxRecordKey, "z")
	if w.NumRows() != 5000 {
		t.Errorf("NumRows %d", w.NumRows())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.AddKeyValue("late", "ignored")
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Write(rec); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("Write after Close: %v", err)
	}

	f, err := OpenBytes(buf.Bytes(), "trips.parquet", mem, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if lo, hi, ok := f.MinMaxRecordKeys(); !ok || lo != "a" || hi != "z" {
		t.Errorf("min/max keys %q %q %v", lo, hi, ok)
	}
	if bf, typ, ok := f.BloomFilter(); !ok || bf != "AAAA" || typ != "DYNAMIC_V0" {
		t.Errorf("bloom filter %q %q %v", bf, typ, ok)
	}
	if _, ok := f.Metadata("late"); ok {
		t.Error("AddKeyValue after Close reached the file")
	}
	if keys := f.pr.MetaData().KeyValueMetadata().Keys(); len(keys) != 4 || keys[0] != KeyMinRecordKey {
		t.Errorf("footer keys %v: a replaced key must keep its place and not repeat", keys)
	}
	rg := f.RowGroupMetadata(0)
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Compression() != 2 /* GZIP */ {
			t.Errorf("column %s codec %v, want GZIP (Hudi's default)", cc.PathInSchema(), cc.Compression())
		}
		name := cc.PathInSchema().String()
		if dict := name == "_hoodie_partition_path" || name == "city"; cc.HasDictionaryPage() != dict {
			t.Errorf("column %s: dictionary page %v, want %v", name, cc.HasDictionaryPage(), dict)
		}
		if _, ok := f.ColumnChunkStats(0, c); !ok {
			t.Errorf("column %s has no statistics", name)
		}
	}
}

func TestWriterCodecs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := tripsSchema()
	rec := tripsRecord(mem, sc, 0, 2000)
	defer rec.Release()
	for name, want := range map[string]string{"snappy": "SNAPPY", "zstd": "ZSTD", "lz4": "LZ4_RAW", "uncompressed": "UNCOMPRESSED", "GZIP": "GZIP"} {
		b := writeRecords(t, WriterOptions{Mem: mem, Compression: name, CompressionLevel: map[bool]int{true: 3}[name == "zstd"]}, sc, rec)
		f, err := OpenBytes(b, name, mem, 0)
		if err != nil {
			t.Fatal(err)
		}
		cc, _ := f.RowGroupMetadata(0).ColumnChunk(0)
		if got := cc.Compression().String(); got != want {
			t.Errorf("%s: codec %s, want %s", name, got, want)
		}
		if f.NumRows() != 2000 {
			t.Errorf("%s: %d rows", name, f.NumRows())
		}
		f.Close()
	}
	if _, err := NewWriter(&bytes.Buffer{}, sc, WriterOptions{Compression: "lzo"}); err == nil || !strings.Contains(err.Error(), `"lzo"`) {
		t.Errorf("unknown codec: %v", err)
	}
}

func TestWriterErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := tripsSchema()
	if _, err := NewWriter(&bytes.Buffer{}, sc, WriterOptions{DictionaryColumns: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown dictionary column: %v", err)
	}
	if _, err := NewWriter(&bytes.Buffer{}, sc, WriterOptions{KeyValue: map[string]string{KeyAvroSchema: "{"}}); err == nil || !strings.Contains(err.Error(), KeyAvroSchema) {
		t.Errorf("bad avro schema: %v", err)
	}
	w, err := NewWriter(&bytes.Buffer{}, sc, WriterOptions{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	other := allTypesRecord(mem, allTypesSchema(), 0, 3)
	defer other.Release()
	if err := w.Write(other); err == nil || !strings.Contains(err.Error(), "fields") {
		t.Errorf("schema mismatch: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestWriterRowGroupsAndBytesWritten(t *testing.T) {
	for _, tc := range []struct {
		codec       string
		block, page int64
		rows        int
		minRGs      int
	}{
		{"gzip", 0, 0, 300_000, 1},
		{"snappy", 0, 0, 300_000, 1},
		{"uncompressed", 0, 0, 100_000, 1},
		{"gzip", 512 << 10, 64 << 10, 300_000, 4},
		{"snappy", 1 << 20, 0, 300_000, 4},
		{"gzip", 0, 0, 3_000, 1}, // smaller than one page per column: the prior ratio decides
	} {
		t.Run(fmt.Sprintf("%s/block=%d/page=%d/rows=%d", tc.codec, tc.block, tc.page, tc.rows), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sc := tripsSchema()
			var buf bytes.Buffer
			w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, Compression: tc.codec, BlockSize: tc.block, PageSize: tc.page})
			if err != nil {
				t.Fatal(err)
			}
			w.AddKeyValue(KeyBloomFilter, strings.Repeat("A", 4096))
			var last int64
			for base := 0; base < tc.rows; base += 25_000 {
				rec := tripsRecord(mem, sc, base, min(25_000, tc.rows-base))
				err := w.Write(rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
				est := w.BytesWritten()
				if est < last {
					t.Fatalf("BytesWritten went from %d to %d", last, est)
				}
				last = est
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			size := int64(buf.Len())
			if w.BytesWritten() != size {
				t.Errorf("BytesWritten after Close %d, file %d", w.BytesWritten(), size)
			}
			dev := float64(last-size) / float64(size)
			t.Logf("estimate before Close %d, file %d (%+.1f%%)", last, size, 100*dev)
			if dev < -0.2 || dev > 0.2 {
				t.Errorf("estimate before Close %d is %+.1f%% off the file's %d bytes", last, 100*dev, size)
			}

			f, err := OpenBytes(buf.Bytes(), "trips", mem, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.NumRows() != int64(tc.rows) {
				t.Errorf("%d rows, wrote %d", f.NumRows(), tc.rows)
			}
			if f.NumRowGroups() < tc.minRGs {
				t.Errorf("%d row groups, want at least %d", f.NumRowGroups(), tc.minRGs)
			}
			if tc.block > 0 {
				for g := 0; g < f.NumRowGroups()-1; g++ {
					sz := f.RowGroupMetadata(g).TotalCompressedSize()
					if float64(sz) < 0.8*float64(tc.block) || float64(sz) > 1.25*float64(tc.block) {
						t.Errorf("row group %d is %d bytes, block size %d", g, sz, tc.block)
					}
				}
				t.Logf("%d row groups", f.NumRowGroups())
			}
		})
	}
}

// BenchmarkWriter writes 1M trips rows (11 columns) through Writer with gzip and
// snappy, and through a bare pqarrow.FileWriter with default properties (dictionary
// on, uncompressed) for comparison.
func BenchmarkWriter(b *testing.B) {
	const rows, batch = 1_000_000, 50_000
	mem := memory.NewGoAllocator()
	sc := tripsSchema()
	var recs []arrow.Record
	for base := 0; base < rows; base += batch {
		recs = append(recs, tripsRecord(mem, sc, base, batch))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	// The machine is shared, so wall time says little; CPU time of the process is
	// reported too.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, o := range []struct {
		name string
		o    WriterOptions
	}{
		{"gzip", WriterOptions{Compression: "gzip"}},
		{"gzip-level1", WriterOptions{Compression: "gzip", CompressionLevel: 1}},
		{"snappy", WriterOptions{Compression: "snappy"}},
		// parquet-mr's choice in the fixture files: dictionaries on the repetitive
		// meta columns only.
		{"gzip-dict-lowcard", WriterOptions{Compression: "gzip", DictionaryColumns: []string{"_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "city"}}},
		{"uncompressed", WriterOptions{Compression: "uncompressed"}},
	} {
		b.Run(o.name, func(b *testing.B) {
			var size int
			c0 := cpu()
			for i := 0; i < b.N; i++ {
				b := writeRecords(b, o.o, sc, recs...)
				size = len(b)
			}
			b.ReportMetric(float64(cpu()-c0)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
	b.Run("pqarrow-default", func(b *testing.B) {
		var size int
		c0 := cpu()
		defer func() { b.ReportMetric(float64(cpu()-c0)/1e6/float64(b.N), "cpu-ms/op") }()
		for i := 0; i < b.N; i++ {
			var buf bytes.Buffer
			fw, err := pqarrow.NewFileWriter(sc, &buf, nil, pqarrow.DefaultWriterProps())
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range recs {
				if err := fw.WriteBuffered(r); err != nil {
					b.Fatal(err)
				}
			}
			if err := fw.Close(); err != nil {
				b.Fatal(err)
			}
			size = buf.Len()
		}
		b.ReportMetric(float64(size), "file-bytes")
	})
}
