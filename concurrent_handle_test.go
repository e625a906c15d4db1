package hudi_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
)

// TestScanWhileWriteOnOneHandle: a Scan (and the read-only accessors) running while a
// Write through the same *Table commits and swaps the handle's metadata. Under -race it
// failed while reload replaced the metadata without a lock; each scan sees a whole commit.
func TestScanWhileWriteOnOneHandle(t *testing.T) {
	ctx := context.Background()
	tb, err := hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{Name: "conc", Type: "cow", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT"})
	if err != nil {
		t.Fatal(err)
	}
	const writes, perWrite = 4, 5
	write := func(i int) error {
		rows := make([]row, perWrite)
		for j := range rows {
			rows[j] = row{"id": fmt.Sprintf("k%d-%d", i, j), "ts": i}
		}
		_, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: "insert"})
		return err
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var werr error
	// The accessors, polled without pause: nothing they do synchronizes with the writer
	// by chance (a scan takes the table's cache mutex, which the write takes too).
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			_ = tb.Type()
			_ = tb.Timeline().Completed()
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 1; i < writes && werr == nil; i++ {
			werr = write(i)
		}
	}()
	for scans := 0; ; scans++ {
		select {
		case <-done:
			wg.Wait()
			if werr != nil {
				t.Fatal(werr)
			}
			if n := countRows(t, tb); n != writes*perWrite {
				t.Fatalf("after the writes: %d rows, want %d", n, writes*perWrite)
			}
			return
		default:
		}
		if n := countRows(t, tb); n%perWrite != 0 || n == 0 {
			t.Fatalf("scan %d: %d rows: not a whole number of commits", scans, n)
		}
		_ = tb.Config().Name()
	}
}

func countRows(t *testing.T, tb *hudi.Table) int {
	t.Helper()
	ctx := context.Background()
	scan, err := tb.Scan(ctx, hudi.ScanOptions{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := scan.Run(ctx, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
