package logfile

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/testutil"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readAllBytes(t testing.TB, data []byte, name string) []*Block {
	t.Helper()
	blocks, err := ReadAll(bytes.NewReader(data), int64(len(data)), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return blocks
}

// wantBlock is what a golden test asserts about one block.
type wantBlock struct {
	typ        BlockType
	offset     int64
	length     int64
	header     map[HeaderKey]string // every key but Schema, which is checked by hasSchema
	order      []HeaderKey
	hasSchema  bool
	contentLen int
	prefix     string // content prefix
	suffix     string // content suffix
	avroRecs   int    // Avro data block: number of records
	deletes    []DeleteRecord
}

func TestGoldenFiles(t *testing.T) {
	tests := []struct {
		file   string
		blocks []wantBlock
	}{
		{"avro_v6_trips_8i1u.log", []wantBlock{{
			typ: AvroDataBlock, offset: 0, length: 1148,
			header: map[HeaderKey]string{InstantTime: "20250331030645735"}, order: []HeaderKey{InstantTime, Schema},
			hasSchema: true, contentLen: 240, prefix: "\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\xe4", avroRecs: 1,
		}}},
		{"parquet_v6_rollback.log.1", []wantBlock{{
			typ: ParquetDataBlock, offset: 0, length: 11828,
			header: map[HeaderKey]string{InstantTime: "20250126040826878"}, order: []HeaderKey{Schema, InstantTime},
			hasSchema: true, contentLen: 8867, prefix: "PAR1", suffix: "PAR1",
		}}},
		{"command_v6_rollback.log.2", []wantBlock{{
			typ: CommandBlock, offset: 0, length: 105,
			header: map[HeaderKey]string{InstantTime: "20250126040936578", CommandBlockType: "0", TargetInstantTime: "20250126040826878"},
			order:  []HeaderKey{InstantTime, CommandBlockType, TargetInstantTime},
		}}},
		{"delete_v8_trips_8i3u1d.log", []wantBlock{{
			typ: DeleteBlock, offset: 0, length: 976,
			header: map[HeaderKey]string{InstantTime: "20251220210128625"}, order: []HeaderKey{Schema, InstantTime},
			hasSchema: true, contentLen: 64,
			deletes: []DeleteRecord{{RecordKey: "c8abbe79-8d89-47ea-b4ce-4d224bae5bfa", PartitionPath: "city=chennai", OrderingValue: int32(0)}},
		}}},
		{"delete_v9_txns_complex_nometa.log", []wantBlock{{
			typ: DeleteBlock, offset: 0, length: 1862,
			header: map[HeaderKey]string{InstantTime: "20260307135901998"}, order: []HeaderKey{Schema, InstantTime},
			hasSchema: true, contentLen: 56,
			deletes: []DeleteRecord{{RecordKey: "txn_id:TXN-002,account_id:ACC-B", PartitionPath: "region=us", OrderingValue: int32(0)}},
		}}},
		{"mdt_hfile_delete_v9.log", []wantBlock{
			{
				typ: HFileDataBlock, offset: 0, length: 15482,
				header: map[HeaderKey]string{InstantTime: "20260307162644914"}, order: []HeaderKey{InstantTime, Schema},
				hasSchema: true, contentLen: 6493, prefix: "DATABLK*",
			},
			{
				typ: DeleteBlock, offset: 15482, length: 9048,
				header: map[HeaderKey]string{InstantTime: "20260307162644914"}, order: []HeaderKey{InstantTime, Schema},
				hasSchema: true, contentLen: 59,
				deletes: []DeleteRecord{{RecordKey: "txn_id:TXN-005,account_id:ACC-D", PartitionPath: "record_index", OrderingValue: int32(0)}},
			},
		}},
		{"mdt_empty_delete_v9.log", []wantBlock{{
			typ: DeleteBlock, offset: 0, length: 80,
			header: map[HeaderKey]string{InstantTime: "00000000000000000"}, order: []HeaderKey{InstantTime},
			contentLen: 9, prefix: "\x00\x00\x00\x03\x00\x00\x00\x01\x00", deletes: []DeleteRecord{},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readTestdata(t, tt.file)
			blocks := readAllBytes(t, data, tt.file)
			if len(blocks) != len(tt.blocks) {
				t.Fatalf("got %d blocks, want %d", len(blocks), len(tt.blocks))
			}
			for i, want := range tt.blocks {
				b := blocks[i]
				if b.Type != want.typ || b.Offset != want.offset || b.Length != want.length || b.Version != FormatVersion {
					t.Fatalf("block %d: got %s offset %d length %d version %d, want %s offset %d length %d version 1",
						i, b.Type, b.Offset, b.Length, b.Version, want.typ, want.offset, want.length)
				}
				for k, v := range want.header {
					if b.Header[k] != v {
						t.Errorf("block %d header %s = %q, want %q", i, k, b.Header[k], v)
					}
				}
				if _, ok := b.Header[Schema]; ok != want.hasSchema {
					t.Errorf("block %d has SCHEMA header = %v, want %v", i, ok, want.hasSchema)
				}
				if !slices.Equal(b.HeaderOrder, want.order) {
					t.Errorf("block %d header order %v, want %v", i, b.HeaderOrder, want.order)
				}
				if b.Footer != nil {
					t.Errorf("block %d footer %v, want none", i, b.Footer)
				}
				if len(b.Content) != want.contentLen || !bytes.HasPrefix(b.Content, []byte(want.prefix)) || !bytes.HasSuffix(b.Content, []byte(want.suffix)) {
					t.Errorf("block %d content: %d bytes starting %q, want %d bytes starting %q ending %q",
						i, len(b.Content), b.Content[:min(len(b.Content), 12)], want.contentLen, want.prefix, want.suffix)
				}
				if b.InstantTime() != want.header[InstantTime] || b.TargetInstantTime() != want.header[TargetInstantTime] {
					t.Errorf("block %d accessors: instant %q target %q", i, b.InstantTime(), b.TargetInstantTime())
				}
				if b.IsRollback() != (want.typ == CommandBlock) || b.IsCorrupt() {
					t.Errorf("block %d: IsRollback %v IsCorrupt %v", i, b.IsRollback(), b.IsCorrupt())
				}
				if want.typ == AvroDataBlock {
					n := checkAvroRecords(t, b)
					if n != want.avroRecs {
						t.Errorf("block %d: %d avro records, want %d", i, n, want.avroRecs)
					}
				}
				if want.deletes != nil {
					got, err := DecodeDeleteBlock(b.Content)
					if err != nil {
						t.Fatalf("block %d: %v", i, err)
					}
					if !equalDeletes(got, want.deletes) {
						t.Errorf("block %d deletes:\n got %#v\nwant %#v", i, got, want.deletes)
					}
				}
			}
			checkReencode(t, data, blocks)
		})
	}
}

func TestGoldenAvroRecordContent(t *testing.T) {
	data := readTestdata(t, "avro_v6_trips_8i1u.log")
	b := readAllBytes(t, data, "avro")[0]
	recs, err := DecodeAvroDataBlock(b.Content)
	if err != nil {
		t.Fatal(err)
	}
	s, err := avro.Parse(b.Header[Schema])
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := s.Decode(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	rec := v.(map[string]any)
	for field, want := range map[string]any{
		"_hoodie_commit_time":    "20250331030645735",
		"_hoodie_record_key":     "9909a8b1-2d15-4d3d-8ec9-efc48c536a00",
		"_hoodie_partition_path": "city=san_francisco",
		"rider":                  "rider-D",
		"ts":                     int64(1695046462179),
		"city":                   "san_francisco",
	} {
		if rec[field] != want {
			t.Errorf("%s = %#v, want %#v", field, rec[field], want)
		}
	}
}

// checkAvroRecords splits an Avro data block and decodes every record with the block's
// SCHEMA header, requiring each datum to be consumed exactly; it returns the record count.
func checkAvroRecords(t testing.TB, b *Block) int {
	t.Helper()
	recs, err := DecodeAvroDataBlock(b.Content)
	if err != nil {
		t.Fatalf("block at %d: %v", b.Offset, err)
	}
	s, err := avro.Parse(b.Header[Schema])
	if err != nil {
		t.Fatalf("block at %d: schema header: %v", b.Offset, err)
	}
	for i, r := range recs {
		_, rest, err := s.Decode(r)
		if err != nil || len(rest) != 0 {
			t.Fatalf("block at %d record %d: %v (%d bytes left)", b.Offset, i, err, len(rest))
		}
	}
	if got := EncodeAvroDataBlock(recs); !bytes.Equal(got, b.Content) {
		t.Errorf("block at %d: EncodeAvroDataBlock does not reproduce the content", b.Offset)
	}
	return len(recs)
}

// checkReencode requires EncodeBlock of every parsed block to reproduce its bytes exactly,
// and every delete block's content to survive a decode/encode round trip byte for byte.
func checkReencode(t testing.TB, data []byte, blocks []*Block) {
	t.Helper()
	for _, b := range blocks {
		var buf bytes.Buffer
		n, err := EncodeBlock(&buf, b)
		if err != nil {
			t.Fatalf("encode block at %d: %v", b.Offset, err)
		}
		if n != b.Length || !bytes.Equal(buf.Bytes(), data[b.Offset:b.Offset+b.Length]) {
			t.Errorf("re-encoded block at %d (%d bytes) differs from the file (%d bytes)", b.Offset, n, b.Length)
		}
		if b.Type == DeleteBlock {
			recs, err := DecodeDeleteBlock(b.Content)
			if err != nil {
				t.Fatalf("delete block at %d: %v", b.Offset, err)
			}
			enc, err := EncodeDeleteBlock(recs)
			if err != nil {
				t.Fatalf("delete block at %d: %v", b.Offset, err)
			}
			if !bytes.Equal(enc, b.Content) {
				t.Errorf("delete block at %d: re-encoded content\n%x\nwant\n%x", b.Offset, enc, b.Content)
			}
		}
	}
}

func equalDeletes(a, b []DeleteRecord) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].RecordKey != b[i].RecordKey || a[i].PartitionPath != b[i].PartitionPath || !equalOrdering(a[i].OrderingValue, b[i].OrderingValue) {
			return false
		}
	}
	return true
}

