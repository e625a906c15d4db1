package parquet

import "testing"

// skipHeavyUnderRace skips a single-goroutine sweep under the race detector, where it takes
// minutes of CI time and can find no race; scripts/test runs these tests again without
// -race (its "no race" phase), so CI still runs them on every change.
func skipHeavyUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("a single-goroutine byte-for-byte sweep: scripts/test runs it without -race")
	}
}
