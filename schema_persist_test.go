package hudi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
)

// goldenH0 reads the hand-derived versions of schema/internalschema/testdata/h0_versions.golden.
func goldenH0(t *testing.T) (ids []string, jsons []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("internal", "schema", "internalschema", "testdata", "h0_versions.golden"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			id, j, _ := strings.Cut(line, " ")
			ids, jsons = append(ids, id), append(jsons, j)
		}
	}
	return ids, jsons
}

func internalType(t *testing.T, ddl string) *internalschema.Type {
	t.Helper()
	sc, err := schema.ParseDDL("c " + ddl)
	if err != nil {
		t.Fatal(err)
	}
	it, err := schema.InternalTypeFromArrow(sc.Field(0).Type)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// goldenH0Statements are the golden sequence's ALTER TABLE statements as library changes
// (see schema/internal_golden_test.go for their SQL).
func goldenH0Statements(t *testing.T) []hudi.SchemaChange {
	str := func(s string) *string { return &s }
	after := func(ref string) internalschema.Position {
		return internalschema.Position{Kind: internalschema.After, Ref: ref}
	}
	return []hudi.SchemaChange{
		{Add: []internalschema.AddColumn{{Name: "ext0", Type: internalType(t, "string")}}},
		{Add: []internalschema.AddColumn{{Name: "new_col", Type: internalType(t, "int"), Doc: str("add new column"), Position: after("name")}}},
		{Add: []internalschema.AddColumn{{Parent: "info", Name: "c", Type: internalType(t, "string"), Doc: str("add new column to a struct col"), Position: after("a")}}},
		{Add: []internalschema.AddColumn{{Parent: "props.value", Name: "col1", Type: internalType(t, "string")}}},
		{Update: []internalschema.UpdateColumn{{Name: "info.a", Type: internalType(t, "bigint")}}},
		{Update: []internalschema.UpdateColumn{{Name: "info.b", Rename: "bb"}}},
		{Delete: []string{"ext0"}},
		{Update: []internalschema.UpdateColumn{{Name: "info.bb", Position: internalschema.Position{Kind: internalschema.First}}}},
		{Update: []internalschema.UpdateColumn{{Name: "price", Doc: str("the price")}}},
		{Update: []internalschema.UpdateColumn{{Name: "ts", Position: after("id")}}},
	}
}

// clockAt returns a clock stopped at an instant time (UTC timeline).
func clockAt(t *testing.T, instant string) func() time.Time {
	ts, err := time.ParseInLocation("20060102150405.000", instant[:14]+"."+instant[14:], time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return func() time.Time { return ts }
}

// TestAlterSchemaPersistsAsJava commits the golden ALTER sequence on copy-on-write and
// merge-on-read tables and checks what Java's AlterTableCommand.commitWithSchema leaves:
// per statement one instant (commit / deltacommit) with an empty requested file, an
// inflight file whose operation is ALTER_SCHEMA, commit metadata whose latest_schema is
// the golden version, and .hoodie/.schema/<instant>.schemacommit (plus its requested and
// inflight files) holding every version so far, newest first, byte for byte.
func TestAlterSchemaPersistsAsJava(t *testing.T) {
	ids, want := goldenH0(t)
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "h0")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "h0", Type: typ, RecordKeyFields: []string{"id"}, PrecombineField: "ts",
				Schema:   "id INT, name STRING, price DOUBLE, ts BIGINT, info STRUCT<a: INT, b: STRING>, props MAP<STRING, STRUCT<n: STRING, a: INT>>",
				Settings: map[string]string{"hoodie.table.timeline.timezone": "UTC"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = tb.Write(ctx, batchesOf(t, tb, []row{{"id": 1, "name": "a", "price": 1.5, "ts": 1, "info": row{"a": 1, "b": "x"},
				"props": []any{row{"key": "k", "value": row{"n": "n1", "a": 2}}}}}),
				hudi.WriteOptions{Operation: "insert", Now: clockAt(t, "20240102030404000")})
			if err != nil {
				t.Fatal(err)
			}
			action := map[string]string{"cow": "commit", "mor": "deltacommit"}[typ]
			for i, change := range goldenH0Statements(t) {
				instant := ids[i+1]
				res, err := tb.AlterSchema(ctx, change, hudi.WriteOptions{Now: clockAt(t, instant)})
				if err != nil {
					t.Fatalf("change %d: %v", i+1, err)
				}
				if res.Instant != instant || res.Action != action {
					t.Fatalf("change %d committed %s %s, want %s %s", i+1, res.Action, res.Instant, action, instant)
				}
				hoodie := filepath.Join(dir, ".hoodie")
				if b, err := os.ReadFile(filepath.Join(hoodie, instant+"."+action+".requested")); err != nil || len(b) != 0 {
					t.Fatalf("requested file: %q, %v", b, err)
				}
				inflightName := instant + "." + action + ".inflight"
				if action == "commit" {
					inflightName = instant + ".inflight"
				}
				var inflight map[string]any
				readJSON(t, filepath.Join(hoodie, inflightName), &inflight)
				if inflight["operationType"] != "ALTER_SCHEMA" {
					t.Fatalf("inflight operationType %v", inflight["operationType"])
				}
				var done struct {
					ExtraMetadata map[string]string `json:"extraMetadata"`
				}
				readJSON(t, filepath.Join(hoodie, instant+"."+action), &done)
				if got := done.ExtraMetadata["latest_schema"]; got != want[i+1] {
					t.Fatalf("latest_schema of %s:\n got %s\nwant %s", instant, got, want[i+1])
				}
				var parts []string
				for j := i + 1; j >= 0; j-- {
					parts = append(parts, want[j])
				}
				hist, err := os.ReadFile(filepath.Join(hoodie, ".schema", instant+".schemacommit"))
				if err != nil {
					t.Fatal(err)
				}
				if wantHist := `{"schemas":[` + strings.Join(parts, ",") + `]}`; string(hist) != wantHist {
					t.Fatalf(".schema/%s.schemacommit:\n got %s\nwant %s", instant, hist, wantHist)
				}
				for _, suffix := range []string{".schemacommit.requested", ".schemacommit.inflight"} {
					if b, err := os.ReadFile(filepath.Join(hoodie, ".schema", instant+suffix)); err != nil || len(b) != 0 {
						t.Fatalf("%s%s: %q, %v", instant, suffix, b, err)
					}
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
