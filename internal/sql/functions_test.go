package sql

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestSparkFunctions runs the examples of Spark's SQL function reference
// (spark.apache.org/docs/latest/api/sql/index.html, Spark 3.x; its session zone is
// America/Los_Angeles) through the engine and expects Spark's documented results, as
// canonical JSON of the single column "v". Where the reference has no example, the case
// says where the expectation comes from.
func TestSparkFunctions(t *testing.T) {
	e, err := Open(context.Background(), Options{Warehouse: t.TempDir(), TimeZone: "America/Los_Angeles"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tests := []struct{ expr, want string }{
		// Date and time, in the session zone.
		{"from_unixtime(0, 'yyyy-MM-dd HH:mm:ss')", `"1969-12-31 16:00:00"`},
		{"from_unixtime(0)", `"1969-12-31 16:00:00"`},
		{"unix_timestamp('2016-04-08', 'yyyy-MM-dd')", `1460098800`},
		{"to_unix_timestamp('2016-04-08', 'yyyy-MM-dd')", `1460098800`},
		{"to_date('2009-07-30 04:17:52')", `"2009-07-30"`},
		{"to_date('2016-12-31', 'yyyy-MM-dd')", `"2016-12-31"`},
		{"to_date('not a date')", `null`},                                        // Spark (non-ANSI): NULL
		{"to_timestamp('2016-12-31 00:12:00')", `"2016-12-31T08:12:00.000000Z"`}, // 00:12 in Los Angeles
		{"to_timestamp('2016-12-31', 'yyyy-MM-dd')", `"2016-12-31T08:00:00.000000Z"`},
		{"date_format('2016-04-08', 'y')", `"2016"`},
		{"date_format(TIMESTAMP '2016-04-08 13:05:09', 'dd/MM/yyyy HH:mm:ss')", `"08/04/2016 13:05:09"`},
		{"date_format(DATE '2016-04-08', 'MMM d, yyyy')", `"Apr 8, 2016"`},
		{"datediff('2009-07-31', '2009-07-30')", `1`},
		{"datediff('2009-07-30', '2009-07-31')", `-1`},
		{"trunc('2019-08-04', 'week')", `"2019-07-29"`},
		{"trunc('2019-08-04', 'quarter')", `"2019-07-01"`},
		{"trunc('2009-02-12', 'MM')", `"2009-02-01"`},
		{"trunc('2015-10-27', 'YEAR')", `"2015-01-01"`},
		{"trunc('2015-10-27', 'DD')", `null`}, // trunc's formats are year/quarter/month/week; others give NULL
		{"date_add('2016-07-30', 1)", `"2016-07-31"`},
		{"date_sub('2016-07-30', 1)", `"2016-07-29"`},
		{"dayofweek('2009-07-30')", `5`},
		// Strings, hashes, regular expressions.
		{"sha2('Spark', 256)", `"529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b"`},
		{"md5('Spark')", `"8cde774d6f7333752ed72cacddb05126"`},
		{"'%SystemDrive%/Users/John' rlike '%SystemDrive%/Users.*'", `true`},
		{"'abc' rlike 'b'", `true`}, // RLIKE finds the pattern anywhere (Java's Matcher.find)
		{"'abc' NOT RLIKE '^b'", `true`},
		{"regexp_replace('100-200', '(\\\\d+)', 'num')", `"num-num"`},
		{"regexp_replace('abc', '(b)', '[$1]')", `"a[b]c"`}, // Java's $n group reference
		{"regexp_extract('100-200', '(\\\\d+)-(\\\\d+)', 1)", `"100"`},
		{"regexp_extract('100-200', '(\\\\d+)-(\\\\d+)')", `"100"`}, // group 1 by default
		{"split('oneAtwoBthreeC', '[ABC]')", `["one","two","three",""]`},
		{"split('a-b-c', '-')[0]", `"a"`},
		{"split('a-b-c', '-')[2]", `"c"`},
		{"split('a-b-c', '-')[5]", `null`},
		{"concat_ws(' ', 'Spark', 'SQL')", `"Spark SQL"`},
		{"nvl(NULL, array('2'))", `["2"]`},
		{"coalesce(NULL, 1, NULL)", `1`},
		// Collections.
		{"element_at(array(1, 2, 3), 2)", `2`},
		{"element_at(map(1, 'a', 2, 'b'), 2)", `"b"`},
		{"element_at(map('a', 1), 'z')", `null`},
		// sort_array: Spark's reference example; NULLs first ascending, last descending.
		{"sort_array(array('b', 'd', null, 'c', 'a'), true)", `[null,"a","b","c","d"]`},
		{"sort_array(array('b', 'd', null, 'c', 'a'))", `[null,"a","b","c","d"]`},
		{"sort_array(array('b', 'd', null, 'c', 'a'), false)", `["d","c","b","a",null]`},
		{"sort_array(array(3, 1, 2))[0]", `1`}, // an array: 0-based subscript
		{"sort_array(CAST(NULL AS ARRAY<INT>))", `null`},
		// array_sort, for contrast: ascending with NULLs last (Spark's reference example).
		{"array_sort(array('b', 'd', null, 'c', 'a'))", `["a","b","c","d",null]`},
		// sequence: the reference's examples; inclusive, step sign from the bounds.
		{"sequence(1, 5)", `[1,2,3,4,5]`},
		{"sequence(5, 1)", `[5,4,3,2,1]`},
		{"sequence(1, 10, 3)", `[1,4,7,10]`},
		{"sequence(10, 1, -4)", `[10,6,2]`},
		{"sequence(3, 3)", `[3]`},
		{"sequence(3, 3, 0)", `[3]`}, // Spark allows a zero step when start = stop
		{"sequence(1, NULL)", `null`},
		{"sequence(1, CAST(NULL AS INT))", `null`},
		{"sequence(1, 5)[4]", `5`},
		{"sequence(CAST(2 AS TINYINT), CAST(4 AS BIGINT))", `[2,3,4]`},
		// array_distinct: first occurrences in order, one NULL kept (reference example:
		// array_distinct(array(1, 2, 3, null, 3)) = [1,2,3,null]).
		{"array_distinct(array(1, 2, 3, null, 3))", `[1,2,3,null]`},
		{"array_distinct(array(5, 5, 6, 1, 6))", `[5,6,1]`},
		{"array_distinct(array(5, 5, 6))[1]", `6`},
		{"array_distinct(array_distinct(array('b', 'a', 'b')))", `["b","a"]`},
		{"array_distinct(array())", `[]`},
		// Higher-order functions: the reference's examples, then NULL cases.
		{"transform(array(1, 2, 3), x -> x + 1)", `[2,3,4]`},
		{"transform(array(1, 2, 3), (x, i) -> x + i)", `[1,3,5]`}, // the index is 0-based
		{"transform(CAST(NULL AS ARRAY<INT>), x -> x)", `null`},
		{"transform(array(array(1, 2), array(3)), x -> x[0])", `[1,3]`}, // a lambda parameter's subscript
		{"transform(array(1, 2), x -> transform(array(10), y -> x + y))", `[[11],[12]]`},
		{"filter(array(1, 2, 3), x -> x % 2 == 1)", `[1,3]`},
		{"filter(array(0, 2, 3), (x, i) -> x > i)", `[2,3]`},
		{"filter(array(0, null, 2, 3, null), x -> x IS NOT NULL)", `[0,2,3]`},
		{"exists(array(1, 2, 3), x -> x % 2 == 0)", `true`},
		{"exists(array(1, 2, 3), x -> x % 2 == 10)", `false`},
		{"exists(array(1, null, 3), x -> x % 2 == 0)", `null`}, // three-valued
		{"exists(array(0, null, 2, 3, null), x -> x IS NULL)", `true`},
		{"exists(array(1, 2, 3), x -> x IS NULL)", `false`},
		{"exists(array(), x -> true)", `false`},
		{"exists(CAST(NULL AS ARRAY<INT>), x -> true)", `null`},
		{"forall(array(1, 2, 3), x -> x % 2 == 0)", `false`},
		{"forall(array(2, 4, 8), x -> x % 2 == 0)", `true`},
		{"forall(array(1, null, 3), x -> x % 2 == 0)", `false`},
		{"forall(array(2, null, 8), x -> x % 2 == 0)", `null`},
		{"forall(array(), x -> false)", `true`},
		{"aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x)", `6`},
		{"aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)", `60`},
		{"reduce(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)", `60`}, // Spark 3.4's alias
		{"aggregate(array('a', 'b'), '', (acc, x) -> concat(acc, x))", `"ab"`},    // an accumulator of another type
		{"aggregate(array(), 5, (acc, x) -> acc + x)", `5`},
		{"aggregate(CAST(NULL AS ARRAY<INT>), 5, (acc, x) -> acc + x, acc -> coalesce(acc, 0))", `null`},
		{"array_max(array(1, 20, null, 3))", `20`},
		{"array_min(array(1, 20, null, 3))", `1`},
		{"array_max(array())", `null`},
		{"reverse('Spark SQL')", `"LQS krapS"`},
		{"reverse(array(2, 1, 4, 3))", `[3,4,1,2]`},
		{"reverse(array(2, 1, 4, 3))[0]", `3`},
		{"reverse(CAST(NULL AS STRING))", `null`},
		{"reverse((SELECT array(1, 2)))", `[2,1]`},
		{"zip_with(array(1, 2), array(3, 4), (x, y) -> x + y)", `[4,6]`},
		{"zip_with(array('a', 'b', 'c'), array('d', 'e', 'f'), (x, y) -> concat(x, y))", `["ad","be","cf"]`},
		{"zip_with(array(1), array(3, 4), (x, y) -> x + y)", `[4,null]`}, // the shorter is padded with NULLs
		{"zip_with(array(1), CAST(NULL AS ARRAY<INT>), (x, y) -> x)", `null`},
		// CAST to integral types, without ANSI mode (Spark's default). Spark's CastSuite
		// ("cast from float/double/decimal": 1.5 to each integral type is 1) and the ANSI
		// compliance page (CAST(2147483648L AS INT) = -2147483648). UNVERIFIED against
		// Spark 3.x source here: saturation of doubles and NaN as 0 (Java's (int)/(long),
		// which Spark's Double.toInt is), the low bits for TINYINT/SMALLINT and decimals,
		// and the string forms.
		{"CAST(1.5 AS TINYINT)", `1`},
		{"CAST(1.5 AS SMALLINT)", `1`},
		{"CAST(1.5 AS INT)", `1`},
		{"CAST(1.5 AS BIGINT)", `1`},
		{"CAST(1.5D AS INT)", `1`},
		{"CAST(CAST(1.5 AS FLOAT) AS LONG)", `1`},
		{"CAST(-2.7 AS INT)", `-2`}, // toward zero (DuckDB rounds to -3)
		{"CAST(-2.7D AS BIGINT)", `-2`},
		{"CAST(2147483648L AS INT)", `-2147483648`},
		{"CAST(1e20 AS INT)", `2147483647`},
		{"CAST(-1e20 AS BIGINT)", `-9223372036854775808`},
		{"CAST(CAST('NaN' AS DOUBLE) AS INT)", `0`},
		{"CAST(300.7D AS TINYINT)", `44`},
		{"CAST(123456789012345678901234567890.5 AS BIGINT)", `-4362896299872285998`},
		{"CAST(' 12.9 ' AS INT)", `12`},
		{"CAST('abc' AS INT)", `null`},
		{"CAST(CAST(NULL AS DOUBLE) AS INT)", `null`},
		{"CAST(7 AS BIGINT) + CAST(true AS INT)", `8`},
		{"try_cast(-2.7D AS INT)", `-2`},
		{"try_cast(1e20 AS INT)", `null`},
		{"try_cast(2147483648L AS INT)", `null`},
		{"CAST((SELECT 2.5D) AS INT)", `2`},
		// Timestamps are seconds, floored (CastSuite: 15.003 s is 15, -1.2 s is -2); a date is
		// NULL (the ANSI compliance page's CAST(DATE'2020-01-01' AS INT)).
		{"CAST(TIMESTAMP '1969-12-31 16:00:15.003' AS BIGINT)", `15`},
		{"CAST(TIMESTAMP '1969-12-31 15:59:58.8' AS INT)", `-2`},
		{"try_cast(TIMESTAMP '1969-12-31 16:00:15.003' AS SHORT)", `15`},
		{"CAST(DATE '2020-01-01' AS INT)", `null`},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			got := query(t, e, "SELECT "+tc.expr+" AS v")
			if want := `{"v":` + tc.want + `}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	aggs := []struct{ q, want string }{
		{"SELECT collect_list(col) AS v FROM VALUES (1), (2), (1) AS tab(col)", `{"v":[1,2,1]}`},
		{"SELECT array_sort(collect_set(col)) AS v FROM VALUES (1), (2), (1) AS tab(col)", `{"v":[1,2]}`},
		{"SELECT collect_list(col) AS v FROM VALUES (1), (NULL) AS tab(col)", `{"v":[1]}`}, // nulls are skipped
		{"SELECT percentile_approx(col, array(0.5, 0.4, 0.1), 100) AS v FROM VALUES (0), (1), (2), (10) AS tab(col)", `{"v":[1,1,0]}`},
		{"SELECT percentile_approx(col, 0.5, 100) AS v FROM VALUES (0), (6), (7), (9), (10) AS tab(col)", `{"v":7}`},
	}
	for _, tc := range aggs {
		t.Run(tc.q, func(t *testing.T) {
			if got := query(t, e, tc.q); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if got := query(t, e, "SELECT uuid() AS v"); !regexp.MustCompile(`^\{"v":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"\}$`).MatchString(got) {
		t.Errorf("uuid(): %s, want a canonical UUID string", got)
	}
	// Unsupported functions fail naming the function, never with DuckDB's meaning or
	// DuckDB's guess at one of its own functions.
	for _, q := range []string{"SELECT hash('a')", "SELECT months_between('2020-01-01', '2019-01-01')", "SELECT date_format(now(), 'QQQ')", "SELECT sha2('a', 512)",
		"SELECT array_sort(array(1, 2), (l, r) -> r - l)", "SELECT transform(array(1, 2), 3)", "SELECT sort_array(array(1), 1 > 0)",
		"SELECT sequence(DATE '2018-01-01', DATE '2018-03-01', INTERVAL 1 MONTH)", "SELECT sequence(1, 5, 0)", "SELECT sequence(1.5, 3)", "SELECT sequence(DATE '2018-01-01', DATE '2018-01-03')", "SELECT sequence(1, 5, -1)", "SELECT sequence(5, 1, 1)"} {
		err := runErr(t, e, q)
		name := strings.TrimPrefix(strings.SplitN(q, "(", 2)[0], "SELECT ")
		if !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "Did you mean") || strings.Contains(err.Error(), "__") {
			t.Errorf("%s: error %q does not name %s, or shows DuckDB's suggestion or an internal name", q, err, name)
		}
	}
	// Spark's message for a step that does not lead from start to stop.
	if err := runErr(t, e, "SELECT sequence(1, 5, -1)"); !strings.Contains(err.Error(), "illegal sequence boundaries: 1 to 5 by -1") {
		t.Errorf("sequence(1, 5, -1): %v", err)
	}
}

// TestErrorsHideInternals: a failing statement's error names what the user wrote, never
// the engine's plumbing (hudi_scan calls, base file lists, temp tables and files).
func TestErrorsHideInternals(t *testing.T) {
	e := newTrips(t, "mor")
	run(t, e, "UPDATE trips SET fare = 1 WHERE uuid = 'a'")
	for _, tc := range []struct{ q, want string }{
		{"SELECT nope FROM trips", "nope"},
		{"SELECT fare + 'x' FROM trips", "x"},
		{"SELECT * FROM trips t JOIN trips u ON t.nope = u.uuid", "nope"},
		{"INSERT INTO trips SELECT ts, uuid FROM trips", "column"},
		{"MERGE INTO trips t USING (SELECT 1 AS uuid) s ON t.uuid = s.nope WHEN MATCHED THEN DELETE", "nope"},
	} {
		err := runErr(t, e, tc.q)
		msg := err.Error()
		for _, bad := range []string{scanFunction, "read_parquet", ".parquet", "__hudi", e.tmp, "LINE "} {
			if strings.Contains(msg, bad) {
				t.Errorf("%s: error shows %q: %s", tc.q, bad, msg)
			}
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q does not mention %q", tc.q, msg, tc.want)
		}
	}
}
