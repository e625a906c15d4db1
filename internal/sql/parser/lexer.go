package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenKind classifies a lexed token.
type tokenKind int

const (
	tokEOF         tokenKind = iota // end of a statement (at its ';') or of the script
	tokIdent                        // bare word: an identifier or a keyword
	tokQuotedIdent                  // `backquoted` identifier: never a keyword
	tokString                       // '…' or "…" (Spark reads both as strings)
	tokNumber                       // numeric literal, with an optional Spark type suffix
	tokOp                           // operator or punctuation
	tokOther                        // a character Spark SQL has no token for (kept for SET values)
)

// token is one lexeme of the script.
type token struct {
	kind tokenKind
	// value is the identifier name, the unescaped string, the number without its suffix,
	// or the operator.
	value string
	// suffix is a number's upper-case Spark type suffix: L, S, Y, F, D, BD, or "".
	suffix string
	pos    Pos
	// start and end are byte offsets of the token in the script, so statements that keep
	// raw text (SET values, ALTER TABLE) can cut it out.
	start, end int
	// lead is the whitespace before the token, with comments replaced by a space, so the
	// translated text keeps the user's layout (and DuckDB's error positions stay readable).
	lead string
}

// isKeyword reports whether t is the bare word kw (case-insensitive); a backquoted name is
// never a keyword.
func (t token) isKeyword(kw string) bool {
	return t.kind == tokIdent && strings.EqualFold(t.value, kw)
}

// isOp reports whether t is the operator or punctuation op.
func (t token) isOp(op string) bool { return t.kind == tokOp && t.value == op }

// isName reports whether t can name something (an identifier, bare or backquoted).
func (t token) isName() bool { return t.kind == tokIdent || t.kind == tokQuotedIdent }

// describe renders the token for "expected …, found …" messages.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of statement"
	case tokString:
		return "string '" + t.value + "'"
	case tokQuotedIdent:
		return "`" + t.value + "`"
	case tokNumber:
		return "number " + t.value + t.suffix
	case tokOp, tokOther:
		return "'" + t.value + "'"
	}
	return `"` + t.value + `"`
}

// operators Spark SQL lexes as one token, longest first so "<=>" wins over "<=". ">>" is
// deliberately absent: it closes nested types (ARRAY<ARRAY<INT>>); two adjacent '>' tokens
// render back as ">>" anyway because the translator keeps the gap between tokens.
var operators = []string{
	"<=>", "<=", ">=", "<>", "!=", "==", "=>", "||", "->", "::",
	"=", "<", ">", "+", "-", "*", "/", "%", "~", "&", "|", "^", "!",
	"(", ")", "[", "]", "{", "}", ",", ".", ";", ":", "?",
}

// lexer turns a script into tokens, tracking line and column (in characters) for errors.
type lexer struct {
	src       string
	i         int
	line, col int
	lead      strings.Builder
	toks      []token
}

// lex tokenizes the whole script. The final token is tokEOF.
func lex(src string) ([]token, error) {
	toks, err := lexPrefix(src)
	if err != nil {
		return nil, err
	}
	return toks, nil
}

// lexPrefix is lex that, on an error, also returns the tokens read before it.
func lexPrefix(src string) ([]token, error) {
	lx := &lexer{src: src, line: 1, col: 1}
	for {
		if err := lx.skipSpaceAndComments(); err != nil {
			return lx.toks, err
		}
		if lx.i >= len(src) {
			lx.toks = append(lx.toks, token{kind: tokEOF, pos: lx.pos(), start: lx.i, end: lx.i, lead: lx.takeLead()})
			return lx.toks, nil
		}
		t, err := lx.next()
		if err != nil {
			return lx.toks, err
		}
		t.lead = lx.takeLead()
		lx.toks = append(lx.toks, t)
	}
}

func (lx *lexer) pos() Pos { return Pos{Line: lx.line, Col: lx.col} }

func (lx *lexer) takeLead() string {
	s := lx.lead.String()
	lx.lead.Reset()
	return s
}

