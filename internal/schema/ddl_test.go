package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseDDL(t *testing.T) {
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	nullableMap := func(v arrow.DataType) arrow.DataType {
		m := arrow.MapOf(arrow.BinaryTypes.String, v)
		m.SetItemNullable(true)
		return m
	}
	list := func(e arrow.DataType) arrow.DataType {
		return arrow.ListOfField(arrow.Field{Name: ListElementName, Type: e, Nullable: true})
	}
	for _, tc := range []struct {
		ddl  string
		want []arrow.Field
	}{
		{"uuid STRING, ts BIGINT NOT NULL, fare DOUBLE", []arrow.Field{
			{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
			{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		}},
		{"a int, b integer, c smallint, d short, e tinyint, f byte, g long, h float, i real, j boolean", []arrow.Field{
			{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "c", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "d", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "e", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "f", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "h", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
			{Name: "i", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
			{Name: "j", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		}},
		{"d DECIMAL(10,2), e decimal, f Decimal(5), day DATE, at TIMESTAMP, b BINARY, n TIMESTAMP_NTZ", []arrow.Field{
			{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
			{Name: "e", Type: &arrow.Decimal128Type{Precision: 10, Scale: 0}, Nullable: true},
			{Name: "f", Type: &arrow.Decimal128Type{Precision: 5, Scale: 0}, Nullable: true},
			{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			{Name: "at", Type: ts, Nullable: true},
			{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
			{Name: "n", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		}},
		{"tags ARRAY<STRING>, m MAP<STRING, INT>, s STRUCT<a: INT, b STRING NOT NULL>", []arrow.Field{
			{Name: "tags", Type: list(arrow.BinaryTypes.String), Nullable: true},
			{Name: "m", Type: nullableMap(arrow.PrimitiveTypes.Int32), Nullable: true},
			{Name: "s", Type: arrow.StructOf(
				arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
				arrow.Field{Name: "b", Type: arrow.BinaryTypes.String},
			), Nullable: true},
		}},
		{"x array<array<map<string,struct<`y z`:decimal(38,18)>>>>", []arrow.Field{
			{Name: "x", Type: list(list(nullableMap(arrow.StructOf(
				arrow.Field{Name: "y z", Type: &arrow.Decimal128Type{Precision: 38, Scale: 18}, Nullable: true},
			)))), Nullable: true},
		}},
		{"`select` STRING COMMENT 'the ''key''' NOT NULL, `a``b` INT, date DATE", []arrow.Field{
			{Name: "select", Type: arrow.BinaryTypes.String, Metadata: arrow.NewMetadata([]string{CommentMetadataKey}, []string{"the "})},
			{Name: "a`b", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		}},
		{"  v VARCHAR(20) not null comment \"it's\" , c char(1)  ", []arrow.Field{
			{Name: "v", Type: arrow.BinaryTypes.String, Metadata: arrow.NewMetadata([]string{CommentMetadataKey}, []string{"it's"})},
			{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true},
		}},
	} {
		t.Run(tc.ddl, func(t *testing.T) {
			if strings.Contains(tc.ddl, "'the ''key'''") {
				// Spark has no '' escape; the parser sees 'the ' then a new string token.
				if _, err := ParseDDL(tc.ddl); err == nil {
					t.Fatal("doubled quote accepted")
				}
				return
			}
			got, err := ParseDDL(tc.ddl)
			if err != nil {
				t.Fatal(err)
			}
			want := arrow.NewSchema(tc.want, nil)
			if !got.Equal(want) || got.String() != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestParseDDLMatchesFromAvro: the DDL of the fixture tables (their .sql files) maps to exactly
// what FromAvro gives for the commit schema Hudi wrote, and ToAvro reproduces that schema.
func TestParseDDLMatchesFromAvro(t *testing.T) {
	ddl := "id INT, name STRING, isActive BOOLEAN, byteField BYTE, shortField SHORT, intField INT, " +
		"longField LONG, floatField FLOAT, doubleField DOUBLE, decimalField DECIMAL(10,5), dateField DATE, " +
		"timestampField TIMESTAMP, binaryField BINARY, arrayField ARRAY<STRUCT<arr_struct_f1: STRING, arr_struct_f2: INT>>, " +
		"mapField MAP<STRING, STRUCT<map_field_value_struct_f1: DOUBLE, map_field_value_struct_f2: BOOLEAN>>, " +
		"structField STRUCT<field1: STRING, field2: INT, child_struct: STRUCT<child_field1: DOUBLE, child_field2: BOOLEAN>>"
	got, err := ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	real := loadAvsc(t, "cow_v6_nonpartitioned")
	want, err := FromAvro(real)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) || got.String() != want.String() {
		t.Fatalf("ParseDDL\n%s\nFromAvro\n%s", got, want)
	}
	avsc, err := ToAvro(got, "v6_nonpartitioned")
	if err != nil {
		t.Fatal(err)
	}
	if avsc != real {
		t.Errorf("ToAvro(ParseDDL) differs from the real commit schema at byte %d", firstDiff(avsc, real))
	}
	create, err := CreateSchemaAvro(got, "v6_nonpartitioned")
	if err != nil {
		t.Fatal(err)
	}
	if want := loadSchemaJSON(t, "create_cow_v6_nonpartitioned"); create != want {
		t.Errorf("CreateSchemaAvro(ParseDDL) differs from the real create schema at byte %d", firstDiff(create, want))
	}
}

func TestParseDDLErrors(t *testing.T) {
	for _, tc := range []struct{ ddl, want string }{
		{"", "position 1: expected a column definition, found end of input"},
		{"   ", "position 4: expected a column definition"},
		{"a", "position 2: expected a type, found end of input"},
		{"a STRNG", `position 3: unknown type "STRNG"`},
		{"a INT,", "position 7: expected a column name, found end of input"},
		{"a INT b INT", `position 7: expected ',' or end of input, found "b"`},
		{"a INT, A STRING", `position 8: duplicate column "A"`},
		{"a DECIMAL(39,2)", "position 3: decimal precision 39 out of range 1..38"},
		{"a DECIMAL(5,6)", "decimal scale 6 exceeds precision 5"},
		{"a DECIMAL(5,", "position 13: expected a number, found end of input"},
		{"a DECIMAL(5,2,1)", `position 14: expected ')'`},
		{"a DECIMAL(x)", `position 11: expected a number, found "x"`},
		{"a ARRAY<INT", "position 12: expected '>', found end of input"},
		{"a ARRAY INT", `position 9: expected '<', found "INT"`},
		{"a MAP<INT, STRING>", "position 7: map key type must be STRING"},
		{"a MAP<STRING INT>", `position 14: expected ',', found "INT"`},
		{"a STRUCT<b INT c INT>", `position 16: expected ',' or '>' in STRUCT, found "c"`},
		{"a STRUCT<b INT, B INT>", `position 17: duplicate struct field "B"`},
		{"a STRUCT<,>", `position 10: expected a struct field name, found ","`},
		{"a INT NOT", "position 10: expected NULL after NOT, found end of input"},
		{"a INT COMMENT x", `position 15: expected a quoted comment after COMMENT, found "x"`},
		{"a INT COMMENT 'x", "position 15: unterminated string literal"},
		{"`a INT", "position 1: unterminated `quoted` name"},
		{"a INT; DROP", "position 6: unexpected character ';'"},
		{"1 INT", `position 1: expected a column name, found "1"`},
		{"a VARCHAR", "position 10: expected '(' and a length"},
		{"a INT NOT NULL NOT NULL", `position 16: expected ',' or end of input, found "NOT"`},
	} {
		t.Run(tc.ddl, func(t *testing.T) {
			_, err := ParseDDL(tc.ddl)
			if err == nil {
				t.Fatalf("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func FuzzParseDDL(f *testing.F) {
	for _, s := range []string{
		"uuid STRING, ts BIGINT NOT NULL, fare DOUBLE, d DECIMAL(10,2)",
		"tags ARRAY<STRING>, m MAP<STRING, INT>, s STRUCT<a: INT, b STRING>",
		"`x``y` INT COMMENT 'c' NOT NULL",
		"a DECIMAL(99999999999,1)", "a ARRAY<ARRAY<ARRAY<", "é STRING", "a STRUCT<>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ddl string) {
		s, err := ParseDDL(ddl)
		if err != nil {
			if s != nil {
				t.Fatal("schema returned with an error")
			}
			return
		}
		// Whatever parses must convert to Avro or fail cleanly (names may be invalid Avro).
		if avsc, err := ToAvro(s, "t"); err == nil {
			if _, err := FromAvro(avsc); err != nil {
				t.Fatalf("FromAvro(ToAvro(%q)): %v", ddl, err)
			}
		}
	})
}
