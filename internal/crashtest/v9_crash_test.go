//go:build unix

package crashtest

import (
	"math/rand/v2"
	"os"
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
	rng := rand.New(rand.NewPCG(cfg.seed, 0x7639637261736821))
	st := &stats{points: map[string]int{}, ops: map[string]int{}}
	start := time.Now()
	t.Logf("seed %d (rerun with HUDI_CRASH_SEED=%d)", cfg.seed, cfg.seed)
	defer func() { t.Log(st.summary(cfg.seed, time.Since(start))) }()
	ciForm := !cfg.soak && os.Getenv("HUDI_CRASH_ITERATIONS") == ""
	done := func(iter int) bool {
		switch {
		case iter >= cfg.maxIters:
			return true
		case st.kills < cfg.minKills:
			return false
		case ciForm:
			return true
		}
		return time.Since(start) > cfg.duration
	}
	for iter := 0; !done(iter) && !t.Failed(); {
		runTable(t, rng, st, &iter, iter+cfg.tableIters, done,
			generator{minRows: cfg.minRows, maxRows: cfg.maxRows, maxSize: cfg.maxSize, version: "9"})
	}
	if st.kills < cfg.minKills && !t.Failed() {
		t.Errorf("only %d kills (want at least %d)", st.kills, cfg.minKills)
	}
}
