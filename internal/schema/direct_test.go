package schema

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
)

// decodeGeneric is the path the direct decoder replaces: internal/avro's generic decode,
// then RecordAppender. It returns the record, or the first error.
func decodeGeneric(mem memory.Allocator, writer string, target *arrow.Schema, recs [][]byte) (arrow.Record, error) {
	ws, err := avro.Parse(writer)
	if err != nil {
		return nil, err
	}
	app, err := NewRecordAppender(writer, target)
	if err != nil {
		return nil, err
	}
	rb := array.NewRecordBuilder(mem, target)
	defer rb.Release()
	for i, raw := range recs {
		v, _, err := ws.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		if err := app.Append(rb, v.(map[string]any)); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
	}
	return rb.NewRecordBatch(), nil
}

func decodeDirect(mem memory.Allocator, dec *RecordDecoder, target *arrow.Schema, recs [][]byte) (arrow.Record, error) {
	rb := array.NewRecordBuilder(mem, target)
	defer rb.Release()
	for i, raw := range recs {
		if err := dec.Append(rb, raw); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
	}
	return rb.NewRecordBatch(), nil
}

// assertSameRecords compares two records value by value: nulls, the printed value, and for
// floats the bits (so NaN payloads and -0 count).
func assertSameRecords(t *testing.T, got, want arrow.Record) {
	t.Helper()
	if !got.Schema().Equal(want.Schema()) {
		t.Fatalf("schema %s, want %s", got.Schema(), want.Schema())
	}
	if got.NumRows() != want.NumRows() {
		t.Fatalf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for c := 0; c < int(want.NumCols()); c++ {
		g, w := got.Column(c), want.Column(c)
		name := want.Schema().Field(c).Name
		for i := 0; i < w.Len(); i++ {
			if g.IsNull(i) != w.IsNull(i) {
				t.Fatalf("%s row %d: null %v, want %v", name, i, g.IsNull(i), w.IsNull(i))
			}
			if w.IsNull(i) {
				continue
			}
			if gs, ws := g.ValueStr(i), w.ValueStr(i); gs != ws {
				t.Fatalf("%s row %d: %q, want %q", name, i, gs, ws)
			}
			switch wa := w.(type) {
			case *array.Float64:
				if math.Float64bits(g.(*array.Float64).Value(i)) != math.Float64bits(wa.Value(i)) {
					t.Fatalf("%s row %d: float64 bits differ", name, i)
				}
			case *array.Float32:
				if math.Float32bits(g.(*array.Float32).Value(i)) != math.Float32bits(wa.Value(i)) {
					t.Fatalf("%s row %d: float32 bits differ", name, i)
				}
			}
		}
		if !array.Equal(g, w) && !hasFloat(w.DataType()) {
			t.Fatalf("%s: arrays differ", name)
		}
	}
}

func hasFloat(dt arrow.DataType) bool {
	return dt.ID() == arrow.FLOAT32 || dt.ID() == arrow.FLOAT64
}

// checkBothPaths decodes recs both ways and requires the same records, or an error from both.
func checkBothPaths(t *testing.T, writer string, target *arrow.Schema, recs [][]byte, requireDirect bool) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec, err := NewRecordDecoder(writer, target)
	if errors.Is(err, ErrNotDirect) {
		if requireDirect {
			t.Fatalf("not direct: %v", err)
		}
		return
	}
	want, gerr := decodeGeneric(mem, writer, target, recs)
	if err != nil {
		// Compile errors are the appender's own: the generic path must fail too.
		if gerr == nil {
			want.Release()
			t.Fatalf("direct compile error %v, generic ok", err)
		}
		return
	}
	got, derr := decodeDirect(mem, dec, target, recs)
	if (gerr == nil) != (derr == nil) {
		t.Fatalf("generic error %v, direct error %v", gerr, derr)
	}
	if gerr != nil {
		return
	}
	defer want.Release()
	defer got.Release()
	assertSameRecords(t, got, want)
}

// writerRecord builds a writer record schema from field name → Avro type JSON pairs.
func writerRecord(fields ...string) string {
	var parts []string
	for i := 0; i+1 < len(fields); i += 2 {
		parts = append(parts, fmt.Sprintf(`{"name":%q,"type":%s}`, fields[i], fields[i+1]))
	}
	return `{"type":"record","name":"r","namespace":"t","fields":[` + strings.Join(parts, ",") + `]}`
}

