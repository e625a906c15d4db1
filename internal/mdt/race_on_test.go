//go:build race

package mdt_test

// raceEnabled: the race detector makes the fixture-wide column-stats check ~7× slower, so
// it runs on a few representative tables only.
const raceEnabled = true
