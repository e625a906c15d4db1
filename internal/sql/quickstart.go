package sql

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/sql/parser"
)

// quickstartSteps is the Spark SQL quick start of Hudi 0.14 (the trips table of the Spark
// guide: create, insert, query, update, merge, delete, time travel, incremental read). The
// Spark guide writes some steps with the DataFrame API; they are the equivalent SQL here.
// {first} is replaced by the table's first commit, taken from show_commits.
var quickstartSteps = []string{
	`CREATE TABLE trips (
  ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING
) USING HUDI
PARTITIONED BY (city)
TBLPROPERTIES (primaryKey = 'uuid', preCombineField = 'ts')`,
	`INSERT INTO trips VALUES
  (1695159649087, '334e26e9-8355-45cc-97c6-c31daf0df330', 'rider-A', 'driver-K', 19.10, 'san_francisco'),
  (1695091554788, 'e96c4396-3fad-413a-a942-4cb36106d721', 'rider-C', 'driver-M', 27.70, 'san_francisco'),
  (1695046462179, '9909a8b1-2d15-4d3d-8ec9-efc48c536a00', 'rider-D', 'driver-L', 33.90, 'san_francisco'),
  (1695516137016, 'e3cf430c-889d-4015-bc98-59bdce1e530c', 'rider-F', 'driver-P', 34.15, 'sao_paulo'),
  (1695115999911, 'c8abbe79-8d89-47ea-b4ce-4d224bae5bfa', 'rider-J', 'driver-T', 17.85, 'chennai')`,
	`SELECT uuid, fare, ts, rider, driver, city FROM trips WHERE fare > 20.0 ORDER BY rider`,
	`SELECT _hoodie_commit_time, _hoodie_record_key, _hoodie_partition_path, rider, driver, fare FROM trips ORDER BY rider`,
	`UPDATE trips SET fare = fare * 10 WHERE rider = 'rider-D'`,
	`SELECT _hoodie_commit_time, _hoodie_record_key, _hoodie_partition_path, rider, driver, fare FROM trips ORDER BY rider`,
	`CREATE TABLE fare_adjustment (
  ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING
) USING HUDI
TBLPROPERTIES (primaryKey = 'uuid', preCombineField = 'ts')`,
	`INSERT INTO fare_adjustment VALUES
  (1695091554788, 'e96c4396-3fad-413a-a942-4cb36106d721', 'rider-C', 'driver-M', -2.70, 'san_francisco'),
  (1695530237068, '3f3d9565-7261-40e6-9b39-b8aa784f95e2', 'rider-K', 'driver-U', 64.20, 'san_francisco'),
  (1695241330902, 'ea4c36ff-2069-4148-9927-ef8c1a5abd24', 'rider-H', 'driver-R', 66.60, 'sao_paulo'),
  (1695115999911, 'c8abbe79-8d89-47ea-b4ce-4d224bae5bfa', 'rider-J', 'driver-T', 1.85, 'chennai')`,
	`MERGE INTO trips AS target
USING fare_adjustment AS source
ON target.uuid = source.uuid
WHEN MATCHED THEN UPDATE SET target.fare = target.fare + source.fare
WHEN NOT MATCHED THEN INSERT *`,
	`SELECT _hoodie_commit_time, rider, driver, fare, city FROM trips ORDER BY rider`,
	`DELETE FROM trips WHERE rider = 'rider-F'`,
	`SELECT _hoodie_commit_time, rider, driver, fare, city FROM trips ORDER BY rider`,
	`CALL show_commits(table => 'trips')`,
	`SELECT _hoodie_commit_time, rider, driver, fare, city FROM trips TIMESTAMP AS OF '{first}' ORDER BY rider`,
	`SELECT _hoodie_commit_time, rider, driver, fare, city FROM hudi_table_changes('trips', 'latest_state', '{first}') ORDER BY rider`,
}

// Quickstart runs the quick start in a warehouse at dir, printing each statement and its
// result to w (rows as format).
func Quickstart(ctx context.Context, o Options, w io.Writer, format string) error {
	e, err := Open(ctx, o)
	if err != nil {
		return err
	}
	defer e.Close()
	first := ""
	for _, step := range quickstartSteps {
		if strings.Contains(step, "{first}") {
			if first == "" {
				return fmt.Errorf("quickstart: no first commit found by show_commits")
			}
			step = strings.ReplaceAll(step, "{first}", first)
		}
		fmt.Fprintf(w, "\nhudi-sql> %s;\n", strings.ReplaceAll(step, "\n", "\n        > "))
		stmts, err := parser.Parse(step)
		if err != nil {
			return fmt.Errorf("quickstart: %w", err)
		}
		for _, st := range stmts {
			res, err := e.Exec(ctx, st)
			if err != nil {
				return fmt.Errorf("quickstart: %w", err)
			}
			if c, ok := st.(*parser.Call); ok && c.Procedure == "show_commits" {
				first = oldestCommit(res)
			}
			err = WriteResult(w, w, res, format)
			res.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// oldestCommit is the last commit_time of show_commits' rows (they are newest first).
func oldestCommit(r *Result) string {
	out := ""
	for _, rec := range r.Records {
		idx := rec.Schema().FieldIndices("commit_time")
		if len(idx) == 0 {
			continue
		}
		c, ok := rec.Column(idx[0]).(*array.String)
		if !ok {
			continue
		}
		for i := 0; i < c.Len(); i++ {
			out = c.Value(i)
		}
	}
	return out
}
