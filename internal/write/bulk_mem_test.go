package write_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
)

// TestBulkInsertHeapPerRow bounds the bytes a bulk_insert allocates per input row. It
// compares the bytes allocated (runtime.MemStats) by bulk_inserts of n and 2n trips
// rows into four partitions (one file each), so per-write and per-file costs cancel out.
//
// Why it matters: the peak heap of a write is its live memory plus the garbage the
// collector lets pile up, and with the caller's input live that allowance grows with the
// input; so a write that allocates much per row shows a peak heap that grows with the
// rows (bench W1 at 5M and 10M rows: 1.27 and 2.58 GiB).
//
// What is left per row (≈900 bytes here; ≈1285 before the compact input of bulk.go, the
// per-task meta buffers of meta.go and the recycler of recycle.go) is almost all
// arrow-go's page value buffers: the PLAIN encoder takes a buffer from arrow-go's own
// pool (not our allocator) for every page and often grows it again from 256 bytes by
// doubling. TestCollectCompactBytesPerRow checks the write's own per-row state exactly.
func TestBulkInsertHeapPerRow(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300k rows")
	}
	if raceEnabled {
		// scripts/test runs it without the race detector, with the memory tests.
		t.Skip("allocation counts are not meaningful under -race: sync.Pool drops items at random")
	}
	const n = 100_000
	a := bulkInsertAllocs(t, n)
	b := bulkInsertAllocs(t, 2*n)
	perRow := float64(int64(b)-int64(a)) / n
	t.Logf("allocated %d bytes for %d rows, %d for %d: %.1f bytes per extra row", a, n, b, 2*n, perRow)
	if perRow > maxAllocPerRow {
		t.Fatalf("bulk_insert allocates %.1f bytes per input row (%d rows: %d bytes, %d rows: %d), want at most %d: "+
			"its heap grows with the input", perRow, n, a, 2*n, b, maxAllocPerRow)
	}
}

// maxAllocPerRow is above today's ≈900 bytes and below what any one of the removed
// per-row costs would add back (two 48-byte records, 74 bytes of per-chunk seqno and key
// columns, the gathered data columns and Parquet buffers of the Go allocator).
const maxAllocPerRow = 1050

// bulkInsertAllocs returns the bytes allocated by a bulk_insert of n trips rows (the
// input is built before counting).
func bulkInsertAllocs(t *testing.T, n int) uint64 {
	batches := benchdata.Trips(n, 65536, 42)
	defer benchdata.Release(batches)
	ctx := context.Background()
	tb, err := hudi.Create(ctx, filepath.Join(t.TempDir(), "t"), hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"uuid"},
		PrecombineField: "ts", PartitionFields: []string{"city"}, HiveStyle: true, Schema: benchdata.TripsDDL})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := tb.Write(ctx, batches, hudi.WriteOptions{Operation: "bulk_insert"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.Records.Inserted != int64(n) || res.FilesWritten != 4 {
		t.Fatalf("inserted %d rows into %d files, want %d into 4", res.Records.Inserted, res.FilesWritten, n)
	}
	return after.TotalAlloc - before.TotalAlloc
}
