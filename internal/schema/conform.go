package schema

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/javastr"
)

// ConformRecord projects rec onto target by top-level field name (exact match first, then
// case-insensitive, as Spark resolves columns): target columns missing from rec become
// all-null columns, columns of rec not in target are dropped, and every kept column is
// converted with Conform. The caller owns (and must release) the returned record.
func ConformRecord(mem memory.Allocator, rec arrow.Record, target *arrow.Schema) (arrow.Record, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, target.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	src := rec.Schema()
	for i, f := range target.Fields() {
		j := FieldIndex(src, f.Name)
		if j < 0 {
			cols[i] = array.MakeArrayOfNull(mem, f.Type, n)
			continue
		}
		c, err := conform(mem, rec.Column(j), f.Type, f.Name)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(target, cols, int64(n)), nil
}

// Conform converts arr to the target type, for reading files written under an older (or a
// differently laid out) schema. Identical types pass through without copying (the result
// shares arr's buffers, relabelled with target so nested field names and metadata are the
// target's). Supported conversions:
//
//   - int8/16/32, uint8/16/32 → int32/int64; any integer → float32/float64; float32 → float64
//   - integers → string (decimal text), float32/float64 → string (as Java's
//     Float.toString / Double.toString print them); string → int64 (must parse)
//   - binary ↔ string (zero copy), large/fixed binary → binary/string
//   - timestamp of any unit or zone → timestamp of the target unit and zone (values are
//     instants, so only the unit is rescaled); date64 → date32; time32/time64 → time64
//   - decimal of any width, precision or scale → decimal128/256 (rescaled, must fit);
//     int32/int64 and fixed/binary (big-endian two's complement) as unscaled values
//   - struct → struct by field name (missing fields null, extra fields dropped), list or
//     large list (any element name) → list, map → map, all converted recursively
//
// Null rows stay null. An array of only nulls converts to any type. Other pairs fail with an
// error naming both types. The caller owns (and must release) the result.
func Conform(mem memory.Allocator, arr arrow.Array, target arrow.DataType) (arrow.Array, error) {
	return conform(mem, arr, target, "")
}

func conform(mem memory.Allocator, arr arrow.Array, target arrow.DataType, path string) (arrow.Array, error) {
	src := arr.DataType()
	if src == target {
		arr.Retain()
		return arr, nil
	}
	if arrow.TypeEqual(src, target) {
		return relabel(arr, target), nil
	}
	if src.ID() == arrow.NULL || (arr.Len() > 0 && arr.NullN() == arr.Len()) {
		return array.MakeArrayOfNull(mem, target, arr.Len()), nil
	}
	out, err := convert(mem, arr, target, path)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("conform %s: cannot convert %s to %s", fieldLabel(path), src, target)
	}
	return out, nil
}

func fieldLabel(path string) string {
	if path == "" {
		return "column"
	}
	return "field " + path
}

