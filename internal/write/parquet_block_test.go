package write_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
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

// TestMORParquetDataBlockListsLikeBaseFile: Java 0.14's HoodieParquetDataBlock writes its
// content through the same HoodieAvroWriteSupport (parquet-avro, old list structure) as
// base files, so a Parquet data block holding lists, lists of lists and of maps, maps of
// lists and a struct of them has the same footer schema as the file group's base file,
// element by element (2-level `repeated … array` lists, MAP_KEY_VALUE), and its footer the
// Avro schema of the SCHEMA header and writer.model.name=avro, without bloom filter or key
// range (HoodieFileWriterFactory turns the bloom filter off for log blocks). The updated
// rows read back through snapshot reads and compaction.
func TestMORParquetDataBlockListsLikeBaseFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ddl := "id STRING, ts BIGINT, tags ARRAY<STRING>, recs ARRAY<STRUCT<a: STRING, b: INT>>, lol ARRAY<ARRAY<BIGINT>>, " +
		"lom ARRAY<MAP<STRING, INT>>, mol MAP<STRING, ARRAY<DOUBLE>>, st STRUCT<l: ARRAY<DATE>, m: MAP<STRING, STRING>>, p STRING"
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "lists", Type: "mor", RecordKeyFields: []string{"id"},
		PartitionFields: []string{"p"}, PrecombineField: "ts", Schema: ddl}); err != nil {
		t.Fatal(err)
	}
	sc, err := schema.ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(ts int, suffix string) []arrow.Record {
		var b strings.Builder
		for k := 0; k < 4; k++ {
			fmt.Fprintf(&b, `{"id":"k%d","ts":%d,"tags":["t%d%s","u"],"recs":[{"a":"r%s","b":%d},{"a":null,"b":null}],`+
				`"lol":[[%d,2],[]],"lom":[[{"key":"x","value":%d}],[]],`+
				`"mol":[{"key":"m","value":[1.5,%d.25]},{"key":"e","value":[]},{"key":"n","value":null}],`+
				`"st":{"l":["2024-01-0%d"],"m":[{"key":"a","value":"%s"}]},"p":"p1"}`+"\n", k, ts, k, suffix, suffix, k, k, k, k, k+1, suffix)
		}
		var out []arrow.Record
		for rec, err := range jsonl.Decode(strings.NewReader(b.String()), sc, memory.DefaultAllocator, 16) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rec)
		}
		return out
	}
	settings := map[string]string{"hoodie.logfile.data.block.format": "parquet"}
	var results []*hudi.WriteResult
	for i, op := range []string{"insert", "upsert"} {
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tbl.Write(ctx, rows(i+1, fmt.Sprint("v", i)), hudi.WriteOptions{Operation: op, Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	base := statJSON(t, dir, results[0].Instant+".deltacommit", "p1")
	st := statJSON(t, dir, results[1].Instant+".deltacommit", "p1")
	blocks := readLog(t, filepath.Join(dir, st["path"].(string)))
	if len(blocks) != 1 || blocks[0].Type != logfile.ParquetDataBlock {
		t.Fatalf("log blocks %+v, want one PARQUET_DATA_BLOCK", blocks)
	}
	baseBytes, err := os.ReadFile(filepath.Join(dir, base["path"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	rawSchema := func(b []byte) string {
		els, err := parquet.ReadSchemaElements(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return parquet.FormatSchema(els)
	}
	block := blocks[0].Content
	if got, want := rawSchema(block), rawSchema(baseBytes); got != want {
		t.Errorf("block schema:\n%s\nbase file schema:\n%s", got, want)
	}
	for _, want := range []string{"optional group tags converted=LIST logical=LIST\n    repeated binary array converted=UTF8",
		"repeated group array converted=LIST logical=LIST\n      repeated int64 array",
		"repeated group array converted=MAP logical=MAP\n      repeated group key_value converted=MAP_KEY_VALUE\n"} {
		if !strings.Contains(rawSchema(block), want) {
			t.Errorf("block schema lacks %q:\n%s", want, rawSchema(block))
		}
	}
	pf, err := parquet.OpenBytes(block, "block", memory.DefaultAllocator, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if got := pf.MetadataKeys(); fmt.Sprint(got) != fmt.Sprint([]string{parquet.KeyAvroSchema, parquet.KeyWriterModelName}) {
		t.Errorf("block footer keys %v", got)
	}
	if v, _ := pf.Metadata(parquet.KeyAvroSchema); v != blocks[0].Header[logfile.Schema] {
		t.Errorf("parquet.avro.schema %q, want the SCHEMA header", v)
	}
	pf.Close()

	want := func(tbl *hudi.Table, opts hudi.ScanOptions) string {
		t.Helper()
		opts.Columns = []string{"id", "tags", "recs", "lol", "lom", "mol", "st"}
		scan, err := tbl.Scan(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := scan.Run(ctx, func(r arrow.Record) error {
			for i := 0; i < int(r.NumRows()); i++ {
				for c := 0; c < int(r.NumCols()); c++ {
					b.Write(jsonl.AppendValue(nil, r.Column(c), i))
					b.WriteByte(' ')
				}
				b.WriteByte('\n')
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	tbl, _ := hudi.Open(ctx, dir)
	snap := want(tbl, hudi.ScanOptions{})
	if !strings.Contains(snap, `"k3" ["t3v1","u"] [{"a":"rv1","b":3},{"a":null,"b":null}] [[3,2],[]] [[{"key":"x","value":3}],[]]`) {
		t.Errorf("snapshot:\n%s", snap)
	}
	if _, err := tbl.Compact(ctx, hudi.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl, _ = hudi.Open(ctx, dir)
	if ro := want(tbl, hudi.ScanOptions{ReadOptimized: true}); ro != snap {
		t.Errorf("read-optimized after compaction:\n%s\nsnapshot before:\n%s", ro, snap)
	}
}
