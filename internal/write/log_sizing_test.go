package write_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/logfile"
)

// TestMORLogBlockSizingAndRollover: with small hoodie.logfile.data.block.max.size and
// hoodie.logfile.max.size an update of 300 records is cut into several data blocks spread
// over several log versions, one write stat per log file (as Java's append handle starts a
// new stat for each file it rolls over to); the counts add up and reads are unchanged.
func TestMORLogBlockSizingAndRollover(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts",
		Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	batch := func(ts int64, rider string) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, morTripsSchema)
		defer b.Release()
		for i := 0; i < n; i++ {
			b.Field(0).(*array.Int64Builder).Append(ts)
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("u%04d", i))
			b.Field(2).(*array.StringBuilder).Append(rider)
			b.Field(3).(*array.StringBuilder).Append("driver")
			b.Field(4).(*array.Float64Builder).Append(float64(i))
			b.Field(5).(*array.StringBuilder).Append("sf")
		}
		return b.NewRecord()
	}
	ins := batch(1, "r1")
	defer ins.Release()
	if _, err := tbl.Write(ctx, []arrow.Record{ins}, hudi.WriteOptions{Operation: "insert"}); err != nil {
		t.Fatal(err)
	}
	upd := batch(2, "r2")
	defer upd.Release()
	res, err := tbl.Write(ctx, []arrow.Record{upd}, hudi.WriteOptions{Settings: map[string]string{
		"hoodie.logfile.data.block.max.size": "4096", "hoodie.logfile.max.size": "10000"}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+".deltacommit"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		PartitionToWriteStats map[string][]struct {
			Path            string
			NumWrites       int64
			NumUpdateWrites int64
			LogVersion      int
			LogFiles        []string
		}
	}
	if err := json.Unmarshal(body, &meta); err != nil {
		t.Fatal(err)
	}
	stats := meta.PartitionToWriteStats["sf"]
	if len(stats) < 2 {
		t.Fatalf("%d write stats, want one per rolled-over log file (several)", len(stats))
	}
	var writes, blocks int64
	versions := map[int]bool{}
	for _, s := range stats {
		writes += s.NumWrites
		if s.NumUpdateWrites != s.NumWrites {
			t.Errorf("stat %s: %d writes, %d updates", s.Path, s.NumWrites, s.NumUpdateWrites)
		}
		versions[s.LogVersion] = true
		fi, err := os.Stat(filepath.Join(dir, s.Path))
		if err != nil {
			t.Fatal(err)
		}
		bs := readLog(t, filepath.Join(dir, s.Path))
		for _, b := range bs {
			if b.Type != logfile.AvroDataBlock {
				t.Errorf("%s: block %s", s.Path, b.Type)
			}
		}
		blocks += int64(len(bs))
		// A file rolls over at the first block that reaches the limit: it exceeds it by
		// less than one block.
		if fi.Size() > 10000+8192 {
			t.Errorf("%s is %d bytes, far beyond hoodie.logfile.max.size", s.Path, fi.Size())
		}
	}
	t.Logf("%d records in %d data blocks over %d log files", writes, blocks, len(stats))
	if writes != n || len(versions) != len(stats) || blocks <= int64(len(stats)) {
		t.Errorf("%d records over %d blocks in %d files (versions %v), want %d records, more blocks than files", writes, blocks, len(stats), versions, n)
	}
	tbl, _ = hudi.Open(ctx, dir)
	for _, o := range []hudi.ScanOptions{{}} {
		if got := riderOf(t, ctx, tbl, "u0123", o); got != "r2" {
			t.Errorf("rider %q, want r2", got)
		}
	}
	if c, err := tbl.Compact(ctx, hudi.CompactOptions{}); err != nil || !c.Completed {
		t.Fatalf("compact: %+v %v", c, err)
	}
	tbl, _ = hudi.Open(ctx, dir)
	if got := riderOf(t, ctx, tbl, "u0299", hudi.ScanOptions{ReadOptimized: true}); got != "r2" {
		t.Errorf("read-optimized rider after compaction %q, want r2", got)
	}
}
