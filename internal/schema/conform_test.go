package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func fromJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	arr, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	if err != nil {
		t.Fatalf("FromJSON(%s, %s): %v", dt, js, err)
	}
	return arr
}

var (
	tsUTC = func(u arrow.TimeUnit) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: "UTC"} }
	dec   = func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
)

func TestConformConversions(t *testing.T) {
	i64, i32, f32, f64 := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64
	str, bin := arrow.BinaryTypes.String, arrow.BinaryTypes.Binary
	legacyList := arrow.ListOfField(arrow.Field{Name: "array", Type: i32, Nullable: true})
	elemList := func(dt arrow.DataType) arrow.DataType {
		return arrow.ListOfField(arrow.Field{Name: ListElementName, Type: dt, Nullable: true})
	}
	cases := []struct {
		name     string
		src      arrow.DataType
		in       string
		target   arrow.DataType
		want     string
		sliceOff int // if > 0, conform in[sliceOff:] (exercises array offsets)
	}{
		{name: "int32→int64", src: i32, in: `[1, null, -3]`, target: i64, want: `[1, null, -3]`},
		{name: "int8→int32", src: arrow.PrimitiveTypes.Int8, in: `[1, null, -3]`, target: i32, want: `[1, null, -3]`},
		{name: "int16→int64", src: arrow.PrimitiveTypes.Int16, in: `[300, null]`, target: i64, want: `[300, null]`},
		{name: "int32→float32", src: i32, in: `[1, null, -3]`, target: f32, want: `[1, null, -3]`},
		{name: "int32→float64", src: i32, in: `[1, null, -3]`, target: f64, want: `[1, null, -3]`},
		{name: "int64→float32", src: i64, in: `[9876543210, null]`, target: f32, want: `[9876543210, null]`},
		{name: "int64→float64", src: i64, in: `[9876543210, null]`, target: f64, want: `[9876543210, null]`},
		{name: "float32→float64", src: f32, in: `[1.5, null, -0.25]`, target: f64, want: `[1.5, null, -0.25]`},
		{name: "int32→string", src: i32, in: `[7, null, -12]`, target: str, want: `["7", null, "-12"]`},
		{name: "int64→string", src: i64, in: `[1705367700000, null]`, target: str, want: `["1705367700000", null]`},
		{name: "string→int64", src: str, in: `["1705367700000", null, " -7 "]`, target: i64, want: `[1705367700000, null, -7]`},
		{name: "large string→int64", src: arrow.BinaryTypes.LargeString, in: `["42", null]`, target: i64, want: `[42, null]`},
		{name: "binary→string", src: bin, in: `["aGk=", null]`, target: str, want: `["hi", null]`},
		{name: "string→binary", src: str, in: `["hi", null]`, target: bin, want: `["aGk=", null]`},
		{name: "large string→string", src: arrow.BinaryTypes.LargeString, in: `["x", null, ""]`, target: str, want: `["x", null, ""]`},
		{name: "large binary→binary", src: arrow.BinaryTypes.LargeBinary, in: `["aGk=", null]`, target: bin, want: `["aGk=", null]`},
		{name: "fixed→binary", src: &arrow.FixedSizeBinaryType{ByteWidth: 2}, in: `["aGk=", null]`, target: bin, want: `["aGk=", null]`},
		{name: "binary→fixed", src: bin, in: `["aGk=", null]`, target: &arrow.FixedSizeBinaryType{ByteWidth: 2}, want: `["aGk=", null]`},
		{name: "timestamp ms→us", src: tsUTC(arrow.Millisecond), in: `[1680350460123, null, -1]`, target: tsUTC(arrow.Microsecond), want: `[1680350460123000, null, -1000]`},
		{name: "timestamp s→us", src: tsUTC(arrow.Second), in: `[1, null]`, target: tsUTC(arrow.Microsecond), want: `[1000000, null]`},
		{name: "timestamp ns→us floors", src: tsUTC(arrow.Nanosecond), in: `[1500, -1500, null]`, target: tsUTC(arrow.Microsecond), want: `[1, -2, null]`},
		{name: "timestamp local→UTC relabel", src: &arrow.TimestampType{Unit: arrow.Microsecond}, in: `[5, null]`, target: tsUTC(arrow.Microsecond), want: `[5, null]`},
		{name: "timestamp other zone ms→UTC us", src: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "America/Chicago"}, in: `[5, null]`, target: tsUTC(arrow.Microsecond), want: `[5000, null]`},
		{name: "date64→date32", src: arrow.FixedWidthTypes.Date64, in: `[86400000, null, -1]`, target: arrow.FixedWidthTypes.Date32, want: `[1, null, -1]`},
		{name: "time32 ms→time64 us", src: arrow.FixedWidthTypes.Time32ms, in: `[1500, null]`, target: arrow.FixedWidthTypes.Time64us, want: `[1500000, null]`},
		{name: "time64 ns→us", src: arrow.FixedWidthTypes.Time64ns, in: `[1500, null]`, target: arrow.FixedWidthTypes.Time64us, want: `[1, null]`},
		{name: "decimal precision growth", src: dec(10, 2), in: `["12345678.90", null, "-1.50"]`, target: dec(15, 2), want: `["12345678.90", null, "-1.50"]`},
		{name: "decimal scale growth", src: dec(10, 2), in: `["12345678.90", null, "-1.50"]`, target: dec(20, 4), want: `["12345678.9000", null, "-1.5000"]`},
		{name: "decimal precision shrink that fits", src: dec(15, 2), in: `["1.50", null]`, target: dec(5, 2), want: `["1.50", null]`},
		{name: "decimal128→decimal256", src: dec(10, 2), in: `["-1.50", null]`, target: &arrow.Decimal256Type{Precision: 40, Scale: 3}, want: `["-1.500", null]`},
		{name: "decimal256→decimal128", src: &arrow.Decimal256Type{Precision: 40, Scale: 3}, in: `["-1.500", null]`, target: dec(10, 2), want: `["-1.50", null]`},
		{name: "decimal64→decimal128", src: &arrow.Decimal64Type{Precision: 10, Scale: 5}, in: `["12345.67890", null]`, target: dec(10, 5), want: `["12345.67890", null]`},
		{name: "int64 unscaled→decimal", src: i64, in: `[1234567890, null, -150]`, target: dec(10, 5), want: `["12345.67890", null, "-0.00150"]`},
		{name: "int32 unscaled→decimal", src: i32, in: `[-150, null]`, target: dec(9, 2), want: `["-1.50", null]`},
		// "AEmWAtI=" = 00 49 96 02 d2 = 1234567890 (12345.67890 at scale 5); "/////2o=" = ff ff ff ff 6a = -150.
		{name: "fixed big-endian→decimal", src: &arrow.FixedSizeBinaryType{ByteWidth: 5}, in: `["AEmWAtI=", null, "/////2o="]`, target: dec(10, 5), want: `["12345.67890", null, "-0.00150"]`},
		{name: "binary big-endian→decimal256", src: bin, in: `["AEmWAtI=", null]`, target: &arrow.Decimal256Type{Precision: 40, Scale: 5}, want: `["12345.67890", null]`},
		{name: "sliced int32→int64", src: i32, in: `[1, null, 2, null, 3]`, target: i64, want: `[2, null, 3]`, sliceOff: 2},
		{name: "sliced string→int64", src: str, in: `["1", null, "2", null]`, target: i64, want: `["2", null]`, sliceOff: 2},
		{name: "all-null column of any type", src: arrow.FixedWidthTypes.Boolean, in: `[null, null]`, target: dec(10, 2), want: `[null, null]`},
		{name: "null type", src: arrow.Null, in: `[null, null]`, target: str, want: `[null, null]`},
		{
			name: "struct by name", src: arrow.StructOf(
				arrow.Field{Name: "b", Type: i32, Nullable: true},
				arrow.Field{Name: "extra", Type: str, Nullable: true},
				arrow.Field{Name: "A", Type: str, Nullable: true}),
			in: `[{"b": 1, "extra": "x", "A": "a"}, null, {"b": null, "extra": null, "A": "c"}]`,
			target: arrow.StructOf(
				arrow.Field{Name: "a", Type: str, Nullable: true},
				arrow.Field{Name: "b", Type: i64, Nullable: true},
				arrow.Field{Name: "added", Type: f64, Nullable: true}),
			want: `[{"a": "a", "b": 1, "added": null}, null, {"a": "c", "b": null, "added": null}]`,
		},
		{
			name: "sliced struct with nested struct",
			src:  arrow.StructOf(arrow.Field{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: i32, Nullable: true}), Nullable: true}),
			in:   `[{"s": {"x": 1}}, {"s": {"x": 2}}, null, {"s": null}, {"s": {"x": null}}]`,
			target: arrow.StructOf(arrow.Field{Name: "s", Type: arrow.StructOf(
				arrow.Field{Name: "x", Type: i64, Nullable: true}, arrow.Field{Name: "y", Type: str, Nullable: true}), Nullable: true}),
			want:     `[{"s": {"x": 2, "y": null}}, null, {"s": null}, {"s": {"x": null, "y": null}}]`,
			sliceOff: 1,
		},
		{name: "legacy 2-level list → element list", src: legacyList, in: `[[1, null, 3], null, [], [4]]`, target: elemList(i64), want: `[[1, null, 3], null, [], [4]]`},
		{name: "sliced list", src: elemList(i32), in: `[[1], [2, 3], null, [4, null]]`, target: elemList(i64), want: `[[2, 3], null, [4, null]]`, sliceOff: 1},
		{name: "large list→list", src: arrow.LargeListOf(i32), in: `[[1, 2], null, []]`, target: elemList(i32), want: `[[1, 2], null, []]`},
		{
			name: "list of structs", src: arrow.ListOfField(arrow.Field{Name: "array", Nullable: true, Type: arrow.StructOf(arrow.Field{Name: "f", Type: i32, Nullable: true})}),
			in:     `[[{"f": 1}, null], null]`,
			target: elemList(arrow.StructOf(arrow.Field{Name: "f", Type: str, Nullable: true}, arrow.Field{Name: "g", Type: i32, Nullable: true})),
			want:   `[[{"f": "1", "g": null}, null], null]`,
		},
		{
			name: "map values widened", src: arrow.MapOf(str, i32),
			in:     `[[{"key": "a", "value": 1}, {"key": "b", "value": null}], null, []]`,
			target: arrow.MapOf(str, i64),
			want:   `[[{"key": "a", "value": 1}, {"key": "b", "value": null}], null, []]`,
		},
		{
			name: "sliced map", src: arrow.MapOf(str, i32),
			in:     `[[{"key": "z", "value": 9}], [{"key": "a", "value": 1}], null]`,
			target: arrow.MapOf(str, f64),
			want:   `[[{"key": "a", "value": 1}], null]`, sliceOff: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			in := fromJSON(t, mem, c.src, c.in)
			defer func() { in.Release() }()
			if c.sliceOff > 0 {
				sl := array.NewSlice(in, int64(c.sliceOff), int64(in.Len()))
				in.Release()
				in = sl
			}
			got, err := Conform(mem, in, c.target)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			want := fromJSON(t, mem, c.target, c.want)
			defer want.Release()
			if got.DataType().String() != c.target.String() || !arrow.TypeEqual(got.DataType(), c.target) {
				t.Errorf("type %s, want %s", got.DataType(), c.target)
			}
			if !array.Equal(got, want) {
				t.Errorf("got %s, want %s", got, want)
			}
			if got.NullN() != want.NullN() {
				t.Errorf("null count %d, want %d", got.NullN(), want.NullN())
			}
		})
	}
}

