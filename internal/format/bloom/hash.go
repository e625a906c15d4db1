package bloom

// Hash type codes as serialized in the filter header (org.apache.hudi.common.util.hash.Hash).
const (
	hashJenkins int8 = 0 // only legacy filters (first int > 0) use it
	hashMurmur  int8 = 1 // every filter Hudi creates uses it
)

// Hash is Java's org.apache.hudi.common.util.hash.MurmurHash.hash(data, seed): MurmurHash2
// (m=0x5bd1e995, r=24) with two deviations from Appleby's C version that change the bits
// of every key whose length is not a multiple of 4, so a stock MurmurHash2 library
// cannot be used:
//
//   - the tail bytes are sign-extended (Java's byte is signed, and the port does
//     `(int) data[i] << 16` without `& 0xff`), which matters for non-ASCII UTF-8 bytes;
//   - the tail is consumed in reverse: Java XORs the FIRST tail byte shifted by
//     (left-1)*8 and the LAST one unshifted, where C does tail[2]<<16 ^ tail[1]<<8 ^ tail[0].
//
// All arithmetic is int32 with wrap-around and logical (>>>) right shifts.
func Hash(key []byte, seed int32) int32 { return murmur(key, seed) }

// murmur is generic so bloom filters can hash a Go string without copying it to []byte.
func murmur[T ~string | ~[]byte](data T, seed int32) int32 {
	const m = uint32(0x5bd1e995)
	const r = 24
	n := len(data)
	// Java computes seed ^ length on ints; uint32 arithmetic below is bit-identical.
	h := uint32(seed) ^ uint32(n)
	len4 := n >> 2
	for i := 0; i < len4; i++ {
		j := i << 2
		// Little-endian block; the top byte's sign extension in Java is shifted out.
		k := uint32(data[j]) | uint32(data[j+1])<<8 | uint32(data[j+2])<<16 | uint32(data[j+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	if left := n - len4<<2; left != 0 {
		// int32(int8(b)) reproduces Java's sign extension of a byte promoted to int;
		// the indices n-3, n-2, n-1 with shifts 16, 8, 0 reproduce the reversed order.
		if left >= 3 {
			h ^= uint32(int32(int8(data[n-3])) << 16)
		}
		if left >= 2 {
			h ^= uint32(int32(int8(data[n-2])) << 8)
		}
		h ^= uint32(int32(int8(data[n-1])))
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// jenkins is Java's org.apache.hudi.common.util.hash.JenkinsHash.hash(key, initval):
// Bob Jenkins' lookup3 hashlittle(), used only by legacy filters whose header starts
// with a positive int (nbHash) instead of the version -1.
func jenkins[T ~string | ~[]byte](key T, initval int32) int32 {
	length := len(key)
	// Java adds the int length and int initval to 0xdeadbeef as longs and masks to 32 bits.
	a := uint32(0xdeadbeef) + uint32(length) + uint32(initval)
	b, c := a, a
	off := 0
	for ; length > 12; off, length = off+12, length-12 {
		a += le32(key, off)
		b += le32(key, off+4)
		c += le32(key, off+8)
		a -= c
		a ^= rotl(c, 4)
		c += b
		b -= a
		b ^= rotl(a, 6)
		a += c
		c -= b
		c ^= rotl(b, 8)
		b += a
		a -= c
		a ^= rotl(c, 16)
		c += b
		b -= a
		b ^= rotl(a, 19)
		a += c
		c -= b
		c ^= rotl(b, 4)
		b += a
	}
	// Last block (the Java switch falls through from `length` down to 1).
	if length == 0 {
		return int32(c)
	}
	for i := length - 1; i >= 0; i-- {
		v := uint32(key[off+i]) << (8 * uint(i%4))
		switch i / 4 {
		case 2:
			c += v
		case 1:
			b += v
		default:
			a += v
		}
	}
	c ^= b
	c -= rotl(b, 14)
	a ^= c
	a -= rotl(c, 11)
	b ^= a
	b -= rotl(a, 25)
	c ^= b
	c -= rotl(b, 16)
	a ^= c
	a -= rotl(c, 4)
	b ^= a
	b -= rotl(a, 14)
	c ^= b
	c -= rotl(b, 24)
	return int32(c)
}

func le32[T ~string | ~[]byte](k T, i int) uint32 {
	return uint32(k[i]) | uint32(k[i+1])<<8 | uint32(k[i+2])<<16 | uint32(k[i+3])<<24
}

func rotl(v uint32, n uint) uint32 { return v<<n | v>>(32-n) }

// murmurM and murmurR are MurmurHash2's constants.
const (
	murmurM = uint32(0x5bd1e995)
	murmurR = 24
)

// Everything murmur does to the key bytes is independent of the seed: the mixed 4-byte
// blocks, the folded tail and the length. Bloom filters hash one key k times (seeding
// hash i with hash i-1), so they digest the key once (digestKey) and run only the
// seed-dependent chain (murmurDigested) per hash. The result is bit-identical to murmur.

// maxDigestBlocks bounds the keys digested on the stack (128 bytes); longer keys take
// the plain murmur path.
const maxDigestBlocks = 32

// digestKey writes key's mixed blocks into blocks (len(key)/4 of them, which must fit)
// and returns the folded tail and whether the key has one.
func digestKey(key string, blocks []uint32) (tail uint32, hasTail bool) {
	n := len(key)
	len4 := n >> 2
	blocks = blocks[:len4]
	for i := range blocks {
		s := key[i<<2 : i<<2+4]
		k := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		k *= murmurM
		k ^= k >> murmurR
		k *= murmurM
		blocks[i] = k
	}
	left := n & 3
	if left == 0 {
		return 0, false
	}
	// Same sign extension and reversed order as murmur's tail.
	if left >= 3 {
		tail ^= uint32(int32(int8(key[n-3])) << 16)
	}
	if left >= 2 {
		tail ^= uint32(int32(int8(key[n-2])) << 8)
	}
	tail ^= uint32(int32(int8(key[n-1])))
	return tail, true
}

// murmurDigested is murmur(key, seed) for a digested key of length n.
func murmurDigested(blocks []uint32, n, tail uint32, hasTail bool, seed uint32) uint32 {
	h := seed ^ n
	for _, k := range blocks {
		h = h*murmurM ^ k
	}
	if hasTail {
		h ^= tail
		h *= murmurM
	}
	h ^= h >> 13
	h *= murmurM
	h ^= h >> 15
	return h
}
