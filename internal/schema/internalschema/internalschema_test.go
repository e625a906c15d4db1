package internalschema

import (
	"errors"
	"strings"
	"testing"
)

func str(s string) *string { return &s }

// sample is {_hoodie_commit_time, id int, s struct<x int, y string>, arr array<int>,
// m map<string, struct<n string>>} with Java's ids.
func sample() *Schema {
	return New(0, []Field{
		{ID: 0, Name: "_hoodie_commit_time", Optional: true, Type: Primitive(String), Doc: str("")},
		{ID: 1, Name: "id", Optional: false, Type: Primitive(Int)},
		{ID: 2, Name: "s", Optional: true, Type: RecordOf(
			Field{ID: 5, Name: "x", Optional: true, Type: Primitive(Int)},
			Field{ID: 6, Name: "y", Optional: true, Type: Primitive(String)})},
		{ID: 3, Name: "arr", Optional: true, Type: ArrayOf(7, true, Primitive(Int))},
		{ID: 4, Name: "m", Optional: true, Type: MapOf(8, 9, RecordOf(Field{ID: 10, Name: "n", Optional: true, Type: Primitive(String)}), true)},
	})
}

func TestJSONRoundTrip(t *testing.T) {
	s := sample().WithVersion(20240101000000000)
	text := s.JSON()
	want := `{"max_column_id":10,"version-id":20240101000000000,"type":"record","fields":[` +
		`{"id":0,"name":"_hoodie_commit_time","optional":true,"type":"string","doc":""},` +
		`{"id":1,"name":"id","optional":false,"type":"int"},` +
		`{"id":2,"name":"s","optional":true,"type":{"type":"record","fields":[{"id":5,"name":"x","optional":true,"type":"int"},{"id":6,"name":"y","optional":true,"type":"string"}]}},` +
		`{"id":3,"name":"arr","optional":true,"type":{"type":"array","element-id":7,"element":"int","element_optional":true}},` +
		`{"id":4,"name":"m","optional":true,"type":{"type":"map","key-id":8,"key":"string","value-id":9,"value":{"type":"record","fields":[{"id":10,"name":"n","optional":true,"type":"string"}]},"value_optional":true}}]}`
	if text != want {
		t.Fatalf("JSON:\n got %s\nwant %s", text, want)
	}
	back, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(s) || back.MaxColumnID != 10 || back.JSON() != text {
		t.Fatalf("round trip: %s", back.JSON())
	}
}

