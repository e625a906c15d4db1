package parser

import (
	"strings"
	"testing"
)

// translateOne translates a single SELECT, failing the test on a parse error.
func translateOne(t *testing.T, spark string) SQLText {
	t.Helper()
	stmts, err := Parse(spark)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spark, err)
	}
	s, ok := stmts[0].(*Select)
	if !ok || len(stmts) != 1 {
		t.Fatalf("Parse(%q) = %s, want one Select", spark, show(stmts))
	}
	return s.Query
}

// TestHigherOrderTranslation checks the lambda rewrites: parameters renamed (so columns
// and nested lambdas cannot capture them), Spark's 0-based index, and the forms that keep
// their SQL meaning (EXISTS (SELECT …), FILTER (WHERE …)). The engine's TestSparkFunctions
// runs Spark's documented examples.
func TestHigherOrderTranslation(t *testing.T) {
	tests := []struct{ name, spark, duck string }{
		{"transform", "SELECT transform(a, x -> x + 1) FROM t", "SELECT list_transform(a, lambda __l20: __l20 + 1) FROM {t}"},
		{"transform index is 0-based", "SELECT transform(a, (x, i) -> x * i)", "SELECT list_transform(a, lambda __l21, __l24: __l21 * (__l24 - 1))"},
		{"filter", "SELECT filter(a, `v` -> v > 0)", "SELECT list_filter(a, lambda __l17: __l17 > 0)"},
		{"parameter shadows column, not field", "SELECT transform(a, x -> x.x + t.x)", "SELECT list_transform(a, lambda __l20: __l20.x + t.x)"},
		{"nested lambdas", "SELECT transform(a, x -> filter(b, y -> y > x))",
			"SELECT list_transform(a, lambda __l20: list_filter(b, lambda __l35: __l35 > __l20))"},
		{"array_max and array_min", "SELECT array_max(a), array_min(a)", "SELECT list_max(a), list_min(a)"},
		{"exists subquery stays", "SELECT * FROM t WHERE exists (SELECT 1 FROM u)", "SELECT * FROM {t} WHERE exists (SELECT 1 FROM {u})"},
		{"aggregate FILTER clause stays", "SELECT count(*) FILTER (WHERE x > 1) FROM t", "SELECT count(*) FILTER (WHERE x > 1) FROM {t}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(translateOne(t, tc.spark)); got != tc.duck {
				t.Errorf("translate(%q)\n got %s\nwant %s", tc.spark, got, tc.duck)
			}
		})
	}
}

// TestHigherOrderErrors: malformed lambdas and Spark forms hudi-go cannot translate
// fail naming the function, never with DuckDB's meaning.
func TestHigherOrderErrors(t *testing.T) {
	for _, tc := range []struct{ spark, want string }{
		{"SELECT transform(a, 1)", "transform: expected a lambda function"},
		{"SELECT transform(a, (x, i, j) -> x)", "transform: the lambda function takes 1 or 2 parameter(s), got 3"},
		{"SELECT exists(a, (x, i) -> x)", "exists: the lambda function takes 1 parameter(s), got 2"},
		{"SELECT aggregate(a, 0, x -> x)", "aggregate: the lambda function takes 2 parameter(s), got 1"},
		{"SELECT zip_with(a, b)", "zip_with takes 3 arguments, got 2"},
		{"SELECT transform(a, x ->)", "the body of the lambda function"},
		{"SELECT array_sort(a, (l, r) -> l - r)", "array_sort with a comparator function is not supported by hudi-go"},
	} {
		_, err := Parse(tc.spark)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.spark, err, tc.want)
		}
	}
}

// TestIntegralCastTranslation: a CAST to an integral type dispatches on the value's type
// (folded by DuckDB at bind time), and a value holding a query is bound to a lambda
// parameter so the query is planned once, not once per branch.
func TestIntegralCastTranslation(t *testing.T) {
	q := translateOne(t, "SELECT CAST(x AS INT), try_cast(y AS BYTE)")
	got := render(q)
	for _, want := range []string{
		"WHEN typeof(x) IN ('FLOAT', 'DOUBLE') THEN CASE isnan(TRY_CAST(x AS DOUBLE))", // truncated and saturated
		"trunc(TRY_CAST(x AS DOUBLE))",
		"% CAST(4294967296 AS HUGEINT)", // INT keeps the low 32 bits of wider integers and decimals
		"WHEN typeof(y) IN ('FLOAT', 'DOUBLE') THEN TRY_CAST(trunc(TRY_CAST(y AS DOUBLE)) AS TINYINT)", // try_cast: NULL on overflow
	} {
		if !strings.Contains(got, want) {
			t.Errorf("translation lacks %q:\n%s", want, got)
		}
	}
	sub := translateOne(t, "SELECT CAST((SELECT max(x) FROM t) AS LONG), reverse((SELECT s FROM u))")
	if len(sub.Refs) != 2 {
		t.Errorf("got %d table references, want 2 (each query once): %s", len(sub.Refs), render(sub))
	}
	if got := render(sub); !strings.HasPrefix(got, "SELECT list_transform([(SELECT max(x) FROM {t})], lambda __l7: (CASE WHEN typeof(__l7)") {
		t.Errorf("query not bound once: %s", got)
	}
}
