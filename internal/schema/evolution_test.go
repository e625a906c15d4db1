package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func mustDDL(t *testing.T, ddl string) *arrow.Schema {
	t.Helper()
	s, err := ParseDDL(ddl)
	if err != nil {
		t.Fatalf("ParseDDL(%q): %v", ddl, err)
	}
	return s
}

// TestEvolveSeedTable has one case per row of the "Schema Evolution on Write" table of the Hudi
// docs (shared/seeds/schema-evolution.txt): "Yes" rows must succeed with the expected write
// schema, "No" rows must fail naming the column.
func TestEvolveSeedTable(t *testing.T) {
	const base = "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>"
	for _, tc := range []struct {
		row, incoming string
		nullMissing   bool
		want          string   // expected result DDL (Yes rows)
		errs          []string // expected error fragments (No rows)
	}{
		{row: "Add a new nullable column at root level at the end", incoming: base + ", extra STRING",
			want: base + ", extra STRING"},
		{row: "Add a new nullable column to inner struct (at the end)",
			incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING, c DATE>",
			want:     "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING, c DATE>"},
		{row: "Add a new complex type field with default (map and array)", incoming: base + ", m2 MAP<STRING, ARRAY<STRING>>, a2 ARRAY<STRUCT<x: INT>>",
			want: base + ", m2 MAP<STRING, ARRAY<STRING>>, a2 ARRAY<STRUCT<x: INT>>"},
		{row: "Add a new nullable column and change the ordering of fields", incoming: "name STRING, id INT, extra STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>",
			errs: []string{`column "extra": new column is placed before existing column "price"`, `reordered while column "extra" is added`}},
		{row: "Add a new nullable column and change the ordering of fields (new column at the end)", incoming: "name STRING, id INT, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>, extra STRING",
			errs: []string{`reordered while column "extra" is added`}},
		{row: "Add a custom nullable Hudi meta column, e.g. _hoodie_meta_col", incoming: base + ", _hoodie_meta_col STRING",
			want: base + ", _hoodie_meta_col STRING"},
		{row: "Promote datatype for a field at root level", incoming: "id BIGINT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>",
			want: "id BIGINT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>"},
		{row: "Promote datatype for a nested field", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: DOUBLE, b STRING>",
			want: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: DOUBLE, b STRING>"},
		{row: "Promote datatype for a complex type (value of map or array)", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<BIGINT>, attrs MAP<STRING, FLOAT>, s STRUCT<a: INT, b STRING>",
			want: "id INT, name STRING, price DOUBLE, tags ARRAY<BIGINT>, attrs MAP<STRING, FLOAT>, s STRUCT<a: INT, b STRING>"},
		{row: "Add a new non-nullable column at root level at the end", incoming: base + ", extra STRING NOT NULL",
			errs: []string{`column "extra": new column of type string is NOT NULL`}},
		{row: "Add a new non-nullable column to inner struct (at the end)", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING, c INT NOT NULL>",
			errs: []string{`column "s.c": new column of type int is NOT NULL`}},
		// Demotions: Hudi's promotion chart widens the narrower incoming type to the table's, so
		// the table's column is never demoted; a demotion the chart marks X (bytes into numbers)
		// is an error.
		{row: "Demote datatype for a field at root level (widened back)", incoming: "id INT, name STRING, price FLOAT, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>",
			want: base},
		{row: "Demote datatype for a field at root level", incoming: "id INT, name STRING, price BINARY, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>",
			errs: []string{`column "price": cannot change type from double (table) to bytes (incoming)`}},
		{row: "Demote datatype for a nested field", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: BINARY, b STRING>",
			errs: []string{`column "s.a": cannot change type from int (table) to bytes (incoming)`}},
		{row: "Demote datatype for a complex type (value of map or array)", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<BOOLEAN>, attrs MAP<STRING, BINARY>, s STRUCT<a: INT, b STRING>",
			errs: []string{`column "tags[]": cannot change type from int (table) to boolean (incoming)`, `column "attrs{}": cannot change type from int (table) to bytes (incoming)`}},
		{row: "Missing column rejected by default", incoming: "id INT, name STRING, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>",
			errs: []string{`column "price" (double) is missing from the input; set hoodie.write.set.null.for.missing.columns=true`}},
		{row: "Missing column with hoodie.write.set.null.for.missing.columns", nullMissing: true, incoming: "id INT, name STRING, tags ARRAY<INT>, s STRUCT<b STRING>",
			want: base},
		{row: "Missing nested column rejected by default", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<b STRING>",
			errs: []string{`column "s.a" (int) is missing`}},
		{row: "Reordering alone keeps the table order", incoming: "s STRUCT<b STRING, a INT>, attrs MAP<STRING, INT>, tags ARRAY<INT>, price DOUBLE, name STRING, id INT",
			want: base},
		{row: "Meta columns in the input are ignored", incoming: "_hoodie_commit_time STRING, _hoodie_record_key STRING, " + base,
			want: base},
		{row: "Case-insensitive match keeps the table spelling", incoming: "ID BIGINT, NAME STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<A: INT, b STRING>",
			want: "id BIGINT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>"},
		{row: "Struct replaced by a primitive", incoming: "id INT, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRING",
			errs: []string{`column "s": cannot change type from struct<a:int,b:string> (table) to string (incoming)`}},
		{row: "Several problems reported together", incoming: "id BINARY, name STRING, price DOUBLE, tags ARRAY<INT>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>, x INT NOT NULL",
			errs: []string{`column "id"`, `column "x"`}},
	} {
		t.Run(tc.row, func(t *testing.T) {
			got, err := Evolve(mustDDL(t, base), mustDDL(t, tc.incoming), tc.nullMissing)
			if len(tc.errs) > 0 {
				if err == nil {
					t.Fatalf("accepted, result %s", got)
				}
				for _, frag := range tc.errs {
					if !strings.Contains(err.Error(), frag) {
						t.Errorf("error %q lacks %q", err, frag)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := mustDDL(t, tc.want)
			if !got.Equal(want) || got.String() != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestEvolvePromotionChart checks every cell of the seed doc's "Type Promotions" chart
// (incoming type ↓, table type →; X = rejected).
func TestEvolvePromotionChart(t *testing.T) {
	types := []string{"INT", "BIGINT", "FLOAT", "DOUBLE", "STRING", "BINARY"}
	chart := [][]string{ // rows: incoming; columns: table
		{"INT", "BIGINT", "FLOAT", "DOUBLE", "STRING", "X"},
		{"BIGINT", "BIGINT", "FLOAT", "DOUBLE", "STRING", "X"},
		{"FLOAT", "FLOAT", "FLOAT", "DOUBLE", "STRING", "X"},
		{"DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "STRING", "X"},
		{"STRING", "STRING", "STRING", "STRING", "STRING", "BINARY"},
		{"X", "X", "X", "X", "STRING", "BINARY"},
	}
	for i, in := range types {
		for j, tbl := range types {
			want := chart[i][j]
			t.Run(in+"_into_"+tbl, func(t *testing.T) {
				got, err := Evolve(mustDDL(t, "c "+tbl), mustDDL(t, "c "+in), false)
				if want == "X" {
					if err == nil {
						t.Fatalf("accepted as %s", got.Field(0).Type)
					}
					if !strings.Contains(err.Error(), `column "c"`) || !strings.Contains(err.Error(), "(table)") || !strings.Contains(err.Error(), "(incoming)") {
						t.Errorf("error does not name column and both types: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if w := mustDDL(t, "c "+want).Field(0).Type; !arrow.TypeEqual(got.Field(0).Type, w) {
					t.Errorf("result %s, want %s", got.Field(0).Type, w)
				}
			})
		}
	}
}

func TestEvolveDecimalsAndOthers(t *testing.T) {
	for _, tc := range []struct {
		table, incoming, want, err string
	}{
		{table: "d DECIMAL(10,2)", incoming: "d DECIMAL(12,2)", want: "d DECIMAL(12,2)"},
		{table: "d DECIMAL(12,2)", incoming: "d DECIMAL(10,2)", want: "d DECIMAL(12,2)"},
		{table: "d DECIMAL(10,2)", incoming: "d DECIMAL(10,3)", err: `column "d": cannot change type from decimal(10,2) (table) to decimal(10,3) (incoming): decimal scale cannot change`},
		{table: "d DECIMAL(10,2)", incoming: "d STRING", want: "d STRING"},
		{table: "d DECIMAL(10,2)", incoming: "d BIGINT", err: `from decimal(10,2) (table) to long (incoming)`},
		{table: "d INT", incoming: "d DECIMAL(10,0)", err: `from int (table) to decimal(10,0) (incoming)`},
		{table: "d DATE", incoming: "d TIMESTAMP", err: `from date (table) to timestamp (incoming)`},
		{table: "d BOOLEAN", incoming: "d INT", err: `from boolean (table) to int (incoming)`},
		{table: "d TIMESTAMP", incoming: "d TIMESTAMP_NTZ", err: `from timestamp (table) to timestamp_ntz (incoming)`},
		{table: "d ARRAY<INT>", incoming: "d MAP<STRING, INT>", err: `from array<int> (table) to map<int> (incoming)`},
		{table: "d INT NOT NULL", incoming: "d INT", want: "d INT"},
		{table: "d INT", incoming: "d INT NOT NULL", want: "d INT"},
		{table: "d INT NOT NULL", incoming: "e INT", err: `column "d" (int) is missing from the input`},
	} {
		t.Run(tc.table+"<-"+tc.incoming, func(t *testing.T) {
			got, err := Evolve(mustDDL(t, tc.table), mustDDL(t, tc.incoming), false)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := mustDDL(t, tc.want); !got.Equal(w) {
				t.Errorf("got %s want %s", got, w)
			}
		})
	}
	// Missing NOT NULL column cannot be null-filled even when allowed.
	if _, err := Evolve(mustDDL(t, "a INT, d INT NOT NULL"), mustDDL(t, "a INT"), true); err == nil || !strings.Contains(err.Error(), `column "d" (int) is missing from the input and NOT NULL`) {
		t.Errorf("missing NOT NULL column: %v", err)
	}
	// New table: anything goes, meta columns dropped.
	got, err := Evolve(nil, mustDDL(t, "_hoodie_commit_time STRING, a INT NOT NULL"), false)
	if err != nil || got.NumFields() != 1 || got.Field(0).Name != "a" {
		t.Errorf("new table: %v %v", got, err)
	}
	// Non-canonical Arrow types in the input come out canonical.
	in := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.LargeString), Nullable: true},
	}, nil)
	got, err = Evolve(mustDDL(t, "a INT"), in, false)
	if err != nil {
		t.Fatal(err)
	}
	if w := mustDDL(t, "a INT, n SMALLINT, l ARRAY<STRING>"); !got.Equal(w) || got.String() != w.String() {
		t.Errorf("got %s want %s", got, w)
	}
}

// TestEvolveThenToAvro: the evolved schema of a real table converts to the Avro text Hudi would
// commit, with the new column appended.
func TestEvolveThenToAvro(t *testing.T) {
	real := loadAvsc(t, "trips_v6_8i1u")
	table, err := FromAvro(real)
	if err != nil {
		t.Fatal(err)
	}
	in := mustDDL(t, "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare FLOAT, city STRING, tip DOUBLE")
	got, err := Evolve(table, in, false)
	if err != nil {
		t.Fatal(err)
	}
	avsc, err := ToAvro(got, "v6_trips_8i1u")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(real, "]}") + `,{"name":"tip","type":["null","double"],"default":null}]}`
	if avsc != want {
		t.Errorf("got  %s\nwant %s", avsc, want)
	}
}
