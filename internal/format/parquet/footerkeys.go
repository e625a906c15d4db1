package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Key pruning (read) and index lookups (write) need four footer key/values of a base
// file (min/max record key, bloom filter and its type), not the schema or row-group
// metadata. A full footer decode (Open) copies every key/value through thrift's growing
// buffers — the bloom filter alone is ~430 KB of base64 by default — which dominated
// point lookups. This walks the footer's thrift compact encoding with small windowed
// reads, skipping everything but FileMetaData.key_value_metadata, and leaves the bloom
// filter bytes unread until a key within the file's key range needs them.

// FooterKeys are the footer values of a Hudi base file that key pruning and index
// lookups use. The bloom filter is a reference (offset and length in the file) read by
// BloomFilterText.
type FooterKeys struct {
	MinKey, MaxKey string
	HasRange       bool
	BloomOff       int64
	BloomLen       int
	HasBloom       bool
	BloomType      string
}

// footerChunk is the size of each windowed footer read; the first read takes the file's
// last footerChunk bytes (the footer length, and often the last key/values).
const footerChunk = 16 << 10

// maxFooterValue bounds a key/value read into memory (a bloom filter is ~430 KB with
// Hudi's defaults; hoodie.index.bloom.num_entries can make it larger).
const maxFooterValue = 64 << 20

// footerBufs recycles read windows and bloom filter buffers.
var footerBufs = sync.Pool{New: func() any { b := make([]byte, 0, footerChunk); return &b }}

// ReadFooterKeys reads the key/value metadata Hudi keeps in a Parquet footer. Encrypted
// footers and malformed files are errors; the caller then prunes nothing and leaves the
// error to the real read.
func ReadFooterKeys(r io.ReaderAt, size int64) (FooterKeys, error) {
	if size < 12 {
		return FooterKeys{}, fmt.Errorf("%d bytes is too short to be Parquet", size)
	}
	tp := footerBufs.Get().(*[]byte)
	defer footerBufs.Put(tp)
	wp := footerBufs.Get().(*[]byte)
	defer footerBufs.Put(wp)
	n := min(size, footerChunk)
	tail := grow(tp, int(n))
	if err := readFull(r, tail, size-n); err != nil {
		return FooterKeys{}, err
	}
	if string(tail[n-4:]) != "PAR1" {
		return FooterKeys{}, errors.New("no PAR1 footer magic (encrypted or not Parquet)")
	}
	flen := int64(binary.LittleEndian.Uint32(tail[n-8 : n-4]))
	if flen <= 0 || flen > size-12 {
		return FooterKeys{}, fmt.Errorf("footer length %d does not fit a %d-byte file", flen, size)
	}
	end := size - 8
	w := &thriftWalker{r: r, pos: end - flen, end: end, tail: tail[:n-8], tailOff: size - n, scratch: wp}
	fk := w.fileMetaDataKeys()
	return fk, w.err
}

// BloomFilterText reads the file's serialized bloom filter (the footer value, to be
// probed with bloom.NewProbe).
func (fk FooterKeys) BloomFilterText(r io.ReaderAt) (string, error) {
	bp := footerBufs.Get().(*[]byte)
	defer footerBufs.Put(bp)
	b := grow(bp, fk.BloomLen)
	if err := readFull(r, b, fk.BloomOff); err != nil {
		return "", err
	}
	return string(b), nil
}

// grow returns (*p)[:n], reallocating when its capacity is short.
func grow(p *[]byte, n int) []byte {
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return *p
}

