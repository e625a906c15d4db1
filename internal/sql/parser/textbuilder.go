package parser

import "strings"

// textBuilder accumulates translated DuckDB text with table references cut out: the
// SQLText under construction. Rewrites that reorder arguments (MAP(k, v, …)) build
// each argument in its own builder and splice them, references and all.
type textBuilder struct {
	segs []string
	cur  strings.Builder
	refs []TableRef
	// trimLead drops whitespace before the first text written, so a fragment starts at
	// its first token whatever preceded it in the script.
	trimLead bool
}

func (b *textBuilder) write(s string) {
	if b.trimLead {
		s = strings.TrimLeft(s, " \t\r\n\f\v")
		if s == "" {
			return
		}
		b.trimLead = false
	}
	b.cur.WriteString(s)
}

func (b *textBuilder) ref(r TableRef) {
	b.trimLead = false
	b.segs = append(b.segs, b.cur.String())
	b.cur.Reset()
	b.refs = append(b.refs, r)
}

// splice appends everything o holds.
func (b *textBuilder) splice(o *textBuilder) {
	for i, s := range o.segs {
		b.write(s)
		b.ref(o.refs[i])
	}
	b.write(o.cur.String())
}

// empty reports whether nothing was written.
func (b *textBuilder) empty() bool { return len(b.refs) == 0 && b.cur.Len() == 0 }

func (b *textBuilder) text(pos Pos) SQLText {
	segs := append(append([]string(nil), b.segs...), b.cur.String())
	return SQLText{Segments: segs, Refs: append([]TableRef(nil), b.refs...), Pos: pos}
}
