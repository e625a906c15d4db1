//go:build unix

package crashtest

// TestCrashDuringRestore kills `hudi savepoint TABLE restore SP` (SIGKILL) at random
// points, on COW and MOR tables, and checks after every kill:
//
//  1. with no restore on the timeline, the table reads as before the restore;
//  2. with a completed restore, it reads as of the savepoint;
//  3. with a pending restore, a snapshot read fails naming the pending restore, and so do
//     a write, a compaction and a clean (Java's BaseHoodieWriteClient.startCommit refuses a
//     commit while a restore is pending); a time travel to the savepoint reads the
//     savepoint's rows; rerunning the restore completes it, after which the table reads
//     as of the savepoint and takes writes again.
//
// The knobs are the COW test's (HUDI_SOAK, HUDI_CRASH_SEED, HUDI_CRASH_ITERATIONS).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
)

// runKillable runs the hudi binary with args and SIGKILLs it after killAfter.
func runKillable(args []string, killAfter time.Duration) (killed bool, dur time.Duration, err error, stderr string) {
	cmd := exec.Command(hudiBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return false, 0, err, ""
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(killAfter)
	select {
	case err = <-done:
		timer.Stop()
	case <-timer.C:
		_ = cmd.Process.Kill()
		err = <-done
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return true, time.Since(start), nil, errb.String()
	}
	return false, time.Since(start), err, errb.String()
}

// restoreState classifies the restore instants on the timeline after a kill.
func restoreState(table string, before map[string]*instant) (pending, completed bool, err error) {
	tl, err := timelineOf(table)
	if err != nil {
		return false, false, err
	}
	for ts, in := range tl {
		if in.action != spec.ActionRestore || before[ts] != nil {
			continue
		}
		if in.completed() {
			completed = true
		} else {
			pending = true
		}
	}
	return pending, completed, nil
}

func TestCrashDuringRestore(t *testing.T) {
	cfg := loadRunConfig(t, runConfig{seed: 1, minKills: 0, maxIters: 8, duration: 5 * time.Minute,
		minRows: 50, maxRows: 200, maxSize: 1500})
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(cfg.seed, 0x7265737472))
			counts := map[string]int{}
			table := filepath.Join(t.TempDir(), "trips")
			if _, err := hudi("create", table, "--type", typ, "--partition-by", "city", "--hive-style", "--precombine", "ts",
				"--record-key", "uuid", "--schema", tableSchema); err != nil {
				t.Fatal(err)
			}
			g := generator{rng: rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())), minRows: cfg.minRows, maxRows: cfg.maxRows,
				maxSize: cfg.maxSize, fileMax: 40_000}
			m := model{}
			n := 0
			write := func() {
				t.Helper()
				w := g.next(m, 0)
				if typ == "mor" {
					w = g.nextMOR(m, 0)
				}
				n++
				in := filepath.Join(filepath.Dir(table), fmt.Sprintf("in-%d.jsonl", n))
				if err := writeInput(in, w); err != nil {
					t.Fatal(err)
				}
				r := runWrite(table, in, w, -1)
				if r.err != nil {
					t.Fatalf("write %s: %v\n%s", w.op, r.err, r.stderr)
				}
				m = apply(m, w, r.res.Instant)
			}
			check := func(when string, want model, extra ...string) {
				t.Helper()
				got, err := readTableWith(table, extra...)
				if err != nil {
					t.Fatalf("%s: the table does not read: %v", when, err)
				}
				if d := diff(got, want); len(d) > 0 {
					t.Fatalf("%s: the table differs:\n  %s", when, strings.Join(d, "\n  "))
				}
			}
			var restoreDur time.Duration = 300 * time.Millisecond
			start := time.Now()
			for iter := 0; iter < cfg.maxIters && time.Since(start) < cfg.duration; iter++ {
				write()
				tl, err := timelineOf(table)
				if err != nil {
					t.Fatal(err)
				}
				var sp string
				for ts, in := range tl {
					if in.isData() || in.action == spec.ActionDeltaCommit {
						if in.completed() && ts > sp {
							sp = ts
						}
					}
				}
				if _, err := hudi("savepoint", table, "create", sp); err != nil {
					t.Fatal(err)
				}
				atSavepoint := m.clone()
				for range 1 + rng.IntN(3) {
					write()
				}
				if typ == "mor" && rng.IntN(2) == 0 {
					if _, err := hudi("compact", table, "--set", "hoodie.index.bloom.num_entries=1000"); err != nil {
						t.Fatal(err)
					}
				}
				latest := m.clone()
				before, err := timelineOf(table)
				if err != nil {
					t.Fatal(err)
				}
				delay := time.Duration(rng.Float64() * 1.1 * float64(restoreDur))
				killed, dur, rerr, stderr := runKillable([]string{"savepoint", table, "restore", sp}, delay)
				if rerr != nil {
					t.Fatalf("iteration %d: restore to %s failed on its own: %v\n%s", iter, sp, rerr, stderr)
				}
				if !killed {
					restoreDur = (restoreDur*7 + dur*3) / 10
				}
				pending, completed, err := restoreState(table, before)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case !killed:
					counts["exited"]++
					check(fmt.Sprintf("iteration %d: after a restore that finished", iter), atSavepoint)
				case completed:
					counts["killed_after_completed"]++
					check(fmt.Sprintf("iteration %d: after a restore killed once complete", iter), atSavepoint)
				case !pending:
					counts["killed_before_requested"]++
					// The delay is learnt from restores that finish; on a loaded machine the
					// process may not even reach the restore within it, and no later kill
					// would land while the restore is pending: aim later next time.
					restoreDur = restoreDur * 3 / 2
					check(fmt.Sprintf("iteration %d: after a restore killed before it began", iter), latest)
					if _, err := hudi("savepoint", table, "restore", sp); err != nil {
						t.Fatal(err)
					}
				default:
					counts["killed_pending"]++
					refused := func(what string, args ...string) {
						t.Helper()
						_, err := hudi(args...)
						if err == nil || !strings.Contains(err.Error(), "is pending") {
							t.Fatalf("iteration %d: %s with a restore pending: %v (want a refusal naming the pending restore)", iter, what, err)
						}
					}
					refused("snapshot read", "read", table, "--format", "jsonl")
					w := g.next(m, 20)
					n++
					in := filepath.Join(filepath.Dir(table), fmt.Sprintf("in-%d.jsonl", n))
					if err := writeInput(in, w); err != nil {
						t.Fatal(err)
					}
					refused("write", "write", table, "--op", w.op, "--input", in)
					refused("clean", "clean", table)
					if typ == "mor" {
						refused("compaction", "compact", table)
					}
					check(fmt.Sprintf("iteration %d: time travel to the savepoint with a restore pending", iter), atSavepoint, "--as-of", sp)
					if _, err := hudi("savepoint", table, "restore", sp); err != nil {
						t.Fatalf("iteration %d: finishing the pending restore: %v", iter, err)
					}
				}
				m = atSavepoint
				check(fmt.Sprintf("iteration %d: after the restore completed", iter), m)
				// The restore keeps the metadata table (restored to the savepoint and synced,
				// or dropped where Java drops it): whichever, it must equal a listing, a
				// rerun after a kill included.
				if exists(filepath.Join(table, ".hoodie", "metadata")) {
					validateMetadata(t, table, iter)
				}
				if _, err := hudi("savepoint", table, "delete", sp); err != nil {
					t.Fatal(err)
				}
			}
			write()
			check("the write after the last restore", m)
			t.Logf("RESTORECRASH %s seed=%d %v", typ, cfg.seed, counts)
			if counts["killed_pending"] == 0 && !cfg.soak {
				t.Errorf("no restore was killed while pending: %v", counts)
			}
		})
	}
}

// readTableWith is readTable with extra `hudi read` flags.
func readTableWith(table string, extra ...string) (map[string]map[string]any, error) {
	if len(extra) == 0 {
		return readTable(table)
	}
	out, err := hudi(append([]string{"read", table, "--format", "jsonl"}, extra...)...)
	if err != nil {
		return nil, err
	}
	return parseRows(out)
}