func TestJSONTypesAndEscapes(t *testing.T) {
	s := New(7, []Field{
		{ID: 0, Name: `q"\` + "\x01\t", Optional: true, Type: DecimalOf(10, 2), Doc: str("é\n")},
		{ID: 1, Name: "f", Optional: true, Type: FixedOf(16)},
		{ID: 2, Name: "d", Optional: true, Type: Primitive(Date)},
		{ID: 3, Name: "ts", Optional: true, Type: Primitive(Timestamp)},
		{ID: 4, Name: "b", Optional: true, Type: Primitive(Binary)},
	})
	s.MaxColumnID = 9
	text := s.JSON()
	for _, part := range []string{`"name":"q\"\\\u0001\t"`, `"type":"decimal(10, 2)"`, `"doc":"é\n"`, `"type":"fixed[16]"`,
		`"type":"date"`, `"type":"timestamp"`, `"type":"binary"`, `"max_column_id":9,"version-id":7`} {
		if !strings.Contains(text, part) {
			t.Errorf("JSON lacks %s: %s", part, text)
		}
	}
	back, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if back.JSON() != text {
		t.Fatalf("round trip:\n got %s\nwant %s", back.JSON(), text)
	}
	// Without version and max id (SerDeHelper.fromJson defaults).
	bare, err := Parse(`{"type":"record","fields":[{"id":3,"name":"a","optional":true,"type":"DECIMAL(5,  1)"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if bare.VersionID != 0 || bare.MaxColumnID != 3 || bare.Fields[0].Type.String() != "decimal(5, 1)" {
		t.Fatalf("bare: %+v", bare)
	}
}

func TestParseRejects(t *testing.T) {
	for _, text := range []string{
		``, `[]`, `{"type":"record"}`, `{"type":"record","fields":[{"id":"x","name":"a","optional":true,"type":"int"}]}`,
		`{"type":"record","fields":[{"id":1,"name":"a","optional":true,"type":"varchar"}]}`,
		`{"type":"record","fields":[{"id":1,"optional":true,"type":"int"}]}`,
		`{"type":"array","element-id":1,"element":"int","element_optional":true}`,
		// Duplicate ids (columns are matched by id).
		`{"type":"record","fields":[{"id":1,"name":"a","optional":true,"type":"int"},{"id":1,"name":"b","optional":true,"type":"int"}]}`,
		`{"type":"record","fields":[{"id":1,"name":"a","optional":true,"type":{"type":"array","element-id":1,"element":"int","element_optional":true}}]}`,
	} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) = nil error", text)
		}
	}
	if _, err := ParseHistory(`{"versions":[]}`); err == nil {
		t.Error("ParseHistory without schemas: nil error")
	}
	if _, err := Inherit(sample(), `{"other":1}`); err == nil {
		t.Error("Inherit of a non-history: nil error")
	}
}

func TestHistoryAt(t *testing.T) {
	v1, v2 := sample().WithVersion(100), sample().WithVersion(200)
	v2.Fields = append(append([]Field{}, v2.Fields...), Field{ID: 11, Name: "z", Optional: true, Type: Primitive(Long)})
	text, err := Inherit(v1, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, err = Inherit(v2, text); err != nil {
		t.Fatal(err)
	}
	h, err := ParseHistory(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   int64
		want int64 // -1: none
	}{{50, -1}, {100, 100}, {150, 100}, {200, 200}, {999, 200}} {
		got := h.At(tc.at)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("At(%d) = %d, want none", tc.at, got.VersionID)
		case tc.want >= 0 && (got == nil || got.VersionID != tc.want):
			t.Errorf("At(%d) = %v, want %d", tc.at, got, tc.want)
		}
	}
}

// TestTypeChangeChart pins every cell of the seed's "column type change" chart
// (SchemaChangeUtils.isTypeUpdateAllow), plus the decimal rules.
func TestTypeChangeChart(t *testing.T) {
	types := map[string]*Type{"int": Primitive(Int), "long": Primitive(Long), "float": Primitive(Float), "double": Primitive(Double),
		"string": Primitive(String), "decimal": DecimalOf(20, 4), "date": Primitive(Date)}
	targets := []string{"long", "float", "double", "string", "decimal", "date", "int"}
	chart := map[string]string{ // source → Y/N per target, the seed's rows
		"int":     "YYYYYNY",
		"long":    "YYYYYNN",
		"float":   "NYYYYNN",
		"double":  "NNYYYNN",
		"decimal": "NNNYYNN",
		"string":  "NNNYYYN",
		"date":    "NNNYNYN",
	}
	for src, row := range chart {
		for i, dst := range targets {
			want := row[i] == 'Y'
			if got := TypeChangeAllowed(types[src], types[dst]); got != want {
				t.Errorf("%s → %s: allowed %v, chart says %v", src, dst, got, want)
			}
		}
	}
	for _, tc := range []struct {
		from, to *Type
		want     bool
	}{
		{DecimalOf(10, 2), DecimalOf(12, 4), true},  // wider
		{DecimalOf(10, 2), DecimalOf(12, 2), true},  // same scale, more precision
		{DecimalOf(10, 2), DecimalOf(10, 3), false}, // fewer integer digits
		{DecimalOf(10, 2), DecimalOf(9, 2), false},
		{Primitive(Boolean), Primitive(String), false},
		{Primitive(Binary), Primitive(String), false},
		{Primitive(Timestamp), Primitive(String), false},
	} {
		if got := TypeChangeAllowed(tc.from, tc.to); got != tc.want {
			t.Errorf("%s → %s: %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestChangesRefused(t *testing.T) {
	s := sample()
	for _, tc := range []struct {
		name string
		do   func() error
		msg  string
	}{
		{"add meta", func() error {
			_, err := s.AddColumns([]AddColumn{{Name: "_hoodie_commit_time", Type: Primitive(String)}})
			return err
		}, "meta col"},
		{"add existing", func() error {
			_, err := s.AddColumns([]AddColumn{{Name: "ID", Type: Primitive(String)}})
			return err
		}, "already exists"},
		{"add existing nested", func() error {
			_, err := s.AddColumns([]AddColumn{{Parent: "s", Name: "x", Type: Primitive(String)}})
			return err
		}, "already exists"},
		{"add twice", func() error {
			_, err := s.AddColumns([]AddColumn{{Name: "z", Type: Primitive(String)}, {Name: "Z", Type: Primitive(Int)}})
			return err
		}, "twice"},
		{"add to a non-struct", func() error {
			_, err := s.AddColumns([]AddColumn{{Parent: "arr", Name: "z", Type: Primitive(String)}})
			return err
		}, "only be added to structs"},
		{"add to a missing parent", func() error {
			_, err := s.AddColumns([]AddColumn{{Parent: "nope", Name: "z", Type: Primitive(String)}})
			return err
		}, "does not exist"},
		{"add first at the root", func() error {
			_, err := s.AddColumns([]AddColumn{{Name: "z", Type: Primitive(String), Position: Position{Kind: First}}})
			return err
		}, "top-level"},
		{"add after a meta column", func() error {
			_, err := s.AddColumns([]AddColumn{{Name: "z", Type: Primitive(String), Position: Position{Kind: After, Ref: "_hoodie_commit_time"}}})
			return err
		}, "meta columns"},
		{"add after a column of another struct", func() error {
			_, err := s.AddColumns([]AddColumn{{Name: "z", Type: Primitive(String), Position: Position{Kind: After, Ref: "s.x"}}})
			return err
		}, "different parent"},
		{"delete missing", func() error { _, err := s.DeleteColumns([]string{"nope"}); return err }, "does not exist"},
		{"delete every field of a struct", func() error { _, err := s.DeleteColumns([]string{"s.x", "s.y"}); return err }, "all columns"},
		{"delete an array element", func() error { _, err := s.DeleteColumns([]string{"arr.element"}); return err }, "element"},
		{"delete a map value", func() error { _, err := s.DeleteColumns([]string{"m.value"}); return err }, "value"},
		{"delete a meta column", func() error { _, err := s.DeleteColumns([]string{"_HOODIE_COMMIT_TIME"}); return err }, "meta col"},
		{"type outside the chart", func() error {
			_, err := s.UpdateColumns([]UpdateColumn{{Name: "s.y", Type: Primitive(Int)}})
			return err
		}, "incompatible"},
		{"type of a struct", func() error {
			_, err := s.UpdateColumns([]UpdateColumn{{Name: "s", Type: Primitive(String)}})
			return err
		}, "only primitive"},
		{"rename onto a sibling", func() error {
			_, err := s.UpdateColumns([]UpdateColumn{{Name: "s.x", Rename: "Y"}})
			return err
		}, "already exists"},
		{"optional to required", func() error {
			no := false
			_, err := s.UpdateColumns([]UpdateColumn{{Name: "s.x", Nullable: &no}})
			return err
		}, "optional to required"},
		{"move first at the root", func() error {
			_, err := s.UpdateColumns([]UpdateColumn{{Name: "arr", Position: Position{Kind: First}}})
			return err
		}, "top-level"},
	} {
		err := tc.do()
		if err == nil || !errors.Is(err, ErrChange) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want ErrChange containing %q", tc.name, err, tc.msg)
		}
	}
}

func TestChanges(t *testing.T) {
	s := sample()
	yes := true
	out, err := s.AddColumns([]AddColumn{
		{Name: "top", Type: RecordOf(Field{ID: 0, Name: "p", Optional: true, Type: ArrayOf(0, true, Primitive(Long))}), Position: Position{Kind: After, Ref: "id"}},
		{Parent: "m.value", Name: "k", Type: Primitive(Int), Position: Position{Kind: First}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// top = 11, its field p = 12, p's element = 13; m.value.k = 14.
	want := `{"max_column_id":14,"version-id":0,"type":"record","fields":[{"id":0,"name":"_hoodie_commit_time","optional":true,"type":"string","doc":""},` +
		`{"id":1,"name":"id","optional":false,"type":"int"},` +
		`{"id":11,"name":"top","optional":true,"type":{"type":"record","fields":[{"id":12,"name":"p","optional":true,"type":{"type":"array","element-id":13,"element":"long","element_optional":true}}]}},` +
		`{"id":2,"name":"s","optional":true,"type":{"type":"record","fields":[{"id":5,"name":"x","optional":true,"type":"int"},{"id":6,"name":"y","optional":true,"type":"string"}]}},` +
		`{"id":3,"name":"arr","optional":true,"type":{"type":"array","element-id":7,"element":"int","element_optional":true}},` +
		`{"id":4,"name":"m","optional":true,"type":{"type":"map","key-id":8,"key":"string","value-id":9,"value":{"type":"record","fields":[{"id":14,"name":"k","optional":true,"type":"int"},{"id":10,"name":"n","optional":true,"type":"string"}]},"value_optional":true}}]}`
	if got := out.JSON(); got != want {
		t.Fatalf("add:\n got %s\nwant %s", got, want)
	}
	// Drop the highest id, then change a type: the id stays retired (hudi-go keeps
	// MaxColumnID where Java's InternalSchema(RecordType) would recompute 13), so the next
	// column added gets 15, not 14.
	out, err = out.DeleteColumns([]string{"m.value.k"})
	if err != nil {
		t.Fatal(err)
	}
	out, err = out.UpdateColumns([]UpdateColumn{{Name: "id", Type: Primitive(Long), Nullable: &yes, Rename: "key_id", Doc: str("k")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.MaxColumnID != 14 {
		t.Fatalf("MaxColumnID after drop and update = %d, want 14", out.MaxColumnID)
	}
	out, err = out.AddColumns([]AddColumn{{Name: "again", Type: Primitive(Int)}})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := out.Find("again"); !ok || f.ID != 15 {
		t.Fatalf("re-added column id %+v", f)
	}
	if f, ok := out.Find("KEY_ID"); !ok || f.ID != 1 || !f.Optional || f.Type.Kind != Long || *f.Doc != "k" {
		t.Fatalf("updated id: %+v", f)
	}
	if _, ok := out.Find("id"); ok {
		t.Fatal("old name still found")
	}
}

// FuzzParseHistory: schema history files and latest_schema values are read from storage;
// no input may panic, and what parses must print back to a text that parses the same.
func FuzzParseHistory(f *testing.F) {
	f.Add(`{"schemas":[` + sample().JSON() + `]}`)
	f.Add(`{"schemas":[{"type":"record","fields":[{"id":1,"name":"a","optional":true,"type":{"type":"map","key-id":2,"key":"string","value-id":3,"value":"int","value_optional":false}}]}]}`)
	f.Add(`{"schemas":[{"max_column_id":"x"}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		h, err := ParseHistory(text)
		if err != nil {
			return
		}
		again, err := ParseHistory(h.JSON())
		if err != nil {
			t.Fatalf("re-parse of %s: %v", h.JSON(), err)
		}
		if again.JSON() != h.JSON() {
			t.Fatalf("unstable: %s vs %s", again.JSON(), h.JSON())
		}
		_ = h.At(0)
		for _, s := range h.Schemas {
			_ = s.String()
			_, _ = s.Find("a.b")
		}
	})
}

// TestReconcile pins AvroSchemaEvolutionUtils.reconcileSchema's rules (Java 0.14): same
// columns → the same schema; new columns (the outermost of a new struct only) get new ids,
// placed before the following incoming column that exists (smallest old id first); a
// widened type changes; a missing column stays; a disallowed type change is refused.
func TestReconcile(t *testing.T) {
	s := sample()
	// Incoming schemas are converted from Avro: ids in field order, children after.
	in := func(fields ...Field) *Schema { return New(0, fields) }
	f := func(id int, name string, optional bool, t *Type) Field {
		return Field{ID: id, Name: name, Optional: optional, Type: t}
	}
	str := Primitive(String)
	same, changed, err := s.Reconcile(in(f(0, "_hoodie_commit_time", true, str), f(1, "id", false, Primitive(Int)),
		f(2, "s", true, RecordOf(f(5, "x", true, Primitive(Int)), f(6, "y", true, str))),
		f(3, "arr", true, ArrayOf(7, true, Primitive(Int))),
		f(4, "m", true, MapOf(8, 9, RecordOf(f(10, "n", true, str)), true))))
	if err != nil || changed || same != s {
		t.Fatalf("same columns: changed=%v err=%v", changed, err)
	}
	// Other ids in the nested types (as a conversion of another order assigns them) are
	// still the same columns.
	if _, changed, _ := s.Reconcile(in(f(0, "_hoodie_commit_time", true, str), f(1, "id", false, Primitive(Int)),
		f(2, "s", true, RecordOf(f(15, "x", true, Primitive(Int)), f(16, "y", true, str))),
		f(3, "arr", true, ArrayOf(17, true, Primitive(Int))),
		f(4, "m", true, MapOf(18, 19, RecordOf(f(20, "n", true, str)), true)))); changed {
		t.Fatal("nested ids alone changed the schema")
	}

	// "nw" given between id and s goes before s; "s.z" after s.y goes at the end of s;
	// the new struct "top" takes one id, its child the next; id becomes long. Ids go in
	// the incoming order of the new columns: nw 11, top 12 (p 13), s.z 14.
	got, changed, err := s.Reconcile(in(f(0, "_hoodie_commit_time", true, str), f(1, "id", false, Primitive(Long)),
		f(2, "nw", true, str),
		f(3, "s", true, RecordOf(f(8, "x", true, Primitive(Int)), f(9, "y", true, str), f(10, "z", true, Primitive(Double)))),
		f(4, "arr", true, ArrayOf(11, true, Primitive(Int))),
		f(5, "m", true, MapOf(12, 13, RecordOf(f(14, "n", true, str)), true)),
		f(6, "top", true, RecordOf(f(15, "p", true, Primitive(Int))))))
	if err != nil || !changed {
		t.Fatalf("evolving: changed=%v err=%v", changed, err)
	}
	want := `{"max_column_id":14,"version-id":0,"type":"record","fields":[{"id":0,"name":"_hoodie_commit_time","optional":true,"type":"string","doc":""},` +
		`{"id":1,"name":"id","optional":false,"type":"long"},` +
		`{"id":11,"name":"nw","optional":true,"type":"string"},` +
		`{"id":2,"name":"s","optional":true,"type":{"type":"record","fields":[{"id":5,"name":"x","optional":true,"type":"int"},{"id":6,"name":"y","optional":true,"type":"string"},{"id":14,"name":"z","optional":true,"type":"double"}]}},` +
		`{"id":3,"name":"arr","optional":true,"type":{"type":"array","element-id":7,"element":"int","element_optional":true}},` +
		`{"id":4,"name":"m","optional":true,"type":{"type":"map","key-id":8,"key":"string","value-id":9,"value":{"type":"record","fields":[{"id":10,"name":"n","optional":true,"type":"string"}]},"value_optional":true}},` +
		`{"id":12,"name":"top","optional":true,"type":{"type":"record","fields":[{"id":13,"name":"p","optional":true,"type":"int"}]}}]}`
	if got.JSON() != want {
		t.Fatalf("evolved:\n got %s\nwant %s", got.JSON(), want)
	}

	// Missing columns only: a new version with the same columns, as Java records one.
	got, changed, err = s.Reconcile(in(f(0, "_hoodie_commit_time", true, str), f(1, "id", false, Primitive(Int))))
	if err != nil || !changed || !fieldsEqual(got.Fields, s.Fields) || got.MaxColumnID != s.MaxColumnID {
		t.Fatalf("missing columns: changed=%v err=%v %s", changed, err, got)
	}

	// long → int is not in the chart.
	wide, _, err := s.Reconcile(in(f(0, "_hoodie_commit_time", true, str), f(1, "id", false, Primitive(Long))))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := wide.Reconcile(in(f(0, "_hoodie_commit_time", true, str), f(1, "id", false, Primitive(Int)))); !errors.Is(err, ErrChange) {
		t.Fatalf("long → int: %v", err)
	}
}
