package parser

import "strings"

// ColumnPosition is FIRST or AFTER col of ADD COLUMNS and ALTER COLUMN (zero: none).
type ColumnPosition struct {
	First bool
	After string // a sibling's name
}

// AddColumnSpec is one column of ADD COLUMNS with a (possibly nested) name: Name is its
// parts ("a.b.c" → [a b c]; map values and array elements are "m.value.x",
// "arr.element.x" as the seed writes them).
type AddColumnSpec struct {
	Name     []string
	Def      ColumnDef // Def.Name is the last part
	Position ColumnPosition
}

// AlterColumnSpec is ALTER [COLUMN] name followed by one or more of TYPE t, COMMENT 'c',
// FIRST | AFTER x, DROP NOT NULL, SET NOT NULL.
type AlterColumnSpec struct {
	Name        []string
	Type        string // Spark DDL; "" when not changed
	Comment     *string
	Position    ColumnPosition
	DropNotNull bool
	SetNotNull  bool
}

// AlterColumns is an ALTER TABLE column change that needs schema evolution on read
// (exactly one of the kinds): ADD COLUMNS with a nested name or a position, ALTER COLUMN,
// DROP COLUMN(S), RENAME COLUMN. A plain ADD COLUMNS is AlterAddColumns.
type AlterColumns struct {
	Pos   Pos
	Table TableName
	Add   []AddColumnSpec
	Alter *AlterColumnSpec
	// Drop lists full names; DropIfExists skips those that do not exist.
	Drop         [][]string
	DropIfExists bool
	// RenameFrom is the full name of the column RENAME COLUMN renames to RenameTo.
	RenameFrom []string
	RenameTo   string
	// Kind names the statement in messages: ADD COLUMNS, ALTER COLUMN, DROP COLUMN,
	// RENAME COLUMN.
	Kind string
}

func (s *AlterColumns) Position() Pos { return s.Pos }

// alterColumns reads the column forms of ALTER TABLE (p.i after the table name). ok is
// false when the statement is none of them (p.i unchanged).
func (p *parser) alterColumns(start token, table TableName) (st Statement, ok bool, err error) {
	switch {
	case p.peek().isKeyword("ADD") && (p.peekAt(1).isKeyword("COLUMNS") || p.peekAt(1).isKeyword("COLUMN")):
		p.i += 2
		return p.addColumns(start, table)
	case (p.peek().isKeyword("ALTER") || p.peek().isKeyword("CHANGE")) && p.alterActionFollows():
		p.next()
		p.acceptKeyword("COLUMN")
		spec := &AlterColumnSpec{}
		if spec.Name, err = p.multipartName("a column name"); err != nil {
			return nil, true, err
		}
		if err := p.alterActions(spec); err != nil {
			return nil, true, err
		}
		return &AlterColumns{Pos: start.pos, Table: table, Alter: spec, Kind: "ALTER COLUMN"}, true, p.expectEnd()
	case p.peek().isKeyword("DROP") && (p.peekAt(1).isKeyword("COLUMN") || p.peekAt(1).isKeyword("COLUMNS")):
		p.i += 2
		s := &AlterColumns{Pos: start.pos, Table: table, Kind: "DROP COLUMN", DropIfExists: p.acceptKeyword("IF", "EXISTS")}
		paren := p.acceptOp("(")
		for {
			name, err := p.multipartName("a column name")
			if err != nil {
				return nil, true, err
			}
			s.Drop = append(s.Drop, name)
			if !p.acceptOp(",") {
				break
			}
		}
		if paren {
			if err := p.expectOp(")"); err != nil {
				return nil, true, err
			}
		}
		return s, true, p.expectEnd()
	case p.peek().isKeyword("RENAME") && p.peekAt(1).isKeyword("COLUMN"):
		p.i += 2
		s := &AlterColumns{Pos: start.pos, Table: table, Kind: "RENAME COLUMN"}
		if s.RenameFrom, err = p.multipartName("a column name"); err != nil {
			return nil, true, err
		}
		if err := p.expectKeyword("TO"); err != nil {
			return nil, true, err
		}
		if s.RenameTo, err = p.identifier("the new column name"); err != nil {
			return nil, true, err
		}
		return s, true, p.expectEnd()
	}
	return nil, false, nil
}

