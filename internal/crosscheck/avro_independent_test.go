package crosscheck_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/testutil"
)

// Our merge-on-read log blocks are decoded here with github.com/hamba/avro, an Avro
// implementation independent of the one the writer uses (twmb/avro behind internal/avro):
// a bug shared by our encoder and our decoder would pass a round trip through our own
// reader, but not this. The block framing (magic, headers, lengths) is Hudi's, not Avro's,
// and is read with format/logfile; everything inside the Avro-encoded contents is decoded
// by hamba alone, with the Avro block layout written out here from Java's
// HoodieAvroDataBlock (int version, int count, then per record int length + datum) and
// HoodieDeleteBlock (int version, int length, HoodieDeleteRecordList datum), big-endian.

// tripsDDL is the quick-start trips table.
const tripsDDL = "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"

func tripRows(rows ...string) []byte { return []byte(strings.Join(rows, "\n") + "\n") }

func trip(ts int64, uuid, rider string, fare float64, city string) string {
	return fmt.Sprintf(`{"ts":%d,"uuid":%q,"rider":%q,"driver":"driver-X","fare":%v,"city":%q}`, ts, uuid, rider, fare, city)
}

// hambaAvroBlock decodes an AVRO_DATA_BLOCK's content with hamba and the block's SCHEMA header.
func hambaAvroBlock(t *testing.T, b *logfile.Block) []map[string]any {
	t.Helper()
	sc, err := hamba.Parse(b.Header[logfile.Schema])
	if err != nil {
		t.Fatalf("hamba parses the SCHEMA header of the block at %d: %v", b.Offset, err)
	}
	c := b.Content
	if len(c) < 8 {
		t.Fatalf("avro block at %d: %d content bytes", b.Offset, len(c))
	}
	if v := binary.BigEndian.Uint32(c); v != 3 {
		t.Errorf("avro block at %d: content version %d, want 3 (Java's HoodieAvroDataBlock)", b.Offset, v)
	}
	n := int(binary.BigEndian.Uint32(c[4:]))
	c = c[8:]
	var out []map[string]any
	for i := 0; i < n; i++ {
		if len(c) < 4 {
			t.Fatalf("avro block at %d: record %d of %d: content ends", b.Offset, i, n)
		}
		l := int(binary.BigEndian.Uint32(c))
		if l > len(c)-4 {
			t.Fatalf("avro block at %d: record %d length %d exceeds the block", b.Offset, i, l)
		}
		var rec map[string]any
		if err := hamba.Unmarshal(sc, c[4:4+l], &rec); err != nil {
			t.Fatalf("hamba decodes record %d of the block at %d: %v", i, b.Offset, err)
		}
		out = append(out, rec)
		c = c[4+l:]
	}
	if len(c) != 0 {
		t.Errorf("avro block at %d: %d bytes after the last record", b.Offset, len(c))
	}
	return out
}

// hambaDeleteBlock decodes a version-3 DELETE_BLOCK with hamba; the union branch of each
// ordering value is reported by its wrapper name.
func hambaDeleteBlock(t *testing.T, b *logfile.Block) []map[string]any {
	t.Helper()
	sc, err := hamba.Parse(avroschema.DeleteRecordList.JSON())
	if err != nil {
		t.Fatal(err)
	}
	c := b.Content
	if len(c) < 8 || binary.BigEndian.Uint32(c) != 3 {
		t.Fatalf("delete block at %d: not a version-3 delete block", b.Offset)
	}
	l := int(binary.BigEndian.Uint32(c[4:]))
	if l > len(c)-8 {
		t.Fatalf("delete block at %d: data length %d exceeds the content", b.Offset, l)
	}
	var list struct {
		Records []map[string]any `avro:"deleteRecordList"`
	}
	if err := hamba.Unmarshal(sc, c[8:8+l], &list); err != nil {
		t.Fatalf("hamba decodes the delete block at %d: %v", b.Offset, err)
	}
	return list.Records
}

