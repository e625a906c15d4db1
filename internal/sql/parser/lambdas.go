package parser

import (
	"fmt"
	"strconv"
	"strings"
)

// Spark's higher-order array functions take lambdas (x -> body, (x, i) -> body). They are
// translated into DuckDB's list functions with DuckDB's lambda syntax (lambda v: body),
// each parameter renamed to a name of its own (__l<token index>) so that nested lambdas
// and columns of the same name cannot capture it. Where Spark's meaning differs from
// DuckDB's — the 0-based index of transform and filter, the three-valued exists and forall,
// aggregate's accumulator of another type, zip_with's NULL arrays — the translation
// spells Spark's meaning out (sparkfuncs_test.go and the engine's TestSparkFunctions hold
// the examples of Spark's function reference).

// lambdaVar returns the DuckDB text a lambda parameter named name stands for in s.
func (s *scope) lambdaVar(name string) (string, bool) {
	name = strings.ToLower(name)
	for ; s != nil; s = s.parent {
		if v, ok := s.lambda[name]; ok {
			return v, true
		}
	}
	return "", false
}

// sparkLambda is a parsed Spark lambda: its parameters and the token range of its body.
type sparkLambda struct {
	params []token
	body   [2]int
}

// parseLambda reads the lambda x -> body or (x, y, …) -> body in the argument range r of
// function fn, which takes from min to max parameters.
func (p *parser) parseLambda(fn string, r [2]int, min, max int) (sparkLambda, error) {
	var l sparkLambda
	k := r[0]
	switch t := p.toks[k]; {
	case t.isName():
		l.params = []token{t}
		k++
	case t.isOp("(") && p.match[k] > k && p.match[k] < r[1]:
		for _, pr := range p.splitCommas(k+1, p.match[k]) {
			if pr[1]-pr[0] != 1 || !p.toks[pr[0]].isName() {
				return l, errAt(p.toks[pr[0]], fn+": a lambda parameter must be a name")
			}
			l.params = append(l.params, p.toks[pr[0]])
		}
		k = p.match[k] + 1
	}
	if k >= r[1] || !p.toks[k].isOp("->") || len(l.params) == 0 {
		return l, errAt(p.toks[r[0]], fn+": expected a lambda function (x -> …) here")
	}
	if len(l.params) < min || len(l.params) > max {
		want := strconv.Itoa(min)
		if max > min {
			want += " or " + strconv.Itoa(max)
		}
		return l, errAt(p.toks[r[0]], fmt.Sprintf("%s: the lambda function takes %s parameter(s), got %d", fn, want, len(l.params)))
	}
	if k+1 >= r[1] {
		return l, p.errExpected(p.toks[r[1]], "the body of the lambda function")
	}
	l.body = [2]int{k + 1, r[1]}
	return l, nil
}

// lambdaBody translates the body of l with its parameters standing for the DuckDB texts
// vals (one per parameter).
func (p *parser) lambdaBody(l sparkLambda, vals []string, sc *scope) (*textBuilder, error) {
	inner := &scope{parent: sc, fn: sc.fn, lambda: map[string]string{}}
	for k, t := range l.params {
		inner.lambda[strings.ToLower(t.value)] = vals[k]
	}
	out := &textBuilder{trimLead: true}
	if err := p.walk(out, l.body[0], l.body[1], inner); err != nil {
		return nil, err
	}
	return out, nil
}

// lambdaName is the DuckDB name of the lambda parameter at token k.
func lambdaName(k int) string { return "__l" + strconv.Itoa(k) }