func encodeRows(t *testing.T, writer string, rows []map[string]any) [][]byte {
	t.Helper()
	ws, err := avro.Parse(writer)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, len(rows))
	for i, r := range rows {
		if out[i], err = ws.Encode(r); err != nil {
			t.Fatalf("encode row %d %v: %v", i, r, err)
		}
	}
	return out
}

type pairCase struct {
	name   string
	avro   string         // writer type of field "x"
	target arrow.DataType // target type of column "x"
	values []any          // generic values of x
}

func pairCases() []pairCase {
	ts := func(u arrow.TimeUnit) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: "UTC"} }
	ints := []any{int32(0), int32(1), int32(-1), int32(math.MaxInt32), int32(math.MinInt32), int32(63), int32(-64), int32(64)}
	longs := []any{int64(0), int64(1), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), int64(1 << 40), int64(-(1 << 53) - 1)}
	floats := []any{float32(0), float32(math.Copysign(0, -1)), float32(1.5), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}
	doubles := []any{0.0, math.Copysign(0, -1), 1.5, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	strs := []any{"", "a", "héllo wörld", "日本語 🎉", strings.Repeat("x", 300), "\x00nul"}
	byts := []any{[]byte{}, []byte{0}, []byte{0xff, 0xfe}, []byte(strings.Repeat("y", 200))}
	decs := []any{[]byte{}, []byte{0x01}, []byte{0xff}, []byte{0x00, 0xff}, []byte{0x7f, 0xff, 0xff, 0xff, 0xff}}
	fixed4 := []any{[]byte{0, 0, 0, 0}, []byte{1, 2, 3, 4}, []byte{0xff, 0xff, 0xff, 0x80}}
	return []pairCase{
		{"null/string", `"null"`, arrow.BinaryTypes.String, []any{nil, nil}},
		{"boolean/bool", `"boolean"`, arrow.FixedWidthTypes.Boolean, []any{true, false}},
		{"int/int32", `"int"`, arrow.PrimitiveTypes.Int32, ints},
		{"int/int64", `"int"`, arrow.PrimitiveTypes.Int64, ints},
		{"int/float32", `"int"`, arrow.PrimitiveTypes.Float32, ints},
		{"int/float64", `"int"`, arrow.PrimitiveTypes.Float64, ints},
		{"int/string", `"int"`, arrow.BinaryTypes.String, ints},
		{"long/int64", `"long"`, arrow.PrimitiveTypes.Int64, longs},
		{"long/float32", `"long"`, arrow.PrimitiveTypes.Float32, longs},
		{"long/float64", `"long"`, arrow.PrimitiveTypes.Float64, longs},
		{"long/string", `"long"`, arrow.BinaryTypes.String, longs},
		{"float/float32", `"float"`, arrow.PrimitiveTypes.Float32, floats},
		{"float/float64", `"float"`, arrow.PrimitiveTypes.Float64, floats},
		{"double/float64", `"double"`, arrow.PrimitiveTypes.Float64, doubles},
		{"string/string", `"string"`, arrow.BinaryTypes.String, strs},
		{"string/binary", `"string"`, arrow.BinaryTypes.Binary, strs},
		{"string/int64", `"string"`, arrow.PrimitiveTypes.Int64, []any{"0", " 42 ", "-9223372036854775808"}},
		{"bytes/binary", `"bytes"`, arrow.BinaryTypes.Binary, byts},
		{"bytes/string", `"bytes"`, arrow.BinaryTypes.String, byts},
		{"enum/string", `{"type":"enum","name":"e","symbols":["A","B","Ç"]}`, arrow.BinaryTypes.String, []any{"A", "B", "Ç"}},
		{"fixed/fixedsize", `{"type":"fixed","name":"f4","size":4}`, &arrow.FixedSizeBinaryType{ByteWidth: 4}, fixed4},
		{"fixed/binary", `{"type":"fixed","name":"f4","size":4}`, arrow.BinaryTypes.Binary, fixed4},
		{"date/date32", `{"type":"int","logicalType":"date"}`, arrow.FixedWidthTypes.Date32, ints},
		{"time-millis/time32", `{"type":"int","logicalType":"time-millis"}`, arrow.FixedWidthTypes.Time32ms, []any{int32(0), int32(86399999)}},
		{"time-millis/time64", `{"type":"int","logicalType":"time-millis"}`, arrow.FixedWidthTypes.Time64us, []any{int32(0), int32(86399999)}},
		{"time-micros/time64", `{"type":"long","logicalType":"time-micros"}`, arrow.FixedWidthTypes.Time64us, []any{int64(0), int64(86399999999)}},
		{"ts-millis/ts-ms", `{"type":"long","logicalType":"timestamp-millis"}`, ts(arrow.Millisecond), longs},
		{"ts-millis/ts-us", `{"type":"long","logicalType":"timestamp-millis"}`, ts(arrow.Microsecond), []any{int64(0), int64(1695046462179), int64(-1)}},
		{"ts-micros/ts-us", `{"type":"long","logicalType":"timestamp-micros"}`, ts(arrow.Microsecond), longs},
		{"ts-micros/ts-ms", `{"type":"long","logicalType":"timestamp-micros"}`, ts(arrow.Millisecond), []any{int64(0), int64(1695046462179000), int64(-1000)}},
		{"ts-micros/int64", `{"type":"long","logicalType":"timestamp-micros"}`, arrow.PrimitiveTypes.Int64, longs},
		{"local-ts-micros/ts-us", `{"type":"long","logicalType":"local-timestamp-micros"}`, &arrow.TimestampType{Unit: arrow.Microsecond}, longs},
		{"decimal-bytes/decimal128", `{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}`, &arrow.Decimal128Type{Precision: 12, Scale: 2}, decs},
		{"decimal-bytes/decimal128-rescale", `{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}`, &arrow.Decimal128Type{Precision: 20, Scale: 4}, decs},
		{"decimal-bytes/decimal256", `{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}`, &arrow.Decimal256Type{Precision: 40, Scale: 2}, decs},
		{"decimal-bytes/binary", `{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}`, arrow.BinaryTypes.Binary, decs},
		// A 16-byte value raised one digit leaves 128 bits: an error on both paths, where
		// arrow's Rescale used to panic (found by FuzzRecordDecoder).
		{"decimal-bytes/decimal128-overflow", `{"type":"bytes","logicalType":"decimal","precision":38,"scale":2}`, &arrow.Decimal128Type{Precision: 38, Scale: 3},
			[]any{append([]byte{0x7f}, bytes.Repeat([]byte{0xff}, 15)...)}},
		{"decimal-bytes/decimal256-overflow", `{"type":"bytes","logicalType":"decimal","precision":76,"scale":0}`, &arrow.Decimal256Type{Precision: 76, Scale: 1},
			[]any{append([]byte{0x7f}, bytes.Repeat([]byte{0xff}, 31)...)}},
		{"decimal-fixed/decimal128", `{"type":"fixed","name":"d4","size":4,"logicalType":"decimal","precision":9,"scale":3}`, &arrow.Decimal128Type{Precision: 9, Scale: 3}, fixed4},
	}
}

