package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestFromAvroGolden converts real commit schemas (extraMetadata.schema of fixture tables)
// and compares with reviewed golden output. Run with -update after an intended change.
func TestFromAvroGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.avsc"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".avsc")
		t.Run(name, func(t *testing.T) {
			s, err := FromAvro(loadAvsc(t, name))
			if err != nil {
				t.Fatal(err)
			}
			got := s.String() + "\n"
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got != string(want) {
				t.Errorf("schema of %s differs from %s:\ngot:\n%s\nwant:\n%s", name, golden, got, want)
			}
		})
	}
}

// TestFromAvroTypes pins each mapping rule of FromAvro on a synthetic schema.
func TestFromAvroTypes(t *testing.T) {
	const avsc = `{"type":"record","name":"r","namespace":"hoodie.t","fields":[
	  {"name":"b","type":"boolean"},
	  {"name":"i","type":["null","int"]},
	  {"name":"l","type":["long","null"]},
	  {"name":"f","type":"float"},
	  {"name":"d","type":"double"},
	  {"name":"s","type":"string","doc":"a comment"},
	  {"name":"u","type":{"type":"string","logicalType":"uuid"}},
	  {"name":"by","type":"bytes"},
	  {"name":"fx","type":{"type":"fixed","name":"fx","size":3}},
	  {"name":"fx2","type":"fx"},
	  {"name":"dec_bytes","type":{"type":"bytes","logicalType":"decimal","precision":20,"scale":4}},
	  {"name":"dec_fixed","type":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.t.r.dec_fixed","size":7,"logicalType":"decimal","precision":15,"scale":2}]},
	  {"name":"dec_wide","type":{"type":"fixed","name":"w","size":32,"logicalType":"decimal","precision":60,"scale":10}},
	  {"name":"date","type":{"type":"int","logicalType":"date"}},
	  {"name":"ts_us","type":{"type":"long","logicalType":"timestamp-micros"}},
	  {"name":"ts_ms","type":{"type":"long","logicalType":"timestamp-millis"}},
	  {"name":"ts_ns","type":{"type":"long","logicalType":"timestamp-nanos"}},
	  {"name":"lts_ms","type":{"type":"long","logicalType":"local-timestamp-millis"}},
	  {"name":"lts_us","type":{"type":"long","logicalType":"local-timestamp-micros"}},
	  {"name":"t_ms","type":{"type":"int","logicalType":"time-millis"}},
	  {"name":"t_us","type":{"type":"long","logicalType":"time-micros"}},
	  {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
	  {"name":"arr","type":{"type":"array","items":["null","int"]}},
	  {"name":"arr_nn","type":{"type":"array","items":"string"}},
	  {"name":"m","type":{"type":"map","values":["null","double"]}},
	  {"name":"m_nn","type":{"type":"map","values":"long"}},
	  {"name":"rec","type":["null",{"type":"record","name":"rec","fields":[
	     {"name":"x","type":["null","int"]},
	     {"name":"again","type":["null","E"]}]}]}
	]}`
	s, err := FromAvro(avsc)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		typ      string
		nullable bool
	}{
		{"b", "bool", false},
		{"i", "int32", true},
		{"l", "int64", true},
		{"f", "float32", false},
		{"d", "float64", false},
		{"s", "utf8", false},
		{"u", "utf8", false},
		{"by", "binary", false},
		{"fx", "fixed_size_binary[3]", false},
		{"fx2", "fixed_size_binary[3]", false},
		{"dec_bytes", "decimal(20, 4)", false},
		{"dec_fixed", "decimal(15, 2)", true},
		{"dec_wide", "decimal256(60, 10)", false},
		{"date", "date32", false},
		{"ts_us", "timestamp[us, tz=UTC]", false},
		{"ts_ms", "timestamp[us, tz=UTC]", false},
		{"ts_ns", "timestamp[ns, tz=UTC]", false},
		{"lts_ms", "timestamp[us]", false},
		{"lts_us", "timestamp[us]", false},
		{"t_ms", "time64[us]", false},
		{"t_us", "time64[us]", false},
		{"e", "utf8", false},
		{"arr", "list<element: int32, nullable>", false},
		{"arr_nn", "list<element: utf8>", false},
		{"m", "map<utf8, float64, items_nullable>", false},
		{"m_nn", "map<utf8, int64, items_non_nullable>", false},
		{"rec", "struct<x: int32 nullable, again: utf8 nullable>", true},
	}
	if s.NumFields() != len(want) {
		t.Fatalf("got %d fields, want %d: %s", s.NumFields(), len(want), s)
	}
	for i, w := range want {
		f := s.Field(i)
		if f.Name != w.name || f.Type.String() != w.typ || f.Nullable != w.nullable {
			t.Errorf("field %d: got %s %s nullable=%v, want %s %s nullable=%v", i, f.Name, f.Type, f.Nullable, w.name, w.typ, w.nullable)
		}
	}
	if doc, ok := s.Field(5).Metadata.GetValue(DocMetadataKey); !ok || doc != "a comment" {
		t.Errorf("doc metadata of s: %q %v", doc, ok)
	}
	if s.Field(0).HasMetadata() {
		t.Errorf("field without doc got metadata %v", s.Field(0).Metadata)
	}
}

