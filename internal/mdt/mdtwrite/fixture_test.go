package mdtwrite_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

// tripsTable creates a partitioned table (3 cities) and upserts into it n times, with
// the metadata table on (the default).
func tripsTable(t *testing.T, typ string, n int, settings map[string]string) (*hudi.Table, string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < n; b++ {
		upsert(t, tb, b, settings)
	}
	return tb, dir
}

// upsert writes three rows (one per city), keys rotating so that some are updates.
func upsert(t *testing.T, tb *hudi.Table, b int, settings map[string]string) {
	t.Helper()
	s := arrow.NewSchema([]arrow.Field{{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer rb.Release()
	for i, city := range []string{"sf", "nyc", "la"} {
		rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("k%02d", i+b%4))
		rb.Field(1).(*array.Int64Builder).Append(int64(b))
		rb.Field(2).(*array.Float64Builder).Append(float64(b*10 + i))
		rb.Field(3).(*array.StringBuilder).Append(city)
	}
	rec := rb.NewRecord()
	defer rec.Release()
	if _, err := tb.Write(context.Background(), []arrow.Record{rec}, hudi.WriteOptions{Operation: "upsert", Settings: settings}); err != nil {
		t.Fatal(err)
	}
}

func mustValidate(t *testing.T, dir, when string) *mdtwrite.Validation {
	t.Helper()
	v, err := mdtwrite.Validate(context.Background(), local.New(dir))
	if err != nil {
		t.Fatalf("%s: validate: %v", when, err)
	}
	if !v.OK() {
		t.Fatalf("%s: the metadata table differs from storage:\n%s", when, strings.Join(v.Differences, "\n"))
	}
	return v
}

func readBlocks(t *testing.T, p string) []*logfile.Block {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := logfile.ReadAll(bytes.NewReader(b), int64(len(b)), p)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

func headerKeys(b *logfile.Block) string {
	var ks []string
	for k := range b.Header {
		ks = append(ks, k.String())
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func fileInfoKeys(r *hfile.Reader) string {
	ks := append([]string(nil), r.FileInfo().Keys...)
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func openHFile(t *testing.T, b []byte, name string) *hfile.Reader {
	t.Helper()
	r, err := hfile.OpenBytes(b, name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func glob1(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no file %s", pattern)
	}
	sort.Strings(m)
	return m[0]
}

// The metadata table hudi-go writes has the structure of the one Spark wrote in the
// fixture trips-mor-avro/v8_trips_8i3u1d (Hudi 1.0, the only writer of a metadata table
// among the fixtures; no v6 fixture has one): the same hoodie.properties keys (less 1.x's),
// file group names, an initial log file byte-identical but for its instant, HFILE_DATA_BLOCKs
// with the same header keys holding HFiles with the same trailer and file-info keys, base
// HFiles with the same file info, bloom filter meta block and filter type, and records
// encoded as Java encodes them (the fixture's value bytes less the field Hudi 1.0 added).
func TestMetadataTableLikeSparkFixture(t *testing.T) {
	_, dir := tripsTable(t, "cow", 2, nil)
	mustValidate(t, dir, "after two upserts")
	fix := filepath.Join(testutil.Table(t, "trips-mor-avro/v8_trips_8i3u1d"), ".hoodie", "metadata")
	ours := filepath.Join(dir, ".hoodie", "metadata")

	// hoodie.properties: our keys are the fixture's less those Hudi 1.x added (and with the
	// key generator class 0.14 records where 1.x records its type).
	readProps := func(p string) *props.Properties {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pp, err := props.Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return pp
	}
	fp, op := readProps(filepath.Join(fix, ".hoodie", "hoodie.properties")), readProps(filepath.Join(ours, ".hoodie", "hoodie.properties"))
	only1x := map[string]bool{"hoodie.table.initial.version": true, "hoodie.table.keygenerator.type": true, "hoodie.timeline.history.path": true,
		"hoodie.timeline.path": true, "hoodie.record.merge.strategy.id": true, "hoodie.record.merge.mode": true,
		"hoodie.datasource.write.drop.partition.columns": true}
	var want, got []string
	for _, k := range fp.Keys() {
		if !only1x[k] {
			want = append(want, k)
		}
	}
	for _, k := range op.Keys() {
		if k != "hoodie.table.keygenerator.class" {
			got = append(got, k)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("metadata table properties: keys %v, the fixture's (less 1.x's) %v", got, want)
	}
	for _, k := range []string{"hoodie.table.type", "hoodie.table.base.file.format", "hoodie.table.recordkey.fields", "hoodie.populate.meta.fields",
		"hoodie.compaction.payload.class"} {
		if a, _ := op.Get(k); a != mustGet(t, fp, k) {
			t.Errorf("%s = %q, the fixture's %q", k, a, mustGet(t, fp, k))
		}
	}
	if v, _ := op.Get("hoodie.table.name"); v != "trips_metadata" {
		t.Errorf("hoodie.table.name = %q", v)
	}

	// The initial log file: one empty DELETE_BLOCK, byte for byte the fixture's but for the
	// instant (ours is a version-6 table's first initialization, 00000000000000010).
	fixInit, err := os.ReadFile(filepath.Join(fix, "files", ".files-0000-0_00000000000000000.log.1_0-0-0"))
	if err != nil {
		t.Fatal(err)
	}
	ourInit, err := os.ReadFile(filepath.Join(ours, "files", ".files-0000-0_00000000000000010.log.1_0-0-0"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ourInit, bytes.Replace(fixInit, []byte("00000000000000000"), []byte("00000000000000010"), 1)) {
		t.Errorf("initial log file:\n ours %x\n Java %x", ourInit, fixInit)
	}

	// A deltacommit's log block.
	fixLog := readBlocks(t, filepath.Join(fix, "files", ".files-0000-0_20251220210123755.log.1_3-1032-2950"))
	ourLog := readBlocks(t, glob1(t, filepath.Join(ours, "files", ".files-0000-0_00000000000000010.log.2_*")))
	if len(ourLog) != len(fixLog) || ourLog[0].Type != fixLog[0].Type || headerKeys(ourLog[0]) != headerKeys(fixLog[0]) {
		t.Fatalf("log block: %d blocks, %v, header %s; the fixture's %d, %v, %s", len(ourLog), ourLog[0].Type, headerKeys(ourLog[0]),
			len(fixLog), fixLog[0].Type, headerKeys(fixLog[0]))
	}
	fixBlockFile, ourBlockFile := openHFile(t, fixLog[0].Content, "fixture block"), openHFile(t, ourLog[0].Content, "our block")
	checkHFileLike(t, "log block", ourBlockFile, fixBlockFile)
	if fi, _ := ourBlockFile.FileInfo().Get(hfile.InfoSchema); string(fi) != ourLog[0].Header[logfile.Schema] || string(fi) != avroschema.MetadataRecord.JSON() {
		t.Error("the block's schema file info differs from its SCHEMA header or the record schema")
	}

	// The base file of the initialization: file info, the bloom filter meta block.
	fixBase := openHFile(t, mustRead(t, filepath.Join(fix, "files", "files-0000-0_0-955-2690_00000000000000000.hfile")), "fixture base")
	ourBaseName := glob1(t, filepath.Join(ours, "files", "files-0000-0_*_00000000000000010.hfile"))
	ourBase := openHFile(t, mustRead(t, ourBaseName), "our base")
	checkHFileLike(t, "base file", ourBase, fixBase)
	bf, ok, err := ourBase.MetaBlock(hfile.BloomFilterMetaName)
	if err != nil || !ok {
		t.Fatalf("base file has no bloom filter meta block: %v", err)
	}
	code, _ := ourBase.FileInfo().Get(hfile.InfoBloomTypeCode)
	filter, err := bloom.Deserialize(string(bf), string(code))
	if err != nil {
		t.Fatal(err)
	}
	it := ourBase.All()
	for it.Next() {
		if !filter.MightContain(string(it.Key())) {
			t.Errorf("the base file's bloom filter lacks %q", it.Key())
		}
	}

	// Record bytes: the fixture's __all_partitions__ record of the log block (one
	// partition) is exactly ours but for SecondaryIndexMetadata, which Hudi 1.0 appended
	// (a null union: one zero byte).
	v, ok, err := fixBlockFile.Get([]byte(mdt.AllPartitionsKey))
	if err != nil || !ok {
		t.Fatalf("fixture block lacks %s: %v", mdt.AllPartitionsKey, err)
	}
	recs, err := mdt.DecodeHFile(fixLog[0].Content, "fixture block")
	if err != nil {
		t.Fatal(err)
	}
	var all *mdt.Record
	for _, r := range recs {
		if r.Key == mdt.AllPartitionsKey {
			all = r
		}
	}
	if all == nil || len(all.Files) != 1 {
		t.Fatalf("fixture's %s record: %+v", mdt.AllPartitionsKey, all)
	}
	enc, err := mdt.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	ourBytes, err := enc.Encode(all)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(ourBytes, 0), v) {
		t.Errorf("%s record:\n ours %x\n Java %x", mdt.AllPartitionsKey, ourBytes, v)
	}
	// Our records decode with Hudi 1.0's record as the reader schema (Java resolves a
	// block's writer schema against its own).
	ws, _ := avro.Parse(avroschema.MetadataRecord.JSON())
	rs, _ := avro.Parse(avroschema.MetadataRecordV8.JSON())
	res, err := avro.Resolve(ws, rs)
	if err != nil {
		t.Fatalf("resolve our schema against Hudi 1.0's: %v", err)
	}
	it = ourBlockFile.All()
	for it.Next() {
		if _, _, err := res.Decode(it.Value()); err != nil {
			t.Errorf("record %q does not decode with Hudi 1.0's reader schema: %v", it.Key(), err)
		}
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustGet(t *testing.T, p *props.Properties, k string) string {
	t.Helper()
	v, ok := p.Get(k)
	if !ok {
		t.Fatalf("fixture properties lack %s", k)
	}
	return v
}

// checkHFileLike compares what Java fixes in an HFile: the trailer's version, codec and
// comparator, the file-info keys and the meta blocks' names.
func checkHFileLike(t *testing.T, what string, ours, java *hfile.Reader) {
	t.Helper()
	ot, jt := ours.Trailer(), java.Trailer()
	if ot.MajorVersion != jt.MajorVersion || ot.MinorVersion != jt.MinorVersion || ot.Codec != jt.Codec || ot.ComparatorClassName != jt.ComparatorClassName {
		t.Errorf("%s trailer: v%d.%d %v %s; the fixture's v%d.%d %v %s", what, ot.MajorVersion, ot.MinorVersion, ot.Codec, ot.ComparatorClassName,
			jt.MajorVersion, jt.MinorVersion, jt.Codec, jt.ComparatorClassName)
	}
	if a, b := fileInfoKeys(ours), fileInfoKeys(java); a != b {
		t.Errorf("%s file info keys: %s; the fixture's %s", what, a, b)
	}
	names := func(r *hfile.Reader) string {
		var ns []string
		for _, e := range r.MetaIndex() {
			ns = append(ns, string(e.Key))
		}
		return strings.Join(ns, ",")
	}
	if a, b := names(ours), names(java); a != b {
		t.Errorf("%s meta blocks: %s; the fixture's %s", what, a, b)
	}
}

// sparkMetadataTables unzips the Spark-written fixtures that carry a metadata table (all
// Hudi 1.x, table versions 8 and 9).
func sparkMetadataTables(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range testutil.MetadataTableIDs(t) {
		out[id] = ""
	}
	if len(out) != 14 {
		t.Fatalf("%d fixtures with a metadata table, want 14", len(out))
	}
	for id := range out {
		out[id] = testutil.Table(t, id)
	}
	return out
}

// Validate passes on each of the 14 Spark-written tables with a metadata table: its files
// partition plans the file slices a listing does, and it is current, so reads plan from it
// (the fixture check then compares those reads with Spark's expected rows). Writes and
// services on them keep it current: the root package's TestServicesOnSparkTablesLayoutTwo
// validates it after each step.
func TestValidateSparkMetadataTables(t *testing.T) {
	ctx := context.Background()
	slices := 0
	for id, dir := range sparkMetadataTables(t) {
		t.Run(id, func(t *testing.T) {
			v := mustValidate(t, dir, "as Spark wrote it")
			slices += v.FileSlices
			// Reads plan from it (table.Files): Spark kept it current.
			m, err := mdt.Open(ctx, local.New(dir))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.CheckCurrent(); err != nil {
				t.Errorf("Spark's metadata table is not current: %v", err)
			}
		})
	}
	t.Logf("compared %d file slices", slices)
}

func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, fmt.Sprintf("%s %d", rel, fi.Size()))
		}
		return nil
	})
	return strings.Join(out, "\n")
}
