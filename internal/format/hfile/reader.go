package hfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Reader reads one HFile. It loads the trailer, the data and meta indexes and the file info
// when opened, and data blocks on demand. A Reader is not safe for concurrent use.
type Reader struct {
	r       io.ReaderAt
	size    int64
	name    string
	trailer Trailer
	// dataIndex holds the data block entries (the leaf level of a multi-level index),
	// sorted by key.
	dataIndex []IndexEntry
	// rootIndex is the root level of the data index as stored (equal to dataIndex for a
	// single-level index).
	rootIndex []IndexEntry
	metaIndex []IndexEntry
	info      FileInfo
	mvcc      bool // each key/value ends with a memstore timestamp
	// cur caches the last data block read.
	cur *dataBlock
}

// IndexEntry is one entry of a block index: the block's offset and on-disk size and the
// first key of the block. For data indexes Key is the HBase KeyValue key and Row its row
// (HBase's writer may store a shortened "fake" key that sorts between the previous block's
// last row and this block's first row); for the meta index Key and Row are the block name.
type IndexEntry struct {
	Offset int64
	Size   int32
	Key    []byte
	Row    []byte
}

// FileInfo is the file-info map of an HFile in file order (HBase writes it sorted by key).
type FileInfo struct {
	Keys   []string
	Values [][]byte
}

// Get returns the value of key.
func (f *FileInfo) Get(key string) ([]byte, bool) {
	for i, k := range f.Keys {
		if k == key {
			return f.Values[i], true
		}
	}
	return nil, false
}

// File-info keys written by HBase's HFileWriterImpl (and read by hudi-io's HFileInfo).
const (
	InfoLastKey        = "hfile.LASTKEY"
	InfoAvgKeyLen      = "hfile.AVG_KEY_LEN"
	InfoAvgValueLen    = "hfile.AVG_VALUE_LEN"
	InfoCreateTimeTS   = "hfile.CREATE_TIME_TS"
	InfoMaxTagsLen     = "hfile.MAX_TAGS_LEN"
	InfoMaxMemstoreTS  = "MAX_MEMSTORE_TS_KEY"
	InfoKeyValueVer    = "KEY_VALUE_VERSION"
	keyValueVerWithTS  = 1
	pbMagic            = "PBUF"
	fileInfoMaxEntries = 1 << 20
	// maxIndexLevels bounds the data index depth: HBase's writer stops adding levels at 16
	// (HFileBlockIndex.writeIndexBlocks).
	maxIndexLevels = 16
)

// Open reads the trailer, indexes and file info of the HFile r of size bytes. name
// identifies the file in errors.
func Open(r io.ReaderAt, size int64, name string) (*Reader, error) {
	rd := &Reader{r: r, size: size, name: name}
	if err := rd.load(); err != nil {
		return nil, err
	}
	return rd, nil
}

// OpenBytes opens an HFile held in memory (the content of an HFILE_DATA_BLOCK).
func OpenBytes(b []byte, name string) (*Reader, error) {
	return Open(bytes.NewReader(b), int64(len(b)), name)
}

func (r *Reader) readAt(p []byte, off int64) error {
	n, err := r.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return &FormatError{Name: r.name, Offset: off, Msg: fmt.Sprintf("file ends after %d of %d bytes", n, len(p))}
	}
	return fmt.Errorf("hfile %s: read %d bytes at offset %d: %w", r.name, len(p), off, err)
}

func (r *Reader) bad(off int64, format string, a ...any) error {
	return &FormatError{Name: r.name, Offset: off, Msg: fmt.Sprintf(format, a...)}
}

