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

// NewHashMap returns an empty map.
func NewHashMap() *HashMap { return &HashMap{buckets: 16, index: map[string]int{}} }

// Put adds key with hash h (its hashCode()); a key already present keeps its place.
func (m *HashMap) Put(key string, h int32) {
	if _, ok := m.index[key]; ok {
		return
	}
	m.index[key] = len(m.keys)
	m.keys = append(m.keys, key)
	m.hashes = append(m.hashes, h)
	// Java resizes when the size passes capacity × 0.75.
	for uint32(len(m.keys)) > m.buckets/4*3 {
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
