package parser

import "strings"

// fromItem translates the FROM item at i (after FROM, JOIN or a FROM-clause comma):
// a table becomes a TableRef, hudi_table_changes(…) an incremental TableRef, a
// parenthesized query or join is translated inside, and anything else (a table-valued
// function such as range(…), a CTE name) stays text. It returns i when it leaves the
// token to the caller.
func (p *parser) fromItem(b *textBuilder, i, end int, sc *scope) (int, error) {
	for p.tokIn(i, end).isKeyword("LATERAL") && !p.tokIn(i+1, end).isKeyword("VIEW") {
		b.write(p.toks[i].lead + p.toks[i].value)
		i++
	}
	t := p.tokIn(i, end)
	switch {
	case t.isOp("("):
		return p.group(b, i, &scope{parent: sc, queryStart: true, inFrom: true, expectItem: true})
	case t.isKeyword("VALUES"):
		return p.values(b, i, end, sc, true)
	case t.kind == tokString: // FROM '/path/to/table'
		ref := TableRef{Name: TableName{Path: t.value, Pos: t.pos}}
		after, err := p.temporal(&ref, i+1, end)
		if err != nil {
			return 0, err
		}
		ref.Aliased = p.aliasFollows(after, end)
		b.write(t.lead)
		b.ref(ref)
		return after, nil
	case !t.isName():
		return i, nil
	}
	name, after := p.fromName(i, end)
	if p.tokIn(after, end).isOp("(") {
		if len(name.Parts) == 1 && strings.EqualFold(name.Parts[0], "hudi_table_changes") {
			return p.tableChanges(b, i, after, end)
		}
		return i, nil // another table-valued function: DuckDB's business
	}
	if len(name.Parts) == 1 && sc.isCTE(name.Parts[0]) {
		p.writeName(b, t)
		return after, nil
	}
	ref := TableRef{Name: name}
	after, err := p.temporal(&ref, after, end)
	if err != nil {
		return 0, err
	}
	ref.Aliased = p.aliasFollows(after, end)
	b.write(t.lead)
	b.ref(ref)
	return after, nil
}

// fromName reads a table name at i: name(.name)* or hudi.`/path`.
func (p *parser) fromName(i, end int) (TableName, int) {
	t := p.toks[i]
	if t.isKeyword("hudi") && p.tokIn(i+1, end).isOp(".") && p.tokIn(i+2, end).kind == tokQuotedIdent {
		return TableName{Path: p.toks[i+2].value, Pos: t.pos}, i + 3
	}
	n := TableName{Parts: []string{t.value}, Pos: t.pos}
	i++
	for p.tokIn(i, end).isOp(".") && p.tokIn(i+1, end).isName() {
		n.Parts = append(n.Parts, p.toks[i+1].value)
		i += 2
	}
	return n, i
}

// temporal reads Spark's time-travel clause after a table name at i:
// [FOR] TIMESTAMP|SYSTEM_TIME AS OF lit, [FOR] VERSION|SYSTEM_VERSION AS OF lit.
func (p *parser) temporal(ref *TableRef, i, end int) (int, error) {
	k := i
	if p.tokIn(k, end).isKeyword("FOR") {
		k++
	}
	t := p.tokIn(k, end)
	isTemporal := false
	for _, kw := range []string{"TIMESTAMP", "SYSTEM_TIME", "VERSION", "SYSTEM_VERSION"} {
		isTemporal = isTemporal || t.isKeyword(kw)
	}
	if !isTemporal || !p.tokIn(k+1, end).isKeyword("AS") || !p.tokIn(k+2, end).isKeyword("OF") {
		return i, nil
	}
	lit := p.tokIn(k+3, end)
	if lit.kind != tokString && (lit.kind != tokNumber || lit.suffix != "") {
		return 0, p.errExpected(lit, "a quoted instant or timestamp after AS OF")
	}
	ref.AsOf = lit.value
	return k + 4, nil
}

// tableChanges translates hudi_table_changes('t', 'latest_state', 'begin'[, 'end']) at i,
// whose '(' is at open, into a TableRef with Changes set.
func (p *parser) tableChanges(b *textBuilder, i, open, end int) (int, error) {
	close := p.match[open]
	args := p.splitCommas(open+1, close)
	if len(args) < 3 || len(args) > 4 {
		return 0, errAt(p.toks[i], "hudi_table_changes takes 3 or 4 arguments: table, 'latest_state', begin instant[, end instant]")
	}
	vals := make([]string, len(args))
	for k, a := range args {
		t := p.toks[a[0]]
		if a[1]-a[0] != 1 || t.kind != tokString && (t.kind != tokNumber || t.suffix != "") {
			return 0, p.errExpected(t, "a quoted argument of hudi_table_changes")
		}
		vals[k] = t.value
	}
	name := TableName{Pos: p.toks[args[0][0]].pos}
	if strings.ContainsAny(vals[0], `/\`) {
		name.Path = vals[0]
	} else {
		name.Parts = strings.Split(vals[0], ".")
	}
	ch := &ChangesRef{Format: strings.ToLower(vals[1]), Begin: vals[2]}
	if len(vals) == 4 {
		ch.End = vals[3]
	}
	b.write(p.toks[i].lead)
	// The function's result is not named after the table: it needs no implicit alias.
	b.ref(TableRef{Name: name, Changes: ch, Aliased: true})
	return close + 1, nil
}

// notAlias are words that may follow a table in a FROM clause without being its alias.
// A word missing here is taken for an alias, which only costs the table its implicit
// name (the engine then adds none); a word wrongly listed would make the engine name a
// table twice.
var notAlias = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "HAVING": true, "LIMIT": true, "OFFSET": true,
	"UNION": true, "EXCEPT": true, "INTERSECT": true, "MINUS": true, "WINDOW": true, "QUALIFY": true,
	"JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true, "OUTER": true,
	"SEMI": true, "ANTI": true, "NATURAL": true, "POSITIONAL": true, "ASOF": true, "ON": true, "USING": true,
	"LATERAL": true, "TABLESAMPLE": true, "USING_SAMPLE": true, "PIVOT": true, "UNPIVOT": true,
	"SORT": true, "CLUSTER": true, "DISTRIBUTE": true, "SET": true, "WHEN": true, "FOR": true,
	"SELECT": true, "FROM": true, "VALUES": true, "RETURNING": true, "FETCH": true,
}

// aliasFollows reports whether the token at i starts an alias of the table before it.
func (p *parser) aliasFollows(i, end int) bool {
	t := p.tokIn(i, end)
	switch {
	case t.isKeyword("AS"), t.kind == tokQuotedIdent:
		return true
	case t.kind == tokIdent:
		return !notAlias[strings.ToUpper(t.value)]
	}
	return false
}
