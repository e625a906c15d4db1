package keygen

import (
	"math/big"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // zone names in tests do not depend on the machine's zoneinfo

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/config"
)

// testRecord builds a one-column-per-entry record; values are appended with the builder's
// AppendValueFromString, "<null>" meaning null.
func testRecord(t *testing.T, fields []arrow.Field, cols ...[]string) arrow.Record {
	t.Helper()
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, col := range cols {
		for _, v := range col {
			if v == "<null>" {
				b.Field(i).AppendNull()
				continue
			}
			if err := b.Field(i).AppendValueFromString(v); err != nil {
				t.Fatalf("column %d value %q: %v", i, v, err)
			}
		}
	}
	rec := b.NewRecord()
	t.Cleanup(rec.Release)
	return rec
}

func str(name string) arrow.Field {
	return arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
}

func mustNew(t *testing.T, o Options, s *arrow.Schema) *Generator {
	t.Helper()
	g, err := New(o, s)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return g
}

func TestNullEmptyHandling(t *testing.T) {
	rec := testRecord(t, []arrow.Field{str("a"), str("b"), str("p")},
		[]string{"x", "<null>", "", "<null>"},
		[]string{"y", "y", "<null>", ""},
		[]string{"p1", "<null>", "", "q"})
	simple := mustNew(t, Options{KeyGenerator: "SIMPLE", RecordKeyFields: []string{"a"}, PartitionFields: []string{"p"}}, rec.Schema())
	complexG := mustNew(t, Options{KeyGenerator: "COMPLEX", RecordKeyFields: []string{"a", "b"}, PartitionFields: []string{"p", "b"}, HiveStyle: true}, rec.Schema())
	type want struct{ simpleKey, simplePart, complexKey, complexPart string }
	wants := []want{
		{"x", "p1", "a:x,b:y", "p=p1/b=y"},
		{"!", DefaultPartitionPath, "a:__null__,b:y", "p=__HIVE_DEFAULT_PARTITION__/b=y"},
		{"!", DefaultPartitionPath, "!", "p=__HIVE_DEFAULT_PARTITION__/b=__HIVE_DEFAULT_PARTITION__"},
		{"!", "q", "!", "p=q/b=__HIVE_DEFAULT_PARTITION__"},
	}
	for row, w := range wants {
		check := func(what string, got string, err error, want string) {
			t.Helper()
			if want == "!" {
				if err == nil {
					t.Errorf("row %d %s: got %q, want error", row, what, got)
				} else if !strings.Contains(err.Error(), "row "+string(rune('0'+row))) {
					t.Errorf("row %d %s: error %q does not name the row", row, what, err)
				}
				return
			}
			if err != nil || got != want {
				t.Errorf("row %d %s: got %q, %v; want %q", row, what, got, err, want)
			}
		}
		k, err := simple.RecordKey(rec, row)
		check("simple key", k, err, w.simpleKey)
		p, err := simple.PartitionPath(rec, row)
		check("simple partition", p, err, w.simplePart)
		k, err = complexG.RecordKey(rec, row)
		check("complex key", k, err, w.complexKey)
		p, err = complexG.PartitionPath(rec, row)
		check("complex partition", p, err, w.complexPart)
	}
	if _, err := simple.RecordKey(rec, 1); err == nil || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), "null") {
		t.Errorf("simple null key error should name field and value: %v", err)
	}
}

