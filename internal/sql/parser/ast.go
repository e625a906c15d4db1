// Package parser reads the Spark-SQL dialect Hudi users write (CREATE TABLE … USING HUDI,
// INSERT, UPDATE, DELETE, MERGE INTO, TIMESTAMP AS OF, CALL, ALTER TABLE, …) into
// statements the sql engine executes. Statements that only need evaluation — queries,
// expressions, VALUES lists — are not modelled node by node: they are translated token by
// token into DuckDB SQL (Spark types, literals and functions rewritten), with every table
// the text reads left as a TableRef the engine binds to a Hudi snapshot. That keeps the
// whole of DuckDB's SELECT available without a second SQL grammar here.
//
// The package is pure Go: it never imports DuckDB, so it can be fuzzed and tested alone.
package parser

import (
	"strconv"
	"strings"
)

// Pos is a 1-based line and column in the script.
type Pos struct{ Line, Col int }

// SyntaxError is a parse failure at a position of the script.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string {
	return "syntax error at line " + strconv.Itoa(e.Pos.Line) + ", column " + strconv.Itoa(e.Pos.Col) + ": " + e.Msg
}

// Statement is one parsed statement.
type Statement interface {
	// Position is where the statement starts.
	Position() Pos
}

// TableName names a table: by catalog name (Parts: [table] or [database, table]) or by
// location (Path: hudi.`/data/t` as Spark allows, or a quoted path).
type TableName struct {
	Parts []string // unquoted identifiers; case preserved (the engine compares case-insensitively)
	Path  string
	Pos   Pos
}

// String renders the name for messages.
func (n TableName) String() string {
	if n.Path != "" {
		return n.Path
	}
	return strings.Join(n.Parts, ".")
}

// TableRef is a table read inside a query or expression.
type TableRef struct {
	Name TableName
	// AsOf is the literal of TIMESTAMP AS OF / VERSION AS OF ('' = latest), as written
	// (17/14-digit instant, 'yyyy-MM-dd HH:mm:ss[.SSS]', 'yyyy-MM-dd').
	AsOf string
	// Changes is set for hudi_table_changes('t', 'latest_state', begin[, end]).
	Changes *ChangesRef
	// Aliased reports that an alias follows the reference in the text.
	Aliased bool
	// Conds are conditions every row the statement reads from the table meets (conjuncts
	// of the query's WHERE comparing a column of the table with literals). The engine may
	// prune partitions, files and record keys with them; the query still applies its own
	// WHERE.
	Conds []Cond
	// Subscript, when set, makes this no table but a column subscript whose translation
	// the engine picks from the column's type (subscript.go); Name is empty.
	Subscript *Subscript
}

// Cond is `Column Op Values[0]`, or `Column IN (Values…)` when Op is "IN".
type Cond struct {
	Column string // unqualified, as written
	Op     string // = <> < <= > >= IN
	Values []Literal
}

// Literal is a literal of a Cond: a string, or a number as written.
type Literal struct {
	Text   string
	String bool
}

// ChangesRef is an incremental read: rows written in (Begin, End].
type ChangesRef struct {
	Format     string // latest_state or cdc
	Begin, End string // instants as written; Begin may be 'earliest'
}

// SQLText is DuckDB SQL translated from Spark SQL, with table references cut out:
// the text is Segments[0] Refs[0] Segments[1] … Refs[n-1] Segments[n].
type SQLText struct {
	Segments []string
	Refs     []TableRef
	Pos      Pos
}

// Render joins the text, replacing each reference by what bind returns for it (for
// example the name of a temp table holding the snapshot).
func (t SQLText) Render(bind func(i int, ref TableRef) (string, error)) (string, error) {
	var b strings.Builder
	for i, s := range t.Segments {
		b.WriteString(s)
		if i < len(t.Refs) {
			r, err := bind(i, t.Refs[i])
			if err != nil {
				return "", err
			}
			b.WriteString(r)
		}
	}
	return b.String(), nil
}

// Property is a key/value of TBLPROPERTIES or OPTIONS, unquoted, in written order.
type Property struct{ Key, Value string }

// ColumnDef is a column of CREATE TABLE or ALTER TABLE ADD COLUMNS.
type ColumnDef struct {
	Name    string
	Type    string // Spark DDL type as schema.ParseDDL reads it, e.g. "DECIMAL(10,5)", "ARRAY<STRUCT<a: STRING>>"
	NotNull bool
	Comment string
}

// CreateTable is CREATE TABLE [IF NOT EXISTS] … [USING fmt] [clauses in any order] [AS query].
type CreateTable struct {
	Pos           Pos
	IfNotExists   bool
	Table         TableName
	Columns       []ColumnDef
	Using         string // lower case; "" when absent
	PartitionedBy []string
	Properties    []Property // TBLPROPERTIES
	Options       []Property // OPTIONS
	Location      string
	Comment       string
	AsSelect      *SQLText // CTAS
}

