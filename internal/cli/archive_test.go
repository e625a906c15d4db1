package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestArchiveCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	if _, stderr, code := run(t, "create", dir, "--type", "cow", "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city", "--hive-style", "--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	for i := 0; i < 5; i++ {
		in := writeInput(t, fmt.Sprintf(`{"ts":%d,"uuid":"u%d","rider":"r","fare":1.5,"city":"sf"}`, i, i))
		if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in, "--set", "hoodie.archive.automatic=false",
			// archival waits for the metadata table's compaction otherwise
			"--set", "hoodie.metadata.enable=false"); code != 0 {
			t.Fatalf("insert %d: %s", i, stderr)
		}
	}
	bounds := []string{"--set", "hoodie.keep.min.commits=2", "--set", "hoodie.keep.max.commits=3", "--set", "hoodie.cleaner.commits.retained=1"}
	timeline := func() []map[string]any {
		out, stderr, code := run(t, "timeline", dir, "--archived", "--format", "json")
		if code != 0 {
			t.Fatalf("timeline: %s", stderr)
		}
		var es []map[string]any
		if err := json.Unmarshal([]byte(out), &es); err != nil {
			t.Fatal(err)
		}
		return es
	}
	before := timeline()
	var commits []string
	for _, e := range before {
		if e["action"] == "commit" && e["state"] == "completed" {
			commits = append(commits, e["instant"].(string))
		}
	}
	if len(commits) != 5 {
		t.Fatalf("%d commits before archiving", len(commits))
	}

	out, stderr, code := run(t, append([]string{"archive", dir, "--dry-run"}, bounds...)...)
	if code != 0 || !strings.Contains(out, "would archive 3 instants") || !strings.Contains(out, commits[0]) || strings.Contains(out, commits[3]) {
		t.Fatalf("archive --dry-run: exit %d: %s %s", code, out, stderr)
	}
	if len(timeline()) != len(before) {
		t.Fatal("--dry-run changed the timeline")
	}
	out, stderr, code = run(t, append([]string{"archive", dir, "--format", "json"}, bounds...)...)
	if code != 0 {
		t.Fatalf("archive: exit %d: %s", code, stderr)
	}
	var res struct {
		Operation        string `json:"operation"`
		FilesWritten     int    `json:"files_written"`
		Bytes            int64  `json:"bytes"`
		InstantsArchived []struct {
			Instant, Action string
			States          []string
		} `json:"instants_archived"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Operation != "archive" || res.FilesWritten != 1 || res.Bytes <= 0 || len(res.InstantsArchived) != 3 {
		t.Fatalf("archive result %s", out)
	}
	for i, a := range res.InstantsArchived {
		if a.Instant != commits[i] || a.Action != "commit" || strings.Join(a.States, ",") != "requested,inflight,completed" {
			t.Errorf("archived %d: %+v", i, a)
		}
	}
	archived := map[string]bool{}
	for _, e := range timeline() {
		if e["archived"] == true {
			archived[e["instant"].(string)] = true
		}
	}
	if len(archived) != 3 || !archived[commits[0]] || !archived[commits[2]] {
		t.Errorf("timeline --archived: %v", archived)
	}
	out, _, code = run(t, append([]string{"archive", dir}, bounds...)...)
	if code != 0 || !strings.Contains(out, "nothing to archive") {
		t.Errorf("second archive: %d %s", code, out)
	}
	if _, stderr, code := run(t, "archive", dir, "--set", "hoodie.keep.min.commits=5", "--set", "hoodie.keep.max.commits=4"); code != 1 || !strings.Contains(stderr, "hoodie.keep.max.commits=4 must be greater than hoodie.keep.min.commits=5") {
		t.Errorf("bad bounds: exit %d: %s", code, stderr)
	}
	if _, _, code := run(t, "archive", dir, "--format", "yaml"); code != 2 {
		t.Error("bad --format accepted")
	}
}
