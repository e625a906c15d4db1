package schema

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// CommentMetadataKey is the Arrow field metadata key under which ParseDDL keeps a column's
// COMMENT (Spark's StructField metadata key). It is not written to Avro: Spark's Avro
// converter, and so Hudi, drops comments.
const CommentMetadataKey = "comment"

// ParseDDL parses a Spark DDL column list such as
//
//	uuid STRING, ts BIGINT NOT NULL, fare DOUBLE COMMENT 'x', d DECIMAL(10,2),
//	tags ARRAY<STRING>, m MAP<STRING, INT>, s STRUCT<a: INT, b STRING>
//
// into the Arrow schema FromAvro yields for the Avro schema Hudi writes for those Spark
// types, so a table created from DDL and one read back from its commit schema agree:
// TINYINT/SMALLINT/INT → Int32 (Avro int), BIGINT → Int64, FLOAT/REAL → Float32,
// DOUBLE → Float64, BOOLEAN, STRING/VARCHAR(n)/CHAR(n) → String, BINARY → Binary,
// DECIMAL(p,s) → Decimal128 (default (10,0)), DATE → Date32,
// TIMESTAMP/TIMESTAMP_LTZ → Timestamp(us,"UTC"), TIMESTAMP_NTZ → Timestamp(us,""),
// ARRAY → List with a nullable "element", MAP → Map with String keys and nullable values,
// STRUCT → Struct. Columns and struct fields are nullable unless NOT NULL. Keywords are
// case-insensitive; names may be `backquoted`. Errors give the 1-based character position.
func ParseDDL(ddl string) (*arrow.Schema, error) {
	p := &ddlParser{src: ddl}
	if err := p.lex(); err != nil {
		return nil, err
	}
	if p.peek().kind == tokEOF {
		return nil, p.errAt(p.peek(), "a column definition")
	}
	var fields []arrow.Field
	seen := map[string]int{}
	for {
		start := p.peek()
		f, err := p.column(true)
		if err != nil {
			return nil, err
		}
		// Spark resolves column names case-insensitively, so "a" and "A" collide.
		key := strings.ToLower(f.Name)
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("DDL position %d: duplicate column %q (first defined as %q)", start.pos, f.Name, fields[prev].Name)
		}
		seen[key] = len(fields)
		fields = append(fields, f)
		t := p.next()
		if t.kind == tokEOF {
			break
		}
		if !t.is(",") {
			return nil, p.errAt(t, "',' or end of input")
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokQuoted // `backquoted` identifier: never a keyword
	tokNumber
	tokString
	tokPunct
)

type token struct {
	kind tokKind
	text string // identifier / literal value / punctuation
	pos  int    // 1-based character position in the input
}

func (t token) is(punct string) bool { return t.kind == tokPunct && t.text == punct }

// isKeyword reports whether t is the unquoted keyword kw (case-insensitive).
func (t token) isKeyword(kw string) bool {
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return "string " + strconv.Quote(t.text)
	case tokQuoted:
		return "`" + t.text + "`"
	}
	return strconv.Quote(t.text)
}

type ddlParser struct {
	src  string
	toks []token
	i    int
}

// maxDDLDepth bounds type nesting so hostile input cannot exhaust the stack.
const maxDDLDepth = 100

