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
