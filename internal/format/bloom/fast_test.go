package bloom

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The hot paths (digested murmur, fastmod positions, batched adds) must be bit-identical
// to the straightforward Java port. These tests pit them against a reference built only
// from murmur and position, over random keys (every length 0..140, non-ASCII bytes,
// random seeds) and random filter shapes.

func TestFastPositionMatchesJava(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int32{1, 2, 3, 7, 8, 64, 431328, 431329, 2875518, 43132763, math.MaxInt32, math.MaxInt32 - 1, 1 << 30, 1<<31 - 3}
	for i := 0; i < 200; i++ {
		sizes = append(sizes, int32(rng.Uint32()>>1)|1, int32(rng.IntN(1<<20))+1)
	}
	hs := []int32{0, 1, -1, 2, -2, math.MaxInt32, math.MinInt32, math.MinInt32 + 1, math.MaxInt32 - 1}
	for _, size := range sizes {
		recip := fastmodReciprocal(size)
		check := func(h int32) {
			if got, want := fastPosition(uint32(h), recip, size), position(h, size); int32(got) != want {
				t.Fatalf("fastPosition(%d, size %d) = %d, want %d", h, size, got, want)
			}
		}
		for _, h := range hs {
			check(h)
			check(h + size)
			check(h - size)
		}
		for j := 0; j < 2000; j++ {
			check(int32(rng.Uint32()))
		}
	}
}

func randKey(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		switch rng.IntN(3) {
		case 0:
			b[i] = byte(rng.Uint32()) // any byte, including >= 0x80 (sign extension)
		default:
			b[i] = "0123456789abcdef-:,_"[rng.IntN(20)]
		}
	}
	return string(b)
}

func TestMurmurDigestedMatchesMurmur(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 4*maxDigestBlocks; n++ {
		for j := 0; j < 200; j++ {
			key := randKey(rng, n)
			var buf [maxDigestBlocks]uint32
			tail, hasTail := digestKey(key, buf[:])
			seed := int32(rng.Uint32())
			if j == 0 {
				seed = 0
			}
			if got, want := int32(murmurDigested(buf[:n>>2], uint32(n), tail, hasTail, uint32(seed))), murmur(key, seed); got != want {
				t.Fatalf("len %d key %q seed %d: digested %d, murmur %d", n, key, seed, got, want)
			}
		}
	}
}

// refVector is the plain Java port: hash i = murmur(key, hash i-1), bit abs(h % size).
type refVector struct {
	k, size int32
	bits    []byte
}

func (v *refVector) add(key string) {
	var h int32
	for i := int32(0); i < v.k; i++ {
		h = murmur(key, h)
		p := position(h, v.size)
		v.bits[p>>3] |= 1 << (p & 7)
	}
}

func (v *refVector) test(key string) bool {
	var h int32
	for i := int32(0); i < v.k; i++ {
		h = murmur(key, h)
		p := position(h, v.size)
		if v.bits[p>>3]&(1<<(p&7)) == 0 {
			return false
		}
	}
	return true
}

func (v *refVector) write(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, 0xffffffff) // version -1
	b = binary.BigEndian.AppendUint32(b, uint32(v.k))
	b = append(b, byte(hashMurmur))
	b = binary.BigEndian.AppendUint32(b, uint32(v.size))
	return append(b, v.bits...)
}

// refDynamic is InternalDynamicBloomFilter's schedule, written out independently.
type refDynamic struct {
	k, size, nr, maxNr, count int32
	reachedMax                bool
	cur                       int
	rows                      []*refVector
}

func (d *refDynamic) newRow() *refVector {
	r := &refVector{k: d.k, size: d.size, bits: make([]byte, nBytes(d.size))}
	d.rows = append(d.rows, r)
	return r
}

func (d *refDynamic) add(key string) {
	if key == "" {
		return
	}
	var row *refVector
	switch {
	case d.reachedMax:
		row = d.rows[d.cur%len(d.rows)]
		d.cur++
	case d.count >= d.nr && int32(len(d.rows))*d.nr < d.maxNr:
		row = d.newRow()
		d.count = 0
	case d.count >= d.nr:
		d.reachedMax = true
		row = d.rows[0]
	default:
		row = d.rows[len(d.rows)-1]
	}
	row.add(key)
	d.count++
}

