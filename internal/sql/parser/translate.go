package parser

import "strings"

// Translation turns a range of Spark SQL tokens (a query, an expression, a VALUES list)
// into DuckDB SQL token by token: each token is re-emitted after the whitespace that
// preceded it, rewritten where Spark and DuckDB differ (types, literals, functions,
// operators), and every table the text reads is cut out as a TableRef. There is no
// expression tree: the structure tracked is only what finding table references needs —
// bracket levels, FROM clauses and the CTE names in scope.

// scope is the translation state of one bracket level.
type scope struct {
	parent *scope
	// fn is the lower-case word before the '(' opening this level ("" for none): FROM
	// inside EXTRACT(… FROM …) and friends is not a FROM clause.
	fn string
	// inFrom is set inside a FROM clause, where a top-level comma starts another FROM item.
	inFrom bool
	// expectItem is set right after FROM, JOIN or a FROM-clause comma.
	expectItem bool
	// queryStart is set where a query may begin: WITH, VALUES and TABLE t are recognised
	// only there.
	queryStart bool
	ctes       map[string]bool // names of WITH clauses of this level (lower case)
	// lambda maps the (lower-case) parameters of the Spark lambda whose body this level
	// is to the DuckDB text each stands for (lambdas.go).
	lambda map[string]string
}

// isCTE reports whether name is a common table expression visible from s.
func (s *scope) isCTE(name string) bool {
	name = strings.ToLower(name)
	for ; s != nil; s = s.parent {
		if s.ctes[name] {
			return true
		}
	}
	return false
}

// fromNotAClause lists functions whose arguments use FROM as a separator.
var fromNotAClause = map[string]bool{"extract": true, "trim": true, "substring": true, "substr": true, "overlay": true, "position": true}

// fromClauseEnders are the words that end a FROM clause at their level.
var fromClauseEnders = map[string]bool{
	"WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "SORT": true, "CLUSTER": true,
	"DISTRIBUTE": true, "LIMIT": true, "OFFSET": true, "WINDOW": true, "QUALIFY": true,
	"SELECT": true, "FETCH": true,
}

var setOperators = map[string]bool{"UNION": true, "INTERSECT": true, "EXCEPT": true, "MINUS": true}

// translateQuery translates the query in [from, to). withAt, if not -1, is the index of a
// WITH clause written before an INSERT: its CTEs are prefixed to the query.
func (p *parser) translateQuery(from, to, withAt int) (SQLText, error) {
	saved := p.i
	defer func() { p.i = saved }()
	b := &textBuilder{trimLead: true}
	sc := &scope{queryStart: true}
	if withAt >= 0 {
		if _, err := p.ctes(b, withAt, from, sc); err != nil {
			return SQLText{}, err
		}
		if p.toks[from].lead == "" {
			b.write(" ")
		}
		sc.queryStart = true
	}
	if err := p.walk(b, from, to, sc); err != nil {
		return SQLText{}, err
	}
	return b.text(p.at(from).pos), nil
}

// translateExpr translates the expression in [from, to).
func (p *parser) translateExpr(from, to int) (SQLText, error) {
	if from >= to {
		return SQLText{}, p.errExpected(p.at(from), "an expression")
	}
	saved := p.i
	defer func() { p.i = saved }()
	b := &textBuilder{trimLead: true}
	if err := p.walk(b, from, to, &scope{}); err != nil {
		return SQLText{}, err
	}
	return b.text(p.at(from).pos), nil
}

// tokIn is token i if it lies in the range ending at end, else an end marker, so
// look-ahead never leaks past the range being translated.
func (p *parser) tokIn(i, end int) token {
	if i < end && i < len(p.toks) {
		return p.toks[i]
	}
	return token{kind: tokEOF, pos: p.at(end).pos}
}

// startsQuery reports whether t begins a query (rather than a FROM item).
func startsQuery(t token) bool {
	for _, kw := range []string{"SELECT", "WITH", "VALUES", "FROM", "TABLE"} {
		if t.isKeyword(kw) {
			return true
		}
	}
	return false
}