func TestEscapePathName(t *testing.T) {
	for in, want := range map[string]string{
		"":                    DefaultPartitionPath,
		"plain-._~ok":         "plain-._~ok",
		"a/b":                 "a%2Fb",
		"2024-01-01 10:00:00": "2024-01-01 10%3A00%3A00",
		`"#%'*/:=?\{[]^`:      "%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E",
		"}|<>`!$&()+,;@~":     "}|<>`!$&()+,;@~",
		"\x01\t\n\x1f\x7f":    "%01%09%0A%1F%7F",
		"héllo 日本":            "héllo 日本",
	} {
		if got := EscapePathName(in); got != want {
			t.Errorf("EscapePathName(%q) = %q, want %q", in, got, want)
		}
		if in != "" && UnescapePathName(EscapePathName(in)) != in {
			t.Errorf("unescape(escape(%q)) = %q", in, UnescapePathName(EscapePathName(in)))
		}
	}
	rec := testRecord(t, []arrow.Field{str("id"), str("p")}, []string{"1", "2"}, []string{"a/b=c", ""})
	g := mustNew(t, Options{RecordKeyFields: []string{"id"}, PartitionFields: []string{"p"}, HiveStyle: true, URLEncode: true}, rec.Schema())
	for row, want := range []string{"p=a%2Fb%3Dc", "p=" + DefaultPartitionPath} {
		if got, err := g.PartitionPath(rec, row); err != nil || got != want {
			t.Errorf("row %d: %q, %v; want %q", row, got, err, want)
		}
	}
	// Without encoding a value cannot climb out of the table.
	rec = testRecord(t, []arrow.Field{str("id"), str("p")}, []string{"1"}, []string{"../../etc"})
	g = mustNew(t, Options{RecordKeyFields: []string{"id"}, PartitionFields: []string{"p"}}, rec.Schema())
	if _, err := g.PartitionPath(rec, 0); err == nil {
		t.Error("'..' partition value accepted")
	}
}

func TestKindsAndInference(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{str("a"), str("b"), str("p"), str("q")}, nil)
	for _, tc := range []struct {
		kg          string
		keys, parts []string
		kind, class string
	}{
		{"", []string{"a"}, []string{"p"}, TypeSimple, "org.apache.hudi.keygen.SimpleKeyGenerator"},
		{"", []string{"a", "b"}, []string{"p"}, TypeComplex, "org.apache.hudi.keygen.ComplexKeyGenerator"},
		{"", []string{"a"}, []string{"p", "q"}, TypeComplex, "org.apache.hudi.keygen.ComplexKeyGenerator"},
		{"", []string{"a"}, nil, TypeNonPartition, "org.apache.hudi.keygen.NonpartitionedKeyGenerator"},
		{"", []string{"a", "b"}, []string{""}, TypeNonPartition, "org.apache.hudi.keygen.NonpartitionedKeyGenerator"},
		{"", []string{"a"}, []string{"p:SIMPLE"}, TypeCustom, "org.apache.hudi.keygen.CustomKeyGenerator"},
		{"global_delete", []string{"a"}, nil, TypeGlobalDelete, "org.apache.hudi.keygen.GlobalDeleteKeyGenerator"},
		{"org.apache.hudi.keygen.SimpleAvroKeyGenerator", []string{"a"}, []string{"p"}, TypeSimple, "org.apache.hudi.keygen.SimpleAvroKeyGenerator"},
		{"ComplexKeyGenerator", []string{"a"}, []string{"p"}, TypeComplex, "org.apache.hudi.keygen.ComplexKeyGenerator"},
	} {
		g, err := New(Options{KeyGenerator: tc.kg, RecordKeyFields: tc.keys, PartitionFields: tc.parts}, s)
		if err != nil {
			t.Errorf("%q %v %v: %v", tc.kg, tc.keys, tc.parts, err)
			continue
		}
		if g.Kind() != tc.kind || g.ClassName() != tc.class {
			t.Errorf("%q %v %v: kind %s class %s; want %s %s", tc.kg, tc.keys, tc.parts, g.Kind(), g.ClassName(), tc.kind, tc.class)
		}
	}
	for _, o := range []Options{
		{KeyGenerator: "SIMPLE", RecordKeyFields: []string{"a", "b"}, PartitionFields: []string{"p"}},
		{KeyGenerator: "SIMPLE", RecordKeyFields: []string{"a"}},
		{KeyGenerator: "SIMPLE", RecordKeyFields: []string{"missing"}, PartitionFields: []string{"p"}},
		{KeyGenerator: "COMPLEX", RecordKeyFields: []string{"a"}, PartitionFields: []string{"nope"}},
		{KeyGenerator: "org.example.MyKeyGen", RecordKeyFields: []string{"a"}},
		{KeyGenerator: "TIMESTAMP", RecordKeyFields: []string{"a"}, PartitionFields: []string{"p"}},
		{KeyGenerator: "CUSTOM", RecordKeyFields: []string{"a"}, PartitionFields: []string{"p"}},
		{KeyGenerator: "CUSTOM", RecordKeyFields: []string{"a"}, PartitionFields: []string{"p:RANGE"}},
		{KeyGenerator: "SIMPLE", PartitionFields: []string{"p", "q"}},
	} {
		if _, err := New(o, s); err == nil {
			t.Errorf("New(%+v) accepted", o)
		} else {
			t.Logf("New(%+v): %v", o, err)
		}
	}
	// Non-partitioned and global-delete generators: one key field is bare for
	// NON_PARTITION, always field:value for GLOBAL_DELETE; partition path is "".
	rec := testRecord(t, []arrow.Field{str("a"), str("b"), str("p"), str("q")}, []string{"1"}, []string{"2"}, []string{"x"}, []string{"y"})
	for _, tc := range []struct {
		kg   string
		keys []string
		want string
	}{
		{"NON_PARTITION", []string{"a"}, "1"},
		{"NON_PARTITION", []string{"a", "b"}, "a:1,b:2"},
		{"GLOBAL_DELETE", []string{"a"}, "a:1"},
		{"COMPLEX", []string{"a"}, "a:1"},
		{"CUSTOM", []string{"a"}, "1"},
		{"CUSTOM", []string{"a", "b"}, "a:1,b:2"},
	} {
		parts := []string{"p"}
		if tc.kg == "CUSTOM" {
			parts = []string{"p:SIMPLE"}
		}
		g := mustNew(t, Options{KeyGenerator: tc.kg, RecordKeyFields: tc.keys, PartitionFields: parts}, rec.Schema())
		k, err := g.RecordKey(rec, 0)
		if err != nil || k != tc.want {
			t.Errorf("%s %v key: %q, %v; want %q", tc.kg, tc.keys, k, err, tc.want)
		}
		p, _ := g.PartitionPath(rec, 0)
		if (tc.kg == "NON_PARTITION" || tc.kg == "GLOBAL_DELETE") != (p == "") {
			t.Errorf("%s partition %q", tc.kg, p)
		}
	}
}

