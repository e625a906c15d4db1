package parquet

import (
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dictColumn feeds a dictionary-encoded string column to arrow-go as ids into a fixed
// dictionary instead of as values. arrow-go's byte-array dictionary encoder hashes every
// value through an interface conversion that allocates: a 5M-row trips bulk_insert with
// Hudi's default dictionary encoding took 12.1-14.0 s of CPU against 8.6 s with PLAIN,
// and 9.4-10.3 s with this (docs/performance.md, "Dictionary encoding"). Here
// the dictionary is the distinct values of the file's first page in first-seen order (the
// order arrow-go's memo table gives them), and a slice whose values are all in it is
// written as an Arrow dictionary array: pqarrow puts the dictionary into the encoder once
// per row group and then appends ids. A slice with a value outside it is written as
// values, which arrow-go hashes into the same dictionary after the fixed entries, so ids
// already written stay valid. In a file's first row group the dictionary page lists the
// values in the order hashing would; a later row group's starts with all of the first
// page's values, present in it or not. Page statistics come from the whole dictionary, so
// they bound the page's values rather than give their exact min and max.
type dictColumn struct {
	dict     arrow.Array
	dictType *arrow.DictionaryType
	ids      map[string]int32
	only     string // the single value, when the dictionary has one
	idx      []int32
	// Per row group: whether the encoder holds the dictionary, and whether values were
	// written before it could (arrow-go then cannot take the dictionary in this row group).
	put, dense bool
}

// newDictColumn builds the dictionary of col from its first firstPageRows values; nil if
// col is not a string or binary column without nulls there.
func newDictColumn(col arrow.Array, mem memory.Allocator) *dictColumn {
	n := min(col.Len(), firstPageRows)
	switch col.(type) {
	case *array.String, *array.Binary:
	default:
		return nil
	}
	if col.NullN() > 0 {
		return nil
	}
	value := stringValues(col)
	b := array.NewBuilder(mem, col.DataType())
	defer b.Release()
	app := b.(interface{ AppendString(string) }) // String and Binary builders
	d := &dictColumn{ids: map[string]int32{}}
	for i := 0; i < n; i++ {
		v := value(i)
		if _, ok := d.ids[v]; ok {
			continue
		}
		d.ids[string([]byte(v))] = int32(len(d.ids))
		app.AppendString(v)
	}
	if len(d.ids) == 1 {
		for v := range d.ids {
			d.only = v
		}
	}
	d.dict = b.NewArray()
	d.dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: col.DataType()}
	return d
}

// encode returns col as a dictionary array of ids, or nil if a value is not in the
// dictionary (or col has nulls, or arrow-go already took values in this row group).
func (d *dictColumn) encode(col arrow.Array) arrow.Array {
	if d.dense || col.NullN() > 0 {
		return nil
	}
	n := col.Len()
	if cap(d.idx) < n {
		d.idx = make([]int32, n)
	}
	idx := d.idx[:n]
	value := stringValues(col)
	if value == nil || !d.lookup(idx, value) {
		return nil
	}
	ids := array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))}, nil, 0, 0)
	defer ids.Release()
	data := array.NewData(d.dictType, n, ids.Buffers(), nil, 0, 0)
	data.SetDictionary(d.dict.Data())
	defer data.Release()
	return array.MakeFromData(data)
}

func (d *dictColumn) lookup(idx []int32, value func(int) string) bool {
	if len(d.ids) == 1 {
		for i := range idx {
			if value(i) != d.only {
				return false
			}
			idx[i] = 0
		}
		return true
	}
	for i := range idx {
		id, ok := d.ids[value(i)]
		if !ok {
			return false
		}
		idx[i] = id
	}
	return true
}

func (d *dictColumn) release() {
	if d.dict != nil {
		d.dict.Release()
		d.dict = nil
	}
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// newDictColumns builds the fixed dictionaries of the chosen string columns of rec, the
// first rows of the file (nil entries for the other columns).
func newDictColumns(rec arrow.Record, sc *arrow.Schema, chosen []string, mem memory.Allocator) []*dictColumn {
	var out []*dictColumn
	for i, f := range sc.Fields() {
		if !slices.Contains(chosen, f.Name) {
			continue
		}
		if d := newDictColumn(rec.Column(i), mem); d != nil {
			if out == nil {
				out = make([]*dictColumn, sc.NumFields())
			}
			out[i] = d
		}
	}
	return out
}
