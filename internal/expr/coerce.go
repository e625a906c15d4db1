package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/format/jsonl"
)

// Literal conversion. Integer-like columns (ints, decimals, dates, timestamps, times) are all
// compared as integers against an exact rational literal expressed in the column's units, so
// `int_col > 2.5`, `dec_col = 1.50` and `ts >= '2024-01-15 10:30:00.5'` are all exact.

// ratOf returns a number literal, or a string holding a decimal number, as an exact rational.
func ratOf(l Literal) (*big.Rat, bool) {
	if (l.Kind != LitNumber && l.Kind != LitString) || !isDecimalText(l.Text) {
		return nil, false
	}
	// Bound the exponent: big.Rat would happily materialise 10^99999999.
	if i := strings.IndexAny(l.Text, "eE"); i >= 0 {
		e, err := strconv.Atoi(l.Text[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return nil, false
		}
	}
	return new(big.Rat).SetString(l.Text)
}

func isDecimalText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

func floatOf(l Literal) (float64, bool) {
	if l.Kind != LitNumber && l.Kind != LitString {
		return 0, false
	}
	switch l.Text {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if !isDecimalText(l.Text) {
		return 0, false
	}
	f, err := strconv.ParseFloat(l.Text, 64)
	if err != nil && f == 0 {
		return 0, false
	}
	return f, true
}

func boolOf(l Literal) (bool, bool) {
	switch l.Kind {
	case LitBool:
		return l.Bool, true
	case LitString:
		switch l.Text {
		case "true", "TRUE", "True":
			return true, true
		case "false", "FALSE", "False":
			return false, true
		}
	}
	return false, false
}

// textOf is the literal compared against string columns: strings as they are, numbers as
// written, booleans as true/false.
func textOf(l Literal) (string, bool) {
	switch l.Kind {
	case LitString, LitNumber:
		return l.Text, true
	case LitBool:
		return strconv.FormatBool(l.Bool), true
	}
	return "", false
}

func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1_000
	case arrow.Microsecond:
		return 1_000_000
	}
	return 1_000_000_000
}

// instantRat parses a timestamp literal ('2024-01-15 10:30:00', RFC 3339 with any offset,
// '2024-01-15') as a rational count of 1/perSec units since the epoch. A number literal is
// taken as a raw count of those units.
func instantRat(l Literal, perSec int64) (*big.Rat, error) {
	if l.Kind == LitNumber {
		if r, ok := ratOf(l); ok {
			return r, nil
		}
	}
	if l.Kind != LitString {
		return nil, fmt.Errorf("expected a timestamp string, got %s", l)
	}
	secs, nanos, err := jsonl.ParseTimestamp(l.Text)
	if err != nil {
		return nil, err
	}
	r := new(big.Rat).SetInt64(secs)
	r.Add(r, big.NewRat(nanos, 1_000_000_000))
	return r.Mul(r, new(big.Rat).SetInt64(perSec)), nil
}

// dateRat parses a date literal as a rational number of days; a literal with a time of day
// lands between two days, so `d > '2024-01-15 10:00'` selects dates from the 16th on.
func dateRat(l Literal) (*big.Rat, error) {
	if l.Kind == LitString {
		if days, err := jsonl.ParseDate(l.Text); err == nil {
			return new(big.Rat).SetInt64(days), nil
		}
	}
	r, err := instantRat(l, 1)
	if err != nil {
		return nil, fmt.Errorf("expected a date string 'YYYY-MM-DD', got %s", l)
	}
	if l.Kind == LitNumber {
		return r, nil // a number is already days
	}
	return r.Quo(r, big.NewRat(86400, 1)), nil
}

// timeOfDayRat parses 'HH:MM[:SS[.f]]' as a rational count of 1/perSec units since midnight.
func timeOfDayRat(l Literal, perSec int64) (*big.Rat, error) {
	if l.Kind == LitNumber {
		if r, ok := ratOf(l); ok {
			return r, nil
		}
	}
	if l.Kind != LitString {
		return nil, fmt.Errorf("expected a time string 'HH:MM:SS', got %s", l)
	}
	n, err := jsonl.ParseTimeOfDay(l.Text)
	if err != nil {
		return nil, err
	}
	return new(big.Rat).Mul(big.NewRat(n, 1_000_000_000), new(big.Rat).SetInt64(perSec)), nil
}

// intBound is a rational literal prepared for comparison with int64 values: v is compared with
// floor(r), and equality with the floor only counts when r has no fraction.
type intBound struct {
	floor        int64
	frac         bool
	below, above bool // r is below every int64 / above every int64
}

func newIntBound(r *big.Rat) intBound {
	f := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean division = floor for a positive denominator
	b := intBound{frac: !r.IsInt()}
	switch {
	case f.IsInt64():
		b.floor = f.Int64()
	case f.Sign() < 0:
		b.below = true
	default:
		b.above = true
	}
	return b
}

// cmp returns the sign of v - r.
func (b intBound) cmp(v int64) int {
	switch {
	case b.above:
		return -1
	case b.below:
		return 1
	case v < b.floor:
		return -1
	case v > b.floor:
		return 1
	case b.frac:
		return -1
	}
	return 0
}

type uintBound struct {
	floor        uint64
	frac         bool
	below, above bool
}

func newUintBound(r *big.Rat) uintBound {
	f := new(big.Int).Div(r.Num(), r.Denom())
	b := uintBound{frac: !r.IsInt()}
	switch {
	case f.Sign() < 0:
		b.below = true
	case f.IsUint64():
		b.floor = f.Uint64()
	default:
		b.above = true
	}
	return b
}

func (b uintBound) cmp(v uint64) int {
	switch {
	case b.above:
		return -1
	case b.below:
		return 1
	case v < b.floor:
		return -1
	case v > b.floor:
		return 1
	case b.frac:
		return -1
	}
	return 0
}

// bigBound compares arbitrary-width integers (decimal unscaled values) with a rational.
type bigBound struct {
	floor *big.Int
	frac  bool
}

func newBigBound(r *big.Rat) bigBound {
	return bigBound{floor: new(big.Int).Div(r.Num(), r.Denom()), frac: !r.IsInt()}
}

// scaleRat returns r * 10^scale: a decimal literal in units of the column's unscaled integer.
func scaleRat(r *big.Rat, scale int32) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(scale))), nil)
	out := new(big.Rat).Set(r)
	if scale >= 0 {
		return out.Mul(out, new(big.Rat).SetInt(p))
	}
	return out.Quo(out, new(big.Rat).SetInt(p))
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// cmpUnordered is the comparison result involving NaN: only != holds.
const cmpUnordered = 2

func cmpFloat(a, b float64) int {
	switch {
	case a != a || b != b:
		return cmpUnordered
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
