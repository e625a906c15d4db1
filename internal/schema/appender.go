package schema

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/javastr"
)

// appendFunc appends one raw Avro value (nil for null) to a builder of the type it was
// compiled for.
type appendFunc func(b array.Builder, v any) error

// ValueAppender appends raw generic Avro values (the shapes internal/avro decodes) of one
// writer Avro type to Arrow builders of one target type. Everything that depends only on the
// two types — the writer's decimal scale, its timestamp unit, struct field matching, the
// widening to apply — is resolved once at construction, so the per-value work is a type
// switch-free chain of closures. A ValueAppender holds no mutable state and may be shared
// between goroutines.
type ValueAppender struct {
	fn appendFunc
}

// NewValueAppender compiles an appender from the writer's Avro type (JSON, any type, e.g.
// `["null","long"]`) to target.
func NewValueAppender(writerAvroTypeJSON string, target arrow.DataType) (*ValueAppender, error) {
	w, err := parseAvroSchema(writerAvroTypeJSON)
	if err != nil {
		return nil, err
	}
	fn, err := compileAppender(w, target, "")
	if err != nil {
		return nil, err
	}
	return &ValueAppender{fn: fn}, nil
}

// Append appends v to b, which must be a builder of the target type.
func (a *ValueAppender) Append(b array.Builder, v any) error { return a.fn(b, v) }

// RecordAppender appends decoded Avro records (map[string]any) as rows of a record builder
// for a target Arrow schema — typically the table schema with meta fields, which may be
// wider than the schema the log block was written with. Target fields are matched to writer
// fields by name (exact, then case-insensitive); target fields the writer lacks are null.
// Safe for concurrent use with different builders.
type RecordAppender struct {
	target *arrow.Schema
	fields []recordField
}

type recordField struct {
	writerName string // "" if the writer schema has no such field: always null
	fn         appendFunc
}

// NewRecordAppender compiles an appender for records written with writerAvroSchemaJSON (an
// Avro record schema, e.g. a log block's SCHEMA header) into rows of target.
func NewRecordAppender(writerAvroSchemaJSON string, target *arrow.Schema) (*RecordAppender, error) {
	w, err := parseAvroSchema(writerAvroSchemaJSON)
	if err != nil {
		return nil, err
	}
	if w.kind != "record" {
		return nil, fmt.Errorf("writer avro schema must be a record, got %s", w.describe())
	}
	a := &RecordAppender{target: target, fields: make([]recordField, target.NumFields())}
	for i, f := range target.Fields() {
		wf := writerField(w, f.Name)
		if wf == nil {
			continue
		}
		fn, err := compileAppender(wf.typ, f.Type, f.Name)
		if err != nil {
			return nil, err
		}
		a.fields[i] = recordField{writerName: wf.name, fn: fn}
	}
	return a, nil
}

// Schema returns the target schema.
func (a *RecordAppender) Schema() *arrow.Schema { return a.target }

// Append appends one decoded Avro record as one row of b, whose schema must be the target
// schema. On error the row is partially appended and b should be discarded.
func (a *RecordAppender) Append(b *array.RecordBuilder, record map[string]any) error {
	builders := b.Fields()
	if len(builders) != len(a.fields) {
		return fmt.Errorf("record builder has %d fields, appender target has %d", len(builders), len(a.fields))
	}
	for i := range a.fields {
		f := &a.fields[i]
		if f.fn == nil {
			builders[i].AppendNull()
			continue
		}
		if err := f.fn(builders[i], record[f.writerName]); err != nil {
			return err
		}
	}
	return nil
}

// writerField finds a record field by name, exact first, then case-insensitively.
func writerField(rec *avroType, name string) *avroField {
	for i := range rec.fields {
		if rec.fields[i].name == name {
			return &rec.fields[i]
		}
	}
	for i := range rec.fields {
		if strings.EqualFold(rec.fields[i].name, name) {
			return &rec.fields[i]
		}
	}
	return nil
}

// compileAppender handles the nullable wrapper: any writer type accepts nil as null, since
// a nullable union decodes its null branch to nil.
func compileAppender(w *avroType, target arrow.DataType, path string) (appendFunc, error) {
	vt, _, err := w.nonNull(path)
	if err != nil {
		return nil, err
	}
	inner, err := compileValue(vt, target, path)
	if err != nil {
		return nil, err
	}
	return func(b array.Builder, v any) error {
		if v == nil {
			b.AppendNull()
			return nil
		}
		return inner(b, v)
	}, nil
}

