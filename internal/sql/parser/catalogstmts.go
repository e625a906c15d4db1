package parser

import "strings"

// Catalog statements Spark SQL users type besides CREATE/DROP TABLE: SHOW forms, database
// DDL, TRUNCATE, ALTER TABLE's RENAME / SET|UNSET TBLPROPERTIES / DROP PARTITION and
// CREATE TABLE … LIKE.

// Show is SHOW PARTITIONS t | SHOW TBLPROPERTIES t [('key')] | SHOW CREATE TABLE t |
// SHOW COLUMNS IN t [IN db] | SHOW DATABASES [LIKE 'pattern'].
type Show struct {
	Pos      Pos
	What     string // PARTITIONS, TBLPROPERTIES, CREATE TABLE, COLUMNS, DATABASES
	Table    TableName
	Key      string // SHOW TBLPROPERTIES t ('key')
	Like     string
	Database string // SHOW COLUMNS … IN db
}

// CreateDatabase is CREATE DATABASE|SCHEMA [IF NOT EXISTS] db [COMMENT …] [LOCATION …].
type CreateDatabase struct {
	Pos         Pos
	Name        string
	IfNotExists bool
}

// DropDatabase is DROP DATABASE|SCHEMA [IF EXISTS] db [RESTRICT|CASCADE].
type DropDatabase struct {
	Pos      Pos
	Name     string
	IfExists bool
	Cascade  bool
}

// Truncate is TRUNCATE TABLE t [PARTITION (c = v, …)].
type Truncate struct {
	Pos       Pos
	Table     TableName
	Partition []PartitionValue
}

// AlterProps is ALTER TABLE t SET TBLPROPERTIES (…) or UNSET TBLPROPERTIES [IF EXISTS] (…).
type AlterProps struct {
	Pos      Pos
	Table    TableName
	Unset    bool
	IfExists bool
	Props    []Property // UNSET: keys only
}

// AlterRename is ALTER TABLE t RENAME TO u.
type AlterRename struct {
	Pos       Pos
	Table, To TableName
}

// AlterDropPartition is ALTER TABLE t DROP [IF EXISTS] PARTITION (c = v, …)[, PARTITION …].
type AlterDropPartition struct {
	Pos        Pos
	Table      TableName
	IfExists   bool
	Partitions [][]PartitionValue
}

// CreateLike is CREATE TABLE [IF NOT EXISTS] t LIKE src [USING fmt] [LOCATION …]
// [TBLPROPERTIES (…)].
type CreateLike struct {
	Pos         Pos
	IfNotExists bool
	Table       TableName
	Source      TableName
	Location    string
	Properties  []Property
}

func (s *Show) Position() Pos               { return s.Pos }
func (s *CreateDatabase) Position() Pos     { return s.Pos }
func (s *DropDatabase) Position() Pos       { return s.Pos }
func (s *Truncate) Position() Pos           { return s.Pos }
func (s *AlterProps) Position() Pos         { return s.Pos }
func (s *AlterRename) Position() Pos        { return s.Pos }
func (s *AlterDropPartition) Position() Pos { return s.Pos }
func (s *CreateLike) Position() Pos         { return s.Pos }

// showOther reads the SHOW forms other than SHOW TABLES; ok is false for forms hudi-go
// does not run.
func (p *parser) showOther(start token) (Statement, bool, error) {
	kw := strings.ToUpper(p.peek().value)
	st := &Show{Pos: start.pos}
	switch kw {
	case "PARTITIONS", "TBLPROPERTIES":
		p.next()
		st.What = kw
		t, err := p.tableName()
		if err != nil {
			return nil, true, err
		}
		st.Table = t
		if kw == "TBLPROPERTIES" && p.acceptOp("(") {
			if st.Key, err = p.propertyKey(); err != nil {
				return nil, true, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, true, err
			}
		}
		if kw == "PARTITIONS" && p.peek().isKeyword("PARTITION") {
			return p.unsupportedKind("SHOW PARTITIONS … PARTITION"), true, nil
		}
	case "CREATE":
		if !p.peekAt(1).isKeyword("TABLE") {
			return nil, false, nil
		}
		p.i += 2
		st.What = "CREATE TABLE"
		t, err := p.tableName()
		if err != nil {
			return nil, true, err
		}
		st.Table = t
		p.acceptKeyword("AS", "SERDE")
	case "COLUMNS":
		p.next()
		st.What = kw
		if !p.acceptKeyword("IN") {
			if err := p.expectKeyword("FROM"); err != nil {
				return nil, true, err
			}
		}
		t, err := p.tableName()
		if err != nil {
			return nil, true, err
		}
		st.Table = t
		if p.acceptKeyword("IN") || p.acceptKeyword("FROM") {
			parts, err := p.multipartName("a database name")
			if err != nil {
				return nil, true, err
			}
			st.Database = strings.Join(parts, ".")
		}
	case "DATABASES", "SCHEMAS", "NAMESPACES":
		p.next()
		st.What = "DATABASES"
		p.acceptKeyword("LIKE")
		if p.peek().kind == tokString {
			st.Like, _ = p.stringValue("")
		}
	default:
		return nil, false, nil
	}
	return st, true, p.expectEnd()
}