func (p *ddlParser) lex() error {
	s := p.src
	pos := 1 // character (rune) position of s[i]
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		start := pos
		switch {
		case r == utf8.RuneError && w == 1:
			return fmt.Errorf("DDL position %d: invalid UTF-8", start)
		case unicode.IsSpace(r):
			i += w
			pos++
		case strings.ContainsRune(",<>():", r):
			p.toks = append(p.toks, token{kind: tokPunct, text: string(r), pos: start})
			i += w
			pos++
		case r == '`':
			// `a``b` is the name a`b, as in Spark.
			var b strings.Builder
			i++
			pos++
			closed := false
			for i < len(s) {
				c, cw := utf8.DecodeRuneInString(s[i:])
				i += cw
				pos++
				if c == '`' {
					if i < len(s) && s[i] == '`' {
						b.WriteByte('`')
						i++
						pos++
						continue
					}
					closed = true
					break
				}
				b.WriteRune(c)
			}
			if !closed {
				return fmt.Errorf("DDL position %d: unterminated `quoted` name", start)
			}
			if b.Len() == 0 {
				return fmt.Errorf("DDL position %d: empty `quoted` name", start)
			}
			p.toks = append(p.toks, token{kind: tokQuoted, text: b.String(), pos: start})
		case r == '\'' || r == '"':
			var b strings.Builder
			i += w
			pos++
			closed := false
			for i < len(s) {
				c, cw := utf8.DecodeRuneInString(s[i:])
				i += cw
				pos++
				if c == '\\' && i < len(s) {
					e, ew := utf8.DecodeRuneInString(s[i:])
					i += ew
					pos++
					switch e {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteRune(e)
					}
					continue
				}
				if c == r {
					closed = true
					break
				}
				b.WriteRune(c)
			}
			if !closed {
				return fmt.Errorf("DDL position %d: unterminated string literal", start)
			}
			p.toks = append(p.toks, token{kind: tokString, text: b.String(), pos: start})
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(s) {
				c, cw := utf8.DecodeRuneInString(s[j:])
				if c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
					break
				}
				j += cw
				pos++
			}
			text := s[i:j]
			kind := tokIdent
			if isDigits(text) {
				kind = tokNumber
			}
			p.toks = append(p.toks, token{kind: kind, text: text, pos: start})
			i = j
		default:
			return fmt.Errorf("DDL position %d: unexpected character %q", start, r)
		}
	}
	p.toks = append(p.toks, token{kind: tokEOF, pos: pos})
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func (p *ddlParser) peek() token { return p.toks[p.i] }

func (p *ddlParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *ddlParser) errAt(t token, expected string) error {
	return fmt.Errorf("DDL position %d: expected %s, found %s", t.pos, expected, t.describe())
}

func (p *ddlParser) expect(punct string) error {
	if t := p.next(); !t.is(punct) {
		return p.errAt(t, "'"+punct+"'")
	}
	return nil
}

// column parses `name [:] type [NOT NULL] [COMMENT 'x']` (the two options in either order).
func (p *ddlParser) column(top bool) (arrow.Field, error) {
	return p.columnAt(top, 0)
}

func (p *ddlParser) columnAt(top bool, depth int) (arrow.Field, error) {
	nt := p.next()
	if nt.kind != tokIdent && nt.kind != tokQuoted {
		what := "a column name"
		if !top {
			what = "a struct field name"
		}
		return arrow.Field{}, p.errAt(nt, what)
	}
	// Spark's grammar has ':' only inside STRUCT<…>; accepting it everywhere costs nothing.
	if p.peek().is(":") {
		p.next()
	}
	dt, err := p.dataType(depth)
	if err != nil {
		return arrow.Field{}, err
	}
	f := arrow.Field{Name: nt.text, Type: dt, Nullable: true}
	var sawNotNull, sawComment bool
	for {
		t := p.peek()
		switch {
		case t.isKeyword("NOT") && !sawNotNull:
			p.next()
			if n := p.next(); !n.isKeyword("NULL") {
				return arrow.Field{}, p.errAt(n, "NULL after NOT")
			}
			f.Nullable = false
			sawNotNull = true
		case t.isKeyword("COMMENT") && !sawComment:
			p.next()
			c := p.next()
			if c.kind != tokString {
				return arrow.Field{}, p.errAt(c, "a quoted comment after COMMENT")
			}
			f.Metadata = arrow.NewMetadata([]string{CommentMetadataKey}, []string{c.text})
			sawComment = true
		default:
			return f, nil
		}
	}
}

