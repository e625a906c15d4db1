package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// ToAvro converts an Arrow table schema (without meta fields) into the Avro schema text Hudi
// stores as extraMetadata.schema of a v6 commit (format doc §3.6, §5.2). The text is what
// Java's Schema.toString() prints for the schema Spark's SchemaConverters plus Hudi's
// getAvroSchemaWithDefaults build, so a Go-written commit is byte-identical to a Spark one:
//
//   - record "<table>_record" in namespace "hoodie.<table>" (table name sanitized like
//     HoodieAvroUtils.sanitizeName);
//   - a nullable field is ["null",T] with "default":null, a non-nullable one plain T;
//   - array items / map values are ["null",T] when they may hold null;
//   - structs are records named after their field, namespace = enclosing record's full name;
//   - decimals are fixed "fixed" in namespace "<enclosing record>.<field>", size = minimum
//     bytes for the precision; dates int/date; timestamps long/timestamp-micros
//     (local-timestamp-micros without a time zone);
//   - Int8/Int16 become int (Hudi's Avro has no narrower integer).
//
// A non-empty field doc kept by FromAvro under DocMetadataKey is written back as "doc".
func ToAvro(s *arrow.Schema, tableName string) (string, error) {
	return toAvro(s, tableName, commitForm)
}

// CreateSchemaAvro is ToAvro in the form Spark SQL stores as hoodie.table.create.schema
// (format doc §2.2.3): Spark's own SchemaConverters output, i.e. nullable unions ordered
// [T,"null"] and no field defaults.
func CreateSchemaAvro(s *arrow.Schema, tableName string) (string, error) {
	return toAvro(s, tableName, createForm)
}

type avroForm int

const (
	// commitForm: ["null",T] unions, "default":null on nullable fields.
	commitForm avroForm = iota
	// createForm: [T,"null"] unions, no defaults.
	createForm
)

// AvroRecordName returns the Avro record name and namespace Hudi derives from a table name
// (AvroConversionUtils.getAvroRecordNameAndNamespace).
func AvroRecordName(tableName string) (name, namespace string) {
	n := sanitizeAvroName(tableName)
	return n + "_record", "hoodie." + n
}

// sanitizeAvroName mirrors HoodieAvroUtils.sanitizeName: an invalid first character and
// every other character outside [A-Za-z0-9_] become "__", so any table name yields a
// legal Avro name exactly as Java would spell it.
func sanitizeAvroName(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z'):
			b.WriteRune(r)
		case r >= '0' && r <= '9' && i > 0:
			b.WriteRune(r)
		default:
			b.WriteString("__")
		}
	}
	return b.String()
}

// validAvroName reports whether name matches Avro's [A-Za-z_][A-Za-z0-9_]*. Java's
// Schema.Field rejects other names, so Hudi could not write such a column either.
func validAvroName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		ok := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

