package parquet

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// firstPageRows is parquet-mr's page row count limit (ParquetProperties'
// DEFAULT_PAGE_ROW_COUNT_LIMIT, 20,000 since 1.11): with dictionary encoding a first
// page ends there, long before its encoded indices reach the page size.
const firstPageRows = 20000

// uniqueProbe and uniqueShare end the look at a column early: once uniqueProbe values
// are more than uniqueShare distinct, the dictionary cannot pay (record keys, seqnos,
// uuids, timestamps, amounts), and hashing the rest of the page would be wasted.
const (
	uniqueProbe = 2000
	uniqueShare = 0.9
)

// chooseDictionary returns the top-level columns of rec that parquet-mr, with
// dictionary encoding on (Hudi's hoodie.parquet.dictionary.enabled default), would keep
// dictionary-encoded. parquet-mr's writer (version 1, as Hudi configures it) starts
// every BINARY, INT32, INT64, FLOAT and DOUBLE column with a dictionary and decides on
// its first page: it keeps the dictionary when the page's encoded indices plus the
// dictionary are smaller than the page's values PLAIN
// (DictionaryValuesWriter.isCompressionSatisfying), and falls back to PLAIN when the
// dictionary outgrows the dictionary page size. BOOLEAN and FIXED_LEN_BYTE_ARRAY
// (decimals) have no dictionary in version 1. The same test runs here on the first page
// of rec (its first firstPageRows rows), once per file; arrow-go then falls back to
// PLAIN by itself if a dictionary outgrows the page size later, as parquet-mr does.
// Nested columns stay PLAIN. Columns in skip are left out (they are dictionary-encoded
// anyway).
func chooseDictionary(rec arrow.Record, wschema *arrow.Schema, pageSize int64, skip []string) []string {
	rows := int(min(rec.NumRows(), firstPageRows))
	var out []string
	for i, f := range wschema.Fields() {
		if slices.Contains(skip, f.Name) {
			continue
		}
		col := rec.Column(i)
		if col.Len() > rows {
			col = array.NewSlice(col, 0, int64(rows))
			defer col.Release()
		}
		if dictionaryPays(col, pageSize) {
			out = append(out, f.Name)
		}
	}
	return out
}

// DictionaryColumnsFor returns the top-level columns a Writer with Dictionary on
// dictionary-encodes in a file whose first rows are rec, with the given page size.
func DictionaryColumnsFor(rec arrow.Record, pageSize int64) []string {
	return chooseDictionary(rec, rec.Schema(), pageSize, nil)
}

// dictionaryPays applies parquet-mr's first-page test to the values of col.
func dictionaryPays(col arrow.Array, pageSize int64) bool {
	var p pageSample
	if value := stringValues(col); value != nil {
		p.strings = map[string]int32{}
		for i := 0; i < col.Len(); i++ {
			if col.IsValid(i) && !p.addString(value(i), pageSize) {
				return false
			}
		}
		return p.satisfying()
	}
	width := fixedWidth(col.DataType())
	if width == 0 {
		return false
	}
	d := col.Data()
	if len(d.Buffers()) < 2 || d.Buffers()[1] == nil {
		return false
	}
	buf := d.Buffers()[1].Bytes()
	off := d.Offset()
	if len(buf) < (off+d.Len())*width {
		return false
	}
	p.fixed = map[uint64]int32{}
	// The value size in the file: arrow-go widens 8- and 16-bit integers to INT32.
	size := int64(max(width, 4))
	for i := 0; i < col.Len(); i++ {
		if col.IsNull(i) {
			continue
		}
		v := buf[(off+i)*width : (off+i+1)*width]
		var k uint64
		switch width {
		case 1:
			k = uint64(v[0])
		case 2:
			k = uint64(binary.LittleEndian.Uint16(v))
		case 4:
			k = uint64(binary.LittleEndian.Uint32(v))
		case 8:
			k = binary.LittleEndian.Uint64(v)
		}
		if !p.addFixed(k, size, pageSize) {
			return false
		}
	}
	return p.satisfying()
}

