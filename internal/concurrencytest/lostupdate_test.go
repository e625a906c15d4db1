//go:build unix

package concurrencytest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// writerRun is one writer of a concurrent round: the keys it upserts and the rider value
// it gives them.
type writerRun struct {
	rider string
	rows  []inputRow
	p     *proc
}

// runWriters starts every writer's `hudi write --op upsert` at once and waits for all.
func runWriters(t *testing.T, table string, ws []*writerRun, sets ...string) {
	t.Helper()
	for i, w := range ws {
		in := filepath.Join(t.TempDir(), fmt.Sprintf("w%d.jsonl", i))
		writeInput(t, in, w.rows)
		args := []string{"write", table, "--op", "upsert", "--input", in, "--format", "json"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		p, err := start(w.rider, args...)
		if err != nil {
			t.Fatal(err)
		}
		w.p = p
	}
	for _, w := range ws {
		_ = w.p.wait()
	}
}

// checkWriters checks what the writers' outcomes promise: a writer that exited 0 reported
// every row it updated, and each of them reads back with its value; a writer that failed
// left none of its values. It returns how many writers committed.
func checkWriters(t *testing.T, table string, ws []*writerRun) int {
	t.Helper()
	got, err := readTable(table)
	if err != nil {
		t.Fatalf("the table does not read after the concurrent writes: %v", err)
	}
	committed := 0
	for _, w := range ws {
		if w.p.err == nil {
			committed++
			res, err := w.p.result()
			if err != nil {
				t.Fatalf("writer %s: result %q: %v", w.rider, w.p.stdout.String(), err)
			}
			if res.Records.Updated != int64(len(w.rows)) {
				t.Errorf("writer %s reported %d updated, want %d", w.rider, res.Records.Updated, len(w.rows))
			}
			lost := 0
			for _, r := range w.rows {
				if got[r.UUID]["rider"] != w.rider {
					lost++
				}
			}
			if lost > 0 {
				t.Errorf("writer %s exited 0 (instant %s, %d updated) but %d of its %d updates are not in the table (lost update)",
					w.rider, res.Instant, res.Records.Updated, lost, len(w.rows))
			}
			continue
		}
		seen := 0
		for _, r := range w.rows {
			if got[r.UUID]["rider"] == w.rider {
				seen++
			}
		}
		if seen > 0 {
			t.Errorf("writer %s failed (%v: %s) but %d of its updates are in the table", w.rider, w.p.err,
				strings.TrimSpace(w.p.stderr.String()), seen)
		}
	}
	if len(got) == 0 {
		t.Errorf("the table is empty after the concurrent writes")
	}
	return committed
}

// TestSingleWriterModeLosesNoUpdate starts two upserts at once on one file group in the
// default single-writer mode, each updating its own keys: both must end with every update
// they acknowledged visible (the second waits for the first's lock, Java defines no
// behaviour for two writers in this mode: hudi-go serializes them), or fail leaving none.
func TestSingleWriterModeLosesNoUpdate(t *testing.T) {
	const n = 3000
	for trial := range 4 {
		t.Run(fmt.Sprint("trial", trial), func(t *testing.T) {
			table := newTable(t, "cow", keyRange(0, 2*n, "sf", "init", 1))
			ws := []*writerRun{
				{rider: "a", rows: keyRange(0, n, "sf", "a", 2)},
				{rider: "b", rows: keyRange(n, 2*n, "sf", "b", 2)},
			}
			runWriters(t, table, ws)
			if c := checkWriters(t, table, ws); c != 2 {
				for _, w := range ws {
					t.Logf("writer %s: err=%v stderr=%s", w.rider, w.p.err, w.p.stderr.String())
				}
				t.Errorf("%d of 2 writers committed; in single-writer mode the second waits for the first's lock", c)
			}
		})
	}
}
