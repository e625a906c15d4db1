package parser

import (
	"fmt"
	"strings"
	"testing"
)

// TestPushdownConds pins which WHERE conjuncts of a query become the table's Conds: only
// comparisons of one table's columns with literals, at the top level of a single-table
// query; everything else is left to DuckDB (a weaker pushed filter is always correct).
func TestPushdownConds(t *testing.T) {
	tests := []struct{ sql, want string }{
		{`SELECT * FROM t WHERE uuid = 'a'`, `[{uuid = [{a true}]}]`},
		{`SELECT count(*) FROM db.t AS x WHERE x.city = 'sf' AND fare > 10 AND 5 <= x.n GROUP BY rider`,
			`[{city = [{sf true}]} {fare > [{10 false}]} {n >= [{5 false}]}]`},
		{`SELECT * FROM t x WHERE id IN (1, 2, 3) ORDER BY id LIMIT 1`, `[{id IN [{1 false} {2 false} {3 false}]}]`},
		{`SELECT * FROM t WHERE t.k != "v" AND lower(c) = 'x'`, `[{k <> [{v true}]}]`},
		{`SELECT * FROM t TIMESTAMP AS OF '20240101000000000' WHERE a = 1`, `[{a = [{1 false}]}]`},
		// Not pushed: OR, BETWEEN, joins, subqueries, other qualifiers, mixed IN lists.
		{`SELECT * FROM t WHERE a = 1 OR b = 2`, `[]`},
		{`SELECT * FROM t WHERE a BETWEEN 1 AND 2`, `[]`},
		{`SELECT * FROM t JOIN u ON t.id = u.id WHERE t.a = 1`, `[]`},
		{`SELECT * FROM t WHERE id IN (SELECT id FROM u)`, `[]`},
		{`SELECT * FROM t WHERE u.a = 1`, `[]`},
		{`SELECT * FROM t WHERE a IN (1, 'x')`, `[]`},
		{`WITH c AS (SELECT 1) SELECT * FROM t WHERE a = 1`, `[]`},
		{`SELECT * FROM t WHERE a = 1 UNION ALL SELECT * FROM t WHERE a = 2`, `[]`},
		{`SELECT * FROM t WHERE NOT a = 1`, `[]`},
		{`SELECT * FROM t WHERE a = -1`, `[]`},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			sel := st[0].(*Select)
			var conds []Cond
			if len(sel.Query.Refs) > 0 {
				conds = sel.Query.Refs[0].Conds
			}
			got := "["
			for i, c := range conds {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("{%s %s %v}", c.Column, c.Op, c.Values)
			}
			got += "]"
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestParseEachStopsAtBadStatement: the statements before a bad one are handed over, the
// bad one (a syntax error, or an unterminated string) stops the script with its error,
// and nothing after it is read — as spark-sql runs a piped script.
func TestParseEachStopsAtBadStatement(t *testing.T) {
	for _, tc := range []struct {
		script string
		ran    int
		err    string
	}{
		{"SELECT 1; SELECT 2; SELEC 3; SELECT 4", 2, "line 1"},
		{"SELECT 1;\nSELECT 'x;\nSELECT 3", 1, "line 2"},
		{"SELECT 1; SELECT 2", 2, ""},
	} {
		ran := 0
		err := ParseEach(tc.script, func(Statement) error { ran++; return nil })
		if ran != tc.ran {
			t.Errorf("%q: %d statements ran, want %d", tc.script, ran, tc.ran)
		}
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.script, err, tc.err)
		}
	}
}
