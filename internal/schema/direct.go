package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrNotDirect is returned by NewRecordDecoder for writer schemas it does not compile: the
// caller decodes such blocks generically (internal/avro, then RecordAppender).
var ErrNotDirect = errors.New("writer schema not supported by the direct decoder")

// RecordDecoder reads Avro binary records straight into the builders of a target Arrow
// schema, skipping the generic map[string]any each record otherwise becomes. It covers
// writer records whose target-mapped fields are primitives, enums, fixed, or unions of
// null and one of those; fields the target lacks may be of any type and are skipped. The
// result is exactly RecordAppender's over internal/avro's decode: conversions outside the
// typed fast paths call RecordAppender's own compiled functions on the same raw Go value,
// and the wire reading mirrors internal/avro's (twmb/avro) rules, so a record one path
// rejects the other rejects too. A RecordDecoder holds no mutable state.
type RecordDecoder struct {
	ncols    int
	nullCols []int       // target columns the writer lacks: null in every row
	steps    []fieldStep // one per writer field, in wire order
}

// fieldStep consumes one writer field: decoded into target column col, or skipped.
type fieldStep struct {
	name string
	col  int // -1: not in the target
	dec  decodeFunc
	skip skipFunc
}

// decodeFunc reads one value from src, appends it to b and returns the rest of src.
type decodeFunc func(src []byte, b array.Builder) ([]byte, error)

// skipFunc reads past one value, validating it as a decode would.
type skipFunc func(src []byte) ([]byte, error)

// NewRecordDecoder compiles a decoder for records written with writerAvroSchemaJSON into
// rows of target. It returns ErrNotDirect (wrapped) when the schema needs the generic path,
// and the error RecordAppender would give for pairings neither path can read.
func NewRecordDecoder(writerAvroSchemaJSON string, target *arrow.Schema) (*RecordDecoder, error) {
	w, err := parseAvroSchema(writerAvroSchemaJSON)
	if err != nil {
		return nil, err
	}
	if w.kind != "record" {
		return nil, fmt.Errorf("writer avro schema must be a record, got %s", w.describe())
	}
	d := &RecordDecoder{ncols: target.NumFields(), steps: make([]fieldStep, len(w.fields))}
	for i := range d.steps {
		d.steps[i] = fieldStep{name: w.fields[i].name, col: -1}
	}
	for col, f := range target.Fields() {
		wf := writerField(w, f.Name)
		if wf == nil {
			d.nullCols = append(d.nullCols, col)
			continue
		}
		wi := writerFieldIndex(w, wf)
		if d.steps[wi].col >= 0 {
			// Two target columns read one writer field (names equal but for case): rare
			// enough that one column per field keeps the decode loop simple.
			return nil, fmt.Errorf("%w: field %s feeds several columns", ErrNotDirect, wf.name)
		}
		dec, err := compileDirect(wf.typ, f.Type, f.Name)
		if err != nil {
			return nil, err
		}
		d.steps[wi].col, d.steps[wi].dec = col, dec
	}
	for i := range d.steps {
		if d.steps[i].col >= 0 {
			continue
		}
		skip, _, err := compileSkip(w.fields[i].typ, map[*avroType]bool{})
		if err != nil {
			return nil, err
		}
		d.steps[i].skip = skip
	}
	return d, nil
}

func writerFieldIndex(rec *avroType, f *avroField) int {
	for i := range rec.fields {
		if &rec.fields[i] == f {
			return i
		}
	}
	return -1
}

// Append decodes one binary record from src as one row of b, whose schema must be the
// target schema. Bytes after the record are ignored, as the generic decode ignores them.
// On error the row is partially appended and b should be discarded.
func (d *RecordDecoder) Append(b *array.RecordBuilder, src []byte) error {
	builders := b.Fields()
	if len(builders) != d.ncols {
		return fmt.Errorf("record builder has %d fields, decoder target has %d", len(builders), d.ncols)
	}
	for _, c := range d.nullCols {
		builders[c].AppendNull()
	}
	for i := range d.steps {
		s := &d.steps[i]
		var err error
		if s.col < 0 {
			src, err = s.skip(src)
		} else {
			src, err = s.dec(src, builders[s.col])
		}
		if err != nil {
			return fmt.Errorf("field %s: %w", s.name, err)
		}
	}
	return nil
}

// compileDirect compiles the decoder of one target-mapped writer field. The generic
// appender for the same pairing is compiled first: it decides whether the pairing is
// readable at all, with the generic path's error when it is not.
func compileDirect(w *avroType, target arrow.DataType, path string) (decodeFunc, error) {
	if _, err := compileAppender(w, target, path); err != nil {
		return nil, err
	}
	if w.kind != "union" {
		return compileDirectValue(w, target, path)
	}
	branches := make([]decodeFunc, len(w.branches))
	for i, bt := range w.branches {
		dec, err := compileDirectValue(bt, target, path)
		if err != nil {
			return nil, err
		}
		branches[i] = dec
	}
	return func(src []byte, b array.Builder) ([]byte, error) {
		idx, rest, err := readVarint(src, "union index")
		if err != nil {
			return nil, err
		}
		if idx < 0 || int(idx) >= len(branches) {
			return nil, fmt.Errorf("union index %d out of range [0, %d)", idx, len(branches))
		}
		return branches[idx](rest, b)
	}, nil
}

