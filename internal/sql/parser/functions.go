package parser

import (
	"strconv"
	"strings"
)

// renamedFunctions are Spark functions DuckDB has under another name, same arguments.
var renamedFunctions = map[string]string{
	"nvl":             "coalesce",
	"array_contains":  "list_contains",
	"size":            "len", // Spark's size of an array or map
	"array_size":      "len",
	"cardinality":     "len",
	"map_from_arrays": "MAP", // DuckDB's MAP(keys, values)
	"array_join":      "array_to_string",
	"explode":         "unnest",
	"array":           "list_value",
	"array_max":       "list_max", // both skip NULLs; NaN is the greatest double in both
	"array_min":       "list_min",
}

// niladicKeywords are Spark functions called with () that are bare keywords in DuckDB.
var niladicKeywords = map[string]bool{"current_date": true, "current_timestamp": true}

// function translates the call name(…) at i when Spark and DuckDB differ; ok is false
// when the call needs no rewrite (the caller then emits it token by token).
func (p *parser) function(b *textBuilder, i, end int, sc *scope) (next int, ok bool, err error) {
	t := p.toks[i]
	name := strings.ToLower(t.value)
	open := i + 1
	close := p.match[open]
	if close <= open || close >= end {
		return 0, false, nil
	}
	inner := &scope{parent: sc, fn: name}
	switch name {
	case "cast", "try_cast":
		return p.cast(b, i, close, inner)
	case "struct":
		return p.structCall(b, i, close, inner)
	case "named_struct":
		return p.namedStruct(b, i, close, inner)
	case "map":
		return p.mapCall(b, i, close, inner)
	}
	if j, ok, err := p.sparkFunction(b, name, i, close, inner); ok || err != nil {
		return j, ok, err
	}
	if niladicKeywords[name] && close == open+1 {
		b.write(t.lead + strings.ToUpper(name))
		return close + 1, true, nil
	}
	if to, found := renamedFunctions[name]; found {
		b.write(t.lead + to)
		j, err := p.group(b, open, inner)
		return j, true, err
	}
	return 0, false, nil
}

// args translates each top-level argument of the call whose '(' is at open.
func (p *parser) args(open, close int, sc *scope) ([]*textBuilder, [][2]int, error) {
	ranges := p.splitCommas(open+1, close)
	out := make([]*textBuilder, len(ranges))
	for k, r := range ranges {
		if r[0] >= r[1] {
			return nil, nil, p.errExpected(p.toks[r[1]], "an argument")
		}
		out[k] = &textBuilder{trimLead: true}
		if err := p.walk(out[k], r[0], r[1], &scope{parent: sc.parent, fn: sc.fn}); err != nil {
			return nil, nil, err
		}
	}
	return out, ranges, nil
}

// join writes the builders separated by ", ".
func join(b *textBuilder, parts []*textBuilder) {
	for k, part := range parts {
		if k > 0 {
			b.write(", ")
		}
		b.splice(part)
	}
}

// cast translates CAST(expr AS sparkType) with the type in DuckDB's spelling.
func (p *parser) cast(b *textBuilder, i, close int, sc *scope) (int, bool, error) {
	as := -1
	for k := i + 2; k < close; k = p.skipGroup(k) {
		if p.toks[k].isKeyword("AS") {
			as = k
			break
		}
	}
	if as < 0 {
		return 0, false, nil
	}
	val := &textBuilder{trimLead: true}
	if err := p.walk(val, i+2, as, sc); err != nil {
		return 0, true, err
	}
	p.i = as + 1
	typ, err := p.parseType(0)
	if err != nil {
		return 0, true, err
	}
	if p.i != close {
		return 0, true, p.errExpected(p.toks[p.i], "')' after the type of CAST")
	}
	kw := strings.ToUpper(p.toks[i].value)
	if bits := integralBits[typ.name]; bits > 0 {
		b.write(p.toks[i].lead)
		v, closer := once(b, val, p.queryIn([2]int{i + 2, as}), lambdaName(p.toks[i].start))
		integralCast(b, kw == "TRY_CAST", v, typ.duck(), bits)
		b.write(closer)
		return close + 1, true, nil
	}
	b.write(p.toks[i].lead + kw + p.toks[i+1].lead + "(")
	b.splice(val)
	b.write(p.toks[as].lead + "AS " + typ.duck() + p.toks[close].lead + ")")
	return close + 1, true, nil
}