// alterActionFollows reports whether ALTER|CHANGE [COLUMN] name is followed by an action
// this parser reads (Hive's CHANGE COLUMN old new type is not one).
func (p *parser) alterActionFollows() bool {
	k := 1
	if p.peekAt(k).isKeyword("COLUMN") {
		k++
	}
	if !p.peekAt(k).isName() {
		return false
	}
	k++
	for p.peekAt(k).isOp(".") && p.peekAt(k+1).isName() {
		k += 2
	}
	t := p.peekAt(k)
	for _, kw := range []string{"TYPE", "COMMENT", "FIRST", "AFTER", "DROP", "SET"} {
		if t.isKeyword(kw) {
			return true
		}
	}
	return false
}

// alterActions reads the actions of ALTER COLUMN, each at most once, at least one.
func (p *parser) alterActions(spec *AlterColumnSpec) error {
	n := 0
	for {
		switch t := p.peek(); {
		case spec.Type == "" && p.acceptKeyword("TYPE"):
			typ, err := p.parseType(0)
			if err != nil {
				return err
			}
			spec.Type = typ.ddl()
		case spec.Comment == nil && p.acceptKeyword("COMMENT"):
			c, err := p.stringValue("a quoted comment")
			if err != nil {
				return err
			}
			spec.Comment = &c
		case !spec.Position.First && spec.Position.After == "" && (t.isKeyword("FIRST") || t.isKeyword("AFTER")):
			pos, err := p.columnPosition()
			if err != nil {
				return err
			}
			spec.Position = pos
		case !spec.DropNotNull && !spec.SetNotNull && p.acceptKeyword("DROP", "NOT", "NULL"):
			spec.DropNotNull = true
		case !spec.DropNotNull && !spec.SetNotNull && p.acceptKeyword("SET", "NOT", "NULL"):
			spec.SetNotNull = true
		default:
			if n == 0 {
				return p.errExpected(t, "TYPE, COMMENT, FIRST, AFTER, DROP NOT NULL or SET NOT NULL")
			}
			return nil
		}
		n++
	}
}

// columnPosition reads FIRST or AFTER name.
func (p *parser) columnPosition() (ColumnPosition, error) {
	if p.acceptKeyword("FIRST") {
		return ColumnPosition{First: true}, nil
	}
	if p.acceptKeyword("AFTER") {
		name, err := p.identifier("a column name after AFTER")
		return ColumnPosition{After: name}, err
	}
	return ColumnPosition{}, nil
}

// addColumns reads the columns of ADD COLUMN(S), parenthesized or not: name type
// [NOT NULL] [COMMENT '…'] [FIRST | AFTER x], where name may be nested (a.b). Plain
// columns (simple names, no position) give AlterAddColumns, the others AlterColumns.
func (p *parser) addColumns(start token, table TableName) (Statement, bool, error) {
	paren := p.acceptOp("(")
	var specs []AddColumnSpec
	plain := true
	for {
		name, err := p.multipartName("a column name")
		if err != nil {
			return nil, true, err
		}
		typ, err := p.parseType(0)
		if err != nil {
			return nil, true, err
		}
		spec := AddColumnSpec{Name: name, Def: ColumnDef{Name: name[len(name)-1], Type: typ.ddl()}}
		notNull, comment, err := p.columnOptions()
		if err != nil {
			return nil, true, err
		}
		spec.Def.NotNull = notNull
		if comment != nil {
			spec.Def.Comment = *comment
		}
		if spec.Position, err = p.columnPosition(); err != nil {
			return nil, true, err
		}
		if len(name) > 1 || spec.Position != (ColumnPosition{}) {
			plain = false
		}
		specs = append(specs, spec)
		if paren && p.acceptOp(")") || !paren && p.peek().kind == tokEOF {
			break
		}
		if err := p.expectOp(","); err != nil {
			if paren {
				return nil, true, p.errExpected(p.peek(), "',' or ')' after the column (NOT NULL, COMMENT, FIRST and AFTER are the column options supported)")
			}
			return nil, true, p.errExpected(p.peek(), "',' or end of statement")
		}
	}
	if err := p.expectEnd(); err != nil {
		return nil, true, err
	}
	if plain {
		cols := make([]ColumnDef, len(specs))
		for i, s := range specs {
			cols[i] = s.Def
		}
		return &AlterAddColumns{Pos: start.pos, Table: table, Columns: cols}, true, nil
	}
	return &AlterColumns{Pos: start.pos, Table: table, Add: specs, Kind: "ADD COLUMNS"}, true, nil
}

// FullName joins a column's name parts.
func FullName(parts []string) string { return strings.Join(parts, ".") }
