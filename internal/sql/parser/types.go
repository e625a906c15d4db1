package parser

import (
	"strconv"
	"strings"
)

// sparkType is a parsed Spark DDL type. It renders two ways: as the Spark DDL text
// schema.ParseDDL reads (ColumnDef.Type) and as a DuckDB type (CAST targets).
type sparkType struct {
	name   string     // canonical upper-case name: INT, BIGINT, DECIMAL, ARRAY, STRUCT, …
	args   []int      // DECIMAL(p,s), VARCHAR(n), CHAR(n)
	elem   *sparkType // ARRAY element, MAP value
	key    *sparkType // MAP key
	fields []structField
}

type structField struct {
	name    string
	typ     *sparkType
	notNull bool
	comment *string
}

// typeAliases maps every spelling Spark accepts to its canonical name.
var typeAliases = map[string]string{
	"BOOLEAN": "BOOLEAN",
	"TINYINT": "TINYINT", "BYTE": "TINYINT",
	"SMALLINT": "SMALLINT", "SHORT": "SMALLINT",
	"INT": "INT", "INTEGER": "INT",
	"BIGINT": "BIGINT", "LONG": "BIGINT",
	"FLOAT": "FLOAT", "REAL": "FLOAT",
	"DOUBLE": "DOUBLE",
	"STRING": "STRING", "VARCHAR": "VARCHAR", "CHAR": "CHAR", "CHARACTER": "CHAR",
	"BINARY":    "BINARY",
	"DATE":      "DATE",
	"TIMESTAMP": "TIMESTAMP", "TIMESTAMP_LTZ": "TIMESTAMP", "TIMESTAMP_NTZ": "TIMESTAMP_NTZ",
	"DECIMAL": "DECIMAL", "DEC": "DECIMAL", "NUMERIC": "DECIMAL",
	"INTERVAL": "INTERVAL", "VOID": "VOID",
	"ARRAY": "ARRAY", "MAP": "MAP", "STRUCT": "STRUCT",
}

// duckTypes maps canonical scalar names to DuckDB. TIMESTAMP is Spark's local-time-zone
// timestamp: DuckDB's TIMESTAMPTZ, rendered in the session TimeZone the engine sets.
var duckTypes = map[string]string{
	"BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INTEGER",
	"BIGINT": "BIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "STRING": "VARCHAR",
	"VARCHAR": "VARCHAR", "CHAR": "VARCHAR", "BINARY": "BLOB", "DATE": "DATE",
	"TIMESTAMP": "TIMESTAMPTZ", "TIMESTAMP_NTZ": "TIMESTAMP", "INTERVAL": "INTERVAL",
	"VOID": "NULL",
}

// parseType reads a Spark type at p.i: a scalar (with its arguments), ARRAY<T>,
// MAP<K, V> or STRUCT<name[:] T [NOT NULL] [COMMENT '…'], …>.
func (p *parser) parseType(depth int) (*sparkType, error) {
	t := p.peek()
	if depth > maxNesting {
		return nil, errAt(t, "types nested deeper than 200 levels")
	}
	if t.kind != tokIdent {
		return nil, p.errExpected(t, "a type")
	}
	name, ok := typeAliases[strings.ToUpper(t.value)]
	if !ok {
		return nil, p.errExpected(t, "a type (STRING, INT, BIGINT, DOUBLE, DECIMAL(p,s), DATE, TIMESTAMP, ARRAY<…>, MAP<…>, STRUCT<…>, …)")
	}
	p.next()
	st := &sparkType{name: name}
	var err error
	switch name {
	case "ARRAY":
		if err = p.expectOp("<"); err != nil {
			return nil, err
		}
		if st.elem, err = p.parseType(depth + 1); err != nil {
			return nil, err
		}
		return st, p.expectOp(">")
	case "MAP":
		if err = p.expectOp("<"); err != nil {
			return nil, err
		}
		if st.key, err = p.parseType(depth + 1); err != nil {
			return nil, err
		}
		if err = p.expectOp(","); err != nil {
			return nil, err
		}
		if st.elem, err = p.parseType(depth + 1); err != nil {
			return nil, err
		}
		return st, p.expectOp(">")
	case "STRUCT":
		return st, p.structFields(st, depth)
	case "DECIMAL":
		if st.args, err = p.typeArgs(0, 2); err != nil {
			return nil, err
		}
		// Spark's defaults; DuckDB's bare DECIMAL would be (18,3).
		for len(st.args) < 2 {
			st.args = append(st.args, []int{10, 0}[len(st.args)])
		}
		if st.args[0] < 1 || st.args[0] > 38 || st.args[1] > st.args[0] {
			return nil, errAt(t, "DECIMAL("+strconv.Itoa(st.args[0])+","+strconv.Itoa(st.args[1])+") is out of range (precision 1..38, scale at most the precision)")
		}
	case "VARCHAR", "CHAR":
		if st.args, err = p.typeArgs(1, 1); err != nil {
			return nil, err
		}
	case "INTERVAL":
		// INTERVAL DAY TO SECOND, INTERVAL YEAR, …: the qualifier does not change DuckDB's type.
		for p.peek().kind == tokIdent && intervalQualifiers[strings.ToUpper(p.peek().value)] {
			p.next()
		}
	}
	return st, nil
}

