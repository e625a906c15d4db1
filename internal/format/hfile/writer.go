package hfile

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sort"
	"strings"
)

// Defaults of the writer: what Hudi 0.14 writes the metadata table's HFiles with.
const (
	// DefaultBlockSize is hoodie.hfile.block.size's default (1 MB; HoodieStorageConfig), also
	// the fixed block size of HFILE_DATA_BLOCKs (HoodieHFileDataBlock.DEFAULT_BLOCK_SIZE).
	DefaultBlockSize = 1 << 20
	// DefaultIndexChunkSize is HBase's hfile.index.block.max.size default: a leaf index
	// block is cut when its entries reach this size, and the root is split into
	// intermediate levels while it is larger.
	DefaultIndexChunkSize = 128 << 10
	// DefaultMinIndexEntries is HBase's hfile.index.block.min.entries default: an
	// intermediate index block holds at least this many entries.
	DefaultMinIndexEntries = 16
	// HoodieComparator is the key comparator class Hudi's HFiles name in their trailer.
	HoodieComparator = "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
	// reservedInfoPrefix marks file-info keys only the writer itself may set (HBase's
	// HFile.FileInfo rejects user keys with it).
	reservedInfoPrefix = "hfile."
	// maxRowLength is the largest row (record key) a KeyValue can hold: its length is an
	// int16.
	maxRowLength = math.MaxInt16
	// Key layout constants of an HBase KeyValue key: int16 row length, row, int8 family
	// length, timestamp, type.
	keyInfrastructureSize = 2 + 1 + 8 + 1
	latestTimestamp       = math.MaxInt64 // HConstants.LATEST_TIMESTAMP
	typePut               = 4             // KeyValue.Type.Put
	typeMaximum           = 255           // KeyValue.Type.Maximum, the type of "first on row" keys
	midKeyMetadataSize    = 16
)

// WriterOptions configure a Writer. The zero value of a field means its default.
type WriterOptions struct {
	// BlockSize: a data block is closed once its uncompressed key/values reach this many
	// bytes (HBase checks before appending the next key/value). Default DefaultBlockSize.
	BlockSize int
	// Codec compresses every block. Default CodecGZ (hoodie.hfile.compression.algorithm).
	// Only NONE and GZ are implemented; others are refused.
	Codec Codec
	// ChecksumType of every block. Default CRC32C (HBase's default, which Hudi 0.14 uses).
	ChecksumType ChecksumType
	// NullChecksum selects ChecksumNull, since the zero ChecksumType means the default.
	NullChecksum bool
	// BytesPerChecksum: default DefaultBytesPerChecksum.
	BytesPerChecksum int
	// Comparator is the trailer's comparator class name. Default HoodieComparator.
	Comparator string
	// IndexChunkSize and MinIndexEntries shape the multi-level data index (defaults
	// DefaultIndexChunkSize and DefaultMinIndexEntries, HBase's).
	IndexChunkSize  int
	MinIndexEntries int
	// CreateTime is the file-info hfile.CREATE_TIME_TS in milliseconds; Hudi's HFile
	// contexts leave it 0.
	CreateTime int64
}

func (o *WriterOptions) fill() error {
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.BlockSize < 0 {
		return fmt.Errorf("hfile writer: block size %d", o.BlockSize)
	}
	if o.Codec == 0 {
		// Codec 0 is LZO, which is not implemented: the zero value means "unset".
		o.Codec = CodecGZ
	}
	if !o.Codec.Supported() {
		return fmt.Errorf("hfile writer: %w", unsupportedCodec(o.Codec))
	}
	switch {
	case o.NullChecksum:
		o.ChecksumType = ChecksumNull
	case o.ChecksumType == 0:
		o.ChecksumType = ChecksumCRC32C
	case o.ChecksumType != ChecksumCRC32 && o.ChecksumType != ChecksumCRC32C:
		return fmt.Errorf("hfile writer: unknown checksum type %d", o.ChecksumType)
	}
	if o.BytesPerChecksum == 0 {
		o.BytesPerChecksum = DefaultBytesPerChecksum
	}
	if o.BytesPerChecksum < 0 {
		return fmt.Errorf("hfile writer: bytes per checksum %d", o.BytesPerChecksum)
	}
	if o.Comparator == "" {
		o.Comparator = HoodieComparator
	}
	if o.IndexChunkSize == 0 {
		o.IndexChunkSize = DefaultIndexChunkSize
	}
	if o.MinIndexEntries == 0 {
		o.MinIndexEntries = DefaultMinIndexEntries
	}
	if o.IndexChunkSize < 0 || o.MinIndexEntries < 2 {
		return fmt.Errorf("hfile writer: index chunk size %d, min index entries %d", o.IndexChunkSize, o.MinIndexEntries)
	}
	return nil
}