// readFull is ReadAt that accepts io.EOF with a full buffer.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// fileMetaDataKeys walks a FileMetaData struct for key_value_metadata (field 5).
func (t *thriftWalker) fileMetaDataKeys() FooterKeys {
	var fk FooterKeys
	var minKey, maxKey *string
	var bloomType *string
	var legacy *[2]int64
	var last int16
	for t.err == nil {
		id, typ, stop := t.fieldHeader(&last)
		if stop || t.err != nil {
			break
		}
		if id != 5 || typ != tList {
			t.skip(typ, false, 0)
			continue
		}
		size, elem := t.listHeader()
		if elem != tStruct && size > 0 {
			t.fail("key_value_metadata is not a list of structs")
			break
		}
		for i := 0; i < size && t.err == nil; i++ {
			t.keyValue(func(key string, off int64, n int) {
				// The first occurrence of a key wins, as in arrow-go's FindValue.
				switch key {
				case KeyMinRecordKey:
					if minKey == nil {
						v := t.stringAt(off, n)
						minKey = &v
					}
				case KeyMaxRecordKey:
					if maxKey == nil {
						v := t.stringAt(off, n)
						maxKey = &v
					}
				case KeyBloomFilterType:
					if bloomType == nil {
						v := t.stringAt(off, n)
						bloomType = &v
					}
				case KeyBloomFilter:
					if !fk.HasBloom {
						fk.BloomOff, fk.BloomLen, fk.HasBloom = off, n, true
					}
				case legacyKeyBloomFilter:
					if legacy == nil {
						legacy = &[2]int64{off, int64(n)}
					}
				}
			})
		}
		// Fields after key_value_metadata (created_by, column orders, encryption) are
		// not needed.
		break
	}
	if minKey != nil && maxKey != nil {
		fk.MinKey, fk.MaxKey, fk.HasRange = *minKey, *maxKey, true
	}
	if !fk.HasBloom && legacy != nil {
		fk.BloomOff, fk.BloomLen, fk.HasBloom = legacy[0], int(legacy[1]), true
	}
	if bloomType != nil {
		fk.BloomType = *bloomType
	}
	return fk
}

// Thrift compact protocol type codes.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
	tUUID   = 13
)

// maxThriftDepth bounds nesting so a malformed footer cannot exhaust the stack.
const maxThriftDepth = 64

// thriftWalker reads the thrift compact protocol of a footer [pos, end) through a window
// of read bytes. tail holds the file's last bytes (from tailOff), read first. The first
// error sticks; reads after it return zero values.
type thriftWalker struct {
	r        io.ReaderAt
	pos, end int64
	win      []byte // bytes from winOff
	winOff   int64
	tail     []byte
	tailOff  int64
	scratch  *[]byte
	err      error
}

func (t *thriftWalker) fail(format string, args ...any) {
	if t.err == nil {
		t.err = fmt.Errorf("footer at byte %d: "+format, append([]any{t.pos}, args...)...)
	}
}

// bytesAt returns the n footer bytes at off, valid until the next read.
func (t *thriftWalker) bytesAt(off int64, n int) []byte {
	if t.err != nil {
		return nil
	}
	if n < 0 || off < 0 || int64(n) > t.end-off {
		t.fail("truncated (%d bytes needed at %d)", n, off)
		return nil
	}
	if off >= t.winOff && off+int64(n) <= t.winOff+int64(len(t.win)) {
		return t.win[off-t.winOff : off-t.winOff+int64(n)]
	}
	if off >= t.tailOff && off+int64(n) <= t.tailOff+int64(len(t.tail)) {
		t.win, t.winOff = t.tail, t.tailOff
		return t.win[off-t.winOff : off-t.winOff+int64(n)]
	}
	size := int(min(max(int64(n), footerChunk), t.end-off))
	w := grow(t.scratch, size)
	if err := readFull(t.r, w, off); err != nil {
		t.err = err
		return nil
	}
	t.win, t.winOff = w, off
	return w[:n]
}

func (t *thriftWalker) byte1() byte {
	b := t.bytesAt(t.pos, 1)
	if b == nil {
		return 0
	}
	t.pos++
	return b[0]
}

func (t *thriftWalker) advance(n int64) {
	if t.err != nil {
		return
	}
	if n < 0 || n > t.end-t.pos {
		t.fail("truncated (%d bytes needed)", n)
		return
	}
	t.pos += n
}