func TestCustomKeyGenerator(t *testing.T) {
	rec := testRecord(t, []arrow.Field{str("id"), str("region"), {Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}},
		[]string{"k1", "k2"}, []string{"eu/west", "<null>"}, []string{"1705311000000", "<null>"})
	props := map[string]string{
		"hoodie.deltastreamer.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS", // legacy prefix
		config.TimestampOutputDateFormat.Name:                  "yyyy-MM-dd",
		config.TimestampTimezone.Name:                          "Asia/Kolkata",
	}
	for _, tc := range []struct {
		hive, enc bool
		want      []string
	}{
		{false, false, []string{"eu/west/2024-01-15", DefaultPartitionPath + "/1970-01-01"}},
		{true, true, []string{"region=eu%2Fwest/ts=2024-01-15", "region=" + DefaultPartitionPath + "/ts=1970-01-01"}},
	} {
		g := mustNew(t, Options{KeyGenerator: "org.apache.hudi.keygen.CustomKeyGenerator", RecordKeyFields: []string{"id"},
			PartitionFields: []string{"region:simple", "ts:TIMESTAMP"}, HiveStyle: tc.hive, URLEncode: tc.enc, Props: props}, rec.Schema())
		for row, want := range tc.want {
			if got, err := g.PartitionPath(rec, row); err != nil || got != want {
				t.Errorf("hive=%v enc=%v row %d: %q, %v; want %q", tc.hive, tc.enc, row, got, err, want)
			}
		}
	}
}