// Writer writes an HFile the way HBase 2.4.9's HFileWriterImpl and HFileBlockIndex do (read
// in apache/hudi's copy, hudi-io/src/main/java/org/apache/hudi/hbase/io/hfile) with the
// context Hudi 0.14 gives it (HoodieAvroHFileWriter for base files, HoodieHFileDataBlock for log blocks):
// KeyValues with the record key as row, empty family and qualifier, LATEST_TIMESTAMP, type
// Put and a zero memstore timestamp; data blocks cut at the block size; a data index that
// grows leaf and intermediate levels at HBase's thresholds; meta blocks sorted by name; the
// file info sorted by key. Blocks are streamed to the underlying writer as they fill.
type Writer struct {
	w    *bufio.Writer
	opts WriterOptions
	pos  int64
	err  error

	// current data block
	block      []byte
	blockFirst []byte // row of the first key/value of the current block
	prevLast   []byte // row of the last key/value of the previous block
	firstRow   []byte // first key of the file
	lastRow    []byte
	entries    int64
	keyLenSum  int64
	valLenSum  int64
	firstData  int64
	lastData   int64
	prevOffset map[BlockType]int64

	// data index: the leaf chunk being filled and the root chunk above the leaves
	leaf              indexChunk
	root              indexChunk
	levels            int
	dataBlocks        int64 // data blocks indexed so far (HBase's totalNumEntries)
	indexUncompressed int64 // trailer uncompressedDataIndexSize
	totalUncompressed int64 // trailer totalUncompressedBytes, less the trailer
	// leafMovedToRoot: the index never needed a leaf block, so the leaf chunk became the
	// root at close (a single-level index).
	leafMovedToRoot     bool
	fileInfo            map[string][]byte
	metaNames           []string
	metaData            [][]byte
	closed              bool
	gz                  *flate.Writer
	compressBuf, hdrBuf bytes.Buffer
	crcTable            *crc32.Table
}

// indexChunk is a list of index entries being built (HBase's BlockIndexChunk).
type indexChunk struct {
	keys    [][]byte
	offsets []int64
	sizes   []int32
	// subEntries[i]: data blocks under entries 0..i (root chunk of a multi-level index only),
	// to locate the mid-key.
	subEntries   []int64
	nonRootBytes int // sum over entries of 12 + key length
	rootBytes    int // sum over entries of 12 + vint(key length) + key length
}

func (c *indexChunk) add(key []byte, off int64, size int32, sub int64) {
	c.keys = append(c.keys, key)
	c.offsets = append(c.offsets, off)
	c.sizes = append(c.sizes, size)
	if sub >= 0 {
		c.subEntries = append(c.subEntries, sub)
	}
	c.nonRootBytes += 12 + len(key)
	c.rootBytes += 12 + len(appendVLong(nil, int64(len(key)))) + len(key)
}

func (c *indexChunk) len() int { return len(c.keys) }

func (c *indexChunk) nonRootSize() int { return 4 + 4*(len(c.keys)+1) + c.nonRootBytes }

func (c *indexChunk) writeNonRoot(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.keys)))
	rel := 0
	for _, k := range c.keys {
		b = binary.BigEndian.AppendUint32(b, uint32(rel))
		rel += 12 + len(k)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(rel))
	for i, k := range c.keys {
		b = binary.BigEndian.AppendUint64(b, uint64(c.offsets[i]))
		b = binary.BigEndian.AppendUint32(b, uint32(c.sizes[i]))
		b = append(b, k...)
	}
	return b
}

