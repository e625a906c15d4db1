package parser

import (
	"errors"
	"strings"
	"testing"
)

// TestSyntaxErrors checks broken scripts fail with a *SyntaxError at the right line and
// column, saying what was expected and what was found.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name, sql string
		pos       Pos
		msg       string
	}{
		{"unknown statement", "SELECT 1;\n  GRANT ALL ON t", Pos{2, 3}, `expected a statement (SELECT, INSERT, UPDATE, DELETE, MERGE, CREATE, ALTER, DROP, SHOW, DESCRIBE, CALL, SET or USE), found "GRANT"`},
		{"unterminated string", "SELECT 1;\nSELECT 'abc", Pos{2, 8}, "unterminated string literal"},
		{"unterminated backquote", "SELECT `a", Pos{1, 8}, "unterminated `quoted` identifier"},
		{"unclosed comment", "SELECT 1 /* a /* nested */", Pos{1, 10}, "unclosed /* comment"},
		{"unclosed paren", "SELECT (1,\n (2)", Pos{1, 8}, "'(' is never closed"},
		{"extra paren", "SELECT 1)", Pos{1, 9}, "')' without a matching opening bracket"},
		{"bad type", "CREATE TABLE t (\n  id INT,\n  name STRNG\n) USING hudi", Pos{3, 8}, `expected a type (STRING, INT, BIGINT, DOUBLE, DECIMAL(p,s), DATE, TIMESTAMP, ARRAY<…>, MAP<…>, STRUCT<…>, …), found "STRNG"`},
		{"unclosed struct", "CREATE TABLE t (s STRUCT<a: INT) USING hudi", Pos{1, 32}, "expected ',' or '>' in STRUCT<…>, found ')'"},
		{"bad clause", "CREATE TABLE t (id INT) USING hudi STORED AS parquet", Pos{1, 36}, `expected USING, PARTITIONED BY, TBLPROPERTIES, OPTIONS, LOCATION, COMMENT, AS or end of statement, found "STORED"`},
		{"duplicate clause", "CREATE TABLE t (id INT) LOCATION '/a' LOCATION '/b'", Pos{1, 39}, "duplicate LOCATION clause"},
		{"bad property value", "CREATE TABLE t (id INT) TBLPROPERTIES (type = cow)", Pos{1, 47}, `expected a property value (a quoted string, a number, true or false), found "cow"`},
		{"insert without source", "INSERT INTO t", Pos{1, 14}, "expected VALUES or a query, found end of statement"},
		{"insert missing into", "INSERT t VALUES (1)", Pos{1, 8}, `expected INTO or OVERWRITE, found "t"`},
		{"update without set", "UPDATE t WHERE x = 1", Pos{1, 10}, `expected SET, found "WHERE"`},
		{"update nested column", "UPDATE t SET s.f = 1", Pos{1, 14}, "cannot assign s.f: only top-level columns of the target table can be set"},
		{"delete trailing", "DELETE FROM t x y", Pos{1, 17}, `expected end of statement, found "y"`},
		{"merge without when", "MERGE INTO t USING s ON t.id = s.id", Pos{1, 36}, "expected WHEN MATCHED or WHEN NOT MATCHED, found end of statement"},
		{"merge by source", "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE", Pos{1, 54}, "only WHEN MATCHED and WHEN NOT MATCHED [BY TARGET] are supported"},
		{"merge insert count", "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)", Pos{1, 82}, "INSERT lists 2 columns but 1 values"},
		{"cast bad type", "SELECT CAST(x AS FOO)", Pos{1, 18}, `expected a type (STRING, INT, BIGINT, DOUBLE, DECIMAL(p,s), DATE, TIMESTAMP, ARRAY<…>, MAP<…>, STRUCT<…>, …), found "FOO"`},
		{"as of needs literal", "SELECT * FROM t TIMESTAMP AS OF now()", Pos{1, 33}, `expected a quoted instant or timestamp after AS OF, found "now"`},
		{"table changes arity", "SELECT * FROM hudi_table_changes('t')", Pos{1, 15}, "hudi_table_changes takes 3 or 4 arguments: table, 'latest_state', begin instant[, end instant]"},
		{"stray character", "SELECT a # b", Pos{1, 10}, "unexpected character '#'"},
		{"decimal too wide", "SELECT 123456789012345678901234567890123456789BD", Pos{1, 8}, "decimal literal 123456789012345678901234567890123456789BD does not fit DECIMAL(38)"},
		{"drop what", "DROP TABEL t", Pos{1, 6}, `expected TABLE, found "TABEL"`},
		{"call without parens", "CALL p", Pos{1, 7}, "expected '(' and the procedure's arguments, found end of statement"},
		{"error after comment spans lines", "/* a\n b */ SELECT 1;\n-- x\nUPDATE", Pos{4, 7}, "expected a table name, found end of statement"},
		{"error at semicolon", "DESCRIBE ;", Pos{1, 10}, "expected a table name, found end of statement"},
		{"columns count unicode", "SELECT 'é', `ü` FROM t WHERE ! #", Pos{1, 32}, "unexpected character '#'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.sql)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want a *SyntaxError", tc.sql, err)
			}
			if se.Pos != tc.pos || se.Msg != tc.msg {
				t.Errorf("Parse(%q)\n got %v: %s\nwant %v: %s", tc.sql, se.Pos, se.Msg, tc.pos, tc.msg)
			}
			if !strings.Contains(se.Error(), "line ") || !strings.Contains(se.Error(), "column ") {
				t.Errorf("error %q does not name line and column", se.Error())
			}
		})
	}
}
