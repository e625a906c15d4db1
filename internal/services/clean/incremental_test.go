package clean_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/services/clean"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

// plan runs clean.Plan on the fixture's current table.
func (f *fixture) plan(o clean.Options) *clean.Selection {
	f.t.Helper()
	tb, err := table.Open(context.Background(), local.New(f.dir))
	if err != nil {
		f.t.Fatal(err)
	}
	o.Now = f.now
	sel, err := clean.Plan(context.Background(), tb, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return sel
}

func selected(sel *clean.Selection) string {
	var out []string
	for _, fl := range sel.Files {
		out = append(out, fl.Path)
	}
	return strings.Join(out, ",") + " | delete partitions " + strings.Join(sel.PartitionsToDelete, ",")
}

// Incremental planning (hoodie.cleaner.incremental.mode, Java's default) looks only at the
// partitions written since the last clean's earliest retained commit, and must select
// exactly the files a full scan selects. Random histories over two partitions, where one
// partition goes quiet for long stretches, with cleans at random points.
func TestIncrementalPlanEqualsFullScan(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			testutil.RaceSample(t, int(seed-1))
			rng := rand.New(rand.NewPCG(seed, 7))
			f := newFixture(t, "cow")
			f.upsert(1, "a1", "b1")
			incrementalSeen := false
			for i := 2; i <= 24; i++ {
				switch r := rng.IntN(10); {
				case r < 6:
					f.upsert(i, fmt.Sprint("a", rng.IntN(3)))
				case r < 8:
					f.upsert(i, fmt.Sprint("b", rng.IntN(3)))
				default:
					f.upsert(i, fmt.Sprint("a", rng.IntN(3)), fmt.Sprint("b", rng.IntN(3)))
				}
				for _, retained := range []int{2, 3} {
					o := clean.Options{Policy: clean.KeepLatestCommits, CommitsRetained: retained, MaxCommits: 1}
					inc := f.plan(o)
					o.FullScan = true
					full := f.plan(o)
					if got, want := selected(inc), selected(full); got != want {
						t.Fatalf("after commit %d, retained %d: incremental plan selects %s, full scan %s", i, retained, got, want)
					}
					if len(inc.Partitions) < len(full.Partitions) {
						incrementalSeen = true
					}
				}
				if rng.IntN(4) == 0 {
					f.clean("hoodie.cleaner.commits.retained", "2")
				}
			}
			if !incrementalSeen {
				t.Error("no plan was narrowed to fewer partitions than a full scan: the incremental path did not run")
			}
		})
	}
}

// After a clean, a plan whose range of commits wrote only one partition lists only that one.
func TestIncrementalPlanListsWrittenPartitions(t *testing.T) {
	f := cowHistory(t) // sf written by every commit, ny by the 1st and 4th
	f.upsert(6, "a")
	f.upsert(7, "a")
	if res := f.clean("hoodie.cleaner.commits.retained", "2"); res.EarliestInstantToRetain != f.commits[5] {
		t.Fatalf("clean retained from %q, want the 6th commit %s", res.EarliestInstantToRetain, f.commits[5])
	}
	// The next plan retains from the 8th commit: commits 6 and 7 (sf only) are the range.
	f.upsert(8, "a")
	f.upsert(9, "a")
	o := clean.Options{Policy: clean.KeepLatestCommits, CommitsRetained: 2, MaxCommits: 1}
	if got := strings.Join(f.plan(o).Partitions, ","); got != "city=sf" {
		t.Errorf("incremental plan covers partitions %q, want only city=sf", got)
	}
	o.FullScan = true
	if got := strings.Join(f.plan(o).Partitions, ","); got != "city=ny,city=sf" {
		t.Errorf("full-scan plan covers partitions %q, want both", got)
	}
}