// convert returns (nil, nil) for unsupported pairs so conform can word one error for all.
func convert(mem memory.Allocator, arr arrow.Array, target arrow.DataType, path string) (arrow.Array, error) {
	src := arr.DataType()
	switch target.ID() {
	case arrow.INT32:
		switch a := arr.(type) {
		case *array.Int8:
			return mapFixed(mem, arr, a.Int8Values(), target, func(v int8) int32 { return int32(v) }), nil
		case *array.Int16:
			return mapFixed(mem, arr, a.Int16Values(), target, func(v int16) int32 { return int32(v) }), nil
		case *array.Uint8:
			return mapFixed(mem, arr, a.Uint8Values(), target, func(v uint8) int32 { return int32(v) }), nil
		case *array.Uint16:
			return mapFixed(mem, arr, a.Uint16Values(), target, func(v uint16) int32 { return int32(v) }), nil
		}
	case arrow.INT64:
		switch a := arr.(type) {
		case *array.Int8:
			return mapFixed(mem, arr, a.Int8Values(), target, func(v int8) int64 { return int64(v) }), nil
		case *array.Int16:
			return mapFixed(mem, arr, a.Int16Values(), target, func(v int16) int64 { return int64(v) }), nil
		case *array.Int32:
			return mapFixed(mem, arr, a.Int32Values(), target, func(v int32) int64 { return int64(v) }), nil
		case *array.Uint8:
			return mapFixed(mem, arr, a.Uint8Values(), target, func(v uint8) int64 { return int64(v) }), nil
		case *array.Uint16:
			return mapFixed(mem, arr, a.Uint16Values(), target, func(v uint16) int64 { return int64(v) }), nil
		case *array.Uint32:
			return mapFixed(mem, arr, a.Uint32Values(), target, func(v uint32) int64 { return int64(v) }), nil
		case *array.String:
			return parseInt64(mem, arr, a.Value, target, path)
		case *array.LargeString:
			return parseInt64(mem, arr, a.Value, target, path)
		}
	case arrow.FLOAT32:
		switch a := arr.(type) {
		case *array.Int8:
			return mapFixed(mem, arr, a.Int8Values(), target, func(v int8) float32 { return float32(v) }), nil
		case *array.Int16:
			return mapFixed(mem, arr, a.Int16Values(), target, func(v int16) float32 { return float32(v) }), nil
		case *array.Int32:
			return mapFixed(mem, arr, a.Int32Values(), target, func(v int32) float32 { return float32(v) }), nil
		case *array.Int64:
			return mapFixed(mem, arr, a.Int64Values(), target, func(v int64) float32 { return float32(v) }), nil
		}
	case arrow.FLOAT64:
		switch a := arr.(type) {
		case *array.Int8:
			return mapFixed(mem, arr, a.Int8Values(), target, func(v int8) float64 { return float64(v) }), nil
		case *array.Int16:
			return mapFixed(mem, arr, a.Int16Values(), target, func(v int16) float64 { return float64(v) }), nil
		case *array.Int32:
			return mapFixed(mem, arr, a.Int32Values(), target, func(v int32) float64 { return float64(v) }), nil
		case *array.Int64:
			return mapFixed(mem, arr, a.Int64Values(), target, func(v int64) float64 { return float64(v) }), nil
		case *array.Float32:
			// The exact binary value, as Avro promotion, Spark and Arrow casts widen it
			// (1.1f reads as 1.100000023841858), so results match other engines.
			return mapFixed(mem, arr, a.Float32Values(), target, func(v float32) float64 { return float64(v) }), nil
		}
	case arrow.STRING, arrow.BINARY:
		return toBinaryLike(mem, arr, target)
	case arrow.FIXED_SIZE_BINARY:
		width := target.(*arrow.FixedSizeBinaryType).ByteWidth
		if bv, ok := bytesValues(arr); ok {
			b := array.NewFixedSizeBinaryBuilder(mem, target.(*arrow.FixedSizeBinaryType))
			defer b.Release()
			b.Reserve(arr.Len())
			for i := 0; i < arr.Len(); i++ {
				if arr.IsNull(i) {
					b.AppendNull()
					continue
				}
				v := bv(i)
				if len(v) != width {
					return nil, fmt.Errorf("conform %s: value of %d bytes at row %d does not fit %s", fieldLabel(path), len(v), i, target)
				}
				b.Append(v)
			}
			return b.NewArray(), nil
		}
	case arrow.TIMESTAMP:
		tt := target.(*arrow.TimestampType)
		switch a := arr.(type) {
		case *array.Timestamp:
			st := src.(*arrow.TimestampType)
			if st.Unit == tt.Unit {
				return relabel(arr, target), nil
			}
			return mapFixed(mem, arr, a.TimestampValues(), target, unitScaler[arrow.Timestamp](st.Unit, tt.Unit)), nil
		}
	case arrow.DATE32:
		switch a := arr.(type) {
		case *array.Date64:
			return mapFixed(mem, arr, a.Date64Values(), target, func(v arrow.Date64) arrow.Date32 {
				return arrow.Date32(floorDiv(int64(v), 86_400_000))
			}), nil
		}
	case arrow.TIME64:
		tt := target.(*arrow.Time64Type)
		switch a := arr.(type) {
		case *array.Time32:
			conv := unitScaler[int64](src.(*arrow.Time32Type).Unit, tt.Unit)
			return mapFixed(mem, arr, a.Time32Values(), target, func(v arrow.Time32) arrow.Time64 {
				return arrow.Time64(conv(int64(v)))
			}), nil
		case *array.Time64:
			return mapFixed(mem, arr, a.Time64Values(), target, unitScaler[arrow.Time64](src.(*arrow.Time64Type).Unit, tt.Unit)), nil
		}
	case arrow.DECIMAL128:
		return toDecimal128(mem, arr, target.(*arrow.Decimal128Type), path)
	case arrow.DECIMAL256:
		return toDecimal256(mem, arr, target.(*arrow.Decimal256Type), path)
	case arrow.STRUCT:
		if a, ok := arr.(*array.Struct); ok {
			return conformStruct(mem, a, target.(*arrow.StructType), path)
		}
	case arrow.LIST:
		if a, ok := arr.(array.ListLike); ok && (src.ID() == arrow.LIST || src.ID() == arrow.LARGE_LIST) {
			return conformList(mem, a, target, target.(*arrow.ListType).Elem(), path+"[]")
		}
	case arrow.MAP:
		if a, ok := arr.(*array.Map); ok {
			return conformList(mem, a, target, target.(*arrow.MapType).Elem(), path+"{}")
		}
	}
	return nil, nil
}