// logBlocks reads every block of every log file under root, keyed by file name.
func logBlocks(t *testing.T, root string) map[string][]*logfile.Block {
	t.Helper()
	out := map[string][]*logfile.Block{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(d.Name(), ".log.") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		blocks, err := logfile.ReadAll(bytes.NewReader(b), int64(len(b)), p)
		if err != nil {
			return err
		}
		out[d.Name()] = blocks
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOurLogBlocksDecodeWithHamba(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tbl, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: tripsDDL})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.ParseDDL(tripsDDL)
	if err != nil {
		t.Fatal(err)
	}
	clock := steppingClock()
	write(t, tbl, decodeRows(t, tripRows(
		trip(1695159649087, "u-a", "rider-A", 19.10, "san_francisco"),
		trip(1695091554788, "u-c", "rider-C", 27.70, "san_francisco"),
		trip(1695516137016, "u-f", "rider-F", 34.15, "sao_paulo"),
		trip(1695115999911, "u-j", "rider-J", 17.85, "chennai"),
	), sc), "insert", clock, nil)
	write(t, tbl, decodeRows(t, tripRows(
		trip(1695159649099, "u-a", "rider-A", 191.0, "san_francisco"),
		trip(1695115999999, "u-j", "rider-J", 0.5, "chennai"),
	), sc), "upsert", clock, nil)
	write(t, tbl, decodeRows(t, tripRows(trip(1695516137016, "u-f", "rider-F", 34.15, "sao_paulo")), sc), "delete", clock, nil)

	var data, deletes []map[string]any
	for name, blocks := range logBlocks(t, dir) {
		for _, b := range blocks {
			switch b.Type {
			case logfile.AvroDataBlock:
				data = append(data, hambaAvroBlock(t, b)...)
			case logfile.DeleteBlock:
				deletes = append(deletes, hambaDeleteBlock(t, b)...)
			default:
				t.Errorf("%s: unexpected %s at %d", name, b.Type, b.Offset)
			}
		}
	}
	sort.Slice(data, func(i, j int) bool { return data[i]["uuid"].(string) < data[j]["uuid"].(string) })
	want := []struct {
		uuid, partition string
		ts              int64
		fare            float64
	}{{"u-a", "san_francisco", 1695159649099, 191.0}, {"u-j", "chennai", 1695115999999, 0.5}}
	if len(data) != len(want) {
		t.Fatalf("hamba decoded %d data records, want %d: %v", len(data), len(want), data)
	}
	for i, w := range want {
		r := data[i]
		// Nullable columns are unions in the Avro schema: hamba gives the bare value for a
		// ["null", T] union when decoding into map[string]any.
		if r["uuid"] != w.uuid || r["ts"] != w.ts || r["fare"] != w.fare || r["city"] != w.partition {
			t.Errorf("record %d = %v, want uuid %s ts %d fare %v city %s", i, r, w.uuid, w.ts, w.fare, w.partition)
		}
		if r["_hoodie_record_key"] != w.uuid || r["_hoodie_partition_path"] != w.partition {
			t.Errorf("record %d meta fields key %v partition %v", i, r["_hoodie_record_key"], r["_hoodie_partition_path"])
		}
		if ct, _ := r["_hoodie_commit_time"].(string); len(ct) != 17 {
			t.Errorf("record %d _hoodie_commit_time %v", i, r["_hoodie_commit_time"])
		}
	}
	if len(deletes) != 1 || deletes[0]["recordKey"] != "u-f" || deletes[0]["partitionPath"] != "sao_paulo" {
		t.Fatalf("hamba decoded deletes %v, want u-f in sao_paulo", deletes)
	}
	// An unconditional delete carries Java's default ordering value, int 0 (IntWrapper).
	// hamba names a decoded union branch by its full name.
	ov, _ := deletes[0]["orderingVal"].(map[string]any)
	if w, ok := ov["org.apache.hudi.avro.model.IntWrapper"].(map[string]any); !ok || w["value"] != 0 {
		t.Errorf("ordering value %#v, want IntWrapper{0}", deletes[0]["orderingVal"])
	}
}

