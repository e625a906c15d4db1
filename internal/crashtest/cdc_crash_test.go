//go:build unix

package crashtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
)

// TestCrashDuringCDCWrites is the crash test on a table with change-data capture on: a
// killed write's CDC log files go with its rollback, committed ones stay and match their
// cdcStats. The CI form is short (8 kills, about ten seconds); HUDI_SOAK=1 and the other
// variables of the package comment make it long.
func TestCrashDuringCDCWrites(t *testing.T) {
	cfg := loadRunConfig(t, runConfig{seed: 7, minKills: 8, maxIters: 40, duration: 2 * time.Minute,
		tableIters: 1 << 30, minRows: 30, maxRows: 120, maxSize: 600})
	modes := []string{"DATA_BEFORE_AFTER", "OP_KEY_ONLY", "DATA_BEFORE"}
	runKills(t, cfg, 0x63646363726173, func(rng *rand.Rand, st *stats, iter *int, done func(int) bool) {
		mode := modes[rng.IntN(len(modes))]
		t.Logf("table in mode %s", mode)
		runTable(t, rng, st, iter, *iter+cfg.tableIters, done,
			generator{minRows: cfg.minRows, maxRows: cfg.maxRows, maxSize: cfg.maxSize, cdc: mode})
	})
}

// checkCDCFiles checks that every CDC log file a completed commit lists in cdcStats is
// there with its size (unless the cleaner removed its file slice, or a pending clean —
// one killed while deleting, which the next clean finishes — plans to), and that every
// CDC log file in the table belongs to a completed commit that lists it, to a pending
// instant, or to an archived commit (older than the active timeline).
func checkCDCFiles(table string) error {
	tl, err := timelineOf(table)
	if err != nil {
		return err
	}
	cleaning, err := pendingCleanFiles(table, tl)
	if err != nil {
		return err
	}
	// The earliest completed commit on the active timeline: archival moves commits out
	// oldest first, so a CDC file of an earlier instant belongs to an archived commit.
	firstActive := ""
	for ts, in := range tl {
		if in.completed() && in.isData() && (firstActive == "" || ts < firstActive) {
			firstActive = ts
		}
	}
	listed := map[string]bool{}
	for ts, in := range tl {
		if !in.completed() || !in.isData() {
			continue
		}
		name := spec.InstantFileName{Instant: spec.InstantTime(ts), Action: in.action, State: spec.StateCompleted}.FileName(1)
		body, err := os.ReadFile(filepath.Join(table, ".hoodie", name))
		if err != nil {
			return err
		}
		cm, err := commitmeta.Decode(body)
		if err != nil {
			return fmt.Errorf("commit %s: %w", ts, err)
		}
		for _, stats := range cm.PartitionToWriteStats {
			for _, s := range stats {
				if _, err := os.Stat(filepath.Join(table, filepath.FromSlash(s.Path))); err != nil {
					continue // the slice was cleaned, its CDC file with it
				}
				for p, size := range s.CDCStats {
					listed[p] = true
					if cleaning[path.Base(p)] {
						continue // a clean killed while deleting the slice's files
					}
					fi, err := os.Stat(filepath.Join(table, filepath.FromSlash(p)))
					if err != nil {
						return fmt.Errorf("commit %s lists CDC file %s: %w", ts, p, err)
					}
					if fi.Size() != size {
						return fmt.Errorf("commit %s lists CDC file %s of %d bytes; it has %d", ts, p, size, fi.Size())
					}
				}
			}
		}
	}
	return filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		l, ok := spec.ParseLogFileName(d.Name())
		if !ok || !l.CDC() {
			return nil
		}
		rel, _ := filepath.Rel(table, p)
		rel = filepath.ToSlash(rel)
		in := tl[string(l.Instant)]
		switch {
		case in == nil && firstActive != "" && string(l.Instant) < firstActive:
			return nil // an archived commit's (its slice not cleaned yet)
		case in == nil:
			return fmt.Errorf("CDC file %s of an instant not on the timeline", rel)
		case in.completed() && !listed[rel]:
			return fmt.Errorf("CDC file %s is not in its commit's cdcStats", rel)
		}
		return nil
	})
}

// pendingCleanFiles names (by file name) the files that pending cleans plan to delete: a
// clean killed while deleting leaves its plan's files partly deleted until the next clean
// finishes it, a CDC log file gone while its base file is still there.
func pendingCleanFiles(table string, tl map[string]*instant) (map[string]bool, error) {
	out := map[string]bool{}
	for ts, in := range tl {
		if in.action != spec.ActionClean || in.completed() {
			continue
		}
		planFile := in.files[spec.StateRequested]
		if planFile == "" {
			planFile = in.files[spec.StateInflight] // holds the plan too
		}
		body, err := os.ReadFile(filepath.Join(table, planFile))
		if err != nil {
			return nil, err
		}
		plan, err := commitmeta.DecodeCleanerPlan(body)
		if err != nil {
			return nil, fmt.Errorf("clean plan %s: %w", ts, err)
		}
		for _, files := range plan.FilePathsToBeDeletedPerPartition {
			for _, f := range files {
				out[path.Base(f.FilePath)] = true
			}
		}
		for _, files := range plan.FilesToBeDeletedPerPartition {
			for _, f := range files {
				out[path.Base(f)] = true
			}
		}
	}
	return out, nil
}
