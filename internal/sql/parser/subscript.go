package parser

import (
	"strings"
)

// Spark's subscript x[i] is 0-based on an array and a key lookup on a map (and on a
// struct with a field name); DuckDB's is 1-based on a list, counts from the end for a
// negative index, and looks up keys on a map. Which one a subscript is depends on the
// type of x, which the translation does not know. It is decided:
//   - after a call of a function that returns an array (split, array, …) or a map;
//   - for a string-literal index: a key (an array index is integral in Spark);
//   - for a column (a, t.a, s.field): by the engine, from the schemas of the tables the
//     statement reads (the Subscript hole of a TableRef);
//   - anything else with a non-string index is refused, never run with DuckDB's meaning.

// arrayFunctions return arrays (Spark's names, lower case).
var arrayFunctions = map[string]bool{
	"split": true, "collect_list": true, "collect_set": true, "array": true, "sort_array": true,
	"array_sort": true, "array_distinct": true, "sequence": true, "map_keys": true, "map_values": true,
	"slice": true, "array_union": true, "array_intersect": true, "array_except": true,
	"array_remove": true, "array_repeat": true, "flatten": true, "array_compact": true,
	"array_append": true, "array_prepend": true, "regexp_extract_all": true, "shuffle": true,
}

// mapFunctions return maps.
var mapFunctions = map[string]bool{"map": true, "map_from_arrays": true, "map_concat": true, "map_from_entries": true}

// notAColumn lists words after which '[' cannot subscript a column: it opens a DuckDB list
// literal (no Spark syntax), left to DuckDB as written.
var notAColumn = map[string]bool{
	"SELECT": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "IN": true, "THEN": true,
	"ELSE": true, "WHEN": true, "CASE": true, "BY": true, "ON": true, "AS": true, "HAVING": true,
	"DISTINCT": true, "ALL": true, "IS": true, "LIKE": true, "VALUES": true, "SET": true,
	"RETURN": true,
}

// Subscript is a column subscript whose meaning depends on the column's type: the engine
// renders ArrayText when the column is an array, MapText when it is a map.
type Subscript struct {
	Column []string // the column as written: [qualifier…,] column [, struct field…]
	// Keyed marks the elements of Column written as a string subscript (s['f'], m['k']):
	// a struct field or a map key, never a qualifier.
	Keyed []bool
	Index string // the translated index expression
	// Value is the column's translated text as written (t.s['f']), for DynamicText.
	Value string
	Pos   Pos
}

// ArrayText is Spark's 0-based array subscript in DuckDB: index i reads element i+1; a
// negative or too large index gives NULL (Spark without ANSI mode: GetArrayItem), where
// DuckDB would count a negative index from the end.
func (s Subscript) ArrayText() string { return arraySubscript(s.Index) }

// MapText is the key lookup.
func (s Subscript) MapText() string { return "[" + s.Index + "]" }

// String renders the column for messages.
func (s Subscript) String() string { return strings.Join(s.Column, ".") }

// DynamicText subscripts the column by its type as DuckDB binds it, for a column the
// engine finds in no table the statement reads (an alias of a subquery column, a lambda
// variable) or finds as an array in one and a map in another.
func (s Subscript) DynamicText() string {
	b := &textBuilder{}
	val := &textBuilder{}
	val.write(s.Value)
	idx := &textBuilder{}
	idx.write(s.Index)
	b.write("[")
	dynamicIndex(b, val, idx)
	b.write("]")
	return b.cur.String()
}

// dynamicIndex writes the index of a subscript of val whose type the translation does not
// know, decided by DuckDB when it binds the statement (typeof folds to a constant): an
// array (DuckDB's type name ends in ']') gets Spark's 0-based index (arraySubscript), a
// map the key; any other value fails naming Spark's subscript.
func dynamicIndex(b, val, idx *textBuilder) {
	b.write("CASE WHEN typeof(")
	b.splice(val)
	// TRY_CAST: the array branch is bound even when the value is a map with string keys.
	b.write(")[-1:] = ']' THEN nullif(greatest(TRY_CAST((")
	b.splice(idx)
	b.write(") AS BIGINT), -1) + CAST(1 AS BIGINT), 0) WHEN typeof(")
	b.splice(val)
	b.write(")[:4] = 'MAP(' THEN ")
	b.splice(idx)
	b.write(" ELSE error('a subscript [i] needs an array or a map, not ' || typeof(")
	b.splice(val)
	b.write(")) END")
}

// valueStart returns the first token of the value that ends at token j and is followed
// by a subscript: a (qualified) name, a call, a parenthesized value, and any of these
// subscripted; -1 when it is none of them.
func (p *parser) valueStart(j int) int {
	switch t := p.toks[j]; {
	case t.isOp(")"):
		o := p.match[j]
		if o < 0 || o >= j {
			return -1
		}
		if o > 0 && p.toks[o-1].kind == tokIdent && !notAColumn[strings.ToUpper(p.toks[o-1].value)] {
			if o >= 2 && p.toks[o-2].isOp(".") {
				return -1 // a qualified function name
			}
			return o - 1
		}
		return o
	case t.isOp("]"):
		o := p.match[j]
		if o < 1 || o >= j {
			return -1
		}
		return p.valueStart(o - 1)
	case t.isName():
		if j >= 2 && p.toks[j-1].isOp(".") {
			return p.valueStart(j - 2)
		}
		return j
	}
	return -1
}

