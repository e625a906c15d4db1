package schema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// DocMetadataKey is the Arrow field metadata key under which FromAvro keeps a non-empty
// Avro field doc, so a writer deriving Avro back from Arrow can restore it.
const DocMetadataKey = "avro.doc"

// ListElementName is the element field name of every list type FromAvro produces (the
// Parquet 3-level list convention); Conform accepts any source element name.
const ListElementName = "element"

// FromAvro converts a Hudi Avro record schema (JSON) into an Arrow schema, one field per
// record field, following the mapping in format doc §5.2:
//
//	["null", T]           → nullable field of T (other unions with >1 non-null branch: error)
//	boolean/int/long      → Boolean/Int32/Int64; float/double → Float32/Float64
//	string, enum          → String; bytes → Binary; fixed → FixedSizeBinary(size)
//	decimal(p,s)          → Decimal128(p,s), Decimal256 when p > 38 (bytes or fixed)
//	date                  → Date32
//	timestamp-millis/micros → Timestamp(us, "UTC"); local-timestamp-* → Timestamp(us, "")
//	timestamp-nanos       → Timestamp(ns, "UTC") (local: tz "")
//	time-millis/micros    → Time64(us)
//	record → Struct, array → List<element>, map → Map<String, V>
//
// Millisecond Avro timestamps share the microsecond Arrow type so that a table's column type
// does not depend on which writer produced a file; appenders scale the values.
func FromAvro(avroSchemaJSON string) (*arrow.Schema, error) {
	root, err := parseAvroSchema(avroSchemaJSON)
	if err != nil {
		return nil, err
	}
	if root.kind != "record" {
		return nil, fmt.Errorf("avro table schema must be a record, got %s", root.describe())
	}
	conv := avroToArrow{visiting: map[*avroType]bool{}}
	fields, err := conv.recordFields(root, "")
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(fields, nil), nil
}

// FieldFromAvro is FromAvro for a single field's Avro type (JSON), e.g. to build a column
// for a schema evolution step.
func FieldFromAvro(name, avroTypeJSON string) (arrow.Field, error) {
	t, err := parseAvroSchema(avroTypeJSON)
	if err != nil {
		return arrow.Field{}, err
	}
	conv := avroToArrow{visiting: map[*avroType]bool{}}
	return conv.field(avroField{name: name, typ: t}, name)
}

type avroToArrow struct {
	// visiting holds the records on the current descent path: Arrow types are trees, so a
	// record that contains itself cannot be mapped.
	visiting map[*avroType]bool
}

func (c avroToArrow) recordFields(rec *avroType, path string) ([]arrow.Field, error) {
	if c.visiting[rec] {
		return nil, fmt.Errorf("avro schema %s: recursive record %s cannot be mapped to Arrow", pathOrRoot(path), rec.name)
	}
	c.visiting[rec] = true
	defer delete(c.visiting, rec)
	fields := make([]arrow.Field, 0, len(rec.fields))
	for _, f := range rec.fields {
		af, err := c.field(f, joinPath(path, f.name))
		if err != nil {
			return nil, err
		}
		fields = append(fields, af)
	}
	return fields, nil
}

func (c avroToArrow) field(f avroField, path string) (arrow.Field, error) {
	vt, nullable, err := f.typ.nonNull(path)
	if err != nil {
		return arrow.Field{}, err
	}
	dt, err := c.dataType(vt, path)
	if err != nil {
		return arrow.Field{}, err
	}
	af := arrow.Field{Name: f.name, Type: dt, Nullable: nullable}
	if f.doc != "" {
		af.Metadata = arrow.NewMetadata([]string{DocMetadataKey}, []string{f.doc})
	}
	return af, nil
}

func (c avroToArrow) dataType(t *avroType, path string) (arrow.DataType, error) {
	switch t.kind {
	case "null":
		return arrow.Null, nil
	case "boolean":
		return arrow.FixedWidthTypes.Boolean, nil
	case "int":
		switch t.logical {
		case "date":
			return arrow.FixedWidthTypes.Date32, nil
		case "time-millis":
			return arrow.FixedWidthTypes.Time64us, nil
		}
		return arrow.PrimitiveTypes.Int32, nil
	case "long":
		switch t.logical {
		case "timestamp-millis", "timestamp-micros":
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
		case "timestamp-nanos":
			return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, nil
		case "local-timestamp-millis", "local-timestamp-micros":
			return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
		case "local-timestamp-nanos":
			return &arrow.TimestampType{Unit: arrow.Nanosecond}, nil
		case "time-micros":
			return arrow.FixedWidthTypes.Time64us, nil
		}
		return arrow.PrimitiveTypes.Int64, nil
	case "float":
		return arrow.PrimitiveTypes.Float32, nil
	case "double":
		return arrow.PrimitiveTypes.Float64, nil
	case "string", "enum":
		return arrow.BinaryTypes.String, nil
	case "bytes":
		if t.logical == "decimal" {
			return decimalType(t.precision, t.scale, path)
		}
		return arrow.BinaryTypes.Binary, nil
	case "fixed":
		if t.logical == "decimal" {
			return decimalType(t.precision, t.scale, path)
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: t.size}, nil
	case "record":
		fields, err := c.recordFields(t, path)
		if err != nil {
			return nil, err
		}
		return arrow.StructOf(fields...), nil
	case "array":
		et, nullable, err := t.items.nonNull(path + "[]")
		if err != nil {
			return nil, err
		}
		edt, err := c.dataType(et, path+"[]")
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: ListElementName, Type: edt, Nullable: nullable}), nil
	case "map":
		vt, nullable, err := t.values.nonNull(path + "{}")
		if err != nil {
			return nil, err
		}
		vdt, err := c.dataType(vt, path+"{}")
		if err != nil {
			return nil, err
		}
		mt := arrow.MapOf(arrow.BinaryTypes.String, vdt)
		mt.SetItemNullable(nullable)
		return mt, nil
	case "union":
		return nil, fmt.Errorf("avro schema %s: nested union", pathOrRoot(path))
	}
	return nil, fmt.Errorf("avro schema %s: unsupported avro type %s", pathOrRoot(path), t.describe())
}

// decimalType picks the narrowest Arrow decimal that holds precision p; Hudi (via Spark)
// never exceeds 38, but Avro allows more.
func decimalType(p, s int32, path string) (arrow.DataType, error) {
	switch {
	case p <= 38:
		return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
	case p <= 76:
		return &arrow.Decimal256Type{Precision: p, Scale: s}, nil
	}
	return nil, fmt.Errorf("avro schema %s: decimal precision %d exceeds 76", pathOrRoot(path), p)
}