func (t *thriftWalker) uvarint() uint64 {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := t.byte1()
		if t.err != nil {
			return 0
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	t.fail("varint too long")
	return 0
}

// binaryRef skips a binary value and returns where its bytes are.
func (t *thriftWalker) binaryRef() (off int64, n int) {
	v := t.uvarint()
	if t.err != nil {
		return 0, 0
	}
	if v > uint64(t.end-t.pos) || v > maxFooterValue {
		t.fail("binary of %d bytes overruns the footer", v)
		return 0, 0
	}
	off = t.pos
	t.pos += int64(v)
	return off, int(v)
}

// stringAt copies n footer bytes at off.
func (t *thriftWalker) stringAt(off int64, n int) string {
	return string(t.bytesAt(off, n))
}

// fieldHeader reads a struct field header; last is the previous field id of the struct.
func (t *thriftWalker) fieldHeader(last *int16) (id int16, typ byte, stop bool) {
	c := t.byte1()
	if t.err != nil || c == tStop {
		return 0, 0, true
	}
	typ = c & 0x0f
	if delta := int16(c >> 4); delta != 0 {
		id = *last + delta
	} else {
		v := t.uvarint()
		id = int16(int64(v>>1) ^ -int64(v&1))
	}
	*last = id
	return id, typ, false
}

// listHeader reads a list or set header.
func (t *thriftWalker) listHeader() (size int, elem byte) {
	c := t.byte1()
	elem = c & 0x0f
	n := uint64(c >> 4)
	if n == 15 {
		n = t.uvarint()
	}
	// Every element takes at least one byte.
	if t.err == nil && n > uint64(t.end-t.pos) {
		t.fail("list of %d elements overruns the footer", n)
		return 0, elem
	}
	return int(n), elem
}

// skip skips a value of type typ; in containers booleans take a byte of their own.
func (t *thriftWalker) skip(typ byte, inContainer bool, depth int) {
	if t.err != nil {
		return
	}
	if depth > maxThriftDepth {
		t.fail("nested too deeply")
		return
	}
	switch typ {
	case tTrue, tFalse:
		if inContainer {
			t.advance(1)
		}
	case tByte:
		t.advance(1)
	case tI16, tI32, tI64:
		t.uvarint()
	case tDouble:
		t.advance(8)
	case tBinary:
		t.binaryRef()
	case tUUID:
		t.advance(16)
	case tList, tSet:
		size, elem := t.listHeader()
		for i := 0; i < size && t.err == nil; i++ {
			t.skip(elem, true, depth+1)
		}
	case tMap:
		size := t.uvarint()
		if t.err == nil && size > uint64(t.end-t.pos) {
			t.fail("map of %d entries overruns the footer", size)
			return
		}
		if size == 0 {
			return
		}
		kv := t.byte1()
		for i := uint64(0); i < size && t.err == nil; i++ {
			t.skip(kv>>4, true, depth+1)
			t.skip(kv&0x0f, true, depth+1)
		}
	case tStruct:
		var last int16
		for t.err == nil {
			_, ft, stop := t.fieldHeader(&last)
			if stop {
				return
			}
			t.skip(ft, false, depth+1)
		}
	default:
		t.fail("unknown thrift type %d", typ)
	}
}

// keyValue reads a parquet KeyValue struct {1: key, 2: optional value} and calls fn
// with the key and where its value is, if it has one.
func (t *thriftWalker) keyValue(fn func(key string, off int64, n int)) {
	var last int16
	var key string
	var off int64
	n := -1
	for t.err == nil {
		id, typ, stop := t.fieldHeader(&last)
		if stop {
			break
		}
		switch {
		case id == 1 && typ == tBinary:
			ko, kn := t.binaryRef()
			key = t.stringAt(ko, kn)
		case id == 2 && typ == tBinary:
			off, n = t.binaryRef()
		default:
			t.skip(typ, false, 1)
		}
	}
	if t.err == nil && n >= 0 {
		fn(key, off, n)
	}
}
