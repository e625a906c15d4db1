package schema

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/schema/internalschema"
)

// InternalFromAvro converts an Avro record schema (JSON) into an InternalSchema of version
// 0, assigning ids as Java 0.14's AvroInternalSchemaConverter.convert does: the root
// record's fields take 0…n-1, then each nested type, in field order, takes the next ids
// — a record all of its fields' ids before its children's, an array its element id, a map
// its key and value ids (key, value) before the value's children. Field docs are kept
// (Hudi's meta fields carry the doc ""), enums become strings, timestamp-millis/micros
// become timestamp, time-millis/micros time, and a logical type InternalSchema lacks
// (local-timestamp-*) its underlying type, as in Java.
func InternalFromAvro(avroSchemaJSON string) (*internalschema.Schema, error) {
	root, err := parseAvroSchema(avroSchemaJSON)
	if err != nil {
		return nil, err
	}
	if root.kind != "record" {
		return nil, fmt.Errorf("avro table schema must be a record, got %s", root.describe())
	}
	c := &avroToInternal{visiting: map[*avroType]bool{}}
	next := 0
	t, err := c.record(root, &next, true, "")
	if err != nil {
		return nil, err
	}
	s := internalschema.New(0, t.Fields)
	s.RecordName = root.name
	return s, nil
}

type avroToInternal struct {
	visiting map[*avroType]bool
}

func (c *avroToInternal) record(rec *avroType, next *int, root bool, path string) (*internalschema.Type, error) {
	if c.visiting[rec] {
		return nil, fmt.Errorf("avro schema %s: cannot convert recursive avro record %s", pathOrRoot(path), rec.name)
	}
	c.visiting[rec] = true
	defer delete(c.visiting, rec)
	first := *next
	if root {
		first = 0
	}
	*next = first + len(rec.fields)
	types := make([]*internalschema.Type, len(rec.fields))
	for i, f := range rec.fields {
		t, err := c.typ(f.typ, next, joinPath(path, f.name))
		if err != nil {
			return nil, err
		}
		types[i] = t
	}
	fields := make([]internalschema.Field, len(rec.fields))
	for i, f := range rec.fields {
		fields[i] = internalschema.Field{ID: first + i, Name: f.name, Optional: avroOptional(f.typ), Type: types[i]}
		if f.hasDoc {
			d := f.doc
			fields[i].Doc = &d
		}
	}
	return &internalschema.Type{Kind: internalschema.Record, Fields: fields, RecordName: rec.name}, nil
}

// avroOptional is Java's isOptional: a two-branch union with a null branch.
func avroOptional(t *avroType) bool {
	if t.kind != "union" || len(t.branches) != 2 {
		return false
	}
	return t.branches[0].kind == "null" || t.branches[1].kind == "null"
}

func (c *avroToInternal) typ(t *avroType, next *int, path string) (*internalschema.Type, error) {
	switch t.kind {
	case "record":
		return c.record(t, next, false, path)
	case "union":
		var out *internalschema.Type
		for _, b := range t.branches {
			bt, err := c.typ(b, next, path)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = bt
			}
		}
		if out == nil {
			return nil, fmt.Errorf("avro schema %s: a union of nulls has no type", pathOrRoot(path))
		}
		return out, nil
	case "array":
		id := *next
		*next = id + 1
		el, err := c.typ(t.items, next, path+".element")
		if err != nil {
			return nil, err
		}
		if el == nil {
			return nil, fmt.Errorf("avro schema %s: array of nulls", pathOrRoot(path))
		}
		return internalschema.ArrayOf(id, avroOptional(t.items), el), nil
	case "map":
		kid := *next
		*next = kid + 2
		v, err := c.typ(t.values, next, path+".value")
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, fmt.Errorf("avro schema %s: map of nulls", pathOrRoot(path))
		}
		return internalschema.MapOf(kid, kid+1, v, avroOptional(t.values)), nil
	case "null":
		return nil, nil
	}
	switch t.logical {
	case "decimal":
		return internalschema.DecimalOf(int(t.precision), int(t.scale)), nil
	case "date":
		return internalschema.Primitive(internalschema.Date), nil
	case "time-millis", "time-micros":
		return internalschema.Primitive(internalschema.Time), nil
	case "timestamp-millis", "timestamp-micros":
		return internalschema.Primitive(internalschema.Timestamp), nil
	case "uuid":
		return internalschema.Primitive(internalschema.UUID), nil
	}
	switch t.kind {
	case "boolean":
		return internalschema.Primitive(internalschema.Boolean), nil
	case "int":
		return internalschema.Primitive(internalschema.Int), nil
	case "long":
		return internalschema.Primitive(internalschema.Long), nil
	case "float":
		return internalschema.Primitive(internalschema.Float), nil
	case "double":
		return internalschema.Primitive(internalschema.Double), nil
	case "string", "enum":
		return internalschema.Primitive(internalschema.String), nil
	case "fixed":
		return internalschema.FixedOf(t.size), nil
	case "bytes":
		return internalschema.Primitive(internalschema.Binary), nil
	}
	return nil, fmt.Errorf("avro schema %s: unsupported primitive type %s", pathOrRoot(path), t.describe())
}

// InternalToAvro converts an InternalSchema into the Avro schema text Java's
// AvroInternalSchemaConverter.convert(schema, recordName) gives (Schema.toString): the
// root record is named recordName (or the Avro name it was converted from), a nested
// record "<enclosing name>.<field>" unless it kept its own name, optional fields are
// ["null",T] with "default":null, decimals fixed "fixed" in the namespace of their field,
// dates int/date, timestamps long/timestamp-micros, times long/time-micros. Docs are kept.
// The record names Java derives are UNVERIFIED against a Java-written commit; readers
// resolve by field names and types, not record names.
func InternalToAvro(s *internalschema.Schema, recordName string) string {
	w := &internalAvroWriter{}
	name := recordName
	if s.RecordName != "" {
		name = s.RecordName
	}
	w.record(s.Fields, name, "")
	return w.b.String()
}

