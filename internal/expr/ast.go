// Package expr implements the --filter expression language of `hudi read`: a small SQL WHERE
// subset, its evaluation over Arrow record batches, and file/partition pruning from statistics.
//
// Syntax (keywords are case-insensitive):
//
//	expr      := or
//	or        := and { OR and }
//	and       := not { AND not }
//	not       := NOT not | predicate
//	predicate := '(' expr ')'
//	           | column cmp literal | literal cmp column
//	           | column [NOT] IN '(' literal { ',' literal } ')'
//	           | column [NOT] BETWEEN literal AND literal
//	           | column [NOT] LIKE 'pattern'          (% any run, _ one character, \ escapes)
//	           | column IS [NOT] NULL
//	           | column                               (a boolean column: column = true)
//	cmp       := '=' | '==' | '!=' | '<>' | '<' | '<=' | '>' | '>='
//	column    := name { '.' name }    name: [A-Za-z_][A-Za-z0-9_$]* or `back quoted` (`` for `)
//	literal   := 'string' ('' for ') | [+-]number | TRUE | FALSE | NULL
//
// Semantics are SQL's: comparisons with NULL are unknown and unknown rows are not selected.
// Literals are untyped until evaluation, where they are converted to the column's type (see
// Evaluate). Float comparisons follow IEEE 754: NaN compares false to everything but !=.
package expr

import (
	"slices"
	"strings"
)

// Expr is a parsed filter expression. The concrete types are the exported node types below.
type Expr interface {
	// String renders the expression in the filter syntax; parsing it gives an equal tree.
	String() string
	// Columns lists the referenced columns, each once, in order of first appearance.
	Columns() []string
	appendColumns(dst []string) []string
}

// Op is a comparison operator.
type Op int

// Comparison operators.
const (
	OpEq Op = iota
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
)

func (o Op) String() string {
	switch o {
	case OpEq:
		return "="
	case OpNe:
		return "!="
	case OpLt:
		return "<"
	case OpLe:
		return "<="
	case OpGt:
		return ">"
	case OpGe:
		return ">="
	}
	return "?"
}

// flip gives the operator for swapped operands: 20 < x is x > 20.
func (o Op) flip() Op {
	switch o {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return o
}

// negate gives the operator of NOT (a op b). Exact under SQL three-valued logic for totally
// ordered types (NULL stays NULL); for floats NaN breaks it, which the pruner accounts for.
func (o Op) negate() Op {
	switch o {
	case OpEq:
		return OpNe
	case OpNe:
		return OpEq
	case OpLt:
		return OpGe
	case OpLe:
		return OpGt
	case OpGt:
		return OpLe
	}
	return OpLt
}

// LitKind is the syntactic kind of a literal.
type LitKind int

// Literal kinds.
const (
	LitNull LitKind = iota
	LitBool
	LitNumber
	LitString
)

// Literal is a constant as written. Numbers keep their text so integers and decimals convert
// exactly to the column type.
type Literal struct {
	Kind LitKind
	// Text is the string value (LitString) or the number as written, e.g. "-1.5e3" (LitNumber).
	Text string
	Bool bool // LitBool
}

func (l Literal) String() string {
	switch l.Kind {
	case LitNull:
		return "NULL"
	case LitBool:
		if l.Bool {
			return "TRUE"
		}
		return "FALSE"
	case LitNumber:
		return l.Text
	}
	return "'" + strings.ReplaceAll(l.Text, "'", "''") + "'"
}

// Compare is `Column Op Value`.
type Compare struct {
	Column string
	Op     Op
	Value  Literal
}

// In is `Column [NOT] IN (Values...)`.
type In struct {
	Column string
	Values []Literal
	Not    bool
}

// Between is `Column [NOT] BETWEEN Low AND High` (inclusive).
type Between struct {
	Column    string
	Low, High Literal
	Not       bool
}

// Like is `Column [NOT] LIKE Pattern`.
type Like struct {
	Column  string
	Pattern string
	Not     bool
}

// IsNull is `Column IS [NOT] NULL`.
type IsNull struct {
	Column string
	Not    bool
}

// And is `Left AND Right`.
type And struct{ Left, Right Expr }

// Or is `Left OR Right`.
type Or struct{ Left, Right Expr }

// Not is `NOT Expr`.
type Not struct{ Expr Expr }

func columns(e Expr) []string {
	var out []string
	for _, c := range e.appendColumns(nil) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func (e *Compare) Columns() []string { return columns(e) }
func (e *In) Columns() []string      { return columns(e) }
func (e *Between) Columns() []string { return columns(e) }
func (e *Like) Columns() []string    { return columns(e) }
func (e *IsNull) Columns() []string  { return columns(e) }
func (e *And) Columns() []string     { return columns(e) }
func (e *Or) Columns() []string      { return columns(e) }
func (e *Not) Columns() []string     { return columns(e) }

func (e *Compare) appendColumns(d []string) []string { return append(d, e.Column) }
func (e *In) appendColumns(d []string) []string      { return append(d, e.Column) }
func (e *Between) appendColumns(d []string) []string { return append(d, e.Column) }
func (e *Like) appendColumns(d []string) []string    { return append(d, e.Column) }
func (e *IsNull) appendColumns(d []string) []string  { return append(d, e.Column) }
func (e *And) appendColumns(d []string) []string {
	return e.Right.appendColumns(e.Left.appendColumns(d))
}
func (e *Or) appendColumns(d []string) []string {
	return e.Right.appendColumns(e.Left.appendColumns(d))
}
func (e *Not) appendColumns(d []string) []string { return e.Expr.appendColumns(d) }

// quoteColumn renders a column reference; segments that are not plain identifiers or that are
// keywords get back quotes so the text parses back to the same column.
func quoteColumn(c string) string {
	parts := strings.Split(c, ".")
	plain := true
	for _, p := range parts {
		if !isPlainIdent(p) {
			plain = false
			break
		}
	}
	if plain {
		return c
	}
	return "`" + strings.ReplaceAll(c, "`", "``") + "`"
}

func isPlainIdent(s string) bool {
	if s == "" || isKeyword(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '$')) {
			return false
		}
	}
	return true
}

func notText(not bool) string {
	if not {
		return "NOT "
	}
	return ""
}

func (e *Compare) String() string {
	return quoteColumn(e.Column) + " " + e.Op.String() + " " + e.Value.String()
}

func (e *In) String() string {
	var b strings.Builder
	b.WriteString(quoteColumn(e.Column))
	b.WriteString(" " + notText(e.Not) + "IN (")
	for i, v := range e.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.String())
	}
	b.WriteString(")")
	return b.String()
}

func (e *Between) String() string {
	return quoteColumn(e.Column) + " " + notText(e.Not) + "BETWEEN " + e.Low.String() + " AND " + e.High.String()
}

func (e *Like) String() string {
	return quoteColumn(e.Column) + " " + notText(e.Not) + "LIKE " + Literal{Kind: LitString, Text: e.Pattern}.String()
}

func (e *IsNull) String() string {
	return quoteColumn(e.Column) + " IS " + notText(e.Not) + "NULL"
}

func (e *And) String() string { return "(" + e.Left.String() + " AND " + e.Right.String() + ")" }
func (e *Or) String() string  { return "(" + e.Left.String() + " OR " + e.Right.String() + ")" }
func (e *Not) String() string { return "NOT (" + e.Expr.String() + ")" }