func toAvro(s *arrow.Schema, tableName string, form avroForm) (string, error) {
	if s == nil {
		return "", errors.New("to avro: nil schema")
	}
	if tableName == "" {
		return "", errors.New("to avro: empty table name")
	}
	name, ns := AvroRecordName(tableName)
	w := avroWriter{form: form, named: map[string]string{}}
	if err := w.record(s.Fields(), name, ns, "", ""); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

// avroWriter prints Avro schema JSON the way Java's Schema.toString() does: compact, keys in
// Java's order ("type","name","namespace","doc","fields" / "name","type","doc","default" /
// "type","name","namespace","size",logical props), a namespace only when it differs from the
// enclosing named type's, and later uses of an already defined name as a reference.
type avroWriter struct {
	b     strings.Builder
	form  avroForm
	named map[string]string // full name → definition, to emit references like Java
}

// record writes a record schema. space is the namespace in force where the record appears
// (Java's Names.space()); path names the column for errors.
func (w *avroWriter) record(fields []arrow.Field, name, namespace, space, path string) error {
	full := namespace + "." + name
	def := recordSignature(fields)
	if prev, ok := w.named[full]; ok {
		if prev != def {
			return fmt.Errorf("to avro: column %s: Avro name %s is defined twice with different types", pathOrTop(path), full)
		}
		w.writeNameRef(full, namespace, name, space)
		return nil
	}
	w.named[full] = def
	w.b.WriteString(`{"type":"record","name":`)
	writeJavaString(&w.b, name)
	if namespace != space {
		w.b.WriteString(`,"namespace":`)
		writeJavaString(&w.b, namespace)
	}
	w.b.WriteString(`,"fields":[`)
	// Spark passes "<namespace>.<record>" as the namespace of everything nested here.
	child := full
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		fpath := joinPath(path, f.Name)
		if !validAvroName(f.Name) {
			return fmt.Errorf("to avro: column %q: not a valid Avro name (must match [A-Za-z_][A-Za-z0-9_]*)", fpath)
		}
		if seen[f.Name] {
			return fmt.Errorf("to avro: column %q appears twice", fpath)
		}
		seen[f.Name] = true
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.b.WriteString(`{"name":`)
		writeJavaString(&w.b, f.Name)
		w.b.WriteString(`,"type":`)
		if err := w.typ(f.Type, f.Nullable, f.Name, child, namespace, fpath); err != nil {
			return err
		}
		if doc, ok := f.Metadata.GetValue(DocMetadataKey); ok && doc != "" {
			w.b.WriteString(`,"doc":`)
			writeJavaString(&w.b, doc)
		}
		// getAvroSchemaWithDefaults gives nullable fields a null default; Spark's own
		// converter (create form) gives none.
		if w.form == commitForm && (f.Nullable || f.Type.ID() == arrow.NULL) {
			w.b.WriteString(`,"default":null`)
		}
		w.b.WriteByte('}')
	}
	w.b.WriteString("]}")
	return nil
}

// writeNameRef writes a reference to an already defined named type, qualified only when its
// namespace differs from the enclosing one (Schema.Name.getQualified).
func (w *avroWriter) writeNameRef(full, namespace, name, space string) {
	if namespace == space {
		writeJavaString(&w.b, name)
		return
	}
	writeJavaString(&w.b, full)
}

// typ writes the (possibly nullable) Avro type of a value. recordName and namespace follow
// Spark's SchemaConverters.toAvroType: recordName is the field name, carried unchanged into
// array elements and map values; namespace is the enclosing record's full name.
func (w *avroWriter) typ(dt arrow.DataType, nullable bool, recordName, namespace, space, path string) error {
	if dt.ID() == arrow.NULL || !nullable {
		return w.nonNull(dt, recordName, namespace, space, path)
	}
	if w.form == commitForm {
		w.b.WriteString(`["null",`)
		if err := w.nonNull(dt, recordName, namespace, space, path); err != nil {
			return err
		}
		w.b.WriteByte(']')
		return nil
	}
	w.b.WriteByte('[')
	if err := w.nonNull(dt, recordName, namespace, space, path); err != nil {
		return err
	}
	w.b.WriteString(`,"null"]`)
	return nil
}

