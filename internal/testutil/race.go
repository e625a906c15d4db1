package testutil

import "testing"

// RaceSample skips case i of a sweep (a model run's configurations, the Spark fixtures)
// under the race detector unless i is a multiple of three. The detector looks for data
// races in code paths, which a third of the cases exercise as well as all of them, while
// it slows every case several times over; scripts/test runs each sweep whole in its
// no-race phase (a sweep that uses this must be listed in scripts/norace-tests), so every
// case still runs in CI.
func RaceSample(t testing.TB, i int) {
	t.Helper()
	if Race && i%3 != 0 {
		t.Skip("under -race a third of this sweep's cases run; scripts/test runs them all without -race")
	}
}
