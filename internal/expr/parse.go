package expr

import (
	"fmt"
	"strings"
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tString
	tNumber
	tOp    // = == != <> < <= > >=
	tPunct // ( ) , . + -
	tKeyword
)

type token struct {
	kind tokKind
	text string // keyword upper-cased; string/ident unescaped; op/punct as written
	pos  int    // byte offset in the input
}

func isKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "AND", "OR", "NOT", "IN", "IS", "NULL", "BETWEEN", "LIKE", "TRUE", "FALSE":
		return true
	}
	return false
}

// SyntaxError reports where parsing failed and what was expected there.
type SyntaxError struct {
	Input string
	Pos   int // byte offset; the message shows it 1-based
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter: position %d: %s", e.Pos+1, e.Msg)
}

func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '`':
			start := i
			var b strings.Builder
			i++
			for {
				if i >= len(s) {
					what := "string literal"
					if c == '`' {
						what = "quoted column name"
					}
					return nil, &SyntaxError{s, start, "unterminated " + what}
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c { // doubled quote is an escaped quote
						b.WriteByte(c)
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			kind := tString
			if c == '`' {
				kind = tQuotedIdent
				if b.Len() == 0 {
					return nil, &SyntaxError{s, start, "empty quoted column name"}
				}
			}
			toks = append(toks, token{kind, b.String(), start})
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			start := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			if i < len(s) && s[i] == '.' {
				i++
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++
				}
			}
			if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
				j := i + 1
				if j < len(s) && (s[j] == '+' || s[j] == '-') {
					j++
				}
				if j < len(s) && s[j] >= '0' && s[j] <= '9' {
					for j < len(s) && s[j] >= '0' && s[j] <= '9' {
						j++
					}
					i = j
				}
			}
			if i < len(s) && isIdentChar(s[i]) {
				return nil, &SyntaxError{s, start, fmt.Sprintf("malformed number %q", s[start:i+1])}
			}
			toks = append(toks, token{tNumber, s[start:i], start})
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			start := i
			for i < len(s) && isIdentChar(s[i]) {
				i++
			}
			word := s[start:i]
			if isKeyword(word) {
				toks = append(toks, token{tKeyword, strings.ToUpper(word), start})
			} else {
				toks = append(toks, token{tIdent, word, start})
			}
		case c == '=' || c == '<' || c == '>' || c == '!':
			start := i
			i++
			if i < len(s) && (s[i] == '=' || c == '<' && s[i] == '>') {
				i++
			}
			op := s[start:i]
			if op == "!" {
				return nil, &SyntaxError{s, start, `unexpected "!" (did you mean "!="?)`}
			}
			toks = append(toks, token{tOp, op, start})
		case c == '(' || c == ')' || c == ',' || c == '.' || c == '+' || c == '-':
			toks = append(toks, token{tPunct, string(c), i})
			i++
		default:
			return nil, &SyntaxError{s, i, fmt.Sprintf("unexpected character %q", rune(c))}
		}
	}
	return append(toks, token{tEOF, "", len(s)}), nil
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

