package hfile

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Trailer is the fixed file trailer: where the load-on-open section is, how many entries the
// root indexes hold, the codec and the key comparator (Java's HFileTrailer / HBase's
// FixedFileTrailer, serialized as protobuf FileTrailerProto).
type Trailer struct {
	MajorVersion int
	MinorVersion int

	FileInfoOffset            int64
	LoadOnOpenOffset          int64
	UncompressedDataIndexSize int64
	TotalUncompressedBytes    int64
	DataIndexCount            int
	MetaIndexCount            int
	EntryCount                int64
	NumDataIndexLevels        int
	// FirstDataBlockOffset and LastDataBlockOffset are -1 in a file without data blocks.
	FirstDataBlockOffset int64
	LastDataBlockOffset  int64
	ComparatorClassName  string
	Codec                Codec
	EncryptionKey        []byte

	// Present records which protobuf fields the writer set (bit n = field n). HBase sets
	// 1–12; Hudi 1.1's own writer leaves out totalUncompressedBytes (4). The encoder writes
	// exactly these fields, so a rewritten trailer matches its source.
	Present uint32
}

// Trailer protobuf field numbers (HBase's HFile.proto FileTrailerProto).
const (
	tfFileInfoOffset = 1 + iota
	tfLoadOnOpenOffset
	tfUncompressedDataIndexSize
	tfTotalUncompressedBytes
	tfDataIndexCount
	tfMetaIndexCount
	tfEntryCount
	tfNumDataIndexLevels
	tfFirstDataBlockOffset
	tfLastDataBlockOffset
	tfComparatorClassName
	tfCompressionCodec
	tfEncryptionKey
)

// HBaseTrailerFields is the Present mask of a trailer written by HBase's HFile writer (and
// so by Hudi 0.14): fields 1–12, no encryption key.
const HBaseTrailerFields uint32 = 1<<(tfCompressionCodec+1) - 2

// Has reports whether the writer set trailer field num.
func (t *Trailer) Has(num int) bool { return t.Present&(1<<uint(num)) != 0 }

// parseTrailer decodes the last TrailerSize bytes of a file; base is their file offset.
func parseTrailer(name string, b []byte, base int64) (Trailer, error) {
	var t Trailer
	bad := func(off int, format string, a ...any) (Trailer, error) {
		return Trailer{}, &FormatError{Name: name, Offset: base + int64(off), Msg: "trailer: " + fmt.Sprintf(format, a...)}
	}
	if len(b) != TrailerSize {
		return bad(0, "file is %d bytes, shorter than the %d-byte trailer", len(b), TrailerSize)
	}
	if string(b[:8]) != trailerMagic {
		return bad(0, "magic %q, want %q", b[:8], trailerMagic)
	}
	v := binary.BigEndian.Uint32(b[TrailerSize-4:])
	t.MajorVersion = int(v & 0x00ffffff)
	t.MinorVersion = int(v >> 24)
	if t.MajorVersion != MajorVersion {
		return bad(TrailerSize-4, "HFile major version %d, only version %d is supported", t.MajorVersion, MajorVersion)
	}
	l, n, err := uvarint(b[8 : TrailerSize-4])
	if err != nil {
		return bad(8, "protobuf length: %v", err)
	}
	if l > uint64(TrailerSize-4-8-n) {
		return bad(8, "protobuf length %d exceeds the trailer", l)
	}
	fields, err := parsePB(b[8+n : 8+n+int(l)])
	if err != nil {
		return bad(8+n, "%v", err)
	}
	t.Codec = CodecNone // Java's default when the field is absent
	t.FirstDataBlockOffset, t.LastDataBlockOffset = -1, -1
	for _, f := range fields {
		if f.num < 32 {
			t.Present |= 1 << uint(f.num)
		}
		wantWire := wireVarint
		if f.num == tfComparatorClassName || f.num == tfEncryptionKey {
			wantWire = wireBytes
		}
		if f.num <= tfEncryptionKey && f.wire != wantWire {
			return bad(8+n, "field %d has wire type %d", f.num, f.wire)
		}
		switch f.num {
		case tfFileInfoOffset:
			t.FileInfoOffset = int64(f.v)
		case tfLoadOnOpenOffset:
			t.LoadOnOpenOffset = int64(f.v)
		case tfUncompressedDataIndexSize:
			t.UncompressedDataIndexSize = int64(f.v)
		case tfTotalUncompressedBytes:
			t.TotalUncompressedBytes = int64(f.v)
		case tfDataIndexCount:
			if f.v > math.MaxInt32 {
				return bad(8+n, "data index count %d", f.v)
			}
			t.DataIndexCount = int(f.v)
		case tfMetaIndexCount:
			if f.v > math.MaxInt32 {
				return bad(8+n, "meta index count %d", f.v)
			}
			t.MetaIndexCount = int(f.v)
		case tfEntryCount:
			t.EntryCount = int64(f.v)
		case tfNumDataIndexLevels:
			if f.v > math.MaxInt32 {
				return bad(8+n, "data index levels %d", f.v)
			}
			t.NumDataIndexLevels = int(f.v)
		case tfFirstDataBlockOffset:
			t.FirstDataBlockOffset = int64(f.v)
		case tfLastDataBlockOffset:
			t.LastDataBlockOffset = int64(f.v)
		case tfComparatorClassName:
			t.ComparatorClassName = string(f.bytes)
		case tfCompressionCodec:
			t.Codec = Codec(f.v)
		case tfEncryptionKey:
			t.EncryptionKey = append([]byte(nil), f.bytes...)
		}
	}
	return t, nil
}

