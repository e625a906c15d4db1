package write_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/write"
)

// endProbe is a record reader that measures the live heap once its input is exhausted:
// then every partition's file is open and none is closed yet.
type endProbe struct {
	recs  []arrow.Record
	i     int
	atEnd uint64
}

func (r *endProbe) Retain()                   {}
func (r *endProbe) Release()                  {}
func (r *endProbe) Schema() *arrow.Schema     { return r.recs[0].Schema() }
func (r *endProbe) Record() arrow.Record      { return r.recs[r.i-1] }
func (r *endProbe) RecordBatch() arrow.Record { return r.recs[r.i-1] }
func (r *endProbe) Err() error                { return nil }
func (r *endProbe) Next() bool {
	if r.i == len(r.recs) {
		r.atEnd = liveHeap()
		return false
	}
	r.i++
	return true
}

func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestBulkInsertOpenFileCost (issue 25): a streaming bulk_insert into many partitions
// holds one open file per partition (hoodie.bulkinsert.sort.mode NONE, as Java's), so
// what an open file costs is what the write costs per partition. A file of a few rows
// must cost its rows, not a ~323 KB bloom filter sized for 60,000 keys plus ~150 KB of
// Parquet column writers: 30k rows over 10k partitions peaked at 19.1 GB. (Its filter is
// still that size when it is written: Java 0.14 writes the same, see docs/performance.md.)
func TestBulkInsertOpenFileCost(t *testing.T) {
	if raceEnabled {
		t.Skip("heap figures are not meaningful under -race")
	}
	const parts, perPart = 300, 2
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
		PartitionFields: []string{"city"}, Schema: "ts BIGINT, uuid STRING, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	sch := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}, {Name: "uuid", Type: arrow.BinaryTypes.String},
		{Name: "fare", Type: arrow.PrimitiveTypes.Float64}, {Name: "city", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	for i := range parts * perPart {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("k%06d", i))
		b.Field(2).(*array.Float64Builder).Append(1.5)
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("c%04d", i%parts))
	}
	rec := b.NewRecord()
	defer rec.Release()
	base := liveHeap()
	rdr := &endProbe{recs: []arrow.Record{rec}}
	res, err := write.WriteReader(ctx, openMeta(t, tb), rdr, write.Options{Operation: write.BulkInsert, Mem: memory.NewGoAllocator()})
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesWritten != parts {
		t.Fatalf("%d files written, want one per partition (%d)", res.FilesWritten, parts)
	}
	per := (float64(rdr.atEnd) - float64(base)) / parts
	t.Logf("live heap with %d files open: %.1f MiB above the start, %.0f KB per open file", parts, mib(rdr.atEnd-min(base, rdr.atEnd)), per/1024)
	if per > 64<<10 {
		t.Fatalf("an open file of %d rows costs %.0f KB of live heap: the write's memory grows with the partitions", perPart, per/1024)
	}
}
