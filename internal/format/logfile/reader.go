package logfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Sizes of the fixed parts of a block frame.
const (
	magicLen  = int64(len(Magic))
	sizeLen   = 8 // int64 block size
	rptrLen   = 8 // int64 reverse pointer
	frameHead = magicLen + sizeLen
	// minBlockSize is the smallest block size that can hold version, type, an empty header,
	// content length, an empty footer and the reverse pointer.
	minBlockSize = 4 + 4 + 4 + 8 + 4 + rptrLen
	// scanFirstChunk and scanMaxChunk bound the reads made while looking for the next
	// magic: small first, since corrupt regions are usually short, then doubling.
	scanFirstChunk = 512
	scanMaxChunk   = 64 << 10
)

// Reader streams the blocks of one log file in file order.
//
// Its corruption handling follows Java's HoodieLogFileReader: after a magic it reads the
// block size, requires the reverse pointer at the end of the block to agree with it and the
// block to be followed by another magic or by the end of the file; if any of that fails it
// returns the bytes up to the next magic (or the end of the file) as one CorruptBlock.
// Beyond Java it also
//   - reports bytes that do not start with the magic (Java throws) as a CorruptBlock reaching
//     to the next magic, so a file with garbage at its start still yields its good blocks;
//   - reports a block whose frame is sound but whose inner lengths (header, content, footer)
//     do not exactly fill the frame, or whose format version is the legacy 0, as one
//     CorruptBlock covering the frame (Java would misread or throw);
//   - uses the block size as a full int64 (Java truncates it to int32).
//
// Like Java it ends silently when fewer than 6 bytes (not enough for a magic) remain.
type Reader struct {
	r       io.ReaderAt
	size    int64
	name    string
	pos     int64
	scanBuf []byte // reused by scanMagic
}

// NewReader returns a Reader of the log file r of size bytes. name identifies the file in
// errors.
func NewReader(r io.ReaderAt, size int64, name string) *Reader {
	if size < 0 {
		size = 0
	}
	return &Reader{r: r, size: size, name: name}
}

// Offset returns the file offset at which the next block will be read.
func (r *Reader) Offset() int64 { return r.pos }

// Next returns the next block, or io.EOF after the last one. Damaged regions come back as
// CorruptBlock blocks; an error is returned only when reading the underlying file fails.
func (r *Reader) Next() (*Block, error) {
	if r.size-r.pos < magicLen {
		r.pos = r.size
		return nil, io.EOF
	}
	start := r.pos
	b, err := r.readBlock(start)
	if err != nil {
		return nil, fmt.Errorf("read log file %s: block at offset %d: %w", r.name, start, err)
	}
	r.pos = b.Offset + b.Length
	return b, nil
}

// ReadAll reads every block of a log file.
func ReadAll(r io.ReaderAt, size int64, name string) ([]*Block, error) {
	lr := NewReader(r, size, name)
	var blocks []*Block
	for {
		b, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return blocks, nil
		}
		if err != nil {
			return blocks, err
		}
		blocks = append(blocks, b)
	}
}

// readBlock reads the block whose magic should be at start.
func (r *Reader) readBlock(start int64) (*Block, error) {
	var head [frameHead]byte
	n := int64(len(head))
	if r.size-start < n {
		n = r.size - start
	}
	if err := r.readAt(head[:n], start); err != nil {
		return nil, err
	}
	if !bytes.Equal(head[:magicLen], []byte(Magic)) {
		return r.corrupt(start, start+1, "no magic at block start")
	}
	if n < frameHead {
		// Java hits EOF reading the size and yields the rest of the file as corrupt.
		return r.corruptBlock(start, r.size, "end of file inside the block size"), nil
	}
	blockSize := int64(binary.BigEndian.Uint64(head[magicLen:]))
	body := start + frameHead // first byte after the size field
	if reason, err := r.checkFrame(body, blockSize); err != nil {
		return nil, err
	} else if reason != "" {
		// Java rewinds to just after the size field and scans for the next magic from there.
		return r.corrupt(start, body, reason)
	}

	frame := make([]byte, blockSize-rptrLen) // bounded by checkFrame: blockSize <= size-body
	if err := r.readAt(frame, body); err != nil {
		return nil, err
	}
	b, reason := parseFrame(frame)
	length := frameHead + blockSize
	if reason == "" && b.Type == CorruptBlock {
		// CORRUPT_BLOCK is synthesized by readers and never written; Java refuses such a
		// block, and we report the whole frame as corrupt.
		reason = "block type CORRUPT_BLOCK is never written by Hudi"
	}
	if reason != "" {
		return r.corruptBlock(start, start+length, reason), nil
	}
	b.Offset = start
	b.Length = length
	return b, nil
}

// checkFrame applies Java's isBlockCorrupt test to a block whose size field says blockSize
// and whose body starts at body. It returns a non-empty reason when the block is corrupt.
func (r *Reader) checkFrame(body, blockSize int64) (string, error) {
	if blockSize < minBlockSize {
		return fmt.Sprintf("block size %d too small", blockSize), nil
	}
	if blockSize > r.size-body {
		return fmt.Sprintf("block size %d runs past the end of the file (%d bytes left)", blockSize, r.size-body), nil
	}
	end := body + blockSize
	var tail [rptrLen + magicLen]byte
	n := int64(len(tail))
	if r.size-(end-rptrLen) < n {
		n = r.size - (end - rptrLen)
	}
	if err := r.readAt(tail[:n], end-rptrLen); err != nil {
		return "", err
	}
	// The reverse pointer counts the magic, the size field does not.
	if rp := int64(binary.BigEndian.Uint64(tail[:rptrLen])); rp-magicLen != blockSize {
		return fmt.Sprintf("block size %d does not match reverse pointer %d", blockSize, rp), nil
	}
	if n == int64(len(tail)) && !bytes.Equal(tail[rptrLen:], []byte(Magic)) {
		return "block not followed by a magic or the end of the file", nil
	}
	return "", nil
}

