package jsonl

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchSize is used when Decode is given a batch size <= 0.
const DefaultBatchSize = 8192

// Decoder reads canonical JSON Lines into record batches of a given schema. It accepts what the
// Encoder writes and a little more, for hand-written input: integers are exact (never via
// float64); decimals may be strings or numbers but must not lose digits; timestamps may carry any
// RFC 3339 offset (or none: UTC) and date-only or "YYYY-MM-DD HH:MM:SS" forms; binary is
// standard base64 (padding optional); a map is an array of {"key":k,"value":v} or, for string
// keys, a JSON object; missing nullable columns and struct fields are null (unless
// RequireColumns names them). Unknown columns, nulls in non-nullable fields, numbers for
// timestamps and dates, and invalid UTF-8 are errors naming the line and column. A leading
// UTF-8 byte-order mark and blank lines are skipped.
type Decoder struct {
	r         *bufio.Reader
	schema    *arrow.Schema
	mem       memory.Allocator
	batchSize int
	line      int
	err       error // sticky: after the first error the decoder returns it forever
	byName    map[string]int
	// required are the columns every row must name (RequireColumns), with the hint
	// appended to the error for a row that lacks some.
	required     []string
	requiredHint string
}

// RequireColumns makes a row that lacks any of the named columns (an explicit null
// counts as present) an error naming the line and every missing column, followed by
// hint. Without it a missing nullable column is null.
func (d *Decoder) RequireColumns(names []string, hint string) {
	d.required, d.requiredHint = names, hint
}

// NewDecoder returns a Decoder reading r. batchSize <= 0 means DefaultBatchSize.
func NewDecoder(r io.Reader, schema *arrow.Schema, mem memory.Allocator, batchSize int) *Decoder {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	byName := make(map[string]int, schema.NumFields())
	for i, f := range schema.Fields() {
		if _, dup := byName[f.Name]; !dup {
			byName[f.Name] = i
		}
	}
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), schema: schema, mem: mem, batchSize: batchSize, byName: byName}
}

// Decode returns an iterator over the record batches of r. Each yielded batch belongs to the
// consumer, which must Release it. Iteration stops after the first error.
func Decode(r io.Reader, schema *arrow.Schema, mem memory.Allocator, batchSize int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		d := NewDecoder(r, schema, mem, batchSize)
		for {
			rec, err := d.Next()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// Next returns the next batch (up to batchSize rows), or io.EOF when the input is exhausted.
func (d *Decoder) Next() (arrow.RecordBatch, error) {
	if d.err != nil {
		return nil, d.err
	}
	b := array.NewRecordBuilder(d.mem, d.schema)
	defer b.Release()
	rows := 0
	seen := make([]bool, d.schema.NumFields())
	for rows < d.batchSize {
		line, err := d.r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if err != io.EOF {
				d.err = fmt.Errorf("jsonl: read line %d: %w", d.line+1, err)
				return nil, d.err
			}
			d.err = io.EOF
			break
		}
		d.line++
		if d.line == 1 {
			// A UTF-8 byte-order mark (editors on Windows write one) is not JSON.
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if !utf8.Valid(line) {
			// encoding/json would silently turn invalid bytes into U+FFFD.
			d.err = fmt.Errorf("jsonl: line %d: invalid UTF-8 at byte %d of the line", d.line, invalidUTF8At(line)+1)
			discardBuilder(b)
			return nil, d.err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := d.appendRow(b, line, seen); err != nil {
			d.err = err
			discardBuilder(b)
			return nil, err
		}
		rows++
	}
	if rows == 0 {
		return nil, io.EOF
	}
	return b.NewRecordBatch(), nil
}

// discardBuilder frees what a builder holds after a failed row. Releasing the builder alone is not
// enough: arrow-go's BinaryViewBuilder keeps its out-of-line data blocks until NewArray, so
// they would leak; building and releasing each column frees everything.
func discardBuilder(b *array.RecordBuilder) {
	for _, f := range b.Fields() {
		func() {
			// A half-appended row can leave a builder that refuses to build (e.g. a
			// fixed-size list short of values); its memory is then left to the builder's
			// own release.
			defer func() { _ = recover() }()
			f.NewArray().Release()
		}()
	}
}

func (d *Decoder) appendRow(b *array.RecordBuilder, line []byte, seen []bool) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("jsonl: line %d: invalid JSON: %w", d.line, err)
	}
	if dec.More() {
		return fmt.Errorf("jsonl: line %d: text after the JSON object", d.line)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("jsonl: line %d: expected a JSON object, got %s", d.line, jsonKind(v))
	}
	for name := range obj {
		if _, ok := d.byName[name]; !ok {
			return fmt.Errorf("jsonl: line %d: unknown column %q (schema columns: %s)", d.line, name, fieldNames(d.schema))
		}
	}
	var missing []string
	for _, name := range d.required {
		if _, ok := obj[name]; !ok {
			missing = append(missing, strconv.Quote(name))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("jsonl: line %d: missing column(s) %s%s", d.line, strings.Join(missing, ", "), d.requiredHint)
	}
	clear(seen)
	for i, f := range d.schema.Fields() {
		val, present := obj[f.Name]
		if d.byName[f.Name] != i {
			present = false // duplicate field name in the schema: the first one takes the value
		}
		if !present || val == nil {
			if !f.Nullable {
				return fmt.Errorf("jsonl: line %d, column %q: null or missing value for a non-nullable column", d.line, f.Name)
			}
			b.Field(i).AppendNull()
			continue
		}
		if err := appendJSON(b.Field(i), f.Type, val); err != nil {
			return fmt.Errorf("jsonl: line %d, column %q: %w", d.line, f.Name, err)
		}
	}
	return nil
}

// invalidUTF8At is the offset of the first byte of b that is not valid UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func mismatch(want string, v any) error {
	return fmt.Errorf("expected %s, got %s", want, jsonKind(v))
}

func numberText(v any) (string, error) {
	n, ok := v.(json.Number)
	if !ok {
		return "", mismatch("a number", v)
	}
	return string(n), nil
}

func parseIntJSON(v any, bits int) (int64, error) {
	s, err := numberText(v)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("invalid int%d %s", bits, s)
	}
	return n, nil
}

