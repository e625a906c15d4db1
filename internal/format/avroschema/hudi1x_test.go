package avroschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
)

// hudi1x pairs the schemas hudi-go writes on timeline layout 2 with Hudi 1.x's forms in
// testdata/hudi1x (see its README for the sources).
var hudi1x = []struct {
	r    Record
	file string
}{
	{RollbackPlan, "HoodieRollbackPlan.avsc"},
	{RollbackMetadata, "HoodieRollbackMetadata.avsc"},
	{LSMTimelineInstant, "HoodieLSMTimelineInstant.avsc"},
}

// TestLayoutTwoSchemasAreHudi1x: every record hudi-go writes into a layout-2 timeline
// file without a Spark-written fixture to copy has, field by field, Hudi 1.x's form: the
// same Parsing Canonical Form (names, order, types, union branch order) and the same
// defaults. For the rollback plan and metadata this pins that Hudi 1.x did not change
// them since 0.14.1 (the v6 fixture's schemas, which hudi-go writes on both layouts).
func TestLayoutTwoSchemasAreHudi1x(t *testing.T) {
	for _, c := range hudi1x {
		t.Run(string(c.r), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "hudi1x", c.file))
			if err != nil {
				t.Fatal(err)
			}
			ours, err := avro.Parse(c.r.JSON())
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := avro.Parse(string(want))
			if err != nil {
				t.Fatal(err)
			}
			if got, w := ours.Canonical(), theirs.Canonical(); got != w {
				t.Errorf("canonical form\n got %s\nwant %s", got, w)
			}
			if got, w := fieldDefaults(t, c.r.JSON()), fieldDefaults(t, string(want)); !reflect.DeepEqual(got, w) {
				t.Errorf("defaults\n got %v\nwant %v", got, w)
			}
		})
	}
}

// fieldDefaults maps "Record.field" to the JSON of its default ("" for none) for every
// record defined in the schema.
func fieldDefaults(t *testing.T, schema string) map[string]string {
	t.Helper()
	var root any
	if err := json.Unmarshal([]byte(schema), &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n any)
	walk = func(n any) {
		switch v := n.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			if v["type"] == "record" {
				name, _ := v["name"].(string)
				fields, _ := v["fields"].([]any)
				for _, f := range fields {
					fm, _ := f.(map[string]any)
					d := ""
					if dv, ok := fm["default"]; ok {
						b, _ := json.Marshal(dv)
						d = string(b)
					}
					out[name+"."+fm["name"].(string)] = d
					walk(fm["type"])
				}
				return
			}
			walk(v["type"])
			walk(v["items"])
			walk(v["values"])
		}
	}
	walk(root)
	return out
}
