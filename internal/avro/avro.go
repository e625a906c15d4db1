// Package avro is hudi-go's one door to an Avro implementation. Everything else in the
// module decodes and encodes Avro through it, so the library behind it (twmb/avro today)
// can change in one place.
//
// Decoded values are "raw" Avro values, never enriched logical types: a timestamp-micros
// is an int64, a date an int32, a decimal the []byte of its two's-complement unscaled
// value. Readers convert those to Arrow with the schema in hand, which is both faster and
// exact (no time.Time or big.Rat round trips).
//
// Generic value shapes: record → map[string]any, array → []any, map → map[string]any,
// union → the branch value (nil for null), string → string, bytes/fixed → []byte,
// int → int32, long → int64, float → float32, double → float64, boolean → bool,
// enum → string.
package avro

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	tw "github.com/twmb/avro"
	"github.com/twmb/avro/ocf"
)

// Schema is a parsed Avro schema.
type Schema struct {
	s *tw.Schema
}

// rawLogical turns off the library's logical-type enrichment for every logical type Hudi
// writes, so decoded values keep their Avro-native Go types.
func rawLogical() []tw.SchemaOpt {
	var opts []tw.SchemaOpt
	for _, lt := range []string{"decimal", "date", "time-millis", "time-micros", "timestamp-millis",
		"timestamp-micros", "timestamp-nanos", "local-timestamp-millis", "local-timestamp-micros",
		"local-timestamp-nanos", "uuid", "duration"} {
		opts = append(opts, tw.WithCustomType(tw.CustomType{LogicalType: lt}))
	}
	return opts
}

// Parse parses an Avro schema in JSON form. Names are parsed laxly because Hudi derives
// record names from table and field names that need not be valid Avro identifiers.
func Parse(schemaJSON string) (*Schema, error) {
	opts := append(rawLogical(), tw.WithLaxNames(nil))
	s, err := tw.Parse(schemaJSON, opts...)
	if err != nil {
		return nil, fmt.Errorf("parse avro schema: %w", err)
	}
	return &Schema{s: s}, nil
}

// String returns the schema JSON as given to Parse.
func (s *Schema) String() string { return s.s.String() }

// Canonical returns the schema's Parsing Canonical Form (names, order, types; no docs,
// defaults or other properties): two schemas with the same form encode alike.
func (s *Schema) Canonical() string { return string(s.s.Canonical()) }

// Root returns the schema's tree for inspection.
func (s *Schema) Root() *tw.SchemaNode { return s.s.Root() }

// Decode decodes one binary datum into a generic value, returning the unread rest of src.
func (s *Schema) Decode(src []byte) (any, []byte, error) {
	var v any
	rest, err := s.s.Decode(src, &v)
	if err != nil {
		return nil, nil, err
	}
	return v, rest, nil
}

// DecodeTagged decodes like Decode, but a non-null union value comes as a one-key
// map[string]any{branchName: value} (a named branch by its full name, a primitive by its
// type name), so that branches of the same Go shape stay apart (Hudi's column-stats
// wrappers: IntWrapper and DateWrapper both hold an int).
func (s *Schema) DecodeTagged(src []byte) (any, []byte, error) {
	var v any
	rest, err := s.s.Decode(src, &v, tw.TaggedUnions())
	if err != nil {
		return nil, nil, err
	}
	return v, rest, nil
}

// DecodeInto decodes one binary datum into a Go value (a struct pointer with `avro` tags,
// or *any).
func (s *Schema) DecodeInto(src []byte, v any) ([]byte, error) {
	return s.s.Decode(src, v)
}

// Encode encodes one value (generic shapes, or a struct with `avro` tags).
func (s *Schema) Encode(v any) ([]byte, error) { return s.s.Encode(v) }

// AppendEncode appends the encoding of v to dst.
func (s *Schema) AppendEncode(dst []byte, v any) ([]byte, error) { return s.s.AppendEncode(dst, v) }

// Resolve returns a schema that decodes data written with writer into reader's shape.
func Resolve(writer, reader *Schema) (*Schema, error) {
	r, err := tw.Resolve(writer.s, reader.s)
	if err != nil {
		return nil, err
	}
	return &Schema{s: r}, nil
}

// ErrNotContainer is returned by ReadContainer for input that is not an Avro object
// container file.
var ErrNotContainer = errors.New("not an avro object container file")

// ContainerMagic is the first four bytes of every Avro object container file.
var ContainerMagic = []byte{'O', 'b', 'j', 1}

// ReadContainer decodes every datum of an Avro object container file (Hudi's v8+ timeline
// files and plans) with its embedded writer schema. If into is non-nil, each datum is
// decoded by calling into(decode); otherwise the generic values are returned.
func ReadContainer(data []byte) (writerSchema string, values []any, err error) {
	if !bytes.HasPrefix(data, ContainerMagic) {
		return "", nil, ErrNotContainer
	}
	r, err := ocf.NewReader(bytes.NewReader(data), ocf.WithSchemaOpts(append(rawLogical(), tw.WithLaxNames(nil))...))
	if err != nil {
		return "", nil, fmt.Errorf("open avro container: %w", err)
	}
	writerSchema = r.Schema().String()
	for {
		var v any
		if err := r.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return writerSchema, values, fmt.Errorf("decode avro container datum %d: %w", len(values), err)
		}
		values = append(values, v)
	}
	return writerSchema, values, nil
}

// WriteContainer encodes values into an Avro object container file with the null codec
// and the given writer schema, as Java Hudi writes its timeline files.
func WriteContainer(schema *Schema, values ...any) ([]byte, error) {
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, schema.s)
	if err != nil {
		return nil, fmt.Errorf("create avro container: %w", err)
	}
	for i, v := range values {
		if err := w.Encode(v); err != nil {
			return nil, fmt.Errorf("encode avro container datum %d: %w", i, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