// walk translates tokens [i, end) of one bracket level into b.
func (p *parser) walk(b *textBuilder, i, end int, sc *scope) error {
	for i < end {
		t := p.toks[i]
		if sc.expectItem {
			sc.expectItem = false
			// FROM VALUES (…) is a FROM item; (VALUES …) opens a query.
			if startsQuery(t) && (sc.queryStart || !t.isKeyword("VALUES")) {
				sc.inFrom = false // "(SELECT a, b …": those commas are not FROM items
			} else {
				next, err := p.fromItem(b, i, end, sc)
				if err != nil {
					return err
				}
				if next > i {
					i = next
					continue
				}
			}
		}
		atStart := sc.queryStart
		sc.queryStart = false
		if t.kind == tokIdent || t.kind == tokQuotedIdent || t.isOp("(") {
			b.markToken(i) // where a subscripted value can start (valueStart)
		}
		var err error
		switch t.kind {
		case tokOp:
			i, err = p.operator(b, i, end, sc)
		case tokString:
			i = p.stringLiteral(b, i, end)
		case tokNumber:
			err = p.numberLiteral(b, t)
			i++
		case tokQuotedIdent:
			if v, ok := sc.lambdaVar(t.value); ok && !p.at(i-1).isOp(".") {
				b.write(t.lead + v)
			} else {
				b.write(t.lead + quoteIdent(t.value))
			}
			i++
		case tokIdent:
			i, err = p.word(b, i, end, sc, atStart)
		default:
			return errAt(t, "unexpected character "+t.describe())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// group translates the bracket group opening at i into b and returns the index after it.
func (p *parser) group(b *textBuilder, i int, inner *scope) (int, error) {
	open := p.toks[i]
	j := p.match[i]
	if j <= i {
		return 0, errAt(open, "'"+open.value+"' is never closed")
	}
	b.write(open.lead + open.value)
	if err := p.walk(b, i+1, j, inner); err != nil {
		return 0, err
	}
	b.write(p.toks[j].lead + p.toks[j].value)
	return j + 1, nil
}

// operator translates the operator or punctuation at i.
func (p *parser) operator(b *textBuilder, i, end int, sc *scope) (int, error) {
	t := p.toks[i]
	switch t.value {
	case "[":
		if next, ok, err := p.subscript(b, i, end, sc); ok || err != nil {
			return next, err
		}
		return p.group(b, i, &scope{parent: sc})
	case "(", "{":
		fn := ""
		if prev := p.at(i - 1); i > 0 && prev.kind == tokIdent {
			fn = strings.ToLower(prev.value)
		}
		return p.group(b, i, &scope{parent: sc, fn: fn, queryStart: t.value == "("})
	case ",":
		b.write(t.lead + ",")
		if sc.inFrom {
			sc.expectItem = true
		}
	case "==": // Spark's equality
		b.write(t.lead + "=")
	case "<=>": // Spark's null-safe equality
		b.write(spaced(t.lead) + "IS NOT DISTINCT FROM")
		if p.tokIn(i+1, end).lead == "" {
			b.write(" ")
		}
	case "!": // Spark's logical NOT
		b.write(t.lead + "NOT ")
	default:
		b.write(t.lead + t.value)
	}
	return i + 1, nil
}

// spaced returns lead, or a space when the token was glued to the previous one and its
// rewrite is a word.
func spaced(lead string) string {
	if lead == "" {
		return " "
	}
	return lead
}

// word translates the identifier or keyword at i.
func (p *parser) word(b *textBuilder, i, end int, sc *scope, atStart bool) (int, error) {
	t := p.toks[i]
	kw := strings.ToUpper(t.value)
	next := p.tokIn(i+1, end)
	prev := token{}
	if i > 0 {
		prev = p.toks[i-1]
	}
	if v, ok := sc.lambdaVar(t.value); ok && !prev.isOp(".") && !next.isOp("(") {
		b.write(t.lead + v) // a parameter of an enclosing lambda
		return i + 1, nil
	}
	switch {
	case atStart && kw == "WITH":
		return p.ctes(b, i, end, sc)
	case atStart && kw == "VALUES":
		return p.values(b, i, end, sc, false)
	case atStart && kw == "TABLE" && (next.isName() || next.kind == tokString):
		// Spark's TABLE t is SELECT * FROM t.
		b.write(t.lead + "SELECT * FROM")
		return p.fromItem(b, i+1, end, sc)
	case setOperators[kw]:
		if kw == "MINUS" {
			t.value = "EXCEPT"
		}
		b.write(t.lead + t.value)
		if next.isKeyword("ALL") || next.isKeyword("DISTINCT") {
			b.write(next.lead + next.value)
			i++
		}
		sc.queryStart, sc.inFrom = true, false
		return i + 1, nil
	case kw == "FROM" && !fromNotAClause[sc.fn] && !prev.isKeyword("DISTINCT"):
		b.write(t.lead + t.value)
		sc.inFrom, sc.expectItem = true, true
		return i + 1, nil
	case kw == "JOIN":
		b.write(t.lead + t.value)
		sc.inFrom, sc.expectItem = true, true
		return i + 1, nil
	case fromClauseEnders[kw] || kw == "LATERAL" && next.isKeyword("VIEW"):
		sc.inFrom = false
	case kw == "LEFT" && (next.isKeyword("SEMI") || next.isKeyword("ANTI")):
		// Spark's LEFT SEMI / LEFT ANTI JOIN are DuckDB's SEMI / ANTI JOIN.
		b.write(t.lead + next.value)
		return i + 2, nil
	case next.kind == tokString && typedLiteral(kw):
		return p.typedLiteral(b, i, end)
	case (kw == "RLIKE" || kw == "REGEXP") && isOperandEnd(prev):
		// Spark's RLIKE finds the Java regular expression anywhere in the text; DuckDB's
		// SIMILAR TO matches the whole text, so the pattern is wrapped.
		if next.kind != tokString {
			return 0, errAt(t, kw+": the pattern must be a string literal in hudi-go")
		}
		b.write(t.lead + "SIMILAR TO " + quoteString("(?s:.*)(?:"+next.value+")(?s:.*)"))
		return i + 2, nil
	case kw == "DIV" && isOperandEnd(prev) && next.kind != tokEOF && !next.isOp(","):
		b.write(t.lead + "//") // Spark's integral division
		return i + 1, nil
	case next.isOp("(") && !prev.isOp("."):
		if j, ok, err := p.function(b, i, end, sc); ok || err != nil {
			return j, err
		}
	}
	b.write(t.lead + t.value)
	return i + 1, nil
}

// isOperandEnd reports whether t can end an operand (so a following DIV is an operator).
func isOperandEnd(t token) bool {
	switch t.kind {
	case tokNumber, tokString, tokQuotedIdent:
		return true
	case tokOp:
		return t.value == ")" || t.value == "]"
	case tokIdent:
		return !fromClauseEnders[strings.ToUpper(t.value)] && !t.isKeyword("BY")
	}
	return false
}

// ctes translates WITH [RECURSIVE] name [(cols)] [AS] (query), … at i, registering the
// names in sc so FROM name stays a CTE reference instead of becoming a table.
func (p *parser) ctes(b *textBuilder, i, end int, sc *scope) (int, error) {
	b.write(p.toks[i].lead + p.toks[i].value)
	i++
	if t := p.tokIn(i, end); t.isKeyword("RECURSIVE") {
		b.write(t.lead + t.value)
		i++
	}
	if sc.ctes == nil {
		sc.ctes = map[string]bool{}
	}
	for {
		name := p.tokIn(i, end)
		if !name.isName() {
			return 0, p.errExpected(name, "a common table expression name")
		}
		sc.ctes[strings.ToLower(name.value)] = true
		p.writeName(b, name)
		i++
		var err error
		if p.tokIn(i, end).isOp("(") {
			if i, err = p.group(b, i, &scope{parent: sc}); err != nil {
				return 0, err
			}
		}
		if t := p.tokIn(i, end); t.isKeyword("AS") {
			b.write(t.lead + t.value)
			i++
		} else {
			b.write(" AS")
		}
		if !p.tokIn(i, end).isOp("(") {
			return 0, p.errExpected(p.tokIn(i, end), "'(' and the query of the common table expression")
		}
		if i, err = p.group(b, i, &scope{parent: sc, queryStart: true}); err != nil {
			return 0, err
		}
		if t := p.tokIn(i, end); !t.isOp(",") {
			break
		} else {
			b.write(t.lead + ",")
			i++
		}
	}
	sc.queryStart = true
	return i, nil
}

// writeName writes an identifier token: bare as written, backquoted as double-quoted.
func (p *parser) writeName(b *textBuilder, t token) {
	if t.kind == tokQuotedIdent {
		b.write(t.lead + quoteIdent(t.value))
		return
	}
	b.write(t.lead + t.value)
}

// values translates VALUES row, … at i. Spark allows a row without parentheses
// (VALUES 1, 2); DuckDB needs (1), (2). As a FROM item (FROM VALUES (1), (2) AS t(a))
// the list is parenthesized as DuckDB requires, and only parenthesized rows are read
// so the alias and a following comma join stay outside.
func (p *parser) values(b *textBuilder, i, end int, sc *scope, fromItem bool) (int, error) {
	t := p.toks[i]
	if fromItem {
		b.write(t.lead + "(" + t.value)
	} else {
		b.write(t.lead + t.value)
	}
	i++
	for {
		rowEnd := end
		first := p.tokIn(i, end)
		if fromItem {
			if !first.isOp("(") {
				return 0, p.errExpected(first, "a parenthesized row")
			}
			rowEnd = p.match[i] + 1
		} else {
			for k := i; k < end; k = p.skipGroup(k) {
				if p.toks[k].isOp(",") {
					rowEnd = k
					break
				}
			}
		}
		if rowEnd <= i {
			return 0, p.errExpected(first, "a row of values")
		}
		var err error
		if first.isOp("(") && p.match[i] == rowEnd-1 {
			if _, err = p.group(b, i, &scope{parent: sc}); err != nil {
				return 0, err
			}
		} else {
			row := &textBuilder{trimLead: true}
			if err = p.walk(row, i, rowEnd, &scope{parent: sc}); err != nil {
				return 0, err
			}
			b.write(first.lead + "(")
			b.splice(row)
			b.write(")")
		}
		i = rowEnd
		comma := p.tokIn(i, end)
		if !comma.isOp(",") || fromItem && !p.tokIn(i+1, end).isOp("(") {
			break
		}
		b.write(comma.lead + ",")
		i++
	}
	if fromItem {
		b.write(")")
	}
	return i, nil
}
