//go:build unix

package concurrencytest

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// serviceRun is one table-service process started beside the writer.
type serviceRun struct {
	name  string
	args  []string
	pause time.Duration // between runs
}

// writerBesideServices runs iterations upserts one after the other while services run
// their commands in a loop beside them (each its own process, again and again), and
// checks after every write and at the end that each acknowledged update reads back and no
// failed write left an update. It returns how many writes committed and how many service
// runs succeeded.
func writerBesideServices(t *testing.T, table string, keys int, iterations int, seed uint64, sets []string, services []serviceRun) (int, int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	model := map[string]string{}
	for i := range keys {
		model[fmt.Sprintf("k%07d", i)] = "init"
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	serviceOK, serviceFailed := 0, map[string]string{}
	for _, s := range services {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				args := append(append([]string{}, s.args...), table)
				for _, x := range sets {
					args = append(args, "--set", x)
				}
				p, err := start(s.name, args...)
				if err != nil {
					t.Error(err)
					return
				}
				err = p.wait()
				mu.Lock()
				if err == nil {
					serviceOK++
				} else {
					serviceFailed[s.name] = strings.TrimSpace(p.stderr.String())
				}
				mu.Unlock()
				select {
				case <-stop:
					return
				case <-time.After(s.pause):
				}
			}
		}()
	}
	committed := 0
	// Past the iterations, writing goes on (up to three times as many) until one write has
	// committed: on a loaded machine the services' runs stretch, and a writer can lose every
	// one of its first rounds to clustering's rejections and conflicts with compaction plans.
	for it := 0; it < iterations || (committed == 0 && it < 3*iterations); it++ {
		rider := fmt.Sprint("it", it)
		var rows []inputRow
		for _, i := range rng.Perm(keys)[:keys/3] {
			rows = append(rows, inputRow{TS: int64(10 + it), UUID: fmt.Sprintf("k%07d", i), Rider: rider, Fare: float64(i), City: "sf"})
		}
		in := filepath.Join(t.TempDir(), "in.jsonl")
		writeInput(t, in, rows)
		args := []string{"write", table, "--op", "upsert", "--input", in, "--format", "json"}
		for _, x := range sets {
			args = append(args, "--set", x)
		}
		p, err := start(rider, args...)
		if err != nil {
			t.Fatal(err)
		}
		werr := p.wait()
		got, err := readTable(table)
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("after write %d: the table does not read: %v", it, err)
		}
		if werr == nil {
			committed++
			for _, r := range rows {
				model[r.UUID] = rider
			}
		} else {
			t.Logf("write %d failed: %s", it, strings.TrimSpace(p.stderr.String()))
			for _, r := range rows {
				if got[r.UUID]["rider"] == rider {
					t.Errorf("write %d failed (%s) but its update of %s is in the table", it, strings.TrimSpace(p.stderr.String()), r.UUID)
					break
				}
			}
		}
		lost := 0
		for k, want := range model {
			if got[k]["rider"] != want {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("after write %d (err=%v): %d acknowledged updates are not in the table", it, werr, lost)
		}
	}
	close(stop)
	wg.Wait()
	got, err := readTable(table)
	if err != nil {
		t.Fatalf("the table does not read after the services: %v", err)
	}
	lost := 0
	for k, want := range model {
		if got[k]["rider"] != want {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("after the last service runs: %d acknowledged updates are not in the table", lost)
	}
	for name, msg := range serviceFailed {
		t.Logf("a %s run failed (last error): %s", name, msg)
	}
	return committed, serviceOK
}

// TestWriterBesideTableServices runs upserts while `hudi compact`, `hudi cluster` and
// `hudi clean` processes run beside them, in single-writer mode and under optimistic
// concurrency control, with the file-system lock and with ZooKeeper: no acknowledged
// update is lost (a compaction scheduled while a write runs never leaves that write's log
// blocks behind; a clean never deletes a file a write still needs).
func TestWriterBesideTableServices(t *testing.T) {
	for _, tc := range []struct {
		name, typ, mode, provider string
	}{
		{"single_mor_fs", "mor", "single", "fs"},
		{"occ_mor_fs", "mor", "occ", "fs"},
		{"occ_cow_zk", "cow", "occ", "zk"},
		{"single_mor_zk", "mor", "single", "zk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := append(lockSettings(t, tc.provider), "hoodie.cleaner.commits.retained=1", "hoodie.keep.min.commits=2", "hoodie.keep.max.commits=3")
			if tc.mode == "occ" {
				sets = append(sets, occ...)
			}
			const keys = 600
			table := newTable(t, tc.typ, keyRange(0, keys, "sf", "init", 1))
			// Clustering rejects updates to the file groups it plans (Java's
			// SparkRejectUpdateStrategy) until it completes: it pauses longer, so that
			// writes get through between its runs.
			services := []serviceRun{{"clean", []string{"clean"}, 20 * time.Millisecond}, {"cluster", []string{"cluster"}, 700 * time.Millisecond}}
			if tc.typ == "mor" {
				services = append(services, serviceRun{"compact", []string{"compact"}, 20 * time.Millisecond})
			}
			c, s := writerBesideServices(t, table, keys, 8, 7, sets, services)
			t.Logf("%s: %d of 8 writes committed, %d service runs succeeded", tc.name, c, s)
			if c == 0 {
				t.Errorf("no write committed beside the services")
			}
		})
	}
}
