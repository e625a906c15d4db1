package logfile

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"
)

// goldenFiles returns the bytes of every file in testdata that is a log file.
func goldenFiles(f *testing.F) [][]byte {
	names, err := filepath.Glob(filepath.Join("testdata", "*.log*"))
	if err != nil || len(names) == 0 {
		f.Fatalf("no golden files: %v", err)
	}
	var out [][]byte
	for _, n := range names {
		out = append(out, readTestdata(f, filepath.Base(n)))
	}
	return out
}

// goldenContents returns the content of every golden block of type typ.
func goldenContents(f *testing.F, typ BlockType) [][]byte {
	var out [][]byte
	for _, data := range goldenFiles(f) {
		for _, b := range readAllBytes(f, data, "seed") {
			if b.Type == typ {
				out = append(out, b.Content)
			}
		}
	}
	return out
}

func FuzzReader(f *testing.F) {
	for _, data := range goldenFiles(f) {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	cmd := readTestdata(f, "command_v6_rollback.log.2")
	f.Add(cat([]byte("junk"), cmd, []byte("#HUDI#"), cmd))
	f.Add([]byte(Magic + Magic + Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := int64(len(data))
		r := NewReader(bytes.NewReader(data), size, "fuzz")
		var end int64
		// Every block is at least one byte, so more than size+1 calls means a loop.
		for i := int64(0); ; i++ {
			if i > size+1 {
				t.Fatalf("no EOF after %d blocks of a %d-byte file", i, size)
			}
			b, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("error on in-memory input: %v", err)
			}
			if b.Offset != end || b.Length <= 0 || b.Offset+b.Length > size {
				t.Fatalf("block %d at %d length %d after end %d (size %d)", i, b.Offset, b.Length, end, size)
			}
			end = b.Offset + b.Length
			if b.IsCorrupt() {
				if b.CorruptReason == "" || b.Content != nil {
					t.Fatalf("corrupt block at %d without reason or with content", b.Offset)
				}
				continue
			}
			if b.Version == 0 || b.CorruptReason != "" {
				t.Fatalf("block at %d: version %d reason %q", b.Offset, b.Version, b.CorruptReason)
			}
			// A valid block re-encodes to its own bytes unless a header key was repeated
			// (the map keeps one entry), which makes the re-encoding shorter.
			out, err := AppendBlock(nil, b)
			if err != nil {
				t.Fatalf("re-encode block at %d: %v", b.Offset, err)
			}
			if int64(len(out)) == b.Length && !bytes.Equal(out, data[b.Offset:end]) {
				t.Fatalf("re-encoded block at %d differs from its bytes", b.Offset)
			}
			if int64(len(out)) > b.Length {
				t.Fatalf("re-encoded block at %d grew from %d to %d bytes", b.Offset, b.Length, len(out))
			}
		}
		// Only fewer than six trailing bytes may be left unreported (Java ignores them).
		if size-end >= magicLen {
			t.Fatalf("reader stopped at %d of %d bytes", end, size)
		}
	})
}

func FuzzDecodeDeleteBlock(f *testing.F) {
	for _, c := range goldenContents(f, DeleteBlock) {
		f.Add(c)
	}
	seed, err := EncodeDeleteBlock([]DeleteRecord{
		{RecordKey: "a", OrderingValue: true}, {RecordKey: "b", OrderingValue: int64(2)},
		{RecordKey: "c", OrderingValue: float32(1)}, {RecordKey: "d", OrderingValue: 2.5},
		{RecordKey: "e", OrderingValue: []byte{1}}, {RecordKey: "f", OrderingValue: "s"},
		{RecordKey: "g", OrderingValue: DateValue(1)}, {RecordKey: "h", OrderingValue: DecimalValue{1}},
		{RecordKey: "i", OrderingValue: TimeMicrosValue(1)}, {RecordKey: "j", OrderingValue: TimestampMicrosValue(1)},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, content []byte) {
		recs, err := DecodeDeleteBlock(content)
		if err != nil {
			return
		}
		// Whatever decodes must encode, and the encoding must be stable from then on.
		enc, err := EncodeDeleteBlock(recs)
		if err != nil {
			t.Fatalf("re-encode %d decoded records: %v", len(recs), err)
		}
		back, err := DecodeDeleteBlock(enc)
		if err != nil {
			t.Fatalf("decode re-encoded block: %v", err)
		}
		if !equalDeletes(back, recs) {
			t.Fatalf("round trip changed records:\n got %#v\nwant %#v", back, recs)
		}
		enc2, err := EncodeDeleteBlock(back)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable: %v", err)
		}
	})
}

func FuzzDecodeAvroDataBlock(f *testing.F) {
	for _, c := range goldenContents(f, AvroDataBlock) {
		f.Add(c)
	}
	f.Add(EncodeAvroDataBlock([][]byte{{}, {1}, {2, 3}}))
	f.Fuzz(func(t *testing.T, content []byte) {
		recs, err := DecodeAvroDataBlock(content)
		if err != nil {
			return
		}
		total := 8
		for _, r := range recs {
			total += 4 + len(r)
		}
		if total > len(content) {
			t.Fatalf("%d records span %d bytes of a %d-byte content", len(recs), total, len(content))
		}
		enc := EncodeAvroDataBlock(recs)
		back, err := DecodeAvroDataBlock(enc)
		if err != nil || len(back) != len(recs) {
			t.Fatalf("round trip: %d records, %v", len(back), err)
		}
		for i := range recs {
			if !bytes.Equal(back[i], recs[i]) {
				t.Fatalf("record %d changed", i)
			}
		}
		// The re-encoding is the content with version 3 and without trailing bytes.
		if !bytes.Equal(enc[4:], content[4:total]) {
			t.Fatalf("re-encoding differs from the content")
		}
	})
}