func TestNestedFields(t *testing.T) {
	inner := arrow.StructOf(arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	outer := arrow.StructOf(arrow.Field{Name: "b", Type: inner, Nullable: true}, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: outer, Nullable: true}, str("id")}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	sb := b.Field(0).(*array.StructBuilder)
	ib := sb.FieldBuilder(0).(*array.StructBuilder)
	cb := ib.FieldBuilder(0).(*array.Int32Builder)
	ssb := sb.FieldBuilder(1).(*array.StringBuilder)
	// row 0: a.b.c=7 a.s="x"; row 1: a.b null; row 2: a null
	sb.Append(true)
	ib.Append(true)
	cb.Append(7)
	ssb.Append("x")
	sb.Append(true)
	ib.AppendNull()
	ssb.Append("y")
	sb.AppendNull()
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"1", "2", "3"}, nil)
	rec := b.NewRecord()
	defer rec.Release()

	g := mustNew(t, Options{KeyGenerator: "COMPLEX", RecordKeyFields: []string{"id", "a.b.c"}, PartitionFields: []string{"a.s", "a.b.c"}, HiveStyle: true}, schema)
	wantKeys := []string{"id:1,a.b.c:7", "id:2,a.b.c:__null__", "id:3,a.b.c:__null__"}
	wantParts := []string{"a.s=x/a.b.c=7", "a.s=y/a.b.c=" + DefaultPartitionPath, "a.s=" + DefaultPartitionPath + "/a.b.c=" + DefaultPartitionPath}
	for row := range wantKeys {
		if k, err := g.RecordKey(rec, row); err != nil || k != wantKeys[row] {
			t.Errorf("row %d key %q, %v; want %q", row, k, err, wantKeys[row])
		}
		if p, err := g.PartitionPath(rec, row); err != nil || p != wantParts[row] {
			t.Errorf("row %d partition %q, %v; want %q", row, p, err, wantParts[row])
		}
	}
	for _, bad := range []string{"a.zz", "id.x", "a.b", "a.b.c.d"} {
		if _, err := New(Options{RecordKeyFields: []string{bad}}, schema); err == nil {
			t.Errorf("field %q accepted", bad)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
}

func TestValueStrings(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1e10, 64, "1.0E10"}, {1e7, 64, "1.0E7"}, {9999999, 64, "9999999.0"},
		{0.001, 64, "0.001"}, {0.0001, 64, "1.0E-4"}, {-1.5e-7, 64, "-1.5E-7"}, {123.456, 64, "123.456"},
		{0, 64, "0.0"}, {1.0 / 3, 64, "0.3333333333333333"}, {1.0 / 3, 32, "0.33333334"}, {3.4e38, 32, "3.4E38"},
		{1.7976931348623157e308, 64, "1.7976931348623157E308"},
	} {
		f := tc.f
		if tc.bits == 32 {
			f = float64(float32(f))
		}
		if got := JavaDoubleString(f, tc.bits); got != tc.want {
			t.Errorf("JavaDoubleString(%v, %d) = %q, want %q", tc.f, tc.bits, got, tc.want)
		}
	}
	for _, tc := range []struct {
		unscaled int64
		scale    int32
		want     string
	}{
		{12345, 2, "123.45"}, {-5, 2, "-0.05"}, {0, 2, "0.00"}, {1, 7, "1E-7"}, {12, 7, "0.0000012"},
		{123, 0, "123"}, {1, -3, "1E+3"}, {-123, 10, "-1.23E-8"},
	} {
		if got := JavaBigDecimalString(big.NewInt(tc.unscaled), tc.scale); got != tc.want {
			t.Errorf("BigDecimal(%d, %d) = %q, want %q", tc.unscaled, tc.scale, got, tc.want)
		}
	}
	for days, want := range map[int64]string{0: "1970-01-01", 19737: "2024-01-15", -1: "1969-12-31", -719529: "-0001-12-31", 2932897: "+10000-01-01"} {
		if got := javaLocalDate(days); got != want {
			t.Errorf("javaLocalDate(%d) = %q, want %q", days, got, want)
		}
	}
	// Arrow cells through the generator: timestamps are raw micros, dates ISO, decimals plain.
	dec := arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}
	fields := []arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		dec,
		{Name: "dbl", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "bo", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).Append(1705311000123)
	b.Field(1).(*array.Date32Builder).Append(19737)
	b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(-12345))
	b.Field(3).(*array.Float64Builder).Append(2.5e10)
	b.Field(4).(*array.BooleanBuilder).Append(true)
	b.Field(5).(*array.Int8Builder).Append(-3)
	rec := b.NewRecord()
	defer rec.Release()
	g := mustNew(t, Options{KeyGenerator: "COMPLEX", RecordKeyFields: []string{"ts", "dt", "d", "dbl", "bo", "i8"}}, schema)
	want := "ts:1705311000123000,dt:2024-01-15,d:-123.45,dbl:2.5E10,bo:true,i8:-3"
	if k, err := g.RecordKey(rec, 0); err != nil || k != want {
		t.Errorf("key %q, %v; want %q", k, err, want)
	}
	bin := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.Binary}}, nil)
	if _, err := New(Options{RecordKeyFields: []string{"b"}}, bin); err == nil {
		t.Error("binary key field accepted")
	}
}

