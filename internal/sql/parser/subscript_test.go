package parser

import (
	"strings"
	"testing"
)

// TestSubscriptTranslation: Spark's x[i] becomes DuckDB's 1-based subscript (NULL for a
// negative index) after array-returning calls, stays a key lookup after map calls and for
// string keys, becomes a {sub …} hole the engine decides from the column's type for
// columns, and is refused where the type cannot be known. The engine's results are in
// sql/subscript_test.go.
func TestSubscriptTranslation(t *testing.T) {
	arr := func(i string) string { return "[nullif(greatest((" + i + "), -1) + CAST(1 AS BIGINT), 0)]" }
	dyn := func(v, i string) string {
		return "[CASE WHEN typeof(" + v + ")[-1:] = ']' THEN nullif(greatest(TRY_CAST((" + i + ") AS BIGINT), -1) + CAST(1 AS BIGINT), 0) WHEN typeof(" + v +
			")[:4] = 'MAP(' THEN " + i + " ELSE error('a subscript [i] needs an array or a map, not ' || typeof(" + v + ")) END]"
	}
	tests := []struct{ spark, duck string }{
		{"SELECT split(s, '-')[0]", "SELECT regexp_split_to_array(s, '-')" + arr("0")},
		{"SELECT split(s, '-')[i + 1]", "SELECT regexp_split_to_array(s, '-')" + arr("i + 1")},
		{"SELECT array(1, 2)[-1]", "SELECT list_value(1, 2)" + arr("-1")},
		{"SELECT map_keys(m)[0]", "SELECT map_keys(m)" + arr("0")},
		{"SELECT map('a', 1)['a'], map(1, 'x')[1]", "SELECT MAP(['a'], [1])['a'], MAP([1], ['x'])[1]"},
		{"SELECT m['k'], s.f['g']", "SELECT m['k'], s.f['g']"},
		{"SELECT tags[0] FROM t", "SELECT tags{sub tags 0} FROM {t}"},
		{"SELECT x.tags[i] FROM t x", "SELECT x.tags{sub x.tags i} FROM {t} x"},
		{"SELECT `a b`.c[1]", `SELECT "a b".c{sub a b.c 1}`},
		{"SELECT s['arr'][0]", "SELECT s['arr']{sub s.arr 0}"},
		{"SELECT s.m['a'].arr[2]", "SELECT s.m['a'].arr{sub s.m.a.arr 2}"},
		{"SELECT [1, 2]", "SELECT [1, 2]"}, // DuckDB's list literal after a keyword stays
		{"SELECT x FROM t WHERE x IN [1]", "SELECT x FROM {t} WHERE x IN [1]"},
		// Values whose type the translation cannot know: decided by DuckDB's typeof.
		{"SELECT (x)[0]", "SELECT (x)" + dyn("(x)", "0")},
		{"SELECT list_reverse(x)[i]", "SELECT list_reverse(x)" + dyn("list_reverse(x)", "i")},
		{"SELECT a[0][1]", "SELECT a{sub a 0}" + dyn("a{sub a 0}", "1")},
		{"SELECT array(array(1), array(2))[1][0]", "SELECT list_value(list_value(1), list_value(2))" + arr("1") +
			dyn("list_value(list_value(1), list_value(2))"+arr("1"), "0")},
		{"SELECT m['k'][1]", "SELECT m['k']{sub m.k 1}"},
	}
	for _, tc := range tests {
		t.Run(tc.spark, func(t *testing.T) {
			stmts, err := Parse(tc.spark)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := render(stmts[0].(*Select).Query); got != tc.duck {
				t.Errorf("\n got %s\nwant %s", got, tc.duck)
			}
		})
	}
	refused := []struct{ spark, want string }{
		{"SELECT db.f(x)[0]", "the value in parentheses"}, // a qualified function
		{"SELECT a[(SELECT max(i) FROM t)]", "a query inside the subscript of column a"},
		{"SELECT a[]", "needs an index"},
	}
	for _, tc := range refused {
		t.Run(tc.spark, func(t *testing.T) {
			_, err := Parse(tc.spark)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
