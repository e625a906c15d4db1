package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
)

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &out, &errb, false)
	return out.String(), errb.String(), code
}

// canonicalLines parses JSON lines, drops _hoodie_* keys and re-encodes each object with
// sorted keys, so output and expected files compare as multisets.
func canonicalLines(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		for k := range m {
			if strings.HasPrefix(k, "_hoodie_") {
				delete(m, k)
			}
		}
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func TestReadMatchesSparkExpected(t *testing.T) {
	fx := testutil.FixturesDir(t)
	for _, id := range []string{"cow/v6_nonpartitioned", "mor-parquet/v6_nonpartitioned_rollback", "mor-avro/v9_txns_complex_meta"} {
		t.Run(id, func(t *testing.T) {
			dir := testutil.Table(t, id)
			out, stderr, code := run(t, "read", dir, "--format", "jsonl")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(fx, "expected", id, "snapshot.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			got, exp := canonicalLines(t, out), canonicalLines(t, string(want))
			if strings.Join(got, "\n") != strings.Join(exp, "\n") {
				t.Errorf("snapshot differs:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(exp, "\n"))
			}
		})
	}
}

func TestReadOptions(t *testing.T) {
	dir := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
	out, _, code := run(t, "read", dir, "--format", "jsonl", "--columns", "rider,fare", "--limit", "3")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Errorf("--limit 3 gave %d lines", len(lines))
	}
	for _, l := range lines {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		if len(m) != 2 || m["rider"] == nil || m["fare"] == nil {
			t.Errorf("--columns rider,fare gave %s", l)
		}
	}
	out, _, code = run(t, "read", dir, "--format", "jsonl", "--filter", "fare > 20 and city = 'san_francisco'", "--no-meta")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, l := range canonicalLines(t, out) {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		if m["city"] != "san_francisco" || m["fare"].(float64) <= 20 {
			t.Errorf("filter let through %s", l)
		}
	}
	out, _, code = run(t, "read", dir, "--format", "table", "--columns", "rider,city", "--limit", "2")
	if code != 0 || !strings.Contains(out, "rider") || !strings.Contains(out, "city") {
		t.Errorf("table output (exit %d):\n%s", code, out)
	}
	out, _, code = run(t, "read", dir, "--format", "csv", "--columns", "rider", "--limit", "1")
	if code != 0 || !strings.HasPrefix(out, "rider\n") {
		t.Errorf("csv output (exit %d):\n%s", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	dir := testutil.Table(t, "cow/v6_nonpartitioned")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown flag", []string{"read", dir, "--nope"}, ExitUsage, "unknown flag"},
		{"missing table", []string{"read"}, ExitUsage, "takes 1 argument"},
		{"bad format", []string{"read", dir, "--format", "xml"}, ExitUsage, "--format"},
		{"begin without incremental", []string{"read", dir, "--begin", "20240101000000000"}, ExitUsage, "--incremental"},
		{"unknown command", []string{"frobnicate"}, ExitUsage, "unknown command"},
		{"not a table", []string{"read", t.TempDir()}, ExitRuntime, "not a Hudi table"},
		{"bad instant", []string{"read", dir, "--as-of", "yesterday"}, ExitRuntime, "yesterday"},
		{"bad filter", []string{"read", dir, "--filter", "fare >"}, ExitRuntime, "filter"},
		{"ok", []string{"read", dir, "--format", "jsonl"}, ExitOK, ""},
	}
	for _, tc := range tests {
		_, stderr, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d stderr %q; want exit %d containing %q", tc.name, code, stderr, tc.code, tc.msg)
		}
	}
}

func TestTimelineAndDescribe(t *testing.T) {
	dir := testutil.Table(t, "trips-mor-avro/v8_trips_8i3u1d")
	out, stderr, code := run(t, "timeline", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var entries []TimelineEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no instants")
	}
	for i, e := range entries {
		if i > 0 && entries[i-1].Instant > e.Instant {
			t.Errorf("not sorted at %d", i)
		}
		if e.State == "completed" && e.CompletionTime == "" {
			t.Errorf("v8 completed instant %s has no completion_time", e.Instant)
		}
		if e.Instant == "20251220210129235" && e.Action != "commit" {
			t.Errorf("completed compaction listed as %q, want commit", e.Action)
		}
	}
	out, stderr, code = run(t, "describe", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d Description
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Name != "v8_trips_8i3u1d" || d.Type != "MERGE_ON_READ" || d.Version != 8 || d.FileGroups == 0 || len(d.Schema) != 11 {
		t.Errorf("describe = %+v", d)
	}
	out, _, code = run(t, "describe", dir)
	if code != 0 || !strings.Contains(out, "MERGE_ON_READ") || !strings.Contains(out, "city=") {
		t.Errorf("describe text (exit %d):\n%s", code, out)
	}
	out, _, code = run(t, "timeline", dir)
	if code != 0 || !strings.Contains(out, "deltacommit") {
		t.Errorf("timeline text (exit %d):\n%s", code, out)
	}
}

func TestTimelineArchivedFlag(t *testing.T) {
	dir := testutil.Table(t, "cow/v6_nonpartitioned")
	plain, _, code := run(t, "timeline", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	withArchived, stderr, code := run(t, "timeline", dir, "--format", "json", "--archived")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The fixture has an empty .hoodie/archived folder: the same instants, none archived.
	if plain != withArchived || strings.Contains(withArchived, `"archived"`) {
		t.Errorf("--archived on a table without archived instants:\n%s\nvs\n%s", withArchived, plain)
	}
}