// TestConformPassThrough checks that identical (or layout-identical) types are not copied.
func TestConformPassThrough(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	in := fromJSON(t, mem, arrow.PrimitiveTypes.Int64, `[1, 2, null]`)
	defer in.Release()
	out, err := Conform(mem, in, arrow.PrimitiveTypes.Int64)
	if err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Error("same type was not passed through")
	}
	out.Release()

	// Same layout, different labels: shares buffers, carries the target's names.
	legacy := arrow.ListOfField(arrow.Field{Name: "array", Type: arrow.BinaryTypes.String, Nullable: true})
	target := arrow.ListOfField(arrow.Field{Name: ListElementName, Type: arrow.BinaryTypes.String, Nullable: true})
	l := fromJSON(t, mem, legacy, `[["a"], null]`)
	defer l.Release()
	out, err = Conform(mem, l, target)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.DataType().String() != target.String() {
		t.Errorf("type %s, want %s", out.DataType(), target)
	}
	if out.Data().Buffers()[1] != l.Data().Buffers()[1] {
		t.Error("relabelled list copied its offsets")
	}

	s := fromJSON(t, mem, arrow.BinaryTypes.String, `["a", null]`)
	defer s.Release()
	b, err := Conform(mem, s, arrow.BinaryTypes.Binary)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if b.Data().Buffers()[2] != s.Data().Buffers()[2] {
		t.Error("string→binary copied its data")
	}
}

