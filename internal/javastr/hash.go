package javastr

import (
	"slices"
	"unicode/utf16"
)

// HashCode is Java's String.hashCode: s[0]*31^(n-1) + … + s[n-1] over the UTF-16 code
// units of s, with 32-bit wrap-around.
func HashCode(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 {
			h = 31*h + int32(c)
			continue
		}
		// Non-ASCII: hash the rest as UTF-16 units.
		for _, u := range utf16.Encode([]rune(s[i:])) {
			h = 31*h + int32(u)
		}
		return h
	}
	return h
}

// HashMap simulates the iteration order of a java.util.HashMap (default capacity 16, load
// factor 0.75) into which keys are put in the order Put is called: entries come bucket by
// bucket, a bucket's entries in insertion order (a resize splits a bucket's list keeping
// the relative order). Like Java's HashMap, Clear keeps the grown table. Bins that Java
// turns into trees (8 or more colliding keys in a table of 64 or more buckets) are not
// reproduced: such a bin's order is taken as insertion order.
type HashMap struct {
	buckets uint32
	keys    []string
	hashes  []int32
	index   map[string]int
}

// NewHashMap returns an empty map, as new HashMap<>().
func NewHashMap() *HashMap { return &HashMap{buckets: 16, index: map[string]int{}} }

// NewHashMapSized returns an empty map as new HashMap<>(n) makes it: its table the
// smallest power of two holding n (1 for 0), grown like any other.
func NewHashMapSized(n int) *HashMap {
	b := uint32(1)
	for b < uint32(n) {
		b *= 2
	}
	return &HashMap{buckets: b, index: map[string]int{}}
}

// Utf8HashCode is the hashCode of Avro's Utf8 (1.10 on): h*31 + b over the signed bytes
// of the UTF-8 encoding (equal to HashCode for ASCII).
func Utf8HashCode(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(int8(s[i]))
	}
	return h
}

// Put adds key with hash h (its hashCode()); a key already present keeps its place.
func (m *HashMap) Put(key string, h int32) {
	if _, ok := m.index[key]; ok {
		return
	}
	m.index[key] = len(m.keys)
	m.keys = append(m.keys, key)
	m.hashes = append(m.hashes, h)
	// Java resizes when the size passes capacity × 0.75.
	for uint32(len(m.keys)) > m.buckets*3/4 {
		m.buckets *= 2
	}
}

// SizeFor grows the table as n puts would (for a map that held more keys than are put).
func (m *HashMap) SizeFor(n int) {
	for uint32(n) > m.buckets*3/4 {
		m.buckets *= 2
	}
}

// Len is the number of keys.
func (m *HashMap) Len() int { return len(m.keys) }

// Clear removes every key and keeps the table size.
func (m *HashMap) Clear() {
	m.keys, m.hashes = m.keys[:0], m.hashes[:0]
	clear(m.index)
}

// Order returns the keys' insertion indexes in iteration order.
func (m *HashMap) Order() []int {
	bucket := func(h int32) uint32 {
		u := uint32(h)
		return (u ^ u>>16) & (m.buckets - 1)
	}
	per := make(map[uint32][]int, len(m.keys))
	used := make([]uint32, 0, len(m.keys))
	for i, h := range m.hashes {
		b := bucket(h)
		if _, ok := per[b]; !ok {
			used = append(used, b)
		}
		per[b] = append(per[b], i)
	}
	slices.Sort(used)
	out := make([]int, 0, len(m.keys))
	for _, b := range used {
		out = append(out, per[b]...)
	}
	return out
}

// Keys returns the keys in iteration order.
func (m *HashMap) Keys() []string {
	order := m.Order()
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = m.keys[k]
	}
	return out
}