func (p *ddlParser) dataType(depth int) (arrow.DataType, error) {
	if depth > maxDDLDepth {
		return nil, fmt.Errorf("DDL position %d: types nested deeper than %d levels", p.peek().pos, maxDDLDepth)
	}
	t := p.next()
	if t.kind != tokIdent {
		return nil, p.errAt(t, "a type")
	}
	switch strings.ToUpper(t.text) {
	case "STRING":
		return arrow.BinaryTypes.String, nil
	case "VARCHAR", "CHAR":
		// Hudi stores char/varchar as Avro string; the length is only a Spark check.
		if _, err := p.intArgs(1, 1, "length"); err != nil {
			return nil, err
		}
		return arrow.BinaryTypes.String, nil
	case "INT", "INTEGER", "SMALLINT", "SHORT", "TINYINT", "BYTE":
		// Avro has no narrower integer: Hudi writes byte and short as int (format doc §5.2).
		return arrow.PrimitiveTypes.Int32, nil
	case "BIGINT", "LONG":
		return arrow.PrimitiveTypes.Int64, nil
	case "DOUBLE":
		return arrow.PrimitiveTypes.Float64, nil
	case "FLOAT", "REAL":
		return arrow.PrimitiveTypes.Float32, nil
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean, nil
	case "BINARY":
		return arrow.BinaryTypes.Binary, nil
	case "DATE":
		return arrow.FixedWidthTypes.Date32, nil
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case "TIMESTAMP_NTZ":
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case "DECIMAL", "DEC", "NUMERIC":
		args, err := p.intArgs(0, 2, "precision")
		if err != nil {
			return nil, err
		}
		prec, scale := int64(10), int64(0)
		if len(args) > 0 {
			prec = args[0]
		}
		if len(args) > 1 {
			scale = args[1]
		}
		// Spark's limit; Hudi's fixed encoding could go further but no reader expects it.
		if prec < 1 || prec > 38 {
			return nil, fmt.Errorf("DDL position %d: decimal precision %d out of range 1..38", t.pos, prec)
		}
		if scale > prec {
			return nil, fmt.Errorf("DDL position %d: decimal scale %d exceeds precision %d", t.pos, scale, prec)
		}
		return &arrow.Decimal128Type{Precision: int32(prec), Scale: int32(scale)}, nil
	case "ARRAY":
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		et, err := p.dataType(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(">"); err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: ListElementName, Type: et, Nullable: true}), nil
	case "MAP":
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		kt := p.peek()
		kdt, err := p.dataType(depth + 1)
		if err != nil {
			return nil, err
		}
		if kdt.ID() != arrow.STRING {
			return nil, fmt.Errorf("DDL position %d: map key type must be STRING (Hudi writes maps as Avro maps, whose keys are strings), found %s", kt.pos, kt.describe())
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
		vdt, err := p.dataType(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(">"); err != nil {
			return nil, err
		}
		mt := arrow.MapOf(arrow.BinaryTypes.String, vdt)
		mt.SetItemNullable(true)
		return mt, nil
	case "STRUCT":
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		var fields []arrow.Field
		seen := map[string]bool{}
		if p.peek().is(">") {
			p.next()
			return arrow.StructOf(), nil
		}
		for {
			start := p.peek()
			f, err := p.columnAt(false, depth+1)
			if err != nil {
				return nil, err
			}
			if seen[strings.ToLower(f.Name)] {
				return nil, fmt.Errorf("DDL position %d: duplicate struct field %q", start.pos, f.Name)
			}
			seen[strings.ToLower(f.Name)] = true
			fields = append(fields, f)
			sep := p.next()
			if sep.is(">") {
				break
			}
			if !sep.is(",") {
				return nil, p.errAt(sep, "',' or '>' in STRUCT")
			}
		}
		return arrow.StructOf(fields...), nil
	}
	return nil, fmt.Errorf("DDL position %d: unknown type %s (expected STRING, INT, BIGINT, SMALLINT, TINYINT, DOUBLE, FLOAT, BOOLEAN, DECIMAL, DATE, TIMESTAMP, BINARY, ARRAY, MAP or STRUCT)", t.pos, t.describe())
}

// intArgs parses an optional "(n[, m])" list of between lo and hi non-negative integers.
func (p *ddlParser) intArgs(lo, hi int, what string) ([]int64, error) {
	if !p.peek().is("(") {
		if lo > 0 {
			return nil, p.errAt(p.peek(), "'(' and a "+what)
		}
		return nil, nil
	}
	p.next()
	var args []int64
	for {
		t := p.next()
		if t.kind != tokNumber {
			return nil, p.errAt(t, "a number")
		}
		n, err := strconv.ParseInt(t.text, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("DDL position %d: number %s out of range", t.pos, t.text)
		}
		args = append(args, n)
		sep := p.next()
		if sep.is(")") {
			break
		}
		if !sep.is(",") || len(args) >= hi {
			if len(args) >= hi {
				return nil, p.errAt(sep, "')'")
			}
			return nil, p.errAt(sep, "',' or ')'")
		}
	}
	if len(args) < lo {
		return nil, fmt.Errorf("DDL position %d: expected %d argument(s)", p.peek().pos, lo)
	}
	return args, nil
}
