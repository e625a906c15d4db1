package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCleanCommand(t *testing.T) {
	dir := createTrips(t)
	noClean := "hoodie.clean.automatic=false"
	for i := 1; i <= 4; i++ {
		in := writeInput(t, fmt.Sprintf(`{"ts":%d,"uuid":"a","rider":"r1","fare":%d.5,"city":"sf"}`, i, i))
		if _, stderr, code := run(t, "write", dir, "--input", in, "--set", noClean); code != 0 {
			t.Fatalf("write %d: %s", i, stderr)
		}
	}
	parquet := func() int {
		n := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".parquet") {
				n++
			}
			return nil
		})
		return n
	}
	if parquet() != 4 {
		t.Fatalf("%d base files before cleaning, want 4", parquet())
	}

	// Defaults keep 10 commits: nothing to do.
	out, stderr, code := run(t, "clean", dir)
	if code != 0 || !strings.Contains(out, "nothing to clean") {
		t.Fatalf("clean with defaults: exit %d: %s %s", code, out, stderr)
	}

	out, stderr, code = run(t, "clean", dir, "--dry-run", "--set", "hoodie.cleaner.commits.retained=1", "--format", "json")
	if code != 0 {
		t.Fatalf("clean --dry-run: exit %d: %s", code, stderr)
	}
	var dry map[string]any
	if err := json.Unmarshal([]byte(out), &dry); err != nil {
		t.Fatal(err)
	}
	if dry["dry_run"] != true || dry["files_deleted"] != 2.0 || len(dry["files"].([]any)) != 2 || dry["action"] != "clean" {
		t.Errorf("dry run: %s", out)
	}
	if parquet() != 4 {
		t.Error("--dry-run deleted files")
	}
	out, _, code = run(t, "clean", dir, "--dry-run", "--set", "hoodie.cleaner.commits.retained=1")
	if code != 0 || !strings.Contains(out, "dry run: would delete 2 files") || !strings.Contains(out, "city=sf/") {
		t.Errorf("dry run text: %s", out)
	}

	out, stderr, code = run(t, "clean", dir, "--set", "hoodie.cleaner.commits.retained=1", "--format", "json")
	if code != 0 {
		t.Fatalf("clean: exit %d: %s", code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	inst, _ := res["instant"].(string)
	if len(inst) != 17 || res["action"] != "clean" || res["operation"] != "clean" || res["files_deleted"] != 2.0 || res["bytes_deleted"].(float64) <= 0 {
		t.Errorf("clean: %s", out)
	}
	if parquet() != 2 {
		t.Errorf("%d base files after cleaning, want 2", parquet())
	}
	for _, f := range []string{".clean.requested", ".clean.inflight", ".clean"} {
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", inst+f)); err != nil {
			t.Errorf("timeline file: %v", err)
		}
	}
	// The timeline shows the clean; time travel before the retention fails clearly.
	if out, _, _ := run(t, "timeline", dir, "--format", "json"); !strings.Contains(out, `"action": "clean"`) {
		t.Errorf("timeline: %s", out)
	}
	if out, stderr, code := run(t, "read", dir, "--as-of", "19990101000000000"); code != 0 {
		t.Errorf("as-of before the table existed: exit %d %s %s", code, out, stderr)
	}
	if _, _, code := run(t, "clean", dir, "--format", "yaml"); code != 2 {
		t.Errorf("bad --format: exit %d, want 2", code)
	}
	if _, stderr, code := run(t, "clean", dir, "--set", "hoodie.cleaner.policy=NOPE"); code == 0 || !strings.Contains(stderr, "hoodie.cleaner.policy") {
		t.Errorf("bad policy: exit %d: %s", code, stderr)
	}
	out, _, code = run(t, "clean", dir, "--set", "hoodie.cleaner.commits.retained=1")
	if code != 0 || !strings.Contains(out, "nothing to clean") {
		t.Errorf("clean again: %s", out)
	}
}