// integralBits are the widths of Spark's integral types.
var integralBits = map[string]int{"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}

// fitsIn lists, per width, the DuckDB types whose every value the integral type of that
// width holds: a plain CAST.
var fitsIn = map[int]string{
	8:  "'TINYINT', 'BOOLEAN', '\"NULL\"'",
	16: "'TINYINT', 'SMALLINT', 'UTINYINT', 'BOOLEAN', '\"NULL\"'",
	32: "'TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT', 'BOOLEAN', '\"NULL\"'",
	64: "'TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'BOOLEAN', '\"NULL\"'",
}

// integralCast writes Spark's CAST (or try_cast) of val to the integral type typ (DuckDB's
// name) of the given width. DuckDB rounds fractions and fails on overflow; Spark (without
// ANSI mode, its default) truncates toward zero and does not fail:
//   - a FLOAT or DOUBLE becomes what Java's (int) or (long) gives: truncated, saturated at
//     the bounds of INT (for TINYINT, SMALLINT and INT) or BIGINT, NaN as 0; TINYINT and
//     SMALLINT then keep the low 8 or 16 bits of that INT (Scala's d.toInt.toByte);
//   - a DECIMAL or a wider integer keeps the low bits of its truncated value (Spark's
//     documented CAST(2147483648L AS INT) = -2147483648; Decimal.toLong.toInt);
//   - a string with an integral part (' 12.7 ') is read truncated; other text is NULL;
//   - a TIMESTAMP is its seconds since the epoch, floored, then as a wider integer; a DATE
//     is NULL.
//
// try_cast truncates too and gives NULL where the value does not fit. The value's type
// shows only when DuckDB binds the statement: typeof folds to a constant that picks one
// branch, and each branch binds for any type (TRY_CAST to DOUBLE or HUGEINT, decimals
// through their exact text).
func integralCast(b *textBuilder, try bool, val *textBuilder, typ string, bits int) {
	w := b.write
	v := func() { b.splice(val) }
	typeIs := func(cond string) {
		w(" WHEN typeof(")
		v()
		w(") " + cond + " THEN ")
	}
	// decimalPart is the integral part of a DECIMAL value's exact text.
	decimalPart := func() {
		w("split_part(CAST(")
		v()
		w(" AS VARCHAR), '.', 1)")
	}
	w("(CASE")
	typeIs("IN (" + fitsIn[bits] + ")")
	w("CAST(")
	v()
	w(" AS " + typ + ")")
	typeIs("= 'VARCHAR'")
	w("TRY_CAST(CASE WHEN regexp_full_match(CAST(")
	v()
	w(" AS VARCHAR), '\\s*[+-]?[0-9]+(\\.[0-9]*)?\\s*') THEN split_part(trim(CAST(")
	v()
	w(" AS VARCHAR)), '.', 1) END AS " + typ + ")")
	// A TIMESTAMP is its seconds since the epoch, floored (Spark's CastSuite: -1.2 s is -2).
	seconds := func() {
		w("CAST(floor(epoch(TRY_CAST(")
		v()
		w(" AS TIMESTAMPTZ))) AS HUGEINT)")
	}
	if try {
		typeIs("= 'TIMESTAMP WITH TIME ZONE'")
		w("TRY_CAST(")
		seconds()
		w(" AS " + typ + ")")
		typeIs("IN ('FLOAT', 'DOUBLE')")
		w("TRY_CAST(trunc(TRY_CAST(")
		v()
		w(" AS DOUBLE)) AS " + typ + ")")
		typeIs("LIKE 'DECIMAL(%'")
		w("TRY_CAST(")
		decimalPart()
		w(" AS " + typ + ")")
		w(" ELSE TRY_CAST(")
		v()
		w(" AS " + typ + ") END)")
		return
	}
	// wrap keeps the low bits of the HUGEINT written by h, as a two's complement value.
	half := "CAST(" + pow2(bits-1) + " AS HUGEINT)"
	mod := "CAST(" + pow2(bits) + " AS HUGEINT)"
	wrap := func(h func()) {
		w("CAST((((")
		h()
		w(") + " + half + ") % " + mod + " + " + mod + ") % " + mod + " - " + half + " AS " + typ + ")")
	}
	sat, satMin, satMax := "INTEGER", "-2147483648", "2147483647"
	if bits == 64 {
		sat, satMin, satMax = "BIGINT", "-9223372036854775808", "9223372036854775807"
	}
	typeIs("= 'DATE'") // NULL: the ANSI compliance page's CAST(DATE'2020-01-01' AS INT)
	w("CAST(NULL AS " + typ + ")")
	typeIs("= 'TIMESTAMP WITH TIME ZONE'")
	wrap(seconds)
	typeIs("IN ('FLOAT', 'DOUBLE')")
	// A simple CASE: NULL matches neither arm (greatest and least skip NULLs).
	w("CASE isnan(TRY_CAST(")
	v()
	w(" AS DOUBLE)) WHEN true THEN CAST(0 AS " + typ + ") WHEN false THEN ")
	saturated := func() {
		w("CAST(greatest(least(CAST(greatest(least(trunc(TRY_CAST(")
		v()
		w(" AS DOUBLE)), 1e19), -1e19) AS HUGEINT), " + satMax + "), " + satMin + ") AS " + sat + ")")
	}
	if bits < 32 {
		wrap(saturated)
	} else {
		saturated()
	}
	w(" END")
	typeIs("LIKE 'DECIMAL(%'")
	wrap(func() {
		w("CAST(")
		decimalPart()
		w(" AS HUGEINT)")
	})
	typeIs("IN ('SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT')")
	wrap(func() {
		w("TRY_CAST(")
		v()
		w(" AS HUGEINT)")
	})
	w(" ELSE CAST(")
	v()
	w(" AS " + typ + ") END)")
}

// pow2 is 2^n in decimal digits (n ≤ 64).
func pow2(n int) string {
	if n == 64 {
		return "18446744073709551616"
	}
	return strconv.FormatUint(1<<uint(n), 10)
}

// structCall translates STRUCT(a, b) into DuckDB's row(a, b), an unnamed struct that
// casts by position (what INSERT into a STRUCT column needs), and STRUCT(x AS n, …)
// into struct_pack(n := x, …). In the mixed form an unnamed field gets Spark's name: the
// column's own name for a column reference, else colN.
func (p *parser) structCall(b *textBuilder, i, close int, sc *scope) (int, bool, error) {
	ranges := p.splitCommas(i+2, close)
	named := false
	for _, r := range ranges {
		named = named || r[1]-r[0] >= 3 && p.toks[r[1]-2].isKeyword("AS") && p.toks[r[1]-1].isName()
	}
	if !named {
		b.write(p.toks[i].lead + "row")
		j, err := p.group(b, i+1, sc)
		return j, true, err
	}
	b.write(p.toks[i].lead + "struct_pack(")
	for k, r := range ranges {
		if r[0] >= r[1] {
			return 0, true, p.errExpected(p.toks[r[1]], "an argument")
		}
		exprEnd, fieldName := r[1], ""
		if r[1]-r[0] >= 3 && p.toks[r[1]-2].isKeyword("AS") && p.toks[r[1]-1].isName() {
			exprEnd, fieldName = r[1]-2, p.toks[r[1]-1].value
		} else if last, ok := p.columnName(r[0], r[1]); ok {
			fieldName = last
		} else {
			fieldName = "col" + strconv.Itoa(k+1)
		}
		arg := &textBuilder{trimLead: true}
		if err := p.walk(arg, r[0], exprEnd, sc); err != nil {
			return 0, true, err
		}
		if k > 0 {
			b.write(", ")
		}
		b.write(quoteIdent(fieldName) + " := ")
		b.splice(arg)
	}
	b.write(")")
	return close + 1, true, nil
}

// columnName returns the last part of [from, to) when it is a (qualified) column name.
func (p *parser) columnName(from, to int) (string, bool) {
	for k := from; k < to; k++ {
		if (k-from)%2 == 0 && !p.toks[k].isName() || (k-from)%2 == 1 && !p.toks[k].isOp(".") {
			return "", false
		}
	}
	if (to-from)%2 == 0 {
		return "", false
	}
	return p.toks[to-1].value, true
}

// namedStruct translates named_struct('n', v, …) into struct_pack("n" := v, …).
func (p *parser) namedStruct(b *textBuilder, i, close int, sc *scope) (int, bool, error) {
	ranges := p.splitCommas(i+2, close)
	if len(ranges)%2 != 0 {
		return 0, true, errAt(p.toks[i], "named_struct takes name, value pairs")
	}
	b.write(p.toks[i].lead + "struct_pack(")
	for k := 0; k < len(ranges); k += 2 {
		n, v := ranges[k], ranges[k+1]
		if n[1]-n[0] != 1 || p.toks[n[0]].kind != tokString {
			return 0, true, p.errExpected(p.toks[n[0]], "a quoted field name in named_struct")
		}
		if v[0] >= v[1] {
			return 0, true, p.errExpected(p.toks[v[1]], "a field value")
		}
		arg := &textBuilder{trimLead: true}
		if err := p.walk(arg, v[0], v[1], sc); err != nil {
			return 0, true, err
		}
		if k > 0 {
			b.write(", ")
		}
		b.write(quoteIdent(p.toks[n[0]].value) + " := ")
		b.splice(arg)
	}
	b.write(")")
	return close + 1, true, nil
}

// mapCall translates Spark's MAP(k1, v1, k2, v2) into DuckDB's MAP([k1, k2], [v1, v2]).
func (p *parser) mapCall(b *textBuilder, i, close int, sc *scope) (int, bool, error) {
	parts, _, err := p.args(i+1, close, sc)
	if err != nil {
		return 0, true, err
	}
	if len(parts)%2 != 0 {
		return 0, true, errAt(p.toks[i], "MAP takes key, value pairs")
	}
	var keys, vals []*textBuilder
	for k := 0; k < len(parts); k += 2 {
		keys, vals = append(keys, parts[k]), append(vals, parts[k+1])
	}
	b.write(p.toks[i].lead + "MAP(")
	if len(parts) > 0 {
		b.write("[")
		join(b, keys)
		b.write("], [")
		join(b, vals)
		b.write("]")
	}
	b.write(")")
	return close + 1, true, nil
}
