// Package jsonl implements the canonical JSON Lines encoding of Arrow record batches used by
// `hudi read --format jsonl` and by the conformance fixtures (see shared/fixtures/README.md,
// "Canonical JSON encoding"), its inverse (Decode, for `hudi write --input`), and the plain text
// renderers (WriteTable, WriteCSV) that show values in the same canonical text.
//
// Canonical encoding, per Arrow type:
//
//	null                         null (a null struct is null, not an object of nulls)
//	bool                         true / false
//	int8..int64, uint8..uint64   integer, exact
//	float16/32/64                shortest round-trip decimal at the type's width, Python-repr
//	                             layout ("1.0", "1e-45"); NaN/±Inf as "NaN", "Infinity", "-Infinity"
//	decimal32/64/128/256(p,s)    string, plain notation, exactly s fraction digits ("-1.50")
//	string, large_string, view   string
//	binary, large, fixed, view   string, standard base64 with padding
//	date32, date64               "YYYY-MM-DD"
//	timestamp (any unit, any tz) "YYYY-MM-DDTHH:MM:SS.ffffffZ" (UTC, micros, floor of finer units)
//	time32, time64               "HH:MM:SS.ffffff"
//	list, large_list, fixed list array in stored order
//	struct                       object with every field in schema order
//	map                          array of {"key":k,"value":v} sorted by key (string keys by code
//	                             point, other keys by their canonical JSON text)
//	dictionary                   the decoded value
//	extension                    the storage value
//	anything else                the array's ValueStr text as a JSON string
package jsonl

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// MetaColumnPrefix marks Hudi meta columns (_hoodie_commit_time, ...).
const MetaColumnPrefix = "_hoodie_"

// Options selects the columns an Encoder writes.
type Options struct {
	// DropMetaColumns drops columns whose name starts with "_hoodie_".
	DropMetaColumns bool
	// Columns, when non-empty, writes only these columns, in this order. A name that is not in
	// the record's schema is an error. DropMetaColumns still applies.
	Columns []string
}

// Encoder writes record batches as canonical JSON Lines. It is not safe for concurrent use.
type Encoder struct {
	w    *bufio.Writer
	opts Options
	buf  []byte

	// The column plan depends only on the schema; it is recompiled when the schema changes.
	schema *arrow.Schema
	cols   []int    // record column indices to write
	keys   [][]byte // `{"name":` for the first column, `,"name":` for the others
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	return &Encoder{w: bufio.NewWriterSize(w, 64<<10), opts: opts}
}

func (e *Encoder) plan(schema *arrow.Schema) error {
	if e.schema != nil && (e.schema == schema || e.schema.Equal(schema)) {
		return nil
	}
	var cols []int
	if len(e.opts.Columns) > 0 {
		for _, name := range e.opts.Columns {
			idx := schema.FieldIndices(name)
			if len(idx) == 0 {
				return fmt.Errorf("jsonl: column %q not in schema (columns: %s)", name, fieldNames(schema))
			}
			cols = append(cols, idx[0])
		}
	} else {
		for i := range schema.NumFields() {
			cols = append(cols, i)
		}
	}
	e.cols = e.cols[:0]
	e.keys = e.keys[:0]
	for _, c := range cols {
		name := schema.Field(c).Name
		if e.opts.DropMetaColumns && strings.HasPrefix(name, MetaColumnPrefix) {
			continue
		}
		sep := byte(',')
		if len(e.cols) == 0 {
			sep = '{'
		}
		key := appendJSONString([]byte{sep}, name)
		e.cols = append(e.cols, c)
		e.keys = append(e.keys, append(key, ':'))
	}
	e.schema = schema
	return nil
}

func fieldNames(schema *arrow.Schema) string {
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// WriteRecord writes one line per row of rec.
func (e *Encoder) WriteRecord(rec arrow.RecordBatch) error {
	if err := e.plan(rec.Schema()); err != nil {
		return err
	}
	// Appenders bind to this batch's arrays; building them costs O(columns), not O(rows).
	apps := make([]appender, len(e.cols))
	for k, c := range e.cols {
		apps[k] = newAppender(rec.Column(c))
	}
	rows := int(rec.NumRows())
	for i := range rows {
		buf := e.buf[:0]
		if len(apps) == 0 {
			buf = append(buf, '{')
		}
		for k, app := range apps {
			buf = append(buf, e.keys[k]...)
			buf = app(buf, i)
		}
		buf = append(buf, '}', '\n')
		e.buf = buf
		if _, err := e.w.Write(buf); err != nil {
			return fmt.Errorf("jsonl: write row %d: %w", i, err)
		}
	}
	return nil
}

// Flush writes buffered output to the underlying writer.
func (e *Encoder) Flush() error {
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("jsonl: flush: %w", err)
	}
	return nil
}

