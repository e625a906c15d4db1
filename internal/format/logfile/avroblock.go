package logfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// AvroDataBlockVersion is the content version current Hudi writes at the start of Avro data
// and delete blocks (Java's HoodieLogBlock.version).
const AvroDataBlockVersion int32 = 3

// DecodeAvroDataBlock splits the content of an AVRO_DATA_BLOCK into its records, each one
// Avro binary datum to decode with the block's SCHEMA header. The layout is
//
//	int32 version | int32 recordCount | recordCount × (int32 length | datum)
//
// Java reads versions 1, 2 and 3 identically (its HoodieAvroDataBlockVersion has a record
// count in every version), so all three are accepted. The returned slices alias content.
// Like Java, bytes after the last record are ignored.
func DecodeAvroDataBlock(content []byte) (records [][]byte, err error) {
	c := cursor{b: content}
	version, ok := c.int32()
	if !ok {
		return nil, fmt.Errorf("decode avro data block: %d bytes are too short for the version", len(content))
	}
	if version < 1 || version > AvroDataBlockVersion {
		return nil, fmt.Errorf("decode avro data block: unsupported avro data block version %d (readable: 1 to %d)", version, AvroDataBlockVersion)
	}
	count, ok := c.int32()
	if !ok {
		return nil, fmt.Errorf("decode avro data block: content ends before the record count")
	}
	// Each record takes at least its 4-byte length, which bounds count before allocating.
	if count < 0 || int(count) > c.remaining()/4 {
		return nil, fmt.Errorf("decode avro data block: record count %d does not fit in the %d content bytes left", count, c.remaining())
	}
	records = make([][]byte, 0, count)
	for i := int32(0); i < count; i++ {
		at := c.off
		n, ok := c.int32()
		if !ok {
			return nil, fmt.Errorf("decode avro data block: record %d of %d: content ends before its length at offset %d", i, count, at)
		}
		rec, ok := c.bytes(int(n))
		if !ok {
			return nil, fmt.Errorf("decode avro data block: record %d of %d at offset %d: length %d exceeds the %d bytes left", i, count, at, n, c.remaining())
		}
		records = append(records, rec)
	}
	return records, nil
}

// EncodeAvroDataBlock builds the content of an AVRO_DATA_BLOCK (version 3) from Avro binary
// datums encoded with the schema the block's SCHEMA header will carry.
func EncodeAvroDataBlock(records [][]byte) []byte {
	n := 8
	for _, r := range records {
		n += 4 + len(r)
	}
	out := make([]byte, 0, n)
	out = binary.BigEndian.AppendUint32(out, uint32(AvroDataBlockVersion))
	out = binary.BigEndian.AppendUint32(out, uint32(len(records)))
	for _, r := range records {
		out = binary.BigEndian.AppendUint32(out, uint32(len(r)))
		out = append(out, r...)
	}
	return out
}

// AvroDataBlockBuilder builds the content of an AVRO_DATA_BLOCK (version 3, the layout
// EncodeAvroDataBlock writes) one record at a time, with each datum encoded in place, so
// that a block of many records needs no slice per record. The zero value is ready to use.
//
//	var b AvroDataBlockBuilder
//	dst, err := appendDatum(b.StartRecord(), ...)
//	... b.EndRecord(dst) ...
//	content, err := b.Content()
type AvroDataBlockBuilder struct {
	buf   []byte
	count int
	mark  int // offset of the open record's length, -1 when none is open
}

// Grow makes room for n more content bytes.
func (b *AvroDataBlockBuilder) Grow(n int) {
	b.header()
	b.buf = slices.Grow(b.buf, n)
}

// Len is the number of content bytes so far.
func (b *AvroDataBlockBuilder) Len() int { return len(b.buf) }

func (b *AvroDataBlockBuilder) header() {
	if b.buf == nil {
		b.buf = make([]byte, 8, 64)
		binary.BigEndian.PutUint32(b.buf, uint32(AvroDataBlockVersion))
		b.mark = -1
	}
}

// StartRecord opens a record and returns the content so far, to which the caller
// appends the record's datum before passing the result to EndRecord.
func (b *AvroDataBlockBuilder) StartRecord() []byte {
	b.header()
	if b.mark >= 0 { // a record started and never ended is dropped
		b.buf = b.buf[:b.mark]
	}
	b.mark = len(b.buf)
	b.buf = append(b.buf, 0, 0, 0, 0) // the length, known at EndRecord
	return b.buf
}

// EndRecord closes the record StartRecord opened; dst is StartRecord's slice with the
// datum appended.
func (b *AvroDataBlockBuilder) EndRecord(dst []byte) error {
	if b.mark < 0 || len(dst) < b.mark+4 {
		return fmt.Errorf("avro data block: EndRecord without a matching StartRecord")
	}
	n := len(dst) - b.mark - 4
	if err := checkInt32Len("avro data block record", n); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(dst[b.mark:], uint32(n))
	b.buf, b.mark = dst, -1
	b.count++
	return nil
}

// Content returns the block content: the records ended so far (a record started but not
// ended is left out).
func (b *AvroDataBlockBuilder) Content() ([]byte, error) {
	b.header()
	if b.mark >= 0 {
		b.buf, b.mark = b.buf[:b.mark], -1
	}
	if b.count > math.MaxInt32 {
		return nil, fmt.Errorf("avro data block of %d records exceeds the int32 count Java reads", b.count)
	}
	binary.BigEndian.PutUint32(b.buf[4:], uint32(b.count))
	return b.buf, nil
}

// checkInt32Len reports an error for lengths Java's int-sized fields cannot carry.
func checkInt32Len(what string, n int) error {
	if int64(n) > math.MaxInt32 {
		return fmt.Errorf("%s of %d bytes exceeds the int32 length Java reads", what, n)
	}
	return nil
}
