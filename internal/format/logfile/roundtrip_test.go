package logfile

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// sampleBlocks are synthetic blocks covering every writable type, empty and multi-entry
// headers, footers and unknown key ordinals.
func sampleBlocks() []*Block {
	return []*Block{
		{Type: AvroDataBlock, Header: map[HeaderKey]string{InstantTime: "20250101000000000", Schema: `{"type":"record","name":"r","fields":[{"name":"a","type":"int"}]}`},
			Content: EncodeAvroDataBlock([][]byte{{0x02}, {0x04}, {}})},
		{Type: CommandBlock, Header: map[HeaderKey]string{InstantTime: "2", TargetInstantTime: "1", CommandBlockType: RollbackCommand},
			HeaderOrder: []HeaderKey{TargetInstantTime, CommandBlockType, InstantTime}, Content: []byte{}},
		{Type: DeleteBlock, Header: map[HeaderKey]string{InstantTime: "3"}, Content: []byte("\x00\x00\x00\x03\x00\x00\x00\x01\x00")},
		{Type: ParquetDataBlock, Header: map[HeaderKey]string{InstantTime: "4"}, Content: []byte("PAR1....PAR1")},
		{Type: HFileDataBlock, Content: []byte("DATABLK*")},
		{Type: CDCDataBlock, Header: map[HeaderKey]string{InstantTime: "5", BlockIdentifier: "0,1", HeaderKey(42): "future"},
			Footer: map[HeaderKey]string{InstantTime: "x", IsPartial: ""}, Content: []byte{1, 2, 3}},
		{Type: BlockType(17), Header: map[HeaderKey]string{InstantTime: "6"}, Content: []byte("#HUDI# inside content")},
	}
}

// normalized returns b as the reader reports it: default version, explicit key order,
// non-nil content.
func normalized(b *Block, offset, length int64) *Block {
	n := *b
	n.Offset, n.Length, n.Version = offset, length, FormatVersion
	n.HeaderOrder = metadataOrder(b.Header, b.HeaderOrder)
	n.FooterOrder = metadataOrder(b.Footer, b.FooterOrder)
	if len(n.Header) == 0 {
		n.Header, n.HeaderOrder = nil, nil
	}
	if len(n.Footer) == 0 {
		n.Footer, n.FooterOrder = nil, nil
	}
	if n.Content == nil {
		n.Content = []byte{}
	}
	return &n
}

