package parser

import (
	"strconv"
	"strings"
)

// insert reads INSERT INTO|OVERWRITE [TABLE] t [PARTITION (…)] [(cols)] source. withAt
// is the index of a WITH clause written before INSERT, or -1.
func (p *parser) insert(withAt int) (Statement, error) {
	start := p.next() // INSERT
	if withAt >= 0 {
		start = p.toks[withAt]
	}
	ins := &Insert{Pos: start.pos}
	switch {
	case p.acceptKeyword("INTO"):
	case p.acceptKeyword("OVERWRITE"):
		ins.Overwrite = true
		if p.peek().isKeyword("DIRECTORY") || p.peek().isKeyword("LOCAL") {
			return p.unsupportedKind("INSERT OVERWRITE DIRECTORY"), nil
		}
	default:
		return nil, p.errExpected(p.peek(), "INTO or OVERWRITE")
	}
	p.acceptKeyword("TABLE")
	var err error
	if ins.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKeyword("PARTITION") {
		if ins.Partition, err = p.partitionSpec(); err != nil {
			return nil, err
		}
	}
	if p.peek().isOp("(") && !startsQuery(p.peekAt(1)) && !p.peekAt(1).isOp("(") {
		if ins.Columns, err = p.nameList("a column name"); err != nil {
			return nil, err
		}
	}
	t := p.peek()
	if !startsQuery(t) && !t.isOp("(") {
		return nil, p.errExpected(t, "VALUES or a query")
	}
	if t.isKeyword("VALUES") {
		withAt = -1 // the CTEs cannot be referenced by a VALUES list
	}
	ins.Source, err = p.translateQuery(p.i, len(p.toks)-1, withAt)
	return ins, err
}

// partitionSpec reads (col = value, col2, …) after PARTITION.
func (p *parser) partitionSpec() ([]PartitionValue, error) {
	if !p.peek().isOp("(") {
		return nil, p.errExpected(p.peek(), "'('")
	}
	open := p.i
	close := p.match[open]
	var out []PartitionValue
	for _, r := range p.splitCommas(open+1, close) {
		p.i = r[0]
		col, err := p.identifier("a partition column")
		if err != nil {
			return nil, err
		}
		pv := PartitionValue{Column: col}
		if p.i < r[1] {
			if err := p.expectOp("="); err != nil {
				return nil, err
			}
			v, err := p.translateExpr(p.i, r[1])
			if err != nil {
				return nil, err
			}
			pv.Value = &v
		}
		out = append(out, pv)
	}
	p.i = close + 1
	return out, nil
}

// clauseWords can never be a bare alias: after a table name they start the next clause.
var clauseWords = map[string]bool{
	"SET": true, "WHERE": true, "USING": true, "ON": true, "WHEN": true, "VALUES": true,
	"SELECT": true, "FROM": true, "JOIN": true, "PARTITION": true, "TIMESTAMP": true, "VERSION": true,
}

// alias reads [AS] alias, where a bare word among stops (or a clause word) is not an alias.
func (p *parser) alias(stops ...string) (string, error) {
	if p.acceptKeyword("AS") {
		return p.identifier("an alias")
	}
	t := p.peek()
	if t.kind == tokQuotedIdent {
		return p.next().value, nil
	}
	if t.kind != tokIdent || clauseWords[strings.ToUpper(t.value)] {
		return "", nil
	}
	for _, s := range stops {
		if t.isKeyword(s) {
			return "", nil
		}
	}
	return p.next().value, nil
}

// update reads UPDATE t [[AS] a] SET c = e, … [WHERE cond].
func (p *parser) update() (Statement, error) {
	start := p.next() // UPDATE
	u := &Update{Pos: start.pos}
	var err error
	if u.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if u.Alias, err = p.alias("SET"); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("SET"); err != nil {
		return nil, err
	}
	if u.Set, err = p.assignments(u.Table, u.Alias, "WHERE"); err != nil {
		return nil, err
	}
	if u.Where, err = p.where(); err != nil {
		return nil, err
	}
	return u, nil
}

