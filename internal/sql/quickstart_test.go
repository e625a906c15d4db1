package sql

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestQuickstart runs `hudi quickstart`'s flow and checks what it prints after each step.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	err := Quickstart(context.Background(), Options{Warehouse: t.TempDir(), TimeZone: "UTC"}, &out, FormatTable)
	if err != nil {
		t.Fatalf("%v\noutput so far:\n%s", err, out.String())
	}
	// One block per step: the echoed statement, then its result.
	blocks := strings.Split(out.String(), "\nhudi-sql> ")[1:]
	if len(blocks) != len(quickstartSteps) {
		t.Fatalf("%d steps printed, want %d:\n%s", len(blocks), len(quickstartSteps), out.String())
	}
	step := func(prefix string, n int) string {
		t.Helper()
		for _, b := range blocks {
			if strings.HasPrefix(b, prefix) {
				if n == 0 {
					return b
				}
				n--
			}
		}
		t.Fatalf("no step %q", prefix)
		return ""
	}
	rowOf := func(block, rider string) string {
		for _, l := range strings.Split(block, "\n") {
			// Cells are right-aligned: compare without the padding.
			if l = strings.ReplaceAll(l, " ", ""); strings.Contains(l, "|"+rider+"|") {
				return l
			}
		}
		return ""
	}
	expect := func(cond bool, format string, args ...any) {
		t.Helper()
		if !cond {
			t.Errorf(format, args...)
		}
	}
	b := step("INSERT INTO trips", 0)
	expect(strings.Contains(b, "5 row(s) affected") && strings.Contains(b, "(upsert)"), "insert: %s", b)
	b = step("SELECT uuid, fare", 0)
	expect(strings.Contains(b, "(3 rows)") && rowOf(b, "rider-A") == "" && rowOf(b, "rider-J") == "", "fare > 20: %s", b)
	b = step("UPDATE trips", 0)
	expect(strings.Contains(b, "1 row(s) affected"), "update: %s", b)
	b = step("SELECT _hoodie_commit_time, _hoodie_record_key", 1)
	expect(strings.Contains(rowOf(b, "rider-D"), "|339.0|"), "rider-D after the update: %q", rowOf(b, "rider-D"))
	expect(strings.Contains(b, "(5 rows)"), "rows after the update: %s", b)
	b = step("MERGE INTO trips", 0)
	expect(strings.Contains(b, "(2 updated, 2 inserted, 0 deleted)"), "merge: %s", b)
	b = step("SELECT _hoodie_commit_time, rider", 0) // after MERGE
	expect(strings.Contains(b, "(7 rows)"), "rows after the merge: %s", b)
	expect(strings.Contains(rowOf(b, "rider-C"), "|25.0|"), "rider-C after the merge: %q", rowOf(b, "rider-C"))
	expect(strings.Contains(rowOf(b, "rider-J"), "|19.70"), "rider-J after the merge: %q", rowOf(b, "rider-J"))
	expect(strings.Contains(rowOf(b, "rider-K"), "|64.2|") && strings.Contains(rowOf(b, "rider-H"), "|66.6|"), "inserted riders: %s", b)
	expect(strings.Contains(rowOf(b, "rider-D"), "|339.0|"), "rider-D after the merge: %q", rowOf(b, "rider-D"))
	b = step("DELETE FROM trips", 0)
	expect(strings.Contains(b, "1 row(s) affected") && strings.Contains(b, "(delete)"), "delete: %s", b)
	b = step("SELECT _hoodie_commit_time, rider", 1) // after DELETE
	expect(strings.Contains(b, "(6 rows)") && rowOf(b, "rider-F") == "", "rider-F should be gone: %s", b)
	b = step("CALL show_commits", 0)
	expect(strings.Contains(b, "(4 rows)"), "show_commits: %s", b)
	first := regexp.MustCompile(`TIMESTAMP AS OF '(\d{17})'`).FindStringSubmatch(step("SELECT _hoodie_commit_time, rider", 2))
	if first == nil {
		t.Fatalf("no time travel step:\n%s", out.String())
	}
	lines := strings.Split(strings.TrimSpace(b), "\n")
	expect(len(lines) > 3 && strings.Contains(lines[len(lines)-3], first[1]), "time travel goes to the oldest commit %s: %s", first[1], b)
	b = step("SELECT _hoodie_commit_time, rider", 2) // time travel
	expect(strings.Contains(b, "(5 rows)") && strings.Contains(rowOf(b, "rider-D"), "|33.9|") && rowOf(b, "rider-F") != "",
		"time travel to the first commit: %s", b)
	b = step("SELECT _hoodie_commit_time, rider", 3) // incremental
	expect(strings.Contains(b, "(5 rows)") && rowOf(b, "rider-A") == "" && rowOf(b, "rider-F") == "" && rowOf(b, "rider-K") != "",
		"changes since the first commit: %s", b)
	if t.Failed() {
		t.Logf("output:\n%s", out.String())
	}
}
