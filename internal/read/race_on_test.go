//go:build race

package read

// raceEnabled: the race detector makes the fixture-wide lookup test ~10× slower, so it
// runs on a few representative tables only.
const raceEnabled = true
