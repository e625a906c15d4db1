// Package hfile reads and writes HFile version 3, the sorted key/value file format of HBase
// that Hudi uses for the base files of its metadata table and for the content of the
// HFILE_DATA_BLOCKs in the metadata table's log files.
//
// An HFile is a sequence of blocks followed by a fixed-size trailer:
//
//	data blocks ("DATABLK*"), with leaf index blocks ("IDXLEAF2") between them when the
//	  data index has more than one level
//	meta blocks ("METABLKc"; Hudi keeps its record-key bloom filter in one), intermediate
//	  index blocks ("IDXINTE2")
//	load-on-open section: root data index ("IDXROOT2"), meta index ("IDXROOT2"),
//	  file info ("FILEINF2")
//	trailer: "TRABLK\"$", a length-delimited protobuf FileTrailerProto, zero padding to
//	  4096 bytes whose last 4 are the version (minor << 24 | major)
//
// Every block starts with a 33-byte header: magic (8), on-disk size without header (int32),
// uncompressed size without header (int32), previous block of the same type (int64),
// checksum type (1), bytes per checksum (int32), on-disk data size with header (int32). The
// header is never compressed; the payload is compressed with the file's codec; the
// checksums (one int32 per bytesPerChecksum bytes of header + on-disk payload) follow.
//
// A data block holds key/values as int32 key length, int32 value length, key, value and a
// memstore timestamp (a Hadoop variable-length long, 0 in every file Hudi writes). A key is
// HBase's KeyValue key: int16 row length, row, int8 family length (0), timestamp (int64),
// type (int8). Hudi stores its record key as the row; keys compare by the row's bytes,
// unsigned (Java's HoodieHBaseKVComparator / hudi-io HFileUtils.compareKeys).
//
// Sources: hudi-io's org.apache.hudi.io.hfile (HFileReaderImpl, HFileBlock, HFileTrailer,
// HFileRootIndexBlock, HFileLeafIndexBlock, HFileDataBlock, HFileInfo) and HBase's
// HFileWriterImpl, which Hudi 0.14 writes with; the layouts were checked on the metadata
// tables of the Spark-written fixtures (Hudi 1.0 files written by HBase, Hudi 1.1 files
// written by hudi-io's own writer).
package hfile

import (
	"fmt"
	"strconv"

	"github.com/hudi-go/hudi/internal/spec"
)

// BlockType names a block by its 8-byte magic.
type BlockType string

// Block magics (Java's HFileBlockType).
const (
	DataBlock         BlockType = "DATABLK*"
	EncodedDataBlock  BlockType = "DATABLKE"
	LeafIndexBlock    BlockType = "IDXLEAF2"
	BloomChunkBlock   BlockType = "BLMFBLK2"
	MetaBlock         BlockType = "METABLKc"
	IntermediateBlock BlockType = "IDXINTE2"
	RootIndexBlock    BlockType = "IDXROOT2"
	FileInfoBlock     BlockType = "FILEINF2"
	GeneralBloomMeta  BlockType = "BLMFMET2"
	DeleteBloomMeta   BlockType = "DFBLMET2"
	trailerMagic                = "TRABLK\"$"
)

var knownBlockTypes = []BlockType{DataBlock, EncodedDataBlock, LeafIndexBlock, BloomChunkBlock,
	MetaBlock, IntermediateBlock, RootIndexBlock, FileInfoBlock, GeneralBloomMeta, DeleteBloomMeta}

// Sizes of the fixed parts of the format.
const (
	// HeaderSize is the size of a block header with checksum fields (HFile v3).
	HeaderSize = 33
	// TrailerSize is the fixed size of a version 3 trailer.
	TrailerSize = 4096
	// MajorVersion is the only HFile major version this package reads and writes.
	MajorVersion = 3
	// MinorVersion is the minor version HBase 2.x (Hudi 0.14's writer) stamps: checksums in
	// block headers. Hudi 1.1's own writer stamps 0 although its blocks carry the same
	// header, so the reader accepts any minor version.
	MinorVersion = 3
	// DefaultBytesPerChecksum is the checksum chunk HBase and Hudi write (16 KB).
	DefaultBytesPerChecksum = 16 * 1024
)

// Codec is the compression codec id stored in the trailer: the ordinal of HBase's
// Compression.Algorithm (hudi-io HFileUtils keeps the same mapping).
type Codec uint32

// Codecs. Only NONE and GZ are implemented; the others are refused by name.
const (
	CodecLZO    Codec = 0
	CodecGZ     Codec = 1
	CodecNone   Codec = 2
	CodecSnappy Codec = 3
	CodecLZ4    Codec = 4
	CodecBZIP2  Codec = 5
	CodecZSTD   Codec = 6
)

// String returns the name Hudi's hoodie.hfile.compression.algorithm uses for the codec.
func (c Codec) String() string {
	switch c {
	case CodecLZO:
		return "LZO"
	case CodecGZ:
		return "GZ"
	case CodecNone:
		return "NONE"
	case CodecSnappy:
		return "SNAPPY"
	case CodecLZ4:
		return "LZ4"
	case CodecBZIP2:
		return "BZIP2"
	case CodecZSTD:
		return "ZSTD"
	}
	return "Codec(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// Supported reports whether this package can read and write blocks compressed with c.
func (c Codec) Supported() bool { return c == CodecNone || c == CodecGZ }

// ParseCodec maps a hoodie.hfile.compression.algorithm value (case-insensitive, as Java's
// Compression.Algorithm.valueOf after upper-casing) to its codec. Known but unsupported
// codecs parse; Supported tells them apart.
func ParseCodec(name string) (Codec, error) {
	for c := CodecLZO; c <= CodecZSTD; c++ {
		if equalFold(c.String(), name) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown HFile compression algorithm %q (known: LZO, GZ, NONE, SNAPPY, LZ4, BZIP2, ZSTD)", name)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// ChecksumType is the checksum algorithm code of a block header (HBase's ChecksumType).
type ChecksumType byte

// Checksum types.
const (
	ChecksumNull   ChecksumType = 0
	ChecksumCRC32  ChecksumType = 1
	ChecksumCRC32C ChecksumType = 2
)

// String returns HBase's name of the checksum type.
func (c ChecksumType) String() string {
	switch c {
	case ChecksumNull:
		return "NULL"
	case ChecksumCRC32:
		return "CRC32"
	case ChecksumCRC32C:
		return "CRC32C"
	}
	return "ChecksumType(" + strconv.Itoa(int(c)) + ")"
}

// FormatError reports bytes that are not a valid HFile. Offset is the file offset where the
// problem was found (the start of the block or structure being decoded).
type FormatError struct {
	Name   string
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("hfile %s: offset %d: %s", e.Name, e.Offset, e.Msg)
}

// ErrUnsupported is wrapped by errors for valid HFiles using features this package does not
// implement (a compression codec other than NONE/GZ, data block encoding, cell tags, MVCC
// timestamps): errors.Is(err, ErrUnsupported). It matches spec.ErrUnsupported.
var ErrUnsupported = spec.Unsupported("unsupported HFile feature")
