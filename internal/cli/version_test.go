package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI contract on table versions 8 and 9: `create --table-version`, `write`, `read`
// (snapshot, time travel, incremental) and `timeline --format json`, whose completed
// instants carry completion times. Time travel and incremental reads take requested instant
// times, as on Spark's v8/v9 tables; the reader resolves them through completion times.
func TestCreateWriteReadVersions(t *testing.T) {
	for _, v := range []string{"8", "9"} {
		t.Run("v"+v, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			if _, stderr, code := run(t, "create", dir, "--table-version", v, "--record-key", "id", "--precombine", "ts",
				"--partition-by", "p", "--schema", "id STRING, ts BIGINT, v DOUBLE, p STRING"); code != 0 {
				t.Fatalf("create: exit %d: %s", code, stderr)
			}
			props, _ := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
			if !strings.Contains(string(props), "hoodie.table.version="+v+"\n") || !strings.Contains(string(props), "hoodie.timeline.layout.version=2\n") {
				t.Fatalf("hoodie.properties:\n%s", props)
			}
			write := func(lines string) {
				t.Helper()
				in := filepath.Join(t.TempDir(), "in.jsonl")
				os.WriteFile(in, []byte(lines), 0o644)
				if _, stderr, code := run(t, "write", dir, "--input", in); code != 0 {
					t.Fatalf("write: exit %d: %s", code, stderr)
				}
			}
			write(`{"id":"a","ts":1,"v":1.5,"p":"x"}` + "\n" + `{"id":"b","ts":1,"v":2.5,"p":"y"}` + "\n")
			// Event-time ordering (the default with a precombine field): a's older ts loses.
			write(`{"id":"a","ts":0,"v":9.5,"p":"x"}` + "\n" + `{"id":"b","ts":2,"v":3.5,"p":"y"}` + "\n")
			out, stderr, code := run(t, "timeline", dir, "--format", "json")
			if code != 0 {
				t.Fatalf("timeline: exit %d: %s", code, stderr)
			}
			var entries []TimelineEntry
			if err := json.Unmarshal([]byte(out), &entries); err != nil {
				t.Fatal(err)
			}
			if len(entries) != 2 {
				t.Fatalf("timeline: %s", out)
			}
			for _, e := range entries {
				if e.State != "completed" || e.CompletionTime < e.Instant || len(e.CompletionTime) != 17 {
					t.Errorf("instant %s: state %s, completion time %q", e.Instant, e.State, e.CompletionTime)
				}
			}
			c1, c2 := entries[0].Instant, entries[1].Instant
			for _, tc := range []struct {
				args []string
				want []string
			}{
				{nil, []string{`{"id":"a","p":"x","ts":1,"v":1.5}`, `{"id":"b","p":"y","ts":2,"v":3.5}`}},
				{[]string{"--as-of", c1}, []string{`{"id":"a","p":"x","ts":1,"v":1.5}`, `{"id":"b","p":"y","ts":1,"v":2.5}`}},
				{[]string{"--incremental", "--begin", c1, "--end", c2}, []string{`{"id":"b","p":"y","ts":2,"v":3.5}`}},
			} {
				out, stderr, code := run(t, append([]string{"read", dir, "--format", "jsonl"}, tc.args...)...)
				if code != 0 {
					t.Fatalf("read %v: exit %d: %s", tc.args, code, stderr)
				}
				if got := strings.Join(canonicalLines(t, out), "\n"); got != strings.Join(tc.want, "\n") {
					t.Errorf("read %v:\n got %s\nwant %s", tc.args, got, strings.Join(tc.want, "\n"))
				}
			}
		})
	}
}
