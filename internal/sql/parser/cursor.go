package parser

import (
	"strconv"
	"strings"
)

// parser reads one statement. toks ends with a tokEOF, so looking ahead never runs off
// the end: every accessor clamps to that final token.
type parser struct {
	src  string  // the whole script, for raw text (SET values, ALTER TABLE)
	toks []token // this statement's tokens and the end marker
	i    int
	// match pairs each bracket token ( [ { with its closer and back; -1 elsewhere. Set
	// by matchBrackets, which rejects unbalanced statements up front so scanning code can
	// jump over a parenthesized group without checking.
	match []int
}

// maxNesting bounds bracket and type nesting so hostile input cannot exhaust the stack.
const maxNesting = 200

func (p *parser) at(i int) token {
	if i < 0 {
		i = 0
	}
	if i >= len(p.toks) {
		i = len(p.toks) - 1
	}
	return p.toks[i]
}

func (p *parser) peek() token        { return p.at(p.i) }
func (p *parser) peekAt(k int) token { return p.at(p.i + k) }

func (p *parser) next() token {
	t := p.at(p.i)
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

// errExpected is the parser's one error shape: where, what was expected, what was found.
func (p *parser) errExpected(t token, expected string) error {
	return &SyntaxError{Pos: t.pos, Msg: "expected " + expected + ", found " + t.describe()}
}

func errAt(t token, msg string) error { return &SyntaxError{Pos: t.pos, Msg: msg} }

// acceptKeyword consumes the words kws if they come next, in order.
func (p *parser) acceptKeyword(kws ...string) bool {
	for k, kw := range kws {
		if !p.peekAt(k).isKeyword(kw) {
			return false
		}
	}
	p.i += len(kws)
	return true
}

func (p *parser) expectKeyword(kws ...string) error {
	for _, kw := range kws {
		if t := p.peek(); !t.isKeyword(kw) {
			return p.errExpected(t, strings.ToUpper(kw))
		}
		p.next()
	}
	return nil
}

func (p *parser) acceptOp(op string) bool {
	if p.peek().isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectOp(op string) error {
	if t := p.peek(); !t.isOp(op) {
		return p.errExpected(t, "'"+op+"'")
	}
	p.next()
	return nil
}

// expectEnd requires the statement to be over.
func (p *parser) expectEnd() error {
	if t := p.peek(); t.kind != tokEOF {
		return p.errExpected(t, "end of statement")
	}
	return nil
}

// identifier reads a bare or backquoted name.
func (p *parser) identifier(what string) (string, error) {
	t := p.peek()
	if !t.isName() {
		return "", p.errExpected(t, what)
	}
	p.next()
	return t.value, nil
}

// multipartName reads name(.name)*.
func (p *parser) multipartName(what string) ([]string, error) {
	first, err := p.identifier(what)
	if err != nil {
		return nil, err
	}
	parts := []string{first}
	for p.peek().isOp(".") && p.peekAt(1).isName() {
		p.next()
		parts = append(parts, p.next().value)
	}
	return parts, nil
}

// tableName reads a table: db.t, t, hudi.`/path/to/t` (Spark's path form) or '/path'.
func (p *parser) tableName() (TableName, error) {
	start := p.peek()
	if start.kind == tokString {
		p.next()
		return TableName{Path: start.value, Pos: start.pos}, nil
	}
	if start.isKeyword("hudi") && p.peekAt(1).isOp(".") && p.peekAt(2).kind == tokQuotedIdent {
		p.i += 3
		return TableName{Path: p.at(p.i - 1).value, Pos: start.pos}, nil
	}
	parts, err := p.multipartName("a table name")
	if err != nil {
		return TableName{}, err
	}
	return TableName{Parts: parts, Pos: start.pos}, nil
}

// matchBrackets pairs ( ) [ ] { } of the statement, rejecting unbalanced ones.
func (p *parser) matchBrackets() error {
	p.match = make([]int, len(p.toks))
	var open []int
	closer := map[string]string{"(": ")", "[": "]", "{": "}"}
	for i, t := range p.toks {
		p.match[i] = -1
		if t.kind != tokOp {
			continue
		}
		switch t.value {
		case "(", "[", "{":
			if len(open) >= maxNesting {
				return errAt(t, "brackets nested deeper than 200 levels")
			}
			open = append(open, i)
		case ")", "]", "}":
			if len(open) == 0 {
				return errAt(t, "'"+t.value+"' without a matching opening bracket")
			}
			o := open[len(open)-1]
			if want := closer[p.toks[o].value]; want != t.value {
				return p.errExpected(t, "'"+want+"' closing the '"+p.toks[o].value+"' at line "+strconv.Itoa(p.toks[o].pos.Line)+", column "+strconv.Itoa(p.toks[o].pos.Col))
			}
			open = open[:len(open)-1]
			p.match[o], p.match[i] = i, o
		}
	}
	if len(open) > 0 {
		t := p.toks[open[len(open)-1]]
		return errAt(t, "'"+t.value+"' is never closed")
	}
	return nil
}

// skipGroup returns the index after the bracket group opening at i, or i+1.
func (p *parser) skipGroup(i int) int {
	if p.match != nil && i < len(p.match) && p.match[i] > i {
		return p.match[i] + 1
	}
	return i + 1
}

// scan returns the index of the first token from i, outside brackets and outside
// CASE … END, for which stop is true (the end marker if none). CASE is tracked so a
// WHEN or THEN inside a CASE expression does not end a MERGE clause.
func (p *parser) scan(i int, stop func(t token) bool) int {
	cases := 0
	for i < len(p.toks)-1 {
		t := p.toks[i]
		switch {
		case t.isKeyword("CASE"):
			cases++
		case t.isKeyword("END") && cases > 0:
			cases--
		case cases == 0 && stop(t):
			return i
		}
		i = p.skipGroup(i)
	}
	return len(p.toks) - 1
}

// splitCommas cuts [from, to) at top-level commas into [start, end) ranges.
func (p *parser) splitCommas(from, to int) [][2]int {
	var out [][2]int
	if from >= to {
		return nil
	}
	start := from
	for i := from; i < to; {
		if p.toks[i].isOp(",") {
			out = append(out, [2]int{start, i})
			start = i + 1
			i++
			continue
		}
		i = p.skipGroup(i)
	}
	return append(out, [2]int{start, to})
}

// rawText is the script text of tokens [from, to), comments included.
func (p *parser) rawText(from, to int) string {
	if from >= to || from >= len(p.toks) {
		return ""
	}
	return strings.TrimSpace(p.src[p.toks[from].start:p.toks[to-1].end])
}