// corrupt returns a corrupt block starting at start and reaching to the next magic found at
// or after from (or to the end of the file).
func (r *Reader) corrupt(start, from int64, reason string) (*Block, error) {
	next, err := r.scanMagic(from)
	if err != nil {
		return nil, err
	}
	return r.corruptBlock(start, next, reason), nil
}

func (r *Reader) corruptBlock(start, end int64, reason string) *Block {
	return &Block{Type: CorruptBlock, Offset: start, Length: end - start, CorruptReason: reason}
}

// scanMagic returns the offset of the first magic at or after from, or the file size.
func (r *Reader) scanMagic(from int64) (int64, error) {
	chunk := int64(scanFirstChunk)
	for from <= r.size-magicLen {
		n := min(chunk, r.size-from)
		if int64(cap(r.scanBuf)) < n {
			r.scanBuf = make([]byte, n)
		}
		buf := r.scanBuf[:n]
		if err := r.readAt(buf, from); err != nil {
			return 0, err
		}
		if i := bytes.Index(buf, []byte(Magic)); i >= 0 {
			return from + int64(i), nil
		}
		// Keep the last magicLen-1 bytes: a magic may straddle two chunks.
		from += max(n-(magicLen-1), 1)
		chunk = min(2*chunk, scanMaxChunk)
	}
	return r.size, nil
}

// readAt fills p from off; running out of file inside the declared size is an I/O error
// (the file shrank or size was wrong), not corruption.
func (r *Reader) readAt(p []byte, off int64) error {
	n, err := r.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d bytes at offset %d: %w", len(p), off, err)
}

// parseFrame parses version, type, header, content and footer from the bytes between the
// size field and the reverse pointer. It returns a reason instead of a block when the
// inner lengths do not fill the frame exactly.
func parseFrame(frame []byte) (*Block, string) {
	c := cursor{b: frame}
	version, ok := c.int32()
	if !ok {
		return nil, "frame too short for the format version"
	}
	// Java reads every non-zero version with the version-1 layout; version 0 was a
	// pre-release layout without type or header that Java itself can no longer read.
	if version == 0 {
		return nil, "legacy log format version 0"
	}
	typ, ok := c.int32()
	if !ok {
		return nil, "frame too short for the block type"
	}
	b := &Block{Type: BlockType(typ), Version: version}
	var reason string
	if b.Header, b.HeaderOrder, reason = c.metadata("header"); reason != "" {
		return nil, reason
	}
	contentLen, ok := c.int64()
	if !ok {
		return nil, "frame too short for the content length"
	}
	if contentLen < 0 || contentLen > int64(c.remaining()) {
		return nil, fmt.Sprintf("content length %d exceeds the %d bytes left in the block", contentLen, c.remaining())
	}
	b.Content, _ = c.bytes(int(contentLen))
	if b.Footer, b.FooterOrder, reason = c.metadata("footer"); reason != "" {
		return nil, reason
	}
	if c.remaining() != 0 {
		return nil, fmt.Sprintf("%d unexplained bytes before the reverse pointer", c.remaining())
	}
	return b, ""
}

// cursor reads big-endian values from a byte slice without ever reading past its end.
type cursor struct {
	b   []byte
	off int
}

func (c *cursor) remaining() int { return len(c.b) - c.off }

func (c *cursor) bytes(n int) ([]byte, bool) {
	if n < 0 || n > c.remaining() {
		return nil, false
	}
	p := c.b[c.off : c.off+n : c.off+n]
	c.off += n
	return p, true
}

func (c *cursor) int32() (int32, bool) {
	p, ok := c.bytes(4)
	if !ok {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(p)), true
}

func (c *cursor) int64() (int64, bool) {
	p, ok := c.bytes(8)
	if !ok {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p)), true
}

// metadata reads a header or footer map: int32 count, then count × (int32 key, int32
// length, bytes). A repeated key keeps its last value, as Java's HashMap does.
func (c *cursor) metadata(what string) (map[HeaderKey]string, []HeaderKey, string) {
	count, ok := c.int32()
	if !ok {
		return nil, nil, "block too short for the " + what + " entry count"
	}
	// Every entry takes at least 8 bytes, which bounds count before anything is allocated.
	if count < 0 || int(count) > c.remaining()/8 {
		return nil, nil, fmt.Sprintf("%s entry count %d does not fit in the %d bytes left", what, count, c.remaining())
	}
	if count == 0 {
		return nil, nil, ""
	}
	m := make(map[HeaderKey]string, count)
	order := make([]HeaderKey, 0, count)
	for i := int32(0); i < count; i++ {
		key, _ := c.int32()
		n, ok := c.int32()
		if !ok {
			return nil, nil, fmt.Sprintf("%s entry %d truncated", what, i)
		}
		v, ok := c.bytes(int(n))
		if !ok {
			return nil, nil, fmt.Sprintf("%s entry %d value length %d exceeds the %d bytes left", what, i, n, c.remaining())
		}
		k := HeaderKey(key)
		if _, dup := m[k]; !dup {
			order = append(order, k)
		}
		m[k] = string(v)
	}
	return m, order, ""
}

// ReadBlockAt reads the block whose magic is at offset: a second read of a block found
// by an earlier scan, so that a scanner need not keep every block's content in memory.
func ReadBlockAt(r io.ReaderAt, size int64, name string, offset int64) (*Block, error) {
	lr := NewReader(r, size, name)
	lr.pos = offset
	return lr.Next()
}