func (d *refDynamic) serialize() string {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0xffffffff) // version -1
	b = binary.BigEndian.AppendUint32(b, uint32(d.k))
	b = append(b, byte(hashMurmur))
	b = binary.BigEndian.AppendUint32(b, uint32(d.size))
	b = binary.BigEndian.AppendUint32(b, uint32(d.nr))
	b = binary.BigEndian.AppendUint32(b, uint32(d.count))
	b = binary.BigEndian.AppendUint32(b, uint32(len(d.rows)))
	for _, r := range d.rows {
		b = r.write(b)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (d *refDynamic) mightContain(key string) bool {
	if key == "" {
		return true
	}
	for _, r := range d.rows {
		if r.test(key) {
			return true
		}
	}
	return false
}

// keyStream yields keys whose lengths vary in runs, so batches of equal-length keys,
// length changes mid-batch, long keys and empty keys all occur.
func keyStream(rng *rand.Rand, n int) []string {
	keys := make([]string, 0, n)
	for len(keys) < n {
		l := rng.IntN(160)
		if rng.IntN(4) == 0 {
			l = 36
		}
		run := 1 + rng.IntN(9)
		for j := 0; j < run && len(keys) < n; j++ {
			keys = append(keys, randKey(rng, l))
		}
	}
	return keys
}

func TestFastFiltersMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 40; iter++ {
		o := Options{NumEntries: 1 + rng.IntN(200), FPP: []float64{0.5, 0.01, 1e-4, 1e-9}[rng.IntN(4)], MaxEntries: 1 + rng.IntN(800)}
		keys := keyStream(rng, rng.IntN(1500))
		absent := keyStream(rng, 300)

		f := mustNew(t, DynamicV0, o)
		fd := f.(*dynamicFilter)
		ref := &refDynamic{k: fd.k, size: fd.size, nr: fd.nr, maxNr: fd.maxNr}
		ref.newRow()
		s := mustNew(t, Simple, o)
		sv := s.(*simpleFilter).v
		refS := &refVector{k: sv.nbHash, size: sv.size, bits: make([]byte, len(sv.bits))}
		for i, k := range keys {
			f.Add(k)
			ref.add(k)
			s.Add(k)
			if k != "" {
				refS.add(k)
			}
			// Read at random points too, so reads see keys still being batched.
			if rng.IntN(50) == 0 || i == len(keys)-1 {
				if got, want := f.Serialize(), ref.serialize(); got != want {
					t.Fatalf("iter %d %+v: DYNAMIC_V0 after %d keys differs from reference", iter, o, i+1)
				}
				if got, want := s.Serialize(), base64.StdEncoding.EncodeToString(refS.write(nil)); got != want {
					t.Fatalf("iter %d %+v: SIMPLE after %d keys differs from reference", iter, o, i+1)
				}
				probe := append(append([]string{}, absent[:20]...), keys[max(0, i-10):i+1]...)
				for _, q := range probe {
					if got, want := f.MightContain(q), ref.mightContain(q); got != want {
						t.Fatalf("iter %d: DYNAMIC_V0 MightContain(%q) = %v, reference %v", iter, q, got, want)
					}
					if got, want := s.MightContain(q), q == "" || refS.test(q); got != want {
						t.Fatalf("iter %d: SIMPLE MightContain(%q) = %v, reference %v", iter, q, got, want)
					}
				}
			}
		}
		for _, q := range absent {
			if got, want := f.MightContain(q), ref.mightContain(q); got != want {
				t.Fatalf("iter %d: MightContain(%q) = %v, reference %v", iter, q, got, want)
			}
		}
		// Round trip: a deserialized filter (maxNr 0) keeps adding round-robin.
		g, err := Deserialize(f.Serialize(), "DYNAMIC_V0")
		if err != nil {
			t.Fatal(err)
		}
		ref.maxNr = 0
		ref.reachedMax, ref.cur = false, 0
		for _, k := range keyStream(rng, 50) {
			g.Add(k)
			ref.add(k)
		}
		if g.Serialize() != ref.serialize() {
			t.Fatalf("iter %d: deserialized DYNAMIC_V0 after more adds differs from reference", iter)
		}
	}
}