func (w *avroWriter) nonNull(dt arrow.DataType, recordName, namespace, space, path string) error {
	switch t := dt.(type) {
	case *arrow.NullType:
		w.b.WriteString(`"null"`)
	case *arrow.BooleanType:
		w.b.WriteString(`"boolean"`)
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Uint8Type, *arrow.Uint16Type:
		w.b.WriteString(`"int"`)
	case *arrow.Int64Type, *arrow.Uint32Type:
		w.b.WriteString(`"long"`)
	case *arrow.Float32Type:
		w.b.WriteString(`"float"`)
	case *arrow.Float64Type:
		w.b.WriteString(`"double"`)
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		w.b.WriteString(`"string"`)
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		w.b.WriteString(`"bytes"`)
	case *arrow.Date32Type, *arrow.Date64Type:
		w.b.WriteString(`{"type":"int","logicalType":"date"}`)
	case *arrow.TimestampType:
		// Spark (and so Hudi) only writes microseconds; coarser Arrow units are widened by the
		// writer. Nanoseconds keep their own logical type so FromAvro maps them back.
		unit := "micros"
		if t.Unit == arrow.Nanosecond {
			unit = "nanos"
		}
		prefix := "timestamp-"
		if t.TimeZone == "" {
			prefix = "local-timestamp-"
		}
		w.b.WriteString(`{"type":"long","logicalType":"` + prefix + unit + `"}`)
	case *arrow.Time32Type:
		w.b.WriteString(`{"type":"int","logicalType":"time-millis"}`)
	case *arrow.Time64Type:
		w.b.WriteString(`{"type":"long","logicalType":"time-micros"}`)
	case arrow.DecimalType:
		return w.fixed(t.GetPrecision(), t.GetScale(), true, 0, recordName, namespace, space, path)
	case *arrow.FixedSizeBinaryType:
		return w.fixed(0, 0, false, t.ByteWidth, recordName, namespace, space, path)
	case *arrow.StructType:
		return w.record(t.Fields(), recordName, namespace, space, path)
	case arrow.ListLikeType:
		if _, isMap := t.(*arrow.MapType); !isMap {
			elem := t.ElemField()
			w.b.WriteString(`{"type":"array","items":`)
			if err := w.typ(elem.Type, elem.Nullable, recordName, namespace, space, path+"[]"); err != nil {
				return err
			}
			w.b.WriteByte('}')
			return nil
		}
		mt := t.(*arrow.MapType)
		switch mt.KeyType().ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		default:
			return fmt.Errorf("to avro: column %q: map key type %s is not supported (Avro map keys are strings)", path, mt.KeyType())
		}
		item := mt.ItemField()
		w.b.WriteString(`{"type":"map","values":`)
		if err := w.typ(item.Type, item.Nullable, recordName, namespace, space, path+"{}"); err != nil {
			return err
		}
		w.b.WriteByte('}')
	case *arrow.DictionaryType:
		// Dictionary encoding is an in-memory detail; the data is written decoded.
		return w.nonNull(t.ValueType, recordName, namespace, space, path)
	default:
		return fmt.Errorf("to avro: column %q: Arrow type %s has no Avro equivalent Hudi writes", pathOrTop(path), dt)
	}
	return nil
}

// fixed writes a fixed type named "fixed" in namespace "<namespace>.<recordName>": Spark names
// it "<ns>.<recordName>.fixed", which Java splits at the last dot.
func (w *avroWriter) fixed(precision, scale int32, decimal bool, size int, recordName, namespace, space, path string) error {
	if decimal {
		if precision < 1 {
			return fmt.Errorf("to avro: column %q: invalid decimal precision %d", path, precision)
		}
		size = decimalFixedSize(int(precision))
	}
	fns := recordName
	if namespace != "" {
		fns = namespace + "." + recordName
	}
	full := fns + ".fixed"
	var def strings.Builder
	def.WriteString(`"size":` + strconv.Itoa(size))
	if decimal {
		def.WriteString(`,"logicalType":"decimal","precision":` + strconv.Itoa(int(precision)) + `,"scale":` + strconv.Itoa(int(scale)))
	}
	if prev, ok := w.named[full]; ok {
		if prev != def.String() {
			return fmt.Errorf("to avro: column %q: Avro name %s is defined twice with different types", path, full)
		}
		w.writeNameRef(full, fns, "fixed", space)
		return nil
	}
	w.named[full] = def.String()
	w.b.WriteString(`{"type":"fixed","name":"fixed"`)
	if fns != space {
		w.b.WriteString(`,"namespace":`)
		writeJavaString(&w.b, fns)
	}
	w.b.WriteByte(',')
	w.b.WriteString(def.String())
	w.b.WriteByte('}')
	return nil
}

// decimalFixedSize is Spark's minBytesForPrecision: the smallest n with
// 2^(8n-1) >= 10^precision, computed in doubles exactly as the JVM does.
func decimalFixedSize(precision int) int {
	n := 1
	for math.Pow(2, float64(8*n-1)) < math.Pow(10, float64(precision)) {
		n++
	}
	return n
}

// recordSignature identifies a struct's shape so a repeated Avro name can be told apart from a
// conflicting redefinition.
func recordSignature(fields []arrow.Field) string {
	return arrow.StructOf(fields...).String()
}

func pathOrTop(path string) string {
	if path == "" {
		return "<root>"
	}
	return path
}

