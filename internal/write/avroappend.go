package write

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	tw "github.com/twmb/avro"
)

// avroAppend appends the Avro binary encoding of row i of arr to dst. It is the direct
// counterpart of an avroConv: the same Arrow → Avro value conversions, written straight
// as Avro binary instead of a generic value that internal/avro then encodes — the generic
// route costs a map, boxed values and reflection per row. The bytes must be those the
// generic route produces (TestAvroAppendMatchesGeneric).
type avroAppend func(dst []byte, arr arrow.Array, i int) ([]byte, error)

// errNoDirectAppend marks a schema the direct appenders do not cover; the encoder then
// uses the generic route for every row.
var errNoDirectAppend = errors.New("no direct Avro appender")

// maxZeroByteArrayItems is twmb/avro's cap (maxZeroByteItems) on an array whose items
// encode to no bytes: its encoder refuses longer ones, because its decoder would.
const maxZeroByteArrayItems = 4 << 10

// appendVarlong is Avro's zigzag varint: encoding/binary's signed varint is the same.
func appendVarlong(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

func appendAvroBytes(dst []byte, b []byte) []byte {
	return append(appendVarlong(dst, int64(len(b))), b...)
}

func appendAvroString(dst []byte, s string) []byte {
	return append(appendVarlong(dst, int64(len(s))), s...)
}

// compileAvroAppend mirrors compileAvroConv case by case; error messages for schemas and
// values it refuses are the same. Maps return errNoDirectAppend: the generic route builds
// a Go map, whose iteration order (and so the order of the encoded entries) is random and
// whose duplicate keys collapse, so no direct encoding can promise the same bytes.
func compileAvroAppend(n *tw.SchemaNode, dt arrow.DataType, named map[string]*tw.SchemaNode, path string) (avroAppend, error) {
	return compileAvroAppendChecked(n, dt, named, path, false)
}

// compileAvroAppendChecked is compileAvroAppend; nullChecked says the caller (a union)
// has already handled nulls of the array it passes, so the value appender need not look.
func compileAvroAppendChecked(n *tw.SchemaNode, dt arrow.DataType, named map[string]*tw.SchemaNode, path string, nullChecked bool) (avroAppend, error) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		inner, err := compileAvroAppend(n, d.ValueType, named, path)
		if err != nil {
			return nil, err
		}
		// A null index is a nil value in the generic route, encoded by what n says of
		// null; a valid one is the dictionary entry, nullable by the entry's own validity.
		null, err := compileAvroNull(n, named, path)
		if err != nil {
			return nil, err
		}
		return func(dst []byte, arr arrow.Array, i int) ([]byte, error) {
			da := arr.(*array.Dictionary)
			if da.IsNull(i) {
				return null(dst)
			}
			return inner(dst, da.Dictionary(), da.GetValueIndex(i))
		}, nil
	}
	switch n.Type {
	case "union":
		var branch *tw.SchemaNode
		branchIdx, nullIdx := -1, -1
		for i := range n.Branches {
			if n.Branches[i].Type == "null" {
				if nullIdx < 0 {
					nullIdx = i
				}
				continue
			}
			if branch != nil {
				return nil, fmt.Errorf("column %s: union %v with several non-null branches is not supported by the log writer", path, n.Branches)
			}
			branch, branchIdx = &n.Branches[i], i
		}
		if branch == nil {
			if nullIdx < 0 {
				return nil, fmt.Errorf("column %s: empty Avro union", path)
			}
			nullTag := appendVarlong(nil, int64(nullIdx))
			return func(dst []byte, _ arrow.Array, _ int) ([]byte, error) { return append(dst, nullTag...), nil }, nil
		}
		inner, err := compileAvroAppendChecked(branch, dt, named, path, true)
		if err != nil {
			return nil, err
		}
		tag := appendVarlong(nil, int64(branchIdx))
		var nullTag []byte
		if nullIdx >= 0 {
			nullTag = appendVarlong(nil, int64(nullIdx))
		}
		return func(dst []byte, arr arrow.Array, i int) ([]byte, error) {
			if arr.IsNull(i) {
				if nullTag == nil {
					return nil, fmt.Errorf("column %s: null value for a non-nullable Avro type", path)
				}
				return append(dst, nullTag...), nil
			}
			return inner(append(dst, tag...), arr, i)
		}, nil
	case "null":
		return func(dst []byte, _ arrow.Array, _ int) ([]byte, error) { return dst, nil }, nil
	}
	if def, ok := named[n.Type]; ok && !avroKinds[n.Type] {
		return compileAvroAppendChecked(def, dt, named, path, nullChecked)
	}
	nonNull := func(f avroAppend) avroAppend {
		if nullChecked {
			return f
		}
		return func(dst []byte, arr arrow.Array, i int) ([]byte, error) {
			if arr.IsNull(i) {
				return nil, fmt.Errorf("column %s: null value for non-nullable Avro type %s", path, n.Type)
			}
			return f(dst, arr, i)
		}
	}
	bad := func() (avroAppend, error) {
		return nil, fmt.Errorf("column %s: Arrow type %s cannot be written as Avro %s (logical %q)", path, dt, n.Type, n.LogicalType)
	}
	long := func(get func(arrow.Array, int) int64) (avroAppend, error) {
		return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) { return appendVarlong(dst, get(a, i)), nil }), nil
	}
	switch n.Type {
	case "boolean":
		if dt.ID() != arrow.BOOL {
			return bad()
		}
		return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
			if a.(*array.Boolean).Value(i) {
				return append(dst, 1), nil
			}
			return append(dst, 0), nil
		}), nil
	case "int":
		// Every value is truncated to int32 first, as the generic route's int32 is.
		switch dt.ID() {
		case arrow.INT8:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Int8).Value(i)) })
		case arrow.INT16:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Int16).Value(i)) })
		case arrow.INT32:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Int32).Value(i)) })
		case arrow.UINT8:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Uint8).Value(i)) })
		case arrow.UINT16:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Uint16).Value(i)) })
		case arrow.DATE32:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Date32).Value(i)) })
		case arrow.DATE64:
			return long(func(a arrow.Array, i int) int64 {
				return int64(int32(int64(a.(*array.Date64).Value(i)) / 86_400_000))
			})
		case arrow.TIME32:
			unit := dt.(*arrow.Time32Type).Unit
			return long(func(a arrow.Array, i int) int64 {
				v := int64(a.(*array.Time32).Value(i))
				if unit == arrow.Second {
					v *= 1000
				}
				return int64(int32(v))
			})
		case arrow.TIME64:
			if n.LogicalType != "time-millis" {
				return bad()
			}
			unit := dt.(*arrow.Time64Type).Unit
			return long(func(a arrow.Array, i int) int64 {
				v := int64(a.(*array.Time64).Value(i))
				if unit == arrow.Nanosecond {
					return int64(int32(v / 1_000_000))
				}
				return int64(int32(v / 1000))
			})
		}
		return bad()
	case "long":
		switch dt.ID() {
		case arrow.INT64: // the common case, without the getter's indirect call
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return appendVarlong(dst, a.(*array.Int64).Value(i)), nil
			}), nil
		case arrow.INT32:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Int32).Value(i)) })
		case arrow.UINT32:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Uint32).Value(i)) })
		case arrow.INT16:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Int16).Value(i)) })
		case arrow.INT8:
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Int8).Value(i)) })
		case arrow.TIMESTAMP:
			mul, div := timeScale(int64(timeUnitNanos(dt.(*arrow.TimestampType).Unit)), n.LogicalType)
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Timestamp).Value(i)) * mul / div })
		case arrow.TIME64:
			mul, div := timeScale(int64(timeUnitNanos(dt.(*arrow.Time64Type).Unit)), n.LogicalType)
			return long(func(a arrow.Array, i int) int64 { return int64(a.(*array.Time64).Value(i)) * mul / div })
		}
		return bad()
	case "float":
		if dt.ID() != arrow.FLOAT32 {
			return bad()
		}
		return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
			return binary.LittleEndian.AppendUint32(dst, math.Float32bits(a.(*array.Float32).Value(i))), nil
		}), nil
	case "double":
		switch dt.ID() {
		case arrow.FLOAT64:
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.(*array.Float64).Value(i))), nil
			}), nil
		case arrow.FLOAT32:
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return binary.LittleEndian.AppendUint64(dst, math.Float64bits(float64(a.(*array.Float32).Value(i)))), nil
			}), nil
		}
		return bad()
	case "string":
		switch dt.ID() {
		case arrow.STRING: // the common case, without an interface assertion
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return appendAvroString(dst, a.(*array.String).Value(i)), nil
			}), nil
		case arrow.LARGE_STRING, arrow.STRING_VIEW:
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return appendAvroString(dst, a.(interface{ Value(int) string }).Value(i)), nil
			}), nil
		case arrow.BINARY, arrow.LARGE_BINARY:
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return appendAvroBytes(dst, a.(interface{ Value(int) []byte }).Value(i)), nil
			}), nil
		}
		return bad()
	case "enum":
		var sym func(arrow.Array, int) string
		switch dt.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			sym = func(a arrow.Array, i int) string { return a.(interface{ Value(int) string }).Value(i) }
		case arrow.BINARY, arrow.LARGE_BINARY:
			sym = func(a arrow.Array, i int) string { return string(a.(interface{ Value(int) []byte }).Value(i)) }
		default:
			return bad()
		}
		index := make(map[string]int64, len(n.Symbols))
		for k, s := range n.Symbols {
			if _, dup := index[s]; !dup {
				index[s] = int64(k)
			}
		}
		return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
			s := sym(a, i)
			k, ok := index[s]
			if !ok {
				return nil, fmt.Errorf("column %s: %q is not a symbol of Avro enum %s", path, s, n.Name)
			}
			return appendVarlong(dst, k), nil
		}), nil
	case "bytes", "fixed":
		size := 0
		if n.Type == "fixed" {
			size = n.Size
		}
		// A fixed is its bytes alone; bytes carry their length first.
		put := func(dst, b []byte) []byte {
			if n.Type == "fixed" {
				return append(dst, b...)
			}
			return appendAvroBytes(dst, b)
		}
		if n.LogicalType == "decimal" {
			if size == 0 {
				size = -1 // minimal two's complement
			}
			switch dt.(type) {
			case *arrow.Decimal128Type:
				return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
					b, err := decimalBytes(a.(*array.Decimal128).Value(i).BigInt(), size, path)
					if err != nil {
						return nil, err
					}
					return put(dst, b), nil
				}), nil
			case *arrow.Decimal256Type:
				return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
					b, err := decimalBytes(a.(*array.Decimal256).Value(i).BigInt(), size, path)
					if err != nil {
						return nil, err
					}
					return put(dst, b), nil
				}), nil
			default:
				return bad()
			}
		}
		switch dt.ID() {
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				v := a.(interface{ Value(int) []byte }).Value(i)
				if size > 0 && len(v) != size {
					return nil, fmt.Errorf("column %s: %d bytes for an Avro fixed of %d", path, len(v), size)
				}
				return put(dst, v), nil
			}), nil
		case arrow.FIXED_SIZE_BINARY:
			if n.Type == "fixed" && dt.(*arrow.FixedSizeBinaryType).ByteWidth != size {
				// The generic route hands such values to internal/avro, which refuses
				// them; there is no byte-identical direct encoding to promise.
				return nil, errNoDirectAppend
			}
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return put(dst, a.(*array.FixedSizeBinary).Value(i)), nil
			}), nil
		case arrow.STRING, arrow.LARGE_STRING:
			if n.Type == "fixed" {
				return nil, errNoDirectAppend // as for a mis-sized FixedSizeBinary
			}
			return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
				return appendAvroString(dst, a.(interface{ Value(int) string }).Value(i)), nil
			}), nil
		}
		return bad()
	case "record", "error":
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return bad()
		}
		type sub struct {
			idx int
			app avroAppend
		}
		var subs []sub
		for _, f := range n.Fields {
			idx, found := st.FieldIdx(f.Name)
			if !found {
				return nil, fmt.Errorf("column %s: struct has no field %q of the Avro record", path, f.Name)
			}
			ft := f.Type
			app, err := compileAvroAppend(&ft, st.Field(idx).Type, named, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			subs = append(subs, sub{idx, app})
		}
		return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
			s := a.(*array.Struct)
			var err error
			for _, f := range subs {
				if dst, err = f.app(dst, s.Field(f.idx), i); err != nil {
					return nil, err
				}
			}
			return dst, nil
		}), nil
	case "array":
		lt, ok := dt.(arrow.ListLikeType)
		if !ok || dt.ID() == arrow.MAP || n.Items == nil {
			return bad()
		}
		elem, err := compileAvroAppend(n.Items, lt.Elem(), named, path+"[]")
		if err != nil {
			return nil, err
		}
		// One block: the item count, the items, the 0 that ends the array (no block
		// byte size, as twmb/avro writes it); an empty array is the 0 alone.
		return nonNull(func(dst []byte, a arrow.Array, i int) ([]byte, error) {
			l := a.(array.ListLike)
			start, end := l.ValueOffsets(i)
			if end <= start {
				return append(dst, 0), nil
			}
			dst = appendVarlong(dst, end-start)
			body := len(dst)
			var err error
			for j := start; j < end; j++ {
				if dst, err = elem(dst, l.ListValues(), int(j)); err != nil {
					return nil, err
				}
			}
			if len(dst) == body && end-start > maxZeroByteArrayItems {
				return nil, fmt.Errorf("column %s: array of %d zero-byte items exceeds the Avro decoder's %d-item limit", path, end-start, maxZeroByteArrayItems)
			}
			return append(dst, 0), nil
		}), nil
	case "map":
		if _, ok := dt.(*arrow.MapType); !ok || n.Values == nil {
			return bad()
		}
		// The values were checked by compileAvroConv, which newAvroRowEncoder runs first.
		return nil, errNoDirectAppend
	}
	return bad()
}

// compileAvroNull returns the appender of a nil generic value (a null dictionary index)
// under n: the null branch of a union, nothing for null, and an error for the rest.
func compileAvroNull(n *tw.SchemaNode, named map[string]*tw.SchemaNode, path string) (func([]byte) ([]byte, error), error) {
	for n.Type != "union" && !avroKinds[n.Type] && named[n.Type] != nil {
		n = named[n.Type]
	}
	switch n.Type {
	case "null":
		return func(dst []byte) ([]byte, error) { return dst, nil }, nil
	case "union":
		for k := range n.Branches {
			if n.Branches[k].Type == "null" {
				tag := appendVarlong(nil, int64(k))
				return func(dst []byte) ([]byte, error) { return append(dst, tag...), nil }, nil
			}
		}
	}
	return func([]byte) ([]byte, error) {
		return nil, fmt.Errorf("column %s: null value for non-nullable Avro type %s", path, n.Type)
	}, nil
}
