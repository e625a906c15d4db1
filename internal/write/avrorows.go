package write

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	tw "github.com/twmb/avro"

	"github.com/hudi-go/hudi/internal/avro"
)

// avroRowEncoder turns rows of an Arrow record (the output schema: meta fields + write
// schema) into Avro binary datums of the writer Avro schema with meta fields — the records
// of an AVRO_DATA_BLOCK. The conversion is driven by both types, so the values match what
// the Avro schema says (a decimal's fixed size, a timestamp's unit), whatever Arrow type
// the column has.
type avroRowEncoder struct {
	schema *avro.Schema
	fields []avroFieldConv
	// direct: every field has an appender, so rows are written without generic values.
	direct bool
}

type avroFieldConv struct {
	name string
	col  int
	conv avroConv
	app  avroAppend // nil when direct is false
}

// avroConv returns the generic Avro value (internal/avro shapes) of row i of arr.
type avroConv func(arr arrow.Array, i int) (any, error)

func newAvroRowEncoder(avroSchemaJSON string, out *arrow.Schema) (*avroRowEncoder, error) {
	s, err := avro.Parse(avroSchemaJSON)
	if err != nil {
		return nil, fmt.Errorf("log block schema: %w", err)
	}
	root := s.Root()
	named := map[string]*tw.SchemaNode{}
	collectNamed(root, "", named)
	if root.Type != "record" {
		return nil, fmt.Errorf("log block schema is %s, not a record", root.Type)
	}
	e := &avroRowEncoder{schema: s, direct: true}
	for _, f := range root.Fields {
		col := -1
		for i, af := range out.Fields() {
			if af.Name == f.Name {
				col = i
				break
			}
		}
		if col < 0 {
			for i, af := range out.Fields() {
				if strings.EqualFold(af.Name, f.Name) {
					col = i
					break
				}
			}
		}
		if col < 0 {
			return nil, fmt.Errorf("log block schema field %q has no column in the written rows", f.Name)
		}
		ft := f.Type
		conv, err := compileAvroConv(&ft, out.Field(col).Type, named, f.Name)
		if err != nil {
			return nil, err
		}
		app, err := compileAvroAppend(&ft, out.Field(col).Type, named, f.Name)
		if errors.Is(err, errNoDirectAppend) {
			e.direct = false
		} else if err != nil {
			return nil, err
		}
		e.fields = append(e.fields, avroFieldConv{name: f.Name, col: col, conv: conv, app: app})
	}
	if !e.direct {
		for i := range e.fields {
			e.fields[i].app = nil
		}
	}
	return e, nil
}

// appendRecord appends the Avro binary datum of row i to dst: straight from the Arrow
// columns when every field has a direct appender, else through generic values. On error
// the returned slice is nil.
func (e *avroRowEncoder) appendRecord(dst []byte, rec arrow.Record, i int) ([]byte, error) {
	if !e.direct {
		return e.appendGeneric(dst, rec, i)
	}
	var err error
	for _, f := range e.fields {
		if dst, err = f.app(dst, rec.Column(f.col), i); err != nil {
			return nil, fmt.Errorf("column %s: %w", f.name, err)
		}
	}
	return dst, nil
}

// appendGeneric is the generic route: the row as a map of generic values, encoded by
// internal/avro. The direct appenders are held to its bytes.
func (e *avroRowEncoder) appendGeneric(dst []byte, rec arrow.Record, i int) ([]byte, error) {
	m := make(map[string]any, len(e.fields))
	for _, f := range e.fields {
		v, err := f.conv(rec.Column(f.col), i)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.name, err)
		}
		m[f.name] = v
	}
	b, err := e.schema.AppendEncode(dst, m)
	if err != nil {
		return nil, fmt.Errorf("avro encode: %w", err)
	}
	return b, nil
}

func fullAvroName(n *tw.SchemaNode, enclosing string) string {
	if strings.Contains(n.Name, ".") {
		return n.Name
	}
	ns := n.Namespace
	if ns == "" {
		ns = enclosing
	}
	if ns == "" {
		return n.Name
	}
	return ns + "." + n.Name
}

