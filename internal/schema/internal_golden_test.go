package schema

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/schema/internalschema"
)

// goldenVersions reads schema/internalschema/testdata/h0_versions.golden: per schema
// version, its id and its latest_schema JSON, hand-derived from Java 0.14's classes.
func goldenVersions(t *testing.T) (ids []int64, jsons []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("internalschema", "testdata", "h0_versions.golden"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		v, j, _ := strings.Cut(line, " ")
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ids, jsons = append(ids, id), append(jsons, j)
	}
	return ids, jsons
}

// GoldenH0Changes are the ALTER TABLE statements of the golden sequence, in order, as the
// column changes they make (one statement, one version). The table is
//
//	CREATE TABLE h0 (id INT, name STRING, price DOUBLE, ts BIGINT,
//	  info STRUCT<a: INT, b: STRING>, props MAP<STRING, STRUCT<n: STRING, a: INT>>)
//	  USING hudi TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')
func goldenH0Changes(t *testing.T) []func(*internalschema.Schema) (*internalschema.Schema, error) {
	typ := func(ddl string) *internalschema.Type {
		sc, err := ParseDDL("c " + ddl)
		if err != nil {
			t.Fatal(err)
		}
		it, err := InternalTypeFromArrow(sc.Field(0).Type)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	str := func(s string) *string { return &s }
	yes := true
	_ = yes
	return []func(*internalschema.Schema) (*internalschema.Schema, error){
		// ALTER TABLE h0 ADD COLUMNS (ext0 string)
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.AddColumns([]internalschema.AddColumn{{Name: "ext0", Type: typ("string")}})
		},
		// ALTER TABLE h0 ADD COLUMNS (new_col int not null comment 'add new column' AFTER name)
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.AddColumns([]internalschema.AddColumn{{Name: "new_col", Type: typ("int"), Doc: str("add new column"),
				Position: internalschema.Position{Kind: internalschema.After, Ref: "name"}}})
		},
		// ALTER TABLE h0 ADD COLUMNS (info.c string comment 'add new column to a struct col' AFTER a)
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.AddColumns([]internalschema.AddColumn{{Parent: "info", Name: "c", Type: typ("string"),
				Doc: str("add new column to a struct col"), Position: internalschema.Position{Kind: internalschema.After, Ref: "a"}}})
		},
		// ALTER TABLE h0 ADD COLUMNS (props.value.col1 string)
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.AddColumns([]internalschema.AddColumn{{Parent: "props.value", Name: "col1", Type: typ("string")}})
		},
		// ALTER TABLE h0 ALTER COLUMN info.a TYPE bigint
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.UpdateColumns([]internalschema.UpdateColumn{{Name: "info.a", Type: typ("bigint")}})
		},
		// ALTER TABLE h0 RENAME COLUMN info.b TO bb
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.UpdateColumns([]internalschema.UpdateColumn{{Name: "info.b", Rename: "bb"}})
		},
		// ALTER TABLE h0 DROP COLUMN ext0
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.DeleteColumns([]string{"ext0"})
		},
		// ALTER TABLE h0 ALTER COLUMN info.bb FIRST
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.UpdateColumns([]internalschema.UpdateColumn{{Name: "info.bb", Position: internalschema.Position{Kind: internalschema.First}}})
		},
		// ALTER TABLE h0 ALTER COLUMN price COMMENT 'the price'
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.UpdateColumns([]internalschema.UpdateColumn{{Name: "price", Doc: str("the price")}})
		},
		// ALTER TABLE h0 ALTER COLUMN ts AFTER id
		func(s *internalschema.Schema) (*internalschema.Schema, error) {
			return s.UpdateColumns([]internalschema.UpdateColumn{{Name: "ts", Position: internalschema.Position{Kind: internalschema.After, Ref: "id"}}})
		},
	}
}

// TestInternalSchemaGoldenH0 applies the golden ALTER sequence to the InternalSchema Java
// derives from the table's Avro schema and compares every version's latest_schema JSON
// and every .hoodie/.schema history text with the hand-derived golden bytes. Each step
// re-reads the previous version from its JSON, as Java's AlterTableCommand reads it back
// from the commit metadata.
func TestInternalSchemaGoldenH0(t *testing.T) {
	ids, want := goldenVersions(t)
	ddl, err := ParseDDL("id INT, name STRING, price DOUBLE, ts BIGINT, info STRUCT<a: INT, b: STRING>, props MAP<STRING, STRUCT<n: STRING, a: INT>>")
	if err != nil {
		t.Fatal(err)
	}
	avroSchema, err := ToAvro(ddl, "h0")
	if err != nil {
		t.Fatal(err)
	}
	withMeta, err := WithMetaFieldsAvro(avroSchema)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := InternalFromAvro(withMeta)
	if err != nil {
		t.Fatal(err)
	}
	if got := cur.JSON(); got != want[0] {
		t.Fatalf("version 0:\n got %s\nwant %s", got, want[0])
	}
	history := ""
	changes := goldenH0Changes(t)
	if len(changes) != len(want)-1 {
		t.Fatalf("%d changes, %d golden versions", len(changes), len(want))
	}
	for i, change := range changes {
		if history == "" {
			if history, err = internalschema.Inherit(cur, ""); err != nil {
				t.Fatal(err)
			}
		}
		next, err := change(cur)
		if err != nil {
			t.Fatalf("change %d: %v", i+1, err)
		}
		next = next.WithVersion(ids[i+1])
		if got := next.JSON(); got != want[i+1] {
			t.Fatalf("version %d:\n got %s\nwant %s", ids[i+1], got, want[i+1])
		}
		if history, err = internalschema.Inherit(next, history); err != nil {
			t.Fatal(err)
		}
		// The history holds every version so far, newest first.
		var parts []string
		for j := i + 1; j >= 0; j-- {
			parts = append(parts, want[j])
		}
		if wantHist := `{"schemas":[` + strings.Join(parts, ",") + `]}`; history != wantHist {
			t.Fatalf("history after version %d:\n got %s\nwant %s", ids[i+1], history, wantHist)
		}
		if cur, err = internalschema.Parse(next.JSON()); err != nil {
			t.Fatal(err)
		}
	}
	h, err := internalschema.ParseHistory(history)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.At(ids[3]).JSON(); got != want[3] {
		t.Errorf("history at %d:\n got %s\nwant %s", ids[3], got, want[3])
	}
	if got := h.At(ids[3] - 1).JSON(); got != want[2] {
		t.Errorf("history just before %d:\n got %s\nwant %s", ids[3], got, want[2])
	}
	if got := h.At(5).JSON(); got != want[0] {
		t.Errorf("history at 5 (before the first ALTER): got %s", got)
	}
}
