package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/testutil"
)

// orderedKeys lists the keys of a JSON object in file order.
func orderedKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestInflightProfileMatchesJava compares, field by field, the inflight file of an upsert
// (one update, one insert) with the one Java 0.14 wrote for the same kind of upsert in the
// Spark fixture cow/v6_nonpartitioned (20240418173551906.inflight, the workload profile of
// BaseCommitActionExecutor.saveWorkloadProfileMetadataToInflight): the same fields in the
// same order; per partition a first stat with fileId "" and prevCommit "null" counting the
// inserts, then one per updated file group with its slice's instant as prevCommit.
//
// The merge-on-read case compares a deltacommit's inflight file with
// mor-parquet/v6_nonpartitioned's 20250117083136333.deltacommit.inflight the same way.
func TestInflightProfileMatchesJava(t *testing.T) {
	for _, tc := range []struct{ fixture, javaInflight, suffix string }{
		{"cow/v6_nonpartitioned", "20240418173551906.inflight", ".inflight"},
		{"mor-parquet/v6_nonpartitioned", "20250117083136333.deltacommit.inflight", ".deltacommit.inflight"},
	} {
		t.Run(tc.fixture, func(t *testing.T) { inflightProfileMatchesJava(t, tc.fixture, tc.javaInflight, tc.suffix) })
	}
}

// latestBaseInstant is the instant of the newest base file of file group id in dir older
// than before (the write's own instant).
func latestBaseInstant(t *testing.T, dir, id, before string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	latest := ""
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, id+"_") && strings.HasSuffix(n, ".parquet") {
			inst := strings.TrimSuffix(n[strings.LastIndex(n, "_")+1:], ".parquet")
			if inst < before {
				latest = max(latest, inst)
			}
		}
	}
	return latest
}

func inflightProfileMatchesJava(t *testing.T, fixture, javaInflight, suffix string) {
	ctx := context.Background()
	dir := testutil.Table(t, fixture)
	java, err := os.ReadFile(filepath.Join(dir, ".hoodie", javaInflight))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	model := readRows(t, tb, "id")
	var upd row
	for _, r := range model {
		upd = row{}
		for c, v := range r {
			upd[c] = v
		}
		break
	}
	upd["name"] = "updated"
	ins := row{}
	for c, v := range upd {
		ins[c] = v
	}
	ins["id"] = json.Number("99")
	res, err := tb.Write(ctx, batchesOf(t, tb, []row{upd, ins}), hudi.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+suffix))
	if err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Stats map[string][]json.RawMessage `json:"partitionToWriteStats"`
		Rest  map[string]json.RawMessage   `json:"-"`
	}
	parse := func(b []byte) (top []string, stats []map[string]any, statKeys [][]string, all map[string]any) {
		top = orderedKeys(t, b)
		var d doc
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatal(err)
		}
		for _, raw := range d.Stats[""] {
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			stats = append(stats, m)
			statKeys = append(statKeys, orderedKeys(t, raw))
		}
		return
	}
	jTop, jStats, jKeys, jAll := parse(java)
	oTop, oStats, oKeys, oAll := parse(ours)
	if !reflect.DeepEqual(jTop, oTop) {
		t.Errorf("top-level fields %v, Java %v", oTop, jTop)
	}
	for _, k := range []string{"compacted", "extraMetadata", "operationType"} {
		if !reflect.DeepEqual(jAll[k], oAll[k]) {
			t.Errorf("%s = %v, Java %v", k, oAll[k], jAll[k])
		}
	}
	if len(oStats) != 2 || len(jStats) != 2 {
		t.Fatalf("stats: ours %d, Java %d; want an insert stat and an update stat\nours: %s", len(oStats), len(jStats), ours)
	}
	for i := range 2 {
		if !reflect.DeepEqual(oKeys[i], jKeys[i]) {
			t.Errorf("stat %d fields %v, Java %v", i, oKeys[i], jKeys[i])
		}
		for k, jv := range jStats[i] {
			switch k {
			case "fileId", "prevCommit":
				continue // checked below
			}
			if !reflect.DeepEqual(oStats[i][k], jv) {
				t.Errorf("stat %d %s = %v, Java %v", i, k, oStats[i][k], jv)
			}
		}
	}
	if oStats[0]["fileId"] != "" || oStats[0]["prevCommit"] != "null" {
		t.Errorf("insert stat fileId/prevCommit = %v/%v, want \"\"/null", oStats[0]["fileId"], oStats[0]["prevCommit"])
	}
	// The update stat names the updated file group and its latest slice's instant, as
	// Java's names the group it updated and the instant of its base file.
	fid, _ := oStats[1]["fileId"].(string)
	if want := latestBaseInstant(t, dir, fid, res.Instant); want == "" || oStats[1]["prevCommit"] != want {
		t.Errorf("update stat fileId %q prevCommit %v, want an existing file group and its latest base instant %q", fid, oStats[1]["prevCommit"], want)
	}
	if !strings.Contains(string(ours), `"operationType" : "UPSERT"`) {
		t.Errorf("operationType: %s", ours)
	}
}
