package jsonl

import (
	"fmt"
	"math"
	"math/big"
)

// Parsers for the textual forms of the canonical encoding. They are exported because the same
// literals appear elsewhere (filter expressions compare date and timestamp columns to strings).

// maxDecimalExponent bounds exponents in decimal text so hostile input like "1e999999999"
// cannot make us allocate enormous big.Ints.
const maxDecimalExponent = 400

// ParseDecimal parses plain or scientific decimal text ("-1.50", "12", "1.5e3") as an unscaled
// integer at the given scale. It fails rather than round when the value has more than scale
// fraction digits, and when the unscaled value has more than precision digits (precision <= 0:
// unchecked).
func ParseDecimal(s string, precision, scale int32) (*big.Int, error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		digits = append(digits, s[i])
		i++
	}
	nInt := i - intStart
	nFrac := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			digits = append(digits, s[i])
			i++
			nFrac++
		}
	}
	if nInt+nFrac == 0 {
		return nil, fmt.Errorf("invalid decimal %q: no digits", s)
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			if exp > maxDecimalExponent {
				return nil, fmt.Errorf("invalid decimal %q: exponent out of range", s)
			}
			exp = exp*10 + int(s[i]-'0')
			i++
		}
		if i == start {
			return nil, fmt.Errorf("invalid decimal %q: missing exponent digits", s)
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return nil, fmt.Errorf("invalid decimal %q: unexpected %q at offset %d", s, s[i], i)
	}
	v, _ := new(big.Int).SetString(string(digits), 10)
	shift := exp - nFrac + int(scale)
	switch {
	case shift > 0:
		if shift > 2*maxDecimalExponent {
			return nil, fmt.Errorf("decimal %q out of range", s)
		}
		v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	case shift < 0:
		if -shift > 2*maxDecimalExponent {
			if v.Sign() == 0 {
				break
			}
			return nil, fmt.Errorf("decimal %q has more than %d fraction digits", s, scale)
		}
		q, r := new(big.Int).QuoRem(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil), new(big.Int))
		if r.Sign() != 0 {
			return nil, fmt.Errorf("decimal %q has more than %d fraction digits", s, scale)
		}
		v = q
	}
	if precision > 0 && v.Sign() != 0 && len(v.Text(10)) > int(precision) {
		return nil, fmt.Errorf("decimal %q does not fit precision %d, scale %d", s, precision, scale)
	}
	if neg {
		v.Neg(v)
	}
	return v, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanner is a tiny cursor for the fixed-layout date/time grammars below.
type scanner struct {
	s string
	i int
}

func (p *scanner) digits(min, max int) (int64, bool) {
	start := p.i
	var v int64
	for p.i < len(p.s) && p.i-start < max && isDigit(p.s[p.i]) {
		v = v*10 + int64(p.s[p.i]-'0')
		p.i++
	}
	return v, p.i-start >= min
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) date() (int64, error) {
	neg := p.eat('-')
	if !neg {
		p.eat('+')
	}
	y, ok := p.digits(4, 9)
	if !ok {
		return 0, fmt.Errorf("expected a 4-digit year at offset %d", p.i)
	}
	if neg {
		y = -y
	}
	if !p.eat('-') {
		return 0, fmt.Errorf("expected '-' after the year at offset %d", p.i)
	}
	m, ok := p.digits(2, 2)
	if !ok || m < 1 || m > 12 {
		return 0, fmt.Errorf("expected a month 01-12 at offset %d", p.i-2)
	}
	if !p.eat('-') {
		return 0, fmt.Errorf("expected '-' after the month at offset %d", p.i)
	}
	d, ok := p.digits(2, 2)
	if !ok || d < 1 || d > int64(daysIn(y, int(m))) {
		return 0, fmt.Errorf("expected a day of month at offset %d", p.i-2)
	}
	return daysFromCivil(y, int(m), int(d)), nil
}

func daysIn(y int64, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// clock parses HH:MM[:SS[.fffffffff]] and returns nanoseconds since midnight.
func (p *scanner) clock() (int64, error) {
	h, ok := p.digits(2, 2)
	if !ok || h > 23 {
		return 0, fmt.Errorf("expected an hour 00-23 at offset %d", p.i)
	}
	if !p.eat(':') {
		return 0, fmt.Errorf("expected ':' after the hour at offset %d", p.i)
	}
	mi, ok := p.digits(2, 2)
	if !ok || mi > 59 {
		return 0, fmt.Errorf("expected minutes 00-59 at offset %d", p.i)
	}
	var sec, nanos int64
	if p.eat(':') {
		sec, ok = p.digits(2, 2)
		if !ok || sec > 60 { // 60: leap second as written by some systems; folds into the next minute
			return 0, fmt.Errorf("expected seconds 00-59 at offset %d", p.i)
		}
		if p.eat('.') {
			start := p.i
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				if p.i-start < 9 {
					nanos = nanos*10 + int64(p.s[p.i]-'0')
				}
				p.i++
			}
			if p.i == start {
				return 0, fmt.Errorf("expected fraction digits at offset %d", p.i)
			}
			for k := p.i - start; k < 9; k++ {
				nanos *= 10
			}
		}
	}
	return ((h*60+mi)*60+sec)*1_000_000_000 + nanos, nil
}

