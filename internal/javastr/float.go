package javastr

import (
	"math"
	"strconv"
	"strings"
)

// FormatDouble returns the text java.lang.Double.toString gives for v. Hudi converts a
// double to a string that way when a column is promoted from double to string
// (HoodieAvroUtils.rewritePrimaryTypeWithDiffSchemaType calls Object.toString on the old
// value), so the promoted values must read exactly like it.
//
// The digits are the shortest ones that round-trip (at least two, the closest to v when
// one would do), as Java specifies since JDK 19 (JDK-4511638); older JDKs printed a few
// values with an extra digit (UNVERIFIED which JDK a given Spark ran).
func FormatDouble(v float64) string { return formatJava(v, 64) }

// FormatFloat returns the text java.lang.Float.toString gives for v (see FormatDouble).
func FormatFloat(v float32) string { return formatJava(float64(v), 32) }

// formatJava lays the shortest digits out as Java does: NaN, Infinity, -Infinity; plain
// decimal notation with at least one fraction digit for 1e-3 <= |v| < 1e7 ("100.0",
// "0.001"); otherwise computerized scientific notation with at least one fraction digit
// and no '+' in the exponent ("1.0E7", "1.234E-5").
func formatJava(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	var sb strings.Builder
	if v < 0 {
		sb.WriteByte('-')
		v = -v
	}
	// 'e' with precision -1 gives the shortest digits: d.ddddde±XX.
	s := strconv.FormatFloat(v, 'e', -1, bits)
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if len(digits) == 1 {
		// Java picks among decimals of at least two digits the one closest to v (so
		// Double.MIN_VALUE prints 4.9E-324, not 5.0E-324): the correctly rounded
		// two-digit decimal, which round-trips because the one-digit one does.
		mant, expText, _ = strings.Cut(strconv.FormatFloat(v, 'e', 1, bits), "e")
		exp, _ = strconv.Atoi(expText)
		digits = strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
		if digits == "" {
			digits = "0"
		}
	}
	if v >= 1e-3 && v < 1e7 {
		if exp >= 0 {
			intLen := exp + 1
			for len(digits) < intLen {
				digits += "0"
			}
			sb.WriteString(digits[:intLen])
			sb.WriteByte('.')
			if frac := digits[intLen:]; frac != "" {
				sb.WriteString(frac)
			} else {
				sb.WriteByte('0')
			}
			return sb.String()
		}
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -exp-1))
		sb.WriteString(digits)
		return sb.String()
	}
	sb.WriteByte(digits[0])
	sb.WriteByte('.')
	if len(digits) > 1 {
		sb.WriteString(digits[1:])
	} else {
		sb.WriteByte('0')
	}
	sb.WriteByte('E')
	sb.WriteString(strconv.Itoa(exp))
	return sb.String()
}
