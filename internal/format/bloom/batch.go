package bloom

import "slices"

// Batched adds. One key's k hashes form a single dependency chain (hash i seeds hash
// i+1, and each 4-byte block costs a dependent multiply), so hashing one key at a time
// leaves the CPU mostly waiting on multiply latency. Keys are independent, though, and
// setting bits commutes, so Add digests a Murmur key (digestKey) into a small batch and
// hashes lanes keys of equal length together, interleaving their chains. Which row a
// key goes to is decided at Add time, in Add order, exactly as before; only the moment
// its bits reach the row's vector moves.
//
// Readers never flush the batch (they stay free of writes, so concurrent MightContain and
// Serialize calls remain as safe as before): Serialize ORs the pending keys' bits into
// its output copy, and MightContain consults them when the batch is non-empty.

// lanes is the batch size: four interleaved chains keep the multiplier busy.
const lanes = 4

type batch struct {
	n      int // pending keys, < lanes between calls
	keyLen int // length shared by the pending keys
	rows   [lanes]*vector
	tail   [lanes]uint32
	blocks [lanes][maxDigestBlocks]uint32
}

// add records key for row: batched when row hashes with Murmur and the key fits the
// digest buffer, else (Jenkins rows of legacy filters, keys over 128 bytes) added now.
func (b *batch) add(row *vector, key string) {
	if row.hashType != hashMurmur || len(key) > 4*maxDigestBlocks {
		row.add(key)
		return
	}
	if b.n > 0 && len(key) != b.keyLen {
		b.flush()
	}
	l := b.n
	b.tail[l], _ = digestKey(key, b.blocks[l][:])
	b.rows[l] = row
	b.keyLen = len(key)
	b.n++
	if b.n == lanes {
		b.flush()
	}
}

// flush sets the bits of every pending key.
func (b *batch) flush() {
	if b.n == lanes && b.rows[0].nbHash == b.rows[1].nbHash && b.rows[0].nbHash == b.rows[2].nbHash && b.rows[0].nbHash == b.rows[3].nbHash {
		b.addLanes()
	} else {
		for l := 0; l < b.n; l++ {
			b.rows[l].addDigested(b.lane(l))
		}
	}
	b.n = 0
	b.rows = [lanes]*vector{}
}

// lane returns lane l's digest in addDigested/testDigested argument order.
func (b *batch) lane(l int) ([]uint32, uint32, uint32, bool) {
	return b.blocks[l][:b.keyLen>>2], uint32(b.keyLen), b.tail[l], b.keyLen&3 != 0
}

// addLanes is addDigested for four keys of equal length whose rows share nbHash.
func (b *batch) addLanes() {
	const m = murmurM
	n := uint32(b.keyLen)
	hasTail := b.keyLen&3 != 0
	len4 := b.keyLen >> 2
	b0 := b.blocks[0][:len4]
	b1 := b.blocks[1][:len(b0)]
	b2 := b.blocks[2][:len(b0)]
	b3 := b.blocks[3][:len(b0)]
	t0, t1, t2, t3 := b.tail[0], b.tail[1], b.tail[2], b.tail[3]
	v0, v1, v2, v3 := b.rows[0], b.rows[1], b.rows[2], b.rows[3]
	var h0, h1, h2, h3 uint32
	for i := v0.nbHash; i > 0; i-- {
		a0, a1, a2, a3 := h0^n, h1^n, h2^n, h3^n
		for j := range b0 {
			a0 = a0*m ^ b0[j]
			a1 = a1*m ^ b1[j]
			a2 = a2*m ^ b2[j]
			a3 = a3*m ^ b3[j]
		}
		if hasTail {
			a0 = (a0 ^ t0) * m
			a1 = (a1 ^ t1) * m
			a2 = (a2 ^ t2) * m
			a3 = (a3 ^ t3) * m
		}
		a0 ^= a0 >> 13
		a1 ^= a1 >> 13
		a2 ^= a2 >> 13
		a3 ^= a3 >> 13
		a0 *= m
		a1 *= m
		a2 *= m
		a3 *= m
		a0 ^= a0 >> 15
		a1 ^= a1 >> 15
		a2 ^= a2 >> 15
		a3 ^= a3 >> 15
		h0, h1, h2, h3 = a0, a1, a2, a3
		p0 := fastPosition(a0, v0.recip, v0.size)
		v0.bits[p0>>3] |= 1 << (p0 & 7)
		p1 := fastPosition(a1, v1.recip, v1.size)
		v1.bits[p1>>3] |= 1 << (p1 & 7)
		p2 := fastPosition(a2, v2.recip, v2.size)
		v2.bits[p2>>3] |= 1 << (p2 & 7)
		p3 := fastPosition(a3, v3.recip, v3.size)
		v3.bits[p3>>3] |= 1 << (p3 & 7)
	}
}

// applyTo ORs the bits of the pending keys of row v into bitv, a copy of v.bits.
func (b *batch) applyTo(v *vector, bitv []byte) {
	for l := 0; l < b.n; l++ {
		if b.rows[l] != v {
			continue
		}
		blocks, n, tail, hasTail := b.lane(l)
		var h uint32
		for i := int32(0); i < v.nbHash; i++ {
			h = murmurDigested(blocks, n, tail, hasTail, h)
			p := fastPosition(h, v.recip, v.size)
			bitv[p>>3] |= 1 << (p & 7)
		}
	}
}

// testPending is v.test(key) with the pending keys' bits counted as set. Slower, but
// only a read between Adds that have not filled a batch takes it.
func (b *batch) testPending(v *vector, key string) bool {
	var extra []uint32 // bit positions of the pending keys of row v
	for l := 0; l < b.n; l++ {
		if b.rows[l] != v {
			continue
		}
		blocks, n, tail, hasTail := b.lane(l)
		var h uint32
		for i := int32(0); i < v.nbHash; i++ {
			h = murmurDigested(blocks, n, tail, hasTail, h)
			extra = append(extra, fastPosition(h, v.recip, v.size))
		}
	}
	if len(extra) == 0 {
		return v.test(key)
	}
	var h int32
	for i := int32(0); i < v.nbHash; i++ {
		h = v.next(key, h)
		p := position(h, v.size)
		if v.bits[p>>3]&(1<<(p&7)) == 0 && !slices.Contains(extra, uint32(p)) {
			return false
		}
	}
	return true
}
