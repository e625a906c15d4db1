package bloom

import (
	"fmt"
	"testing"
)

// Resume + the remaining keys must serialize exactly as a fresh filter fed all keys, across
// row growth, the bound (round-robin) and both types; mismatched settings or counts refuse.
func TestResumeMatchesFreshFilter(t *testing.T) {
	key := func(i int) string { return fmt.Sprintf("key-%07d", i) }
	small := Options{NumEntries: 100, FPP: 0.01, MaxEntries: 350}
	for _, typ := range []Type{Simple, DynamicV0} {
		for _, c := range []struct{ n, more int }{{0, 5}, {1, 0}, {37, 20}, {100, 1}, {99, 2}, {250, 300}, {350, 40}, {351, 0}, {800, 123}} {
			base := mustNew(t, typ, small)
			for i := 0; i < c.n; i++ {
				base.Add(key(i))
			}
			all := mustNew(t, typ, small)
			for i := 0; i < c.n+c.more; i++ {
				all.Add(key(i))
			}
			r, ok := Resume(typ, small, base.Serialize(), string(typ), int64(c.n))
			if !ok {
				t.Fatalf("%s n=%d: not resumed", typ, c.n)
			}
			for i := c.n; i < c.n+c.more; i++ {
				r.Add(key(i))
			}
			if r.Serialize() != all.Serialize() {
				t.Errorf("%s n=%d more=%d: resumed filter differs from a fresh one", typ, c.n, c.more)
			}
		}
	}
	base := mustNew(t, DynamicV0, small)
	for i := 0; i < 40; i++ {
		base.Add(key(i))
	}
	s := base.Serialize()
	if _, ok := Resume(DynamicV0, small, s, string(DynamicV0), 41); ok {
		t.Error("resumed with a key count the filter does not hold")
	}
	if _, ok := Resume(DynamicV0, Options{NumEntries: 200, FPP: 0.01, MaxEntries: 350}, s, string(DynamicV0), 40); ok {
		t.Error("resumed a filter built with other settings")
	}
	if _, ok := Resume(Simple, small, s, string(DynamicV0), 40); ok {
		t.Error("resumed a filter of another type")
	}
}

// OrderFree: within the first dynamic row (or for SIMPLE) the filter is the same whatever
// the key order, so a rewrite that moves updated keys to the end may resume it.
func TestOrderFree(t *testing.T) {
	o := Options{NumEntries: 100, FPP: 0.01, MaxEntries: 350}
	for _, typ := range []Type{Simple, DynamicV0} {
		a, b := mustNew(t, typ, o), mustNew(t, typ, o)
		for i := 0; i < 90; i++ {
			a.Add(fmt.Sprint(i))
			b.Add(fmt.Sprint(89 - i))
		}
		if !OrderFree(a, 90, 10) {
			t.Errorf("%s: 100 keys in a 100-key row not order-free", typ)
		}
		if a.Serialize() != b.Serialize() {
			t.Errorf("%s: order changed the filter", typ)
		}
	}
	d := mustNew(t, DynamicV0, o)
	if OrderFree(d, 90, 11) {
		t.Error("101 keys in a 100-key row reported order-free")
	}
}