// relabel returns arr's data under another, layout-identical type (zero copy).
func relabel(arr arrow.Array, target arrow.DataType) arrow.Array {
	d := arr.Data()
	nd := array.NewData(target, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// validity returns arr's validity bitmap re-based to offset 0 (nil if there are no nulls).
// The caller owns the returned reference.
func validity(mem memory.Allocator, arr arrow.Array) *memory.Buffer {
	if arr.NullN() == 0 {
		return nil
	}
	d := arr.Data()
	bm := d.Buffers()[0]
	if d.Offset() == 0 {
		bm.Retain()
		return bm
	}
	out := memory.NewResizableBuffer(mem)
	out.Resize(int(bitutil.BytesForBits(int64(d.Len()))))
	bitutil.CopyBitmap(bm.Bytes(), d.Offset(), d.Len(), out.Bytes(), 0)
	return out
}

// newArray assembles an array from owned buffers and child arrays, releasing them (the
// result holds its own references).
func newArray(target arrow.DataType, n int, nulls int, buffers []*memory.Buffer, children []arrow.Array) arrow.Array {
	childData := make([]arrow.ArrayData, len(children))
	for i, c := range children {
		childData[i] = c.Data()
	}
	d := array.NewData(target, n, buffers, childData, nulls, 0)
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// mapFixed converts a fixed-width column element-wise into a fresh buffer; null slots are
// converted too (their content is unspecified but harmless) to keep the loop branch-free.
func mapFixed[S, D arrow.FixedWidthType](mem memory.Allocator, arr arrow.Array, src []S, target arrow.DataType, f func(S) D) arrow.Array {
	n := arr.Len()
	var zero D
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	dst := arrow.GetData[D](buf.Bytes())[:n]
	for i, v := range src[:n] {
		dst[i] = f(v)
	}
	return newArray(target, n, arr.NullN(), []*memory.Buffer{validity(mem, arr), buf}, nil)
}

// mapFixedErr is mapFixed for conversions that can fail; only valid slots are converted.
func mapFixedErr[S, D arrow.FixedWidthType](mem memory.Allocator, arr arrow.Array, src []S, target arrow.DataType, path string, f func(S) (D, error)) (arrow.Array, error) {
	n := arr.Len()
	var zero D
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	dst := arrow.GetData[D](buf.Bytes())[:n]
	hasNulls := arr.NullN() > 0
	for i, v := range src[:n] {
		if hasNulls && arr.IsNull(i) {
			dst[i] = zero
			continue
		}
		d, err := f(v)
		if err != nil {
			buf.Release()
			return nil, fmt.Errorf("conform %s: row %d: %w", fieldLabel(path), i, err)
		}
		dst[i] = d
	}
	return newArray(target, n, arr.NullN(), []*memory.Buffer{validity(mem, arr), buf}, nil), nil
}

// unitScaler converts between time units (seconds … nanoseconds). Coarsening floors, so
// instants before the epoch stay in the right second/millisecond.
func unitScaler[T ~int64](from, to arrow.TimeUnit) func(T) T {
	if from == to {
		return func(v T) T { return v }
	}
	factor := T(1)
	for u := min(from, to); u < max(from, to); u++ {
		factor *= 1000
	}
	if to > from {
		return func(v T) T { return v * factor }
	}
	return func(v T) T { return T(floorDiv(int64(v), int64(factor))) }
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func parseInt64(mem memory.Allocator, arr arrow.Array, value func(int) string, target arrow.DataType, path string) (arrow.Array, error) {
	n := arr.Len()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * 8)
	dst := arrow.GetData[int64](buf.Bytes())[:n]
	for i := range dst {
		if arr.IsNull(i) {
			dst[i] = 0
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(value(i)), 10, 64)
		if err != nil {
			buf.Release()
			return nil, fmt.Errorf("conform %s: row %d: string %q is not a %s", fieldLabel(path), i, value(i), target)
		}
		dst[i] = v
	}
	return newArray(target, n, arr.NullN(), []*memory.Buffer{validity(mem, arr), buf}, nil), nil
}

// stringValues returns an accessor for the bytes of any binary-like array, as a string
// (zero copy where the array allows).
func stringValues(arr arrow.Array) (func(int) string, bool) {
	switch a := arr.(type) {
	case *array.String:
		return a.Value, true
	case *array.LargeString:
		return a.Value, true
	case *array.Binary:
		return a.ValueString, true
	case *array.LargeBinary:
		return a.ValueString, true
	case *array.FixedSizeBinary:
		return func(i int) string { b := a.Value(i); return unsafe.String(unsafe.SliceData(b), len(b)) }, true
	case *array.StringView:
		return a.Value, true
	case *array.BinaryView:
		return a.ValueString, true
	}
	return nil, false
}

// bytesValues returns an accessor for the bytes of a binary (not string) array.
func bytesValues(arr arrow.Array) (func(int) []byte, bool) {
	switch a := arr.(type) {
	case *array.Binary:
		return a.Value, true
	case *array.LargeBinary:
		return a.Value, true
	case *array.FixedSizeBinary:
		return a.Value, true
	case *array.BinaryView:
		return a.Value, true
	}
	return nil, false
}

// toBinaryLike converts to string or binary: zero copy between the two 32-bit-offset
// layouts, a rebuild from other binary layouts, decimal text from integers.
func toBinaryLike(mem memory.Allocator, arr arrow.Array, target arrow.DataType) (arrow.Array, error) {
	switch arr.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		return relabel(arr, target), nil
	}
	var b *array.BinaryBuilder
	finish := func() arrow.Array { return b.NewArray() }
	if target.ID() == arrow.STRING {
		sb := array.NewStringBuilder(mem)
		b, finish = sb.BinaryBuilder, sb.NewArray
	} else {
		b = array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	}
	defer b.Release()
	n := arr.Len()
	b.Reserve(n)
	if sv, ok := stringValues(arr); ok {
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				b.AppendNull()
			} else {
				b.AppendString(sv(i))
			}
		}
		return finish(), nil
	}
	var scratch []byte
	appendInts := func(get func(int) int64) {
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			scratch = strconv.AppendInt(scratch[:0], get(i), 10)
			b.Append(scratch)
		}
	}
	switch a := arr.(type) {
	case *array.Int8:
		appendInts(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int16:
		appendInts(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int32:
		appendInts(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int64:
		appendInts(a.Value)
	case *array.Float32:
		if target.ID() != arrow.STRING {
			return nil, nil // the chart has no float → bytes
		}
		// Float and double columns promoted to string read as Java prints them
		// (Float.toString / Double.toString, what HoodieAvroUtils' promotion calls).
		appendText(b, arr, func(i int) string { return javastr.FormatFloat(a.Value(i)) })
	case *array.Float64:
		if target.ID() != arrow.STRING {
			return nil, nil
		}
		appendText(b, arr, func(i int) string { return javastr.FormatDouble(a.Value(i)) })
	default:
		return nil, nil
	}
	return finish(), nil
}

func appendText(b *array.BinaryBuilder, arr arrow.Array, text func(int) string) {
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.AppendString(text(i))
	}
}

// toDecimal128 converts any decimal, or an unscaled integer / big-endian byte column, to
// target, rescaling and checking precision.
func toDecimal128(mem memory.Allocator, arr arrow.Array, target *arrow.Decimal128Type, path string) (arrow.Array, error) {
	p, s := target.Precision, target.Scale
	switch a := arr.(type) {
	case *array.Decimal128:
		st := a.DataType().(*arrow.Decimal128Type)
		if st.Scale == s && st.Precision <= p {
			return relabel(arr, target), nil
		}
		return mapFixedErr(mem, arr, a.Values(), target, path, func(v decimal128.Num) (decimal128.Num, error) {
			return rescale128(v, st.Scale, s, p)
		})
	case *array.Decimal32:
		ss := a.DataType().(*arrow.Decimal32Type).Scale
		return mapFixedErr(mem, arr, a.Values(), target, path, func(v decimal.Decimal32) (decimal128.Num, error) {
			return rescale128(decimal128.FromI64(int64(v)), ss, s, p)
		})
	case *array.Decimal64:
		ss := a.DataType().(*arrow.Decimal64Type).Scale
		return mapFixedErr(mem, arr, a.Values(), target, path, func(v decimal.Decimal64) (decimal128.Num, error) {
			return rescale128(decimal128.FromI64(int64(v)), ss, s, p)
		})
	case *array.Decimal256:
		ss := a.DataType().(*arrow.Decimal256Type).Scale
		return mapFixedErr(mem, arr, a.Values(), target, path, func(v decimal256.Num) (decimal128.Num, error) {
			v, err := rescale256(v, ss, s, p)
			if err != nil {
				return decimal128.Num{}, err
			}
			return decimal256To128(v)
		})
	case *array.Int32:
		// An integer column read for a decimal target holds the unscaled value (Parquet
		// INT32/INT64 DECIMAL surfaced without its annotation).
		return mapFixedErr(mem, arr, a.Int32Values(), target, path, func(v int32) (decimal128.Num, error) {
			return rescale128(decimal128.FromI64(int64(v)), s, s, p)
		})
	case *array.Int64:
		return mapFixedErr(mem, arr, a.Int64Values(), target, path, func(v int64) (decimal128.Num, error) {
			return rescale128(decimal128.FromI64(v), s, s, p)
		})
	}
	if bv, ok := bytesValues(arr); ok {
		b := array.NewDecimal128Builder(mem, target)
		defer b.Release()
		b.Reserve(arr.Len())
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, err := decimal128FromBigEndian(bv(i))
			if err == nil {
				v, err = rescale128(v, s, s, p)
			}
			if err != nil {
				return nil, fmt.Errorf("conform %s: row %d: %w", fieldLabel(path), i, err)
			}
			b.Append(v)
		}
		return b.NewArray(), nil
	}
	return nil, nil
}

