package cli

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/format/jsonl"
)

// tableSampleRows is how many rows the table format buffers to size its columns: the
// rest stream, and a longer value later just widens its own line. Memory stays bounded
// by the sample and one batch, whatever the table's size.
const tableSampleRows = 1000

// rowPrinter prints batches as they come, in a human-facing format:
//   - table: aligned columns (widths from the first tableSampleRows rows), a header and a
//     rule, numbers right-aligned — the layout of jsonl.WriteTable;
//   - vertical: one block per row, "name | value" lines (for rows wider than the screen);
//   - csv: RFC 4180, nulls as empty fields, as jsonl.WriteCSV.
type rowPrinter struct {
	w      *bufio.Writer
	cw     *csv.Writer
	format string
	names  []string
	right  []bool
	widths []int
	sample [][]string
	sized  bool
	rows   int
	buf    []byte
}

func newRowPrinter(w io.Writer, sc *arrow.Schema, format string) *rowPrinter {
	p := &rowPrinter{w: bufio.NewWriterSize(w, 64<<10), format: format}
	for _, f := range sc.Fields() {
		p.names = append(p.names, f.Name)
		p.right = append(p.right, isNumeric(f.Type))
		p.widths = append(p.widths, utf8.RuneCountInString(f.Name))
	}
	if format == "csv" {
		p.cw = csv.NewWriter(p.w)
	}
	return p
}

func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// cells renders row i of the columns (matched to the printer's names by position).
func (p *rowPrinter) cells(cols []arrow.Array, i int, null string) []string {
	row := make([]string, len(cols))
	for k, c := range cols {
		var ok bool
		p.buf, ok = jsonl.AppendText(p.buf[:0], c, i)
		if !ok {
			row[k] = null
			continue
		}
		row[k] = string(p.buf)
		if p.format != "csv" {
			row[k] = tableSafe(row[k])
		}
	}
	return row
}

// columns maps the printer's names to rec's columns.
func (p *rowPrinter) columns(rec arrow.Record) ([]arrow.Array, error) {
	cols := make([]arrow.Array, len(p.names))
	for k, n := range p.names {
		idx := rec.Schema().FieldIndices(n)
		if len(idx) == 0 {
			return nil, fmt.Errorf("column %q not in the batch", n)
		}
		cols[k] = rec.Column(idx[0])
	}
	return cols, nil
}

func (p *rowPrinter) write(rec arrow.Record) error {
	cols, err := p.columns(rec)
	if err != nil {
		return err
	}
	for i := range int(rec.NumRows()) {
		p.rows++
		switch p.format {
		case "csv":
			if p.rows == 1 {
				if err := p.cw.Write(p.names); err != nil {
					return err
				}
			}
			if err := p.cw.Write(p.cells(cols, i, "")); err != nil {
				return err
			}
		case "vertical":
			p.vertical(p.cells(cols, i, jsonl.NullText))
		default:
			row := p.cells(cols, i, jsonl.NullText)
			if !p.sized {
				for k, c := range row {
					p.widths[k] = max(p.widths[k], utf8.RuneCountInString(c))
				}
				p.sample = append(p.sample, row)
				if len(p.sample) >= tableSampleRows {
					p.flushSample()
				}
				continue
			}
			p.line(row)
		}
	}
	return nil
}

// flushSample prints the header and the sampled rows; later rows print as they come.
func (p *rowPrinter) flushSample() {
	p.sized = true
	p.line(p.names)
	rule := make([]string, len(p.names))
	for k := range rule {
		rule[k] = strings.Repeat("-", p.widths[k])
	}
	p.line(rule)
	for _, r := range p.sample {
		p.line(r)
	}
	p.sample = nil
}

func (p *rowPrinter) line(cells []string) {
	for k, c := range cells {
		if k > 0 {
			p.w.WriteString(" | ")
		}
		pad := strings.Repeat(" ", max(0, p.widths[k]-utf8.RuneCountInString(c)))
		if p.right[k] {
			p.w.WriteString(pad)
			p.w.WriteString(c)
		} else {
			p.w.WriteString(c)
			if k < len(cells)-1 {
				p.w.WriteString(pad)
			}
		}
	}
	p.w.WriteByte('\n')
}

func (p *rowPrinter) vertical(cells []string) {
	width := 0
	for _, n := range p.names {
		width = max(width, utf8.RuneCountInString(n))
	}
	fmt.Fprintf(p.w, "-[ RECORD %d ]%s\n", p.rows, strings.Repeat("-", max(3, width+3-len(strconv.Itoa(p.rows)))))
	for k, c := range cells {
		n := p.names[k]
		p.w.WriteString(n)
		p.w.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(n)))
		p.w.WriteString(" | ")
		p.w.WriteString(c)
		p.w.WriteByte('\n')
	}
}

// close prints what is still buffered (a table of fewer rows than the sample, or a header
// alone) and flushes.
func (p *rowPrinter) close() error {
	switch p.format {
	case "csv":
		if p.rows == 0 {
			if err := p.cw.Write(p.names); err != nil {
				return err
			}
		}
		p.cw.Flush()
		if err := p.cw.Error(); err != nil {
			return err
		}
	case "vertical":
	default:
		if !p.sized {
			p.flushSample()
		}
	}
	return p.w.Flush()
}

// tableSafe keeps one row per line: control characters inside values would break the
// layout (as jsonl.WriteTable).
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