// TestDeleteBlockLikeSpark compares the delete block we write for a SQL-style delete with
// the one Spark wrote in trips-mor-avro/v8_trips_8i3u1d (Hudi 1.x keeps the 0.14 v3 delete
// encoding): block type and version, header keys and value forms, and the decoded record
// shape — both decoded by hamba, not by our reader.
func TestDeleteBlockLikeSpark(t *testing.T) {
	fx := testutil.Table(t, "trips-mor-avro/v8_trips_8i3u1d")
	var spark *logfile.Block
	for _, blocks := range logBlocks(t, fx) {
		for _, b := range blocks {
			if b.Type == logfile.DeleteBlock {
				spark = b
			}
		}
	}
	if spark == nil {
		t.Fatal("fixture has no delete block")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tbl, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: tripsDDL})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := schema.ParseDDL(tripsDDL)
	clock := steppingClock()
	write(t, tbl, decodeRows(t, tripRows(trip(1, "u-f", "rider-F", 1, "sao_paulo")), sc), "insert", clock, nil)
	write(t, tbl, decodeRows(t, tripRows(trip(1, "u-f", "rider-F", 1, "sao_paulo")), sc), "delete", clock, nil)
	var ours *logfile.Block
	for _, blocks := range logBlocks(t, dir) {
		for _, b := range blocks {
			if b.Type == logfile.DeleteBlock {
				ours = b
			}
		}
	}
	if ours == nil {
		t.Fatal("our delete wrote no delete block")
	}
	if ours.Version != spark.Version {
		t.Errorf("log format version %d, Spark %d", ours.Version, spark.Version)
	}
	if got, want := headerKeys(ours), headerKeys(spark); !equalStrings(got, want) {
		t.Errorf("header keys %v, Spark %v", got, want)
	}
	if len(ours.InstantTime()) != 17 || len(spark.InstantTime()) != 17 {
		t.Errorf("INSTANT_TIME forms %q / Spark %q", ours.InstantTime(), spark.InstantTime())
	}
	if !bytes.Equal(ours.Content[:4], spark.Content[:4]) {
		t.Errorf("content version % x, Spark % x", ours.Content[:4], spark.Content[:4])
	}
	o, s := hambaDeleteBlock(t, ours), hambaDeleteBlock(t, spark)
	if len(o) != 1 || len(s) == 0 {
		t.Fatalf("decoded %d ours / %d Spark delete records", len(o), len(s))
	}
	if fmt.Sprint(sortedKeys(o[0])) != fmt.Sprint(sortedKeys(s[0])) {
		t.Errorf("delete record fields %v, Spark %v", sortedKeys(o[0]), sortedKeys(s[0]))
	}
	// Spark SQL's DELETE writes the default ordering value (IntWrapper 0); so must we.
	if fmt.Sprintf("%#v", o[0]["orderingVal"]) != fmt.Sprintf("%#v", s[0]["orderingVal"]) {
		t.Errorf("ordering value %#v, Spark %#v", o[0]["orderingVal"], s[0]["orderingVal"])
	}
}

