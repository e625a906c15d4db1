package bloom

import (
	"testing"
)

// Expected values are Java's MurmurHash.hash(bytes, seed). They were produced by an
// independent literal port of the Java method (Java int arithmetic, signed bytes) and
// agree with this package's Hash, which reproduces every real Spark-written footer in
// TestGoldenSparkFooters — 180 of whose keys have 2- or 3-byte tails, the case where the
// Java tail order differs from C MurmurHash2.
//
// Hand-computed checks:
//   - "" seed 0: h = 0^len = 0, no blocks, no tail; 0 stays 0 through the final mix → 0.
//   - "a" seed 0: h = 0^1 = 1; tail h ^= 0x61 → 0x60; h *= m → 0x6eb797e0;
//     h ^= h>>>13 → 0x6eb4e25c; h *= m → 0x92697b8c; h ^= h>>>15 → 0x92685f5e = -1838653602.
//   - "ab" seed 0: Java XORs 'a'<<8 ^ 'b' into h and gets 1525573013; C MurmurHash2
//     XORs 'b'<<8 ^ 'a' and gets 446775395 (see TestTailOrderQuirk).
var murmurVectors = []struct {
	key  string
	seed int32
	want int32
}{
	{"", 0, 0}, {"", 1, 1540447798}, {"", -1, -1285986640},
	{"a", 0, -1838653602}, {"a", 1, 626045324}, {"a", -1, 713507990},
	{"ab", 0, 1525573013}, {"ab", 1, -419373624}, {"ab", -1, -1797532438},
	{"abc", 0, 1775488903}, {"abc", 1, -2144439693}, {"abc", -1, -1465591341},
	{"abcd", 0, 646393889}, {"abcd", 1, -918586858}, {"abcd", -1, 1555318719},
	{"abcde", 0, 1594468574}, {"abcde", 1, -825729666}, {"abcde", -1, -392878951},
	{"abcdef", 0, -1641135381}, {"abcdef", 1, 2141321803}, {"abcdef", -1, 1479082514},
	{"abcdefg", 0, -14544559}, {"abcdefg", 1, 1451847678}, {"abcdefg", -1, -123323533},
	{"abcdefgh", 0, 69371878}, {"abcdefgh", 1, 1080400154}, {"abcdefgh", -1, 2027089043},
	{"abcdefghi", 0, -265184601}, {"abcdefghi", 1, 326929598}, {"abcdefghi", -1, 517985587},
	// Non-ASCII: UTF-8 bytes >= 0x80 in the tail are sign-extended by Java.
	{"é", 0, -384040333}, {"é", 1, -913757653}, {"é", -1, -1125067414},
	{"aé", 0, -728189200}, {"aé", 1, 1091367944}, {"aé", -1, 220612073},
	{"ü1", 0, -253663141}, {"ü1", 1, 585974690}, {"ü1", -1, 1570130720},
	{"日本", 0, 659168028}, {"日本", 1, -1998176048}, {"日本", -1, -727673871},
	{"日本語", 0, -343686998}, {"日本語", 1, 1434727306}, {"日本語", -1, 93139837},
	{"€uro", 0, 1334153203}, {"€uro", 1, 1856793992}, {"€uro", -1, -966571015},
	{"🚀", 0, 1616067805}, {"🚀", 1, -1440288775}, {"🚀", -1, 1541477000},
	{"x🚀", 0, 1850930705}, {"x🚀", 1, -939286048}, {"x🚀", -1, -884461220},
	{"ÿ", 0, 1724310515}, {"ÿ", 1, -871853991}, {"ÿ", -1, -1877266713},
	// Real 15-byte record keys of mor-parquet/v6_complexkeygen_hivestyle.
	{"id:1,name:Alice", 0, 71696166}, {"id:1,name:Alice", 1, 2011085419}, {"id:1,name:Alice", -1, 669643219},
	{"id:3,name:Carol", 0, 1916687947}, {"id:3,name:Carol", 1, -1483811346}, {"id:3,name:Carol", -1, -1802549251},
	// Raw (non-UTF-8) bytes: 0x80 0xff 0x7f tail, and a lone 0xc3.
	{"\x80\xff\x7f", 0x12345678, -1184358586},
	{"\xc3", 0, 1043732185},
}

func TestMurmurVectors(t *testing.T) {
	for _, v := range murmurVectors {
		if got := Hash([]byte(v.key), v.seed); got != v.want {
			t.Errorf("Hash(%q, %d) = %d, want %d", v.key, v.seed, got, v.want)
		}
		// The string-typed path used by filters must agree with the []byte one.
		if got := murmur(v.key, v.seed); got != v.want {
			t.Errorf("murmur(string %q, %d) = %d, want %d", v.key, v.seed, got, v.want)
		}
	}
}

