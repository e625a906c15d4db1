package jsonl

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// NullText is how WriteTable shows a null value.
const NullText = "NULL"

// AppendText appends the canonical text of arr[i] for human-facing renderers: the canonical JSON
// with the quotes (and escapes) of a top-level JSON string removed, so strings, decimals, dates,
// timestamps and base64 binary read naturally; numbers, booleans and nested values are their
// JSON. A null appends nothing and reports false.
func AppendText(dst []byte, arr arrow.Array, i int) ([]byte, bool) {
	if arr.IsNull(i) {
		return dst, false
	}
	return appendUnquoted(dst, newAppender(arr), i), true
}

// appendUnquoted renders row i and strips a top-level JSON string to its raw text.
func appendUnquoted(dst []byte, app appender, i int) []byte {
	start := len(dst)
	dst = app(dst, i)
	v := dst[start:]
	if len(v) < 2 || v[0] != '"' {
		return dst
	}
	if !hasEscape(v[1 : len(v)-1]) {
		n := copy(dst[start:], v[1:len(v)-1])
		return dst[:start+n]
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return dst // cannot happen for our own output; keep the JSON rather than lose the value
	}
	return append(dst[:start], s...)
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// columnsFor maps the schema's fields to the record's columns by name, so a caller can render a
// projection of the records by passing a narrower schema.
func columnsFor(schema *arrow.Schema, rec arrow.RecordBatch) ([]arrow.Array, error) {
	cols := make([]arrow.Array, schema.NumFields())
	for k, f := range schema.Fields() {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("jsonl: column %q not in record (columns: %s)", f.Name, fieldNames(rec.Schema()))
		}
		cols[k] = rec.Column(idx[0])
	}
	return cols, nil
}

// WriteTable writes recs as an aligned text table: a header of the schema's column names, a
// rule, then one line per row with values as canonical text (NULL for null). Numeric columns are
// right-aligned. The whole result is buffered to compute column widths, so this is meant for
// interactive output, not bulk export. Columns are matched to the records by name.
func WriteTable(w io.Writer, schema *arrow.Schema, recs []arrow.RecordBatch) error {
	n := schema.NumFields()
	widths := make([]int, n)
	rightAlign := make([]bool, n)
	for k, f := range schema.Fields() {
		widths[k] = utf8.RuneCountInString(f.Name)
		rightAlign[k] = isNumeric(f.Type)
	}
	var rows [][]string
	var buf []byte
	for _, rec := range recs {
		cols, err := columnsFor(schema, rec)
		if err != nil {
			return err
		}
		apps := make([]appender, n)
		for k, c := range cols {
			apps[k] = newAppender(c)
		}
		for i := range int(rec.NumRows()) {
			row := make([]string, n)
			for k, c := range cols {
				if c.IsNull(i) {
					row[k] = NullText
				} else {
					buf = appendUnquoted(buf[:0], apps[k], i)
					row[k] = tableSafe(string(buf))
				}
				widths[k] = max(widths[k], utf8.RuneCountInString(row[k]))
			}
			rows = append(rows, row)
		}
	}
	bw := bufio.NewWriter(w)
	line := make([]string, n)
	for k, f := range schema.Fields() {
		line[k] = f.Name
	}
	writeTableLine(bw, line, widths, rightAlign)
	for k := range line {
		line[k] = strings.Repeat("-", widths[k])
	}
	writeTableLine(bw, line, widths, rightAlign)
	for _, row := range rows {
		writeTableLine(bw, row, widths, rightAlign)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("jsonl: write table: %w", err)
	}
	return nil
}

func writeTableLine(w *bufio.Writer, cells []string, widths []int, right []bool) {
	var b strings.Builder
	for k, c := range cells {
		if k > 0 {
			b.WriteString(" | ")
		}
		pad := strings.Repeat(" ", widths[k]-utf8.RuneCountInString(c))
		if right[k] {
			b.WriteString(pad)
			b.WriteString(c)
		} else {
			b.WriteString(c)
			if k < len(cells)-1 {
				b.WriteString(pad)
			}
		}
	}
	b.WriteByte('\n')
	w.WriteString(b.String())
}

// tableSafe keeps one row per line: control characters inside values would break alignment.
func tableSafe(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL32, arrow.DECIMAL64,
		arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	case arrow.DICTIONARY:
		return isNumeric(t.(*arrow.DictionaryType).ValueType)
	}
	return false
}

// WriteCSV writes recs as RFC 4180 CSV: a header of the schema's column names, then one record
// per row with values as canonical text. Nulls are empty fields (CSV has no null; an empty string
// is indistinguishable, as in most CSV exports). Columns are matched to the records by name.
func WriteCSV(w io.Writer, schema *arrow.Schema, recs []arrow.RecordBatch) error {
	cw := csv.NewWriter(w)
	n := schema.NumFields()
	fields := make([]string, n)
	for k, f := range schema.Fields() {
		fields[k] = f.Name
	}
	if err := cw.Write(fields); err != nil {
		return fmt.Errorf("jsonl: write csv header: %w", err)
	}
	var buf []byte
	for _, rec := range recs {
		cols, err := columnsFor(schema, rec)
		if err != nil {
			return err
		}
		apps := make([]appender, n)
		for k, c := range cols {
			apps[k] = newAppender(c)
		}
		for i := range int(rec.NumRows()) {
			for k, c := range cols {
				if c.IsNull(i) {
					fields[k] = ""
					continue
				}
				buf = appendUnquoted(buf[:0], apps[k], i)
				fields[k] = string(buf)
			}
			if err := cw.Write(fields); err != nil {
				return fmt.Errorf("jsonl: write csv row %d: %w", i, err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("jsonl: write csv: %w", err)
	}
	return nil
}