// Insert is INSERT INTO|OVERWRITE [TABLE] t [PARTITION (…)] [(cols)] query|VALUES.
type Insert struct {
	Pos       Pos
	Table     TableName
	Overwrite bool
	Partition []PartitionValue
	Columns   []string
	Source    SQLText // a query; VALUES lists are translated to a DuckDB VALUES query
}

// PartitionValue is one entry of PARTITION (…); Value is nil for a dynamic partition column.
type PartitionValue struct {
	Column string
	Value  *SQLText
}

// Assignment is SET col = expr; Column is unqualified (target.fare → fare).
type Assignment struct {
	Column string
	Value  SQLText
}

// Update is UPDATE t [[AS] alias] SET … [WHERE …].
type Update struct {
	Pos   Pos
	Table TableName
	Alias string
	Set   []Assignment
	Where *SQLText
}

// Delete is DELETE FROM t [[AS] alias] [WHERE …].
type Delete struct {
	Pos   Pos
	Table TableName
	Alias string
	Where *SQLText
}

// MergeAction is what a WHEN clause does.
type MergeAction int

// Merge actions.
const (
	MergeUpdate MergeAction = iota
	MergeDelete
	MergeInsert
)

// MergeClause is WHEN [NOT] MATCHED [AND cond] THEN action.
type MergeClause struct {
	Matched   bool
	Condition *SQLText
	Action    MergeAction
	Star      bool         // UPDATE SET * / INSERT *
	Set       []Assignment // UPDATE SET …
	Columns   []string     // INSERT (cols)
	Values    []SQLText    // INSERT … VALUES (exprs)
}

// Merge is MERGE INTO target [AS] t USING source [AS] s ON cond WHEN …
type Merge struct {
	Pos         Pos
	Target      TableName
	TargetAlias string
	// Source is a FROM item: a table reference or a parenthesized query.
	Source      SQLText
	SourceAlias string
	On          SQLText
	Clauses     []MergeClause
}

// Select is a query whose rows are the result (SELECT, WITH, VALUES, FROM-first, …).
type Select struct {
	Pos   Pos
	Query SQLText
}

// AlterAddColumns is ALTER TABLE t ADD COLUMNS (…).
type AlterAddColumns struct {
	Pos     Pos
	Table   TableName
	Columns []ColumnDef
}

// AlterTable is any other ALTER TABLE form, kept as text so the engine can name it in
// a clear "not supported" error.
type AlterTable struct {
	Pos   Pos
	Table TableName
	Text  string
}

// ShowTables is SHOW TABLES [IN|FROM db] [[LIKE] 'pattern'].
type ShowTables struct {
	Pos Pos
	// Database is the IN|FROM database ("" = the current one); added with the parser.
	Database string
	// Like is Spark's pattern ('*' any characters, '|' alternatives; "" = all); added
	// with the parser.
	Like string
}

// Describe is DESCRIBE|DESC [TABLE] t.
type Describe struct {
	Pos   Pos
	Table TableName
}

// CallArg is one argument of CALL: named (name => value) or positional (Name == "").
type CallArg struct {
	Name  string
	Value string // the literal's value (strings unquoted)
}

// Call is CALL procedure(args).
type Call struct {
	Pos       Pos
	Procedure string // lower case
	Args      []CallArg
}

// Set is SET key = value (spark.sql.session.timeZone, hoodie.* session settings);
// Value is unquoted.
type Set struct {
	Pos        Pos
	Key, Value string
}

// Use is USE database.
type Use struct {
	Pos      Pos
	Database string
}

// DropTable is DROP TABLE [IF EXISTS] t [PURGE].
type DropTable struct {
	Pos      Pos
	IfExists bool
	Table    TableName
	Purge    bool
}

// Unsupported is a statement Spark accepts that hudi-go recognises but does not run
// (CREATE INDEX, …); the engine reports it by Kind.
type Unsupported struct {
	Pos  Pos
	Kind string // e.g. "CREATE INDEX"
	Text string
}

func (s *CreateTable) Position() Pos     { return s.Pos }
func (s *Insert) Position() Pos          { return s.Pos }
func (s *Update) Position() Pos          { return s.Pos }
func (s *Delete) Position() Pos          { return s.Pos }
func (s *Merge) Position() Pos           { return s.Pos }
func (s *Select) Position() Pos          { return s.Pos }
func (s *AlterAddColumns) Position() Pos { return s.Pos }
func (s *AlterTable) Position() Pos      { return s.Pos }
func (s *ShowTables) Position() Pos      { return s.Pos }
func (s *Describe) Position() Pos        { return s.Pos }
func (s *Call) Position() Pos            { return s.Pos }
func (s *Set) Position() Pos             { return s.Pos }
func (s *Use) Position() Pos             { return s.Pos }
func (s *DropTable) Position() Pos       { return s.Pos }
func (s *Unsupported) Position() Pos     { return s.Pos }