// propertyKey reads a property key: a quoted string or a dotted name.
func (p *parser) propertyKey() (string, error) {
	if t := p.peek(); t.kind == tokString {
		return p.next().value, nil
	}
	parts, err := p.multipartName("a property key")
	if err != nil {
		return "", err
	}
	return strings.Join(parts, "."), nil
}

// createDatabase reads the rest of CREATE DATABASE (after the keyword).
func (p *parser) createDatabase(start token) (Statement, error) {
	st := &CreateDatabase{Pos: start.pos, IfNotExists: p.acceptKeyword("IF", "NOT", "EXISTS")}
	parts, err := p.multipartName("a database name")
	if err != nil {
		return nil, err
	}
	st.Name = strings.Join(parts, ".")
	for p.peek().kind != tokEOF {
		switch {
		case p.acceptKeyword("COMMENT"), p.acceptKeyword("LOCATION"):
			if _, err := p.stringValue("a quoted value"); err != nil {
				return nil, err
			}
		default:
			return p.unsupportedKind("CREATE DATABASE " + strings.ToUpper(p.peek().value)), nil
		}
	}
	return st, nil
}

// dropDatabase reads the rest of DROP DATABASE (after the keyword).
func (p *parser) dropDatabase(start token) (Statement, error) {
	st := &DropDatabase{Pos: start.pos, IfExists: p.acceptKeyword("IF", "EXISTS")}
	parts, err := p.multipartName("a database name")
	if err != nil {
		return nil, err
	}
	st.Name = strings.Join(parts, ".")
	if p.acceptKeyword("CASCADE") {
		st.Cascade = true
	} else {
		p.acceptKeyword("RESTRICT")
	}
	return st, p.expectEnd()
}

// truncate reads TRUNCATE TABLE t [PARTITION (…)].
func (p *parser) truncate() (Statement, error) {
	start := p.next() // TRUNCATE
	if err := p.expectKeyword("TABLE"); err != nil {
		return nil, err
	}
	st := &Truncate{Pos: start.pos}
	var err error
	if st.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKeyword("PARTITION") {
		if st.Partition, err = p.partitionSpec(); err != nil {
			return nil, err
		}
	}
	return st, p.expectEnd()
}

// alterOther reads ALTER TABLE t RENAME TO / SET|UNSET TBLPROPERTIES / DROP PARTITION
// (p.i after the table name); ok is false for other forms.
func (p *parser) alterOther(start token, table TableName) (Statement, bool, error) {
	switch {
	case p.acceptKeyword("RENAME", "TO"):
		to, err := p.tableName()
		if err != nil {
			return nil, true, err
		}
		return &AlterRename{Pos: start.pos, Table: table, To: to}, true, p.expectEnd()
	case p.acceptKeyword("SET", "TBLPROPERTIES"):
		props, err := p.properties()
		if err != nil {
			return nil, true, err
		}
		return &AlterProps{Pos: start.pos, Table: table, Props: props}, true, p.expectEnd()
	case p.acceptKeyword("UNSET", "TBLPROPERTIES"):
		st := &AlterProps{Pos: start.pos, Table: table, Unset: true, IfExists: p.acceptKeyword("IF", "EXISTS")}
		if err := p.expectOp("("); err != nil {
			return nil, true, err
		}
		for {
			k, err := p.propertyKey()
			if err != nil {
				return nil, true, err
			}
			st.Props = append(st.Props, Property{Key: k})
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, true, err
			}
		}
		return st, true, p.expectEnd()
	case p.peek().isKeyword("DROP") && (p.peekAt(1).isKeyword("PARTITION") || p.peekAt(1).isKeyword("IF")):
		p.next()
		st := &AlterDropPartition{Pos: start.pos, Table: table, IfExists: p.acceptKeyword("IF", "EXISTS")}
		for {
			if err := p.expectKeyword("PARTITION"); err != nil {
				return nil, true, err
			}
			spec, err := p.partitionSpec()
			if err != nil {
				return nil, true, err
			}
			st.Partitions = append(st.Partitions, spec)
			if !p.acceptOp(",") {
				break
			}
		}
		p.acceptKeyword("PURGE")
		return st, true, p.expectEnd()
	}
	return nil, false, nil
}

// createLike reads the rest of CREATE TABLE t LIKE src … (p.i after LIKE).
func (p *parser) createLike(ct *CreateTable) (Statement, error) {
	st := &CreateLike{Pos: ct.Pos, IfNotExists: ct.IfNotExists, Table: ct.Table}
	var err error
	if st.Source, err = p.tableName(); err != nil {
		return nil, err
	}
	for p.peek().kind != tokEOF {
		switch {
		case p.acceptKeyword("USING"):
			if _, err := p.identifier("a data source"); err != nil {
				return nil, err
			}
		case p.acceptKeyword("LOCATION"):
			if st.Location, err = p.stringValue("a quoted location"); err != nil {
				return nil, err
			}
		case p.acceptKeyword("TBLPROPERTIES"):
			if st.Properties, err = p.properties(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errExpected(p.peek(), "USING, LOCATION or TBLPROPERTIES")
		}
	}
	return st, nil
}
