package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
)

// TestTiny runs every workload at a tiny size (5k rows, one pair, the scaling cases too)
// so the command keeps building and its correctness checks keep passing. It says nothing
// about speed. It is a check of the harness, not of concurrency: under the race detector
// it skips (94 s there) and scripts/test runs it in its no-race phase.
func TestTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload once (~20 s)")
	}
	if testutil.Race {
		t.Skip("runs without -race in scripts/test's no-race phase")
	}
	cfg := Config{Short: true, ForceScaling: true, Rows: 5_000, Pairs: 1, Commits: 6, CommitRows: 50, Seed: 7,
		PlanSizes: [][2]int{{20, 200}}, Lookups: 2, Dir: t.TempDir()}
	cfg.defaults()
	var log bytes.Buffer
	cfg.Log = &log
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	want := map[string]bool{"W1": false, "W2": false, "W3": false, "W4": false, "W6": false, "W8": false, "W9": false, "W11": false}
	if os.Getenv("HUDI_TEST_S3") != "" {
		want["W10"] = false // an S3 server to run against (CI starts versitygw)
	}
	for _, res := range rep.Ratios {
		want[res.Workload] = true
		if len(res.Ratios) != 1 || res.Median <= 0 {
			t.Errorf("%s %s: ratios %v", res.Workload, res.Case, res.Ratios)
		}
	}
	for w, ok := range want {
		if !ok {
			t.Errorf("no ratio from %s", w)
		}
	}
	abs := map[string]bool{}
	for _, a := range rep.Absolute {
		abs[a.Workload] = true
		// The scan of a table on S3 makes one GET per base file: the size comes from the
		// listing, not from a HEAD per file (storage.OpenSized).
		if a.Workload == "W10" && strings.HasPrefix(a.Case, "requests to scan") && strings.Contains(a.Note, "HeadObject") {
			t.Errorf("W10 %s: %s (a HEAD per base file)", a.Case, a.Note)
		}
	}
	if !abs["W5"] || !abs["W7"] {
		t.Errorf("absolute figures from %v, want W5 and W7", abs)
	}
	var out bytes.Buffer
	rep.PrintTable(&out)
	t.Logf("log:\n%s\ntable:\n%s", log.String(), out.String())
	if !strings.Contains(out.String(), "bulk_insert trips") {
		t.Errorf("table:\n%s", out.String())
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
}
