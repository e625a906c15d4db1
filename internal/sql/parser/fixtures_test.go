package parser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/testutil"
)

// fixtureScripts are the Spark scripts that generated the shared test tables.
func fixtureScripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testutil.FixturesDir(t), "tables", "*", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFixtureScriptsParse parses every fixture script and checks each column type
// round-trips through schema.ParseDDL, the reader of ColumnDef.Type.
func TestFixtureScriptsParse(t *testing.T) {
	files := fixtureScripts(t)
	if len(files) < 33 {
		t.Errorf("found %d fixture scripts, want at least 33", len(files))
	}
	kinds := map[string]int{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := Parse(string(src))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(stmts) == 0 {
			t.Errorf("%s: no statements", f)
		}
		for _, st := range stmts {
			switch s := st.(type) {
			case *CreateTable:
				kinds["create"]++
				for _, c := range s.Columns {
					if _, err := schema.ParseDDL(c.Name + " " + c.Type); err != nil {
						t.Errorf("%s: column %s type %q does not round-trip through schema.ParseDDL: %v", f, c.Name, c.Type, err)
					}
				}
			case *Insert:
				kinds["insert"]++
				if len(s.Source.Segments) != len(s.Source.Refs)+1 {
					t.Errorf("%s: malformed SQLText %+v", f, s.Source)
				}
			case *Unsupported:
				kinds[s.Kind]++
			default:
				kinds[typeName(st)]++
			}
		}
	}
	t.Logf("statement kinds across fixtures: %v", kinds)
	for _, want := range []string{"create", "insert", "*parser.Update", "*parser.Delete", "*parser.Call", "*parser.Set", "CREATE INDEX"} {
		if kinds[want] == 0 {
			t.Errorf("no %s statement found in the fixtures", want)
		}
	}
}
