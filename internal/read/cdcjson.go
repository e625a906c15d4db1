package read

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	tw "github.com/twmb/avro"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/schema"
)

// imageRenderer prints a record image of a CDC query as Java prints it: the text of Avro's
// GenericData.toString (HoodieCDCUtils.recordToJson, Avro 1.11 as Spark 3.x ships it) of
// the table's record without meta fields — {"field": value, …} with ", " between entries,
// strings quoted and escaped by Avro's rules, floats as Java's Float/Double.toString (NaN
// and infinities quoted), bytes as {"bytes": "…"} of their ISO-8859-1 characters, fixed
// values (Spark's decimals) as the Java array of their signed bytes, logical types by their
// Avro value (dates as days, timestamps as the long of their unit), maps in the order of
// the java.util.HashMap Avro reads them into.
//
// Java prints the images of the DATA_BEFORE_AFTER log records this way; those it rebuilds
// from base files (BASE_FILE_INSERT, BASE_FILE_DELETE, REPLACE_COMMIT, and the images the
// other modes do not store) Spark 0.14 prints from its rows with Jackson, keys in a Scala
// HashMap's order and with the _hoodie_* meta columns. hudi-go prints every image the
// first way, without meta columns, as Hudi later settled on (HUDI PR 18948): a choice, in
// docs/cdc.md.
type imageRenderer struct {
	root  *tw.SchemaNode
	named map[string]*tw.SchemaNode
}

func newImageRenderer(tableAvro string) (*imageRenderer, error) {
	s, err := avro.Parse(tableAvro)
	if err != nil {
		return nil, err
	}
	root := s.Root()
	if root.Type != "record" {
		return nil, fmt.Errorf("table schema is a %s, not a record", root.Type)
	}
	r := &imageRenderer{root: root, named: map[string]*tw.SchemaNode{}}
	r.collect(root)
	return r, nil
}

func (r *imageRenderer) collect(n *tw.SchemaNode) {
	switch n.Type {
	case "record", "error", "enum", "fixed":
		full := n.Name
		if n.Namespace != "" && !strings.Contains(n.Name, ".") {
			full = n.Namespace + "." + n.Name
		}
		r.named[full] = n
		r.named[n.Name] = n
	}
	for i := range n.Fields {
		r.collect(&n.Fields[i].Type)
	}
	if n.Items != nil {
		r.collect(n.Items)
	}
	if n.Values != nil {
		r.collect(n.Values)
	}
	for i := range n.Branches {
		r.collect(&n.Branches[i])
	}
}

// deref resolves a named type reference.
func (r *imageRenderer) deref(n *tw.SchemaNode) *tw.SchemaNode {
	switch n.Type {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string", "record", "error", "enum", "array", "map", "fixed", "union":
		return n
	}
	if d, ok := r.named[n.Type]; ok {
		return d
	}
	if n.Namespace != "" {
		if d, ok := r.named[n.Namespace+"."+n.Type]; ok {
			return d
		}
	}
	return n
}

