package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClusterCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	if _, stderr, code := run(t, "create", dir, "--type", "cow", "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city", "--hive-style", "--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	for _, l := range []string{
		`{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`,
		`{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"sf"}`,
		`{"ts":1,"uuid":"c","rider":"r3","fare":30.0,"city":"nyc"}`,
	} {
		if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", writeInput(t, l), "--set", "hoodie.parquet.small.file.limit=0"); code != 0 {
			t.Fatalf("insert: %s", stderr)
		}
	}
	before, _, _ := run(t, "read", dir, "--format", "jsonl")
	timeline := func() []string {
		entries, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	tl := strings.Join(timeline(), " ")

	// --dry-run prints the plan and writes nothing.
	out, stderr, code := run(t, "cluster", dir, "--dry-run", "--format", "json")
	if code != 0 {
		t.Fatalf("cluster --dry-run: exit %d: %s", code, stderr)
	}
	var dry struct {
		Plan struct {
			Groups []struct {
				Partition string   `json:"partition"`
				FileIDs   []string `json:"file_ids"`
			} `json:"groups"`
		} `json:"plan"`
		Completed bool `json:"completed"`
	}
	if err := json.Unmarshal([]byte(out), &dry); err != nil {
		t.Fatal(err)
	}
	if len(dry.Plan.Groups) != 2 || dry.Plan.Groups[0].Partition != "city=nyc" || len(dry.Plan.Groups[1].FileIDs) != 2 || dry.Completed {
		t.Errorf("dry run: %s", out)
	}
	if got := strings.Join(timeline(), " "); got != tl {
		t.Errorf("dry run changed the timeline:\n%s\n%s", tl, got)
	}
	out, _, code = run(t, "cluster", dir, "--dry-run")
	if code != 0 || !strings.Contains(out, "would schedule") || !strings.Contains(out, "partition city=sf, 2 file groups") {
		t.Errorf("dry run text: %s", out)
	}

	// Neither flag: schedule and run.
	out, stderr, code = run(t, "cluster", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("cluster: exit %d: %s", code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["action"] != "replacecommit" || res["operation"] != "cluster" || res["files_written"] != 2.0 || res["bytes"].(float64) <= 0 || res["instant"] == "" || res["completed"] != true {
		t.Errorf("cluster: %s", out)
	}
	after, _, _ := run(t, "read", dir, "--format", "jsonl")
	// _hoodie_file_name changes; everything else, commit times included, stays.
	dropFile := func(lines []string) string {
		var out []string
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "_hoodie_file_name")
			b, _ := json.Marshal(m)
			out = append(out, string(b))
		}
		return strings.Join(out, "\n")
	}
	if dropFile(canonicalLines(t, after)) != dropFile(canonicalLines(t, before)) {
		t.Errorf("rows changed by clustering:\nbefore %s\nafter %s", before, after)
	}
	tlOut, _, _ := run(t, "timeline", dir, "--format", "json")
	if !strings.Contains(tlOut, `"replacecommit"`) {
		t.Errorf("timeline: %s", tlOut)
	}

	// Single-file groups are not worth it when single-group clustering is off.
	out, _, code = run(t, "cluster", dir, "--set", "hoodie.clustering.plan.strategy.single.group.clustering.enabled=false")
	if code != 0 || !strings.Contains(out, "nothing to cluster") {
		t.Errorf("cluster with nothing to do: exit %d: %s", code, out)
	}
	// --schedule then --run.
	out, _, code = run(t, "cluster", dir, "--schedule")
	if code != 0 || !strings.Contains(out, "scheduled clustering") {
		t.Errorf("cluster --schedule: %s", out)
	}
	out, _, code = run(t, "cluster", dir, "--run")
	if code != 0 || !strings.Contains(out, "clustered: instant") {
		t.Errorf("cluster --run: %s", out)
	}
	if _, _, code := run(t, "cluster", dir, "--format", "yaml"); code != 2 {
		t.Errorf("bad --format: exit %d", code)
	}
	if _, _, code := run(t, "cluster", dir, "--dry-run", "--run"); code != 2 {
		t.Errorf("--dry-run --run: exit %d", code)
	}
	if _, stderr, code := run(t, "cluster", dir, "--set", "hoodie.clustering.plan.strategy.class=com.example.Mine"); code != 1 || !strings.Contains(stderr, "size-based") {
		t.Errorf("unsupported plan strategy: exit %d: %s", code, stderr)
	}
}
