package logfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// EncodeBlock writes b as one framed block, exactly as Java's HoodieLogFormatWriter does, and
// returns the number of bytes written. b.Offset, b.Length and b.CorruptReason are ignored.
// A zero b.Version means FormatVersion; writers should leave it zero. Any other version is
// written as given, so that a block read from a file re-encodes to its exact bytes (Java
// reads every non-zero version with the version-1 layout). Header and footer entries are
// written in HeaderOrder/FooterOrder when those list exactly the map's keys, else in
// ascending ordinal order.
//
// Java fails to read a header key it does not know, so writers for table version 6 should
// only use InstantTime, TargetInstantTime, Schema and CommandBlockType.
func EncodeBlock(w io.Writer, b *Block) (int64, error) {
	buf, err := AppendBlock(nil, b)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(buf)
	if err != nil {
		return int64(n), fmt.Errorf("write %s log block: %w", b.Type, err)
	}
	return int64(n), nil
}

// AppendBlock appends the framed encoding of b (see EncodeBlock) to dst.
func AppendBlock(dst []byte, b *Block) ([]byte, error) {
	if b.Type == CorruptBlock {
		return dst, errors.New("encode log block: corrupt blocks are never written")
	}
	version := b.Version
	if version == 0 {
		version = FormatVersion
	}
	headerLen, err := metadataLen(b.Header)
	if err != nil {
		return dst, fmt.Errorf("encode %s log block header: %w", b.Type, err)
	}
	footerLen, err := metadataLen(b.Footer)
	if err != nil {
		return dst, fmt.Errorf("encode %s log block footer: %w", b.Type, err)
	}
	// blockSize counts everything after its own field, the reverse pointer included.
	blockSize := 4 + 4 + headerLen + 8 + int64(len(b.Content)) + footerLen + rptrLen
	if blockSize > math.MaxInt32 {
		// Java reads the size and the content length back as int.
		return dst, fmt.Errorf("encode %s log block: block size %d exceeds the 2 GiB Java can read", b.Type, blockSize)
	}
	dst = slices.Grow(dst, int(frameHead+blockSize))
	dst = append(dst, Magic...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(blockSize))
	dst = binary.BigEndian.AppendUint32(dst, uint32(version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.Type))
	dst = appendMetadata(dst, b.Header, b.HeaderOrder)
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(b.Content)))
	dst = append(dst, b.Content...)
	dst = appendMetadata(dst, b.Footer, b.FooterOrder)
	// The reverse pointer is the block's length in the file without the pointer itself.
	dst = binary.BigEndian.AppendUint64(dst, uint64(magicLen+sizeLen+blockSize-rptrLen))
	return dst, nil
}

func metadataLen(m map[HeaderKey]string) (int64, error) {
	n := int64(4)
	for k, v := range m {
		if int64(len(v)) > math.MaxInt32 {
			return 0, fmt.Errorf("value of %s is %d bytes, more than an int32 length holds", k, len(v))
		}
		n += 8 + int64(len(v))
	}
	return n, nil
}

func appendMetadata(dst []byte, m map[HeaderKey]string, order []HeaderKey) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(m)))
	for _, k := range metadataOrder(m, order) {
		v := m[k]
		dst = binary.BigEndian.AppendUint32(dst, uint32(k))
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	return dst
}

// metadataOrder returns order if it names every key of m exactly once, else m's keys sorted.
func metadataOrder(m map[HeaderKey]string, order []HeaderKey) []HeaderKey {
	if len(order) == len(m) {
		seen := make(map[HeaderKey]bool, len(order))
		ok := true
		for _, k := range order {
			if _, in := m[k]; !in || seen[k] {
				ok = false
				break
			}
			seen[k] = true
		}
		if ok {
			return order
		}
	}
	keys := make([]HeaderKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