func toDecimal256(mem memory.Allocator, arr arrow.Array, target *arrow.Decimal256Type, path string) (arrow.Array, error) {
	p, s := target.Precision, target.Scale
	switch a := arr.(type) {
	case *array.Decimal256:
		st := a.DataType().(*arrow.Decimal256Type)
		if st.Scale == s && st.Precision <= p {
			return relabel(arr, target), nil
		}
		return mapFixedErr(mem, arr, a.Values(), target, path, func(v decimal256.Num) (decimal256.Num, error) {
			return rescale256(v, st.Scale, s, p)
		})
	case *array.Decimal128:
		ss := a.DataType().(*arrow.Decimal128Type).Scale
		return mapFixedErr(mem, arr, a.Values(), target, path, func(v decimal128.Num) (decimal256.Num, error) {
			return rescale256(decimal256.FromDecimal128(v), ss, s, p)
		})
	case *array.Int64:
		return mapFixedErr(mem, arr, a.Int64Values(), target, path, func(v int64) (decimal256.Num, error) {
			return rescale256(decimal256.FromI64(v), s, s, p)
		})
	}
	if bv, ok := bytesValues(arr); ok {
		b := array.NewDecimal256Builder(mem, target)
		defer b.Release()
		b.Reserve(arr.Len())
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, err := decimal256FromBigEndian(bv(i))
			if err == nil {
				v, err = rescale256(v, s, s, p)
			}
			if err != nil {
				return nil, fmt.Errorf("conform %s: row %d: %w", fieldLabel(path), i, err)
			}
			b.Append(v)
		}
		return b.NewArray(), nil
	}
	return nil, nil
}