func appendNull(src []byte, b array.Builder) ([]byte, error) {
	b.AppendNull()
	return src, nil
}

// compileDirectValue compiles a non-union value: a typed fast path for the pairings that
// dominate Hudi logs, else the raw value boxed as internal/avro would produce it and handed
// to RecordAppender's compiled conversion, which keeps the rarer conversions (time units,
// decimals, fixed-size binary, string→long) exact by construction.
func compileDirectValue(w *avroType, target arrow.DataType, path string) (decodeFunc, error) {
	if w.kind == "null" {
		return appendNull, nil
	}
	if fast := fastDecoder(w, target); fast != nil {
		return fast, nil
	}
	if fast := decimalDecoder(w, target); fast != nil {
		return fast, nil
	}
	read := rawReader(w)
	if read == nil {
		return nil, fmt.Errorf("%w: field %s: avro %s", ErrNotDirect, pathOrRoot0(path), w.describe())
	}
	gen, err := compileValue(w, target, path)
	if err != nil {
		return nil, err
	}
	return func(src []byte, b array.Builder) ([]byte, error) {
		v, rest, err := read(src)
		if err != nil {
			return nil, err
		}
		return rest, gen(b, v)
	}, nil
}

// fastDecoder returns a typed decoder for pairings whose conversion is a plain Go
// conversion in compileValue, or nil. Each case mirrors the compileValue case it replaces.
func fastDecoder(w *avroType, target arrow.DataType) decodeFunc {
	id := target.ID()
	switch w.kind {
	case "boolean":
		if id == arrow.BOOL {
			return decodeBool
		}
	case "int":
		switch {
		case w.logical == "date" && id == arrow.DATE32:
			return decodeDate32
		case w.logical == "date" || w.logical == "time-millis":
		case id == arrow.INT32:
			return decodeIntInt32
		case id == arrow.INT64:
			return decodeIntInt64
		case id == arrow.FLOAT32:
			return decodeIntFloat32
		case id == arrow.FLOAT64:
			return decodeIntFloat64
		}
	case "long":
		// compileLong reads any long as a raw INT64 target, logical type or not.
		if id == arrow.INT64 {
			return decodeLongInt64
		}
		if unit, ok := avroTimeUnit(w.logical); ok {
			if tt, isTS := target.(*arrow.TimestampType); isTS && !strings.HasPrefix(w.logical, "time-") && tt.Unit == unit {
				return decodeLongTimestamp
			}
			return nil
		}
		switch id {
		case arrow.FLOAT32:
			return decodeLongFloat32
		case arrow.FLOAT64:
			return decodeLongFloat64
		}
	case "float":
		switch id {
		case arrow.FLOAT32:
			return decodeFloatFloat32
		case arrow.FLOAT64:
			return decodeFloatFloat64
		}
	case "double":
		if id == arrow.FLOAT64 {
			return decodeDoubleFloat64
		}
	case "string":
		switch id {
		case arrow.STRING:
			return decodeLenString("string")
		case arrow.BINARY:
			return decodeLenBinary("string")
		}
	case "bytes":
		// A decimal read as BINARY or STRING is its raw bytes (compileBytes falls through).
		switch id {
		case arrow.STRING:
			return decodeLenString("bytes")
		case arrow.BINARY:
			return decodeLenBinary("bytes")
		}
	}
	return nil
}

// decimalDecoder decodes a bytes or fixed decimal into a Decimal128 target with the very
// functions compileBytes uses, without boxing the bytes; nil for other pairings.
func decimalDecoder(w *avroType, target arrow.DataType) decodeFunc {
	tt, ok := target.(*arrow.Decimal128Type)
	if !ok || w.logical != "decimal" || (w.kind != "bytes" && w.kind != "fixed") {
		return nil
	}
	read := func(src []byte) ([]byte, []byte, error) { return readLenBytes(src, "bytes") }
	if w.kind == "fixed" {
		size := w.size
		read = func(src []byte) ([]byte, []byte, error) {
			if len(src) < size {
				return nil, nil, shortBuffer("fixed", size, len(src))
			}
			return src[:size], src[size:], nil
		}
	}
	ws := w.scale
	return func(src []byte, b array.Builder) ([]byte, error) {
		x, rest, err := read(src)
		if err != nil {
			return nil, err
		}
		n, err := decimal128FromBigEndian(x)
		if err == nil {
			n, err = rescale128(n, ws, tt.Scale, tt.Precision)
		}
		if err != nil {
			return nil, err
		}
		b.(*array.Decimal128Builder).Append(n)
		return rest, nil
	}
}

