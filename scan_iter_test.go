package hudi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/testutil"
)

// TestScanBatches: the iterator yields the batches Run streams (same rows), stops the scan
// when the loop breaks, and yields a scan failure once, last.
func TestScanBatches(t *testing.T) {
	ctx := context.Background()
	tb, err := hudi.Open(ctx, testutil.Table(t, "cow/v6_simplekeygen_nonhivestyle"))
	if err != nil {
		t.Fatal(err)
	}
	scan, err := tb.Scan(ctx, hudi.ScanOptions{BatchSize: 2, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	var viaRun, batches int64
	if err := scan.Run(ctx, func(r arrow.RecordBatch) error { viaRun += r.NumRows(); return nil }); err != nil {
		t.Fatal(err)
	}
	var viaIter int64
	for rec, err := range scan.Batches(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		viaIter += rec.NumRows()
		batches++
	}
	if viaIter != viaRun || viaRun == 0 || batches < 2 {
		t.Fatalf("iterator: %d rows in %d batches, Run: %d rows", viaIter, batches, viaRun)
	}
	n := 0
	for _, err := range scan.Batches(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Fatalf("break: %d iterations", n)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	var errs []error
	for rec, err := range scan.Batches(canceled) {
		if err != nil {
			if rec != nil {
				t.Error("a failure came with a batch")
			}
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("canceled scan: errors %v, want one context.Canceled", errs)
	}
}
