package write

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hudi-go/hudi/internal/javastr"
)

// inRange must select exactly the keys a comparison of each key with the footer's range,
// in Java's String order, would keep: it is what decides whether a base file is read.
func TestWantedKeysInRange(t *testing.T) {
	// Byte order and Java order disagree on the emoji (surrogates D83D DE00) and U+E000.
	alphabet := []string{"a", "b", "z", "\U0001F600", "\uE000", "\u00e9", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		s := ""
		for range rng.IntN(4) {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		return s
	}
	for round := range 200 {
		w := newWantedKeys(0)
		for i := range rng.IntN(40) {
			w.add(word(), i)
		}
		lo, hi := word(), word()
		if round%3 == 0 && w.len() > 0 { // bounds that are wanted keys themselves (inclusive)
			keys := w.all()
			lo, hi = keys[rng.IntN(len(keys))], keys[rng.IntN(len(keys))]
		}
		var want []string
		for k := range w.recs {
			if javastr.Compare(k, lo) >= 0 && javastr.Compare(k, hi) <= 0 {
				want = append(want, k)
			}
		}
		slices.SortFunc(want, javastr.Compare)
		got := w.inRange(lo, hi)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("round %d: inRange(%q, %q) of %q = %q, want %q", round, lo, hi, w.all(), got, want)
		}
	}
}

// all returns the keys in Java String order whatever order they came in; input already
// in that order is taken as is (no sort), and only Java's order counts as sorted: byte
// order puts U+E000 before an emoji, Java's UTF-16 order after it.
func TestWantedKeysAll(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []string
		inOrder bool
	}{
		{"sorted", []string{"a", "b", "c", "d"}, true},
		{"sorted with repeats", []string{"a", "a", "b", "b", "b", "c"}, true},
		{"repeat of an earlier key", []string{"a", "b", "a", "c"}, true},
		{"descending", []string{"d", "c", "b", "a"}, false},
		{"one out of place", []string{"a", "c", "b", "d"}, false},
		{"byte order, not Java order", []string{"x", "\uE000", "\U0001F600"}, false},
		{"Java order", []string{"x", "\U0001F600", "\uE000"}, true},
		{"empty", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWantedKeys(len(tc.in))
			for i, k := range tc.in {
				w.add(k, i)
			}
			if w.inOrder != tc.inOrder {
				t.Errorf("inOrder = %v, want %v", w.inOrder, tc.inOrder)
			}
			var want []string
			for k := range w.recs {
				want = append(want, k)
			}
			slices.SortFunc(want, javastr.Compare)
			if got := w.all(); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("all() = %q, want %q", got, want)
			}
			for k, recs := range w.recs {
				var wantRecs []int
				for i, in := range tc.in {
					if in == k {
						wantRecs = append(wantRecs, i)
					}
				}
				if !slices.Equal(recs, wantRecs) {
					t.Errorf("key %q: records %v, want %v", k, recs, wantRecs)
				}
			}
		})
	}
}