// TestRecordDecoderMatchesAppender checks every supported writer/target pairing, plain and
// as a nullable union either way round, against the generic path.
func TestRecordDecoderMatchesAppender(t *testing.T) {
	for _, c := range pairCases() {
		for _, shape := range []string{"plain", "null-first", "null-second"} {
			t.Run(c.name+"/"+shape, func(t *testing.T) {
				typ, values := c.avro, c.values
				switch shape {
				case "null-first":
					if c.avro == `"null"` {
						t.Skip()
					}
					typ = `["null",` + c.avro + `]`
					values = append([]any{nil}, append(values, nil)...)
				case "null-second":
					if c.avro == `"null"` {
						t.Skip()
					}
					typ = `[` + c.avro + `,"null"]`
					values = append([]any{nil}, append(values, nil)...)
				}
				writer := writerRecord("k", `"string"`, "x", typ, "n", `"long"`)
				target := arrow.NewSchema([]arrow.Field{
					{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
					{Name: "x", Type: c.target, Nullable: true},
					{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				}, nil)
				rows := make([]map[string]any, len(values))
				for i, v := range values {
					rows[i] = map[string]any{"k": fmt.Sprint("key-", i), "x": v, "n": int64(i)}
				}
				checkBothPaths(t, writer, target, encodeRows(t, writer, rows), true)
			})
		}
	}
}

// TestRecordDecoderEvolution: target fields the writer lacks are null; writer fields the
// target lacks are skipped whatever their type, so the fields after them still line up.
func TestRecordDecoderEvolution(t *testing.T) {
	nested := `{"type":"record","name":"inner","fields":[{"name":"a","type":["null","int"]},{"name":"b","type":{"type":"array","items":"string"}}]}`
	writer := writerRecord(
		"k", `"string"`,
		"dropped_arr", `{"type":"array","items":`+nested+`}`,
		"dropped_map", `{"type":"map","values":["null","double",{"type":"fixed","name":"f3","size":3}]}`,
		"dropped_rec", `["null","inner"]`,
		"dropped_enum", `{"type":"enum","name":"e","symbols":["X","Y"]}`,
		"dropped_fixed", `{"type":"fixed","name":"f2","size":2}`,
		"dropped_prims", `{"type":"record","name":"p","fields":[{"name":"b","type":"boolean"},{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"by","type":"bytes"},{"name":"n","type":"null"}]}`,
		"Mixed_Case", `["null","long"]`,
		"v", `["null","string"]`,
	)
	target := arrow.NewSchema([]arrow.Field{
		{Name: "added", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "mixed_case", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "added2", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	inner := func(a any, b ...any) map[string]any { return map[string]any{"a": a, "b": b} }
	prims := map[string]any{"b": true, "f": float32(1.5), "d": math.NaN(), "by": []byte("zz"), "n": nil}
	rows := []map[string]any{
		{"k": "k0", "dropped_arr": []any{}, "dropped_map": map[string]any{}, "dropped_rec": nil, "dropped_enum": "X",
			"dropped_fixed": []byte{1, 2}, "dropped_prims": prims, "Mixed_Case": nil, "v": nil},
		{"k": "k1", "dropped_arr": []any{inner(int32(5), "a", "bé"), inner(nil)}, "dropped_map": map[string]any{"p": 2.5, "q": nil, "r": []byte{1, 2, 3}},
			"dropped_rec": inner(nil, ""), "dropped_enum": "Y", "dropped_fixed": []byte{3, 4}, "dropped_prims": prims, "Mixed_Case": int64(math.MinInt64), "v": "日本"},
		{"k": "", "dropped_arr": []any{inner(nil)}, "dropped_map": map[string]any{"": 0.0}, "dropped_rec": inner(int32(-1)),
			"dropped_enum": "X", "dropped_fixed": []byte{0, 0}, "dropped_prims": prims, "Mixed_Case": int64(7), "v": ""},
	}
	recs := encodeRows(t, writer, rows)
	checkBothPaths(t, writer, target, recs, true)

	// Negative block counts (with a byte size) are legal Avro the encoder never writes:
	// splice one into the first row's empty array and map.
	t.Run("negative block count", func(t *testing.T) {
		ws, _ := avro.Parse(writer)
		// row: k, then dropped_arr as one block of -1 items with its byte size.
		item := []byte{2, 10, 4, 2, 'a', 2, 'b', 0}         // a: branch 1, 5; b: [a, b]
		raw := append([]byte{2, 'z'}, 1, byte(2*len(item))) // count -1, then the zigzag byte size
		raw = append(raw, item...)
		raw = append(raw, 0)
		rest := recs[0][4:] // past k ("k0": length 2, 2 bytes) and the empty array's 0
		raw = append(raw, rest...)
		if _, _, err := ws.Decode(raw); err != nil {
			t.Fatalf("spliced record does not decode: %v", err)
		}
		checkBothPaths(t, writer, target, [][]byte{raw}, true)
	})
}

// TestRecordDecoderBadBytes: every truncation and a set of corruptions of valid records
// either fail on both paths or decode the same on both.
func TestRecordDecoderBadBytes(t *testing.T) {
	writer := writerRecord("a", `["null","long"]`, "s", `"string"`, "arr", `{"type":"array","items":["null","int"]}`,
		"e", `{"type":"enum","name":"e","symbols":["X"]}`, "d", `"double"`, "b", `"boolean"`)
	target := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	good := encodeRows(t, writer, []map[string]any{
		{"a": int64(-300), "s": "héllo", "arr": []any{int32(1), nil, int32(-70000)}, "e": "X", "d": 2.5, "b": true},
	})[0]
	for n := 0; n <= len(good); n++ {
		checkBothPaths(t, writer, target, [][]byte{good[:n]}, false)
	}
	for i := range good {
		for _, v := range []byte{0x00, 0x01, 0x02, 0x03, 0x7f, 0x80, 0xff} {
			bad := append([]byte(nil), good...)
			bad[i] = v
			checkBothPaths(t, writer, target, [][]byte{bad}, false)
		}
	}
	for _, raw := range [][]byte{
		{0x04},                         // union index 2 of 2
		{0x01},                         // union index -1
		{0x00, 0x01},                   // string length -1
		{0x00, 0xfe, 0xff, 0xff, 0x0f}, // string length beyond the buffer
		{0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, // long overflow
		{0x80, 0x80, 0x80, 0x80, 0x10},                                     // union index overflows 32 bits
	} {
		checkBothPaths(t, writer, target, [][]byte{raw}, false)
		dec, err := NewRecordDecoder(writer, target)
		if err != nil {
			t.Fatal(err)
		}
		rb := array.NewRecordBuilder(memory.DefaultAllocator, target)
		err = dec.Append(rb, raw)
		rb.Release()
		if err == nil || !strings.Contains(err.Error(), "field ") {
			t.Errorf("% x: error %v does not name the field", raw, err)
		}
	}
}

// TestRecordDecoderFallback: schemas the direct path leaves to the generic one.
func TestRecordDecoderFallback(t *testing.T) {
	for name, c := range map[string]struct {
		writer string
		target arrow.DataType
	}{
		"nested record": {`{"type":"record","name":"n","fields":[{"name":"a","type":"int"}]}`, arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})},
		"array":         {`{"type":"array","items":"int"}`, arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		"map":           {`{"type":"map","values":"int"}`, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)},
	} {
		target := arrow.NewSchema([]arrow.Field{{Name: "x", Type: c.target, Nullable: true}}, nil)
		if _, err := NewRecordDecoder(writerRecord("x", c.writer), target); !errors.Is(err, ErrNotDirect) {
			t.Errorf("%s: %v, want ErrNotDirect", name, err)
		}
	}
	// A pairing neither path reads fails with the appender's error, not ErrNotDirect.
	target := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	if _, err := NewRecordDecoder(writerRecord("x", `"string"`), target); err == nil || errors.Is(err, ErrNotDirect) {
		t.Errorf("string→int32: %v", err)
	}
}

// TestRecordDecoderRealLogs decodes every Avro data block of the Spark-written log files —
// the testdata copies and, when unzipped under /tmp/fxall, every fixture table's — both
// ways, into the block's own schema and into an evolved projection of it.
func TestRecordDecoderRealLogs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	_ = filepath.WalkDir("/tmp/fxall", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".log.") &&
			!strings.Contains(p, "/.hoodie/") {
			files = append(files, p)
		}
		return nil
	})
	direct, blocks := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bl, err := logfile.ReadAll(bytesReaderAt(data), int64(len(data)), f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, b := range bl {
			if b.Type != logfile.AvroDataBlock {
				continue
			}
			writer := b.Header[logfile.Schema]
			recs, err := logfile.DecodeAvroDataBlock(b.Content)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			full, err := FromAvro(writer)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			blocks++
			for _, target := range []*arrow.Schema{full, evolved(full)} {
				t.Run(fmt.Sprintf("%s@%d/%d", filepath.Base(f), b.Offset, target.NumFields()), func(t *testing.T) {
					if _, err := NewRecordDecoder(writer, target); err == nil {
						direct++
					}
					checkBothPaths(t, writer, target, recs, false)
				})
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no avro data blocks found")
	}
	t.Logf("%d files, %d avro blocks, %d of %d block/target pairs decoded directly", len(files), blocks, direct, 2*blocks)
}

// evolved drops every third column of s and adds two the writer never had.
func evolved(s *arrow.Schema) *arrow.Schema {
	var fields []arrow.Field
	for i, f := range s.Fields() {
		if i%3 != 2 {
			fields = append(fields, f)
		}
	}
	fields = append(fields,
		arrow.Field{Name: "zz_added", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "zz_added_list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true})
	return arrow.NewSchema(fields, nil)
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, fmt.Errorf("offset %d out of range", off)
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, fmt.Errorf("short read at %d", off)
	}
	return n, nil
}

// FuzzRecordDecoder feeds arbitrary bytes to the direct decoder of a schema with every
// supported kind and skipped complex fields: it must never panic, and must agree with the
// generic path on whether the bytes are a record and, if so, on its values.
func FuzzRecordDecoder(f *testing.F) {
	writer := writerRecord(
		"a", `["null","long"]`, "b", `["string","null"]`, "c", `"boolean"`, "d", `"float"`, "e", `"double"`,
		"f", `"bytes"`, "g", `{"type":"enum","name":"en","symbols":["X","Y"]}`, "h", `{"type":"fixed","name":"fx","size":3}`,
		"i", `{"type":"int","logicalType":"date"}`, "j", `{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`,
		"skip1", `{"type":"array","items":["null",{"type":"map","values":"long"}]}`,
		"skip2", `{"type":"record","name":"sk","fields":[{"name":"z","type":["null","string","double"]},{"name":"n","type":{"type":"array","items":"null"}}]}`,
		"k", `"int"`,
	)
	target := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "c", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "e", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "g", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "h", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
		{Name: "i", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "j", Type: &arrow.Decimal128Type{Precision: 12, Scale: 3}, Nullable: true},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "new", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	ws, err := avro.Parse(writer)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := ws.Encode(map[string]any{
		"a": int64(-5), "b": "ß", "c": true, "d": float32(1), "e": math.Inf(-1), "f": []byte("xy"), "g": "Y",
		"h": []byte{1, 2, 3}, "i": int32(19000), "j": []byte{0x03, 0xe8},
		"skip1": []any{nil, map[string]any{"m": int64(1)}}, "skip2": map[string]any{"z": 2.0, "n": []any{nil, nil}}, "k": int32(-9),
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte{})
	f.Add([]byte{0x02, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f})
	dec, err := NewRecordDecoder(writer, target)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, target)
		derr := dec.Append(rb, raw)
		rb.Release()
		_, _, gerr := ws.Decode(raw)
		if gerr != nil && derr == nil {
			t.Fatalf("generic decode error %v, direct accepted % x", gerr, raw)
		}
		if gerr == nil {
			checkBothPaths(t, writer, target, [][]byte{raw}, true)
		}
	})
}

// BenchmarkRecordDecode measures ns/record of the generic path (internal/avro to
// map[string]any, then RecordAppender: the path before the direct decoder) and the direct
// one, on a Hudi-shaped record: five meta strings, a key, a timestamp, doubles, ints,
// strings and a nullable decimal.
func BenchmarkRecordDecode(b *testing.B) {
	writer := writerRecord(
		"_hoodie_commit_time", `["null","string"]`, "_hoodie_commit_seqno", `["null","string"]`,
		"_hoodie_record_key", `["null","string"]`, "_hoodie_partition_path", `["null","string"]`,
		"_hoodie_file_name", `["null","string"]`, "id", `"string"`, "ts", `"long"`,
		"amount", `["null","double"]`, "qty", `["null","int"]`, "city", `["null","string"]`,
		"note", `["null","string"]`, "flag", `"boolean"`,
		"created", `["null",{"type":"long","logicalType":"timestamp-micros"}]`,
		"price", `["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}]`,
	)
	target, err := FromAvro(writer)
	if err != nil {
		b.Fatal(err)
	}
	ws, _ := avro.Parse(writer)
	const n = 4096
	recs := make([][]byte, n)
	for i := range recs {
		recs[i], err = ws.Encode(map[string]any{
			"_hoodie_commit_time": "20250331030645735", "_hoodie_commit_seqno": fmt.Sprintf("20250331030645735_0_%d", i),
			"_hoodie_record_key": fmt.Sprintf("key-%08d", i), "_hoodie_partition_path": "city=san_francisco",
			"_hoodie_file_name": "d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0", "id": fmt.Sprintf("key-%08d", i),
			"ts": int64(1695046462179 + i), "amount": float64(i) * 1.25, "qty": int32(i % 100), "city": "san_francisco",
			"note": nil, "flag": i%2 == 0, "created": int64(1695046462179000 + i), "price": []byte{0x01, byte(i)},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	mem := memory.NewGoAllocator()
	b.Run("generic", func(b *testing.B) {
		app, err := NewRecordAppender(writer, target)
		if err != nil {
			b.Fatal(err)
		}
		rb := array.NewRecordBuilder(mem, target)
		defer rb.Release()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			raw := recs[i%n]
			v, _, err := ws.Decode(raw)
			if err != nil {
				b.Fatal(err)
			}
			if err := app.Append(rb, v.(map[string]any)); err != nil {
				b.Fatal(err)
			}
			if i%n == n-1 {
				rb.NewRecordBatch().Release()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
	})
	b.Run("direct", func(b *testing.B) {
		dec, err := NewRecordDecoder(writer, target)
		if err != nil {
			b.Fatal(err)
		}
		rb := array.NewRecordBuilder(mem, target)
		defer rb.Release()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := dec.Append(rb, recs[i%n]); err != nil {
				b.Fatal(err)
			}
			if i%n == n-1 {
				rb.NewRecordBatch().Release()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
	})
}