type parser struct {
	input string
	toks  []token
	i     int
	depth int
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 200

// Parse parses a filter expression. Errors are *SyntaxError values naming the position and
// what was expected there.
func Parse(s string) (Expr, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{input: s, toks: toks}
	if p.peek().kind == tEOF {
		return nil, p.errorf("expected an expression, found end of input")
	}
	e, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errorf("expected AND, OR or end of input, found %s", describe(t))
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tKeyword && t.text == kw
}

func (p *parser) acceptKeyword(kw string) bool {
	if p.isKeyword(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) isPunct(c string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == c
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{p.input, p.peek().pos, fmt.Sprintf(format, args...)}
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return fmt.Sprintf("string '%s'", t.text)
	case tQuotedIdent:
		return fmt.Sprintf("column `%s`", t.text)
	case tIdent:
		return fmt.Sprintf("column %s", t.text)
	case tNumber:
		return "number " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) parseOr() (Expr, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("OR") {
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = &Or{left, right}
	}
	return left, nil
}

func (p *parser) parseAnd() (Expr, error) {
	left, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("AND") {
		right, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		left = &And{left, right}
	}
	return left, nil
}

func (p *parser) parseNot() (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errorf("expression nested too deeply (more than %d levels)", maxDepth)
	}
	if p.acceptKeyword("NOT") {
		e, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &Not{e}, nil
	}
	return p.parsePredicate()
}

func (p *parser) parsePredicate() (Expr, error) {
	if p.isPunct("(") {
		p.next()
		e, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if !p.isPunct(")") {
			return nil, p.errorf("expected \")\", found %s", describe(p.peek()))
		}
		p.next()
		return e, nil
	}
	t := p.peek()
	if t.kind == tIdent || t.kind == tQuotedIdent {
		col, err := p.parseColumn()
		if err != nil {
			return nil, err
		}
		return p.parseColumnPredicate(col)
	}
	if lit, ok, err := p.parseLiteral(); err != nil {
		return nil, err
	} else if ok {
		// Literal on the left: only a comparison can follow; normalise to column op literal.
		op := p.peek()
		if op.kind != tOp {
			return nil, p.errorf("expected a comparison operator after literal %s, found %s", lit, describe(op))
		}
		p.next()
		c := p.peek()
		if c.kind != tIdent && c.kind != tQuotedIdent {
			return nil, p.errorf("expected a column after %q, found %s (one side of a comparison must be a column)", op.text, describe(c))
		}
		col, err := p.parseColumn()
		if err != nil {
			return nil, err
		}
		return &Compare{Column: col, Op: parseOp(op.text).flip(), Value: lit}, nil
	}
	return nil, p.errorf("expected a column, literal, NOT or \"(\", found %s", describe(t))
}

func (p *parser) parseColumn() (string, error) {
	var parts []string
	for {
		t := p.next()
		if t.kind != tIdent && t.kind != tQuotedIdent {
			p.i--
			return "", p.errorf("expected a column name after \".\", found %s", describe(t))
		}
		parts = append(parts, t.text)
		if !p.isPunct(".") {
			return strings.Join(parts, "."), nil
		}
		p.next()
	}
}

func parseOp(s string) Op {
	switch s {
	case "=", "==":
		return OpEq
	case "!=", "<>":
		return OpNe
	case "<":
		return OpLt
	case "<=":
		return OpLe
	case ">":
		return OpGt
	}
	return OpGe
}

func (p *parser) parseColumnPredicate(col string) (Expr, error) {
	t := p.peek()
	if t.kind == tOp {
		p.next()
		lit, err := p.expectLiteral(fmt.Sprintf("after %q", t.text))
		if err != nil {
			return nil, err
		}
		return &Compare{Column: col, Op: parseOp(t.text), Value: lit}, nil
	}
	if p.acceptKeyword("IS") {
		not := p.acceptKeyword("NOT")
		if !p.acceptKeyword("NULL") {
			after := "IS"
			if not {
				after = "IS NOT"
			}
			return nil, p.errorf("expected NULL after %s, found %s", after, describe(p.peek()))
		}
		return &IsNull{Column: col, Not: not}, nil
	}
	not := p.acceptKeyword("NOT")
	switch {
	case p.acceptKeyword("IN"):
		if !p.isPunct("(") {
			return nil, p.errorf("expected \"(\" after IN, found %s", describe(p.peek()))
		}
		p.next()
		var vals []Literal
		for {
			lit, err := p.expectLiteral("in the IN list")
			if err != nil {
				return nil, err
			}
			vals = append(vals, lit)
			if p.isPunct(",") {
				p.next()
				continue
			}
			if p.isPunct(")") {
				p.next()
				return &In{Column: col, Values: vals, Not: not}, nil
			}
			return nil, p.errorf("expected \",\" or \")\" in the IN list, found %s", describe(p.peek()))
		}
	case p.acceptKeyword("BETWEEN"):
		lo, err := p.expectLiteral("after BETWEEN")
		if err != nil {
			return nil, err
		}
		if !p.acceptKeyword("AND") {
			return nil, p.errorf("expected AND in BETWEEN, found %s", describe(p.peek()))
		}
		hi, err := p.expectLiteral("after BETWEEN ... AND")
		if err != nil {
			return nil, err
		}
		return &Between{Column: col, Low: lo, High: hi, Not: not}, nil
	case p.acceptKeyword("LIKE"):
		t := p.peek()
		if t.kind != tString {
			return nil, p.errorf("expected a 'pattern' string after LIKE, found %s", describe(t))
		}
		p.next()
		return &Like{Column: col, Pattern: t.text, Not: not}, nil
	}
	if not {
		return nil, p.errorf("expected IN, BETWEEN or LIKE after NOT, found %s", describe(p.peek()))
	}
	// A bare column is a boolean test, as in SQL's WHERE isActive.
	switch n := p.peek(); {
	case n.kind == tEOF, n.kind == tKeyword && (n.text == "AND" || n.text == "OR"), n.kind == tPunct && n.text == ")":
		return &Compare{Column: col, Op: OpEq, Value: Literal{Kind: LitBool, Bool: true}}, nil
	}
	return nil, p.errorf("expected a comparison operator, IN, BETWEEN, LIKE or IS after column %s, found %s", col, describe(p.peek()))
}

func (p *parser) expectLiteral(where string) (Literal, error) {
	lit, ok, err := p.parseLiteral()
	if err != nil {
		return Literal{}, err
	}
	if !ok {
		t := p.peek()
		hint := ""
		if t.kind == tIdent || t.kind == tQuotedIdent {
			hint = " (comparing two columns is not supported; quote strings with ')"
		}
		return Literal{}, p.errorf("expected a literal %s, found %s%s", where, describe(t), hint)
	}
	return lit, nil
}

// parseLiteral parses a literal if one starts here; ok is false (and nothing consumed) otherwise.
func (p *parser) parseLiteral() (Literal, bool, error) {
	t := p.peek()
	switch {
	case t.kind == tString:
		p.next()
		return Literal{Kind: LitString, Text: t.text}, true, nil
	case t.kind == tNumber:
		p.next()
		return Literal{Kind: LitNumber, Text: t.text}, true, nil
	case t.kind == tPunct && (t.text == "-" || t.text == "+"):
		p.next()
		n := p.peek()
		if n.kind != tNumber {
			return Literal{}, false, p.errorf("expected a number after %q, found %s", t.text, describe(n))
		}
		p.next()
		text := n.text
		if t.text == "-" {
			text = "-" + text
		}
		return Literal{Kind: LitNumber, Text: text}, true, nil
	case t.kind == tKeyword && (t.text == "TRUE" || t.text == "FALSE"):
		p.next()
		return Literal{Kind: LitBool, Bool: t.text == "TRUE"}, true, nil
	case t.kind == tKeyword && t.text == "NULL":
		p.next()
		return Literal{Kind: LitNull}, true, nil
	}
	return Literal{}, false, nil
}