func TestTimestampTypes(t *testing.T) {
	i64 := arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	f64 := arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	s := str("v")
	ts := arrow.Field{Name: "v", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true}
	date := arrow.Field{Name: "v", Type: arrow.FixedWidthTypes.Date32, Nullable: true}
	for _, tc := range []struct {
		name  string
		field arrow.Field
		props map[string]string
		vals  []string
		want  []string // "!" = error
		hive  bool
	}{
		{"unix seconds", i64, map[string]string{config.TimestampType.Name: "UNIX_TIMESTAMP", config.TimestampOutputDateFormat.Name: "yyyy/MM/dd"},
			[]string{"1705311000", "<null>"}, []string{"2024/01/15", "1970/01/01"}, false},
		{"epoch millis hive", i64, map[string]string{config.TimestampType.Name: "EPOCHMILLISECONDS", config.TimestampOutputDateFormat.Name: "yyyy-MM-dd-HH"},
			[]string{"1705311000000"}, []string{"v=2024-01-15-09"}, true},
		{"epoch micros zone", i64, map[string]string{config.TimestampType.Name: "EPOCHMICROSECONDS", config.TimestampOutputDateFormat.Name: "yyyyMMddHH", config.TimestampTimezone.Name: "America/New_York"},
			[]string{"1705311000000000"}, []string{"2024011504"}, false},
		{"timestamp column as micros", ts, map[string]string{config.TimestampType.Name: "EPOCHMICROSECONDS", config.TimestampOutputDateFormat.Name: "yyyy/MM/dd"},
			[]string{"2024-01-15T09:30:00Z"}, []string{"2024/01/15"}, false},
		{"timestamp column with wrong unit", ts, map[string]string{config.TimestampType.Name: "EPOCHMILLISECONDS", config.TimestampOutputDateFormat.Name: "yyyy"},
			[]string{"2024-01-15T09:30:00Z"}, []string{"56009"}, false},
		{"scalar days", i64, map[string]string{config.TimestampType.Name: "SCALAR", config.TimestampScalarTimeUnit.Name: "days", config.TimestampOutputDateFormat.Name: "yyyy-MM-dd"},
			[]string{"19737"}, []string{"2024-01-15"}, false},
		{"scalar default seconds", f64, map[string]string{config.TimestampType.Name: "SCALAR", config.TimestampOutputDateFormat.Name: "yyyy-MM-dd HH:mm:ss"},
			[]string{"1705311000.9"}, []string{"2024-01-15 09:30:00"}, false},
		{"date column is epoch days in unit", date, map[string]string{config.TimestampType.Name: "SCALAR", config.TimestampScalarTimeUnit.Name: "DAYS", config.TimestampOutputDateFormat.Name: "yyyy/MM/dd"},
			[]string{"2024-01-15"}, []string{"2024/01/15"}, false},
		{"date string", s, map[string]string{config.TimestampType.Name: "DATE_STRING", config.TimestampInputDateFormat.Name: "yyyy-MM-dd'T'HH:mm:ss.SSSZ", config.TimestampOutputDateFormat.Name: "yyyy/MM/dd/HH"},
			[]string{"2024-01-15T10:30:00.000Z", "2024-01-15T10:30:00.000+0530", "<null>", "", "garbage"},
			[]string{"2024/01/15/10", "2024/01/15/10", "1970/01/01/00", "!", "!"}, false},
		{"date string output zone", s, map[string]string{config.TimestampType.Name: "DATE_STRING", config.TimestampInputDateFormat.Name: "yyyy-MM-dd'T'HH:mm:ss.SSSZ", config.TimestampOutputDateFormat.Name: "yyyy/MM/dd/HH", config.TimestampOutputTimezone.Name: "UTC"},
			[]string{"2024-01-15T10:30:00.000+0530"}, []string{"2024/01/15/05"}, false},
		{"date string list", s, map[string]string{config.TimestampType.Name: "MIXED", config.TimestampInputDateFormat.Name: "yyyy-MM-dd HH:mm:ss|yyyyMMdd", config.TimestampInputDateFormatListDelimiterRegex.Name: "\\|", config.TimestampOutputDateFormat.Name: "yyyy-MM-dd", config.TimestampInputTimezone.Name: "Asia/Tokyo", config.TimestampOutputTimezone.Name: "UTC"},
			[]string{"2024-01-15 08:00:00", "20240115"}, []string{"2024-01-14", "2024-01-14"}, false},
		{"date string rejects numbers", i64, map[string]string{config.TimestampType.Name: "DATE_STRING", config.TimestampInputDateFormat.Name: "yyyy", config.TimestampOutputDateFormat.Name: "yyyy"},
			[]string{"2024"}, []string{"!"}, false},
		{"numeric string lenient", s, map[string]string{config.TimestampType.Name: "EPOCHMILLISECONDS", config.TimestampOutputDateFormat.Name: "yyyy/MM/dd/HH"},
			[]string{"1705367700000", "abc"}, []string{"2024/01/16/01", "!"}, false},
		{"url encoded output", i64, map[string]string{config.TimestampType.Name: "EPOCHMILLISECONDS", config.TimestampOutputDateFormat.Name: "yyyy-MM-dd HH:mm"},
			[]string{"0"}, []string{"1970-01-01 00%3A00"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := testRecord(t, []arrow.Field{str("id"), tc.field}, make([]string, len(tc.vals)), tc.vals)
			g := mustNew(t, Options{KeyGenerator: "TIMESTAMP", RecordKeyFields: []string{"id"}, PartitionFields: []string{"v"},
				Props: tc.props, HiveStyle: tc.hive, URLEncode: tc.name == "url encoded output"}, rec.Schema())
			for row, want := range tc.want {
				got, err := g.PartitionPath(rec, row)
				if want == "!" {
					if err == nil {
						t.Errorf("row %d: got %q, want error", row, got)
					} else {
						t.Logf("row %d: %v", row, err)
					}
					continue
				}
				if err != nil || got != want {
					t.Errorf("row %d (%s): %q, %v; want %q", row, tc.vals[row], got, err, want)
				}
			}
		})
	}
	s1 := arrow.NewSchema([]arrow.Field{str("id"), s}, nil)
	for _, props := range []map[string]string{
		{config.TimestampOutputDateFormat.Name: "yyyy"},
		{config.TimestampType.Name: "EPOCH", config.TimestampOutputDateFormat.Name: "yyyy"},
		{config.TimestampType.Name: "EPOCHMILLISECONDS"},
		{config.TimestampType.Name: "DATE_STRING", config.TimestampOutputDateFormat.Name: "yyyy"},
		{config.TimestampType.Name: "DATE_STRING", config.TimestampInputDateFormat.Name: "yyyy-qq", config.TimestampOutputDateFormat.Name: "yyyy"},
		{config.TimestampType.Name: "EPOCHMILLISECONDS", config.TimestampOutputDateFormat.Name: "yyyy 'unterminated"},
		{config.TimestampType.Name: "SCALAR", config.TimestampScalarTimeUnit.Name: "FORTNIGHTS", config.TimestampOutputDateFormat.Name: "yyyy"},
		{config.TimestampType.Name: "EPOCHMILLISECONDS", config.TimestampOutputDateFormat.Name: "yyyy", config.TimestampTimezone.Name: "Mars/Olympus"},
	} {
		if _, err := New(Options{KeyGenerator: "TIMESTAMP", RecordKeyFields: []string{"id"}, PartitionFields: []string{"v"}, Props: props}, s1); err == nil {
			t.Errorf("props %v accepted", props)
		} else {
			t.Logf("%v", err)
		}
	}
}