func TestConformErrors(t *testing.T) {
	cases := []struct {
		name    string
		src     arrow.DataType
		in      string
		target  arrow.DataType
		wantErr string
	}{
		{"unsupported pair names both types", arrow.FixedWidthTypes.Boolean, `[true, null]`, arrow.PrimitiveTypes.Int64, "cannot convert bool to int64"},
		{"narrowing", arrow.PrimitiveTypes.Int64, `[1]`, arrow.PrimitiveTypes.Int32, "cannot convert int64 to int32"},
		{"unparseable string", arrow.BinaryTypes.String, `["1", "x1"]`, arrow.PrimitiveTypes.Int64, `row 1: string "x1" is not a int64`},
		{"decimal scale loss", dec(10, 4), `["1.2345"]`, dec(10, 2), "rescale decimal"},
		{"decimal overflow", dec(15, 2), `["1234567.00"]`, dec(5, 2), "does not fit precision 5"},
		{"fixed width mismatch", arrow.BinaryTypes.Binary, `["aGk="]`, &arrow.FixedSizeBinaryType{ByteWidth: 3}, "2 bytes at row 0"},
		{
			"nested path", arrow.StructOf(arrow.Field{Name: "s", Nullable: true, Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})}),
			`[{"s": {"x": true}}]`,
			arrow.StructOf(arrow.Field{Name: "s", Nullable: true, Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true})}),
			"field s.x: cannot convert bool to int32",
		},
		{"struct to list", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), `[{"x": 1}]`, arrow.ListOf(arrow.PrimitiveTypes.Int32), "cannot convert struct"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			in := fromJSON(t, mem, c.src, c.in)
			defer in.Release()
			out, err := Conform(mem, in, c.target)
			if err == nil {
				out.Release()
				t.Fatalf("no error, want %q", c.wantErr)
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %q, want it to contain %q", err, c.wantErr)
			}
		})
	}
}

func TestConformRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	srcSchema := arrow.NewSchema([]arrow.Field{
		{Name: "ID", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "dropped", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts_millis", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rec, _, err := array.RecordFromJSON(mem, srcSchema, strings.NewReader(
		`[{"ID": 1, "dropped": "x", "ts_millis": 1705367700000, "name": "a"}, {"ID": null, "dropped": null, "ts_millis": null, "name": null}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()

	target := WithMetaFields(arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts_millis", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "added", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil))
	out, err := ConformRecord(mem, rec, target)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if !out.Schema().Equal(target) {
		t.Fatalf("schema %s, want %s", out.Schema(), target)
	}
	want, _, err := array.RecordFromJSON(mem, target, strings.NewReader(
		`[{"name": "a", "id": 1, "ts_millis": "1705367700000", "added": null}, {"name": null, "id": null, "ts_millis": null, "added": null}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if !array.RecordEqual(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
	for _, m := range MetaFields {
		if c := column(t, out, m); c.NullN() != 2 {
			t.Errorf("missing meta column %s not all null", m)
		}
	}

	// Errors name the top-level column.
	bad := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	if _, err := ConformRecord(mem, rec, bad); err == nil || !strings.Contains(err.Error(), `field name: row 0: string "a"`) {
		t.Errorf("error %v", err)
	}
}
