// Package logfile reads and writes the blocks of Hudi log files (Java's HoodieLogFormat),
// the append-only files of merge-on-read tables and of the metadata table.
//
// A log file is a plain concatenation of blocks with no file header or footer. Each block is
// framed as
//
//	magic "#HUDI#" | int64 blockSize | int32 formatVersion | int32 blockType |
//	header map | int64 contentLength | content | footer map | int64 reversePointer
//
// (all integers big-endian). blockSize counts the bytes after its own field up to and
// including the reverse pointer; the reverse pointer is the number of bytes of the block
// before it (blockSize + 6). The Reader validates that framing the way Java's
// HoodieLogFileReader does and turns damaged regions into CorruptBlock blocks instead of
// failing, because a crashed writer legitimately leaves half-written blocks behind.
//
// The content of a block is left raw; DecodeAvroDataBlock and DecodeDeleteBlock interpret
// the two content layouts that are Hudi's own (Parquet and HFile blocks hold complete files
// of those formats).
package logfile

import (
	"strconv"
)

// Magic starts every block. Readers resynchronise on it after a corrupt region.
const Magic = "#HUDI#"

// FormatVersion is the log format version every current Hudi writer puts in each block.
// Version 0 was a pre-release layout without type, header or footer.
const FormatVersion int32 = 1

// BlockType is the ordinal of Java's HoodieLogBlockType. The enum is append-only, so the
// ordinals are part of the file format.
type BlockType int32

// Block types. CorruptBlock is never written: readers synthesise it for damaged regions.
const (
	CommandBlock     BlockType = 0
	DeleteBlock      BlockType = 1
	CorruptBlock     BlockType = 2
	AvroDataBlock    BlockType = 3
	HFileDataBlock   BlockType = 4
	ParquetDataBlock BlockType = 5
	CDCDataBlock     BlockType = 6
)

// String returns Java's enum constant name, so log messages match Hudi's own.
func (t BlockType) String() string {
	switch t {
	case CommandBlock:
		return "COMMAND_BLOCK"
	case DeleteBlock:
		return "DELETE_BLOCK"
	case CorruptBlock:
		return "CORRUPT_BLOCK"
	case AvroDataBlock:
		return "AVRO_DATA_BLOCK"
	case HFileDataBlock:
		return "HFILE_DATA_BLOCK"
	case ParquetDataBlock:
		return "PARQUET_DATA_BLOCK"
	case CDCDataBlock:
		return "CDC_DATA_BLOCK"
	}
	return "BlockType(" + strconv.Itoa(int(t)) + ")"
}

// Known reports whether t is one of the block types this package knows. The Reader passes
// unknown ordinals through (newer Hudi releases add block types) and leaves the decision to
// the caller.
func (t BlockType) Known() bool { return t >= CommandBlock && t <= CDCDataBlock }

// HeaderKey is the ordinal of Java's HoodieLogBlock.HeaderMetadataType, the key type of
// block headers and footers. Append-only like BlockType.
type HeaderKey int32

// Header keys.
const (
	InstantTime       HeaderKey = 0
	TargetInstantTime HeaderKey = 1
	Schema            HeaderKey = 2
	CommandBlockType  HeaderKey = 3
	// CompactedBlockTimes lists the instants of blocks a log compaction merged.
	CompactedBlockTimes HeaderKey = 4
	// RecordPositions is a base64 Roaring64 bitmap of base-file row positions.
	RecordPositions HeaderKey = 5
	// BlockIdentifier is "<attemptNo>,<blockSeqNo>".
	BlockIdentifier HeaderKey = 6
	IsPartial       HeaderKey = 7
	// BaseFileInstantTimeOfRecordPositions names the base file RecordPositions refer to.
	BaseFileInstantTimeOfRecordPositions HeaderKey = 8
)

// String returns Java's enum constant name.
func (k HeaderKey) String() string {
	switch k {
	case InstantTime:
		return "INSTANT_TIME"
	case TargetInstantTime:
		return "TARGET_INSTANT_TIME"
	case Schema:
		return "SCHEMA"
	case CommandBlockType:
		return "COMMAND_BLOCK_TYPE"
	case CompactedBlockTimes:
		return "COMPACTED_BLOCK_TIMES"
	case RecordPositions:
		return "RECORD_POSITIONS"
	case BlockIdentifier:
		return "BLOCK_IDENTIFIER"
	case IsPartial:
		return "IS_PARTIAL"
	case BaseFileInstantTimeOfRecordPositions:
		return "BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS"
	}
	return "HeaderKey(" + strconv.Itoa(int(k)) + ")"
}

// RollbackCommand is the COMMAND_BLOCK_TYPE header value of a rollback command block (the
// ordinal of Java's HoodieCommandBlockTypeEnum.ROLLBACK_BLOCK, the only command that exists).
const RollbackCommand = "0"

// Block is one block of a log file as framed on disk.
type Block struct {
	Type BlockType
	// Offset is the file offset of the block's magic.
	Offset int64
	// Length is the number of bytes the block occupies in the file, magic included; the next
	// block starts at Offset+Length.
	Length int64
	// Version is the log format version of the block: FormatVersion in every file Hudi
	// writes (Java reads any non-zero version the same way); 0 for corrupt blocks.
	Version int32
	Header  map[HeaderKey]string
	Footer  map[HeaderKey]string
	// HeaderOrder and FooterOrder are the keys in the order they appear in the file. Java
	// writes its header HashMap in identity-hash order, which differs between runs, so the
	// order is kept to let EncodeBlock reproduce a block byte for byte. Nil means "ascending
	// ordinal order".
	HeaderOrder []HeaderKey
	FooterOrder []HeaderKey
	// Content is the raw content (an Avro data block, delete block, Parquet file, HFile, …);
	// nil for corrupt blocks.
	Content []byte
	// CorruptReason says why the reader classified the region as corrupt (empty otherwise).
	CorruptReason string
}

// InstantTime returns the INSTANT_TIME header: the instant that wrote the block (for a
// rollback command block, the rollback instant).
func (b *Block) InstantTime() string { return b.Header[InstantTime] }

// TargetInstantTime returns the TARGET_INSTANT_TIME header: the instant a command block
// acts on (the rolled-back instant).
func (b *Block) TargetInstantTime() string { return b.Header[TargetInstantTime] }

// IsRollback reports whether b is a rollback command block, which tells the log merger to
// discard the earlier blocks written by TargetInstantTime.
func (b *Block) IsRollback() bool {
	return b.Type == CommandBlock && b.Header[CommandBlockType] == RollbackCommand
}

// IsCorrupt reports whether b is a reader-synthesised corrupt region. Merging ignores such
// blocks, as Java does.
func (b *Block) IsCorrupt() bool { return b.Type == CorruptBlock }