// AppendValue appends the canonical JSON of arr[i] to dst. It is meant for occasional use (other
// renderers, tests); bulk output should go through Encoder, which binds each column once.
func AppendValue(dst []byte, arr arrow.Array, i int) []byte {
	return newAppender(arr)(dst, i)
}

// appender appends the canonical JSON of row i of the array it was built for.
type appender func(dst []byte, i int) []byte

func appendNull(dst []byte) []byte { return append(dst, "null"...) }

// withNulls wraps a value appender with the validity check; arrays without nulls skip it.
func withNulls(arr arrow.Array, f appender) appender {
	if arr.NullN() == 0 {
		return f
	}
	return func(dst []byte, i int) []byte {
		if arr.IsNull(i) {
			return appendNull(dst)
		}
		return f(dst, i)
	}
}

func newAppender(arr arrow.Array) appender {
	switch a := arr.(type) {
	case *array.Null:
		return func(dst []byte, _ int) []byte { return appendNull(dst) }
	case *array.Boolean:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendBool(dst, a.Value(i)) })
	case *array.Int8:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) })
	case *array.Int16:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) })
	case *array.Int32:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) })
	case *array.Int64:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, a.Value(i), 10) })
	case *array.Uint8:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendUint(dst, uint64(a.Value(i)), 10) })
	case *array.Uint16:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendUint(dst, uint64(a.Value(i)), 10) })
	case *array.Uint32:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendUint(dst, uint64(a.Value(i)), 10) })
	case *array.Uint64:
		return withNulls(a, func(dst []byte, i int) []byte { return strconv.AppendUint(dst, a.Value(i), 10) })
	case *array.Float16:
		return withNulls(a, func(dst []byte, i int) []byte { return appendFloat16(dst, a.Value(i)) })
	case *array.Float32:
		return withNulls(a, func(dst []byte, i int) []byte { return appendFloat(dst, float64(a.Value(i)), 32) })
	case *array.Float64:
		return withNulls(a, func(dst []byte, i int) []byte { return appendFloat(dst, a.Value(i), 64) })
	case *array.Decimal32:
		scale := a.DataType().(*arrow.Decimal32Type).Scale
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '"')
			return append(appendDecimalInt64(dst, int64(a.Value(i)), scale), '"')
		})
	case *array.Decimal64:
		scale := a.DataType().(*arrow.Decimal64Type).Scale
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '"')
			return append(appendDecimalInt64(dst, int64(a.Value(i)), scale), '"')
		})
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return withNulls(a, func(dst []byte, i int) []byte {
			v := a.Value(i)
			dst = append(dst, '"')
			return append(appendDecimal128(dst, v.HighBits(), v.LowBits(), scale), '"')
		})
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '"')
			return append(appendDecimalBig(dst, a.Value(i).BigInt(), scale), '"')
		})
	case *array.String:
		return withNulls(a, func(dst []byte, i int) []byte { return appendJSONString(dst, a.Value(i)) })
	case *array.LargeString:
		return withNulls(a, func(dst []byte, i int) []byte { return appendJSONString(dst, a.Value(i)) })
	case *array.StringView:
		return withNulls(a, func(dst []byte, i int) []byte { return appendJSONString(dst, a.Value(i)) })
	case *array.Binary:
		return withNulls(a, func(dst []byte, i int) []byte { return appendBase64(dst, a.Value(i)) })
	case *array.LargeBinary:
		return withNulls(a, func(dst []byte, i int) []byte { return appendBase64(dst, a.Value(i)) })
	case *array.BinaryView:
		return withNulls(a, func(dst []byte, i int) []byte { return appendBase64(dst, a.Value(i)) })
	case *array.FixedSizeBinary:
		return withNulls(a, func(dst []byte, i int) []byte { return appendBase64(dst, a.Value(i)) })
	case *array.Date32:
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '"')
			return append(appendDateText(dst, int64(a.Value(i))), '"')
		})
	case *array.Date64:
		return withNulls(a, func(dst []byte, i int) []byte {
			days, _ := floorDiv(int64(a.Value(i)), 86_400_000)
			dst = append(dst, '"')
			return append(appendDateText(dst, days), '"')
		})
	case *array.Timestamp:
		perSec := unitsPerSecond(a.DataType().(*arrow.TimestampType).Unit)
		return withNulls(a, func(dst []byte, i int) []byte {
			secs, frac := floorDiv(int64(a.Value(i)), perSec)
			dst = append(dst, '"')
			return append(appendTimestampText(dst, secs, fracToMicros(frac, perSec)), '"')
		})
	case *array.Time32:
		perSec := unitsPerSecond(a.DataType().(*arrow.Time32Type).Unit)
		return withNulls(a, func(dst []byte, i int) []byte {
			secs, frac := floorDiv(int64(a.Value(i)), perSec)
			dst = append(dst, '"')
			return append(appendTimeOfDay(dst, secs*1_000_000+fracToMicros(frac, perSec)), '"')
		})
	case *array.Time64:
		perSec := unitsPerSecond(a.DataType().(*arrow.Time64Type).Unit)
		return withNulls(a, func(dst []byte, i int) []byte {
			secs, frac := floorDiv(int64(a.Value(i)), perSec)
			dst = append(dst, '"')
			return append(appendTimeOfDay(dst, secs*1_000_000+fracToMicros(frac, perSec)), '"')
		})
	case *array.Map:
		return newMapAppender(a)
	case array.ListLike: // list, large list, fixed-size list, list views
		child := newAppender(a.ListValues())
		return withNulls(a, func(dst []byte, i int) []byte {
			start, end := a.ValueOffsets(i)
			dst = append(dst, '[')
			for j := start; j < end; j++ {
				if j > start {
					dst = append(dst, ',')
				}
				dst = child(dst, int(j))
			}
			return append(dst, ']')
		})
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		n := a.NumField()
		keys := make([][]byte, n)
		fields := make([]appender, n)
		for k := range n {
			sep := byte(',')
			if k == 0 {
				sep = '{'
			}
			keys[k] = append(appendJSONString([]byte{sep}, st.Field(k).Name), ':')
			fields[k] = newAppender(a.Field(k))
		}
		return withNulls(a, func(dst []byte, i int) []byte {
			if n == 0 {
				return append(dst, '{', '}')
			}
			for k, f := range fields {
				dst = append(dst, keys[k]...)
				dst = f(dst, i)
			}
			return append(dst, '}')
		})
	case *array.Dictionary:
		values := newAppender(a.Dictionary())
		return withNulls(a, func(dst []byte, i int) []byte { return values(dst, a.GetValueIndex(i)) })
	case array.ExtensionArray:
		return newAppender(a.Storage())
	}
	return withNulls(arr, func(dst []byte, i int) []byte { return appendJSONString(dst, arr.ValueStr(i)) })
}