func headerKeys(b *logfile.Block) []string {
	var out []string
	for k := range b.Header {
		out = append(out, k.String())
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// TestParquetDataBlockReadsInDuckDB: the content of our PARQUET_DATA_BLOCK is a Parquet
// file that DuckDB — a Parquet reader independent of arrow-go, which wrote it — reads with
// the meta fields and the updated row.
func TestParquetDataBlockReadsInDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tbl, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: tripsDDL})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := schema.ParseDDL(tripsDDL)
	clock := steppingClock()
	pq := map[string]string{"hoodie.logfile.data.block.format": "parquet"}
	write(t, tbl, decodeRows(t, tripRows(trip(1, "u-a", "rider-A", 1.5, "sf"), trip(1, "u-b", "rider-B", 2.5, "sf")), sc), "insert", clock, pq)
	write(t, tbl, decodeRows(t, tripRows(trip(2, "u-a", "rider-A2", 10.25, "sf")), sc), "upsert", clock, pq)
	var content []byte
	for _, blocks := range logBlocks(t, dir) {
		for _, b := range blocks {
			if b.Type == logfile.ParquetDataBlock {
				content = b.Content
			}
		}
	}
	if content == nil {
		t.Fatal("no Parquet data block written")
	}
	f := filepath.Join(t.TempDir(), "block.parquet")
	if err := os.WriteFile(f, content, 0o644); err != nil {
		t.Fatal(err)
	}
	db := openDuckDB(t)
	var key, rider, part string
	var fare float64
	var n int
	if err := db.QueryRow(fmt.Sprintf(`SELECT count(*) OVER (), _hoodie_record_key, _hoodie_partition_path, rider, fare FROM read_parquet('%s')`, f)).
		Scan(&n, &key, &part, &rider, &fare); err != nil {
		t.Fatal(err)
	}
	if n != 1 || key != "u-a" || part != "sf" || rider != "rider-A2" || fare != 10.25 {
		t.Errorf("DuckDB reads %d rows: %s %s %s %v", n, key, part, rider, fare)
	}
}

// TestCompactionPlanDecodesWithHamba: our <C>.compaction.requested is an Avro object
// container that hamba's OCF reader decodes with the schema it embeds (Java's
// HoodieCompactionPlan), field by field.
func TestCompactionPlanDecodesWithHamba(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tbl, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: tripsDDL})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := schema.ParseDDL(tripsDDL)
	clock := steppingClock()
	write(t, tbl, decodeRows(t, tripRows(trip(1, "u-a", "rider-A", 1.5, "sf"), trip(1, "u-b", "rider-B", 2.5, "la")), sc), "insert", clock, nil)
	write(t, tbl, decodeRows(t, tripRows(trip(2, "u-a", "rider-A2", 3.5, "sf")), sc), "upsert", clock, nil)
	res, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Now: clock})
	if err != nil || res.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	f, err := os.Open(filepath.Join(dir, ".hoodie", res.Scheduled+".compaction.requested"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		t.Fatalf("hamba opens the plan container: %v", err)
	}
	if !strings.Contains(dec.Schema().String(), "HoodieCompactionPlan") {
		t.Errorf("embedded schema %s", dec.Schema().String())
	}
	var plans []map[string]any
	for dec.HasNext() {
		var p map[string]any
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("hamba decodes the plan: %v", err)
		}
		plans = append(plans, p)
	}
	if err := dec.Error(); err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 {
		t.Fatalf("%d plans in the container", len(plans))
	}
	// hamba names the branch of a ["null", array|map] union: {"array": …}, {"map": …}.
	branch := func(v any, name string) any {
		if m, ok := v.(map[string]any); ok {
			return m[name]
		}
		return nil
	}
	ops, _ := branch(plans[0]["operations"], "array").([]any)
	if len(ops) != 1 {
		t.Fatalf("operations %#v, want the one group with a log file", plans[0]["operations"])
	}
	op, _ := ops[0].(map[string]any)
	deltas, _ := branch(op["deltaFilePaths"], "array").([]any)
	metrics, _ := branch(op["metrics"], "map").(map[string]any)
	if op["partitionPath"] != "sf" || len(deltas) != 1 || !strings.Contains(deltas[0].(string), ".log.1_") ||
		!strings.HasSuffix(op["dataFilePath"].(string), ".parquet") || metrics["TOTAL_LOG_FILES"] != 1.0 || plans[0]["version"] != 2 {
		t.Errorf("plan decoded by hamba: %#v", plans[0])
	}
}