// collectNamed indexes every named type definition so references can be resolved.
func collectNamed(n *tw.SchemaNode, enclosing string, out map[string]*tw.SchemaNode) {
	switch n.Type {
	case "record", "error":
		full := fullAvroName(n, enclosing)
		out[full] = n
		out[n.Name] = n
		ns := full[:max(0, strings.LastIndexByte(full, '.'))]
		for i := range n.Fields {
			collectNamed(&n.Fields[i].Type, ns, out)
		}
	case "fixed", "enum":
		full := fullAvroName(n, enclosing)
		out[full] = n
		if _, ok := out[n.Name]; !ok {
			out[n.Name] = n
		}
	case "array":
		if n.Items != nil {
			collectNamed(n.Items, enclosing, out)
		}
	case "map":
		if n.Values != nil {
			collectNamed(n.Values, enclosing, out)
		}
	case "union":
		for i := range n.Branches {
			collectNamed(&n.Branches[i], enclosing, out)
		}
	}
}

func compileAvroConv(n *tw.SchemaNode, dt arrow.DataType, named map[string]*tw.SchemaNode, path string) (avroConv, error) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		inner, err := compileAvroConv(n, d.ValueType, named, path)
		if err != nil {
			return nil, err
		}
		return func(arr arrow.Array, i int) (any, error) {
			da := arr.(*array.Dictionary)
			if da.IsNull(i) {
				return nil, nil
			}
			return inner(da.Dictionary(), da.GetValueIndex(i))
		}, nil
	}
	switch n.Type {
	case "union":
		var branch *tw.SchemaNode
		hasNull := false
		for i := range n.Branches {
			if n.Branches[i].Type == "null" {
				hasNull = true
				continue
			}
			if branch != nil {
				return nil, fmt.Errorf("column %s: union %v with several non-null branches is not supported by the log writer", path, n.Branches)
			}
			branch = &n.Branches[i]
		}
		if branch == nil {
			return func(arrow.Array, int) (any, error) { return nil, nil }, nil
		}
		inner, err := compileAvroConv(branch, dt, named, path)
		if err != nil {
			return nil, err
		}
		return func(arr arrow.Array, i int) (any, error) {
			if arr.IsNull(i) {
				if !hasNull {
					return nil, fmt.Errorf("column %s: null value for a non-nullable Avro type", path)
				}
				return nil, nil
			}
			return inner(arr, i)
		}, nil
	case "null":
		return func(arrow.Array, int) (any, error) { return nil, nil }, nil
	}
	if def, ok := named[n.Type]; ok && !avroKinds[n.Type] {
		return compileAvroConv(def, dt, named, path)
	}
	nonNull := func(f avroConv) avroConv {
		return func(arr arrow.Array, i int) (any, error) {
			if arr.IsNull(i) {
				return nil, fmt.Errorf("column %s: null value for non-nullable Avro type %s", path, n.Type)
			}
			return f(arr, i)
		}
	}
	bad := func() (avroConv, error) {
		return nil, fmt.Errorf("column %s: Arrow type %s cannot be written as Avro %s (logical %q)", path, dt, n.Type, n.LogicalType)
	}
	switch n.Type {
	case "boolean":
		if dt.ID() != arrow.BOOL {
			return bad()
		}
		return nonNull(func(a arrow.Array, i int) (any, error) { return a.(*array.Boolean).Value(i), nil }), nil
	case "int":
		switch dt.ID() {
		case arrow.INT8:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int32(a.(*array.Int8).Value(i)), nil }), nil
		case arrow.INT16:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int32(a.(*array.Int16).Value(i)), nil }), nil
		case arrow.INT32:
			return nonNull(func(a arrow.Array, i int) (any, error) { return a.(*array.Int32).Value(i), nil }), nil
		case arrow.UINT8:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int32(a.(*array.Uint8).Value(i)), nil }), nil
		case arrow.UINT16:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int32(a.(*array.Uint16).Value(i)), nil }), nil
		case arrow.DATE32:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int32(a.(*array.Date32).Value(i)), nil }), nil
		case arrow.DATE64:
			return nonNull(func(a arrow.Array, i int) (any, error) {
				return int32(int64(a.(*array.Date64).Value(i)) / 86_400_000), nil
			}), nil
		case arrow.TIME32:
			unit := dt.(*arrow.Time32Type).Unit
			return nonNull(func(a arrow.Array, i int) (any, error) {
				v := int64(a.(*array.Time32).Value(i))
				if unit == arrow.Second {
					v *= 1000
				}
				return int32(v), nil
			}), nil
		case arrow.TIME64:
			if n.LogicalType != "time-millis" {
				return bad()
			}
			unit := dt.(*arrow.Time64Type).Unit
			return nonNull(func(a arrow.Array, i int) (any, error) {
				v := int64(a.(*array.Time64).Value(i))
				if unit == arrow.Nanosecond {
					return int32(v / 1_000_000), nil
				}
				return int32(v / 1000), nil
			}), nil
		}
		return bad()
	case "long":
		switch dt.ID() {
		case arrow.INT64:
			return nonNull(func(a arrow.Array, i int) (any, error) { return a.(*array.Int64).Value(i), nil }), nil
		case arrow.INT32:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int64(a.(*array.Int32).Value(i)), nil }), nil
		case arrow.UINT32:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int64(a.(*array.Uint32).Value(i)), nil }), nil
		case arrow.INT16:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int64(a.(*array.Int16).Value(i)), nil }), nil
		case arrow.INT8:
			return nonNull(func(a arrow.Array, i int) (any, error) { return int64(a.(*array.Int8).Value(i)), nil }), nil
		case arrow.TIMESTAMP:
			mul, div := timeScale(int64(timeUnitNanos(dt.(*arrow.TimestampType).Unit)), n.LogicalType)
			return nonNull(func(a arrow.Array, i int) (any, error) {
				return int64(a.(*array.Timestamp).Value(i)) * mul / div, nil
			}), nil
		case arrow.TIME64:
			mul, div := timeScale(int64(timeUnitNanos(dt.(*arrow.Time64Type).Unit)), n.LogicalType)
			return nonNull(func(a arrow.Array, i int) (any, error) {
				return int64(a.(*array.Time64).Value(i)) * mul / div, nil
			}), nil
		}
		return bad()
	case "float":
		if dt.ID() != arrow.FLOAT32 {
			return bad()
		}
		return nonNull(func(a arrow.Array, i int) (any, error) { return a.(*array.Float32).Value(i), nil }), nil
	case "double":
		switch dt.ID() {
		case arrow.FLOAT64:
			return nonNull(func(a arrow.Array, i int) (any, error) { return a.(*array.Float64).Value(i), nil }), nil
		case arrow.FLOAT32:
			return nonNull(func(a arrow.Array, i int) (any, error) { return float64(a.(*array.Float32).Value(i)), nil }), nil
		}
		return bad()
	case "string", "enum":
		switch dt.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return nonNull(func(a arrow.Array, i int) (any, error) { return a.(interface{ Value(int) string }).Value(i), nil }), nil
		case arrow.BINARY, arrow.LARGE_BINARY:
			return nonNull(func(a arrow.Array, i int) (any, error) {
				return string(a.(interface{ Value(int) []byte }).Value(i)), nil
			}), nil
		}
		return bad()
	case "bytes", "fixed":
		size := 0
		if n.Type == "fixed" {
			size = n.Size
		}
		if n.LogicalType == "decimal" {
			if size == 0 {
				size = -1 // minimal two's complement
			}
			switch dt.(type) {
			case *arrow.Decimal128Type:
				return nonNull(func(a arrow.Array, i int) (any, error) {
					return decimalBytes(a.(*array.Decimal128).Value(i).BigInt(), size, path)
				}), nil
			case *arrow.Decimal256Type:
				return nonNull(func(a arrow.Array, i int) (any, error) {
					return decimalBytes(a.(*array.Decimal256).Value(i).BigInt(), size, path)
				}), nil
			default:
				return bad()
			}
		}
		switch dt.ID() {
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return nonNull(func(a arrow.Array, i int) (any, error) {
				src := a.(interface{ Value(int) []byte }).Value(i)
				v := make([]byte, len(src)) // never nil: a nil slice would encode as null
				copy(v, src)
				if size > 0 && len(v) != size {
					return nil, fmt.Errorf("column %s: %d bytes for an Avro fixed of %d", path, len(v), size)
				}
				return v, nil
			}), nil
		case arrow.FIXED_SIZE_BINARY:
			return nonNull(func(a arrow.Array, i int) (any, error) {
				src := a.(*array.FixedSizeBinary).Value(i)
				v := make([]byte, len(src))
				copy(v, src)
				return v, nil
			}), nil
		case arrow.STRING, arrow.LARGE_STRING:
			return nonNull(func(a arrow.Array, i int) (any, error) {
				v := a.(interface{ Value(int) string }).Value(i)
				return append(make([]byte, 0, len(v)), v...), nil
			}), nil
		}
		return bad()
	case "record", "error":
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return bad()
		}
		type sub struct {
			name string
			idx  int
			conv avroConv
		}
		var subs []sub
		for _, f := range n.Fields {
			idx, found := st.FieldIdx(f.Name)
			if !found {
				return nil, fmt.Errorf("column %s: struct has no field %q of the Avro record", path, f.Name)
			}
			ft := f.Type
			c, err := compileAvroConv(&ft, st.Field(idx).Type, named, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			subs = append(subs, sub{f.Name, idx, c})
		}
		return nonNull(func(a arrow.Array, i int) (any, error) {
			s := a.(*array.Struct)
			m := make(map[string]any, len(subs))
			for _, f := range subs {
				v, err := f.conv(s.Field(f.idx), i)
				if err != nil {
					return nil, err
				}
				m[f.name] = v
			}
			return m, nil
		}), nil
	case "array":
		lt, ok := dt.(arrow.ListLikeType)
		if !ok || dt.ID() == arrow.MAP || n.Items == nil {
			return bad()
		}
		elem, err := compileAvroConv(n.Items, lt.Elem(), named, path+"[]")
		if err != nil {
			return nil, err
		}
		return nonNull(func(a arrow.Array, i int) (any, error) {
			l := a.(array.ListLike)
			start, end := l.ValueOffsets(i)
			out := make([]any, 0, end-start)
			for j := start; j < end; j++ {
				v, err := elem(l.ListValues(), int(j))
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			return out, nil
		}), nil
	case "map":
		mt, ok := dt.(*arrow.MapType)
		if !ok || n.Values == nil {
			return bad()
		}
		val, err := compileAvroConv(n.Values, mt.ItemType(), named, path+"{}")
		if err != nil {
			return nil, err
		}
		return nonNull(func(a arrow.Array, i int) (any, error) {
			m := a.(*array.Map)
			start, end := m.ValueOffsets(i)
			keys, ok := m.Keys().(interface{ Value(int) string })
			if !ok {
				return nil, fmt.Errorf("column %s: map keys are %s, not strings", path, m.Keys().DataType())
			}
			out := make(map[string]any, end-start)
			for j := start; j < end; j++ {
				v, err := val(m.Items(), int(j))
				if err != nil {
					return nil, err
				}
				out[keys.Value(int(j))] = v
			}
			return out, nil
		}), nil
	}
	return bad()
}