func (r *Reader) load() error {
	if r.size < TrailerSize {
		return r.bad(0, "file is %d bytes, shorter than the %d-byte trailer", r.size, TrailerSize)
	}
	tb := make([]byte, TrailerSize)
	if err := r.readAt(tb, r.size-TrailerSize); err != nil {
		return err
	}
	t, err := parseTrailer(r.name, tb, r.size-TrailerSize)
	if err != nil {
		return err
	}
	r.trailer = t
	if !t.Codec.Supported() {
		return fmt.Errorf("hfile %s: %w", r.name, unsupportedCodec(t.Codec))
	}
	if len(t.EncryptionKey) > 0 {
		return fmt.Errorf("hfile %s: %w: encrypted HFiles", r.name, ErrUnsupported)
	}
	end := r.size - TrailerSize
	if t.LoadOnOpenOffset < 0 || t.LoadOnOpenOffset > end {
		return r.bad(end, "trailer: load-on-open offset %d outside the file", t.LoadOnOpenOffset)
	}
	if t.DataIndexCount > 0 && t.NumDataIndexLevels < 1 || t.NumDataIndexLevels > maxIndexLevels {
		return r.bad(end, "trailer: %d data index entries in %d levels (at most %d)", t.DataIndexCount, t.NumDataIndexLevels, maxIndexLevels)
	}
	// The load-on-open section: root data index, meta index, file info, in that order
	// (Java's HFileReaderImpl.initializeMetadata reads them back to back).
	off := t.LoadOnOpenOffset
	root, err := r.readBlock(off, -1, RootIndexBlock)
	if err != nil {
		return err
	}
	r.rootIndex, err = r.parseRootIndex(root, t.DataIndexCount, false)
	if err != nil {
		return err
	}
	off += root.OnDiskSize()
	meta, err := r.readBlock(off, -1, RootIndexBlock)
	if err != nil {
		return err
	}
	r.metaIndex, err = r.parseRootIndex(meta, t.MetaIndexCount, true)
	if err != nil {
		return err
	}
	off += meta.OnDiskSize()
	fi, err := r.readBlock(off, -1, FileInfoBlock)
	if err != nil {
		return err
	}
	if err := r.parseFileInfo(fi); err != nil {
		return err
	}
	if err := r.checkFileInfo(); err != nil {
		return err
	}
	if err := r.checkOffsets(r.rootIndex, "root data index"); err != nil {
		return err
	}
	r.dataIndex = r.rootIndex
	if t.NumDataIndexLevels > 1 {
		r.dataIndex, err = r.readLowerLevels(r.rootIndex, t.NumDataIndexLevels)
		if err != nil {
			return err
		}
	}
	for i := 1; i < len(r.dataIndex); i++ {
		if bytes.Compare(r.dataIndex[i-1].Row, r.dataIndex[i].Row) >= 0 {
			return r.bad(r.dataIndex[i].Offset, "data index: block keys out of order (%q then %q)", r.dataIndex[i-1].Row, r.dataIndex[i].Row)
		}
	}
	return nil
}

// checkFileInfo applies the file-info flags that change how key/values are laid out.
func (r *Reader) checkFileInfo() error {
	if _, ok := r.info.Get(InfoMaxTagsLen); ok {
		return fmt.Errorf("hfile %s: %w: cell tags (file info has %s)", r.name, ErrUnsupported, InfoMaxTagsLen)
	}
	// HBase writes a memstore timestamp after each key/value when KEY_VALUE_VERSION is 1.
	// Hudi 1.1's own writer writes the (zero) timestamp byte without that key, and hudi-io's
	// reader always expects the byte, so the byte is assumed unless KEY_VALUE_VERSION says
	// otherwise.
	r.mvcc = true
	if v, ok := r.info.Get(InfoKeyValueVer); ok {
		if len(v) != 4 {
			return r.bad(r.trailer.FileInfoOffset, "file info: %s is %d bytes", InfoKeyValueVer, len(v))
		}
		r.mvcc = binary.BigEndian.Uint32(v) == keyValueVerWithTS
		if r.mvcc {
			ts, ok := r.info.Get(InfoMaxMemstoreTS)
			if ok && len(ts) == 8 && binary.BigEndian.Uint64(ts) != 0 {
				// hudi-io's HFileInfo refuses these too: Hudi never writes MVCC timestamps.
				return fmt.Errorf("hfile %s: %w: MVCC timestamps (max %d)", r.name, ErrUnsupported, binary.BigEndian.Uint64(ts))
			}
		}
	}
	return nil
}