// where reads an optional WHERE condition running to the end of the statement.
func (p *parser) where() (*SQLText, error) {
	if !p.acceptKeyword("WHERE") {
		return nil, p.expectEnd()
	}
	w, err := p.translateExpr(p.i, len(p.toks)-1)
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// deleteFrom reads DELETE FROM t [[AS] a] [WHERE cond].
func (p *parser) delete() (Statement, error) {
	start := p.next() // DELETE
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	d := &Delete{Pos: start.pos}
	var err error
	if d.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if d.Alias, err = p.alias("WHERE"); err != nil {
		return nil, err
	}
	if d.Where, err = p.where(); err != nil {
		return nil, err
	}
	return d, nil
}

// assignments reads col = expr, … up to a top-level stop word (or the end).
func (p *parser) assignments(table TableName, alias, stop string) ([]Assignment, error) {
	var out []Assignment
	for {
		colTok := p.peek()
		parts, err := p.multipartName("a column name")
		if err != nil {
			return nil, err
		}
		col, err := unqualify(colTok, parts, table, alias)
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		end := p.scan(p.i, func(t token) bool { return t.isOp(",") || t.isKeyword(stop) })
		v, err := p.translateExpr(p.i, end)
		if err != nil {
			return nil, err
		}
		out = append(out, Assignment{Column: col, Value: v})
		p.i = end
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// unqualify drops the target's alias or table name from a column (t.fare → fare).
func unqualify(at token, parts []string, table TableName, alias string) (string, error) {
	if len(parts) > 1 {
		q := parts[0]
		if alias != "" && strings.EqualFold(q, alias) || len(table.Parts) > 0 && strings.EqualFold(q, table.Parts[len(table.Parts)-1]) {
			parts = parts[1:]
		}
	}
	if len(parts) > 1 {
		return "", errAt(at, "cannot assign "+strings.Join(parts, ".")+": only top-level columns of the target table can be set")
	}
	return parts[0], nil
}

// merge reads MERGE INTO target [AS] t USING source [AS] s ON cond WHEN …
func (p *parser) merge() (Statement, error) {
	start := p.next() // MERGE
	if err := p.expectKeyword("INTO"); err != nil {
		return nil, err
	}
	m := &Merge{Pos: start.pos}
	var err error
	if m.Target, err = p.tableName(); err != nil {
		return nil, err
	}
	if m.TargetAlias, err = p.alias("USING"); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("USING"); err != nil {
		return nil, err
	}
	src := p.peek()
	b := &textBuilder{trimLead: true}
	next, err := p.fromItem(b, p.i, len(p.toks)-1, &scope{})
	if err != nil {
		return nil, err
	}
	if next == p.i {
		return nil, p.errExpected(src, "a source table or a parenthesized query after USING")
	}
	m.Source = b.text(src.pos)
	for i := range m.Source.Refs {
		// The engine names the source itself (SourceAlias or the table's name).
		m.Source.Refs[i].Aliased = true
	}
	p.i = next
	if m.SourceAlias, err = p.alias("ON"); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("ON"); err != nil {
		return nil, err
	}
	onEnd := p.scan(p.i, func(t token) bool { return t.isKeyword("WHEN") })
	if m.On, err = p.translateExpr(p.i, onEnd); err != nil {
		return nil, err
	}
	p.i = onEnd
	for p.peek().isKeyword("WHEN") {
		c, err := p.mergeClause(m)
		if err != nil {
			return nil, err
		}
		m.Clauses = append(m.Clauses, c)
	}
	if len(m.Clauses) == 0 {
		return nil, p.errExpected(p.peek(), "WHEN MATCHED or WHEN NOT MATCHED")
	}
	return m, p.expectEnd()
}

// mergeClause reads WHEN [NOT] MATCHED [AND cond] THEN action.
func (p *parser) mergeClause(m *Merge) (MergeClause, error) {
	p.next() // WHEN
	c := MergeClause{Matched: !p.acceptKeyword("NOT")}
	if err := p.expectKeyword("MATCHED"); err != nil {
		return c, err
	}
	if t := p.peek(); t.isKeyword("BY") {
		p.next()
		if c.Matched || !p.acceptKeyword("TARGET") {
			return c, errAt(t, "only WHEN MATCHED and WHEN NOT MATCHED [BY TARGET] are supported")
		}
	}
	if p.acceptKeyword("AND") {
		end := p.scan(p.i, func(t token) bool { return t.isKeyword("THEN") })
		cond, err := p.translateExpr(p.i, end)
		if err != nil {
			return c, err
		}
		c.Condition = &cond
		p.i = end
	}
	if err := p.expectKeyword("THEN"); err != nil {
		return c, err
	}
	var err error
	switch t := p.peek(); {
	case c.Matched && t.isKeyword("UPDATE"):
		p.next()
		c.Action = MergeUpdate
		if err := p.expectKeyword("SET"); err != nil {
			return c, err
		}
		if p.acceptOp("*") {
			c.Star = true
		} else {
			c.Set, err = p.assignments(m.Target, m.TargetAlias, "WHEN")
		}
	case c.Matched && t.isKeyword("DELETE"):
		p.next()
		c.Action = MergeDelete
	case c.Matched:
		return c, p.errExpected(t, "UPDATE or DELETE")
	case t.isKeyword("INSERT"):
		p.next()
		c.Action = MergeInsert
		if p.acceptOp("*") {
			c.Star = true
		} else {
			err = p.mergeInsert(&c, m)
		}
	default:
		return c, p.errExpected(t, "INSERT")
	}
	return c, err
}

// mergeInsert reads [(cols)] VALUES (exprs) of WHEN NOT MATCHED THEN INSERT.
func (p *parser) mergeInsert(c *MergeClause, m *Merge) error {
	if p.peek().isOp("(") {
		close := p.match[p.i]
		for _, r := range p.splitCommas(p.i+1, close) {
			p.i = r[0]
			colTok := p.peek()
			parts, err := p.multipartName("a column name")
			if err != nil {
				return err
			}
			if p.i != r[1] {
				return p.errExpected(p.peek(), "',' or ')'")
			}
			col, err := unqualify(colTok, parts, m.Target, m.TargetAlias)
			if err != nil {
				return err
			}
			c.Columns = append(c.Columns, col)
		}
		p.i = close + 1
	}
	if err := p.expectKeyword("VALUES"); err != nil {
		return err
	}
	if !p.peek().isOp("(") {
		return p.errExpected(p.peek(), "'('")
	}
	close := p.match[p.i]
	for _, r := range p.splitCommas(p.i+1, close) {
		v, err := p.translateExpr(r[0], r[1])
		if err != nil {
			return err
		}
		c.Values = append(c.Values, v)
	}
	p.i = close + 1
	if c.Columns != nil && len(c.Columns) != len(c.Values) {
		return errAt(p.at(close), "INSERT lists "+strconv.Itoa(len(c.Columns))+" columns but "+strconv.Itoa(len(c.Values))+" values")
	}
	return nil
}