type internalAvroWriter struct {
	b strings.Builder
}

// splitName splits an Avro full name into namespace and name.
func splitName(full string) (ns, name string) {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}

func (w *internalAvroWriter) named(kind, full, enclosing string) string {
	ns, name := splitName(full)
	w.b.WriteString(`{"type":"` + kind + `","name":`)
	writeJavaString(&w.b, name)
	if ns != enclosing {
		w.b.WriteString(`,"namespace":`)
		writeJavaString(&w.b, ns)
	}
	return ns
}

func (w *internalAvroWriter) record(fields []internalschema.Field, full, enclosing string) {
	ns := w.named("record", full, enclosing)
	w.b.WriteString(`,"fields":[`)
	for i, f := range fields {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.b.WriteString(`{"name":`)
		writeJavaString(&w.b, f.Name)
		w.b.WriteString(`,"type":`)
		w.typ(f.Type, f.Optional, full+"."+f.Name, ns)
		if f.Doc != nil {
			w.b.WriteString(`,"doc":`)
			writeJavaString(&w.b, *f.Doc)
		}
		if f.Optional {
			w.b.WriteString(`,"default":null`)
		}
		w.b.WriteByte('}')
	}
	w.b.WriteString("]}")
}

func (w *internalAvroWriter) typ(t *internalschema.Type, optional bool, name, ns string) {
	if optional {
		w.b.WriteString(`["null",`)
		defer w.b.WriteByte(']')
	}
	switch t.Kind {
	case internalschema.Record:
		full := name
		if t.RecordName != "" {
			full = t.RecordName
		}
		w.record(t.Fields, full, ns)
	case internalschema.Array:
		w.b.WriteString(`{"type":"array","items":`)
		w.typ(t.Element, t.ElementOptional, name, ns)
		w.b.WriteByte('}')
	case internalschema.Map:
		w.b.WriteString(`{"type":"map","values":`)
		w.typ(t.Value, t.ValueOptional, name, ns)
		w.b.WriteByte('}')
	case internalschema.Boolean:
		w.b.WriteString(`"boolean"`)
	case internalschema.Int:
		w.b.WriteString(`"int"`)
	case internalschema.Long:
		w.b.WriteString(`"long"`)
	case internalschema.Float:
		w.b.WriteString(`"float"`)
	case internalschema.Double:
		w.b.WriteString(`"double"`)
	case internalschema.String:
		w.b.WriteString(`"string"`)
	case internalschema.Binary:
		w.b.WriteString(`"bytes"`)
	case internalschema.Date:
		w.b.WriteString(`{"type":"int","logicalType":"date"}`)
	case internalschema.Time:
		w.b.WriteString(`{"type":"long","logicalType":"time-micros"}`)
	case internalschema.Timestamp:
		w.b.WriteString(`{"type":"long","logicalType":"timestamp-micros"}`)
	case internalschema.UUID:
		w.named("fixed", name+".fixed", ns)
		w.b.WriteString(`,"size":16,"logicalType":"uuid"}`)
	case internalschema.Fixed:
		w.named("fixed", name+".fixed", ns)
		fmt.Fprintf(&w.b, `,"size":%d}`, t.Size)
	case internalschema.Decimal:
		w.named("fixed", name+".fixed", ns)
		fmt.Fprintf(&w.b, `,"size":%d,"logicalType":"decimal","precision":%d,"scale":%d}`, decimalFixedSize(t.Precision), t.Precision, t.Scale)
	}
}

// ArrowFromInternal returns the Arrow schema of an InternalSchema (through its Avro form,
// so it is the schema FromAvro gives for the commit schema Java writes with it).
func ArrowFromInternal(s *internalschema.Schema) (*arrow.Schema, error) {
	return FromAvro(InternalToAvro(s, "hudi_record"))
}

// ArrowTypeFromInternal returns the Arrow type of one InternalSchema type.
func ArrowTypeFromInternal(t *internalschema.Type) (arrow.DataType, error) {
	s := internalschema.New(0, []internalschema.Field{{ID: 0, Name: "c", Optional: true, Type: t}})
	sc, err := ArrowFromInternal(s)
	if err != nil {
		return nil, err
	}
	return sc.Field(0).Type, nil
}

// InternalTypeFromArrow converts an Arrow type (a column type of ALTER TABLE) into an
// InternalSchema type whose ids are placeholders (AddColumns reassigns them).
func InternalTypeFromArrow(dt arrow.DataType) (*internalschema.Type, error) {
	avroJSON, err := ToAvro(arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil), "t")
	if err != nil {
		return nil, err
	}
	s, err := InternalFromAvro(avroJSON)
	if err != nil {
		return nil, err
	}
	return withoutRecordNames(s.Fields[0].Type), nil
}

// withoutRecordNames drops the Avro record names a conversion left, so that records of a
// new column are named after their place in the table (as Java's Spark type conversion
// leaves them unnamed).
func withoutRecordNames(t *internalschema.Type) *internalschema.Type {
	c := *t
	c.RecordName = ""
	switch t.Kind {
	case internalschema.Record:
		c.Fields = make([]internalschema.Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = withoutRecordNames(f.Type)
			c.Fields[i] = f
		}
	case internalschema.Array:
		c.Element = withoutRecordNames(t.Element)
	case internalschema.Map:
		c.Value = withoutRecordNames(t.Value)
	}
	return &c
}
