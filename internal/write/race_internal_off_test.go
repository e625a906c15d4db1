//go:build !race

package write

// underRace is raceEnabled for the package's internal tests.
const underRace = false
