package parser

import (
	"errors"
	"testing"
)

// FuzzParse checks Parse never panics, fails only with *SyntaxError, and always returns
// well-formed SQLText (one more segment than references).
func FuzzParse(f *testing.F) {
	seeds := []string{
		"SELECT * FROM t WHERE a == 1", "INSERT INTO t VALUES (1, 'a'), (2, \"b\")",
		"MERGE INTO t USING (SELECT * FROM s) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
		"CREATE TABLE t (s STRUCT<a: INT, b ARRAY<MAP<STRING, DECIMAL(10,2)>>>) USING hudi TBLPROPERTIES (k = 'v')",
		"WITH c AS (SELECT 1) SELECT * FROM c, hudi_table_changes('t', 'latest_state', '0') x",
		"SET a.b=c; USE db; CALL p(a => 1); DROP TABLE IF EXISTS t",
		"SELECT CAST(x AS ARRAY<STRUCT<a: STRING>>), 1.5BD, 2L, STRUCT(a AS b), MAP('k', 1), TIMESTAMP '2024-01-01'",
		"UPDATE t SET a = CASE WHEN x THEN 1 END WHERE b IN (SELECT b FROM u)", "/* /* */ */ -- x\n`a``b`",
		"ALTER TABLE t ADD COLUMNS (a.b INT NOT NULL COMMENT 'c' AFTER x, m.value.c STRING FIRST); ALTER TABLE t ALTER COLUMN a.b TYPE BIGINT COMMENT 'x' FIRST DROP NOT NULL",
		"ALTER TABLE t DROP COLUMNS IF EXISTS (a.b, c); ALTER TABLE t RENAME COLUMN a.b TO c; ALTER TABLE t CHANGE c AFTER d",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		stmts, err := Parse(script)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %v is not a *SyntaxError", script, err)
			}
			if se.Pos.Line < 1 || se.Pos.Col < 1 {
				t.Fatalf("Parse(%q) error at %v", script, se.Pos)
			}
			return
		}
		for _, st := range stmts {
			for _, txt := range texts(st) {
				if len(txt.Segments) != len(txt.Refs)+1 {
					t.Fatalf("Parse(%q): %d segments for %d refs", script, len(txt.Segments), len(txt.Refs))
				}
			}
		}
	})
}

// texts lists every SQLText a statement holds.
func texts(st Statement) []SQLText {
	var out []SQLText
	add := func(p *SQLText) {
		if p != nil {
			out = append(out, *p)
		}
	}
	switch s := st.(type) {
	case *CreateTable:
		add(s.AsSelect)
	case *Insert:
		out = append(out, s.Source)
		for _, pv := range s.Partition {
			add(pv.Value)
		}
	case *Update:
		add(s.Where)
		for _, a := range s.Set {
			out = append(out, a.Value)
		}
	case *Delete:
		add(s.Where)
	case *Merge:
		out = append(out, s.Source, s.On)
		for _, c := range s.Clauses {
			add(c.Condition)
			out = append(out, c.Values...)
			for _, a := range c.Set {
				out = append(out, a.Value)
			}
		}
	case *Select:
		out = append(out, s.Query)
	}
	return out
}
