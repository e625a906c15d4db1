package javastr

import (
	"slices"
	"testing"
	"unicode/utf16"
)

// javaOrder is the reference: compare UTF-16 code unit sequences.
func javaOrder(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "b", -1},
		{"b", "a", 1},
		{"abc", "ab", 1},
		{"ab", "abc", -1},
		{"key-001", "key-001", 0},
		// U+1F600 (surrogates D83D DE00) sorts before U+FF21 in Java, after it in UTF-8.
		{"x\U0001F600", "x\uFF21", -1},
		{"x\uFF21", "x\U0001F600", 1},
		// Below U+E000 both orders agree.
		{"\u00e9", "\U0001F600", -1},
		{"\uD7FF", "\U00010000", -1},
		{"\uE000", "\U00010000", 1},
		{"\U00010000", "\U00010001", -1},
	}
	for _, c := range cases {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if ref := javaOrder(c.a, c.b); ref != c.want {
			t.Errorf("reference order of (%q, %q) = %d, table says %d", c.a, c.b, ref, c.want)
		}
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("x\U0001F600", "x\uFF21")
	f.Add("abc", "abd")
	f.Fuzz(func(t *testing.T, a, b string) {
		// Invalid UTF-8 decodes to U+FFFD both ways.
		a, b = string([]rune(a)), string([]rune(b))
		if got, want := Compare(a, b), javaOrder(a, b); got != want {
			t.Fatalf("Compare(%q, %q) = %d, UTF-16 order %d", a, b, got, want)
		}
	})
}