// ParseDate parses "YYYY-MM-DD" (years may have a sign and more than four digits) into days
// since 1970-01-01.
func ParseDate(s string) (int64, error) {
	p := scanner{s: s}
	d, err := p.date()
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: %w", s, err)
	}
	if p.i != len(s) {
		return 0, fmt.Errorf("invalid date %q: unexpected text at offset %d", s, p.i)
	}
	return d, nil
}

// ParseTimeOfDay parses "HH:MM[:SS[.f...]]" into nanoseconds since midnight.
func ParseTimeOfDay(s string) (int64, error) {
	p := scanner{s: s}
	n, err := p.clock()
	if err != nil {
		return 0, fmt.Errorf("invalid time %q: %w", s, err)
	}
	if p.i != len(s) {
		return 0, fmt.Errorf("invalid time %q: unexpected text at offset %d", s, p.i)
	}
	return n, nil
}

// ParseTimestamp parses an RFC 3339 timestamp with any offset, and also the SQL forms
// "YYYY-MM-DD HH:MM[:SS[.f]]" and "YYYY-MM-DD", which (having no offset) are taken as UTC.
// It returns the UTC instant as seconds since the epoch plus nanoseconds in [0, 1e9).
func ParseTimestamp(s string) (secs, nanos int64, err error) {
	p := scanner{s: s}
	days, err := p.date()
	if err != nil {
		return 0, 0, fmt.Errorf("invalid timestamp %q: %w", s, err)
	}
	if days > math.MaxInt64/86400-1 || days < math.MinInt64/86400+1 {
		return 0, 0, fmt.Errorf("invalid timestamp %q: out of range", s)
	}
	var tod int64
	if p.i < len(s) {
		if c := s[p.i]; c != 'T' && c != 't' && c != ' ' {
			return 0, 0, fmt.Errorf("invalid timestamp %q: expected 'T' or ' ' at offset %d", s, p.i)
		}
		p.i++
		if tod, err = p.clock(); err != nil {
			return 0, 0, fmt.Errorf("invalid timestamp %q: %w", s, err)
		}
		var offset int64
		switch {
		case p.eat('Z') || p.eat('z'):
		case p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-'):
			sign := int64(1)
			if s[p.i] == '-' {
				sign = -1
			}
			p.i++
			oh, ok := p.digits(2, 2)
			if !ok || oh > 23 {
				return 0, 0, fmt.Errorf("invalid timestamp %q: expected offset hours at offset %d", s, p.i)
			}
			p.eat(':')
			om, ok := p.digits(2, 2)
			if !ok || om > 59 {
				return 0, 0, fmt.Errorf("invalid timestamp %q: expected offset minutes at offset %d", s, p.i)
			}
			offset = sign * (oh*60 + om) * 60
		}
		if p.i != len(s) {
			return 0, 0, fmt.Errorf("invalid timestamp %q: unexpected text at offset %d", s, p.i)
		}
		secs = days*86400 + tod/1_000_000_000 - offset
		return secs, tod % 1_000_000_000, nil
	}
	return days * 86400, 0, nil
}

// TimestampToUnit converts secs+nanos to a count of 1/perSec units (perSec one of 1, 1e3, 1e6,
// 1e9), flooring finer precision. ok is false when the result does not fit an int64.
func TimestampToUnit(secs, nanos, perSec int64) (v int64, ok bool) {
	sub := nanos / (1_000_000_000 / perSec) // in [0, perSec)
	if secs >= 0 {
		if secs > math.MaxInt64/perSec {
			return 0, false
		}
		base := secs * perSec
		if math.MaxInt64-base < sub {
			return 0, false
		}
		return base + sub, true
	}
	// Negative: go through secs+1 so that values just above MinInt64 (e.g. the smallest ns
	// timestamp, whose seconds alone would overflow) still convert.
	if secs+1 < math.MinInt64/perSec {
		return 0, false
	}
	base := (secs + 1) * perSec
	neg := sub - perSec // in [-perSec, 0)
	if base < math.MinInt64-neg {
		return 0, false
	}
	return base + neg, true
}
