package bloom

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// probeAgrees checks that a Probe of (s, typ) answers as the deserialized filter does for
// every key.
func probeAgrees(t *testing.T, what, s, typ string, keys []string) {
	t.Helper()
	f, err := Deserialize(s, typ)
	if err != nil {
		t.Fatalf("%s: Deserialize: %v", what, err)
	}
	p, err := NewProbe(s, typ)
	if err != nil {
		t.Fatalf("%s: NewProbe: %v", what, err)
	}
	for _, k := range keys {
		if got, want := p.MightContain(k), f.MightContain(k); got != want {
			t.Fatalf("%s: Probe.MightContain(%q) = %v, Deserialize's filter says %v", what, k, got, want)
		}
	}
}

func TestProbeMatchesDeserialize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	key := func() string {
		n := rng.IntN(200) // past 4*maxDigestBlocks too: the undigested path
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc0123-_é😀"[rng.IntN(14)]
		}
		return string(b)
	}
	for _, c := range []struct {
		typ  Type
		o    Options
		adds int
	}{
		{Simple, Options{NumEntries: 100, FPP: 0.01}, 80},
		{Simple, Options{NumEntries: 7, FPP: 0.3}, 50}, // saturated: most probes pass
		{DynamicV0, Options{NumEntries: 50, FPP: 0.05, MaxEntries: 400}, 300},
		{DynamicV0, Options{NumEntries: 1000, FPP: 1e-6, MaxEntries: 2000}, 10},
	} {
		f, err := New(c.typ, c.o)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for range c.adds {
			k := key()
			f.Add(k)
			keys = append(keys, k)
		}
		for range 2000 {
			keys = append(keys, key())
		}
		keys = append(keys, "")
		s := f.Serialize()
		what := fmt.Sprintf("%s %+v", c.typ, c.o)
		probeAgrees(t, what, s, string(c.typ), keys)
		// Java's decoder takes the text without its padding too.
		probeAgrees(t, what+" unpadded", strings.TrimRight(s, "="), string(c.typ), keys)
	}
	// The legacy header: Jenkins hashing, no hash-type byte.
	legacy := newVector(3, hashJenkins, 64)
	legacy.add("legacy-key")
	raw := append(appendInt32(appendInt32(nil, 3), 64), legacy.bits...)
	probeAgrees(t, "legacy", base64.StdEncoding.EncodeToString(raw), "", []string{"legacy-key", "other", "x"})
}

// Every footer filter Spark wrote in the fixtures answers the same through Probe, for the
// file's own keys and for keys it does not hold.
func TestProbeMatchesSparkFooters(t *testing.T) {
	n := 0
	for _, table := range []string{"cow/v6_nonpartitioned", "mor-parquet/v6_complexkeygen_hivestyle", "trips-mor-avro/v8_trips_8i3u1d", "cow/v9_txns_complex_meta"} {
		for _, ff := range readFooterFiles(t, table) {
			keys := append([]string(nil), ff.keys...)
			for _, k := range ff.keys {
				keys = append(keys, k+"-absent", "x"+k)
			}
			probeAgrees(t, ff.path, ff.serialized, ff.typeCode, keys)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no Spark footer checked")
	}
}

func TestProbeErrors(t *testing.T) {
	for _, c := range malformedFilters() {
		if _, err := NewProbe(c.in, c.typ); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewProbe(%.40q, %q) err = %v, want mention of %q", c.in, c.typ, err, c.want)
		}
	}
	// Unreadable bit bytes prune nothing: a bit that lies in them reads as set. Bytes
	// 15–17 of the value are characters 20–23.
	s := []byte(base64.StdEncoding.EncodeToString(append(filterHeader(3, 1, 64), make([]byte, 8)...)))
	copy(s[20:24], "****")
	p, err := NewProbe(string(s), "")
	if err != nil {
		t.Fatal(err)
	}
	for pos := 0; pos < 64; pos++ {
		if want := pos/8 >= 2 && pos/8 <= 4; p.bit(&p.rows[0], pos) != want {
			t.Errorf("bit %d (byte %d of the vector) = %v, want %v", pos, 13+pos/8, !want, want)
		}
	}
}

func FuzzProbe(f *testing.F) {
	for _, typ := range []Type{Simple, DynamicV0} {
		flt, _ := New(typ, Options{NumEntries: 3, FPP: 0.1, MaxEntries: 6})
		for i := 0; i < 8; i++ {
			flt.Add(fmt.Sprint(i))
		}
		f.Add(flt.Serialize(), string(typ), "3")
	}
	f.Add(base64.StdEncoding.EncodeToString([]byte{0, 0, 0, 2, 0, 0, 0, 9, 0xff, 0x01}), "", "k")
	f.Fuzz(func(t *testing.T, s, typeCode, key string) {
		p, err := NewProbe(s, typeCode)
		flt, ferr := Deserialize(s, typeCode)
		if err != nil {
			return
		}
		got := p.MightContain(key)
		// Where both parse, they agree, except that Probe never validates bit bytes it
		// does not read: Deserialize may reject a text Probe accepts.
		if ferr == nil && got != flt.MightContain(key) {
			t.Fatalf("Probe says %v, Deserialize's filter %v for %q", got, !got, key)
		}
	})
}