func cannotAppend(w *avroType, target arrow.DataType, path string) error {
	return fmt.Errorf("field %s: cannot read avro %s as arrow %s", pathOrRoot0(path), w.describe(), target)
}

func badValue(w *avroType, v any, path string) error {
	return fmt.Errorf("field %s: avro %s value has unexpected Go type %T", pathOrRoot0(path), w.describe(), v)
}

func pathOrRoot0(path string) string {
	if path == "" {
		return "<value>"
	}
	return path
}

// avroTimeUnit is the unit of a long/int Avro time or timestamp logical type.
func avroTimeUnit(logical string) (arrow.TimeUnit, bool) {
	switch logical {
	case "timestamp-millis", "local-timestamp-millis", "time-millis":
		return arrow.Millisecond, true
	case "timestamp-micros", "local-timestamp-micros", "time-micros":
		return arrow.Microsecond, true
	case "timestamp-nanos", "local-timestamp-nanos":
		return arrow.Nanosecond, true
	}
	return 0, false
}

func compileValue(w *avroType, target arrow.DataType, path string) (appendFunc, error) {
	switch w.kind {
	case "null":
		return func(b array.Builder, _ any) error { b.AppendNull(); return nil }, nil
	case "boolean":
		if target.ID() == arrow.BOOL {
			return func(b array.Builder, v any) error {
				x, ok := v.(bool)
				if !ok {
					return badValue(w, v, path)
				}
				b.(*array.BooleanBuilder).Append(x)
				return nil
			}, nil
		}
	case "int":
		return compileInt(w, target, path)
	case "long":
		return compileLong(w, target, path)
	case "float":
		switch target.ID() {
		case arrow.FLOAT32:
			return func(b array.Builder, v any) error {
				x, ok := v.(float32)
				if !ok {
					return badValue(w, v, path)
				}
				b.(*array.Float32Builder).Append(x)
				return nil
			}, nil
		case arrow.FLOAT64:
			return func(b array.Builder, v any) error {
				x, ok := v.(float32)
				if !ok {
					return badValue(w, v, path)
				}
				// Exact widening, as Avro's own float→double promotion does.
				b.(*array.Float64Builder).Append(float64(x))
				return nil
			}, nil
		case arrow.STRING:
			return func(b array.Builder, v any) error {
				x, ok := v.(float32)
				if !ok {
					return badValue(w, v, path)
				}
				// A float column promoted to string reads as Java's Float.toString.
				b.(*array.StringBuilder).Append(javastr.FormatFloat(x))
				return nil
			}, nil
		}
	case "double":
		switch target.ID() {
		case arrow.FLOAT64:
			return func(b array.Builder, v any) error {
				x, ok := v.(float64)
				if !ok {
					return badValue(w, v, path)
				}
				b.(*array.Float64Builder).Append(x)
				return nil
			}, nil
		case arrow.STRING:
			return func(b array.Builder, v any) error {
				x, ok := v.(float64)
				if !ok {
					return badValue(w, v, path)
				}
				// A double column promoted to string reads as Java's Double.toString.
				b.(*array.StringBuilder).Append(javastr.FormatDouble(x))
				return nil
			}, nil
		}
	case "string", "enum":
		return compileString(w, target, path)
	case "bytes", "fixed":
		return compileBytes(w, target, path)
	case "record":
		if st, ok := target.(*arrow.StructType); ok {
			return compileRecord(w, st, path)
		}
	case "array":
		if lt, ok := target.(*arrow.ListType); ok {
			elem, err := compileAppender(w.items, lt.Elem(), path+"[]")
			if err != nil {
				return nil, err
			}
			return func(b array.Builder, v any) error {
				xs, ok := v.([]any)
				if !ok {
					return badValue(w, v, path)
				}
				lb := b.(*array.ListBuilder)
				lb.Append(true)
				vb := lb.ValueBuilder()
				for _, x := range xs {
					if err := elem(vb, x); err != nil {
						return err
					}
				}
				return nil
			}, nil
		}
	case "map":
		if mt, ok := target.(*arrow.MapType); ok {
			if mt.KeyType().ID() != arrow.STRING {
				return nil, cannotAppend(w, target, path)
			}
			item, err := compileAppender(w.values, mt.ItemType(), path+"{}")
			if err != nil {
				return nil, err
			}
			return func(b array.Builder, v any) error {
				m, ok := v.(map[string]any)
				if !ok {
					return badValue(w, v, path)
				}
				mb := b.(*array.MapBuilder)
				mb.Append(true)
				kb := mb.KeyBuilder().(*array.StringBuilder)
				ib := mb.ItemBuilder()
				// Avro maps are unordered; sorted keys make the output deterministic.
				for _, k := range slices.Sorted(maps.Keys(m)) {
					kb.Append(k)
					if err := item(ib, m[k]); err != nil {
						return err
					}
				}
				return nil
			}, nil
		}
	}
	return nil, cannotAppend(w, target, path)
}

