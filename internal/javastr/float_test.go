package javastr

import (
	"math"
	"testing"
)

// The expected texts are java.lang.Double.toString / Float.toString results as the JDK
// documents them (shortest round-trip digits, JDK 19+).
func TestFormatDouble(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1, "-1.0"},
		{100, "100.0"},
		{1.5, "1.5"},
		{0.1, "0.1"},
		{0.001, "0.001"},
		{0.0009, "9.0E-4"},
		{1234567.0, "1234567.0"},
		{9999999.0, "9999999.0"},
		{1e7, "1.0E7"},
		{12345678.9, "1.23456789E7"},
		{1e-10, "1.0E-10"},
		{1.1, "1.1"},
		{3.14159, "3.14159"},
		{2e23, "2.0E23"},
		{math.MaxFloat64, "1.7976931348623157E308"},
		{math.SmallestNonzeroFloat64, "4.9E-324"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{123.456, "123.456"},
		{-0.5, "-0.5"},
	}
	for _, c := range cases {
		if got := FormatDouble(c.v); got != c.want {
			t.Errorf("FormatDouble(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	cases := []struct {
		v    float32
		want string
	}{
		{0, "0.0"},
		{1.1, "1.1"},
		{0.1, "0.1"},
		{1e7, "1.0E7"},
		{3.4028235e38, "3.4028235E38"},
		{1.4e-45, "1.4E-45"},
		{16777216, "1.6777216E7"},
		{123.25, "123.25"},
		{float32(math.Inf(-1)), "-Infinity"},
	}
	for _, c := range cases {
		if got := FormatFloat(c.v); got != c.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