func (c *indexChunk) writeRoot(b []byte) []byte {
	for i, k := range c.keys {
		b = binary.BigEndian.AppendUint64(b, uint64(c.offsets[i]))
		b = binary.BigEndian.AppendUint32(b, uint32(c.sizes[i]))
		b = appendVLong(b, int64(len(k)))
		b = append(b, k...)
	}
	return b
}

// midKeyMetadata locates the middle data block of a multi-level index: the offset and size
// of the leaf block holding it and its position there (HBase's getMidKeyMetadata).
func (c *indexChunk) midKeyMetadata() []byte {
	total := c.subEntries[len(c.subEntries)-1]
	mid := (total - 1) / 2
	// The entry whose leaf holds sub-entry mid: the first i with subEntries[i] > mid.
	i := sort.Search(len(c.subEntries), func(i int) bool { return c.subEntries[i] > mid })
	before := int64(0)
	if i > 0 {
		before = c.subEntries[i-1]
	}
	b := binary.BigEndian.AppendUint64(nil, uint64(c.offsets[i]))
	b = binary.BigEndian.AppendUint32(b, uint32(c.sizes[i]))
	return binary.BigEndian.AppendUint32(b, uint32(mid-before))
}

// NewWriter returns a Writer writing an HFile to w.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	wr := &Writer{
		w:          bufio.NewWriterSize(w, 64<<10),
		opts:       opts,
		firstData:  -1,
		lastData:   -1,
		prevOffset: map[BlockType]int64{},
		levels:     1,
		fileInfo:   map[string][]byte{},
	}
	if opts.ChecksumType == ChecksumCRC32C {
		wr.crcTable = crc32.MakeTable(crc32.Castagnoli)
	}
	return wr, nil
}

// kvKey returns the KeyValue key of a cell with row, no family or qualifier, the latest
// timestamp and the given type.
func kvKey(row []byte, typ byte) []byte {
	k := make([]byte, 0, len(row)+keyInfrastructureSize)
	k = binary.BigEndian.AppendUint16(k, uint16(len(row)))
	k = append(k, row...)
	k = append(k, 0) // family length
	k = binary.BigEndian.AppendUint64(k, latestTimestamp)
	return append(k, typ)
}

// Append adds a key/value. Keys must be strictly increasing (unsigned byte order, as
// HoodieHBaseKVComparator compares rows); a key may be at most 32767 bytes.
func (w *Writer) Append(key, value []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("hfile writer: append after Close")
	}
	if len(key) > maxRowLength {
		return fmt.Errorf("hfile writer: key of %d bytes exceeds the %d-byte KeyValue row limit", len(key), maxRowLength)
	}
	if w.entries > 0 {
		if c := bytes.Compare(w.lastRow, key); c >= 0 {
			if c == 0 {
				return fmt.Errorf("hfile writer: duplicate key %q", key)
			}
			return fmt.Errorf("hfile writer: key %q is not greater than the previous key %q", key, w.lastRow)
		}
	}
	// HBase checks the boundary before writing the next cell: the block is finished once
	// the bytes written to it reach the block size.
	if len(w.block) >= w.opts.BlockSize && len(w.block) > 0 {
		if err := w.finishBlock(); err != nil {
			return w.fail(err)
		}
		if err := w.writeLeafIfFull(false); err != nil {
			return w.fail(err)
		}
	}
	kl := len(key) + keyInfrastructureSize
	w.block = binary.BigEndian.AppendUint32(w.block, uint32(kl))
	w.block = binary.BigEndian.AppendUint32(w.block, uint32(len(value)))
	w.block = append(w.block, kvKey(key, typePut)...)
	w.block = append(w.block, value...)
	w.block = append(w.block, 0) // memstore timestamp 0 as a Hadoop vlong
	row := append([]byte(nil), key...)
	if w.blockFirst == nil {
		w.blockFirst = row
	}
	if w.firstRow == nil {
		w.firstRow = row
	}
	w.lastRow = row
	w.entries++
	w.keyLenSum += int64(kl)
	w.valLenSum += int64(len(value))
	return nil
}

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// AppendFileInfo adds a file-info entry (Hudi adds "schema", and for base files
// "minRecordKey", "maxRecordKey", "bloomFilterTypeCode"). Keys starting with "hfile." are
// reserved for the writer, as in HBase.
func (w *Writer) AppendFileInfo(key string, value []byte) error {
	if strings.HasPrefix(key, reservedInfoPrefix) {
		return fmt.Errorf("hfile writer: file info key %q uses the reserved prefix %q", key, reservedInfoPrefix)
	}
	if key == "" {
		return errors.New("hfile writer: empty file info key")
	}
	w.fileInfo[key] = append([]byte(nil), value...)
	return nil
}