func appendFloat16(dst []byte, v float16.Num) []byte {
	// float16 → float32 is exact, and the shortest float32 text also identifies the float16.
	return appendFloat(dst, float64(v.Float32()), 32)
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1_000
	case arrow.Microsecond:
		return 1_000_000
	default:
		return 1_000_000_000
	}
}

// fracToMicros converts a sub-second remainder in 1/perSec units to micros (nanos truncate,
// which together with floorDiv is the floor of the instant).
func fracToMicros(frac, perSec int64) int64 {
	if perSec >= 1_000_000 {
		return frac / (perSec / 1_000_000)
	}
	return frac * (1_000_000 / perSec)
}

// newMapAppender writes a map as [{"key":k,"value":v},...] sorted by key. Sorting happens per row
// in reusable scratch space; rows already in order (the usual case) skip the sort.
func newMapAppender(a *array.Map) appender {
	keysArr, itemsArr := a.Keys(), a.Items()
	keyApp, itemApp := newAppender(keysArr), newAppender(itemsArr)
	keyText := stringKeyFunc(keysArr)
	var (
		order []int
		texts []string
		raw   []byte
	)
	if keyText == nil {
		// Non-string keys sort by canonical JSON text.
		keyText = func(j int) string {
			raw = keyApp(raw[:0], j)
			return string(raw)
		}
	}
	return withNulls(a, func(dst []byte, i int) []byte {
		start, end := a.ValueOffsets(i)
		n := int(end - start)
		order, texts = order[:0], texts[:0]
		sorted := true
		for j := range n {
			order = append(order, int(start)+j)
			texts = append(texts, keyText(int(start)+j))
			if j > 0 && texts[j] < texts[j-1] {
				sorted = false
			}
		}
		if !sorted {
			idx := make([]int, n)
			for j := range idx {
				idx[j] = j
			}
			slices.SortStableFunc(idx, func(x, y int) int { return strings.Compare(texts[x], texts[y]) })
			for j, k := range idx {
				order[j] = int(start) + k
			}
		}
		dst = append(dst, '[')
		for j, row := range order {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			dst = keyApp(dst, row)
			dst = append(dst, `,"value":`...)
			dst = itemApp(dst, row)
			dst = append(dst, '}')
		}
		return append(dst, ']')
	})
}

// stringKeyFunc returns the raw string of string-typed map keys (compared by code point, which
// for valid UTF-8 is byte order), or nil for other key types.
func stringKeyFunc(keys arrow.Array) func(int) string {
	switch k := keys.(type) {
	case *array.String:
		return k.Value
	case *array.LargeString:
		return k.Value
	case *array.StringView:
		return k.Value
	case *array.Dictionary:
		if f := stringKeyFunc(k.Dictionary()); f != nil {
			return func(j int) string { return f(k.GetValueIndex(j)) }
		}
	}
	return nil
}