func compileInt(w *avroType, target arrow.DataType, path string) (appendFunc, error) {
	get := func(v any) (int32, error) {
		x, ok := v.(int32)
		if !ok {
			return 0, badValue(w, v, path)
		}
		return x, nil
	}
	switch w.logical {
	case "date":
		if target.ID() != arrow.DATE32 {
			return nil, cannotAppend(w, target, path)
		}
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Date32Builder).Append(arrow.Date32(x))
			return nil
		}, nil
	case "time-millis":
		var scale func(int64) int64
		switch tt := target.(type) {
		case *arrow.Time64Type:
			scale = unitScaler[int64](arrow.Millisecond, tt.Unit)
			return func(b array.Builder, v any) error {
				x, err := get(v)
				if err != nil {
					return err
				}
				b.(*array.Time64Builder).Append(arrow.Time64(scale(int64(x))))
				return nil
			}, nil
		case *arrow.Time32Type:
			scale = unitScaler[int64](arrow.Millisecond, tt.Unit)
			return func(b array.Builder, v any) error {
				x, err := get(v)
				if err != nil {
					return err
				}
				b.(*array.Time32Builder).Append(arrow.Time32(scale(int64(x))))
				return nil
			}, nil
		}
		return nil, cannotAppend(w, target, path)
	}
	switch target.ID() {
	case arrow.INT32:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Int32Builder).Append(x)
			return nil
		}, nil
	case arrow.INT64:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Int64Builder).Append(int64(x))
			return nil
		}, nil
	case arrow.FLOAT32:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Float32Builder).Append(float32(x))
			return nil
		}, nil
	case arrow.FLOAT64:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Float64Builder).Append(float64(x))
			return nil
		}, nil
	case arrow.STRING:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.StringBuilder).Append(strconv.FormatInt(int64(x), 10))
			return nil
		}, nil
	}
	return nil, cannotAppend(w, target, path)
}

func compileLong(w *avroType, target arrow.DataType, path string) (appendFunc, error) {
	get := func(v any) (int64, error) {
		x, ok := v.(int64)
		if !ok {
			return 0, badValue(w, v, path)
		}
		return x, nil
	}
	if unit, ok := avroTimeUnit(w.logical); ok {
		switch tt := target.(type) {
		case *arrow.TimestampType:
			if strings.HasPrefix(w.logical, "time-") {
				break
			}
			if unit == tt.Unit {
				return func(b array.Builder, v any) error {
					x, err := get(v)
					if err != nil {
						return err
					}
					b.(*array.TimestampBuilder).Append(arrow.Timestamp(x))
					return nil
				}, nil
			}
			scale := unitScaler[int64](unit, tt.Unit)
			return func(b array.Builder, v any) error {
				x, err := get(v)
				if err != nil {
					return err
				}
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(scale(x)))
				return nil
			}, nil
		case *arrow.Time64Type:
			if !strings.HasPrefix(w.logical, "time-") {
				break
			}
			scale := unitScaler[int64](unit, tt.Unit)
			return func(b array.Builder, v any) error {
				x, err := get(v)
				if err != nil {
					return err
				}
				b.(*array.Time64Builder).Append(arrow.Time64(scale(x)))
				return nil
			}, nil
		}
		if target.ID() != arrow.INT64 {
			return nil, cannotAppend(w, target, path)
		}
		// A raw long target keeps the stored number.
	}
	switch target.ID() {
	case arrow.INT64:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Int64Builder).Append(x)
			return nil
		}, nil
	case arrow.FLOAT32:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Float32Builder).Append(float32(x))
			return nil
		}, nil
	case arrow.FLOAT64:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.Float64Builder).Append(float64(x))
			return nil
		}, nil
	case arrow.STRING:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.StringBuilder).Append(strconv.FormatInt(x, 10))
			return nil
		}, nil
	}
	return nil, cannotAppend(w, target, path)
}