// AppendMetaBlock adds a meta block written at Close (Hudi's bloom filter: "bloomFilter").
// Meta blocks are written in name order, as HBase inserts them sorted.
func (w *Writer) AppendMetaBlock(name string, content []byte) error {
	if name == "" {
		return errors.New("hfile writer: empty meta block name")
	}
	i := sort.Search(len(w.metaNames), func(i int) bool { return w.metaNames[i] > name })
	w.metaNames = append(w.metaNames, "")
	copy(w.metaNames[i+1:], w.metaNames[i:])
	w.metaNames[i] = name
	w.metaData = append(w.metaData, nil)
	copy(w.metaData[i+1:], w.metaData[i:])
	w.metaData[i] = append([]byte(nil), content...)
	return nil
}

// File-info keys and the meta block Hudi adds to its HFiles (HoodieAvroHFileReader's
// SCHEMA_KEY, KEY_MIN_RECORD, KEY_MAX_RECORD, KEY_BLOOM_FILTER_TYPE_CODE and
// KEY_BLOOM_FILTER_META_BLOCK).
const (
	InfoSchema          = "schema"
	InfoMinRecordKey    = "minRecordKey"
	InfoMaxRecordKey    = "maxRecordKey"
	InfoBloomTypeCode   = "bloomFilterTypeCode"
	BloomFilterMetaName = "bloomFilter"
)

// AppendHudiBloomFilter adds what Hudi 0.14's HoodieAvroHFileWriter.close adds to a base
// file: the first and last record keys written ("" for an empty file), the bloom filter's
// type code in the file info and the serialized filter as the "bloomFilter" meta block.
// Call it after the last Append. (HFILE_DATA_BLOCKs carry no bloom filter.)
func (w *Writer) AppendHudiBloomFilter(typeCode, serialized string) error {
	for _, kv := range [][2]string{{InfoMinRecordKey, string(w.firstRow)}, {InfoMaxRecordKey, string(w.lastRow)}, {InfoBloomTypeCode, typeCode}} {
		if err := w.AppendFileInfo(kv[0], []byte(kv[1])); err != nil {
			return err
		}
	}
	return w.AppendMetaBlock(BloomFilterMetaName, []byte(serialized))
}

// EntryCount is the number of key/values appended so far.
func (w *Writer) EntryCount() int64 { return w.entries }

// finishBlock writes the current data block and indexes it under the shortest key between
// the previous block's last row and its first row (HBase's getMidpoint).
func (w *Writer) finishBlock() error {
	if len(w.block) == 0 {
		return nil
	}
	off := w.pos
	if w.firstData < 0 {
		w.firstData = off
	}
	w.lastData = off
	size, err := w.writeBlock(DataBlock, w.block, true)
	if err != nil {
		return err
	}
	var key []byte
	if w.prevLast == nil {
		key = kvKey(w.blockFirst, typePut)
	} else {
		key = kvKey(midpointRow(w.prevLast, w.blockFirst), typeMaximum)
	}
	w.leaf.add(key, off, size, -1)
	w.dataBlocks++
	w.prevLast = w.lastRow
	w.block = w.block[:0]
	w.blockFirst = nil
	return nil
}

