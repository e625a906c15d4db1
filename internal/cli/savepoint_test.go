package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSavepointCommand(t *testing.T) {
	dir := createTrips(t)
	c1 := writeInstant(t, dir, "--op", "insert", "--input", writeInput(t,
		`{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`,
		`{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"nyc"}`))
	at1, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta")
	for _, args := range [][]string{
		{"savepoint", dir, "create"},
		{"savepoint", dir, "merge", c1},
		{"savepoint", dir, "create", "12"},
		{"savepoint", dir, "create", c1, "--format", "xml"},
	} {
		if _, stderr, code := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
	out, stderr, code := run(t, "savepoint", dir, "create", c1, "--format", "json", "--user", "bob")
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	var res map[string]any
	json.Unmarshal([]byte(out), &res)
	if res["instant"] != c1 || res["action"] != "savepoint" || res["operation"] != "create" || res["files"] != 2.0 {
		t.Errorf("create result: %s", out)
	}
	if _, _, code := run(t, "rollback", dir, c1); code != ExitRuntime {
		t.Errorf("rollback of a savepointed commit: exit %d", code)
	}
	writeInstant(t, dir, "--input", writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":99.0,"city":"sf"}`))
	writeInstant(t, dir, "--op", "delete", "--input", writeInput(t, `{"uuid":"b","city":"nyc"}`))
	out, stderr, code = run(t, "savepoint", dir, "restore", c1, "--format", "json")
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, stderr)
	}
	res = nil
	json.Unmarshal([]byte(out), &res)
	if rolled, _ := res["instants_rolled_back"].([]any); res["action"] != "restore" || res["savepoint"] != c1 || len(rolled) != 2 {
		t.Errorf("restore result: %s", out)
	}
	after, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta")
	if strings.Join(canonicalLines(t, after), "\n") != strings.Join(canonicalLines(t, at1), "\n") {
		t.Errorf("rows after restore:\n%s\nwant\n%s", after, at1)
	}
	if out, _, code := run(t, "savepoint", dir, "delete", c1); code != 0 || !strings.Contains(out, "deleted") {
		t.Errorf("delete: exit %d: %s", code, out)
	}
	if _, _, code := run(t, "savepoint", dir, "delete", c1); code != ExitRuntime {
		t.Errorf("delete of a missing savepoint: exit %d", code)
	}
	if _, _, code := run(t, "savepoint", dir, "restore", c1); code != ExitRuntime {
		t.Errorf("restore to a missing savepoint: exit %d", code)
	}
}
