//go:build race

package write

// underRace is raceEnabled for the package's internal tests: allocation counts and heap
// sizes are meaningless under the race detector, whose bookkeeping allocates too.
const underRace = true