func arraySubscript(index string) string {
	// greatest(i, -1) + 1 is 0 for every negative i (and for NULL, which greatest skips);
	// nullif turns that into a NULL index. The BIGINT one keeps INT indexes from overflowing.
	return "[nullif(greatest((" + index + "), -1) + CAST(1 AS BIGINT), 0)]"
}

// subscript translates the '[' at i when it subscripts a value; ok is false when the
// bracket opens something else (a DuckDB list literal).
func (p *parser) subscript(b *textBuilder, i, end int, sc *scope) (next int, ok bool, err error) {
	if i == 0 {
		return 0, false, nil
	}
	close := p.match[i]
	if close <= i {
		return 0, true, errAt(p.toks[i], "'[' is never closed")
	}
	prev := p.toks[i-1]
	switch {
	case prev.isOp(")"), prev.isOp("]"), prev.kind == tokQuotedIdent:
	case prev.kind == tokIdent && !notAColumn[strings.ToUpper(prev.value)]:
	default:
		return 0, false, nil
	}
	if close == i+1 {
		return 0, true, errAt(p.toks[i], "a subscript needs an index")
	}
	idx := &textBuilder{trimLead: true}
	if err := p.walk(idx, i+1, close, &scope{parent: sc}); err != nil {
		return 0, true, err
	}
	t := p.toks[i]
	keyed := close == i+2 && p.toks[i+1].kind == tokString
	writeKey := func() {
		b.write(t.lead + "[")
		b.splice(idx)
		b.write(p.toks[close].lead + "]")
	}
	if keyed {
		writeKey() // a map key or a struct field name: DuckDB's lookup is Spark's
		return close + 1, true, nil
	}
	refuse := func(what string) error {
		return errAt(t, "hudi-go cannot tell whether "+what+" is an array (Spark's [i] is 0-based) or a map; "+
			"write element_at(x, i + 1) for an array element or element_at(x, key) for a map value")
	}
	// dynamic subscripts the value that starts at token start (already written to b) by
	// its type as DuckDB binds it (Subscript.DynamicText).
	dynamic := func(start int, what string) (int, bool, error) {
		m, ok := b.marks[start]
		if start < 0 || !ok {
			return 0, true, refuse(what)
		}
		val := b.since(m)
		b.write(t.lead + "[")
		dynamicIndex(b, val, idx)
		b.write(p.toks[close].lead + "]")
		return close + 1, true, nil
	}
	if prev.isOp(")") {
		open := p.match[i-1]
		name := ""
		if open > 0 && open < i-1 {
			fn := p.toks[open-1]
			if fn.kind == tokIdent && !notAColumn[strings.ToUpper(fn.value)] && (open < 2 || !p.toks[open-2].isOp(".")) {
				name = strings.ToLower(fn.value)
			}
		}
		switch {
		case arrayFunctions[name]:
			b.write(t.lead + "[")
			b.write("nullif(greatest((")
			b.splice(idx)
			b.write("), -1) + CAST(1 AS BIGINT), 0)]")
		case mapFunctions[name]:
			writeKey()
		case name != "":
			return dynamic(p.valueStart(i-1), "the result of "+name+"(…)")
		default:
			return dynamic(p.valueStart(i-1), "the value in parentheses")
		}
		return close + 1, true, nil
	}
	// A column, possibly qualified, or a struct field (s.f, s['f']): back over
	// name (. name | ['name'])*. Anything else before the '[' (a[0][1]: an element of an
	// element) is subscripted by its type as DuckDB binds it.
	var col []string
	var keyedPath []bool
	j := i - 1
	for {
		if p.toks[j].isOp("]") {
			o := p.match[j]
			if o < 1 || o != j-2 || p.toks[o+1].kind != tokString {
				return dynamic(p.valueStart(i-1), "the subscripted element")
			}
			col = append(col, p.toks[o+1].value)
			keyedPath = append(keyedPath, true)
			j = o - 1
			continue
		}
		if !p.toks[j].isName() {
			return dynamic(p.valueStart(i-1), "the subscripted value")
		}
		col = append(col, p.toks[j].value)
		keyedPath = append(keyedPath, false)
		if j >= 2 && p.toks[j-1].isOp(".") && (p.toks[j-2].isName() || p.toks[j-2].isOp("]")) {
			j -= 2
			continue
		}
		break
	}
	for l, r := 0, len(col)-1; l < r; l, r = l+1, r-1 {
		col[l], col[r] = col[r], col[l]
		keyedPath[l], keyedPath[r] = keyedPath[r], keyedPath[l]
	}
	if _, ok := sc.lambdaVar(col[0]); ok {
		// A lambda parameter: no table's column, whatever its name.
		return dynamic(p.valueStart(i-1), "the lambda parameter "+col[0])
	}
	if len(idx.refs) > 0 {
		return 0, true, errAt(t, "a query inside the subscript of column "+strings.Join(col, ".")+" is not supported by hudi-go")
	}
	value := ""
	if m, ok := b.marks[p.valueStart(i-1)]; ok {
		if v := b.since(m); len(v.refs) == 0 {
			value = v.cur.String()
		}
	}
	if value == "" {
		return 0, true, refuse("column " + strings.Join(col, "."))
	}
	b.ref(TableRef{Subscript: &Subscript{Column: col, Keyed: keyedPath, Index: idx.cur.String(), Value: value, Pos: t.pos}})
	return close + 1, true, nil
}
