//go:build race

package write_test

// raceEnabled: under the race detector sync.Pool drops a random share of what is put
// back, so allocation counts (TestBulkInsertHeapPerRow) depend on chance there.
const raceEnabled = true
