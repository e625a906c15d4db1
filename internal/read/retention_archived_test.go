package read_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/read"
)

// TestRetentionGuardArchived: once archival has moved cleaned commits off the active
// timeline, time travel to them is still older than the cleaner's retention and must fail
// with ErrCleaned — not be taken for "before the first commit" (the active timeline's
// first commit) and read whatever files the cleaner left, i.e. partial data.
func TestRetentionGuardArchived(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		Schema: "id STRING, ts BIGINT"}); err != nil {
		t.Fatal(err)
	}
	// The metadata table compacts at every write, so that archival (which it bounds) runs.
	settings := map[string]string{"hoodie.cleaner.commits.retained": "1", "hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
		"hoodie.parquet.small.file.limit": "0", "hoodie.metadata.compact.max.delta.commits": "1"}
	var instants []string
	for i := range 6 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "ts", Type: arrow.PrimitiveTypes.Int64}}, nil))
		// Every commit updates k0 (so cleaning deletes its older versions) and adds a key.
		for _, id := range []string{"k0", fmt.Sprintf("k%d", i+1)} {
			b.Field(0).(*array.StringBuilder).Append(id)
			b.Field(1).(*array.Int64Builder).Append(int64(i))
		}
		rec := b.NewRecord()
		b.Release()
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Settings: settings})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		instants = append(instants, res.Instant)
	}
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if first := tbl.Timeline().DataInstants()[0].Time; string(first) == instants[0] {
		t.Fatalf("nothing archived (first active commit %s): the test needs archived commits", first)
	}
	_, err = tbl.Scan(ctx, hudi.ScanOptions{AsOf: instants[0]})
	if !errors.Is(err, read.ErrCleaned) || !strings.Contains(err.Error(), "earliest instant that can be queried is") {
		t.Errorf("time travel to archived and cleaned commit %s: error %v, want ErrCleaned", instants[0], err)
	}
	// Before every commit, archived or not, the table is empty: nothing to refuse.
	if _, err := tbl.Scan(ctx, hudi.ScanOptions{AsOf: "20000101000000000"}); err != nil {
		t.Errorf("time travel before the first commit: %v", err)
	}
}
