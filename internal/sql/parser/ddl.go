package parser

import "strings"

// create reads CREATE TABLE; the other CREATE forms Spark has are Unsupported.
func (p *parser) create() (Statement, error) {
	start := p.next() // CREATE
	orReplace := p.acceptKeyword("OR", "REPLACE")
	for p.acceptKeyword("EXTERNAL") || p.acceptKeyword("GLOBAL") || p.acceptKeyword("TEMPORARY") || p.acceptKeyword("TEMP") || p.acceptKeyword("UNIQUE") {
	}
	kind := strings.ToUpper(p.peek().value)
	switch {
	case p.peek().kind != tokIdent:
	case kind == "INDEX" || kind == "VIEW" || kind == "FUNCTION":
		return p.unsupportedKind("CREATE " + kind), nil
	case kind == "DATABASE" || kind == "SCHEMA" || kind == "NAMESPACE":
		p.next()
		return p.createDatabase(start)
	case kind == "TABLE" && orReplace:
		return p.unsupportedKind("CREATE OR REPLACE TABLE"), nil
	}
	if err := p.expectKeyword("TABLE"); err != nil {
		return nil, err
	}
	ct := &CreateTable{Pos: start.pos}
	ct.IfNotExists = p.acceptKeyword("IF", "NOT", "EXISTS")
	var err error
	if ct.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKeyword("LIKE") {
		return p.createLike(ct)
	}
	if p.peek().isOp("(") && !startsQuery(p.peekAt(1)) {
		if ct.Columns, _, err = p.columnList(true); err != nil {
			return nil, err
		}
	}
	return ct, p.createClauses(ct)
}

// unsupportedKind is an Unsupported statement spanning the whole statement.
func (p *parser) unsupportedKind(kind string) *Unsupported {
	return &Unsupported{Pos: p.toks[0].pos, Kind: kind, Text: p.rawText(0, len(p.toks)-1)}
}

// createClauses reads USING, PARTITIONED BY, TBLPROPERTIES, OPTIONS, LOCATION and
// COMMENT in any order (each at most once, as Spark requires), then an optional AS query.
func (p *parser) createClauses(ct *CreateTable) error {
	seen := map[string]bool{}
	once := func(t token, clause string) error {
		if seen[clause] {
			return errAt(t, "duplicate "+clause+" clause")
		}
		seen[clause] = true
		return nil
	}
	for {
		t := p.peek()
		var err error
		switch {
		case t.kind == tokEOF:
			return nil
		case t.isKeyword("AS") || startsQuery(t) || t.isOp("("):
			p.acceptKeyword("AS")
			if !startsQuery(p.peek()) && !p.peek().isOp("(") {
				return p.errExpected(p.peek(), "a query after AS")
			}
			q, err := p.translateQuery(p.i, len(p.toks)-1, -1)
			if err != nil {
				return err
			}
			ct.AsSelect = &q
			return nil
		case t.isKeyword("USING"):
			if err = once(t, "USING"); err == nil {
				p.next()
				var parts []string
				parts, err = p.multipartName("a table format after USING")
				ct.Using = strings.ToLower(strings.Join(parts, "."))
			}
		case t.isKeyword("PARTITIONED"):
			if err = once(t, "PARTITIONED BY"); err == nil {
				p.next()
				if err = p.expectKeyword("BY"); err == nil {
					ct.PartitionedBy, err = p.nameList("a partition column")
				}
			}
		case t.isKeyword("TBLPROPERTIES"):
			if err = once(t, "TBLPROPERTIES"); err == nil {
				p.next()
				ct.Properties, err = p.properties()
			}
		case t.isKeyword("OPTIONS"):
			if err = once(t, "OPTIONS"); err == nil {
				p.next()
				ct.Options, err = p.properties()
			}
		case t.isKeyword("LOCATION"):
			if err = once(t, "LOCATION"); err == nil {
				p.next()
				ct.Location, err = p.stringValue("a quoted location")
			}
		case t.isKeyword("COMMENT"):
			if err = once(t, "COMMENT"); err == nil {
				p.next()
				ct.Comment, err = p.stringValue("a quoted comment")
			}
		default:
			return p.errExpected(t, "USING, PARTITIONED BY, TBLPROPERTIES, OPTIONS, LOCATION, COMMENT, AS or end of statement")
		}
		if err != nil {
			return err
		}
	}
}

