package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// writeInstant runs `hudi write … --format json` and returns the committed instant.
func writeInstant(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, append([]string{"write", dir, "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("write %v: exit %d: %s", args, code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res["instant"].(string)
}

func TestRollbackCommand(t *testing.T) {
	dir := createTrips(t)
	writeInstant(t, dir, "--op", "insert", "--input", writeInput(t,
		`{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`,
		`{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"nyc"}`))
	before, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta")
	c2 := writeInstant(t, dir, "--input", writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":99.0,"city":"sf"}`))
	c3 := writeInstant(t, dir, "--input", writeInput(t, `{"ts":3,"uuid":"c","rider":"r3","fare":1.0,"city":"la"}`))

	for _, args := range [][]string{
		{"rollback", dir},
		{"rollback", dir, "yesterday"},
		{"rollback", dir, c2, "--format", "yaml"},
		{"rollback", dir, c2, "--bogus"},
	} {
		if _, stderr, code := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
	_, stderr, code := run(t, "rollback", dir, c2)
	if code != ExitRuntime || !strings.Contains(stderr, c3) || !strings.Contains(stderr, "--include-later") {
		t.Errorf("rollback below a later commit: exit %d: %s", code, stderr)
	}
	out, stderr, code := run(t, "rollback", dir, c2, "--include-later", "--format", "json")
	if code != 0 {
		t.Fatalf("rollback --include-later: exit %d: %s", code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	rolled, _ := res["instants_rolled_back"].([]any)
	if res["action"] != "rollback" || res["operation"] != "rollback" || res["instant"] == "" || len(rolled) != 2 ||
		rolled[0] != c3 || rolled[1] != c2 || res["files_deleted"].(float64) != 2 || res["files_written"] != 0.0 {
		t.Errorf("json result: %s", out)
	}
	after, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta")
	if strings.Join(canonicalLines(t, after), "\n") != strings.Join(canonicalLines(t, before), "\n") {
		t.Errorf("rows after rollback:\n%s\nwant\n%s", after, before)
	}
	if _, _, code := run(t, "rollback", dir, c2); code != ExitRuntime {
		t.Errorf("rollback of a rolled-back instant: exit %d", code)
	}
}
