package parquet

// How a Writer knows its size while it writes: compressed bytes so far, and compression
// ratios learned from samples for what is still buffered.

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// BytesWritten estimates the file's size so far: bytes already written, the compressed
// pages of the open row group, its unflushed pages at the compression ratio seen so far,
// and the footer key/values. It never decreases while writing, so a rollover decision
// (hoodie.parquet.max.file.size) once true stays true. After Close it is the exact size.
func (w *Writer) BytesWritten() int64 {
	if w.closed {
		return w.sink.n
	}
	est := w.sink.n + w.kvBytes()
	if w.openRG {
		est += w.rowGroupEstimate()
	}
	w.lastEst = max(w.lastEst, est)
	return w.lastEst
}

// BytesWrittenBound is an upper bound of BytesWritten that does not learn the columns'
// compression ratios (a few hundred KiB of compression per file): while it is below a
// threshold, so is BytesWritten, and a caller comparing with the threshold need not ask
// for the estimate.
func (w *Writer) BytesWrittenBound() int64 {
	if w.closed {
		return w.sink.n
	}
	est := w.sink.n + w.kvBytes()
	if w.openRG {
		est += w.rowGroupBound()
	}
	return max(w.lastEst, est)
}

// rowsUntilCheck sizes the next slice handed to pqarrow so the row group size is
// checked often enough to stop near BlockSize, like parquet-mr: halfway to the
// projected end, between 100 and 10 000 rows.
func (w *Writer) rowsUntilCheck() int64 {
	if w.rgRows == 0 {
		return 100
	}
	// The answer falls as the estimate grows: if the bound already allows the most rows,
	// so does the estimate.
	if b := w.rowGroupBound(); (w.blockSize-b)/max(1, b/w.rgRows)/2 >= 10000 {
		return 10000
	}
	est := w.rowGroupEstimate()
	perRow := max(1, est/w.rgRows)
	return min(10000, max(100, (w.blockSize-est)/perRow/2))
}

// rowGroupEstimate is the open row group's compressed size: pages pqarrow has already
// compressed, plus the ones still being filled. pqarrow does not expose the bytes in
// its page encoders, so they are derived from what was fed: a leaf's pages are cut at
// PageSize plain bytes, so about fed mod PageSize of each leaf is still unflushed; it
// is counted at its column's sampled compression ratio.
func (w *Writer) rowGroupEstimate() int64 {
	w.ratiosExact()
	return w.rowGroupSize(w.colRatio)
}

// rowGroupBound is an upper bound of rowGroupEstimate that compresses no samples: the
// pending sample chunks count at a bound of their compressed size.
func (w *Writer) rowGroupBound() int64 {
	if !w.pendingAny {
		return w.rowGroupSize(w.colRatio)
	}
	return w.rowGroupSize(w.ratioBound)
}

func (w *Writer) rowGroupSize(ratio []float64) int64 {
	var pending float64
	for i, f := range w.leafFed {
		pending += float64(f%w.pageSize) * ratio[w.leafTop[i]]
	}
	var done int64
	switch {
	case w.fw != nil:
		done = w.fw.RowGroupTotalCompressedBytes()
	case w.rgw != nil:
		done = w.rgw.TotalCompressedBytes()
	}
	return done + int64(pending)
}

func (w *Writer) kvBytes() int64 {
	var n int64
	for _, k := range w.keys {
		n += int64(len(k) + len(w.vals[k]) + 8)
	}
	return n
}

// sampleMax bounds the bytes per column compressed a second time to learn its ratio.
const sampleMax = 128 << 10

// sampleRatio learns each top-level column's compression ratio by compressing the
// start of its buffers, once per column up to sampleMax bytes. The bytes still in
// pqarrow's page encoders are counted at these ratios: the ratio of the pages flushed
// so far is no substitute, since the first pages to flush come from the widest
// columns, and those (file names, seqnos) compress 20x better than uuids.
//
// The samples are taken here but compressed only when a decision needs the ratios
// (ratiosExact): most files end far below the block and file size limits, and then no
// sample is ever compressed. The chunks are compressed one by one in the order taken,
// so the ratios are the ones compressing them right away gives.
func (w *Writer) sampleRatio(rec arrow.Record) {
	if w.codec == nil {
		return
	}
	for i, c := range rec.Columns() {
		taken := w.sampleIn[i] + w.pendIn[i]
		if taken >= sampleMax {
			continue
		}
		sample := appendBuffers(nil, c.Data(), int(sampleMax-taken))
		if len(sample) == 0 {
			continue
		}
		w.samplePend[i] = append(w.samplePend[i], sample)
		w.pendIn[i] += int64(len(sample))
		w.pendBound[i] += compressBound(len(sample))
		w.ratioBound[i] = float64(w.sampleOut[i]+w.pendBound[i]) / float64(w.sampleIn[i]+w.pendIn[i])
		w.pendingAny = true
	}
	if eagerRatios {
		w.ratiosExact()
	}
}

// eagerRatios makes sampleRatio compress its samples at once, as it did before the
// ratios were learnt lazily (tests compare the two).
var eagerRatios = false