// stringValue reads a string literal (adjacent literals concatenated, as in Spark).
func (p *parser) stringValue(what string) (string, error) {
	t := p.peek()
	if t.kind != tokString {
		return "", p.errExpected(t, what)
	}
	v := ""
	for p.peek().kind == tokString {
		v += p.next().value
	}
	return v, nil
}

// nameList reads (name, …).
func (p *parser) nameList(what string) ([]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var names []string
	for {
		n, err := p.identifier(what)
		if err != nil {
			return nil, err
		}
		names = append(names, n)
		if p.acceptOp(")") {
			return names, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, p.errExpected(p.peek(), "',' or ')'")
		}
	}
}

// properties reads (key [=] value, …) of TBLPROPERTIES and OPTIONS. Keys are dotted
// names or strings; values are strings, numbers or booleans, as Spark allows.
func (p *parser) properties() ([]Property, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var props []Property
	if p.acceptOp(")") {
		return props, nil
	}
	for {
		var prop Property
		if t := p.peek(); t.kind == tokString {
			prop.Key = p.next().value
		} else {
			parts, err := p.multipartName("a property key")
			if err != nil {
				return nil, err
			}
			prop.Key = strings.Join(parts, ".")
		}
		p.acceptOp("=")
		switch t := p.peek(); {
		case t.kind == tokString:
			prop.Value, _ = p.stringValue("")
		case t.kind == tokNumber, t.isKeyword("TRUE"), t.isKeyword("FALSE"):
			p.next()
			prop.Value = t.value + t.suffix
		default:
			return nil, p.errExpected(t, "a property value (a quoted string, a number, true or false)")
		}
		props = append(props, prop)
		if p.acceptOp(")") {
			return props, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, p.errExpected(p.peek(), "',' or ')'")
		}
	}
}

// columnList reads column definitions: "(col type …, …)" when parenthesized, else a bare
// list up to the end of the statement (ALTER TABLE … ADD COLUMN c INT). positioned is
// set when a column carries FIRST or AFTER, which ColumnDef cannot say.
func (p *parser) columnList(parenthesized bool) (cols []ColumnDef, positioned bool, err error) {
	if parenthesized {
		if err := p.expectOp("("); err != nil {
			return nil, false, err
		}
	}
	for {
		var c ColumnDef
		if c.Name, err = p.identifier("a column name"); err != nil {
			return nil, false, err
		}
		typ, err := p.parseType(0)
		if err != nil {
			return nil, false, err
		}
		c.Type = typ.ddl()
		notNull, comment, err := p.columnOptions()
		if err != nil {
			return nil, false, err
		}
		c.NotNull = notNull
		if comment != nil {
			c.Comment = *comment
		}
		if p.acceptKeyword("FIRST") {
			positioned = true
		} else if p.acceptKeyword("AFTER") {
			positioned = true
			if _, err := p.identifier("a column name after AFTER"); err != nil {
				return nil, false, err
			}
		}
		cols = append(cols, c)
		if parenthesized && p.acceptOp(")") || !parenthesized && p.peek().kind == tokEOF {
			return cols, positioned, nil
		}
		if err := p.expectOp(","); err != nil {
			if parenthesized {
				return nil, false, p.errExpected(p.peek(), "',' or ')' after the column (NOT NULL and COMMENT are the column options supported)")
			}
			return nil, false, p.errExpected(p.peek(), "',' or end of statement")
		}
	}
}

// alter reads ALTER TABLE t ADD COLUMNS (…), the column changes of schema evolution on
// read and the catalog forms; every other ALTER TABLE form is kept as text for the engine
// to refuse by name.
func (p *parser) alter() (Statement, error) {
	start := p.next() // ALTER
	if err := p.expectKeyword("TABLE"); err != nil {
		return nil, err
	}
	table, err := p.tableName()
	if err != nil {
		return nil, err
	}
	if st, ok, err := p.alterOther(start, table); ok || err != nil {
		return st, err
	}
	// ADD/ALTER/DROP/RENAME COLUMN (altercolumns.go).
	if st, ok, err := p.alterColumns(start, table); ok || err != nil {
		return st, err
	}
	return &AlterTable{Pos: start.pos, Table: table, Text: p.rawText(0, len(p.toks)-1)}, nil
}