var intervalQualifiers = map[string]bool{"YEAR": true, "MONTH": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true, "TO": true}

func (p *parser) structFields(st *sparkType, depth int) error {
	if err := p.expectOp("<"); err != nil {
		return err
	}
	if p.acceptOp(">") {
		return nil
	}
	for {
		name, err := p.identifier("a struct field name")
		if err != nil {
			return err
		}
		p.acceptOp(":")
		f := structField{name: name}
		if f.typ, err = p.parseType(depth + 1); err != nil {
			return err
		}
		if f.notNull, f.comment, err = p.columnOptions(); err != nil {
			return err
		}
		st.fields = append(st.fields, f)
		if p.acceptOp(">") {
			return nil
		}
		if err := p.expectOp(","); err != nil {
			return p.errExpected(p.peek(), "',' or '>' in STRUCT<…>")
		}
	}
}

// columnOptions reads NOT NULL and COMMENT '…' in either order.
func (p *parser) columnOptions() (notNull bool, comment *string, err error) {
	for {
		switch {
		case !notNull && p.acceptKeyword("NOT"):
			if err := p.expectKeyword("NULL"); err != nil {
				return false, nil, err
			}
			notNull = true
		case comment == nil && p.acceptKeyword("COMMENT"):
			t := p.next()
			if t.kind != tokString {
				return false, nil, p.errExpected(t, "a quoted comment")
			}
			c := t.value
			comment = &c
		default:
			return notNull, comment, nil
		}
	}
}

// typeArgs reads an optional (n[, m]) of between lo and hi integers.
func (p *parser) typeArgs(lo, hi int) ([]int, error) {
	if !p.peek().isOp("(") {
		if lo > 0 {
			return nil, p.errExpected(p.peek(), "'(' and a length")
		}
		return nil, nil
	}
	p.next()
	var args []int
	for {
		t := p.next()
		n, err := strconv.Atoi(t.value)
		if t.kind != tokNumber || t.suffix != "" || err != nil || n < 0 {
			return nil, p.errExpected(t, "an integer")
		}
		args = append(args, n)
		if p.acceptOp(")") {
			break
		}
		if len(args) == hi {
			return nil, p.errExpected(p.peek(), "')'")
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
	if len(args) < lo {
		return nil, errAt(p.at(p.i-1), "expected "+strconv.Itoa(lo)+" type argument(s)")
	}
	return args, nil
}

// ddl renders the type as Spark DDL for schema.ParseDDL.
func (t *sparkType) ddl() string {
	switch t.name {
	case "ARRAY":
		return "ARRAY<" + t.elem.ddl() + ">"
	case "MAP":
		return "MAP<" + t.key.ddl() + ", " + t.elem.ddl() + ">"
	case "STRUCT":
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			s := ddlName(f.name) + ": " + f.typ.ddl()
			if f.notNull {
				s += " NOT NULL"
			}
			if f.comment != nil {
				s += " COMMENT " + ddlString(*f.comment)
			}
			parts[i] = s
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	}
	return t.name + intArgs(t.args)
}

// duck renders the type as DuckDB SQL.
func (t *sparkType) duck() string {
	switch t.name {
	case "ARRAY":
		return t.elem.duck() + "[]"
	case "MAP":
		return "MAP(" + t.key.duck() + ", " + t.elem.duck() + ")"
	case "STRUCT":
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			parts[i] = quoteIdent(f.name) + " " + f.typ.duck()
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case "DECIMAL":
		return "DECIMAL" + intArgs(t.args)
	}
	return duckTypes[t.name]
}

func intArgs(args []int) string {
	if len(args) == 0 {
		return ""
	}
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = strconv.Itoa(a)
	}
	return "(" + strings.Join(s, ",") + ")"
}

// ddlName writes a name bare when schema.ParseDDL reads it back unchanged, else
// backquoted.
func ddlName(n string) string {
	if isPlainName(n) {
		return n
	}
	return "`" + strings.ReplaceAll(n, "`", "``") + "`"
}

func isPlainName(n string) bool {
	if n == "" {
		return false
	}
	for i, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ddlString quotes s for schema.ParseDDL, whose strings take backslash escapes.
func ddlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\t", `\t`)
	return "'" + r.Replace(s) + "'"
}

// quoteIdent double-quotes a name for DuckDB.
func quoteIdent(n string) string { return `"` + strings.ReplaceAll(n, `"`, `""`) + `"` }

// quoteString single-quotes a value for DuckDB, whose strings have no backslash escapes.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