func TestDatePatterns(t *testing.T) {
	at := time.Date(2024, 1, 5, 14, 7, 9, 123456789, time.UTC)
	for pattern, want := range map[string]string{
		"yyyy/MM/dd/HH":              "2024/01/05/14",
		"yyyy-MM-dd'T'HH:mm:ss.SSSZ": "2024-01-05T14:07:09.123+0000",
		"yyyyMMdd":                   "20240105",
		"yy-M-d H:m:s":               "24-1-5 14:7:9",
		"dd MMM yyyy, EEE":           "05 Jan 2024, Fri",
		"MMMM EEEE":                  "January Friday",
		"hh:mm a":                    "02:07 PM",
		"K k":                        "2 14",
		"'year'=yyyy 'o''clock' ''":  "year=2024 o'clock '",
		"D w e":                      "5 1 5",
		"SSSSSS S":                   "123000 1",
		"ZZ ZZZ":                     "+00:00 UTC",
		"G C Y x":                    "AD 20 2024 2024",
	} {
		p, err := CompileDatePattern(pattern)
		if err != nil {
			t.Errorf("%q: %v", pattern, err)
			continue
		}
		if got := p.Format(at); got != want {
			t.Errorf("Format(%q) = %q, want %q", pattern, got, want)
		}
	}
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	p, _ := CompileDatePattern("yyyy-MM-dd HH:mm ZZ")
	if got := p.Format(at.In(kolkata)); got != "2024-01-05 19:37 +05:30" {
		t.Errorf("offset format: %q", got)
	}
	for _, tc := range []struct {
		pattern, in string
		loc         *time.Location
		want        time.Time
		offset      bool
	}{
		{"yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2024-01-15T10:30:00.000Z", nil, time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC), true},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2024-01-15T10:30:00.5-0130", nil, time.Date(2024, 1, 15, 12, 0, 0, 5e8, time.UTC), true},
		{"yyyy-MM-dd'T'HH:mm:ssZZ", "2024-01-15T10:30:00+05:30", nil, time.Date(2024, 1, 15, 5, 0, 0, 0, time.UTC), true},
		{"yyyyMMddHH", "2024011507", kolkata, time.Date(2024, 1, 15, 7, 0, 0, 0, kolkata), false},
		{"yyyy-M-d", "2024-1-5", nil, time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC), false},
		{"dd MMM yyyy hh:mm a", "05 jan 2024 02:07 pm", nil, time.Date(2024, 1, 5, 14, 7, 0, 0, time.UTC), false},
		{"yyyy-MM-dd HH:mm:ss ZZZ", "2024-01-05 12:00:00 Asia/Kolkata", nil, time.Date(2024, 1, 5, 12, 0, 0, 0, kolkata), true},
		{"yyyy D", "2024 60", nil, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), false},
	} {
		p, err := CompileDatePattern(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Parse(tc.in, tc.loc)
		if err != nil || !r.Time.Equal(tc.want) || r.OffsetParsed != tc.offset {
			t.Errorf("Parse(%q, %q) = %v %v, %v; want %v %v", tc.pattern, tc.in, r.Time, r.OffsetParsed, err, tc.want, tc.offset)
		}
	}
	for _, tc := range [][2]string{
		{"yyyy-MM-dd", "2024-13-01"}, {"yyyy-MM-dd", "2024-02-30"}, {"yyyy-MM-dd", "2024-01-01x"},
		{"yyyy-MM-dd", "2024-01"}, {"HH:mm", "24:00"}, {"yyyy z", "2024 UTC"},
	} {
		p, _ := CompileDatePattern(tc[0])
		if r, err := p.Parse(tc[1], nil); err == nil {
			t.Errorf("Parse(%q, %q) = %v, want error", tc[0], tc[1], r.Time)
		}
	}
	for _, bad := range []string{"yyyy-qq", "'open", "yyyy-MM-ddTHH"} {
		if _, err := CompileDatePattern(bad); err == nil {
			t.Errorf("CompileDatePattern(%q) accepted", bad)
		}
	}
}

func FuzzDatePattern(f *testing.F) {
	for _, s := range []string{"yyyy-MM-dd'T'HH:mm:ss.SSSZ", "yyyy/MM/dd/HH", "''", "'", "yyMMMMEEEEaZZZ", "SSSSSSSSSSSS", "zzzz G C x w e D"} {
		f.Add(s, "2024-01-15T10:30:00.000Z")
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		p, err := CompileDatePattern(pattern)
		if err != nil {
			return
		}
		out := p.Format(time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC))
		_, _ = p.Parse(input, nil)
		_, _ = p.Parse(out, time.UTC)
	})
}
