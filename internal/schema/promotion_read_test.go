package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/avro"
)

// promotionSamples are values of each type of the seed's "Type Promotions" chart: as an
// Arrow column (JSON), as Avro generic values, and how each reads once its column is
// promoted to another type of the chart. String targets hold Java's text: Integer/Long
// toString for integers, Float.toString / Double.toString for floats and doubles
// (HoodieAvroUtils.rewritePrimaryTypeWithDiffSchemaType calls String.valueOf); float →
// double widens exactly, as Avro's ResolvingDecoder promotion and Spark's cast do.
var promotionSamples = map[string]struct {
	arrow   arrow.DataType
	avro    string
	json    string
	avroVal []any
	as      map[string]string // target type → expected JSON
}{
	"INT": {arrow.PrimitiveTypes.Int32, "int", `[7, -3, null]`, []any{int32(7), int32(-3), nil}, map[string]string{
		"BIGINT": `[7, -3, null]`, "FLOAT": `[7, -3, null]`, "DOUBLE": `[7, -3, null]`, "STRING": `["7", "-3", null]`}},
	"BIGINT": {arrow.PrimitiveTypes.Int64, "long", `[1099511627776, -3, null]`, []any{int64(1) << 40, int64(-3), nil}, map[string]string{
		"FLOAT": `[1099511627776, -3, null]`, "DOUBLE": `[1099511627776, -3, null]`, "STRING": `["1099511627776", "-3", null]`}},
	"FLOAT": {arrow.PrimitiveTypes.Float32, "float", `[1.1, 10000000, null]`, []any{float32(1.1), float32(1e7), nil}, map[string]string{
		"DOUBLE": `[1.100000023841858, 10000000, null]`, "STRING": `["1.1", "1.0E7", null]`}},
	"DOUBLE": {arrow.PrimitiveTypes.Float64, "double", `[1.1, 0.0001, null]`, []any{1.1, 1e-4, nil}, map[string]string{
		"STRING": `["1.1", "1.0E-4", null]`}},
	"STRING": {arrow.BinaryTypes.String, "string", `["x", "", null]`, []any{"x", "", nil}, map[string]string{
		"BINARY": `["eA==", "", null]`}},
	"BINARY": {arrow.BinaryTypes.Binary, "bytes", `["eA==", "", null]`, []any{[]byte("x"), []byte{}, nil}, map[string]string{
		"STRING": `["x", "", null]`}},
}

// TestPromotionChartReadsEveryFile checks, for every allowed cell of the seed's "Type
// Promotions" chart, that files holding either side's type read under the resulting
// table type — a Parquet base file or Parquet log block (Conform), and an Avro log block
// (RecordAppender and the direct RecordDecoder) — with the values Java gives, and that
// CheckReadable agrees.
func TestPromotionChartReadsEveryFile(t *testing.T) {
	for in := range promotionSamples {
		for tbl := range promotionSamples {
			res, err := Evolve(mustDDL(t, "c "+tbl), mustDDL(t, "c "+in), false)
			if err != nil {
				continue // an X cell (TestEvolvePromotionChart pins which)
			}
			result := res.Field(0).Type
			for _, src := range []string{tbl, in} {
				s := promotionSamples[src]
				target := ""
				for name, ps := range promotionSamples {
					if arrow.TypeEqual(ps.arrow, result) {
						target = name
					}
				}
				want := s.json
				if target != src {
					want = s.as[target]
				}
				t.Run(fmt.Sprintf("%s_into_%s/%s_file", in, tbl, src), func(t *testing.T) {
					if want == "" {
						t.Fatalf("no expectation for %s read as %s", src, target)
					}
					checkPromotedRead(t, s.arrow, s.avro, s.json, s.avroVal, result, want)
				})
			}
		}
	}
}

func checkPromotedRead(t *testing.T, srcType arrow.DataType, avroType, srcJSON string, avroVals []any, target arrow.DataType, wantJSON string) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	want := fromJSON(t, mem, target, wantJSON)
	defer want.Release()

	if err := CheckReadable(arrow.NewSchema([]arrow.Field{{Name: "c", Type: srcType, Nullable: true}}, nil),
		arrow.NewSchema([]arrow.Field{{Name: "c", Type: target, Nullable: true}}, nil)); err != nil {
		t.Errorf("CheckReadable: %v", err)
	}

	src := fromJSON(t, mem, srcType, srcJSON)
	defer src.Release()
	got, err := Conform(mem, src, target)
	if err != nil {
		t.Fatalf("Conform (Parquet files): %v", err)
	}
	if !array.Equal(got, want) {
		t.Errorf("Conform (Parquet files): got %v, want %v", got, want)
	}
	got.Release()

	writer := fmt.Sprintf(`{"type":"record","name":"r","fields":[{"name":"c","type":["null",%q]}]}`, avroType)
	ts := arrow.NewSchema([]arrow.Field{{Name: "c", Type: target, Nullable: true}}, nil)
	ws, err := avro.Parse(writer)
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, v := range avroVals {
		raw, err := ws.Encode(map[string]any{"c": v})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, raw)
	}
	generic, err := decodeGeneric(mem, writer, ts, recs)
	if err != nil {
		t.Fatalf("RecordAppender (Avro log blocks): %v", err)
	}
	defer generic.Release()
	if !array.Equal(generic.Column(0), want) {
		t.Errorf("RecordAppender (Avro log blocks): got %v, want %v", generic.Column(0), want)
	}
	dec, err := NewRecordDecoder(writer, ts)
	if err == nil {
		direct, err := decodeDirect(mem, dec, ts, recs)
		if err != nil {
			t.Fatalf("RecordDecoder (Avro log blocks): %v", err)
		}
		defer direct.Release()
		if !array.Equal(direct.Column(0), want) {
			t.Errorf("RecordDecoder (Avro log blocks): got %v, want %v", direct.Column(0), want)
		}
	} else if !errorsIsNotDirect(err) {
		t.Fatalf("RecordDecoder: %v", err)
	}
}

func errorsIsNotDirect(err error) bool { return errors.Is(err, ErrNotDirect) }

// TestCheckReadableRefuses pins the error of a pair Conform cannot read: it names the
// column and both types.
func TestCheckReadableRefuses(t *testing.T) {
	file := mustDDL(t, "id STRING, amt DOUBLE, s STRUCT<x: DOUBLE>")
	tbl := mustDDL(t, "id STRING, amt BINARY, s STRUCT<x: INT>")
	err := CheckReadable(file, tbl)
	if err == nil {
		t.Fatal("accepted double read as bytes")
	}
	for _, want := range []string{`column "amt": the file stores double, which bytes cannot read`, `column "s.x": the file stores double, which int cannot read`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := CheckReadable(file, mustDDL(t, "id STRING, amt STRING, s STRUCT<x: STRING>, extra INT")); err != nil {
		t.Errorf("double read as string: %v", err)
	}
}
