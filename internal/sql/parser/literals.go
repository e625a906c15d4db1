package parser

import (
	"strconv"
	"strings"
)

// stringLiteral translates the string at i, joined with the strings right after it
// (Spark concatenates adjacent literals: 'it”s' is "its"), as a DuckDB single-quoted
// string. Double-quoted strings are strings in Spark but identifiers in DuckDB.
func (p *parser) stringLiteral(b *textBuilder, i, end int) int {
	t := p.toks[i]
	v := t.value
	for i++; i < end && p.toks[i].kind == tokString; i++ {
		v += p.toks[i].value
	}
	b.write(t.lead + quoteString(v))
	return i
}

// typedLiteral reports whether kw prefixes a typed string literal Spark knows.
func typedLiteral(kw string) bool {
	switch kw {
	case "DATE", "TIMESTAMP", "TIMESTAMP_LTZ", "TIMESTAMP_NTZ", "X":
		return true
	}
	return false
}

// typedLiteral translates DATE '…', TIMESTAMP '…' (a local-time-zone timestamp: DuckDB's
// TIMESTAMPTZ, read in the session time zone the engine sets), TIMESTAMP_NTZ '…' and
// X'hex' at i.
func (p *parser) typedLiteral(b *textBuilder, i, end int) (int, error) {
	t := p.toks[i]
	s := &textBuilder{}
	next := p.stringLiteral(s, i+1, end)
	lit := strings.TrimLeft(s.cur.String(), " \t\r\n\f\v")
	switch strings.ToUpper(t.value) {
	case "DATE":
		b.write(t.lead + "DATE " + lit)
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		b.write(t.lead + "CAST(" + lit + " AS TIMESTAMPTZ)")
	case "TIMESTAMP_NTZ":
		b.write(t.lead + "CAST(" + lit + " AS TIMESTAMP)")
	case "X":
		b.write(t.lead + "from_hex(" + lit + ")")
	}
	return next, nil
}

// numberLiteral translates a number, turning Spark's type suffixes into casts.
func (p *parser) numberLiteral(b *textBuilder, t token) error {
	typ := ""
	switch t.suffix {
	case "":
		b.write(t.lead + t.value)
		return nil
	case "L":
		typ = "BIGINT"
	case "S":
		typ = "SMALLINT"
	case "Y":
		typ = "TINYINT"
	case "F":
		typ = "FLOAT"
	case "D":
		typ = "DOUBLE"
	case "BD":
		v, prec, scale, ok := decimalLiteral(t.value)
		if !ok {
			return errAt(t, "decimal literal "+t.value+"BD does not fit DECIMAL(38)")
		}
		b.write(t.lead + "CAST(" + v + " AS DECIMAL(" + strconv.Itoa(prec) + "," + strconv.Itoa(scale) + "))")
		return nil
	}
	b.write(t.lead + "CAST(" + t.value + " AS " + typ + ")")
	return nil
}

// decimalLiteral writes a BD literal in plain notation with the precision and scale
// Spark gives it (those of Java's BigDecimal, negative scales raised to 0).
func decimalLiteral(v string) (text string, prec, scale int, ok bool) {
	mant, exp := v, 0
	if k := strings.IndexAny(v, "eE"); k >= 0 {
		e, err := strconv.Atoi(v[k+1:])
		if err != nil || e > 38 || e < -38 {
			return "", 0, 0, false
		}
		mant, exp = v[:k], e
	}
	intPart, frac := mant, ""
	if k := strings.IndexByte(mant, '.'); k >= 0 {
		intPart, frac = mant[:k], mant[k+1:]
	}
	digits := intPart + frac
	scale = len(frac) - exp
	if scale < 0 {
		digits += strings.Repeat("0", -scale)
		scale = 0
	}
	digits = strings.TrimLeft(digits, "0")
	prec = max(len(digits), scale, 1)
	if prec > 38 {
		return "", 0, 0, false
	}
	for len(digits) <= scale {
		digits = "0" + digits
	}
	text = digits[:len(digits)-scale]
	if scale > 0 {
		text += "." + digits[len(digits)-scale:]
	}
	return text, prec, scale, true
}