func compileString(w *avroType, target arrow.DataType, path string) (appendFunc, error) {
	get := func(v any) (string, error) {
		x, ok := v.(string)
		if !ok {
			return "", badValue(w, v, path)
		}
		return x, nil
	}
	switch target.ID() {
	case arrow.STRING:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.StringBuilder).Append(x)
			return nil
		}, nil
	case arrow.BINARY:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.BinaryBuilder).AppendString(x)
			return nil
		}, nil
	case arrow.INT64:
		// The reverse of a LONG column rewritten as STRING (fixtures README): the table
		// schema may say long while an older log block says string.
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return fmt.Errorf("field %s: string %q is not a %s", pathOrRoot0(path), x, target)
			}
			b.(*array.Int64Builder).Append(n)
			return nil
		}, nil
	}
	return nil, cannotAppend(w, target, path)
}

func compileBytes(w *avroType, target arrow.DataType, path string) (appendFunc, error) {
	get := func(v any) ([]byte, error) {
		x, ok := v.([]byte)
		if !ok {
			return nil, badValue(w, v, path)
		}
		return x, nil
	}
	if w.logical == "decimal" {
		ws := w.scale
		switch tt := target.(type) {
		case *arrow.Decimal128Type:
			return func(b array.Builder, v any) error {
				x, err := get(v)
				if err != nil {
					return err
				}
				n, err := decimal128FromBigEndian(x)
				if err == nil {
					n, err = rescale128(n, ws, tt.Scale, tt.Precision)
				}
				if err != nil {
					return fmt.Errorf("field %s: %w", pathOrRoot0(path), err)
				}
				b.(*array.Decimal128Builder).Append(n)
				return nil
			}, nil
		case *arrow.Decimal256Type:
			return func(b array.Builder, v any) error {
				x, err := get(v)
				if err != nil {
					return err
				}
				n, err := decimal256FromBigEndian(x)
				if err == nil {
					n, err = rescale256(n, ws, tt.Scale, tt.Precision)
				}
				if err != nil {
					return fmt.Errorf("field %s: %w", pathOrRoot0(path), err)
				}
				b.(*array.Decimal256Builder).Append(n)
				return nil
			}, nil
		}
		// A decimal read as its raw bytes falls through to the binary targets.
	}
	switch tt := target.(type) {
	case *arrow.BinaryType:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.BinaryBuilder).Append(x)
			return nil
		}, nil
	case *arrow.StringType:
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			b.(*array.StringBuilder).BinaryBuilder.Append(x)
			return nil
		}, nil
	case *arrow.FixedSizeBinaryType:
		if w.kind == "fixed" && w.size != tt.ByteWidth {
			return nil, cannotAppend(w, target, path)
		}
		return func(b array.Builder, v any) error {
			x, err := get(v)
			if err != nil {
				return err
			}
			if len(x) != tt.ByteWidth {
				return fmt.Errorf("field %s: %d bytes do not fit %s", pathOrRoot0(path), len(x), target)
			}
			b.(*array.FixedSizeBinaryBuilder).Append(x)
			return nil
		}, nil
	}
	return nil, cannotAppend(w, target, path)
}

func compileRecord(w *avroType, target *arrow.StructType, path string) (appendFunc, error) {
	children := make([]recordField, target.NumFields())
	for i, f := range target.Fields() {
		wf := writerField(w, f.Name)
		if wf == nil {
			continue
		}
		fn, err := compileAppender(wf.typ, f.Type, joinPath(path, f.Name))
		if err != nil {
			return nil, err
		}
		children[i] = recordField{writerName: wf.name, fn: fn}
	}
	return func(b array.Builder, v any) error {
		m, ok := v.(map[string]any)
		if !ok {
			return badValue(w, v, path)
		}
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i := range children {
			c := &children[i]
			fb := sb.FieldBuilder(i)
			if c.fn == nil {
				fb.AppendNull()
				continue
			}
			if err := c.fn(fb, m[c.writerName]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
