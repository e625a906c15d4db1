package parser

import "testing"

// TestTranslation checks Spark → DuckDB rewrites and table-reference extraction on
// SELECT statements ({name} marks a TableRef).
func TestTranslation(t *testing.T) {
	tests := []struct{ name, spark, duck string }{
		// types in CAST
		// (integral targets: lambdas_test.go)
		{"cast scalars", "SELECT CAST(a AS STRING), CAST(e AS BINARY), CAST(g AS REAL), CAST(h AS BOOLEAN)",
			"SELECT CAST(a AS VARCHAR), CAST(e AS BLOB), CAST(g AS FLOAT), CAST(h AS BOOLEAN)"},
		{"cast timestamps dates decimals", "SELECT cast(a as timestamp), CAST(b AS TIMESTAMP_NTZ), CAST(c AS DATE), CAST(d AS DECIMAL(10, 2)), CAST(e AS DECIMAL), try_cast(f AS varchar(3))",
			"SELECT CAST(a AS TIMESTAMPTZ), CAST(b AS TIMESTAMP), CAST(c AS DATE), CAST(d AS DECIMAL(10,2)), CAST(e AS DECIMAL(10,0)), TRY_CAST(f AS VARCHAR)"},
		{"cast nested", "SELECT CAST(x AS ARRAY<STRUCT<a: STRING, `b c` MAP<STRING, ARRAY<INT>>>>)",
			`SELECT CAST(x AS STRUCT("a" VARCHAR, "b c" MAP(VARCHAR, INTEGER[]))[])`},
		{"cast of a subquery", "SELECT CAST((SELECT max(x) FROM t) AS STRING)", "SELECT CAST((SELECT max(x) FROM {t}) AS VARCHAR)"},
		// constructors
		{"struct positional", "SELECT STRUCT('red', 100), struct(STRUCT(1, 2), 3)", "SELECT row('red', 100), row(row(1, 2), 3)"},
		{"struct named", "SELECT STRUCT(a AS x, t.b, 1 + 1)", `SELECT struct_pack("x" := a, "b" := t.b, "col3" := 1 + 1)`},
		{"named_struct", "SELECT named_struct('a', 1, \"b\", x + 1)", `SELECT struct_pack("a" := 1, "b" := x + 1)`},
		{"array", "SELECT ARRAY(1, 2), array()", "SELECT list_value(1, 2), list_value()"},
		{"map", "SELECT MAP('k1', 1, 'k2', 2), map()", "SELECT MAP(['k1', 'k2'], [1, 2]), MAP()"},
		{"map with nested calls", "SELECT map('a', struct(1, 2))", "SELECT MAP(['a'], [row(1, 2)])"},
		{"functions renamed", "SELECT map_from_arrays(k, v), array_contains(a, 1), size(a), nvl(x, 0), explode(a)",
			"SELECT MAP(k, v), list_contains(a, 1), len(a), coalesce(x, 0), unnest(a)"},
		{"niladic", "SELECT current_timestamp(), current_date(), now()", "SELECT CURRENT_TIMESTAMP, CURRENT_DATE, now()"},
		// operators
		{"equality", "SELECT * FROM t WHERE a == 1 AND b<=>c AND d != 2 AND e <> 3 AND !f", "SELECT * FROM {t} WHERE a = 1 AND b IS NOT DISTINCT FROM c AND d != 2 AND e <> 3 AND NOT f"},
		{"div", "SELECT 7 DIV 2, a div b", "SELECT 7 // 2, a // b"},
		{"concat stays", "SELECT a || 'x'", "SELECT a || 'x'"},
		// literals
		{"strings", `SELECT "double", 'it''s', 'a\'b', "say \"hi\"", 'tab\there', r'C:\dir', 'x' "y"`,
			"SELECT 'double', 'its', 'a''b', 'say \"hi\"', 'tab\there', 'C:\\dir', 'xy'"},
		{"like escapes kept", `SELECT 'a\%b', 'a\_b'`, `SELECT 'a\%b', 'a\_b'`},
		{"numbers", "SELECT 1L, 2S, 3Y, 1.5D, 2D, 1.5F, 1e10, 1.5E-3, .5, 7",
			"SELECT CAST(1 AS BIGINT), CAST(2 AS SMALLINT), CAST(3 AS TINYINT), CAST(1.5 AS DOUBLE), CAST(2 AS DOUBLE), CAST(1.5 AS FLOAT), 1e10, 1.5E-3, .5, 7"},
		{"big decimals", "SELECT 1.5BD, 0.05BD, 100BD, 1.2e3BD, 12e-4BD",
			"SELECT CAST(1.5 AS DECIMAL(2,1)), CAST(0.05 AS DECIMAL(2,2)), CAST(100 AS DECIMAL(3,0)), CAST(1200 AS DECIMAL(4,0)), CAST(0.0012 AS DECIMAL(4,4))"},
		{"typed literals", "SELECT TIMESTAMP '2024-01-15 10:30:00', DATE '2024-01-15', TIMESTAMP_NTZ '2024-01-15 00:00:00', X'0aFF', INTERVAL '1' DAY",
			"SELECT CAST('2024-01-15 10:30:00' AS TIMESTAMPTZ), DATE '2024-01-15', CAST('2024-01-15 00:00:00' AS TIMESTAMP), from_hex('0aFF'), INTERVAL '1' DAY"},
		{"identifiers", "SELECT `my col`, `a``b`, MyCol FROM `db`.`T`", `SELECT "my col", "a` + "`" + `b", MyCol FROM {db.T}`},
		// table references
		{"comma and joins", "SELECT * FROM a, b x, c AS y JOIN d ON x.id = d.id LEFT OUTER JOIN e USING (id) CROSS JOIN f, g",
			"SELECT * FROM {a}, {b} x, {c} AS y JOIN {d} ON x.id = d.id LEFT OUTER JOIN {e} USING (id) CROSS JOIN {f}, {g}"},
		{"semi anti", "SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k LEFT ANTI JOIN c ON a.k = c.k",
			"SELECT * FROM {a} SEMI JOIN {b} ON a.k = b.k ANTI JOIN {c} ON a.k = c.k"},
		{"subqueries in where", "SELECT * FROM a WHERE x IN (SELECT x FROM b) AND EXISTS (SELECT 1 FROM c WHERE c.y = a.y) AND z > (SELECT max(z) FROM d)",
			"SELECT * FROM {a} WHERE x IN (SELECT x FROM {b}) AND EXISTS (SELECT 1 FROM {c} WHERE c.y = a.y) AND z > (SELECT max(z) FROM {d})"},
		{"select list commas are not from items", "SELECT a, b FROM (SELECT a, b FROM t) s, u",
			"SELECT a, b FROM (SELECT a, b FROM {t}) s, {u}"},
		{"parenthesized join", "SELECT * FROM (a JOIN b ON a.id = b.id), c", "SELECT * FROM ({a} JOIN {b} ON a.id = b.id), {c}"},
		{"where ends from", "SELECT * FROM a WHERE f(x, y) GROUP BY x, y ORDER BY x, y", "SELECT * FROM {a} WHERE f(x, y) GROUP BY x, y ORDER BY x, y"},
		{"set operations", "SELECT * FROM a UNION ALL SELECT * FROM b MINUS TABLE c", "SELECT * FROM {a} UNION ALL SELECT * FROM {b} EXCEPT SELECT * FROM {c}"},
		{"time travel", "SELECT * FROM t TIMESTAMP AS OF '2024-01-15 10:00:00' a, u VERSION AS OF 20240115100000000, v FOR SYSTEM_TIME AS OF '20240115'",
			"SELECT * FROM {t asof=2024-01-15 10:00:00} a, {u asof=20240115100000000}, {v asof=20240115}"},
		{"table changes", "SELECT * FROM hudi_table_changes('db.t', 'latest_state', 'earliest') c JOIN hudi_table_changes('/data/t', 'latest_state', '20240101', '20240201') d ON c.id = d.id",
			"SELECT * FROM {db.t changes=latest_state,earliest,} c JOIN {/data/t changes=latest_state,20240101,20240201} d ON c.id = d.id"},
		{"path tables", "SELECT * FROM hudi.`/data/t`, '/data/u'", "SELECT * FROM {/data/t}, {/data/u}"},
		{"other table functions stay", "SELECT * FROM range(10) r, read_parquet('x.parquet'), t", "SELECT * FROM range(10) r, read_parquet('x.parquet'), {t}"},
		{"cte names stay", "WITH c AS (SELECT * FROM t), d AS (SELECT * FROM c) SELECT * FROM c JOIN d ON true, (SELECT * FROM c) e",
			"WITH c AS (SELECT * FROM {t}), d AS (SELECT * FROM c) SELECT * FROM c JOIN d ON true, (SELECT * FROM c) e"},
		{"cte scope ends with its query", "SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c) x, c",
			"SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c) x, {c}"},
		{"cte later name not visible earlier", "WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a, b",
			"WITH a AS (SELECT * FROM {b}), b AS (SELECT 1) SELECT * FROM a, b"},
		{"from inside functions", "SELECT extract(YEAR FROM ts), trim(BOTH 'x' FROM s), substring(s FROM 2), a IS DISTINCT FROM b FROM t",
			"SELECT extract(YEAR FROM ts), trim(BOTH 'x' FROM s), substring(s FROM 2), a IS DISTINCT FROM b FROM {t}"},
		{"from values", "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(id, s), t", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, s), {t}"},
		{"values without parentheses", "VALUES 1, 2 + 3", "VALUES (1), (2 + 3)"},
		{"lateral", "SELECT * FROM t, LATERAL (SELECT * FROM u WHERE u.k = t.k)", "SELECT * FROM {t}, LATERAL (SELECT * FROM {u} WHERE u.k = t.k)"},
		{"layout kept", "SELECT a,\n       b -- note\nFROM t /* c */ WHERE x", "SELECT a,\n       b \nFROM {t}   WHERE x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stmts, err := Parse(tc.spark)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.spark, err)
			}
			s, ok := stmts[0].(*Select)
			if !ok || len(stmts) != 1 {
				t.Fatalf("Parse(%q) = %s, want one Select", tc.spark, show(stmts))
			}
			if got := render(s.Query); got != tc.duck {
				t.Errorf("translate(%q)\n got %s\nwant %s", tc.spark, got, tc.duck)
			}
			if len(s.Query.Segments) != len(s.Query.Refs)+1 {
				t.Errorf("%d segments for %d refs", len(s.Query.Segments), len(s.Query.Refs))
			}
		})
	}
}

// TestRefPositions checks a TableRef names where the table is written.
func TestRefPositions(t *testing.T) {
	stmts, err := Parse("SELECT *\nFROM  a JOIN\n  db.b ON true")
	if err != nil {
		t.Fatal(err)
	}
	refs := stmts[0].(*Select).Query.Refs
	want := []Pos{{2, 7}, {3, 3}}
	if len(refs) != 2 || refs[0].Name.Pos != want[0] || refs[1].Name.Pos != want[1] {
		t.Errorf("refs %+v, want at %v", refs, want)
	}
}