// higherOrder translates Spark's higher-order function name(…) at i whose ')' is at close
// into out; ok is false for other functions.
func (p *parser) higherOrder(out *textBuilder, name string, i, close int, sc *scope) (ok bool, err error) {
	ranges := p.splitCommas(i+2, close)
	want := map[string][2]int{"transform": {2, 2}, "filter": {2, 2}, "exists": {2, 2}, "forall": {2, 2},
		"aggregate": {3, 4}, "reduce": {3, 4}, "zip_with": {3, 3}, "reverse": {1, 1}}[name]
	if want[0] == 0 {
		return false, nil
	}
	if name == "exists" && len(ranges) > 0 && startsQuery(p.toks[ranges[0][0]]) {
		return false, nil // EXISTS (SELECT …)
	}
	if name == "filter" && len(ranges) > 0 && p.toks[ranges[0][0]].isKeyword("WHERE") {
		return false, nil // an aggregate's FILTER (WHERE …)
	}
	if len(ranges) < want[0] || len(ranges) > want[1] {
		w := strconv.Itoa(want[0])
		if want[1] > want[0] {
			w += " or " + strconv.Itoa(want[1])
		}
		return true, errAt(p.toks[i], fmt.Sprintf("%s takes %s arguments, got %d", name, w, len(ranges)))
	}
	arg := func(k int) (*textBuilder, error) {
		r := ranges[k]
		if r[0] >= r[1] {
			return nil, p.errExpected(p.toks[r[1]], "an argument")
		}
		b := &textBuilder{trimLead: true}
		return b, p.walk(b, r[0], r[1], &scope{parent: sc.parent, fn: sc.fn})
	}
	w := out.write
	arr, err := arg(0)
	if err != nil {
		return true, err
	}
	if name != "transform" && name != "filter" {
		// The translations below repeat the array; one with a query in it is bound to a
		// lambda parameter first, so the query is planned and run once.
		var closer string
		arr, closer = once(out, arr, p.queryIn(ranges[0]), lambdaName(p.toks[i+1].start))
		defer w(closer)
	}
	switch name {
	case "reverse":
		// Spark reverses a string or an array. DuckDB's reverse takes strings only, and
		// which one the argument is shows only when DuckDB binds it: typeof folds to a
		// constant and picks the branch, but every branch must bind for both types, so
		// the array branch reads elements by index (a string's characters bind too) and
		// each branch is cast back to the argument's type.
		v := lambdaName(p.toks[i].start)
		w("(CASE WHEN typeof(")
		out.splice(arr)
		w(") LIKE '%]' THEN cast_to_type(list_transform(generate_series(len(")
		out.splice(arr)
		w("), 1, -1), lambda " + v + ": (")
		out.splice(arr)
		w(")[" + v + "]), ")
		out.splice(arr)
		w(") WHEN typeof(")
		out.splice(arr)
		w(") IN ('VARCHAR', '\"NULL\"') THEN cast_to_type(reverse(CAST(")
		out.splice(arr)
		w(" AS VARCHAR)), ")
		out.splice(arr)
		w(") ELSE error('reverse takes a string or an array in hudi-go, not ' || typeof(")
		out.splice(arr)
		w(")) END)")
	case "transform", "filter":
		l, err := p.parseLambda(name, ranges[1], 1, 2)
		if err != nil {
			return true, err
		}
		// Spark's index is 0-based, DuckDB's 1-based.
		params := []string{lambdaName(l.params[0].start)}
		vals := []string{params[0]}
		if len(l.params) == 2 {
			params = append(params, lambdaName(l.params[1].start))
			vals = append(vals, "("+params[1]+" - 1)")
		}
		body, err := p.lambdaBody(l, vals, sc)
		if err != nil {
			return true, err
		}
		w(map[string]string{"transform": "list_transform(", "filter": "list_filter("}[name])
		out.splice(arr)
		w(", lambda " + strings.Join(params, ", ") + ": ")
		out.splice(body)
		w(")")
	case "exists", "forall":
		l, err := p.parseLambda(name, ranges[1], 1, 1)
		if err != nil {
			return true, err
		}
		v := lambdaName(l.params[0].start)
		body, err := p.lambdaBody(l, []string{v}, sc)
		if err != nil {
			return true, err
		}
		// Three-valued, as Spark's ArrayExists (spark.sql.legacy.followThreeValuedLogicInArrayExists
		// defaults to true) and ArrayForAll: exists is true when the predicate is true for
		// an element, else NULL when it is NULL for one, else false (also for []); forall
		// is false when it is false for one, else NULL when NULL for one, else true. Each
		// element's outcome is ranked (the deciding one highest) and the maximum decides.
		decide, other, empty := "true", "false", "false"
		if name == "forall" {
			decide, other, empty = "false", "true", "true"
		}
		w("(CASE list_max(list_transform(")
		out.splice(arr)
		w(", lambda " + v + ": CASE (")
		out.splice(body)
		w(") WHEN " + decide + " THEN 2 WHEN " + other + " THEN 0 ELSE 1 END)) WHEN 2 THEN " + decide +
			" WHEN 1 THEN NULL WHEN 0 THEN " + other + " ELSE CASE WHEN len(")
		out.splice(arr)
		w(") = 0 THEN " + empty + " END END)")
	case "aggregate", "reduce":
		start, err := arg(1)
		if err != nil {
			return true, err
		}
		merge, err := p.parseLambda(name, ranges[2], 2, 2)
		if err != nil {
			return true, err
		}
		// Spark folds from start with an accumulator of start's type, which may differ
		// from the elements' (DuckDB's list_reduce wants one type). So the fold runs over
		// structs {a: accumulator, e: element}, the first holding start.
		s, e := lambdaName(merge.params[0].start), lambdaName(merge.params[1].start)
		body, err := p.lambdaBody(merge, []string{"struct_extract(" + s + ", 'a')", "struct_extract(" + e + ", 'e')"}, sc)
		if err != nil {
			return true, err
		}
		fold := &textBuilder{}
		fw := fold.write
		fw("struct_extract(list_reduce(list_prepend(struct_pack(a := ")
		fold.splice(start)
		fw(", e := NULL), list_transform(")
		fold.splice(arr)
		fw(", lambda " + e + ": struct_pack(a := cast_to_type(NULL, ")
		fold.splice(start)
		fw("), e := " + e + "))), lambda " + s + ", " + e + ": struct_pack(a := cast_to_type(")
		fold.splice(body)
		fw(", struct_extract(" + s + ", 'a')), e := struct_extract(" + e + ", 'e'))), 'a')")
		w("(CASE WHEN (")
		out.splice(arr)
		w(") IS NULL THEN NULL ELSE ")
		if len(ranges) == 4 {
			finish, err := p.parseLambda(name, ranges[3], 1, 1)
			if err != nil {
				return true, err
			}
			f := lambdaName(finish.params[0].start)
			fbody, err := p.lambdaBody(finish, []string{f}, sc)
			if err != nil {
				return true, err
			}
			// The finishing lambda sees the folded value once.
			w("list_transform([")
			out.splice(fold)
			w("], lambda " + f + ": ")
			out.splice(fbody)
			w(")[1]")
		} else {
			out.splice(fold)
		}
		w(" END)")
	case "zip_with":
		other, err := arg(1)
		if err != nil {
			return true, err
		}
		var closer string
		other, closer = once(out, other, p.queryIn(ranges[1]), lambdaName(p.toks[ranges[1][0]].start)+"_b")
		defer w(closer)
		l, err := p.parseLambda(name, ranges[2], 2, 2)
		if err != nil {
			return true, err
		}
		// Spark pads the shorter array with NULLs, as list_zip does, and gives NULL when
		// either array is NULL (list_zip reads a NULL list as empty).
		z := lambdaName(l.params[0].start)
		body, err := p.lambdaBody(l, []string{"struct_extract(" + z + ", 1)", "struct_extract(" + z + ", 2)"}, sc)
		if err != nil {
			return true, err
		}
		w("(CASE WHEN (")
		out.splice(arr)
		w(") IS NULL OR (")
		out.splice(other)
		w(") IS NULL THEN NULL ELSE list_transform(list_zip(")
		out.splice(arr)
		w(", ")
		out.splice(other)
		w("), lambda " + z + ": ")
		out.splice(body)
		w(") END)")
	}
	return true, nil
}

// once writes the start of list_transform([val], lambda name: …) to b when val holds a
// query, and returns the text that stands for val in what follows and the text that
// closes the call: the query is planned and run once, and never inside a lambda (which
// DuckDB refuses). Other values are returned as they are, to be repeated: DuckDB binds a
// column or a constant however often it is written.
func once(b, val *textBuilder, query bool, name string) (*textBuilder, string) {
	if !query && len(val.refs) == 0 {
		return val, ""
	}
	b.write("list_transform([")
	b.splice(val)
	b.write("], lambda " + name + ": ")
	v := &textBuilder{}
	v.write(name)
	return v, ")[1]"
}

// queryIn reports whether the token range r holds a query.
func (p *parser) queryIn(r [2]int) bool {
	for k := r[0]; k < r[1]; k++ {
		if p.toks[k].isKeyword("SELECT") || p.toks[k].isKeyword("VALUES") || p.toks[k].isKeyword("TABLE") {
			return true
		}
	}
	return false
}