func parseUintJSON(v any, bits int) (uint64, error) {
	s, err := numberText(v)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("invalid uint%d %s", bits, s)
	}
	return n, nil
}

func parseFloatJSON(v any, bits int) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), bits)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("invalid float %s", x)
		}
		return f, nil
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf(`invalid float %q (strings allowed: "NaN", "Infinity", "-Infinity")`, x)
	}
	return 0, mismatch("a number", v)
}

func stringJSON(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", mismatch("a string", v)
	}
	return s, nil
}

func decimalJSON(v any, prec, scale int32) (*big.Int, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	default:
		return nil, mismatch("a decimal string or number", v)
	}
	return ParseDecimal(s, prec, scale)
}

func binaryJSON(v any) ([]byte, error) {
	s, err := stringJSON(v)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		// Accept unpadded input too; the encoder always pads.
		if b2, err2 := base64.RawStdEncoding.DecodeString(s); err2 == nil {
			return b2, nil
		}
		return nil, fmt.Errorf("invalid base64 %q: %w", s, err)
	}
	return b, nil
}

func timestampJSON(v any, unit arrow.TimeUnit) (int64, error) {
	perSec := unitsPerSecond(unit)
	switch x := v.(type) {
	case json.Number:
		// A bare number is ambiguous (seconds? milliseconds? microseconds?): taking it as
		// the column's unit turned epoch milliseconds into dates in 1970.
		return 0, fmt.Errorf("a JSON number (%s) is not a timestamp: write an RFC 3339 string, e.g. \"2023-11-14T22:13:20Z\" or \"2023-11-14T23:13:20.123456+01:00\"", x)
	case string:
		secs, nanos, err := ParseTimestamp(x)
		if err != nil {
			return 0, err
		}
		n, ok := TimestampToUnit(secs, nanos, perSec)
		if !ok {
			return 0, fmt.Errorf("timestamp %q out of range for unit %s", x, unit)
		}
		return n, nil
	}
	return 0, mismatch("a timestamp string", v)
}

func timeOfDayJSON(v any, unit arrow.TimeUnit) (int64, error) {
	s, err := stringJSON(v)
	if err != nil {
		return 0, err
	}
	n, err := ParseTimeOfDay(s)
	if err != nil {
		return 0, err
	}
	return n / (1_000_000_000 / unitsPerSecond(unit)), nil
}

func dateJSON(v any) (int64, error) {
	if n, ok := v.(json.Number); ok {
		return 0, fmt.Errorf("a JSON number (%s) is not a date: write an RFC 3339 full-date string, e.g. \"2023-11-14\"", n)
	}
	s, err := stringJSON(v)
	if err != nil {
		return 0, err
	}
	return ParseDate(s)
}

// listBuilder covers list, large list and fixed-size list builders.
type listBuilder interface {
	array.Builder
	Append(bool)
	ValueBuilder() array.Builder
}