// midpointRow returns a short row r with left < r <= right (HBase's
// getMinimumMidpointArray for rows that differ; Java compares the differing byte signed).
func midpointRow(left, right []byte) []byte {
	n := min(len(left), len(right))
	i := 0
	for i < n && left[i] == right[i] {
		i++
	}
	if i >= n { // left is a prefix of right
		return append([]byte(nil), right[:i+1]...)
	}
	d := int(int8(left[i]))
	if d&0xff < 0xff && d+1 < int(right[i]) {
		out := append([]byte(nil), left[:i]...)
		return append(out, byte(d+1))
	}
	return append([]byte(nil), right[:i+1]...)
}

// writeLeafIfFull writes the leaf index chunk as an inline IDXLEAF2 block when it has
// grown to the index chunk size, or at close when there already are leaf blocks (HBase's
// BlockIndexWriter.shouldWriteBlock). At close, an index that never needed a leaf block
// stays single-level: its entries become the root.
func (w *Writer) writeLeafIfFull(closing bool) error {
	if w.leaf.len() == 0 {
		return nil
	}
	if closing {
		if w.root.len() == 0 {
			w.root, w.leaf = w.leaf, indexChunk{}
			w.leafMovedToRoot = true
			return nil
		}
	} else if w.leaf.nonRootSize() < w.opts.IndexChunkSize {
		return nil
	}
	off := w.pos
	payload := w.leaf.writeNonRoot(nil)
	size, err := w.writeBlock(LeafIndexBlock, payload, true)
	if err != nil {
		return err
	}
	w.indexUncompressed += int64(len(payload))
	if w.root.len() == 0 {
		w.levels = 2
	}
	w.root.add(w.leaf.keys[0], off, size, w.dataBlocks)
	w.leaf = indexChunk{}
	return nil
}

// writeBlock compresses payload, frames it with a header and checksums, writes it, and
// returns its on-disk size including the header.
func (w *Writer) writeBlock(t BlockType, payload []byte, countTotal bool) (int32, error) {
	data, err := w.compress(payload)
	if err != nil {
		return 0, err
	}
	dataWithHeader := int64(HeaderSize + len(data))
	sums := int64(0)
	if w.opts.ChecksumType != ChecksumNull {
		sums = checksumBytes(dataWithHeader, int64(w.opts.BytesPerChecksum))
	}
	total := dataWithHeader + sums
	if total > math.MaxInt32 {
		return 0, fmt.Errorf("hfile writer: %s block of %d bytes exceeds 2 GB", t, total)
	}
	prev, ok := w.prevOffset[t]
	if !ok {
		prev = -1
	}
	h := BlockHeader{
		Type:                          t,
		OnDiskSizeWithoutHeader:       int32(total - HeaderSize),
		UncompressedSizeWithoutHeader: int32(len(payload)),
		PrevBlockOffset:               prev,
		ChecksumType:                  w.opts.ChecksumType,
		BytesPerChecksum:              int32(w.opts.BytesPerChecksum),
		OnDiskDataSizeWithHeader:      int32(dataWithHeader),
	}
	hdr := h.append(w.hdrBuf.Bytes()[:0])
	w.prevOffset[t] = w.pos
	if err := w.write(hdr); err != nil {
		return 0, err
	}
	if err := w.write(data); err != nil {
		return 0, err
	}
	if sums > 0 {
		if err := w.write(w.checksums(hdr, data)); err != nil {
			return 0, err
		}
	}
	// HBase adds every block written through HFileWriterImpl (data, leaf index, meta, meta
	// index, file info) to the trailer's totalUncompressedBytes, but not the root and
	// intermediate data index blocks, which BlockIndexWriter writes itself.
	if countTotal {
		w.totalUncompressed += int64(HeaderSize + len(payload))
	}
	return int32(total), nil
}