// stringValues returns a view of the i-th value of a string or binary column (valid
// only while col is), or nil for other types.
func stringValues(col arrow.Array) func(i int) string {
	switch a := col.(type) {
	case *array.String:
		return a.Value
	case *array.LargeString:
		return a.Value
	case *array.Binary:
		return func(i int) string { return unsafeString(a.Value(i)) }
	case *array.LargeBinary:
		return func(i int) string { return unsafeString(a.Value(i)) }
	}
	return nil
}

// fixedWidth is the byte width of a column type parquet-mr dictionary-encodes as
// INT32, INT64, FLOAT or DOUBLE, or 0 for every other type (BOOLEAN, decimals and
// fixed-size binary, nested types).
func fixedWidth(dt arrow.DataType) int {
	if et, ok := dt.(arrow.ExtensionType); ok {
		dt = et.StorageType()
	}
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32:
		return 4
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP:
		return 8
	}
	return 0
}

// pageSample accumulates what parquet-mr's first-page test weighs: the PLAIN size of the
// page's values, the PLAIN size of its distinct values (the dictionary page), and the
// runs of dictionary ids its RLE/bit-packing hybrid encoder would write.
type pageSample struct {
	strings map[string]int32
	fixed   map[uint64]int32

	values    int
	rawBytes  int64
	dictBytes int64

	prev     int32
	run      int
	rleBytes int64 // headers of runs long enough for RLE (8 or more equal ids)
	rleRuns  int64
	packed   int64 // ids in shorter runs, bit-packed
}

func (p *pageSample) addString(v string, pageSize int64) bool {
	size := int64(4 + len(v))
	id, ok := p.strings[v]
	if !ok {
		id = int32(len(p.strings))
		p.strings[v] = id
		p.dictBytes += size
	}
	return p.add(id, size, len(p.strings), pageSize)
}

func (p *pageSample) addFixed(v uint64, size, pageSize int64) bool {
	id, ok := p.fixed[v]
	if !ok {
		id = int32(len(p.fixed))
		p.fixed[v] = id
		p.dictBytes += size
	}
	return p.add(id, size, len(p.fixed), pageSize)
}

// add counts one value with dictionary id id; false means the dictionary has lost
// (parquet-mr's fallback on a dictionary larger than the dictionary page, or a
// column of nearly unique values).
func (p *pageSample) add(id int32, size int64, distinct int, pageSize int64) bool {
	p.values++
	p.rawBytes += size
	if p.dictBytes > pageSize {
		return false
	}
	if p.values == uniqueProbe && float64(distinct) > uniqueShare*float64(p.values) {
		return false
	}
	if p.run > 0 && id == p.prev {
		p.run++
		return true
	}
	p.endRun()
	p.prev, p.run = id, 1
	return true
}

func (p *pageSample) endRun() {
	if p.run >= 8 {
		p.rleRuns++
		p.rleBytes += int64(uvarintLen(uint64(p.run) << 1))
	} else {
		p.packed += int64(p.run)
	}
	p.run = 0
}

// satisfying is DictionaryValuesWriter.isCompressionSatisfying: the encoded ids (one
// bit-width byte, then RLE runs and bit-packed groups of 8 ids under a one-byte header
// per 63 groups) plus the dictionary must be smaller than the PLAIN values.
func (p *pageSample) satisfying() bool {
	if p.values == 0 {
		return false
	}
	p.endRun()
	distinct := len(p.strings) + len(p.fixed)
	width := int64(bits.Len32(uint32(distinct - 1)))
	groups := (p.packed + 7) / 8
	encoded := 1 + p.rleBytes + p.rleRuns*((width+7)/8) + (groups+62)/63 + groups*width
	return encoded+p.dictBytes < p.rawBytes
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