// compressBound bounds the compressed size of n bytes for every codec the writer
// offers (snappy's worst case is 32 + n + n/6; gzip, zstd, brotli and lz4 add less).
func compressBound(n int) int64 { return int64(n + n/6 + 64) }

// ratiosExact compresses the pending sample chunks and updates the ratios.
func (w *Writer) ratiosExact() {
	if !w.pendingAny {
		return
	}
	for i, chunks := range w.samplePend {
		for _, sample := range chunks {
			out := w.codec.EncodeLevel(nil, sample, w.level)
			w.sampleIn[i] += int64(len(sample))
			w.sampleOut[i] += int64(len(out))
			w.colRatio[i] = float64(w.sampleOut[i]) / float64(w.sampleIn[i])
		}
		w.samplePend[i] = nil
		w.pendIn[i], w.pendBound[i] = 0, 0
		w.ratioBound[i] = w.colRatio[i]
	}
	w.pendingAny = false
}

// appendBuffers appends d's value buffers, depth first, to dst until dst is limit
// bytes long. Validity bitmaps and offsets are left out: pages hold neither (offsets
// become constant-ish length prefixes or levels, which compress to almost nothing,
// while increasing offsets compress poorly and made the sample ratio 2x too high).
func appendBuffers(dst []byte, d arrow.ArrayData, limit int) []byte {
	dt := d.DataType()
	if et, ok := dt.(arrow.ExtensionType); ok {
		dt = et.StorageType()
	}
	_, isList := dt.(arrow.ListLikeType)
	offsets := isList || arrow.IsBinaryLike(dt.ID()) || arrow.IsLargeBinaryLike(dt.ID())
	for i, b := range d.Buffers() {
		if i == 0 || (i == 1 && offsets) || b == nil || len(dst) >= limit {
			continue
		}
		bs := b.Bytes()
		dst = append(dst, bs[:min(len(bs), limit-len(dst))]...)
	}
	for _, c := range d.Children() {
		dst = appendBuffers(dst, c, limit)
	}
	return dst
}

// countingWriter counts the bytes that reached the caller's writer. It deliberately
// has no Close: pqarrow closes an io.Closer sink, and the caller owns w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// leafPlainBytes adds to acc, per Parquet leaf column in schema order, the PLAIN
// encoded size of the values in cols (what a page encoder accumulates before a page
// is cut), ignoring level bytes.
func leafPlainBytes(cols []arrow.Array, acc []int64) {
	i := 0
	for _, c := range cols {
		i = addLeafBytes(c, acc, i)
	}
}

func addLeafBytes(a arrow.Array, acc []int64, i int) int {
	nonNull := int64(a.Len() - a.NullN())
	switch t := a.DataType().(type) {
	case arrow.ExtensionType:
		return addLeafBytes(a.(array.ExtensionArray).Storage(), acc, i)
	case *arrow.StructType:
		s := a.(*array.Struct)
		for f := 0; f < s.NumField(); f++ {
			i = addLeafBytes(s.Field(f), acc, i)
		}
		return i
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.MapType:
		l := a.(array.ListLike)
		if l.Len() == 0 {
			return i + leafCount(a.DataType())
		}
		start, _ := l.ValueOffsets(0)
		_, end := l.ValueOffsets(l.Len() - 1)
		v := array.NewSlice(l.ListValues(), start, end)
		defer v.Release()
		return addLeafBytes(v, acc, i)
	case *arrow.DictionaryType:
		acc[i] += nonNull * 4 // indices; the dictionary page is small by choice
	case *arrow.BooleanType:
		acc[i] += (nonNull + 7) / 8
	case *arrow.Decimal128Type:
		acc[i] += nonNull * int64(pqarrow.DecimalSize(t.Precision))
	case *arrow.Decimal256Type:
		acc[i] += nonNull * int64(pqarrow.DecimalSize(t.Precision))
	case *arrow.Date64Type:
		acc[i] += nonNull * 4 // written as INT32 DATE
	case arrow.FixedWidthDataType:
		acc[i] += nonNull * int64(max(1, t.BitWidth()/8))
	case arrow.BinaryDataType:
		acc[i] += nonNull*4 + binaryDataLen(a)
	default:
		acc[i] += nonNull * 8
	}
	return i + 1
}

func binaryDataLen(a arrow.Array) int64 {
	if a.Len() == 0 {
		return 0
	}
	switch b := a.(type) {
	case interface{ ValueOffsets() []int32 }:
		o := b.ValueOffsets()
		return int64(o[len(o)-1] - o[0])
	case interface{ ValueOffsets() []int64 }:
		o := b.ValueOffsets()
		return o[len(o)-1] - o[0]
	}
	return int64(a.Len()) * 16
}

func leafCount(dt arrow.DataType) int {
	switch t := dt.(type) {
	case arrow.ExtensionType:
		return leafCount(t.StorageType())
	case *arrow.DictionaryType:
		return 1
	case arrow.NestedType:
		n := 0
		for _, f := range t.Fields() {
			n += leafCount(f.Type)
		}
		return n
	}
	return 1
}
