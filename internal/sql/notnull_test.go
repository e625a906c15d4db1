package sql

import (
	"strings"
	"testing"
)

// TestInsertNullIntoNotNullRefused: INSERT (and UPDATE, MERGE INTO) of a NULL into a NOT
// NULL column fails — Spark refuses it for the target table's NOT NULL columns — instead
// of storing the type's zero value (”), and the table keeps its rows; the CLI's JSON Lines
// input refuses the same null.
func TestInsertNullIntoNotNullRefused(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := openEngine(t)
			run(t, e, `CREATE TABLE nn (id STRING NOT NULL, name STRING NOT NULL, ts BIGINT, s STRUCT<a: INT NOT NULL>) USING HUDI
TBLPROPERTIES (type = '`+typ+`', primaryKey = 'id', preCombineField = 'ts');
INSERT INTO nn VALUES ('a', 'x', 1, named_struct('a', 1))`)
			for _, stmt := range []string{
				`INSERT INTO nn VALUES ('b', NULL, 1, named_struct('a', 1))`,
				`INSERT INTO nn SELECT 'c', CAST(NULL AS STRING), 1, named_struct('a', 1)`,
				`UPDATE nn SET name = NULL WHERE id = 'a'`,
			} {
				err := runErr(t, e, stmt)
				if !strings.Contains(err.Error(), `column "name" is NOT NULL`) {
					t.Errorf("%s: %v", stmt, err)
				}
			}
			err := runErr(t, e, `INSERT INTO nn VALUES ('d', 'y', 1, named_struct('a', CAST(NULL AS INT)))`)
			if !strings.Contains(err.Error(), `column "s.a" is NOT NULL`) {
				t.Errorf("null struct field: %v", err)
			}
			if got := query(t, e, `SELECT id, name FROM nn ORDER BY id`); got != `{"id":"a","name":"x"}` {
				t.Errorf("table after the refusals: %s", got)
			}
		})
	}
}
