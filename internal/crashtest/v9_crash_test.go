//go:build unix

package crashtest

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCrashDuringWritesV9 is the crash test (see the package comment) on a table of
// version 9 (Hudi 1.x, timeline layout 2: .hoodie/timeline, completion times in completed
// file names, Avro commit metadata): copy-on-write writes are killed at random points, the
// next writer rolls them back, and the table always reads back equal to the model. The CI
// form is short (8 kills); HUDI_SOAK=1 and the other variables of the package comment make
// it long.
func TestCrashDuringWritesV9(t *testing.T) {
	cfg := loadRunConfig(t, runConfig{seed: 9, minKills: 8, maxIters: 40, duration: 2 * time.Minute,
		tableIters: 1 << 30, minRows: 30, maxRows: 120, maxSize: 600})
	runKills(t, cfg, 0x7639637261736821, func(rng *rand.Rand, st *stats, iter *int, done func(int) bool) {
		runTable(t, rng, st, iter, *iter+cfg.tableIters, done,
			generator{minRows: cfg.minRows, maxRows: cfg.maxRows, maxSize: cfg.maxSize, version: "9"})
	})
}