// appendJSON appends one non-null JSON value to b, whose type is dt.
func appendJSON(b array.Builder, dt arrow.DataType, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.NullBuilder:
		return mismatch("null", v)
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return mismatch("a boolean", v)
		}
		b.Append(x)
	case *array.Int8Builder:
		n, err := parseIntJSON(v, 8)
		if err != nil {
			return err
		}
		b.Append(int8(n))
	case *array.Int16Builder:
		n, err := parseIntJSON(v, 16)
		if err != nil {
			return err
		}
		b.Append(int16(n))
	case *array.Int32Builder:
		n, err := parseIntJSON(v, 32)
		if err != nil {
			return err
		}
		b.Append(int32(n))
	case *array.Int64Builder:
		n, err := parseIntJSON(v, 64)
		if err != nil {
			return err
		}
		b.Append(n)
	case *array.Uint8Builder:
		n, err := parseUintJSON(v, 8)
		if err != nil {
			return err
		}
		b.Append(uint8(n))
	case *array.Uint16Builder:
		n, err := parseUintJSON(v, 16)
		if err != nil {
			return err
		}
		b.Append(uint16(n))
	case *array.Uint32Builder:
		n, err := parseUintJSON(v, 32)
		if err != nil {
			return err
		}
		b.Append(uint32(n))
	case *array.Uint64Builder:
		n, err := parseUintJSON(v, 64)
		if err != nil {
			return err
		}
		b.Append(n)
	case *array.Float16Builder:
		f, err := parseFloatJSON(v, 32)
		if err != nil {
			return err
		}
		b.Append(float16.New(float32(f)))
	case *array.Float32Builder:
		f, err := parseFloatJSON(v, 32)
		if err != nil {
			return err
		}
		b.Append(float32(f))
	case *array.Float64Builder:
		f, err := parseFloatJSON(v, 64)
		if err != nil {
			return err
		}
		b.Append(f)
	case *array.Decimal32Builder:
		t := dt.(*arrow.Decimal32Type)
		n, err := decimalJSON(v, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		if !n.IsInt64() || n.Int64() > math.MaxInt32 || n.Int64() < math.MinInt32 {
			return fmt.Errorf("decimal %v out of range for %s", v, dt)
		}
		b.Append(decimal.Decimal32(n.Int64()))
	case *array.Decimal64Builder:
		t := dt.(*arrow.Decimal64Type)
		n, err := decimalJSON(v, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		if !n.IsInt64() {
			return fmt.Errorf("decimal %v out of range for %s", v, dt)
		}
		b.Append(decimal.Decimal64(n.Int64()))
	case *array.Decimal128Builder:
		t := dt.(*arrow.Decimal128Type)
		n, err := decimalJSON(v, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		if n.BitLen() > 127 {
			return fmt.Errorf("decimal %v out of range for %s", v, dt)
		}
		b.Append(decimal128.FromBigInt(n))
	case *array.Decimal256Builder:
		t := dt.(*arrow.Decimal256Type)
		n, err := decimalJSON(v, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		if n.BitLen() > 255 {
			return fmt.Errorf("decimal %v out of range for %s", v, dt)
		}
		b.Append(decimal256.FromBigInt(n))
	case *array.StringBuilder:
		s, err := stringJSON(v)
		if err != nil {
			return err
		}
		b.Append(s)
	case *array.LargeStringBuilder:
		s, err := stringJSON(v)
		if err != nil {
			return err
		}
		b.Append(s)
	case *array.StringViewBuilder:
		s, err := stringJSON(v)
		if err != nil {
			return err
		}
		b.Append(s)
	case *array.BinaryBuilder: // binary and large binary
		p, err := binaryJSON(v)
		if err != nil {
			return err
		}
		b.Append(p)
	case *array.BinaryViewBuilder:
		p, err := binaryJSON(v)
		if err != nil {
			return err
		}
		b.Append(p)
	case *array.FixedSizeBinaryBuilder:
		p, err := binaryJSON(v)
		if err != nil {
			return err
		}
		if w := dt.(*arrow.FixedSizeBinaryType).ByteWidth; len(p) != w {
			return fmt.Errorf("binary value has %d bytes, %s needs %d", len(p), dt, w)
		}
		b.Append(p)
	case *array.Date32Builder:
		days, err := dateJSON(v)
		if err != nil {
			return err
		}
		if days > math.MaxInt32 || days < math.MinInt32 {
			return fmt.Errorf("date %v out of range for date32", v)
		}
		b.Append(arrow.Date32(days))
	case *array.Date64Builder:
		days, err := dateJSON(v)
		if err != nil {
			return err
		}
		if days > math.MaxInt64/86_400_000 || days < math.MinInt64/86_400_000 {
			return fmt.Errorf("date %v out of range for date64", v)
		}
		b.Append(arrow.Date64(days * 86_400_000))
	case *array.TimestampBuilder:
		n, err := timestampJSON(v, dt.(*arrow.TimestampType).Unit)
		if err != nil {
			return err
		}
		b.Append(arrow.Timestamp(n))
	case *array.Time32Builder:
		n, err := timeOfDayJSON(v, dt.(*arrow.Time32Type).Unit)
		if err != nil {
			return err
		}
		b.Append(arrow.Time32(n))
	case *array.Time64Builder:
		n, err := timeOfDayJSON(v, dt.(*arrow.Time64Type).Unit)
		if err != nil {
			return err
		}
		b.Append(arrow.Time64(n))
	case *array.MapBuilder:
		return appendMapJSON(b, dt.(*arrow.MapType), v)
	case listBuilder:
		elems, ok := v.([]any)
		if !ok {
			return mismatch("an array", v)
		}
		lt := dt.(arrow.ListLikeType)
		if fl, ok := dt.(*arrow.FixedSizeListType); ok && int32(len(elems)) != fl.Len() {
			return fmt.Errorf("array has %d elements, %s needs %d", len(elems), dt, fl.Len())
		}
		b.Append(true)
		vb := b.ValueBuilder()
		elem := lt.ElemField()
		for k, e := range elems {
			if e == nil && !elem.Nullable {
				return fmt.Errorf("[%d]: null in a non-nullable list element", k)
			}
			if err := appendJSON(vb, elem.Type, e); err != nil {
				return fmt.Errorf("[%d]: %w", k, err)
			}
		}
	case *array.StructBuilder:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch("an object", v)
		}
		st := dt.(*arrow.StructType)
		for name := range obj {
			if _, ok := st.FieldIdx(name); !ok {
				return fmt.Errorf("unknown struct field %q", name)
			}
		}
		b.Append(true)
		for k, f := range st.Fields() {
			fv := obj[f.Name]
			if fv == nil && !f.Nullable {
				return fmt.Errorf(".%s: null or missing value for a non-nullable field", f.Name)
			}
			if err := appendJSON(b.FieldBuilder(k), f.Type, fv); err != nil {
				return fmt.Errorf(".%s: %w", f.Name, err)
			}
		}
	case *array.BinaryDictionaryBuilder:
		vt := dt.(*arrow.DictionaryType).ValueType
		var err error
		switch vt.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			var s string
			if s, err = stringJSON(v); err == nil {
				err = b.AppendString(s)
			}
		default:
			var p []byte
			if p, err = binaryJSON(v); err == nil {
				err = b.Append(p)
			}
		}
		return err
	default:
		return fmt.Errorf("decoding %s is not supported", dt)
	}
	return nil
}

