package javastr

import (
	"slices"
	"testing"
)

// Values of java.lang.String.hashCode, computed by hand from its definition
// (s[0]*31^(n-1) + … + s[n-1] over UTF-16 units, int arithmetic).
func TestHashCode(t *testing.T) {
	tests := []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"a", 97},
		{"ab", 97*31 + 98},
		{"hello", 99162322},
		{"polygenelubricants", -2147483648}, // the classic Integer.MIN_VALUE hash
		{"é", 0xe9},
		{"😀", 0xd83d*31 + 0xde00}, // a surrogate pair hashes as two units
	}
	for _, tc := range tests {
		if got := HashCode(tc.s); got != tc.want {
			t.Errorf("HashCode(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// java.util.HashMap iterates by bucket ((h ^ h>>>16) & (n-1)), colliding keys in insertion
// order, and grows the table at 0.75 load, so the order of a key set depends on its size.
func TestHashMapOrder(t *testing.T) {
	m := NewHashMap()
	// "Aa" and "BB" have the same hashCode (2112): they share a bucket in insertion order.
	for _, k := range []string{"b", "BB", "a", "Aa"} {
		m.Put(k, HashCode(k))
	}
	m.Put("b", HashCode("b")) // a second put keeps the first place
	// buckets (16): "a" 97&15=1, "b" 98&15=2, 2112^0 &15 = 0.
	if got, want := m.Keys(), []string{"BB", "Aa", "a", "b"}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	// 13 keys grow the table to 32 buckets: "a" (97) and "A" (65) no longer share bucket 1.
	m2 := NewHashMap()
	keys := []string{"A", "a", "B", "b", "C", "c", "D", "d", "E", "e", "F", "f", "G"}
	for _, k := range keys {
		m2.Put(k, HashCode(k))
	}
	got := m2.Keys()
	// 32 buckets: 'A'..'G' (65..71) fall in 1..7 and 'a'..'f' (97..102) in 1..6 too, each
	// lower-case key after its upper-case one, which was put first.
	want := []string{"A", "a", "B", "b", "C", "c", "D", "d", "E", "e", "F", "f", "G"}
	if !slices.Equal(got, want) {
		t.Errorf("order with 32 buckets = %v, want %v", got, want)
	}
	m2.Clear()
	if m2.Len() != 0 || m2.buckets != 32 {
		t.Errorf("Clear: len %d buckets %d, want 0 and 32 (Java keeps the table)", m2.Len(), m2.buckets)
	}
}