func TestFromAvroErrors(t *testing.T) {
	cases := []struct {
		name, avsc, wantErr string
	}{
		{"multi-branch union", `{"type":"record","name":"r","fields":[{"name":"u","type":["null","int","string"]}]}`, "field u: union of several non-null types"},
		{"nested multi-branch union", `{"type":"record","name":"r","fields":[{"name":"s","type":{"type":"record","name":"s","fields":[{"name":"v","type":["int","long"]}]}}]}`, "field s.v: union"},
		{"recursive record", `{"type":"record","name":"node","fields":[{"name":"next","type":["null","node"]}]}`, "recursive record node"},
		{"not a record", `"string"`, "must be a record"},
		{"unknown type", `{"type":"record","name":"r","fields":[{"name":"x","type":"nope"}]}`, `unknown type "nope"`},
		{"bad json", `{"type":`, "parse avro schema JSON"},
		{"bad decimal", `{"type":"record","name":"r","fields":[{"name":"x","type":{"type":"bytes","logicalType":"decimal","precision":2,"scale":3}}]}`, "invalid decimal(2,3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromAvro(c.avsc)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

func TestMetaFields(t *testing.T) {
	if len(MetaFields) != 5 || MetaFields[0] != "_hoodie_commit_time" || MetaFields[4] != "_hoodie_file_name" {
		t.Fatalf("MetaFields = %v", MetaFields)
	}
	for _, f := range MetaFields {
		if !IsMetaField(f) {
			t.Errorf("IsMetaField(%s) = false", f)
		}
	}
	if IsMetaField("_hoodie_operation") || IsMetaField("id") {
		t.Error("IsMetaField accepted a non-meta name")
	}

	data, err := FromAvro(loadAvsc(t, "trips_v6_8i1u"))
	if err != nil {
		t.Fatal(err)
	}
	full := WithMetaFields(data)
	if full.NumFields() != data.NumFields()+5 {
		t.Fatalf("WithMetaFields: %s", full)
	}
	for i, name := range MetaFields {
		f := full.Field(i)
		if f.Name != name || f.Type.ID() != arrow.STRING || !f.Nullable {
			t.Errorf("meta field %d = %s", i, f)
		}
	}
	if again := WithMetaFields(full); again != full {
		t.Error("WithMetaFields added meta fields twice")
	}
	if !WithoutMetaFields(full).Equal(data) {
		t.Errorf("WithoutMetaFields(WithMetaFields(s)) != s")
	}

	if got := FieldIndex(full, "rider"); got != 7 {
		t.Errorf("FieldIndex(rider) = %d", got)
	}
	if got := FieldIndex(full, "RIDER"); got != 7 {
		t.Errorf("FieldIndex(RIDER) = %d (case-insensitive fallback)", got)
	}
	if got := FieldIndex(full, "nope"); got != -1 {
		t.Errorf("FieldIndex(nope) = %d", got)
	}
	mixed := arrow.NewSchema([]arrow.Field{{Name: "Id", Type: arrow.PrimitiveTypes.Int32}, {Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if got := FieldIndex(mixed, "id"); got != 1 {
		t.Errorf("FieldIndex prefers exact case: got %d", got)
	}
}