// advance moves n bytes forward, counting lines and characters.
func (lx *lexer) advance(n int) {
	for k := 0; k < n && lx.i < len(lx.src); k++ {
		c := lx.src[lx.i]
		lx.i++
		switch {
		case c == '\n':
			lx.line++
			lx.col = 1
		case c&0xC0 != 0x80: // not a UTF-8 continuation byte: a new character
			lx.col++
		}
	}
}

func (lx *lexer) peekByte(k int) byte {
	if lx.i+k < len(lx.src) {
		return lx.src[lx.i+k]
	}
	return 0
}

func (lx *lexer) errorf(p Pos, msg string) error { return &SyntaxError{Pos: p, Msg: msg} }

// skipSpaceAndComments consumes whitespace, -- line comments and /* block comments */.
// Block comments nest, as in Spark 3 (and the /*+ hint */ form is a comment here).
func (lx *lexer) skipSpaceAndComments() error {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.lead.WriteByte(c)
			lx.advance(1)
		case c == '-' && lx.peekByte(1) == '-':
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance(1)
			}
		case c == '/' && lx.peekByte(1) == '*':
			start := lx.pos()
			depth := 0
			for {
				if lx.i >= len(lx.src) {
					return lx.errorf(start, "unclosed /* comment")
				}
				if lx.src[lx.i] == '/' && lx.peekByte(1) == '*' {
					depth++
					lx.advance(2)
					continue
				}
				if lx.src[lx.i] == '*' && lx.peekByte(1) == '/' {
					depth--
					lx.advance(2)
					if depth == 0 {
						break
					}
					continue
				}
				lx.advance(1)
			}
			lx.lead.WriteByte(' ')
		default:
			return nil
		}
	}
	return nil
}

func isWordByte(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// next lexes the token at lx.i (not at whitespace or a comment).
func (lx *lexer) next() (token, error) {
	start, p := lx.i, lx.pos()
	c := lx.src[lx.i]
	switch {
	case c == '\'' || c == '"':
		v, err := lx.stringBody(c, false)
		if err != nil {
			return token{}, err
		}
		return token{kind: tokString, value: v, pos: p, start: start, end: lx.i}, nil
	case (c == 'r' || c == 'R') && (lx.peekByte(1) == '\'' || lx.peekByte(1) == '"'):
		// R'…' is Spark's raw string: backslashes are kept.
		q := lx.peekByte(1)
		lx.advance(1)
		v, err := lx.stringBody(q, true)
		if err != nil {
			return token{}, err
		}
		return token{kind: tokString, value: v, pos: p, start: start, end: lx.i}, nil
	case c == '`':
		v, err := lx.backquoted()
		if err != nil {
			return token{}, err
		}
		return token{kind: tokQuotedIdent, value: v, pos: p, start: start, end: lx.i}, nil
	case c >= '0' && c <= '9' || c == '.' && lx.peekByte(1) >= '0' && lx.peekByte(1) <= '9':
		if t, ok := lx.number(); ok {
			return t, nil
		}
		return lx.word(), nil // digits followed by letters: Spark reads 1abc as an identifier
	}
	r, w := utf8.DecodeRuneInString(lx.src[lx.i:])
	if isWordByte(r) {
		return lx.word(), nil
	}
	for _, op := range operators {
		if strings.HasPrefix(lx.src[lx.i:], op) {
			lx.advance(len(op))
			return token{kind: tokOp, value: op, pos: p, start: start, end: lx.i}, nil
		}
	}
	lx.advance(w)
	return token{kind: tokOther, value: lx.src[start:lx.i], pos: p, start: start, end: lx.i}, nil
}

// word lexes an identifier or keyword.
func (lx *lexer) word() token {
	start, p := lx.i, lx.pos()
	for lx.i < len(lx.src) {
		r, w := utf8.DecodeRuneInString(lx.src[lx.i:])
		if !isWordByte(r) {
			break
		}
		lx.advance(w)
	}
	return token{kind: tokIdent, value: lx.src[start:lx.i], pos: p, start: start, end: lx.i}
}

// number lexes Spark's numeric literals: 12, 1.5, .5, 1e10, 1.5E-3, with the type
// suffixes L (BIGINT), S (SMALLINT), Y (TINYINT), F (FLOAT), D (DOUBLE), BD (DECIMAL).
// It reports false, consuming nothing, when the digits start an identifier (1abc).
func (lx *lexer) number() (token, bool) {
	s := lx.src
	j := lx.i
	digits := func() int {
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j - k
	}
	digits()
	integral := true
	if j < len(s) && s[j] == '.' {
		integral = false
		j++
		digits()
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			j = k
			digits()
			integral = false
		}
	}
	valueEnd := j
	suffix := ""
	if j+1 < len(s) && strings.EqualFold(s[j:j+2], "BD") {
		suffix = "BD"
	} else if j < len(s) {
		switch u := strings.ToUpper(s[j : j+1]); u {
		case "L", "S", "Y":
			if integral {
				suffix = u
			}
		case "F", "D":
			suffix = u
		}
	}
	end := j + len(suffix)
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		if isWordByte(r) && integral && s[lx.i] != '.' {
			return token{}, false
		}
	}
	start, p := lx.i, lx.pos()
	lx.advance(end - lx.i)
	return token{kind: tokNumber, value: s[start:valueEnd], suffix: suffix, pos: p, start: start, end: lx.i}, true
}

