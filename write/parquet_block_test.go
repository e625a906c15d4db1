package write_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/format/logfile"
	"github.com/hudi-go/hudi/format/parquet"
	"github.com/hudi-go/hudi/internal/testutil"
)

// TestMORParquetDataBlocks: with hoodie.logfile.data.block.format=parquet an update is
// written as a PARQUET_DATA_BLOCK with the same block version and header keys as the
// Parquet blocks Spark wrote in mor-parquet/v6_simplekeygen_nonhivestyle; its content is
// a Parquet file holding the meta fields and the row, snapshot reads and compaction see it.
func TestMORParquetDataBlocks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts",
		Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"}); err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{"hoodie.logfile.data.block.format": "parquet"}
	write := func(op, uuid, rider string, ts int64) *hudi.WriteResult {
		t.Helper()
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		b := tripsBatch(ts, uuid, rider, 1, "sf")
		defer b.Release()
		res, err := tbl.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: op, Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	write("insert", "u1", "r1", 1)
	res := write("upsert", "u1", "r1-v2", 2)
	st := statJSON(t, dir, res.Instant+".deltacommit", "sf")
	blocks := readLog(t, filepath.Join(dir, st["path"].(string)))
	if len(blocks) != 1 || blocks[0].Type != logfile.ParquetDataBlock {
		t.Fatalf("log blocks %+v, want one PARQUET_DATA_BLOCK", blocks)
	}
	ours := blocks[0]

	var spark *logfile.Block
	fx := testutil.Table(t, "mor-parquet/v6_simplekeygen_nonhivestyle")
	logs, _ := filepath.Glob(filepath.Join(fx, "*", ".*.log.*"))
	for _, l := range logs {
		for _, b := range readLog(t, l) {
			if b.Type == logfile.ParquetDataBlock {
				spark = b
			}
		}
	}
	if spark == nil {
		t.Fatal("the fixture has no Parquet data block")
	}
	if ours.Version != spark.Version || fmt.Sprint(headerKeys(ours)) != fmt.Sprint(headerKeys(spark)) {
		t.Errorf("version %d headers %v; Spark %d %v", ours.Version, headerKeys(ours), spark.Version, headerKeys(spark))
	}
	pf, err := parquet.OpenBytes(ours.Content, "block", memory.DefaultAllocator, 1024)
	if err != nil {
		t.Fatalf("block content is not a Parquet file: %v", err)
	}
	defer pf.Close()
	if pf.NumRows() != 1 || pf.Schema().Field(2).Name != "_hoodie_record_key" || pf.Schema().NumFields() != 11 {
		t.Errorf("block file: %d rows, schema %v", pf.NumRows(), pf.Schema())
	}
	if v, ok := pf.Metadata(parquet.KeyAvroSchema); !ok || v != ours.Header[logfile.Schema] {
		t.Errorf("parquet.avro.schema footer %q, want the SCHEMA header", v)
	}
	if _, _, ok := pf.BloomFilter(); ok {
		t.Error("a Parquet data block carries a bloom filter; Java's does not")
	}
	tbl, _ := hudi.Open(ctx, dir)
	if got := riderOf(t, ctx, tbl, "u1", hudi.ScanOptions{}); got != "r1-v2" {
		t.Fatalf("snapshot rider %q, want r1-v2", got)
	}
	if _, err := tbl.Compact(ctx, hudi.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl, _ = hudi.Open(ctx, dir)
	if got := riderOf(t, ctx, tbl, "u1", hudi.ScanOptions{ReadOptimized: true}); got != "r1-v2" {
		t.Errorf("read-optimized rider after compaction %q, want r1-v2", got)
	}
}
