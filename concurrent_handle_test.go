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

// TestServicesWhileScanOnOneHandle: compaction, clustering, clean and archival through one
// *Table while the test goroutine scans it with the iterator (Scan.Batches) and another
// goroutine polls the read-only accessors. Each service swaps the handle's metadata when
// it is done (reload); every scan sees all rows, whatever the services did before it.
// Under -race it fails with the handle's lock removed (checked: see s11-refactor.md).
func TestServicesWhileScanOnOneHandle(t *testing.T) {
	ctx := context.Background()
	tb, err := hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{Name: "svc", Type: "mor", RecordKeyFields: []string{"id"},
		PartitionFields: []string{"p"}, PrecombineField: "ts", Schema: "id STRING, ts BIGINT, p STRING"})
	if err != nil {
		t.Fatal(err)
	}
	const keys = 12
	upsert := func(ts int) {
		rows := make([]row, keys)
		for j := range rows {
			rows[j] = row{"id": fmt.Sprintf("k%d", j), "ts": ts, "p": fmt.Sprintf("p%d", j%2)}
		}
		if _, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: "upsert"}); err != nil {
			t.Fatal(err)
		}
	}
	for ts := 1; ts <= 3; ts++ {
		upsert(ts) // a base file per partition, then log files
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var serr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			_ = tb.Timeline().Completed()
			_ = tb.Config().Name()
			if _, err := tb.View(ctx, ""); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		keep := map[string]string{"hoodie.cleaner.commits.retained": "1", "hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"}
		steps := []func() error{
			func() error { _, err := tb.Compact(ctx, hudi.CompactOptions{}); return err },
			func() error { _, err := tb.Cluster(ctx, hudi.ClusterOptions{}); return err },
			func() error { _, err := tb.Clean(ctx, hudi.CleanOptions{Settings: keep}); return err },
			func() error { _, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: keep}); return err },
		}
		for i, step := range steps {
			if serr = step(); serr != nil {
				serr = fmt.Errorf("service %d: %w", i, serr)
				return
			}
		}
	}()
	for scans := 0; ; scans++ {
		select {
		case <-done:
			wg.Wait()
			if serr != nil {
				t.Fatal(serr)
			}
			if n := countBatchRows(t, tb); n != keys {
				t.Fatalf("after the services: %d rows, want %d", n, keys)
			}
			return
		default:
		}
		if n := countBatchRows(t, tb); n != keys {
			t.Fatalf("scan %d: %d rows, want %d", scans, n, keys)
		}
	}
}

// countBatchRows counts the rows of a snapshot scan through Scan.Batches.
func countBatchRows(t *testing.T, tb *hudi.Table) int {
	t.Helper()
	ctx := context.Background()
	scan, err := tb.Scan(ctx, hudi.ScanOptions{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rec, err := range scan.Batches(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
	}
	return n
}
