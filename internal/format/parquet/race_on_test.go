//go:build race

package parquet

// raceEnabled: the sweeps that compare whole files byte for byte with parquet-mr's or
// pqarrow's output (skipHeavyUnderRace) take minutes under the race detector and find no
// race there (single goroutine); scripts/test runs them without it.
const raceEnabled = true
