// Package javastr reproduces java.lang.String semantics that leak into Hudi's on-disk
// format. Java compares strings by UTF-16 code unit, Go by UTF-8 byte; the two orders
// differ when a supplementary character (encoded as a surrogate pair, 0xD800–0xDBFF
// first) meets a BMP character at or above U+E000. Hudi records min/max record keys in
// base-file footers with Java's order, so readers and writers of those keys must use it.
package javastr

import "unicode/utf8"

// Compare orders a and b as Java's String.compareTo does (by UTF-16 code unit), returning
// -1, 0 or +1. Invalid UTF-8 bytes compare as U+FFFD, as Java would have decoded them.
func Compare(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return 1
		}
		return 0
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return cmpInt(int(a[i]), int(b[i]))
	}
	// Back up to the start of the code point that differs (a shared prefix of bytes
	// means both strings start that code point at the same offset).
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if (ra < 0x10000) == (rb < 0x10000) {
		return cmpInt(int(ra), int(rb)) // within one plane class both orders agree
	}
	return cmpInt(firstUnit(ra), firstUnit(rb))
}

// firstUnit is the first UTF-16 code unit of r: r itself in the BMP, else its high
// surrogate. It decides between a BMP character and a supplementary one, which cannot
// share a first unit.
func firstUnit(r rune) int {
	if r < 0x10000 {
		return int(r)
	}
	return 0xD800 + int((r-0x10000)>>10)
}

func cmpInt(x, y int) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