// stringBody lexes a quoted string starting at the quote q, unescaping as Spark does
// (unless raw): \n \t \r \b \0 \Z, \uXXXX, octal \NNN, \% and \_ kept with their
// backslash (they are LIKE escapes), any other escaped character stands for itself.
// Spark has no ” escape: 'it”s' is two adjacent literals, concatenated by the caller.
func (lx *lexer) stringBody(q byte, raw bool) (string, error) {
	start := lx.pos()
	lx.advance(1)
	var b strings.Builder
	s := lx.src
	for lx.i < len(s) {
		c := s[lx.i]
		if c == q {
			lx.advance(1)
			return b.String(), nil
		}
		if c != '\\' || raw || lx.i+1 >= len(s) {
			b.WriteByte(c)
			lx.advance(1)
			continue
		}
		e := s[lx.i+1]
		switch {
		case e == 'u' && lx.i+6 <= len(s) && isHex(s[lx.i+2:lx.i+6]):
			b.WriteRune(rune(hexValue(s[lx.i+2 : lx.i+6])))
			lx.advance(6)
			continue
		case e >= '0' && e <= '3' && lx.i+4 <= len(s) && isOctal(s[lx.i+2]) && isOctal(s[lx.i+3]):
			b.WriteRune(rune(e-'0')<<6 | rune(s[lx.i+2]-'0')<<3 | rune(s[lx.i+3]-'0'))
			lx.advance(4)
			continue
		}
		switch e {
		case '0':
			b.WriteByte(0)
		case 'b':
			b.WriteByte('\b')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'Z':
			b.WriteByte(0x1A)
		case '%', '_':
			b.WriteByte('\\')
			b.WriteByte(e)
		default:
			// Copy the whole (possibly multi-byte) escaped character.
			_, w := utf8.DecodeRuneInString(s[lx.i+1:])
			b.WriteString(s[lx.i+1 : lx.i+1+w])
			lx.advance(1 + w)
			continue
		}
		lx.advance(2)
	}
	return "", lx.errorf(start, "unterminated string literal")
}

// backquoted lexes `name`, where “ stands for one backquote.
func (lx *lexer) backquoted() (string, error) {
	start := lx.pos()
	lx.advance(1)
	var b strings.Builder
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		if c == '`' {
			if lx.peekByte(1) == '`' {
				b.WriteByte('`')
				lx.advance(2)
				continue
			}
			lx.advance(1)
			if b.Len() == 0 {
				return "", lx.errorf(start, "empty `quoted` identifier")
			}
			return b.String(), nil
		}
		b.WriteByte(c)
		lx.advance(1)
	}
	return "", lx.errorf(start, "unterminated `quoted` identifier")
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hexValue(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		default:
			v = v*16 + int(c-'A'+10)
		}
	}
	return v
}