// writeJavaString writes s as a JSON string escaped like Jackson (which Avro's toString
// uses): only '"', '\\' and control characters are escaped, the latter as \b \t \n \f \r or
// \u00XX with upper-case hex; everything else, including non-ASCII, is written as is.
func writeJavaString(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// WithMetaFieldsAvro prepends the five Hudi meta fields to an Avro record schema, as
// HoodieAvroUtils.addMetadataFields does for the writer schema found in parquet.avro.schema
// footers and log block SCHEMA headers: each is {"name":…,"type":["null","string"],"doc":"",
// "default":null}. Meta fields (and _hoodie_operation) already in the input are dropped first,
// as Java does, so applying it twice is harmless. The rest of the schema is kept as written
// (key order, numbers), only compacted.
func WithMetaFieldsAvro(avroSchemaJSON string) (string, error) {
	root, err := parseOrderedJSON(avroSchemaJSON)
	if err != nil {
		return "", fmt.Errorf("with meta fields: %w", err)
	}
	if root.kind != jsonObject || root.get("type") == nil || root.get("type").scalar != `"record"` {
		return "", errors.New("with meta fields: schema is not an Avro record")
	}
	fields := root.get("fields")
	if fields == nil || fields.kind != jsonArray {
		return "", errors.New(`with meta fields: record has no "fields" array`)
	}
	out := make([]*jsonNode, 0, len(fields.items)+len(MetaFields))
	for _, name := range MetaFields {
		var b strings.Builder
		b.WriteString(`{"name":`)
		writeJavaString(&b, name)
		b.WriteString(`,"type":["null","string"],"doc":"","default":null}`)
		n, err := parseOrderedJSON(b.String())
		if err != nil {
			return "", err
		}
		out = append(out, n)
	}
	for i, f := range fields.items {
		if f.kind != jsonObject {
			return "", fmt.Errorf("with meta fields: field %d is not an object", i)
		}
		if nm := f.get("name"); nm != nil && (isMetaNameJSON(nm.scalar)) {
			continue
		}
		out = append(out, f)
	}
	fields.items = out
	var b strings.Builder
	root.write(&b)
	return b.String(), nil
}

// operationField is the optional sixth meta column (written when
// hoodie.allow.operation.metadata.field is set); addMetadataFields drops it too.
const operationField = "_hoodie_operation"

func isMetaNameJSON(quoted string) bool {
	name, err := strconv.Unquote(quoted)
	if err != nil {
		return false
	}
	return IsMetaField(name) || name == operationField
}

// jsonNode is a JSON value that remembers object key order and the literal text of scalars,
// so a schema can be edited and printed again without reordering Java's keys.
type jsonNode struct {
	kind   byte        // jsonObject, jsonArray or jsonScalar
	keys   []string    // object keys, in order
	vals   []*jsonNode // object values, parallel to keys
	items  []*jsonNode // array items
	scalar string      // compact JSON text of a string, number, bool or null
}

const (
	jsonScalar byte = iota
	jsonObject
	jsonArray
)

func (n *jsonNode) get(key string) *jsonNode {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

func (n *jsonNode) write(b *strings.Builder) {
	switch n.kind {
	case jsonObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJavaString(b, k)
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case jsonArray:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.scalar)
	}
}

func parseOrderedJSON(text string) (*jsonNode, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	n, err := readJSONNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("parse JSON: unexpected data after the value at offset %d", dec.InputOffset())
	}
	return n, nil
}

// maxJSONDepth bounds recursion on hostile input; real schemas nest a few levels.
const maxJSONDepth = 1000

func readJSONNode(dec *json.Decoder, depth int) (*jsonNode, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("parse JSON: nesting too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("parse JSON at offset %d: %w", dec.InputOffset(), err)
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &jsonNode{kind: jsonObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("parse JSON at offset %d: %w", dec.InputOffset(), err)
				}
				k, _ := kt.(string)
				val, err := readJSONNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("parse JSON at offset %d: %w", dec.InputOffset(), err)
			}
			return n, nil
		case '[':
			n := &jsonNode{kind: jsonArray}
			for dec.More() {
				it, err := readJSONNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, it)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("parse JSON at offset %d: %w", dec.InputOffset(), err)
			}
			return n, nil
		}
		return nil, fmt.Errorf("parse JSON at offset %d: unexpected %v", dec.InputOffset(), v)
	case string:
		var b strings.Builder
		writeJavaString(&b, v)
		return &jsonNode{scalar: b.String()}, nil
	case json.Number:
		return &jsonNode{scalar: v.String()}, nil
	case bool:
		return &jsonNode{scalar: strconv.FormatBool(v)}, nil
	case nil:
		return &jsonNode{scalar: "null"}, nil
	}
	return nil, fmt.Errorf("parse JSON: unexpected token %v", tok)
}
