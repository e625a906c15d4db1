//go:build unix

package concurrencytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
)

// earlySets turn on early conflict detection (Java 0.14's
// SimpleDirectMarkerBasedDetectionStrategy, the default with direct markers) under
// optimistic concurrency control with the file-system lock.
func earlySets(t *testing.T) []string {
	return append(append(lockSettings(t, "fs"), occ...), "hoodie.write.concurrency.early.conflict.detection.enable=true")
}

// runningMarker waits until a write of table has created a marker under .hoodie/.temp and
// returns its instant and the marker's path relative to the table.
func runningMarker(t *testing.T, table string, p *proc) (string, string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("writer %s ended before it created a marker: %v %s", p.name, p.err, p.stderr.String())
		default:
		}
		dirs, _ := os.ReadDir(filepath.Join(table, ".hoodie", ".temp"))
		for _, d := range dirs {
			// Not the temp file a marker is written through (".<marker>.tmp-<n>").
			for _, typ := range []string{"CREATE", "MERGE", "APPEND"} {
				files, _ := filepath.Glob(filepath.Join(table, ".hoodie", ".temp", d.Name(), "sf", "*.marker."+typ))
				if len(files) > 0 {
					rel, _ := filepath.Rel(table, files[0])
					return d.Name(), rel
				}
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("writer %s created no marker within 30s", p.name)
	return "", ""
}

// TestEarlyConflictFailsTheLaterWriter: two writers under optimistic concurrency control
// with early conflict detection upsert keys of one file group. Writer A starts first; once
// it has created the marker of its data file (it is writing the file), it is stopped
// (SIGSTOP, so it stays a running write: heartbeat fresh, process alive) and writer B
// starts. B must fail early — before writing any data file — with the error naming A's
// instant and the file group, its instant rolled back having deleted nothing; A, resumed,
// commits, and the table holds A's updates and none of B's. Java 0.14 behaves the same
// (SimpleDirectMarkerBasedDetectionStrategy: an earlier instant's marker for the file id,
// with a live heartbeat, fails the later writer's marker creation).
//
// A stop can land after A's data files, while it waits for the lock to commit; then B
// could not start its instant, and the round is run again (at most 3 times).
func TestEarlyConflictFailsTheLaterWriter(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		n    int
		sets []string // writer A's own settings, to make its write last
	}{
		{"cow", 30000, nil},
		// Small log blocks and log files: A writes many log files, each with its marker.
		{"mor", 30000, []string{"hoodie.logfile.data.block.max.size=20000", "hoodie.logfile.max.size=20000"}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			for round := 1; ; round++ {
				if earlyConflictRound(t, tc.typ, tc.n, tc.sets) {
					return
				}
				if round == 3 {
					t.Fatal("in 3 rounds writer A was never stopped while writing its data files")
				}
				t.Logf("round %d: writer A was stopped outside its data writing; again", round)
			}
		})
	}
}

// earlyConflictRound runs one round; false means A was not caught writing its files.
func earlyConflictRound(t *testing.T, typ string, n int, aSets []string) bool {
	sets := earlySets(t)
	table := newTable(t, typ, keyRange(0, n, "sf", "init", 1))
	start0 := func(name string, rows []inputRow, extra []string) *proc {
		in := filepath.Join(t.TempDir(), name+".jsonl")
		writeInput(t, in, rows)
		args := []string{"write", table, "--op", "upsert", "--input", in, "--format", "json"}
		for _, s := range append(append([]string{}, sets...), extra...) {
			args = append(args, "--set", s)
		}
		p, err := start(name, args...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := &writerRun{rider: "a", rows: keyRange(0, n-10, "sf", "a", 2)}
	b := &writerRun{rider: "b", rows: keyRange(n-10, n, "sf", "b", 2)}
	a.p = start0("a", a.rows, aSets)
	instA, marker := runningMarker(t, table, a.p)
	if err := a.p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = a.p.cmd.Process.Signal(syscall.SIGCONT)
			_ = a.p.wait()
		}
	}()
	hoodie := filepath.Join(table, ".hoodie")
	_, lockErr := os.Stat(filepath.Join(hoodie, "lock"))
	_, tempErr := os.Stat(filepath.Join(hoodie, ".temp", instA))
	if lockErr == nil || tempErr != nil {
		return false // A holds the lock to commit, or has committed
	}
	fileID, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(marker), "."), "_")

	b.p = start0("b", b.rows, nil)
	if err := b.p.wait(); err == nil {
		t.Fatalf("writer B committed (%s) beside A's running write of the same file group", b.p.stdout.String())
	}
	msg := b.p.stderr.String()
	for _, want := range []string{"early conflict detected", "instant " + instA, "file group sf/" + fileID, "rolled back by "} {
		if !strings.Contains(msg, want) {
			t.Errorf("writer B's error lacks %q:\n%s", want, msg)
		}
	}
	// B's instant was rolled back, and its rollback deleted nothing: B wrote no data file.
	rb := msg[strings.LastIndex(msg, "rolled back by ")+len("rolled back by "):]
	rb = strings.TrimRight(strings.Fields(rb)[0], ")")
	body, err := os.ReadFile(filepath.Join(hoodie, rb+".rollback"))
	if err != nil {
		t.Fatalf("B's rollback %s: %v", rb, err)
	}
	meta, err := commitmeta.DecodeRollback(body)
	if err != nil {
		t.Fatal(err)
	}
	if meta.TotalFilesDeleted != 0 || len(meta.CommitsRollback) != 1 {
		t.Errorf("B's rollback %s: %d files deleted, instants %v; want nothing deleted (B wrote no data file)", rb, meta.TotalFilesDeleted, meta.CommitsRollback)
	}
	for p, pm := range meta.PartitionMetadata {
		if len(pm.RollbackLogFiles) > 0 || len(pm.LogFilesFromFailedCommit) > 0 {
			t.Errorf("B's rollback %s rolled back log files in %s: %v %v", rb, p, pm.LogFilesFromFailedCommit, pm.RollbackLogFiles)
		}
	}
	if _, err := os.Stat(filepath.Join(hoodie, ".temp", meta.CommitsRollback[0])); !os.IsNotExist(err) {
		t.Errorf("B's marker folder is still there (%v)", err)
	}

	stopped = false
	if err := a.p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := a.p.wait(); err != nil {
		t.Fatalf("writer A failed after B's early conflict: %v %s", err, a.p.stderr.String())
	}
	if c := checkWriters(t, table, []*writerRun{a, b}); c != 1 {
		t.Errorf("%d writers committed, want A alone", c)
	}
	t.Log(fmt.Sprintf("%s: A=%s committed; B failed early: %s", typ, instA, strings.TrimSpace(msg)))
	return true
}
