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
	// marks are where the translation of each token walked into this builder starts
	// (token index → position), so that a subscript can copy the value it subscripts.
	marks map[int]mark
}

// mark is a position in a textBuilder: after refs references, at byte off of the text
// that follows them.
type mark struct{ refs, off int }

// markToken records that the translation of token i starts here.
func (b *textBuilder) markToken(i int) {
	if b.marks == nil {
		b.marks = map[int]mark{}
	}
	b.marks[i] = mark{refs: len(b.refs), off: b.cur.Len()}
}

// since returns a copy of everything written from m on, references included, without
// the whitespace it starts with.
func (b *textBuilder) since(m mark) *textBuilder {
	out := &textBuilder{trimLead: true}
	if m.refs == len(b.refs) {
		out.write(b.cur.String()[m.off:])
		return out
	}
	out.write(b.segs[m.refs][m.off:])
	out.ref(b.refs[m.refs])
	for k := m.refs + 1; k < len(b.refs); k++ {
		out.write(b.segs[k])
		out.ref(b.refs[k])
	}
	out.write(b.cur.String())
	return out
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