func equalOrdering(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case DecimalValue:
		y, ok := b.(DecimalValue)
		return ok && bytes.Equal(x, y)
	case float32:
		y, ok := b.(float32)
		return ok && (x == y || x != x && y != y)
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || x != x && y != y)
	}
	return a == b
}

// logFileName matches Hudi log file names (§4.3), with or without a write token.
var logFileName = regexp.MustCompile(`^\..+_.+\.log\.[0-9]+(_[0-9]+-[0-9]+-[0-9]+)?(\.cdc)?$`)

// TestAllFixtureLogs reads every log file of every fixture table: no block may be corrupt,
// every block must re-encode to its exact bytes, every delete block must decode, every Avro
// data block must decode with its SCHEMA header.
func TestAllFixtureLogs(t *testing.T) {
	zips, err := filepath.Glob(filepath.Join(testutil.FixturesDir(t), "tables", "*", "*.zip"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[BlockType]int{}
	files := 0
	for _, z := range zips {
		zr, err := zip.OpenReader(z)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if bytes.HasPrefix([]byte(f.Name), []byte("__MACOSX/")) || !logFileName.MatchString(path.Base(f.Name)) {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files++
			name := filepath.Base(z) + ":" + f.Name
			blocks := readAllBytes(t, data, name)
			if len(blocks) == 0 {
				t.Errorf("%s: no blocks", name)
			}
			for _, b := range blocks {
				counts[b.Type]++
				switch b.Type {
				case CorruptBlock:
					t.Errorf("%s: corrupt block at %d: %s", name, b.Offset, b.CorruptReason)
				case DeleteBlock:
					if _, err := DecodeDeleteBlock(b.Content); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				case AvroDataBlock:
					checkAvroRecords(t, b)
				}
				if b.InstantTime() == "" {
					t.Errorf("%s: block at %d has no instant time", name, b.Offset)
				}
			}
			checkReencode(t, data, blocks)
		}
		zr.Close()
	}
	t.Logf("%d log files, blocks by type: %v", files, counts)
	if files < 100 || counts[AvroDataBlock] == 0 || counts[DeleteBlock] == 0 || counts[HFileDataBlock] == 0 ||
		counts[ParquetDataBlock] == 0 || counts[CommandBlock] == 0 {
		t.Errorf("fixture sweep did not cover every block type: %d files, %v", files, counts)
	}
}