func TestEncodeBlockRoundTrip(t *testing.T) {
	var file bytes.Buffer
	var want []*Block
	for _, b := range sampleBlocks() {
		off := int64(file.Len())
		n, err := EncodeBlock(&file, b)
		if err != nil {
			t.Fatalf("encode %s: %v", b.Type, err)
		}
		if n != int64(file.Len())-off {
			t.Fatalf("encode %s returned %d, wrote %d", b.Type, n, int64(file.Len())-off)
		}
		want = append(want, normalized(b, off, n))
	}
	got := readAllBytes(t, file.Bytes(), "roundtrip")
	if len(got) != len(want) {
		t.Fatalf("read %d blocks, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("block %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	checkReencode(t, file.Bytes(), got)
}

// TestEncodeBlockLayout pins the frame arithmetic of §6.2 on the rollback command block.
func TestEncodeBlockLayout(t *testing.T) {
	b := &Block{Type: CommandBlock,
		Header:      map[HeaderKey]string{InstantTime: "20250126040936578", CommandBlockType: "0", TargetInstantTime: "20250126040826878"},
		HeaderOrder: []HeaderKey{InstantTime, CommandBlockType, TargetInstantTime}}
	var buf bytes.Buffer
	if _, err := EncodeBlock(&buf, b); err != nil {
		t.Fatal(err)
	}
	if want := readTestdata(t, "command_v6_rollback.log.2"); !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("encoded\n%x\nwant\n%x", buf.Bytes(), want)
	}
	// Without an order the keys come out sorted by ordinal.
	b.HeaderOrder = nil
	out, err := AppendBlock(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	blocks := readAllBytes(t, out, "sorted")
	if want := []HeaderKey{InstantTime, TargetInstantTime, CommandBlockType}; !reflect.DeepEqual(blocks[0].HeaderOrder, want) {
		t.Errorf("order %v, want %v", blocks[0].HeaderOrder, want)
	}
}

func TestEncodeBlockErrors(t *testing.T) {
	tests := []struct {
		name  string
		block *Block
		want  string
	}{
		{"corrupt", &Block{Type: CorruptBlock}, "never written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := EncodeBlock(io.Discard, tt.block)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to mention %q", err, tt.want)
			}
		})
	}
	_, err := EncodeBlock(failingWriter{}, &Block{Type: CommandBlock})
	if err == nil || !strings.Contains(err.Error(), "COMMAND_BLOCK") {
		t.Fatalf("write error not reported: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestAvroDataBlock(t *testing.T) {
	recs := [][]byte{[]byte("a"), {}, bytes.Repeat([]byte{7}, 300)}
	content := EncodeAvroDataBlock(recs)
	got, err := DecodeAvroDataBlock(content)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("%d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !bytes.Equal(got[i], recs[i]) {
			t.Errorf("record %d = %x, want %x", i, got[i], recs[i])
		}
	}
	if empty := EncodeAvroDataBlock(nil); hex.EncodeToString(empty) != "0000000300000000" {
		t.Errorf("empty block = %x", empty)
	}

	for _, tt := range []struct {
		name    string
		content string // hex
		want    string // error substring, "" for success
		records int
	}{
		{"version 1", "00000001" + "00000001" + "00000001" + "02", "", 1},
		{"version 2", "00000002" + "00000000", "", 0},
		{"trailing bytes ignored", "00000003" + "00000001" + "00000001" + "02" + "ffff", "", 1},
		{"version 0", "00000000" + "00000000", "version 0", 0},
		{"version 4", "00000004" + "00000000", "version 4", 0},
		{"empty", "", "too short", 0},
		{"no count", "00000003", "record count", 0},
		{"negative count", "00000003" + "ffffffff", "record count -1", 0},
		{"huge count", "00000003" + "7fffffff" + "00000000", "record count 2147483647", 0},
		{"truncated length", "00000003" + "00000002" + "00000002" + "0102" + "0000", "before its length", 0},
		{"record past end", "00000003" + "00000001" + "00000005" + "0102", "length 5 exceeds", 0},
		{"negative record length", "00000003" + "00000001" + "ffffffff", "length -1 exceeds", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content, _ := hex.DecodeString(tt.content)
			got, err := DecodeAvroDataBlock(content)
			if tt.want == "" {
				if err != nil || len(got) != tt.records {
					t.Fatalf("got %d records, err %v; want %d", len(got), err, tt.records)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestDeleteBlockRoundTrip(t *testing.T) {
	recs := []DeleteRecord{
		{RecordKey: "k0", PartitionPath: "p", OrderingValue: nil},
		{RecordKey: "k1", PartitionPath: "", OrderingValue: true},
		{RecordKey: "k2", PartitionPath: "a/b", OrderingValue: int32(-7)},
		{RecordKey: "k3", OrderingValue: int64(math.MaxInt64)},
		{RecordKey: "k4", OrderingValue: float32(1.5)},
		{RecordKey: "k5", OrderingValue: math.Inf(-1)},
		{RecordKey: "k6", OrderingValue: []byte{0, 1, 2}},
		{RecordKey: "k7", OrderingValue: "2024-01-01"},
		{RecordKey: "k8", OrderingValue: DateValue(19000)},
		{RecordKey: "k9", OrderingValue: DecimalValue{0xff, 0x38}},
		{RecordKey: "k10", OrderingValue: TimeMicrosValue(3_600_000_000)},
		{RecordKey: "k11", OrderingValue: TimestampMicrosValue(1_700_000_000_000_000)},
		{RecordKey: "ключ", PartitionPath: "région=eu", OrderingValue: int32(0)},
	}
	content, err := EncodeDeleteBlock(recs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeDeleteBlock(content)
	if err != nil {
		t.Fatal(err)
	}
	if !equalDeletes(got, recs) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, recs)
	}
	for i := range recs {
		if reflect.TypeOf(got[i].OrderingValue) != reflect.TypeOf(recs[i].OrderingValue) {
			t.Errorf("record %d ordering value type %T, want %T", i, got[i].OrderingValue, recs[i].OrderingValue)
		}
	}

	// The encoding must be the canonical schema's: decode it independently with
	// internal/avro and avroschema.DeleteRecordList.
	s, err := avro.Parse(avroschema.DeleteRecordList.JSON())
	if err != nil {
		t.Fatal(err)
	}
	v, rest, err := s.Decode(content[8:])
	if err != nil || len(rest) != 0 {
		t.Fatalf("canonical decode: %v, %d bytes left", err, len(rest))
	}
	list := v.(map[string]any)["deleteRecordList"].([]any)
	if k := list[8].(map[string]any); k["recordKey"] != "k8" || k["orderingVal"].(map[string]any)["value"] != int32(19000) {
		t.Errorf("canonical decode of record 8: %#v", k)
	}
}

// TestDeleteBlockBytes pins the encoding to bytes Java wrote (§6.5) and to the wrapper
// union's branch indices.
func TestDeleteBlockBytes(t *testing.T) {
	tests := []struct {
		name string
		recs []DeleteRecord
		want string // hex of the whole content
	}{
		{"spark sql delete (v9 fixture)", []DeleteRecord{{RecordKey: "TXN-002", PartitionPath: "region=us", OrderingValue: int32(0)}},
			"00000003" + "00000018" + "02" + "020e" + hex.EncodeToString([]byte("TXN-002")) + "0212" + hex.EncodeToString([]byte("region=us")) + "0400" + "00"},
		{"empty (MDT init)", nil, "00000003" + "00000001" + "00"},
		{"null ordering", []DeleteRecord{{RecordKey: "k", PartitionPath: "p"}}, "00000003" + "00000009" + "02" + "02026b" + "020270" + "00" + "00"},
		{"boolean branch 1", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: true}}, "00000003" + "0000000a" + "02" + "02026b" + "020270" + "0201" + "00"},
		// Soft deletes on merge-on-read carry the row's own ordering value (issue 4).
		{"int branch 2 (INT ordering field)", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: int32(3)}}, "00000003" + "0000000a" + "02" + "02026b" + "020270" + "0406" + "00"},
		{"double branch 5", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: float64(2.5)}}, "00000003" + "00000011" + "02" + "02026b" + "020270" + "0a" + "0000000000000440" + "00"},
		{"string branch 7", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: "ab"}}, "00000003" + "0000000c" + "02" + "02026b" + "020270" + "0e046162" + "00"},
		{"long branch 3", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: int64(-1)}}, "00000003" + "0000000a" + "02" + "02026b" + "020270" + "0601" + "00"},
		{"date branch 8", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: DateValue(1)}}, "00000003" + "0000000a" + "02" + "02026b" + "020270" + "1002" + "00"},
		{"decimal branch 9", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: DecimalValue{0x01}}}, "00000003" + "0000000b" + "02" + "02026b" + "020270" + "120201" + "00"},
		{"time-micros branch 10", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: TimeMicrosValue(1)}}, "00000003" + "0000000a" + "02" + "02026b" + "020270" + "1402" + "00"},
		{"timestamp-micros branch 11", []DeleteRecord{{RecordKey: "k", PartitionPath: "p", OrderingValue: TimestampMicrosValue(1)}}, "00000003" + "0000000a" + "02" + "02026b" + "020270" + "1602" + "00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeDeleteBlock(tt.recs)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != tt.want {
				t.Fatalf("encoded %x\n   want %s", got, tt.want)
			}
			back, err := DecodeDeleteBlock(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(tt.recs) || (len(back) > 0 && !equalDeletes(back, tt.recs)) {
				t.Fatalf("decoded %#v, want %#v", back, tt.recs)
			}
		})
	}
}

func TestDeleteBlockErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string // hex
		want    string
	}{
		{"empty", "", "too short"},
		{"kryo v1", "00000001" + "00000000", "version 1 holds Java-serialized"},
		{"kryo v2", "00000002" + "00000000", "version 2 holds Java-serialized"},
		{"version 4", "00000004" + "00000000", "unsupported delete block version 4"},
		{"no length", "00000003", "data length"},
		{"length past end", "00000003" + "00000010" + "00", "data length 16 exceeds"},
		{"negative length", "00000003" + "ffffffff", "data length -1 exceeds"},
		{"truncated avro", "00000003" + "00000002" + "0202", "avro"},
		{"union branch 12 (ArrayWrapper, Hudi 1.1+)", "00000003" + "00000008" + "02" + "0200" + "0200" + "18" + "00" + "00", "avro"},
		{"bad union index", "00000003" + "00000002" + "02" + "04", "avro"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content, _ := hex.DecodeString(tt.content)
			_, err := DecodeDeleteBlock(content)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := EncodeDeleteBlock([]DeleteRecord{{RecordKey: "k", OrderingValue: 3}}); err == nil || !strings.Contains(err.Error(), "type int") {
		t.Errorf("Go int ordering value: err %v, want a type error", err)
	}
}

func TestTypeNames(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{CommandBlock.String(), "COMMAND_BLOCK"},
		{DeleteBlock.String(), "DELETE_BLOCK"},
		{CorruptBlock.String(), "CORRUPT_BLOCK"},
		{AvroDataBlock.String(), "AVRO_DATA_BLOCK"},
		{HFileDataBlock.String(), "HFILE_DATA_BLOCK"},
		{ParquetDataBlock.String(), "PARQUET_DATA_BLOCK"},
		{CDCDataBlock.String(), "CDC_DATA_BLOCK"},
		{BlockType(9).String(), "BlockType(9)"},
		{InstantTime.String(), "INSTANT_TIME"},
		{TargetInstantTime.String(), "TARGET_INSTANT_TIME"},
		{Schema.String(), "SCHEMA"},
		{CommandBlockType.String(), "COMMAND_BLOCK_TYPE"},
		{CompactedBlockTimes.String(), "COMPACTED_BLOCK_TIMES"},
		{RecordPositions.String(), "RECORD_POSITIONS"},
		{BlockIdentifier.String(), "BLOCK_IDENTIFIER"},
		{IsPartial.String(), "IS_PARTIAL"},
		{BaseFileInstantTimeOfRecordPositions.String(), "BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS"},
		{HeaderKey(-1).String(), "HeaderKey(-1)"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if !CDCDataBlock.Known() || BlockType(7).Known() || BlockType(-1).Known() {
		t.Error("Known is wrong")
	}
}