// parseRootIndex decodes n entries of a root index block: int64 offset, int32 on-disk size,
// Hadoop vint key length, key. Bytes after the n entries (HBase's mid-key metadata of a
// multi-level index) are ignored, as Java does.
func (r *Reader) parseRootIndex(b *block, n int, meta bool) ([]IndexEntry, error) {
	p := b.payload
	out := make([]IndexEntry, 0, min(n, len(p)/13+1))
	pos := 0
	for i := 0; i < n; i++ {
		if len(p)-pos < 13 {
			return nil, r.bad(b.offset, "root index: entry %d of %d truncated", i, n)
		}
		e := IndexEntry{Offset: int64(binary.BigEndian.Uint64(p[pos:])), Size: int32(binary.BigEndian.Uint32(p[pos+8:]))}
		kl, m, err := readVLong(p[pos+12:])
		if err != nil || kl < 0 || kl > int64(len(p)-pos-12-m) {
			return nil, r.bad(b.offset, "root index: entry %d: bad key length", i)
		}
		e.Key = p[pos+12+m : pos+12+m+int(kl)]
		pos += 12 + m + int(kl)
		if meta {
			e.Row = e.Key
		} else if e.Row, err = keyRow(e.Key); err != nil {
			return nil, r.bad(b.offset, "root index: entry %d: %v", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// parseNonRootIndex decodes a leaf or intermediate index block: int32 entry count, count+1
// int32 offsets of the entries relative to the end of that table, then the entries (int64
// offset, int32 size, key running to the next entry).
func (r *Reader) parseNonRootIndex(b *block) ([]IndexEntry, error) {
	p := b.payload
	if len(p) < 4 {
		return nil, r.bad(b.offset, "%s block: truncated", b.Type)
	}
	n := int64(int32(binary.BigEndian.Uint32(p)))
	if n < 0 || (n+1)*4 > int64(len(p)-4) {
		return nil, r.bad(b.offset, "%s block: %d entries do not fit %d bytes", b.Type, n, len(p))
	}
	table := p[4 : 4+(n+1)*4]
	body := p[4+(n+1)*4:]
	rel := func(i int64) int64 { return int64(int32(binary.BigEndian.Uint32(table[i*4:]))) }
	out := make([]IndexEntry, 0, n)
	for i := int64(0); i < n; i++ {
		s, e := rel(i), rel(i+1)
		if s < 0 || e < s+12 || e > int64(len(body)) {
			return nil, r.bad(b.offset, "%s block: entry %d spans [%d, %d) of %d bytes", b.Type, i, s, e, len(body))
		}
		ent := IndexEntry{Offset: int64(binary.BigEndian.Uint64(body[s:])), Size: int32(binary.BigEndian.Uint32(body[s+8:])), Key: body[s+12 : e]}
		var err error
		if ent.Row, err = keyRow(ent.Key); err != nil {
			return nil, r.bad(b.offset, "%s block: entry %d: %v", b.Type, i, err)
		}
		out = append(out, ent)
	}
	return out, nil
}

// readLowerLevels walks a multi-level data index from the root down to the entries that
// point at data blocks, level by level (breadth first, as Java's readDataBlockIndex).
func (r *Reader) readLowerLevels(root []IndexEntry, levels int) ([]IndexEntry, error) {
	entries := root
	for level := levels - 1; level >= 1; level-- {
		want := LeafIndexBlock
		if level > 1 {
			want = IntermediateBlock
		}
		var next []IndexEntry
		for _, e := range entries {
			b, err := r.readBlock(e.Offset, int64(e.Size), want)
			if err != nil {
				return nil, err
			}
			sub, err := r.parseNonRootIndex(b)
			if err != nil {
				return nil, err
			}
			if len(sub) == 0 {
				return nil, r.bad(e.Offset, "%s block without entries", want)
			}
			next = append(next, sub...)
		}
		if err := r.checkOffsets(next, fmt.Sprintf("data index level %d", level)); err != nil {
			return nil, err
		}
		entries = next
	}
	return entries, nil
}

// checkOffsets requires the blocks one index level points to to lie in the block section
// in strictly increasing order, as every writer lays them out. Beyond catching damage, it
// bounds the work of walking an index: a corrupt index cannot point back at itself.
func (r *Reader) checkOffsets(entries []IndexEntry, what string) error {
	end := r.size - TrailerSize
	for i, e := range entries {
		if e.Offset < 0 || e.Size < HeaderSize || e.Offset > end-int64(e.Size) {
			return r.bad(max(0, min(e.Offset, end)), "%s: entry %d points at %d bytes at offset %d, outside the block section", what, i, e.Size, e.Offset)
		}
		if i > 0 && e.Offset <= entries[i-1].Offset {
			return r.bad(e.Offset, "%s: entry %d at offset %d does not follow entry %d at offset %d", what, i, e.Offset, i-1, entries[i-1].Offset)
		}
	}
	return nil
}

// parseFileInfo decodes "PBUF" and a length-delimited protobuf InfoProto (repeated
// BytesBytesPair map_entry = 1 {bytes first = 1; bytes second = 2}).
func (r *Reader) parseFileInfo(b *block) error {
	p := b.payload
	if len(p) < len(pbMagic) || string(p[:len(pbMagic)]) != pbMagic {
		return r.bad(b.offset, "file info: no %q magic", pbMagic)
	}
	p = p[len(pbMagic):]
	l, n, err := uvarint(p)
	if err != nil || l > uint64(len(p)-n) {
		return r.bad(b.offset, "file info: bad protobuf length")
	}
	fields, err := parsePB(p[n : n+int(l)])
	if err != nil {
		return r.bad(b.offset, "file info: %v", err)
	}
	for _, f := range fields {
		if f.num != 1 {
			continue
		}
		if f.wire != wireBytes {
			return r.bad(b.offset, "file info: map entry with wire type %d", f.wire)
		}
		pair, err := parsePB(f.bytes)
		if err != nil {
			return r.bad(b.offset, "file info entry: %v", err)
		}
		var k, v []byte
		for _, pf := range pair {
			if pf.wire != wireBytes {
				continue
			}
			switch pf.num {
			case 1:
				k = pf.bytes
			case 2:
				v = pf.bytes
			}
		}
		if len(r.info.Keys) >= fileInfoMaxEntries {
			return r.bad(b.offset, "file info: more than %d entries", fileInfoMaxEntries)
		}
		r.info.Keys = append(r.info.Keys, string(k))
		r.info.Values = append(r.info.Values, v)
	}
	return nil
}

// keyRow returns the row of an HBase KeyValue key (int16 row length, row, …).
func keyRow(key []byte) ([]byte, error) {
	if len(key) < 2 {
		return nil, fmt.Errorf("key of %d bytes has no row length", len(key))
	}
	n := int(binary.BigEndian.Uint16(key))
	if n > len(key)-2 {
		return nil, fmt.Errorf("row length %d exceeds the %d-byte key", n, len(key))
	}
	return key[2 : 2+n], nil
}

// Name returns the name the Reader was opened with.
func (r *Reader) Name() string { return r.name }

// Trailer returns the decoded trailer.
func (r *Reader) Trailer() Trailer { return r.trailer }

// FileInfo returns the file-info map.
func (r *Reader) FileInfo() *FileInfo { return &r.info }

// EntryCount is the number of key/values the trailer records.
func (r *Reader) EntryCount() int64 { return r.trailer.EntryCount }

// DataIndex returns the data block index entries (the leaf level), one per data block.
func (r *Reader) DataIndex() []IndexEntry { return r.dataIndex }

// RootIndex returns the root level of the data index as stored.
func (r *Reader) RootIndex() []IndexEntry { return r.rootIndex }

// MetaIndex returns the meta block index (one entry per meta block, by name).
func (r *Reader) MetaIndex() []IndexEntry { return r.metaIndex }

// MetaBlock returns the content of the meta block called name (Hudi stores its bloom
// filter in "bloomFilter").
func (r *Reader) MetaBlock(name string) ([]byte, bool, error) {
	for _, e := range r.metaIndex {
		if string(e.Key) == name {
			b, err := r.readBlock(e.Offset, int64(e.Size), MetaBlock)
			if err != nil {
				return nil, false, err
			}
			return b.payload, true, nil
		}
	}
	return nil, false, nil
}

// LastKey returns the row of the file-info LASTKEY, the largest key in the file.
func (r *Reader) LastKey() ([]byte, bool) {
	v, ok := r.info.Get(InfoLastKey)
	if !ok {
		return nil, false
	}
	row, err := keyRow(v)
	if err != nil {
		return nil, false
	}
	return row, true
}

// Blocks walks the block section from offset 0 to the trailer and returns every block
// header in file order, with its offset. It reads headers only, and tells the layout of a
// file (used to compare files written by Java and by this package).
func (r *Reader) Blocks() ([]BlockInfo, error) {
	var out []BlockInfo
	end := r.size - TrailerSize
	for off := int64(0); off < end; {
		if end-off < HeaderSize {
			return nil, r.bad(off, "%d bytes before the trailer do not hold a block header", end-off)
		}
		var hb [HeaderSize]byte
		if err := r.readAt(hb[:], off); err != nil {
			return nil, err
		}
		h := parseHeader(hb[:])
		if !isKnownType(h.Type) {
			return nil, r.bad(off, "invalid block magic %q", hb[:8])
		}
		if h.OnDiskSizeWithoutHeader < 0 || h.OnDiskSize() > end-off {
			return nil, r.bad(off, "%s block of %d bytes runs past the block section end %d", h.Type, h.OnDiskSize(), end)
		}
		out = append(out, BlockInfo{Offset: off, BlockHeader: h})
		off += h.OnDiskSize()
	}
	return out, nil
}

// BlockInfo is a block's header and file offset.
type BlockInfo struct {
	Offset int64
	BlockHeader
}

// ReadBlockPayload reads and verifies the block at off (as listed by Blocks) and returns its
// uncompressed payload.
func (r *Reader) ReadBlockPayload(off int64, typ BlockType) ([]byte, error) {
	b, err := r.readBlock(off, -1, typ)
	if err != nil {
		return nil, err
	}
	return b.payload, nil
}

// dataBlock is a decoded data block: its key/values are parsed on demand from payload.
type dataBlock struct {
	index   int // position in dataIndex
	offset  int64
	payload []byte
}

func (r *Reader) loadDataBlock(i int) (*dataBlock, error) {
	if r.cur != nil && r.cur.index == i {
		return r.cur, nil
	}
	e := r.dataIndex[i]
	b, err := r.readBlock(e.Offset, int64(e.Size), DataBlock)
	if err != nil {
		return nil, err
	}
	r.cur = &dataBlock{index: i, offset: e.Offset, payload: b.payload}
	return r.cur, nil
}

// cell is one key/value of a data block.
type cell struct {
	row, key, value []byte
	next            int // payload position of the following key/value
}

// cellAt decodes the key/value at payload position pos.
func (r *Reader) cellAt(d *dataBlock, pos int) (cell, error) {
	p := d.payload
	fail := func(format string, a ...any) (cell, error) {
		return cell{}, r.bad(d.offset, "data block: key/value at payload position %d: %s", pos, fmt.Sprintf(format, a...))
	}
	if len(p)-pos < 8 {
		return fail("truncated lengths")
	}
	kl := int64(int32(binary.BigEndian.Uint32(p[pos:])))
	vl := int64(int32(binary.BigEndian.Uint32(p[pos+4:])))
	if kl < 0 || vl < 0 || kl+vl > int64(len(p)-pos-8) {
		return fail("key length %d and value length %d exceed the block", kl, vl)
	}
	c := cell{key: p[pos+8 : pos+8+int(kl)]}
	c.value = p[pos+8+int(kl) : pos+8+int(kl)+int(vl)]
	row, err := keyRow(c.key)
	if err != nil {
		return fail("%v", err)
	}
	c.row = row
	c.next = pos + 8 + int(kl) + int(vl)
	if r.mvcc {
		_, n, err := readVLong(p[c.next:])
		if err != nil {
			return fail("memstore timestamp truncated")
		}
		c.next += n
	}
	return c, nil
}

// findBlock returns the index of the data block that may hold row: the last block whose
// index key is <= row, or -1 when row sorts before every block.
func (r *Reader) findBlock(row []byte) int {
	i := sort.Search(len(r.dataIndex), func(i int) bool { return bytes.Compare(r.dataIndex[i].Row, row) > 0 })
	return i - 1
}

// Get returns the value stored under key (a Hudi record key: the row), or false.
func (r *Reader) Get(key []byte) ([]byte, bool, error) {
	it := r.Scan(key, nil)
	if !it.Next() {
		return nil, false, it.Err()
	}
	if !bytes.Equal(it.Key(), key) {
		return nil, false, nil
	}
	return it.Value(), true, nil
}

// Scan iterates the key/values with start <= key < end in key order; a nil start begins at
// the first key, a nil end runs to the last.
func (r *Reader) Scan(start, end []byte) *Iterator {
	return &Iterator{r: r, start: start, end: end, block: -2}
}

// ScanPrefix iterates the key/values whose key starts with prefix (the metadata table reads
// its partitions by key prefix: Java's getRecordsByKeyPrefixIterator).
func (r *Reader) ScanPrefix(prefix []byte) *Iterator {
	return &Iterator{r: r, start: prefix, prefix: prefix, hasPrefix: true, block: -2}
}

// All iterates every key/value in key order.
func (r *Reader) All() *Iterator { return r.Scan(nil, nil) }

// Iterator walks key/values in key order. Key and Value alias the reader's block buffer and
// stay valid until the reader reads another block; copy them to keep them.
type Iterator struct {
	r          *Reader
	start, end []byte
	prefix     []byte
	hasPrefix  bool
	block      int // -2: not started; len(dataIndex): done
	d          *dataBlock
	pos        int
	c          cell
	err        error
	done       bool
}

// Next advances to the next key/value, returning false at the end or on error.
func (it *Iterator) Next() bool {
	if it.done {
		return false
	}
	r := it.r
	if it.block == -2 {
		it.block = 0
		if it.start != nil {
			it.block = max(r.findBlock(it.start), 0)
		}
		it.pos = -1
	}
	for {
		if it.block >= len(r.dataIndex) {
			return it.stop(nil)
		}
		if it.pos < 0 {
			d, err := r.loadDataBlock(it.block)
			if err != nil {
				return it.stop(err)
			}
			it.d, it.pos = d, 0
		}
		if it.pos >= len(it.d.payload) {
			it.block++
			it.pos = -1
			continue
		}
		c, err := r.cellAt(it.d, it.pos)
		if err != nil {
			return it.stop(err)
		}
		if it.c.row != nil && bytes.Compare(it.c.row, c.row) > 0 {
			return it.stop(r.bad(it.d.offset, "data block: key %q follows the larger key %q", c.row, it.c.row))
		}
		it.c = c
		it.pos = c.next
		if it.start != nil && bytes.Compare(c.row, it.start) < 0 {
			continue
		}
		if it.end != nil && bytes.Compare(c.row, it.end) >= 0 {
			return it.stop(nil)
		}
		if it.hasPrefix && !bytes.HasPrefix(c.row, it.prefix) {
			return it.stop(nil)
		}
		return true
	}
}

func (it *Iterator) stop(err error) bool {
	it.err, it.done = err, true
	it.c = cell{}
	return false
}

// Key returns the current key (the HBase row: Hudi's record key).
func (it *Iterator) Key() []byte { return it.c.row }

// Value returns the current value.
func (it *Iterator) Value() []byte { return it.c.value }

// Err returns the error that stopped the iteration, if any.
func (it *Iterator) Err() error { return it.err }