// canonicalMurmur2 is Appleby's C MurmurHash2 tail handling (tail[2]<<16 ^ tail[1]<<8 ^
// tail[0], unsigned bytes): what a stock library computes, and what Hudi does NOT.
func canonicalMurmur2(data []byte, seed int32) int32 {
	const m = uint32(0x5bd1e995)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	i := 0
	for ; n-i >= 4; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h = h*m ^ k
	}
	switch n - i {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// TestTailOrderQuirk pins down where Java and C MurmurHash2 agree (len%4 == 0, or a 1-byte
// ASCII tail) and where they do not, so nobody "fixes" Hash into the canonical form.
func TestTailOrderQuirk(t *testing.T) {
	for _, key := range []string{"abcd", "abcde", "abcdefgh", "abcdefghi"} {
		if Hash([]byte(key), 0) != canonicalMurmur2([]byte(key), 0) {
			t.Errorf("%q: Java and C MurmurHash2 should agree", key)
		}
	}
	for _, key := range []string{"ab", "abc", "abcdef", "abcdefg", "id:1,name:Alice", "é", "\xc3"} {
		if Hash([]byte(key), 0) == canonicalMurmur2([]byte(key), 0) {
			t.Errorf("%q: Java and C MurmurHash2 unexpectedly agree", key)
		}
	}
	if got := canonicalMurmur2([]byte("ab"), 0); got != 446775395 {
		t.Errorf("canonical MurmurHash2(ab) = %d, want 446775395", got)
	}
}

// Real footers reject the canonical hash: the 15-byte keys of the complex-key fixture
// (len%4 == 3) are members only under the Java tail order.
func TestCanonicalHashMissesRealFooter(t *testing.T) {
	ffs := readFooterFiles(t, "mor-parquet/v6_complexkeygen_hivestyle")
	misses, total := 0, 0
	for _, ff := range ffs {
		f, err := Deserialize(ff.serialized, ff.typeCode)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := f.(*dynamicFilter)
		if !ok {
			t.Fatalf("%s: expected a DYNAMIC_V0 footer, got %s", ff.path, f.Type())
		}
		row := d.rows[0]
		for _, k := range ff.keys {
			if Hash([]byte(k), 0) == canonicalMurmur2([]byte(k), 0) {
				// The hashes agree on keys with len%4 < 2 ("id:2,name:Bob") and on
				// palindromic 3-byte tails ("id:4,name:Diana" ends in "ana").
				continue
			}
			total++
			h := int32(0)
			for i := int32(0); i < row.nbHash; i++ {
				h = canonicalMurmur2([]byte(k), h)
				p := position(h, row.size)
				if row.bits[p>>3]&(1<<(p&7)) == 0 {
					misses++
					break
				}
			}
		}
	}
	if total == 0 || misses != total {
		t.Errorf("canonical MurmurHash2 finds %d of %d keys it hashes differently absent; want all absent", misses, total)
	}
}

// lookup3.c driver5 vectors for hashlittle (Jenkins), the hash of legacy filters.
func TestJenkinsVectors(t *testing.T) {
	const four = "Four score and seven years ago"
	for _, v := range []struct {
		key  string
		seed uint32
		want uint32
	}{
		{"", 0, 0xdeadbeef},
		{"", 0xdeadbeef, 0xbd5b7dde},
		{four, 0, 0x17770551},
		{four, 1, 0xcd628161},
	} {
		if got := uint32(jenkins(v.key, int32(v.seed))); got != v.want {
			t.Errorf("jenkins(%q, %#x) = %#08x, want %#08x", v.key, v.seed, got, v.want)
		}
		if got := uint32(jenkins([]byte(v.key), int32(v.seed))); got != v.want {
			t.Errorf("jenkins([]byte %q, %#x) = %#08x, want %#08x", v.key, v.seed, got, v.want)
		}
	}
	// Every length through 3 full blocks + tails, against a straightforward reference.
	key := []byte("The quick brown fox jumps over the lazy dog, 0123456789")
	for n := 0; n <= len(key); n++ {
		if got, want := jenkins(key[:n], 7), refHashlittle(key[:n], 7); got != want {
			t.Errorf("jenkins(len %d) = %d, reference %d", n, got, want)
		}
	}
}

// refHashlittle is lookup3 hashlittle written from the C (byte-at-a-time path).
func refHashlittle(k []byte, initval int32) int32 {
	rot := func(x uint32, n uint) uint32 { return x<<n | x>>(32-n) }
	a := 0xdeadbeef + uint32(len(k)) + uint32(initval)
	b, c := a, a
	for len(k) > 12 {
		a += uint32(k[0]) + uint32(k[1])<<8 + uint32(k[2])<<16 + uint32(k[3])<<24
		b += uint32(k[4]) + uint32(k[5])<<8 + uint32(k[6])<<16 + uint32(k[7])<<24
		c += uint32(k[8]) + uint32(k[9])<<8 + uint32(k[10])<<16 + uint32(k[11])<<24
		a -= c
		a ^= rot(c, 4)
		c += b
		b -= a
		b ^= rot(a, 6)
		a += c
		c -= b
		c ^= rot(b, 8)
		b += a
		a -= c
		a ^= rot(c, 16)
		c += b
		b -= a
		b ^= rot(a, 19)
		a += c
		c -= b
		c ^= rot(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return int32(c)
	}
	var w [12]byte
	copy(w[:], k)
	a += uint32(w[0]) + uint32(w[1])<<8 + uint32(w[2])<<16 + uint32(w[3])<<24
	b += uint32(w[4]) + uint32(w[5])<<8 + uint32(w[6])<<16 + uint32(w[7])<<24
	c += uint32(w[8]) + uint32(w[9])<<8 + uint32(w[10])<<16 + uint32(w[11])<<24
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return int32(c)
}
