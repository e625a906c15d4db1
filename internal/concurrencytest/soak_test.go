//go:build unix

package concurrencytest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrencySoak runs several writer processes at once, each upserting random subsets
// of its own keys (all keys in a few shared file groups), beside table-service processes
// (compact, cluster, clean, archive), with the concurrency mode, table type and lock
// provider drawn from the seed. At the end every key must hold the value of the last write
// of it that exited 0, and no key a value of a write that failed.
//
// CI runs a short form with a fixed seed. The soak:
//
//	HUDI_SOAK=1                 soak mode (random seed, runs until the duration is over)
//	HUDI_SOAK_SEED=n            seed (default: 1 in CI, the clock in soak mode)
//	HUDI_SOAK_DURATION=10m      how long the soak runs (default 10m)
func TestConcurrencySoak(t *testing.T) {
	soak := os.Getenv("HUDI_SOAK") != ""
	seed := uint64(1)
	if soak {
		seed = uint64(time.Now().UnixNano())
	}
	if s := os.Getenv("HUDI_SOAK_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("HUDI_SOAK_SEED=%q", s)
		}
		seed = n
	}
	duration := 10 * time.Minute
	if d := os.Getenv("HUDI_SOAK_DURATION"); d != "" {
		var err error
		if duration, err = time.ParseDuration(d); err != nil {
			t.Fatalf("HUDI_SOAK_DURATION=%q", d)
		}
	}
	// Logged first: a failed round ends the test before the summary line.
	t.Logf("seed %d (rerun with HUDI_SOAK_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	deadline := time.Now().Add(duration)
	round := 0
	var total soakStats
	start := time.Now()
	for {
		round++
		st := soakRound(t, rng, soak)
		total.add(st)
		// The short form (CI) goes on for up to three rounds until a write commits: on a
		// loaded machine clustering's rejections and conflicts can take every write of one
		// round, which checks no acknowledged update.
		if t.Failed() || (!soak && (total.committed > 0 || round == 3)) || (soak && time.Now().After(deadline)) {
			break
		}
	}
	if total.committed == 0 {
		t.Errorf("no write committed in %d rounds", round)
	}
	t.Logf("soak seed=%d rounds=%d writes=%d committed=%d conflicts=%d other_failures=%d service_runs=%d service_failures=%d elapsed=%s",
		seed, round, total.writes, total.committed, total.conflicts, total.otherFailures, total.services, total.serviceFailures,
		time.Since(start).Round(time.Second))
}

type soakStats struct {
	writes, committed, conflicts, otherFailures, services, serviceFailures int
}

func (s *soakStats) add(o soakStats) {
	s.writes += o.writes
	s.committed += o.committed
	s.conflicts += o.conflicts
	s.otherFailures += o.otherFailures
	s.services += o.services
	s.serviceFailures += o.serviceFailures
}

// soakRound runs one table through writers and services.
func soakRound(t *testing.T, rng *rand.Rand, soak bool) soakStats {
	typ := []string{"cow", "mor"}[rng.IntN(2)]
	mode := []string{"occ", "single"}[rng.IntN(2)]
	provider := "fs"
	if os.Getenv("HUDI_TEST_ZK") != "" && rng.IntN(2) == 0 {
		provider = "zk"
	}
	writers, perWriter, keysPer := 3, 4, 300
	if soak {
		writers, perWriter, keysPer = 2+rng.IntN(3), 5+rng.IntN(10), 200+rng.IntN(800)
	}
	sets := append(lockSettings(t, provider), "hoodie.cleaner.commits.retained=2", "hoodie.keep.min.commits=3", "hoodie.keep.max.commits=4")
	if mode == "occ" {
		sets = append(sets, occ...)
	}
	cities := []string{"sf", "ny"}
	var initial []inputRow
	for i := range writers * keysPer {
		initial = append(initial, inputRow{TS: 1, UUID: fmt.Sprintf("k%07d", i), Rider: "init", Fare: 1, City: cities[i%len(cities)]})
	}
	table := newTable(t, typ, initial)
	t.Logf("round: %s table, %s, %s lock, %d writers x %d writes, %d keys each", typ, mode, provider, writers, perWriter, keysPer)

	var mu sync.Mutex
	var st soakStats
	model := map[string]string{}
	for _, r := range initial {
		model[r.UUID] = "init"
	}
	failedRiders := map[string]bool{}
	stop := make(chan struct{})
	var services sync.WaitGroup
	svc := [][]string{{"clean"}, {"archive"}, {"cluster"}}
	if typ == "mor" {
		svc = append(svc, []string{"compact"})
	}
	for i, args := range svc {
		services.Add(1)
		srng := rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))
		go func() {
			defer services.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(50+srng.IntN(600)) * time.Millisecond):
				}
				a := append(append([]string{}, args...), table)
				for _, s := range sets {
					a = append(a, "--set", s)
				}
				p, err := start(args[0], a...)
				if err != nil {
					t.Error(err)
					return
				}
				err = p.wait()
				mu.Lock()
				st.services++
				if err != nil {
					st.serviceFailures++
				}
				mu.Unlock()
			}
		}()
	}
	var writersWG sync.WaitGroup
	for w := range writers {
		wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(100+w)))
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			for it := range perWriter {
				rider := fmt.Sprintf("w%d-%d", w, it)
				var rows []inputRow
				for _, i := range wrng.Perm(keysPer)[:1+wrng.IntN(keysPer)] {
					k := w*keysPer + i
					rows = append(rows, inputRow{TS: int64(2 + it), UUID: fmt.Sprintf("k%07d", k), Rider: rider, Fare: float64(it), City: cities[k%len(cities)]})
				}
				in := filepath.Join(t.TempDir(), rider+".jsonl")
				writeInput(t, in, rows)
				args := []string{"write", table, "--op", "upsert", "--input", in, "--format", "json"}
				for _, s := range sets {
					args = append(args, "--set", s)
				}
				p, err := start(rider, args...)
				if err != nil {
					t.Error(err)
					return
				}
				err = p.wait()
				mu.Lock()
				st.writes++
				switch {
				case err == nil:
					st.committed++
					for _, r := range rows {
						model[r.UUID] = rider
					}
				case strings.Contains(p.stderr.String(), "write conflict"):
					st.conflicts++
					failedRiders[rider] = true
				default:
					st.otherFailures++
					failedRiders[rider] = true
					t.Logf("write %s failed: %s", rider, strings.TrimSpace(p.stderr.String()))
				}
				mu.Unlock()
			}
		}()
	}
	writersWG.Wait()
	close(stop)
	services.Wait()
	got, err := readTable(table)
	if err != nil {
		t.Fatalf("the table does not read: %v", err)
	}
	lost, leaked := 0, 0
	for k, want := range model {
		r, _ := got[k]["rider"].(string)
		if failedRiders[r] {
			leaked++
		} else if r != want {
			lost++
		}
	}
	if lost > 0 || leaked > 0 || len(got) != len(model) {
		t.Errorf("%d acknowledged updates lost, %d keys hold a failed write's value, %d rows (want %d)", lost, leaked, len(got), len(model))
	}
	return st
}