func appendMapJSON(b *array.MapBuilder, mt *arrow.MapType, v any) error {
	kb, ib := b.KeyBuilder(), b.ItemBuilder()
	keyType, item := mt.KeyType(), mt.ItemField()
	appendEntry := func(where string, k, val any) error {
		if k == nil {
			return fmt.Errorf("%s: null map key", where)
		}
		if val == nil && !item.Nullable {
			return fmt.Errorf("%s: null in a non-nullable map value", where)
		}
		if err := appendJSON(kb, keyType, k); err != nil {
			return fmt.Errorf("%s.key: %w", where, err)
		}
		if err := appendJSON(ib, item.Type, val); err != nil {
			return fmt.Errorf("%s.value: %w", where, err)
		}
		return nil
	}
	switch x := v.(type) {
	case []any:
		b.Append(true)
		for k, e := range x {
			entry, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf(`[%d]: expected {"key":...,"value":...}, got %s`, k, jsonKind(e))
			}
			for name := range entry {
				if name != "key" && name != "value" {
					return fmt.Errorf(`[%d]: unexpected map entry field %q (want "key" and "value")`, k, name)
				}
			}
			if err := appendEntry(fmt.Sprintf("[%d]", k), entry["key"], entry["value"]); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if id := keyType.ID(); id != arrow.STRING && id != arrow.LARGE_STRING && id != arrow.STRING_VIEW {
			return fmt.Errorf("a JSON object can only give a map with string keys, not %s", keyType)
		}
		b.Append(true)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		// Deterministic entry order; the encoder sorts on output anyway.
		slices.Sort(keys)
		for _, k := range keys {
			if err := appendEntry(strconv.Quote(k), k, x[k]); err != nil {
				return err
			}
		}
		return nil
	}
	return mismatch("an array of map entries", v)
}