// checksums computes the chunk checksums over the header followed by the on-disk data.
func (w *Writer) checksums(hdr, data []byte) []byte {
	table := w.crcTable
	if w.opts.ChecksumType == ChecksumCRC32 {
		table = crc32.IEEETable
	}
	bpc := w.opts.BytesPerChecksum
	var out []byte
	var crc uint32
	filled := 0
	for _, part := range [][]byte{hdr, data} {
		for len(part) > 0 {
			n := min(bpc-filled, len(part))
			crc = crc32.Update(crc, table, part[:n])
			filled += n
			part = part[n:]
			if filled == bpc {
				out = binary.BigEndian.AppendUint32(out, crc)
				crc, filled = 0, 0
			}
		}
	}
	if filled > 0 {
		out = binary.BigEndian.AppendUint32(out, crc)
	}
	return out
}

func (w *Writer) write(b []byte) error {
	n, err := w.w.Write(b)
	w.pos += int64(n)
	if err != nil {
		return fmt.Errorf("hfile writer: %w", err)
	}
	return nil
}

// gzipHeader is the 10-byte header HBase's GZ codec (java.util.zip.GZIPOutputStream)
// writes: no flags, no modification time, OS 0.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0}

// compress returns payload compressed with the file's codec. GZ output is one gzip member
// with Java's header; the deflate stream is Go's (level 6, like Java's default), so the
// compressed bytes differ from Java's while decompressing to the same payload.
func (w *Writer) compress(payload []byte) ([]byte, error) {
	if w.opts.Codec == CodecNone {
		return payload, nil
	}
	w.compressBuf.Reset()
	w.compressBuf.Write(gzipHeader)
	if w.gz == nil {
		var err error
		if w.gz, err = flate.NewWriter(&w.compressBuf, 6); err != nil {
			return nil, err
		}
	} else {
		w.gz.Reset(&w.compressBuf)
	}
	if _, err := w.gz.Write(payload); err != nil {
		return nil, err
	}
	if err := w.gz.Close(); err != nil {
		return nil, err
	}
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:], crc32.ChecksumIEEE(payload))
	binary.LittleEndian.PutUint32(tail[4:], uint32(len(payload)))
	w.compressBuf.Write(tail[:])
	return w.compressBuf.Bytes(), nil
}

// Close finishes the file: the last data block and leaf index block, the meta blocks, the
// load-on-open section (intermediate and root data index, meta index, file info) and the
// trailer, in HBase's order. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("hfile writer: closed twice")
	}
	w.closed = true
	if err := w.close(); err != nil {
		return w.fail(err)
	}
	return nil
}

func (w *Writer) close() error {
	if err := w.finishBlock(); err != nil {
		return err
	}
	if err := w.writeLeafIfFull(true); err != nil {
		return err
	}
	var meta indexChunk
	for i, name := range w.metaNames {
		off := w.pos
		size, err := w.writeBlock(MetaBlock, w.metaData[i], true)
		if err != nil {
			return err
		}
		meta.add([]byte(name), off, size, -1)
	}
	loadOnOpen, err := w.writeDataIndex()
	if err != nil {
		return err
	}
	if _, err := w.writeBlock(RootIndexBlock, meta.writeRoot(nil), true); err != nil {
		return err
	}
	fileInfoOffset := w.pos
	if _, err := w.writeBlock(FileInfoBlock, w.fileInfoPayload(), true); err != nil {
		return err
	}
	t := Trailer{
		MajorVersion:              MajorVersion,
		MinorVersion:              MinorVersion,
		FileInfoOffset:            fileInfoOffset,
		LoadOnOpenOffset:          loadOnOpen,
		UncompressedDataIndexSize: w.indexUncompressed,
		TotalUncompressedBytes:    w.totalUncompressed + TrailerSize,
		DataIndexCount:            w.root.len(),
		MetaIndexCount:            meta.len(),
		EntryCount:                w.entries,
		NumDataIndexLevels:        w.levels,
		FirstDataBlockOffset:      w.firstData,
		LastDataBlockOffset:       w.lastData,
		ComparatorClassName:       w.opts.Comparator,
		Codec:                     w.opts.Codec,
		Present:                   HBaseTrailerFields,
	}
	tb, err := t.encode()
	if err != nil {
		return err
	}
	if err := w.write(tb); err != nil {
		return err
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("hfile writer: %w", err)
	}
	return nil
}

