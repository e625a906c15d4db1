package parser

import "strings"

// showForms are the SHOW statements Spark has besides SHOW TABLES.
var showForms = map[string]bool{
	"PARTITIONS": true, "CREATE": true, "COLUMNS": true, "DATABASES": true, "SCHEMAS": true,
	"NAMESPACES": true, "FUNCTIONS": true, "TBLPROPERTIES": true, "VIEWS": true,
	"INDEXES": true, "CATALOGS": true, "CURRENT": true, "TABLE": true,
}

// show reads SHOW TABLES [IN|FROM db] [[LIKE] 'pattern'].
func (p *parser) show() (Statement, error) {
	start := p.next() // SHOW
	t := p.peek()
	if st, ok, err := p.showOther(start); ok || err != nil {
		return st, err
	}
	if showForms[strings.ToUpper(t.value)] && t.kind == tokIdent {
		return p.unsupportedKind("SHOW " + strings.ToUpper(t.value)), nil
	}
	if err := p.expectKeyword("TABLES"); err != nil {
		return nil, err
	}
	st := &ShowTables{Pos: start.pos}
	if p.acceptKeyword("IN") || p.acceptKeyword("FROM") {
		parts, err := p.multipartName("a database name")
		if err != nil {
			return nil, err
		}
		st.Database = strings.Join(parts, ".")
	}
	p.acceptKeyword("LIKE")
	if p.peek().kind == tokString {
		st.Like, _ = p.stringValue("")
	}
	return st, p.expectEnd()
}

// describe reads DESCRIBE|DESC [TABLE] [EXTENDED|FORMATTED] t.
func (p *parser) describe() (Statement, error) {
	start := p.next() // DESCRIBE
	p.acceptKeyword("TABLE")
	if !p.acceptKeyword("EXTENDED") {
		p.acceptKeyword("FORMATTED")
	}
	for _, other := range []string{"QUERY", "FUNCTION", "DATABASE", "SCHEMA", "NAMESPACE", "CATALOG", "SELECT", "WITH", "HISTORY", "DETAIL"} {
		if p.peek().isKeyword(other) && !p.peekAt(1).isOp(".") && p.peekAt(1).kind != tokEOF {
			return p.unsupportedKind("DESCRIBE " + other), nil
		}
	}
	table, err := p.tableName()
	if err != nil {
		return nil, err
	}
	return &Describe{Pos: start.pos, Table: table}, p.expectEnd()
}

// call reads CALL procedure(name => value, …) or with positional arguments. A value
// that is one string literal is unquoted; any other value is kept as written.
func (p *parser) call() (Statement, error) {
	start := p.next() // CALL
	parts, err := p.multipartName("a procedure name")
	if err != nil {
		return nil, err
	}
	c := &Call{Pos: start.pos, Procedure: strings.ToLower(strings.Join(parts, "."))}
	if !p.peek().isOp("(") {
		return nil, p.errExpected(p.peek(), "'(' and the procedure's arguments")
	}
	open := p.i
	close := p.match[open]
	for _, r := range p.splitCommas(open+1, close) {
		var arg CallArg
		from := r[0]
		if from+1 < r[1] && p.toks[from].isName() && p.toks[from+1].isOp("=>") {
			arg.Name = strings.ToLower(p.toks[from].value)
			from += 2
		}
		switch {
		case from >= r[1]:
			return nil, p.errExpected(p.toks[r[1]], "an argument value")
		case p.toks[from].kind == tokString && r[1]-from == 1:
			arg.Value = p.toks[from].value
		default:
			arg.Value = p.rawText(from, r[1])
		}
		c.Args = append(c.Args, arg)
	}
	p.i = close + 1
	return c, p.expectEnd()
}

// set reads SET key = value, where both sides are raw text as Spark reads them
// (SET hoodie.write.lock.provider=org.apache…InProcessLockProvider needs no quotes);
// a quoted value is unquoted. SET TIME ZONE 'zone' sets spark.sql.session.timeZone.
func (p *parser) set() (Statement, error) {
	start := p.next() // SET
	end := len(p.toks) - 1
	if p.acceptKeyword("TIME", "ZONE") {
		t := p.peek()
		if t.kind != tokString {
			return p.unsupportedKind("SET TIME ZONE " + strings.ToUpper(t.value)), nil
		}
		v, _ := p.stringValue("")
		return &Set{Pos: start.pos, Key: "spark.sql.session.timeZone", Value: v}, p.expectEnd()
	}
	eq := -1
	for k := p.i; k < end; k++ {
		if p.toks[k].isOp("=") {
			eq = k
			break
		}
	}
	if eq < 0 {
		return p.unsupportedKind("SET"), nil // SET, SET -v, SET key: list settings
	}
	if eq == p.i {
		return nil, p.errExpected(p.toks[eq], "a setting name before '='")
	}
	key := p.rawText(p.i, eq)
	if eq-p.i == 1 && (p.toks[p.i].kind == tokQuotedIdent || p.toks[p.i].kind == tokString) {
		key = p.toks[p.i].value
	}
	value := p.rawText(eq+1, end)
	if end-eq == 2 && p.toks[eq+1].kind == tokString {
		value = p.toks[eq+1].value
	}
	return &Set{Pos: start.pos, Key: key, Value: value}, nil
}

// use reads USE [DATABASE|SCHEMA|NAMESPACE] db.
func (p *parser) use() (Statement, error) {
	start := p.next() // USE
	if !p.acceptKeyword("DATABASE") && !p.acceptKeyword("SCHEMA") {
		p.acceptKeyword("NAMESPACE")
	}
	parts, err := p.multipartName("a database name")
	if err != nil {
		return nil, err
	}
	return &Use{Pos: start.pos, Database: strings.Join(parts, ".")}, p.expectEnd()
}

// drop reads DROP TABLE [IF EXISTS] t [PURGE]; DROP of other objects is Unsupported.
func (p *parser) drop() (Statement, error) {
	start := p.next() // DROP
	switch t := p.peek(); {
	case t.isKeyword("INDEX"), t.isKeyword("VIEW"), t.isKeyword("FUNCTION"):
		return p.unsupportedKind("DROP " + strings.ToUpper(t.value)), nil
	case t.isKeyword("DATABASE"), t.isKeyword("SCHEMA"), t.isKeyword("NAMESPACE"):
		p.next()
		return p.dropDatabase(start)
	}
	if err := p.expectKeyword("TABLE"); err != nil {
		return nil, err
	}
	d := &DropTable{Pos: start.pos, IfExists: p.acceptKeyword("IF", "EXISTS")}
	var err error
	if d.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	d.Purge = p.acceptKeyword("PURGE")
	return d, p.expectEnd()
}