// conformStruct matches children by name; the result's children are offset-0 arrays of
// length n, so the validity bitmap is re-based too.
func conformStruct(mem memory.Allocator, a *array.Struct, target *arrow.StructType, path string) (arrow.Array, error) {
	n := a.Len()
	srcType := a.DataType().(*arrow.StructType)
	children := make([]arrow.Array, 0, target.NumFields())
	for _, f := range target.Fields() {
		j := structFieldIndex(srcType, f.Name)
		if j < 0 {
			children = append(children, array.MakeArrayOfNull(mem, f.Type, n))
			continue
		}
		c, err := conform(mem, a.Field(j), f.Type, joinPath(path, f.Name))
		if err != nil {
			for _, c := range children {
				c.Release()
			}
			return nil, err
		}
		children = append(children, c)
	}
	return newArray(target, n, a.NullN(), []*memory.Buffer{validity(mem, a)}, children), nil
}

// conformList handles list, large list and map sources (a map is a list of key/value
// structs): the referenced slice of child values is converted once and the offsets are
// re-based to start at 0 as 32-bit offsets.
func conformList(mem memory.Allocator, a array.ListLike, target, elemType arrow.DataType, path string) (arrow.Array, error) {
	n := a.Len()
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((n + 1) * 4)
	offs := arrow.GetData[int32](offBuf.Bytes())[:n+1]
	var first, last int64
	if n > 0 {
		first, _ = a.ValueOffsets(0)
		_, last = a.ValueOffsets(n - 1)
	}
	if last-first > int64(^uint32(0)>>1) {
		offBuf.Release()
		return nil, fmt.Errorf("conform %s: %d list values exceed 32-bit offsets", fieldLabel(path), last-first)
	}
	for i := 0; i < n; i++ {
		start, _ := a.ValueOffsets(i)
		offs[i] = int32(start - first)
	}
	offs[n] = int32(last - first)

	values := array.NewSlice(a.ListValues(), first, last)
	defer values.Release()
	var child arrow.Array
	var err error
	if mt, isMap := target.(*arrow.MapType); isMap {
		child, err = conformMapEntries(mem, values, mt, path)
	} else {
		child, err = conform(mem, values, elemType, path)
	}
	if err != nil {
		offBuf.Release()
		return nil, err
	}
	return newArray(target, n, a.NullN(), []*memory.Buffer{validity(mem, a), offBuf}, []arrow.Array{child}), nil
}

// conformMapEntries converts a map's key/value struct positionally (key, then value): entry
// field names are a writer convention ("key"/"value", "key"/"value_x"…), not data.
func conformMapEntries(mem memory.Allocator, entries arrow.Array, target *arrow.MapType, path string) (arrow.Array, error) {
	st, ok := entries.(*array.Struct)
	if !ok || st.NumField() != 2 {
		return nil, fmt.Errorf("conform %s: map entries of type %s are not a key/value struct", fieldLabel(path), entries.DataType())
	}
	keys, err := conform(mem, st.Field(0), target.KeyType(), path+".key")
	if err != nil {
		return nil, err
	}
	items, err := conform(mem, st.Field(1), target.ItemType(), path+".value")
	if err != nil {
		keys.Release()
		return nil, err
	}
	return newArray(target.Elem(), st.Len(), st.NullN(), []*memory.Buffer{validity(mem, st)}, []arrow.Array{keys, items}), nil
}
