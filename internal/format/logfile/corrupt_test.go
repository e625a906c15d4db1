package logfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// span is the expected type and extent of one block.
type span struct {
	typ    BlockType
	offset int64
	length int64
}

func spansOf(blocks []*Block) []span {
	out := make([]span, len(blocks))
	for i, b := range blocks {
		out[i] = span{b.Type, b.Offset, b.Length}
	}
	return out
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// patched returns a copy of b with an int64 written at off.
func patched64(b []byte, off int, v int64) []byte {
	c := bytes.Clone(b)
	binary.BigEndian.PutUint64(c[off:], uint64(v))
	return c
}

func patched32(b []byte, off int, v int32) []byte {
	c := bytes.Clone(b)
	binary.BigEndian.PutUint32(c[off:], uint32(v))
	return c
}

// mustBlock encodes one block.
func mustBlock(t testing.TB, b *Block) []byte {
	t.Helper()
	out, err := AppendBlock(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCorruption(t *testing.T) {
	cmd := readTestdata(t, "command_v6_rollback.log.2") // 105 bytes
	avr := readTestdata(t, "avro_v6_trips_8i1u.log")    // 1148 bytes
	del := readTestdata(t, "mdt_empty_delete_v9.log")   // 80 bytes
	A, B, C := int64(len(cmd)), int64(len(avr)), int64(len(del))
	withMagicInContent := mustBlock(t, &Block{Type: ParquetDataBlock, Header: map[HeaderKey]string{InstantTime: "1"},
		Content: []byte("PAR1 junk #HUDI# more junk PAR1")})
	M := int64(len(withMagicInContent))
	garbage := []byte("garbage!")
	G := int64(len(garbage))

	tests := []struct {
		name string
		data []byte
		want []span
	}{
		{"empty file", nil, nil},
		{"three valid blocks", cat(cmd, avr, del), []span{{CommandBlock, 0, A}, {AvroDataBlock, A, B}, {DeleteBlock, A + B, C}}},
		{"truncated last block", cat(cmd, avr[:B-10]), []span{{CommandBlock, 0, A}, {CorruptBlock, A, B - 10}}},
		{"truncated mid-header", cat(cmd, avr[:40]), []span{{CommandBlock, 0, A}, {CorruptBlock, A, 40}}},
		{"EOF inside the size field", cat(cmd, avr[:9]), []span{{CommandBlock, 0, A}, {CorruptBlock, A, 9}}},
		{"magic only", []byte(Magic), []span{{CorruptBlock, 0, 6}}},
		{"magic then magic, no size", []byte(Magic + Magic), []span{{CorruptBlock, 0, 12}}},
		{"partial magic at end is ignored like Java", cat(cmd, []byte("#HU")), []span{{CommandBlock, 0, A}}},
		{"five trailing bytes are ignored like Java", cat(cmd, []byte("zzzzz")), []span{{CommandBlock, 0, A}}},
		{"size flipped", cat(cmd, patched64(avr, 6, 1000), del), []span{{CommandBlock, 0, A}, {CorruptBlock, A, B}, {DeleteBlock, A + B, C}}},
		{"size past EOF", cat(cmd, patched64(avr, 6, 1<<40), del), []span{{CommandBlock, 0, A}, {CorruptBlock, A, B}, {DeleteBlock, A + B, C}}},
		{"negative size", cat(patched64(cmd, 6, -20), del), []span{{CorruptBlock, 0, A}, {DeleteBlock, A, C}}},
		{"size too small for a block", cat(patched64(cmd, 6, 8), del), []span{{CorruptBlock, 0, A}, {DeleteBlock, A, C}}},
		{"reverse pointer mismatch", cat(patched64(cmd, int(A-8), 7), avr), []span{{CorruptBlock, 0, A}, {AvroDataBlock, A, B}}},
		{"garbage at start", cat(garbage, cmd, avr), []span{{CorruptBlock, 0, G}, {CommandBlock, G, A}, {AvroDataBlock, G + A, B}}},
		{"garbage only", garbage, []span{{CorruptBlock, 0, G}}},
		// Java checks that a block is followed by a magic or EOF, so garbage after a block
		// makes that block part of the corrupt region.
		{"garbage between blocks", cat(cmd, garbage, avr), []span{{CorruptBlock, 0, A + G}, {AvroDataBlock, A + G, B}}},
		{"garbage at end", cat(cmd, avr, garbage), []span{{CommandBlock, 0, A}, {CorruptBlock, A, B + G}}},
		// A truncated block followed by a complete one: the scan resynchronises on the
		// next magic.
		{"truncated block then valid block", cat(avr[:500], cmd), []span{{CorruptBlock, 0, 500}, {CommandBlock, 500, A}}},
		// The scan stops at a magic inside the content, which is itself corrupt; the
		// next real block is still found.
		{"magic inside corrupt content", cat(patched64(withMagicInContent, 6, 3), cmd),
			[]span{{CorruptBlock, 0, int64(bytes.Index(withMagicInContent[1:], []byte(Magic)) + 1)},
				{CorruptBlock, int64(bytes.Index(withMagicInContent[1:], []byte(Magic)) + 1), M - int64(bytes.Index(withMagicInContent[1:], []byte(Magic))+1)},
				{CommandBlock, M, A}}},
		// Frame sound, inner lengths wrong: one corrupt block covering the frame.
		{"header count too large", cat(patched32(cmd, 22, 1000), avr), []span{{CorruptBlock, 0, A}, {AvroDataBlock, A, B}}},
		{"header value length too large", cat(patched32(cmd, 30, 1000), avr), []span{{CorruptBlock, 0, A}, {AvroDataBlock, A, B}}},
		{"content length too large", cat(patched64(cmd, 89, 5), avr), []span{{CorruptBlock, 0, A}, {AvroDataBlock, A, B}}},
		{"negative content length", cat(patched64(cmd, 89, -1), avr), []span{{CorruptBlock, 0, A}, {AvroDataBlock, A, B}}},
		{"format version 0", cat(patched32(cmd, 14, 0), avr), []span{{CorruptBlock, 0, A}, {AvroDataBlock, A, B}}},
		{"unknown block type passes through", cat(patched32(cmd, 18, 12), avr), []span{{BlockType(12), 0, A}, {AvroDataBlock, A, B}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks := readAllBytes(t, tt.data, tt.name)
			if got := spansOf(blocks); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("blocks %v\n  want %v", got, tt.want)
			}
			for _, b := range blocks {
				if b.IsCorrupt() != (b.CorruptReason != "") || (b.IsCorrupt() && b.Content != nil) {
					t.Errorf("block at %d: corrupt %v reason %q content %d bytes", b.Offset, b.IsCorrupt(), b.CorruptReason, len(b.Content))
				}
			}
		})
	}
}

// The cases above pin the header offsets they patch; make sure those are what they claim.
func TestCorruptionOffsets(t *testing.T) {
	cmd := readTestdata(t, "command_v6_rollback.log.2")
	for _, tt := range []struct {
		off  int
		want int64
		size int
	}{
		{6, 91, 8},  // block size
		{14, 1, 4},  // format version
		{18, 0, 4},  // block type
		{22, 3, 4},  // header count
		{30, 17, 4}, // first header value length
		{89, 0, 8},  // content length
		{97, 97, 8}, // reverse pointer
		{93, 0, 4},  // footer count
	} {
		var got int64
		if tt.size == 8 {
			got = int64(binary.BigEndian.Uint64(cmd[tt.off:]))
		} else {
			got = int64(int32(binary.BigEndian.Uint32(cmd[tt.off:])))
		}
		if got != tt.want {
			t.Errorf("offset %d holds %d, want %d", tt.off, got, tt.want)
		}
	}
}

func TestReaderEOFIsSticky(t *testing.T) {
	data := readTestdata(t, "command_v6_rollback.log.2")
	r := NewReader(bytes.NewReader(data), int64(len(data)), "x")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if b, err := r.Next(); b != nil || err != io.EOF {
			t.Fatalf("after the last block: %v, %v", b, err)
		}
	}
	if r.Offset() != int64(len(data)) {
		t.Errorf("offset %d", r.Offset())
	}
}

// errReaderAt fails every read at or after failAt.
type errReaderAt struct {
	data   []byte
	failAt int64
}

func (e errReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > e.failAt {
		return 0, errors.New("device error")
	}
	return copy(p, e.data[off:]), nil
}

func TestReaderIOErrors(t *testing.T) {
	cmd := readTestdata(t, "command_v6_rollback.log.2")
	data := cat(cmd, cmd)
	tests := []struct {
		name string
		r    io.ReaderAt
		size int64
		want string
		at   string // the block offset the error must name
	}{
		{"device error", errReaderAt{data: data, failAt: int64(len(cmd)) + 20}, int64(len(data)), "device error", "offset 105"},
		// The file is shorter than the size given: an I/O problem, not corruption.
		{"size larger than file", bytes.NewReader(cmd), int64(len(cmd)) + 500, "unexpected EOF", "offset 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks, err := ReadAll(tt.r, tt.size, "part-0.log.1")
			if err == nil {
				t.Fatalf("no error; blocks %v", spansOf(blocks))
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "part-0.log.1") || !strings.Contains(err.Error(), tt.at) {
				t.Fatalf("error %q should name the file, %s and %q", err, tt.at, tt.want)
			}
		})
	}
}
