package parser

import "strings"

// Parse reads a script of ;-separated Spark SQL statements. Empty statements (";;", a
// trailing ";", a script of comments) are skipped. The first error stops the parse and is
// a *SyntaxError naming its line and column.
func Parse(script string) ([]Statement, error) {
	toks, err := lex(script)
	if err != nil {
		return nil, err
	}
	var stmts []Statement
	for _, part := range splitStatements(toks) {
		if len(part) == 1 { // only the end marker: an empty statement
			continue
		}
		p := &parser{src: script, toks: part}
		st, err := p.statement()
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// ParseEach reads a script statement by statement, calling fn with each before it reads
// the next, as spark-sql runs a script: the statements before a bad one run, the bad one
// stops the script with its *SyntaxError. An error fn returns stops it too.
func ParseEach(script string, fn func(Statement) error) error {
	// After a lexing error the tokens end inside the statement that failed, which
	// splitStatements leaves out (it has no ';'): the complete ones before it run.
	toks, lexErr := lexPrefix(script)
	for _, part := range splitStatements(toks) {
		if len(part) == 1 {
			continue
		}
		p := &parser{src: script, toks: part}
		st, err := p.statement()
		if err != nil {
			return err
		}
		if err := fn(st); err != nil {
			return err
		}
	}
	return lexErr
}

// splitStatements cuts the token stream at each ';' token. Strings and comments were
// consumed by the lexer, so a ';' inside them never splits. Each part ends with a tokEOF
// placed at its ';' (or at the end of the script), so error messages at the end of a
// statement point where it ends.
func splitStatements(toks []token) [][]token {
	var parts [][]token
	start := 0
	for i, t := range toks {
		if t.isOp(";") || t.kind == tokEOF {
			end := token{kind: tokEOF, pos: t.pos, start: t.start, end: t.start, lead: t.lead}
			part := make([]token, 0, i-start+1)
			part = append(part, toks[start:i]...)
			parts = append(parts, append(part, end))
			start = i + 1
		}
	}
	return parts
}

// statement dispatches on the statement's first word.
func (p *parser) statement() (Statement, error) {
	first := p.peek()
	// SET keeps the raw rest of the statement, which need not be balanced SQL.
	if first.isKeyword("SET") {
		return p.set()
	}
	if err := p.matchBrackets(); err != nil {
		return nil, err
	}
	if first.isOp("(") {
		return p.selectStatement()
	}
	if first.kind != tokIdent {
		return nil, p.errExpected(first, "a statement")
	}
	switch strings.ToUpper(first.value) {
	case "SELECT", "VALUES", "FROM", "TABLE":
		return p.selectStatement()
	case "WITH":
		return p.with()
	case "CREATE":
		return p.create()
	case "INSERT":
		return p.insert(-1)
	case "UPDATE":
		return p.update()
	case "DELETE":
		return p.delete()
	case "MERGE":
		return p.merge()
	case "ALTER":
		return p.alter()
	case "SHOW":
		return p.show()
	case "DESCRIBE", "DESC":
		return p.describe()
	case "CALL":
		return p.call()
	case "USE":
		return p.use()
	case "DROP":
		return p.drop()
	case "TRUNCATE":
		return p.truncate()
	case "REFRESH", "ANALYZE", "EXPLAIN", "RESET", "CACHE", "UNCACHE", "MSCK":
		return p.unsupported(2)
	}
	return nil, p.errExpected(first, "a statement (SELECT, INSERT, UPDATE, DELETE, MERGE, CREATE, ALTER, DROP, SHOW, DESCRIBE, CALL, SET or USE)")
}

// unsupported records a statement Spark accepts but hudi-go does not run; its Kind is
// the first n words, upper case ("CREATE INDEX", "TRUNCATE TABLE").
func (p *parser) unsupported(n int) (Statement, error) {
	var words []string
	for k := 0; k < n && p.peekAt(k).kind == tokIdent; k++ {
		words = append(words, strings.ToUpper(p.peekAt(k).value))
	}
	return &Unsupported{Pos: p.toks[0].pos, Kind: strings.Join(words, " "), Text: p.rawText(0, len(p.toks)-1)}, nil
}

// selectStatement is a query whose rows are the result.
func (p *parser) selectStatement() (Statement, error) {
	q, err := p.translateQuery(0, len(p.toks)-1, -1)
	if err != nil {
		return nil, err
	}
	p.pushdown(&q, 0, len(p.toks)-1)
	return &Select{Pos: p.toks[0].pos, Query: q}, nil
}

// with is a query starting with WITH, or WITH … INSERT (Spark accepts CTEs in front of
// INSERT; they are moved into the INSERT's source).
func (p *parser) with() (Statement, error) {
	main, err := p.skipCTEs(0)
	if err != nil {
		return nil, err
	}
	if p.toks[main].isKeyword("INSERT") {
		p.i = main
		return p.insert(0)
	}
	return p.selectStatement()
}

// skipCTEs returns the index of the main statement after WITH name AS (…), … at i.
func (p *parser) skipCTEs(i int) (int, error) {
	i++ // WITH
	if p.toks[i].isKeyword("RECURSIVE") {
		i++
	}
	for {
		if !p.toks[i].isName() {
			return 0, p.errExpected(p.toks[i], "a common table expression name")
		}
		i++
		if p.toks[i].isOp("(") { // column aliases
			i = p.match[i] + 1
		}
		if p.toks[i].isKeyword("AS") {
			i++
		}
		if !p.toks[i].isOp("(") {
			return 0, p.errExpected(p.toks[i], "'(' and the query of the common table expression")
		}
		i = p.match[i] + 1
		if !p.toks[i].isOp(",") {
			return i, nil
		}
		i++
	}
}