// render prints row i of rec (columns matched by name; meta columns skipped) as the table
// record's image.
func (r *imageRenderer) render(rec arrow.Record, i int) (string, error) {
	var b strings.Builder
	cols := map[string]arrow.Array{}
	for c, f := range rec.Schema().Fields() {
		cols[f.Name] = rec.Column(c)
	}
	b.WriteByte('{')
	first := true
	for fi := range r.root.Fields {
		f := &r.root.Fields[fi]
		if schema.IsMetaField(f.Name) || f.Name == "_hoodie_operation" {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		writeAvroString(&b, f.Name)
		b.WriteString(": ")
		col, ok := cols[f.Name]
		if !ok {
			b.WriteString("null") // a column the rows lack reads as null
			continue
		}
		if err := r.value(&b, &f.Type, col, i, f.Name); err != nil {
			return "", err
		}
	}
	b.WriteByte('}')
	return b.String(), nil
}

func (r *imageRenderer) value(b *strings.Builder, n *tw.SchemaNode, arr arrow.Array, i int, path string) error {
	n = r.deref(n)
	if arr.IsNull(i) {
		b.WriteString("null")
		return nil
	}
	if n.Type == "union" {
		for k := range n.Branches {
			if br := r.deref(&n.Branches[k]); br.Type != "null" {
				return r.value(b, br, arr, i, path)
			}
		}
		b.WriteString("null")
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		b.WriteString(strconv.FormatBool(a.Value(i)))
	case *array.Int8:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int16:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int32:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int64:
		b.WriteString(strconv.FormatInt(a.Value(i), 10))
	case *array.Uint8:
		b.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint16:
		b.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint32:
		b.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint64:
		b.WriteString(strconv.FormatUint(a.Value(i), 10))
	case *array.Float32:
		if n.Type == "double" {
			writeJavaFloat(b, javastr.FormatDouble(float64(a.Value(i))), float64(a.Value(i)))
		} else {
			writeJavaFloat(b, javastr.FormatFloat(a.Value(i)), float64(a.Value(i)))
		}
	case *array.Float64:
		if n.Type == "float" {
			writeJavaFloat(b, javastr.FormatFloat(float32(a.Value(i))), a.Value(i))
		} else {
			writeJavaFloat(b, javastr.FormatDouble(a.Value(i)), a.Value(i))
		}
	case *array.String:
		r.text(b, n, a.Value(i))
	case *array.LargeString:
		r.text(b, n, a.Value(i))
	case *array.Binary:
		writeAvroBytes(b, n, a.Value(i))
	case *array.LargeBinary:
		writeAvroBytes(b, n, a.Value(i))
	case *array.FixedSizeBinary:
		writeAvroBytes(b, n, a.Value(i))
	case *array.Date32:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		b.WriteString(strconv.FormatInt(scaleTime(int64(a.Value(i)), unit, n.LogicalType), 10))
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		b.WriteString(strconv.FormatInt(scaleTime(int64(a.Value(i)), unit, n.LogicalType), 10))
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		b.WriteString(strconv.FormatInt(scaleTime(int64(a.Value(i)), unit, n.LogicalType), 10))
	case *array.Decimal128:
		v := a.Value(i)
		writeAvroBytes(b, n, decimalAvroBytes(v.BigInt(), n))
	case *array.Decimal256:
		v := a.Value(i)
		writeAvroBytes(b, n, decimalAvroBytes(v.BigInt(), n))
	case *array.Struct:
		return r.record(b, n, a, i, path)
	case *array.Map:
		return r.mapValue(b, n, a, i, path)
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		items := n.Items
		if items == nil {
			return fmt.Errorf("CDC image of %s: an Arrow list for Avro %s", path, n.Type)
		}
		b.WriteByte('[')
		for k := start; k < end; k++ {
			if k > start {
				b.WriteString(", ")
			}
			if err := r.value(b, items, a.ListValues(), int(k), path+"[]"); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return fmt.Errorf("CDC image of %s: Arrow type %s is not printed", path, arr.DataType())
	}
	return nil
}

func (r *imageRenderer) text(b *strings.Builder, n *tw.SchemaNode, s string) {
	writeAvroString(b, s)
}

func (r *imageRenderer) record(b *strings.Builder, n *tw.SchemaNode, a *array.Struct, i int, path string) error {
	st := a.DataType().(*arrow.StructType)
	b.WriteByte('{')
	for fi := range n.Fields {
		f := &n.Fields[fi]
		if fi > 0 {
			b.WriteString(", ")
		}
		writeAvroString(b, f.Name)
		b.WriteString(": ")
		idx, ok := st.FieldIdx(f.Name)
		if !ok {
			b.WriteString("null")
			continue
		}
		// A struct's null row leaves its children's values undefined: the struct itself was
		// checked non-null by the caller.
		if err := r.value(b, &f.Type, a.Field(idx), i, path+"."+f.Name); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// mapValue prints a map in the order Java's GenericDatumReader gives it: a
// java.util.HashMap sized for the entry count, keyed by Avro Utf8, whose hashCode is taken
// over the UTF-8 bytes (UNVERIFIED against a Java run).
func (r *imageRenderer) mapValue(b *strings.Builder, n *tw.SchemaNode, a *array.Map, i int, path string) error {
	if n.Values == nil {
		return fmt.Errorf("CDC image of %s: an Arrow map for Avro %s", path, n.Type)
	}
	start, end := a.ValueOffsets(i)
	keys, ok := a.Keys().(*array.String)
	if !ok {
		return fmt.Errorf("CDC image of %s: map keys of type %s", path, a.Keys().DataType())
	}
	hm := javastr.NewHashMapSized(int(end - start))
	idx := map[string]int{}
	for k := start; k < end; k++ {
		key := keys.Value(int(k))
		idx[key] = int(k)
		hm.Put(key, javastr.Utf8HashCode(key))
	}
	b.WriteByte('{')
	for c, key := range hm.Keys() {
		if c > 0 {
			b.WriteString(", ")
		}
		writeAvroString(b, key)
		b.WriteString(": ")
		if err := r.value(b, n.Values, a.Items(), idx[key], path+"{}"); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeJavaFloat writes Java's toString of a float or double, NaN and the infinities
// quoted as Avro 1.11's toString does.
func writeJavaFloat(b *strings.Builder, text string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		b.WriteByte('"')
		b.WriteString(text)
		b.WriteByte('"')
		return
	}
	b.WriteString(text)
}

// writeAvroBytes writes bytes (n a bytes type) as {"bytes": "<ISO-8859-1 characters>"} and
// fixed values as Java's Arrays.toString of their signed bytes (GenericData.Fixed.toString).
func writeAvroBytes(b *strings.Builder, n *tw.SchemaNode, v []byte) {
	if n.Type == "fixed" {
		b.WriteByte('[')
		for k, x := range v {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(int(int8(x))))
		}
		b.WriteByte(']')
		return
	}
	b.WriteString(`{"bytes": "`)
	for _, x := range v {
		writeAvroChar(b, rune(x))
	}
	b.WriteString(`"}`)
}

// writeAvroString writes s quoted and escaped as Avro's GenericData.writeEscapedString does
// over its UTF-16 characters: \" \\ \b \f \n \r \t, \uXXXX (upper-case hex) for the control
// characters U+0000–U+001F and U+007F–U+009F and for U+2000–U+20FF, the rest as is.
func writeAvroString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, c := range s {
		if c > 0xFFFF {
			// A surrogate pair: neither half is in a range Avro escapes.
			b.WriteRune(c)
			continue
		}
		writeAvroChar(b, c)
	}
	b.WriteByte('"')
}

func writeAvroChar(b *strings.Builder, c rune) {
	switch c {
	case '"':
		b.WriteString(`\"`)
	case '\\':
		b.WriteString(`\\`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if c <= 0x1F || (c >= 0x7F && c <= 0x9F) || (c >= 0x2000 && c <= 0x20FF) {
			fmt.Fprintf(b, `\u%04X`, c)
			return
		}
		b.WriteRune(c)
	}
}

// scaleTime converts a time value in an Arrow unit to the unit of the Avro logical type
// (micros unless it names millis or nanos).
func scaleTime(v int64, unit arrow.TimeUnit, logical string) int64 {
	var from int64
	switch unit {
	case arrow.Second:
		from = 1e9
	case arrow.Millisecond:
		from = 1e6
	case arrow.Microsecond:
		from = 1e3
	default:
		from = 1
	}
	to := int64(1e3)
	switch {
	case strings.HasSuffix(logical, "-millis"):
		to = 1e6
	case strings.HasSuffix(logical, "-nanos"):
		to = 1
	}
	if from >= to {
		return v * (from / to)
	}
	d := to / from
	q := v / d
	if v%d != 0 && v < 0 {
		q-- // floor, as the value is a point in time
	}
	return q
}

// decimalAvroBytes is the two's-complement big-endian unscaled value as Avro stores it: the
// fixed size for a fixed, the fewest bytes for bytes (Java's BigInteger.toByteArray).
func decimalAvroBytes(v *big.Int, n *tw.SchemaNode) []byte {
	size := -1
	if n.Type == "fixed" {
		size = n.Size
	}
	var min []byte
	if v.Sign() >= 0 {
		min = v.Bytes()
		if len(min) == 0 || min[0]&0x80 != 0 {
			min = append([]byte{0}, min...)
		}
	} else {
		m := new(big.Int).Neg(v)
		m.Sub(m, big.NewInt(1))
		min = m.Bytes()
		for k := range min {
			min[k] = ^min[k]
		}
		if len(min) == 0 || min[0]&0x80 == 0 {
			min = append([]byte{0xff}, min...)
		}
	}
	if size < 0 || len(min) >= size {
		return min
	}
	pad := byte(0)
	if v.Sign() < 0 {
		pad = 0xff
	}
	out := make([]byte, size-len(min), size)
	for k := range out {
		out[k] = pad
	}
	return append(out, min...)
}
