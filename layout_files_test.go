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
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/testutil"
)

// instantFilesV2 maps the timeline files of one instant of a layout-2 table by their kind:
// "requested", "inflight", "completed".
func instantFilesV2(t *testing.T, dir, instant string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".hoodie", "timeline"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, instant) {
			continue
		}
		p := filepath.Join(dir, ".hoodie", "timeline", n)
		switch {
		case strings.HasSuffix(n, ".requested"):
			out["requested"] = p
		case strings.HasSuffix(n, ".inflight"):
			out["inflight"] = p
		case strings.HasPrefix(n, instant+"_"):
			out["completed"] = p
		}
	}
	return out
}

// shape describes an Avro datum as Spark's and ours must agree on it: every field path
// with whether it is null (write stats are described once per kind: a stat that updated
// an existing file group, one that created a new one).
func shape(t *testing.T, path string) (schema string, fields []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, vals, err := avro.ReadContainer(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	seen := map[string]bool{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(p+"/"+k, c)
			}
		case []any:
			if len(x) == 0 {
				seen[p+"=empty"] = true
			} else {
				walk(p+"[]", x[0])
			}
		case nil:
			seen[p+"=null"] = true
		default:
			seen[p+"=set"] = true
		}
	}
	top := vals[0].(map[string]any)
	for k, v := range top {
		switch k {
		case "partitionToWriteStats":
			for _, stats := range v.(map[string]any) {
				for _, st := range stats.([]any) {
					m := st.(map[string]any)
					kind := "merge" // a base file rewritten
					switch {
					case m["logVersion"] != nil:
						kind = "log"
					case m["prevCommit"] == "null":
						kind = "insert"
					}
					walk("stat("+kind+")", m)
				}
			}
		case "extraMetadata":
			// The writer schema only: Spark SQL adds keys of its own
			// (_hoodie.spark.sql.writes.prepped).
			m, _ := v.(map[string]any)
			_, has := m["schema"]
			seen[fmt.Sprintf("extraMetadata/schema=%v", has)] = true
		default:
			walk(k, v)
		}
	}
	for f := range seen {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return s, fields
}

// Our layout-2 instant files have the structure of Spark's (Hudi 1.x): an upsert that
// updates stored rows and inserts one, written onto a copy of a Spark-written v8 and v9
// table, leaves a requested file (empty, as Spark's), an inflight file and a completed
// "<requested>_<completion>.commit" whose writer schemas are Spark's byte for byte and whose
// fields are set or null exactly where Spark's last upsert's are.
func TestLayoutTwoInstantFilesMatchSpark(t *testing.T) {
	compared := map[string]bool{}
	defer func() {
		for _, k := range []string{"merge", "log"} {
			if !compared[k] {
				t.Errorf("no Spark commit with a %s stat was compared", k)
			}
		}
	}()
	for _, tc := range []struct{ id, key, mutate, sparkUpsert, sparkCompaction string }{
		{"cow/v8_simplekeygen_nonhivestyle", "id", "name", "20250713011316909", ""},
		{"cow/v9_txns_simple_nometa", "txn_id", "merchant_name", "", ""},
		// Merge-on-read: the deltacommit of an update (log files named by the deltacommit)
		// and the compaction's plan and commit, against Spark's.
		{"trips-mor-avro/v8_trips_8i3u1d", "uuid", "rider", "20251220210123755", "20251220210129235"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			ctx := context.Background()
			dir := testutil.Table(t, tc.id)
			spark := tc.sparkUpsert
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if spark == "" {
				spark = latestDataInstant(t, tb)
			}
			sparkFiles := instantFilesV2(t, dir, spark)
			model := readRows(t, tb, tc.key)
			var in []row
			for _, r := range model {
				u := row{}
				for c, v := range r {
					u[c] = v
				}
				u[tc.mutate] = "changed"
				in = append(in, u)
			}
			n := row{}
			for c, v := range in[0] {
				n[c] = v
			}
			n[tc.key] = json.Number("987654")
			if _, ok := in[0][tc.key].(string); ok {
				n[tc.key] = "new-987654"
			}
			in = append(in, n)
			res, err := tb.Write(ctx, batchesOf(t, tb, in), hudi.WriteOptions{Operation: "upsert"})
			if err != nil {
				t.Fatal(err)
			}
			ours := instantFilesV2(t, dir, res.Instant)
			for _, kind := range []string{"requested", "inflight", "completed"} {
				if ours[kind] == "" || sparkFiles[kind] == "" {
					t.Fatalf("%s file: ours %q, Spark's %q", kind, ours[kind], sparkFiles[kind])
				}
			}
			if b, _ := os.ReadFile(ours["requested"]); len(b) != 0 {
				t.Errorf("requested file has %d bytes; Spark's is empty", len(b))
			}
			done, action := filepath.Base(ours["completed"]), filepath.Ext(sparkFiles["completed"])
			if want := res.Instant + "_"; !strings.HasPrefix(done, want) || filepath.Ext(done) != action || len(done) != len("20250713011316909_20250713011317225")+len(action) {
				t.Errorf("completed file %s: want %s<completion>%s", done, want, action)
			}
			compare := func(kind, ours, spark string) {
				t.Helper()
				gs, gf := shape(t, ours)
				ws, wf := shape(t, spark)
				if gs != ws {
					t.Errorf("%s: writer schema differs from Spark's", kind)
				}
				// Write stats are compared for the kinds (update, insert) both files have.
				g, w := common(gf, wf), common(wf, gf)
				if strings.Join(g, "\n") != strings.Join(w, "\n") {
					t.Errorf("%s: fields differ from Spark's\n got:\n%s\nwant:\n%s", kind, strings.Join(g, "\n"), strings.Join(w, "\n"))
				}
				if strings.Contains(kind, "commit") || kind == "completed" {
					for _, k := range strings.Split(kindsOf(g), ",") {
						compared[k] = true
					}
				}
			}
			for _, kind := range []string{"inflight", "completed"} {
				compare(kind, ours[kind], sparkFiles[kind])
			}
			if tc.sparkCompaction == "" {
				return
			}
			cres, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true})
			if err != nil {
				t.Fatal(err)
			}
			oc, sc := instantFilesV2(t, dir, cres.Instant), instantFilesV2(t, dir, tc.sparkCompaction)
			if !strings.HasSuffix(oc["requested"], ".compaction.requested") || !strings.HasSuffix(oc["completed"], ".commit") {
				t.Fatalf("compaction files %v", oc)
			}
			compare("compaction plan", oc["requested"], sc["requested"])
			compare("compaction commit", oc["completed"], sc["completed"])
		})
	}
}

// common keeps the fields of a that are not write-stat fields of a kind b lacks.
func common(a, b []string) []string {
	kinds := kindsOf(b)
	var out []string
	for _, f := range a {
		if strings.HasPrefix(f, "stat(") && !strings.Contains(kinds, f[len("stat("):strings.IndexByte(f, ')')]) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// kindsOf lists the write-stat kinds among fields, sorted and comma-separated.
func kindsOf(fields []string) string {
	set := map[string]bool{}
	for _, f := range fields {
		if strings.HasPrefix(f, "stat(") {
			set[f[len("stat("):strings.IndexByte(f, ')')]] = true
		}
	}
	var ks []string
	for k := range set {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}