// rawReader reads one value of a non-union type into the Go value internal/avro decodes
// it to, or is nil for types the direct decoder does not decode (records, arrays, maps).
func rawReader(w *avroType) func([]byte) (any, []byte, error) {
	switch w.kind {
	case "boolean":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readBool(src)
			return x, rest, err
		}
	case "int":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readVarint(src, "int")
			return x, rest, err
		}
	case "long":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readVarlong(src, "long")
			return x, rest, err
		}
	case "float":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readFloat(src)
			return x, rest, err
		}
	case "double":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readDouble(src)
			return x, rest, err
		}
	case "string":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readLenBytes(src, "string")
			return string(x), rest, err
		}
	case "bytes":
		return func(src []byte) (any, []byte, error) {
			x, rest, err := readLenBytes(src, "bytes")
			return x, rest, err
		}
	case "fixed":
		size := w.size
		return func(src []byte) (any, []byte, error) {
			if len(src) < size {
				return nil, nil, shortBuffer("fixed", size, len(src))
			}
			return src[:size:size], src[size:], nil
		}
	case "enum":
		symbols := w.symbols
		return func(src []byte) (any, []byte, error) {
			idx, rest, err := readEnum(src, len(symbols))
			if err != nil {
				return nil, nil, err
			}
			return symbols[idx], rest, nil
		}
	}
	return nil
}

// Typed fast-path decoders.

func decodeBool(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readBool(src)
	if err != nil {
		return nil, err
	}
	b.(*array.BooleanBuilder).Append(x)
	return rest, nil
}

func decodeDate32(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarint(src, "int")
	if err != nil {
		return nil, err
	}
	b.(*array.Date32Builder).Append(arrow.Date32(x))
	return rest, nil
}

func decodeIntInt32(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarint(src, "int")
	if err != nil {
		return nil, err
	}
	b.(*array.Int32Builder).Append(x)
	return rest, nil
}

func decodeIntInt64(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarint(src, "int")
	if err != nil {
		return nil, err
	}
	b.(*array.Int64Builder).Append(int64(x))
	return rest, nil
}

func decodeIntFloat32(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarint(src, "int")
	if err != nil {
		return nil, err
	}
	b.(*array.Float32Builder).Append(float32(x))
	return rest, nil
}

func decodeIntFloat64(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarint(src, "int")
	if err != nil {
		return nil, err
	}
	b.(*array.Float64Builder).Append(float64(x))
	return rest, nil
}

func decodeLongInt64(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarlong(src, "long")
	if err != nil {
		return nil, err
	}
	b.(*array.Int64Builder).Append(x)
	return rest, nil
}

func decodeLongTimestamp(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarlong(src, "long")
	if err != nil {
		return nil, err
	}
	b.(*array.TimestampBuilder).Append(arrow.Timestamp(x))
	return rest, nil
}

func decodeLongFloat32(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarlong(src, "long")
	if err != nil {
		return nil, err
	}
	b.(*array.Float32Builder).Append(float32(x))
	return rest, nil
}

func decodeLongFloat64(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readVarlong(src, "long")
	if err != nil {
		return nil, err
	}
	b.(*array.Float64Builder).Append(float64(x))
	return rest, nil
}

func decodeFloatFloat32(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readFloat(src)
	if err != nil {
		return nil, err
	}
	b.(*array.Float32Builder).Append(x)
	return rest, nil
}

func decodeFloatFloat64(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readFloat(src)
	if err != nil {
		return nil, err
	}
	// Exact widening, as compileValue's float→double.
	b.(*array.Float64Builder).Append(float64(x))
	return rest, nil
}

func decodeDoubleFloat64(src []byte, b array.Builder) ([]byte, error) {
	x, rest, err := readDouble(src)
	if err != nil {
		return nil, err
	}
	b.(*array.Float64Builder).Append(x)
	return rest, nil
}

// decodeLenString appends a length-prefixed string or bytes value to a STRING builder;
// the builder copies, so the value is never materialised as a Go string.
func decodeLenString(what string) decodeFunc {
	return func(src []byte, b array.Builder) ([]byte, error) {
		x, rest, err := readLenBytes(src, what)
		if err != nil {
			return nil, err
		}
		b.(*array.StringBuilder).BinaryBuilder.Append(x)
		return rest, nil
	}
}

func decodeLenBinary(what string) decodeFunc {
	return func(src []byte, b array.Builder) ([]byte, error) {
		x, rest, err := readLenBytes(src, what)
		if err != nil {
			return nil, err
		}
		b.(*array.BinaryBuilder).Append(x)
		return rest, nil
	}
}
