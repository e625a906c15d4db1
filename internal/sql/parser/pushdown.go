package parser

import "strings"

// Filter pushdown: for a query reading one Hudi table — SELECT … FROM t [alias] WHERE …
// with no join, subquery, set operation or CTE — the top-level conjuncts of WHERE that
// compare a column of t with literals become the TableRef's Conds. Anything else is left
// out, which only makes the pushed filter weaker: the query applies its whole WHERE in
// DuckDB in any case.

// queryEnders end a WHERE clause at the top level of a query.
var queryEnders = map[string]bool{"GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "WINDOW": true,
	"QUALIFY": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "MINUS": true, "OFFSET": true,
	"SORT": true, "CLUSTER": true, "DISTRIBUTE": true, "FETCH": true}

// pushdown fills the Conds of the table reference when the query between toks[start:end] reads one table.
func (p *parser) pushdown(q *SQLText, start, end int) {
	table := -1 // the one table reference; column subscripts are not tables
	for k := range q.Refs {
		if q.Refs[k].Subscript != nil {
			continue
		}
		if table >= 0 {
			return
		}
		table = k
	}
	if table < 0 || q.Refs[table].Changes != nil {
		return
	}
	from, where := -1, -1
	for i := start; i < end; i = p.over(i) {
		t := p.toks[i]
		if t.kind != tokIdent {
			continue
		}
		switch strings.ToUpper(t.value) {
		case "WITH", "JOIN", "UNION", "EXCEPT", "INTERSECT", "MINUS", "LATERAL":
			return
		case "FROM":
			if from >= 0 {
				return
			}
			from = i
		case "WHERE":
			if where >= 0 {
				return
			}
			where = i
		}
	}
	if from < 0 || where < from {
		return
	}
	// FROM name[.name] | hudi.`path`, [TIMESTAMP AS OF …], [[AS] alias], then WHERE.
	name, after := p.fromName(from+1, end)
	if !sameName(name, q.Refs[table].Name) {
		return
	}
	qualifiers := map[string]bool{}
	if len(name.Parts) > 0 {
		qualifiers[strings.ToLower(name.Parts[len(name.Parts)-1])] = true
	}
	i := after
	if k, err := p.temporal(&TableRef{}, i, end); err == nil {
		i = k
	}
	if p.tokIn(i, end).isKeyword("AS") {
		i++
	}
	if i < where {
		if i+1 != where || !p.toks[i].isName() {
			return // a comma join or something unexpected
		}
		qualifiers[strings.ToLower(p.toks[i].value)] = true
	}
	stop := end
	for k := where + 1; k < end; k = p.over(k) {
		if p.toks[k].kind == tokIdent && queryEnders[strings.ToUpper(p.toks[k].value)] {
			stop = k
			break
		}
	}
	// Split at top-level AND.
	var conds []Cond
	k := where + 1
	for k < stop {
		e := k
		for e < stop && !p.toks[e].isKeyword("AND") {
			if p.toks[e].isKeyword("BETWEEN") {
				return // its AND is not a conjunction
			}
			e = p.over(e)
		}
		if c, ok := p.cond(k, e, qualifiers); ok {
			conds = append(conds, c)
		}
		k = e + 1
	}
	q.Refs[table].Conds = conds
}

func sameName(a, b TableName) bool {
	if a.Path != b.Path || len(a.Parts) != len(b.Parts) {
		return false
	}
	for i := range a.Parts {
		if a.Parts[i] != b.Parts[i] {
			return false
		}
	}
	return true
}

// over returns the index after the token at i, or after the bracket group it opens.
func (p *parser) over(i int) int {
	if m := p.match[i]; m > i {
		return m + 1
	}
	return i + 1
}

// cond reads toks[i:e] as `col op literal`, `literal op col` or `col IN (literals)`.
func (p *parser) cond(i, e int, qualifiers map[string]bool) (Cond, bool) {
	col, next, ok := p.condColumn(i, e, qualifiers)
	if ok && p.tokIn(next, e).isKeyword("IN") && p.tokIn(next+1, e).isOp("(") && p.match[next+1] == e-1 {
		var lits []Literal
		for _, a := range p.splitCommas(next+2, e-1) {
			if a[1]-a[0] != 1 {
				return Cond{}, false
			}
			lit, ok := condLiteral(p.toks[a[0]])
			if !ok || len(lits) > 0 && lit.String != lits[0].String {
				return Cond{}, false
			}
			lits = append(lits, lit)
		}
		if len(lits) == 0 {
			return Cond{}, false
		}
		return Cond{Column: col, Op: "IN", Values: lits}, true
	}
	if ok && next+2 == e && p.toks[next].kind == tokOp {
		if lit, ok := condLiteral(p.toks[next+1]); ok {
			if op, ok := condOp(p.toks[next].value); ok {
				return Cond{Column: col, Op: op, Values: []Literal{lit}}, true
			}
		}
	}
	if lit, ok := condLiteral(p.toks[i]); ok && i+2 < e && p.toks[i+1].kind == tokOp {
		if col, next, ok := p.condColumn(i+2, e, qualifiers); ok && next == e {
			if op, ok := condOp(p.toks[i+1].value); ok {
				return Cond{Column: col, Op: flip(op), Values: []Literal{lit}}, true
			}
		}
	}
	return Cond{}, false
}

// condColumn reads a column at i: name, or qualifier.name with a qualifier of the table.
func (p *parser) condColumn(i, e int, qualifiers map[string]bool) (string, int, bool) {
	t := p.tokIn(i, e)
	if !t.isName() {
		return "", i, false
	}
	if p.tokIn(i+1, e).isOp(".") {
		c := p.tokIn(i+2, e)
		if !c.isName() || !qualifiers[strings.ToLower(t.value)] || p.tokIn(i+3, e).isOp(".") {
			return "", i, false
		}
		return c.value, i + 3, true
	}
	if t.kind == tokIdent && isExprKeyword(t.value) {
		return "", i, false
	}
	return t.value, i + 1, true
}

func isExprKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "NOT", "NULL", "TRUE", "FALSE", "CASE", "EXISTS", "INTERVAL", "DATE", "TIMESTAMP", "CAST":
		return true
	}
	return false
}

func condLiteral(t token) (Literal, bool) {
	switch {
	case t.kind == tokString:
		return Literal{Text: t.value, String: true}, true
	case t.kind == tokNumber && t.suffix == "":
		return Literal{Text: t.value}, true
	}
	return Literal{}, false
}

func condOp(op string) (string, bool) {
	switch op {
	case "=", "==":
		return "=", true
	case "<>", "!=":
		return "<>", true
	case "<", "<=", ">", ">=":
		return op, true
	}
	return "", false
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}
