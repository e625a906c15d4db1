package hudi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/testutil"
)

// canonRows decodes JSON lines, applies fix to each row and returns them re-encoded (keys
// sorted), sorted.
func canonRows(t *testing.T, lines []string, fix func(map[string]any)) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		for k := range r {
			if strings.HasPrefix(k, "_hoodie_") {
				delete(r, k)
			}
		}
		if fix != nil {
			fix(r)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func expectedLines(t *testing.T, id, check string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.FixturesDir(t), "expected", id, check+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

func sameCanon(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %s\nwant %s", what, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

func rename(m map[string]any, from, to string) {
	if v, ok := m[from]; ok {
		delete(m, from)
		m[to] = v
	}
}

// TestSchemaOnReadSparkFixtures alters Spark-written tables (Hudi 0.14, table version 6;
// their .hoodie/.schema folders are empty: schema evolution on read was never used) and
// reads Spark's files by column id: nested renames in a struct, an array element struct
// and a map value struct, type changes (int → bigint, int → string, decimal → string,
// date → string, float → double), a drop and a reorder on copy-on-write; a rename and a
// type change over Avro log blocks on merge-on-read. Time travel to Spark's instants reads
// with the original schema.
func TestSchemaOnReadSparkFixtures(t *testing.T) {
	ctx := context.Background()
	t.Run("cow/v6_nonpartitioned", func(t *testing.T) {
		id := "cow/v6_nonpartitioned"
		tb, err := hudi.Open(ctx, testutil.Table(t, id))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []hudi.SchemaChange{
			{Update: []internalschema.UpdateColumn{{Name: "structField.field1", Rename: "f1"}, {Name: "arrayField.element.arr_struct_f1", Rename: "color"},
				{Name: "mapField.value.map_field_value_struct_f2", Rename: "flag"}, {Name: "name", Rename: "full_name"}}},
			{Update: []internalschema.UpdateColumn{{Name: "intField", Type: internalType(t, "bigint")}, {Name: "byteField", Type: internalType(t, "string")},
				{Name: "decimalField", Type: internalType(t, "string")}, {Name: "dateField", Type: internalType(t, "string")},
				{Name: "floatField", Type: internalType(t, "double")}}},
			{Delete: []string{"binaryField", "structField.child_struct"}},
			{Update: []internalschema.UpdateColumn{{Name: "isActive", Position: internalschema.Position{Kind: internalschema.After, Ref: "id"}}}},
		} {
			if _, err := tb.AlterSchema(ctx, c, hudi.WriteOptions{}); err != nil {
				t.Fatalf("alter %d: %v", i+1, err)
			}
		}
		got, cols := scanJSON(t, tb, hudi.ScanOptions{})
		if c := strings.Join(cols, ","); !strings.HasPrefix(c, "id,isActive,full_name,byteField") || strings.Contains(c, "binaryField") {
			t.Errorf("columns %s", c)
		}
		want := canonRows(t, expectedLines(t, id, "snapshot"), func(r map[string]any) {
			rename(r, "name", "full_name")
			delete(r, "binaryField")
			r["byteField"] = fmt.Sprint(r["byteField"])
			st := r["structField"].(map[string]any)
			rename(st, "field1", "f1")
			delete(st, "child_struct")
			for _, e := range r["arrayField"].([]any) {
				rename(e.(map[string]any), "arr_struct_f1", "color")
			}
			for _, e := range r["mapField"].([]any) {
				rename(e.(map[string]any)["value"].(map[string]any), "map_field_value_struct_f2", "flag")
			}
		})
		sameCanon(t, "snapshot after ALTERs", canonRows(t, got, nil), want)
		for _, asOf := range []string{"20240418173550988", "20240418173551906"} {
			got, _ := scanJSON(t, tb, hudi.ScanOptions{AsOf: asOf})
			sameCanon(t, "time travel to "+asOf, canonRows(t, got, nil), canonRows(t, expectedLines(t, id, "asof_"+asOf), nil))
		}
	})
	t.Run("trips-mor-avro/v6_trips_8i1u", func(t *testing.T) {
		id := "trips-mor-avro/v6_trips_8i1u"
		tb, err := hudi.Open(ctx, testutil.Table(t, id))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []hudi.SchemaChange{
			{Update: []internalschema.UpdateColumn{{Name: "rider", Rename: "rider_name"}}},
			{Update: []internalschema.UpdateColumn{{Name: "fare", Type: internalType(t, "string")}}},
		} {
			if _, err := tb.AlterSchema(ctx, c, hudi.WriteOptions{}); err != nil {
				t.Fatalf("alter %d: %v", i+1, err)
			}
		}
		javaDouble := func(r map[string]any) {
			s := r["fare"].(json.Number).String()
			if !strings.ContainsAny(s, ".eE") {
				s += ".0"
			}
			r["fare"] = s
			rename(r, "rider", "rider_name")
		}
		for _, check := range []string{"snapshot", "ro"} {
			got, _ := scanJSON(t, tb, hudi.ScanOptions{ReadOptimized: check == "ro"})
			sameCanon(t, check, canonRows(t, got, nil), canonRows(t, expectedLines(t, id, check), javaDouble))
		}
		got, _ := scanJSON(t, tb, hudi.ScanOptions{AsOf: "20250331030642808"})
		sameCanon(t, "time travel", canonRows(t, got, nil), canonRows(t, expectedLines(t, id, "asof_20250331030642808"), nil))
	})
}
