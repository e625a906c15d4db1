package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompactCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	if _, stderr, code := run(t, "create", dir, "--type", "mor", "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city", "--hive-style", "--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	in := writeInput(t,
		`{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`,
		`{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"nyc"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in); code != 0 {
		t.Fatalf("insert: %s", stderr)
	}
	if _, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":99.0,"city":"sf"}`)); code != 0 {
		t.Fatalf("upsert: %s", stderr)
	}
	before, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta")

	out, stderr, code := run(t, "compact", dir, "--schedule", "--format", "json")
	if code != 0 || !strings.Contains(out, `"scheduled":"`) || strings.Contains(out, `"completed":true`) {
		t.Fatalf("compact --schedule: exit %d: %s %s", code, out, stderr)
	}
	out, stderr, code = run(t, "compact", dir, "--run", "--format", "json")
	if code != 0 {
		t.Fatalf("compact --run: exit %d: %s", code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["action"] != "commit" || res["operation"] != "compact" || res["files_written"] != 1.0 || res["bytes"].(float64) <= 0 || res["instant"] == "" {
		t.Errorf("compact --run: %s", out)
	}
	after, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta")
	ro, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--read-optimized")
	if strings.Join(canonicalLines(t, after), "\n") != strings.Join(canonicalLines(t, before), "\n") ||
		strings.Join(canonicalLines(t, ro), "\n") != strings.Join(canonicalLines(t, before), "\n") {
		t.Errorf("rows changed by compaction:\nbefore %s\nafter %s\nro %s", before, after, ro)
	}
	out, stderr, code = run(t, "compact", dir)
	if code != 0 || !strings.Contains(out, "nothing to compact") {
		t.Errorf("compact with nothing to do: exit %d: %s %s", code, out, stderr)
	}
	// With nothing to do, JSON says so and has no empty instant.
	out, stderr, code = run(t, "compact", dir, "--format", "json")
	if code != 0 || strings.Contains(out, `"instant"`) || !strings.Contains(out, `"message":"nothing to compact`) || strings.Contains(out, `"action"`) || !strings.Contains(out, `"completed":false`) {
		t.Errorf("compact --format json with nothing to do: exit %d: %s %s", code, out, stderr)
	}
	if _, _, code := run(t, "compact", dir, "--format", "yaml"); code == 0 {
		t.Error("bad --format accepted")
	}
}
