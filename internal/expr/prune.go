package expr

import (
	"bytes"
	"math"
	"math/big"
	"strings"
	"time"
)

// Date is a date statistic: days since 1970-01-01.
type Date int32

// TimestampMicros is a timestamp statistic: microseconds since the epoch, UTC.
type TimestampMicros int64

// ColumnStats summarises one column of a file (or of any set of rows) for MayMatch.
//
// Min and Max are Go values of one of these types:
//
//	int64 (also int, int8..int32, uint8..uint64)   integer columns
//	float64 (also float32)                        float columns; a NaN bound is ignored
//	*big.Rat                                      decimal columns (exact value, not unscaled)
//	string                                        string columns (truncated statistics are fine
//	                                              for Min; Max must be a true upper bound)
//	[]byte                                        binary columns
//	bool                                          boolean columns
//	Date                                          date columns
//	TimestampMicros (or time.Time)                timestamp columns
//
// Any other type makes the bounds unknown. NullCount and ValueCount (which counts nulls too)
// are used only when ValueCount > 0, so a zero ColumnStats means "counts unknown".
type ColumnStats struct {
	Min, Max              any
	NullCount, ValueCount int64
	HasMinMax             bool
}

// MayMatch reports whether any row summarised by stats could satisfy e. It is conservative:
// whenever the statistics cannot decide (column without stats, unknown bound type, literal
// that does not convert), the answer is true. stats is called with column names as written in
// the expression (nested names dotted).
func MayMatch(e Expr, stats func(column string) (ColumnStats, bool)) bool {
	return mayMatch(e, false, func(col string, leaf Expr, negated bool) bool {
		st, ok := stats(col)
		if !ok {
			return true
		}
		return leafMayMatch(leaf, negated, st)
	})
}

// HiveDefaultPartition is the path value Hive and Hudi write for a null partition value.
const HiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// MayMatchPartition reports whether rows of a partition whose partition columns have the given
// values (as parsed from the path, e.g. "sao_paulo" or "10") could satisfy e. Columns not in
// values are unknown. Values are untyped strings, so a predicate may match if it could under
// any reading of the value: as a string, and also as a number or boolean when it parses as one.
// HiveDefaultPartition stands for null. Values must be the column's values, not a formatted
// path (a timestamp key generator's "2024/01/15" path says nothing usable about the column).
func MayMatchPartition(e Expr, values map[string]string) bool {
	return mayMatch(e, false, func(col string, leaf Expr, negated bool) bool {
		v, ok := values[col]
		if !ok {
			found := false
			for k, kv := range values {
				if strings.EqualFold(k, col) {
					v, found = kv, true
					break
				}
			}
			if !found {
				return true
			}
		}
		if v == HiveDefaultPartition {
			return leafMayMatch(leaf, negated, ColumnStats{NullCount: 1, ValueCount: 1})
		}
		exact := func(x any) ColumnStats {
			return ColumnStats{Min: x, Max: x, NullCount: 0, ValueCount: 1, HasMinMax: true}
		}
		if leafMayMatch(leaf, negated, exact(v)) {
			return true
		}
		if r, ok := ratOf(Literal{Kind: LitString, Text: v}); ok && leafMayMatch(leaf, negated, exact(r)) {
			return true
		}
		if b, ok := boolOf(Literal{Kind: LitString, Text: v}); ok && leafMayMatch(leaf, negated, exact(b)) {
			return true
		}
		return false
	})
}

// mayMatch walks e pushing NOT down to the leaves (De Morgan, and negated leaf operators), so
// every leaf can be judged on its own. leafFn gets the leaf in its positive form plus whether it
// must be read negated.
func mayMatch(e Expr, neg bool, leafFn func(col string, leaf Expr, negated bool) bool) bool {
	switch e := e.(type) {
	case *And:
		if neg { // NOT (a AND b) = NOT a OR NOT b
			return mayMatch(e.Left, true, leafFn) || mayMatch(e.Right, true, leafFn)
		}
		return mayMatch(e.Left, false, leafFn) && mayMatch(e.Right, false, leafFn)
	case *Or:
		if neg {
			return mayMatch(e.Left, true, leafFn) && mayMatch(e.Right, true, leafFn)
		}
		return mayMatch(e.Left, false, leafFn) || mayMatch(e.Right, false, leafFn)
	case *Not:
		return mayMatch(e.Expr, !neg, leafFn)
	case *Compare:
		return leafFn(e.Column, e, neg)
	case *In:
		return leafFn(e.Column, e, neg)
	case *Between:
		return leafFn(e.Column, e, neg)
	case *Like:
		return leafFn(e.Column, e, neg)
	case *IsNull:
		return leafFn(e.Column, e, neg)
	}
	return true
}

