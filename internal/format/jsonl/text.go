package jsonl

import (
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// This file holds the scalar formatting primitives of the canonical encoding. They append to a
// caller-owned []byte so the encoder's hot path never allocates per value.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal. Runs of bytes that need no escaping are
// copied in one go; invalid UTF-8 becomes U+FFFD (as encoding/json does) so the output is always
// valid JSON.
func appendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		var r rune
		var size int
		switch v := any(s).(type) {
		case string:
			r, size = utf8.DecodeRuneInString(v[i:])
		case []byte:
			r, size = utf8.DecodeRune(v[i:])
		default:
			r, size = utf8.DecodeRuneInString(string(s[i:]))
		}
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendFloat appends f as the canonical JSON number: the shortest decimal that round-trips at
// bitSize (32 or 64), laid out like Python's repr (fixed notation with a ".0" for integral values
// when the decimal exponent is in [-4, 16), otherwise d.ddde±XX). The expected fixture files were
// produced that way ("1.0", "19.1"), so matching it keeps our output textually comparable, not
// just numerically. NaN and infinities are not JSON numbers and become strings.
func appendFloat(dst []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	// Decide the notation from the decimal exponent of the shortest representation.
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, bitSize)
	exp := 0
	for j := len(e) - 1; j >= 0; j-- {
		if e[j] == 'e' {
			exp, _ = strconv.Atoi(string(e[j+1:]))
			break
		}
	}
	if exp < -4 || exp >= 16 {
		return append(dst, e...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, bitSize)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// appendDecimalUnscaled appends the plain-notation text of unscaled * 10^-scale with exactly
// scale fraction digits (none when scale <= 0; a negative scale appends zeros).
// digits is the decimal text of |unscaled| without sign.
func appendDecimalDigits(dst []byte, neg bool, digits []byte, scale int32) []byte {
	if neg {
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, digits...)
		if !(len(digits) == 1 && digits[0] == '0') {
			for k := int32(0); k < -scale; k++ {
				dst = append(dst, '0')
			}
		}
		return dst
	}
	s := int(scale)
	if len(digits) <= s {
		dst = append(dst, '0', '.')
		for k := len(digits); k < s; k++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-s]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-s:]...)
}

// appendDecimal128 formats a 128-bit two's complement unscaled value. Most real decimals fit in
// an int64, so that path avoids math/big entirely.
func appendDecimal128(dst []byte, hi int64, lo uint64, scale int32) []byte {
	var scratch [48]byte
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		v := int64(lo)
		neg := v < 0
		u := uint64(v)
		if neg {
			u = -u
		}
		return appendDecimalDigits(dst, neg, strconv.AppendUint(scratch[:0], u, 10), scale)
	}
	b := new(big.Int).SetInt64(hi)
	b.Lsh(b, 64)
	b.Or(b, new(big.Int).SetUint64(lo))
	return appendDecimalBig(dst, b, scale)
}

func appendDecimalBig(dst []byte, b *big.Int, scale int32) []byte {
	neg := b.Sign() < 0
	abs := new(big.Int).Abs(b)
	return appendDecimalDigits(dst, neg, abs.Append(nil, 10), scale)
}

func appendDecimalInt64(dst []byte, v int64, scale int32) []byte {
	var scratch [24]byte
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	return appendDecimalDigits(dst, neg, strconv.AppendUint(scratch[:0], u, 10), scale)
}

// floorDiv returns floor(a/b) and the non-negative remainder, for b > 0. Timestamps before 1970
// are negative and must round towards minus infinity, not zero.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// algorithm), valid for every int64 day count that does not overflow the arithmetic.
func civilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	era, _ := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the inverse of civilFromDays.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era, _ := floorDiv(y, 400)
	yoe := y - era*400
	mm := int64(m)
	var doy int64
	if mm > 2 {
		doy = (153*(mm-3)+2)/5 + int64(d) - 1
	} else {
		doy = (153*(mm+9)+2)/5 + int64(d) - 1
	}
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func appendPad(dst []byte, v int64, width int) []byte {
	var scratch [24]byte
	s := strconv.AppendInt(scratch[:0], v, 10)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendDateText appends YYYY-MM-DD. Years outside 0000..9999 keep at least four digits and a
// leading '-' when negative (ISO 8601 expanded form without the '+'), which parseDate accepts.
func appendDateText(dst []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	dst = appendPad(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPad(dst, int64(m), 2)
	dst = append(dst, '-')
	return appendPad(dst, int64(d), 2)
}

// appendTimeOfDay appends HH:MM:SS.ffffff for micros within a day (hours may exceed 23 for
// out-of-range Time values; they are printed as they are rather than rejected).
func appendTimeOfDay(dst []byte, micros int64) []byte {
	secs, frac := floorDiv(micros, 1_000_000)
	h, rem := floorDiv(secs, 3600)
	dst = appendPad(dst, h, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, rem/60, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, rem%60, 2)
	dst = append(dst, '.')
	return appendPad(dst, frac, 6)
}

// appendTimestampText appends the UTC instant secs+micros as YYYY-MM-DDTHH:MM:SS.ffffffZ.
// Splitting seconds and micros keeps second-unit timestamps far from 1970 free of overflow.
func appendTimestampText(dst []byte, secs, micros int64) []byte {
	days, sod := floorDiv(secs, 86400)
	dst = appendDateText(dst, days)
	dst = append(dst, 'T')
	dst = appendTimeOfDay(dst, sod*1_000_000+micros)
	return append(dst, 'Z')
}