// avroKinds are the Avro type names that are not references to named types.
var avroKinds = map[string]bool{"null": true, "boolean": true, "int": true, "long": true, "float": true, "double": true,
	"bytes": true, "string": true, "record": true, "error": true, "enum": true, "array": true, "map": true, "fixed": true, "union": true}

func timeUnitNanos(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1_000_000_000
	case arrow.Millisecond:
		return 1_000_000
	case arrow.Microsecond:
		return 1000
	}
	return 1
}

// timeScale returns the factors turning a value of unitNanos into the Avro logical
// type's unit (micros unless the logical type says otherwise).
func timeScale(unitNanos int64, logical string) (mul, div int64) {
	target := int64(1000)
	switch {
	case strings.HasSuffix(logical, "-millis"):
		target = 1_000_000
	case strings.HasSuffix(logical, "-nanos"):
		target = 1
	}
	if unitNanos >= target {
		return unitNanos / target, 1
	}
	return 1, target / unitNanos
}

// decimalBytes is the big-endian two's complement of v in size bytes (size < 0: the
// fewest bytes that hold it).
func decimalBytes(v *big.Int, size int, path string) ([]byte, error) {
	var b []byte
	if v.Sign() >= 0 {
		b = v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
	} else {
		// two's complement: 2^(8n) + v for the smallest n that fits
		n := (v.BitLen()+8)/8 + 1
		m := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
		m.Add(m, v)
		b = m.Bytes()
		for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
			b = b[1:]
		}
	}
	if size < 0 {
		return b, nil
	}
	if len(b) > size {
		return nil, fmt.Errorf("column %s: decimal %s does not fit in %d bytes", path, v, size)
	}
	out := make([]byte, size)
	if v.Sign() < 0 {
		for i := range out {
			out[i] = 0xff
		}
	}
	copy(out[size-len(b):], b)
	return out, nil
}