func leafMayMatch(leaf Expr, negated bool, st ColumnStats) bool {
	countsKnown := st.ValueCount > 0
	allNull := countsKnown && st.NullCount >= st.ValueCount
	noNull := countsKnown && st.NullCount == 0

	if n, ok := leaf.(*IsNull); ok {
		if n.Not != negated { // IS NOT NULL
			return !allNull
		}
		return !noNull
	}
	// Every other predicate is unknown (never TRUE) for null values.
	if allNull {
		return false
	}
	if !st.HasMinMax {
		return true
	}
	if isFloatStat(st.Min) || isFloatStat(st.Max) {
		// With NaN in play, NOT (x < v) is not x >= v, and NaN rows (which statistics usually
		// leave out) satisfy !=. Only positive range predicates are decided.
		if negated || isNaNStat(st.Min) || isNaNStat(st.Max) {
			return true
		}
	}
	r := rangeCheck{st: st}
	switch l := leaf.(type) {
	case *Compare:
		op := l.Op
		if negated {
			op = op.negate()
		}
		if l.Value.Kind == LitNull {
			return false
		}
		if op == OpNe && isFloatStat(st.Min) {
			return true
		}
		return r.compare(op, l.Value)
	case *In:
		not := l.Not != negated
		if not {
			// x NOT IN (...) is never TRUE when the list holds NULL; otherwise it can only be
			// ruled out when every value equals one listed value.
			for _, v := range l.Values {
				if v.Kind == LitNull {
					return false
				}
			}
			for _, v := range l.Values {
				if r.allEqual(v) {
					return false
				}
			}
			return true
		}
		for _, v := range l.Values {
			if v.Kind != LitNull && r.compare(OpEq, v) {
				return true
			}
		}
		return false
	case *Between:
		if l.Low.Kind == LitNull || l.High.Kind == LitNull {
			return true // rare; SQL's NULL-bound rules are not worth modelling here
		}
		if l.Not != negated { // x < low OR x > high
			return r.compare(OpLt, l.Low) || r.compare(OpGt, l.High)
		}
		return r.compare(OpGe, l.Low) && r.compare(OpLe, l.High)
	case *Like:
		if l.Not != negated {
			return true
		}
		return likeMayMatch(l.Pattern, st)
	}
	return true
}

type rangeCheck struct{ st ColumnStats }

// compare reports whether some value in [Min, Max] may satisfy `value op lit`.
func (r rangeCheck) compare(op Op, lit Literal) bool {
	cmin, okMin := compareStat(r.st.Min, lit)
	cmax, okMax := compareStat(r.st.Max, lit)
	if !okMin || !okMax {
		return true
	}
	switch op {
	case OpEq:
		return cmin <= 0 && cmax >= 0
	case OpNe:
		return !(cmin == 0 && cmax == 0)
	case OpLt:
		return cmin < 0
	case OpLe:
		return cmin <= 0
	case OpGt:
		return cmax > 0
	}
	return cmax >= 0
}

// allEqual reports whether the statistics prove every non-null value equals lit.
func (r rangeCheck) allEqual(lit Literal) bool {
	if lit.Kind == LitNull {
		return false
	}
	cmin, okMin := compareStat(r.st.Min, lit)
	cmax, okMax := compareStat(r.st.Max, lit)
	return okMin && okMax && cmin == 0 && cmax == 0
}

func likeMayMatch(pattern string, st ColumnStats) bool {
	minS, ok1 := st.Min.(string)
	maxS, ok2 := st.Max.(string)
	if !ok1 || !ok2 {
		return true
	}
	// The literal prefix before the first wildcard bounds the matching strings: they all lie
	// in [prefix, prefix⁺), where prefix⁺ is the first string after all strings with the prefix.
	var prefix strings.Builder
	exact := true
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '%' || c == '_' {
			exact = false
			break
		}
		if c == '\\' && i+1 < len(pattern) {
			i++
			c = pattern[i]
		}
		prefix.WriteByte(c)
	}
	p := prefix.String()
	if exact {
		return minS <= p && p <= maxS
	}
	if p == "" {
		return true
	}
	return maxS >= p && (minS < p || strings.HasPrefix(minS, p))
}

func isFloatStat(v any) bool {
	switch v.(type) {
	case float64, float32:
		return true
	}
	return false
}

func isNaNStat(v any) bool {
	switch f := v.(type) {
	case float64:
		return math.IsNaN(f)
	case float32:
		return f != f
	}
	return false
}

// compareStat returns the sign of stat - lit, converting lit to the statistic's type; ok is
// false when they cannot be compared.
func compareStat(stat any, lit Literal) (int, bool) {
	if lit.Kind == LitNull {
		return 0, false
	}
	ratCmp := func(v *big.Rat) (int, bool) {
		r, ok := ratOf(lit)
		if !ok {
			return 0, false
		}
		return v.Cmp(r), true
	}
	switch v := stat.(type) {
	case int64:
		return ratCmp(new(big.Rat).SetInt64(v))
	case int:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case int32:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case int16:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case int8:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case uint64:
		return ratCmp(new(big.Rat).SetInt(new(big.Int).SetUint64(v)))
	case uint32:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case uint16:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case uint8:
		return ratCmp(new(big.Rat).SetInt64(int64(v)))
	case *big.Rat:
		if v == nil {
			return 0, false
		}
		return ratCmp(v)
	case float64:
		f, ok := floatOf(lit)
		if !ok || math.IsNaN(f) || math.IsNaN(v) {
			return 0, false
		}
		return cmpFloat(v, f), true
	case float32:
		return compareStat(float64(v), lit)
	case string:
		s, ok := textOf(lit)
		if !ok {
			return 0, false
		}
		return strings.Compare(v, s), true
	case []byte:
		if lit.Kind != LitString {
			return 0, false
		}
		return bytes.Compare(v, []byte(lit.Text)), true
	case bool:
		b, ok := boolOf(lit)
		if !ok {
			return 0, false
		}
		return cmpBool(v, b), true
	case Date:
		r, err := dateRat(lit)
		if err != nil {
			return 0, false
		}
		return new(big.Rat).SetInt64(int64(v)).Cmp(r), true
	case TimestampMicros:
		r, err := instantRat(lit, 1_000_000)
		if err != nil {
			return 0, false
		}
		return new(big.Rat).SetInt64(int64(v)).Cmp(r), true
	case time.Time:
		return compareStat(TimestampMicros(v.UnixMicro()), lit)
	}
	return 0, false
}
