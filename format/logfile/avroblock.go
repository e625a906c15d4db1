package logfile

import (
	"encoding/binary"
	"fmt"
	"math"
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

// checkInt32Len reports an error for lengths Java's int-sized fields cannot carry.
func checkInt32Len(what string, n int) error {
	if int64(n) > math.MaxInt32 {
		return fmt.Errorf("%s of %d bytes exceeds the int32 length Java reads", what, n)
	}
	return nil
}