// writeDataIndex writes the intermediate levels a large root needs and the root data index
// block, returning the root's offset (the start of the load-on-open section). HBase's
// BlockIndexWriter.writeIndexBlocks.
func (w *Writer) writeDataIndex() (int64, error) {
	var mid []byte
	if w.levels > 1 {
		mid = w.root.midKeyMetadata()
	}
	if !w.leafMovedToRoot {
		for w.root.rootBytes > w.opts.IndexChunkSize && w.root.len() > w.opts.MinIndexEntries && w.levels < 16 {
			parent, err := w.writeIntermediateLevel(&w.root)
			if err != nil {
				return 0, err
			}
			w.root = parent
			w.levels++
		}
	}
	off := w.pos
	payload := append(w.root.writeRoot(nil), mid...)
	if _, err := w.writeBlock(RootIndexBlock, payload, false); err != nil {
		return 0, err
	}
	w.indexUncompressed += int64(len(payload))
	return off, nil
}

// writeIntermediateLevel splits level into IDXINTE2 blocks of at least MinIndexEntries
// entries and about IndexChunkSize bytes, and returns the level above them.
func (w *Writer) writeIntermediateLevel(level *indexChunk) (indexChunk, error) {
	var parent, cur indexChunk
	flush := func() error {
		off := w.pos
		payload := cur.writeNonRoot(nil)
		size, err := w.writeBlock(IntermediateBlock, payload, false)
		if err != nil {
			return err
		}
		w.indexUncompressed += int64(len(payload))
		parent.add(cur.keys[0], off, size, -1)
		cur = indexChunk{}
		return nil
	}
	for i := range level.keys {
		cur.add(level.keys[i], level.offsets[i], level.sizes[i], -1)
		if i >= w.opts.MinIndexEntries && cur.rootBytes >= w.opts.IndexChunkSize {
			if err := flush(); err != nil {
				return indexChunk{}, err
			}
		}
	}
	if cur.len() > 0 {
		if err := flush(); err != nil {
			return indexChunk{}, err
		}
	}
	return parent, nil
}

// fileInfoPayload serializes the file info as HBase does: "PBUF" and a length-delimited
// InfoProto whose entries are sorted by key bytes. The writer's own entries are added
// here: the memstore-timestamp flags HBase writes when MVCC is included, the last key, the
// average key and value lengths and the creation time.
func (w *Writer) fileInfoPayload() []byte {
	info := map[string][]byte{}
	for k, v := range w.fileInfo {
		info[k] = v
	}
	info[InfoMaxMemstoreTS] = make([]byte, 8)
	info[InfoKeyValueVer] = binary.BigEndian.AppendUint32(nil, keyValueVerWithTS)
	if w.entries > 0 {
		info[InfoLastKey] = kvKey(w.lastRow, typePut)
	}
	avgKey, avgVal := int32(0), int32(0)
	if w.entries > 0 {
		avgKey, avgVal = int32(w.keyLenSum/w.entries), int32(w.valLenSum/w.entries)
	}
	info[InfoAvgKeyLen] = binary.BigEndian.AppendUint32(nil, uint32(avgKey))
	info[InfoCreateTimeTS] = binary.BigEndian.AppendUint64(nil, uint64(w.opts.CreateTime))
	info[InfoAvgValueLen] = binary.BigEndian.AppendUint32(nil, uint32(avgVal))
	keys := make([]string, 0, len(info))
	for k := range info {
		keys = append(keys, k)
	}
	sort.Strings(keys) // Go compares strings bytewise, as HBase's Bytes.BYTES_COMPARATOR
	var msg []byte
	for _, k := range keys {
		var pair []byte
		pair = appendPBBytes(pair, 1, []byte(k))
		pair = appendPBBytes(pair, 2, info[k])
		msg = appendPBBytes(msg, 1, pair)
	}
	out := append([]byte(pbMagic), appendUvarint(nil, uint64(len(msg)))...)
	return append(out, msg...)
}