// encode serializes the trailer as HBase's FixedFileTrailer.serialize does: magic, the
// length-delimited protobuf, zero padding, the version int in the last 4 bytes.
func (t *Trailer) encode() ([]byte, error) {
	var pb []byte
	for num := tfFileInfoOffset; num <= tfEncryptionKey; num++ {
		if !t.Has(num) {
			continue
		}
		switch num {
		case tfFileInfoOffset:
			pb = appendPBVarint(pb, num, uint64(t.FileInfoOffset))
		case tfLoadOnOpenOffset:
			pb = appendPBVarint(pb, num, uint64(t.LoadOnOpenOffset))
		case tfUncompressedDataIndexSize:
			pb = appendPBVarint(pb, num, uint64(t.UncompressedDataIndexSize))
		case tfTotalUncompressedBytes:
			pb = appendPBVarint(pb, num, uint64(t.TotalUncompressedBytes))
		case tfDataIndexCount:
			pb = appendPBVarint(pb, num, uint64(t.DataIndexCount))
		case tfMetaIndexCount:
			pb = appendPBVarint(pb, num, uint64(t.MetaIndexCount))
		case tfEntryCount:
			pb = appendPBVarint(pb, num, uint64(t.EntryCount))
		case tfNumDataIndexLevels:
			pb = appendPBVarint(pb, num, uint64(t.NumDataIndexLevels))
		case tfFirstDataBlockOffset:
			pb = appendPBVarint(pb, num, uint64(t.FirstDataBlockOffset))
		case tfLastDataBlockOffset:
			pb = appendPBVarint(pb, num, uint64(t.LastDataBlockOffset))
		case tfComparatorClassName:
			pb = appendPBBytes(pb, num, []byte(t.ComparatorClassName))
		case tfCompressionCodec:
			pb = appendPBVarint(pb, num, uint64(t.Codec))
		case tfEncryptionKey:
			pb = appendPBBytes(pb, num, t.EncryptionKey)
		}
	}
	out := make([]byte, 0, TrailerSize)
	out = append(out, trailerMagic...)
	out = appendUvarint(out, uint64(len(pb)))
	out = append(out, pb...)
	if len(out) > TrailerSize-4 {
		return nil, fmt.Errorf("hfile trailer: %d bytes do not fit the %d-byte trailer", len(out), TrailerSize)
	}
	out = out[:TrailerSize]
	binary.BigEndian.PutUint32(out[TrailerSize-4:], uint32(t.MinorVersion)<<24|uint32(t.MajorVersion)&0x00ffffff)
	return out, nil
}
