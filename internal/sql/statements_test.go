package sql

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// run executes a script and returns the results of its statements.
func run(t *testing.T, e *Engine, script string) []*Result {
	t.Helper()
	var out []*Result
	stmts, err := parser.Parse(script)
	if err != nil {
		t.Fatalf("parse %q: %v", script, err)
	}
	for _, st := range stmts {
		r, err := e.Exec(context.Background(), st)
		if err != nil {
			t.Fatalf("%s: %v", strings.TrimSpace(script), err)
		}
		t.Cleanup(r.Release)
		out = append(out, r)
	}
	return out
}

// runErr executes a script that must fail and returns the error.
func runErr(t *testing.T, e *Engine, script string) error {
	t.Helper()
	err := e.Run(context.Background(), script, func(parser.Statement, *Result) error { return nil })
	if err == nil {
		t.Fatalf("%s: no error", script)
	}
	return err
}

// query returns a query's rows as canonical JSON lines (meta columns dropped), joined by
// newlines.
func query(t *testing.T, e *Engine, q string) string {
	t.Helper()
	rs := run(t, e, q)
	return strings.Join(rowsJSON(t, rs[len(rs)-1]), "\n")
}

const tripsDDL = `CREATE TABLE trips (ts BIGINT, uuid STRING, rider STRING, fare DOUBLE, city STRING) USING HUDI
PARTITIONED BY (city) TBLPROPERTIES (type = '%s', primaryKey = 'uuid', preCombineField = 'ts')`

const tripsRows = `INSERT INTO trips VALUES
 (1, 'a', 'rider-A', 10.0, 'sf'), (2, 'b', 'rider-B', 20.0, 'sf'), (3, 'c', 'rider-C', 30.0, 'nyc'), (4, 'd', 'rider-D', 40.0, 'la')`

func newTrips(t *testing.T, typ string) *Engine {
	e := openEngine(t)
	run(t, e, strings.Replace(tripsDDL, "%s", typ, 1)+";"+tripsRows)
	return e
}

func TestMergeDeleteAndConditions(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := newTrips(t, typ)
			rs := run(t, e, `MERGE INTO trips t
USING (SELECT * FROM (VALUES (1, 'a', 'rider-A', 11.0, 'sf', 'upd'), (2, 'b', 'rider-B', 0.0, 'sf', 'del'),
                             (3, 'c', 'rider-C', 33.0, 'nyc', 'skip'), (5, 'e', 'rider-E', 50.0, 'la', 'ins'),
                             (6, 'f', 'rider-F', 60.0, 'la', 'noins')) AS v(ts, uuid, rider, fare, city, flag)) s
ON t.uuid = s.uuid
WHEN MATCHED AND s.flag = 'del' THEN DELETE
WHEN MATCHED AND s.flag = 'upd' THEN UPDATE SET *
WHEN NOT MATCHED AND s.flag = 'ins' THEN INSERT (ts, uuid, rider, fare, city) VALUES (s.ts, s.uuid, s.rider, s.fare, s.city)`)
			// One commit for the upserts and the delete, as Java's MERGE makes.
			if !strings.Contains(rs[0].Summary, "(1 updated, 1 inserted, 1 deleted)") || len(rs[0].Instants) != 1 {
				t.Errorf("merge: %s %v", rs[0].Summary, rs[0].Instants)
			}
			got := query(t, e, "SELECT uuid, fare FROM trips ORDER BY uuid")
			want := `{"uuid":"a","fare":11.0}
{"uuid":"c","fare":30.0}
{"uuid":"d","fare":40.0}
{"uuid":"e","fare":50.0}`
			if got != want {
				t.Errorf("after merge:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestMergeOnMustCoverRecordKey(t *testing.T) {
	e := newTrips(t, "cow")
	err := runErr(t, e, `MERGE INTO trips t USING trips s ON t.rider = s.rider WHEN MATCHED THEN DELETE`)
	if !strings.Contains(err.Error(), "record key") {
		t.Errorf("ON without the key: %v", err)
	}
	err = runErr(t, e, `MERGE INTO trips t USING trips s ON t.uuid = s.uuid OR t.rider = s.rider WHEN MATCHED THEN DELETE`)
	if !strings.Contains(err.Error(), "equality") {
		t.Errorf("ON with OR: %v", err)
	}
	// Partition columns may join the key, and casts are fine.
	run(t, e, `MERGE INTO trips t USING trips s ON t.uuid = s.uuid AND t.city = s.city WHEN MATCHED THEN UPDATE SET fare = s.fare + 1`)
	if got := query(t, e, "SELECT sum(fare) AS s FROM trips"); got != `{"s":104.0}` {
		t.Errorf("after merge: %s", got)
	}
}

func TestInsertOverwriteAndColumns(t *testing.T) {
	e := newTrips(t, "cow")
	// A static partition: the query gives the other columns.
	rs := run(t, e, `INSERT OVERWRITE trips PARTITION (city = 'sf') SELECT 9, 'z', 'rider-Z', 99.0`)
	if !strings.Contains(rs[0].Summary, "(insert_overwrite)") {
		t.Errorf("overwrite partition: %s", rs[0].Summary)
	}
	if got := query(t, e, "SELECT uuid, city FROM trips ORDER BY uuid"); got != `{"uuid":"c","city":"nyc"}
{"uuid":"d","city":"la"}
{"uuid":"z","city":"sf"}` {
		t.Errorf("after overwrite of sf:\n%s", got)
	}
	// A column list: the others are null.
	run(t, e, `INSERT INTO trips (uuid, city, ts) VALUES ('n', 'la', 7)`)
	if got := query(t, e, "SELECT uuid, rider, fare FROM trips WHERE uuid = 'n'"); got != `{"uuid":"n","rider":null,"fare":null}` {
		t.Errorf("insert with columns: %s", got)
	}
	rs = run(t, e, `INSERT OVERWRITE TABLE trips SELECT * FROM trips WHERE city = 'la'`)
	if !strings.Contains(rs[0].Summary, "(insert_overwrite_table)") {
		t.Errorf("overwrite table: %s", rs[0].Summary)
	}
	if got := query(t, e, "SELECT count(*) AS n FROM trips"); got != `{"n":2}` {
		t.Errorf("after overwrite table: %s", got)
	}
	err := runErr(t, e, `INSERT INTO trips VALUES (1, 'x', 'y')`)
	if !strings.Contains(err.Error(), "expected (ts, uuid, rider, fare, city)") {
		t.Errorf("wrong column count: %v", err)
	}
}

func TestInsertOperationByPrecombine(t *testing.T) {
	e := openEngine(t)
	run(t, e, `CREATE TABLE np (id INT, v STRING) USING HUDI TBLPROPERTIES (primaryKey = 'id');
INSERT INTO np VALUES (1, 'a')`)
	rs := run(t, e, `INSERT INTO np VALUES (2, 'b')`)
	if !strings.Contains(rs[0].Summary, "(insert)") {
		t.Errorf("no precombine field: want insert, got %s", rs[0].Summary)
	}
	rs = run(t, e, `SET hoodie.spark.sql.insert.into.operation = upsert; INSERT INTO np VALUES (2, 'c')`)
	if !strings.Contains(rs[1].Summary, "(upsert)") {
		t.Errorf("with the session setting: %s", rs[1].Summary)
	}
	if got := query(t, e, "SELECT v FROM np WHERE id = 2"); got != `{"v":"c"}` {
		t.Errorf("upserted row: %s", got)
	}
}

func TestCTASAlterDescribeDrop(t *testing.T) {
	e := newTrips(t, "cow")
	rs := run(t, e, `CREATE TABLE big USING HUDI PARTITIONED BY (city) TBLPROPERTIES (primaryKey = 'uuid')
AS SELECT uuid, city, fare * 2 AS fare2, CAST('2024-01-02 03:04:05' AS TIMESTAMP) AS stamp FROM trips WHERE fare > 15`)
	if !strings.Contains(rs[0].Summary, "3 row(s)") || !strings.Contains(rs[0].Summary, "(bulk_insert)") {
		t.Errorf("ctas: %s", rs[0].Summary)
	}
	if got := query(t, e, "SELECT uuid, fare2, stamp, city FROM big WHERE uuid = 'b'"); got != `{"uuid":"b","fare2":40.0,"stamp":"2024-01-02T03:04:05.000000Z","city":"sf"}` {
		t.Errorf("ctas row (partition column last, timestamp in the session zone UTC): %s", got)
	}
	run(t, e, `ALTER TABLE big ADD COLUMNS (note STRING, n BIGINT)`)
	run(t, e, `UPDATE big SET note = 'x', n = 1 WHERE uuid = 'b'`)
	if got := query(t, e, "SELECT uuid, note, n FROM big ORDER BY uuid"); got != `{"uuid":"b","note":"x","n":1}
{"uuid":"c","note":null,"n":null}
{"uuid":"d","note":null,"n":null}` {
		t.Errorf("after ALTER and UPDATE:\n%s", got)
	}
	d := run(t, e, "DESCRIBE big")[0]
	if s := strings.Join(rowsJSON(t, d), "\n"); !strings.Contains(s, `{"col_name":"note","data_type":"string","comment":null}`) ||
		!strings.Contains(s, `{"col_name":"n","data_type":"bigint","comment":null}`) {
		t.Errorf("describe:\n%s", s)
	}
	tables := strings.Join(rowsJSON(t, run(t, e, "SHOW TABLES")[0]), "\n")
	if tables != `{"namespace":"default","tableName":"big","isTemporary":false}
{"namespace":"default","tableName":"trips","isTemporary":false}` {
		t.Errorf("show tables:\n%s", tables)
	}
	path := filepath.Join(e.Warehouse(), "big")
	run(t, e, "DROP TABLE big PURGE")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("DROP … PURGE left %s", path)
	}
	var nf *TableNotFoundError
	if err := runErr(t, e, "SELECT * FROM big"); !errors.As(err, &nf) || !strings.Contains(err.Error(), "table default.big not found (warehouse ") {
		t.Errorf("dropped table: %v", err)
	}
}

func TestErrorsLeaveTablesUnchanged(t *testing.T) {
	e := newTrips(t, "cow")
	before := query(t, e, "SELECT * FROM trips ORDER BY uuid")
	for _, bad := range []string{
		"UPDATE trips SET fare = fare / 0 WHERE error('boom') IS NULL",
		"UPDATE trips SET nosuch = 1",
		"UPDATE trips SET uuid = 'x'",
		"DELETE FROM trips WHERE nosuch = 1",
		"INSERT INTO trips SELECT * FROM nosuch",
		"MERGE INTO trips t USING (SELECT 'a' AS uuid) s ON t.uuid = s.uuid WHEN MATCHED THEN UPDATE SET nosuch = 1",
	} {
		runErr(t, e, bad)
	}
	if after := query(t, e, "SELECT * FROM trips ORDER BY uuid"); after != before {
		t.Errorf("failed statements changed the table:\n%s\nwas:\n%s", after, before)
	}
	if err := runErr(t, e, "UPDATE trips SET nosuch = 1"); !strings.Contains(err.Error(), `column "nosuch" not found`) {
		t.Errorf("unknown column: %v", err)
	}
	var se *parser.SyntaxError
	if err := runErr(t, e, "SELECT 1;\nSELEC 2"); !errors.As(err, &se) || se.Pos.Line != 2 {
		t.Errorf("syntax error: %v", err)
	}
	if err := runErr(t, e, "SELECT * FROM nosuch"); !strings.Contains(err.Error(), "table default.nosuch not found") {
		t.Errorf("unknown table: %v", err)
	}
}

func TestPathTablesTimeZoneAndUse(t *testing.T) {
	e := newTrips(t, "cow")
	p := filepath.Join(e.Warehouse(), "trips")
	if got := query(t, e, "SELECT count(*) AS n FROM hudi.`"+p+"`"); got != `{"n":4}` {
		t.Errorf("by path: %s", got)
	}
	run(t, e, `CREATE TABLE ev (id INT, event_at TIMESTAMP) USING HUDI TBLPROPERTIES (primaryKey = 'id');
SET spark.sql.session.timeZone = America/Chicago;
INSERT INTO ev VALUES (1, TIMESTAMP '2023-04-01 12:01:00'), (2, CAST('2023-04-01 12:01:00' AS TIMESTAMP))`)
	if got := query(t, e, "SELECT id, event_at FROM ev ORDER BY id"); got != `{"id":1,"event_at":"2023-04-01T17:01:00.000000Z"}
{"id":2,"event_at":"2023-04-01T17:01:00.000000Z"}` {
		t.Errorf("timestamps in America/Chicago:\n%s", got)
	}
	run(t, e, "USE other; CREATE TABLE t2 (id INT) USING HUDI TBLPROPERTIES (primaryKey = 'id'); INSERT INTO t2 VALUES (1)")
	if _, err := os.Stat(filepath.Join(e.Warehouse(), "other.db", "t2", ".hoodie")); err != nil {
		t.Errorf("table of database other: %v", err)
	}
	if got := query(t, e, "SELECT count(*) AS n FROM default.trips JOIN other.t2 ON true"); got != `{"n":4}` {
		t.Errorf("across databases: %s", got)
	}
}

func TestProcedures(t *testing.T) {
	e := newTrips(t, "mor")
	run(t, e, "UPDATE trips SET fare = 1 WHERE uuid = 'a'")
	rs := run(t, e, "CALL run_compaction(op => 'scheduleAndExecute', table => 'trips')")
	if got := strings.Join(rowsJSON(t, rs[0]), ""); !strings.Contains(got, `"state":"COMPLETED"`) {
		t.Errorf("run_compaction: %s", got)
	}
	rs = run(t, e, "CALL show_commits(table => 'trips', limit => 10)")
	if rs[0].NumRows() != 3 {
		t.Errorf("show_commits: %d rows", rs[0].NumRows())
	}
	run(t, e, "CALL run_clean(table => 'trips')")
	run(t, e, "CALL run_clustering(table => 'trips')")
	first := firstCommit(t, e, "trips")
	run(t, e, "CALL create_savepoint(table => 'trips', commit_time => '"+first+"')")
	run(t, e, "UPDATE trips SET fare = 2 WHERE uuid = 'b'")
	last := newestCommit(t, e, "trips")
	run(t, e, "CALL rollback_to_instant(table => 'trips', instant_time => '"+last+"')")
	if got := query(t, e, "SELECT fare FROM trips WHERE uuid = 'b'"); got != `{"fare":20.0}` {
		t.Errorf("after rollback: %s", got)
	}
	if err := runErr(t, e, "CALL no_such_proc(table => 'trips')"); !strings.Contains(err.Error(), "unknown procedure") {
		t.Errorf("unknown procedure: %v", err)
	}
}

func firstCommit(t *testing.T, e *Engine, table string) string {
	t.Helper()
	return oldestCommit(run(t, e, "CALL show_commits(table => '"+table+"', limit => 1000)")[0])
}

func newestCommit(t *testing.T, e *Engine, table string) string {
	t.Helper()
	h, err := e.resolveText(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	ins := h.t.Timeline().DataInstants()
	return string(ins[len(ins)-1].Time)
}

// TestAlterAddColumnsRecordsAlterSchema: ALTER TABLE ADD COLUMNS (schema on read off) is
// one instant with no data whose inflight and completed metadata both say ALTER_SCHEMA
// (Java 0.14's AlterHoodieTableAddColumnsCommand.commitWithSchema: the inflight metadata,
// then client.preWrite(ALTER_SCHEMA) before client.commit), carrying the new schema
// without meta fields and with the partition column last.
func TestAlterAddColumnsRecordsAlterSchema(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := newTrips(t, typ)
			rs := run(t, e, "ALTER TABLE trips ADD COLUMNS (note STRING)")
			if len(rs[0].Instants) != 1 {
				t.Fatalf("instants: %v", rs[0].Instants)
			}
			// Table version 6 names a commit's inflight file <instant>.inflight.
			action, inflight := "commit", rs[0].Instants[0]+".inflight"
			if typ == "mor" {
				action, inflight = "deltacommit", rs[0].Instants[0]+".deltacommit.inflight"
			}
			hoodie := filepath.Join(e.cat.defaultPath(DefaultDatabase, "trips"), ".hoodie")
			for _, name := range []string{inflight, rs[0].Instants[0] + "." + action} {
				data, err := os.ReadFile(filepath.Join(hoodie, name))
				if err != nil {
					t.Fatal(err)
				}
				m, err := commitmeta.Decode(data)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if m.OperationType != "ALTER_SCHEMA" {
					t.Errorf("%s: operationType %q, want ALTER_SCHEMA", name, m.OperationType)
				}
				if n := len(m.PartitionToWriteStats); n != 0 {
					t.Errorf("%s: %d partitions written, want none", name, n)
				}
				if name == rs[0].Instants[0]+"."+action {
					sc := m.ExtraMetadata["schema"]
					if strings.Contains(sc, "_hoodie_") || !strings.Contains(sc, `"name":"note"`) ||
						strings.Index(sc, `"name":"note"`) > strings.Index(sc, `"name":"city"`) {
						t.Errorf("%s: schema %s", name, sc)
					}
				}
			}
		})
	}
}

// TestAlterAddColumnsKeepsPartitionLast: ALTER TABLE ADD COLUMNS commits the schema Java's
// AlterHoodieTableAddColumnsCommand commits, data columns ++ new columns ++ partition
// columns, so a positional INSERT lists the new column before the partition column; rows
// written before read the new column as null, on both table types.
func TestAlterAddColumnsKeepsPartitionLast(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := newTrips(t, typ)
			run(t, e, "ALTER TABLE trips ADD COLUMNS (note STRING, n INT)")
			var cols []string
			for _, line := range rowsJSON(t, run(t, e, "SHOW COLUMNS IN trips")[0]) {
				cols = append(cols, line)
			}
			if got := strings.Join(cols, ","); !strings.HasSuffix(got, `{"col_name":"fare"},{"col_name":"note"},{"col_name":"n"},{"col_name":"city"}`) {
				t.Errorf("columns: %s", got)
			}
			run(t, e, "INSERT INTO trips VALUES (5, 'e', 'rider-E', 50.0, 'hello', 7, 'sf')")
			run(t, e, "UPDATE trips SET note = 'upd' WHERE uuid = 'a'")
			got := query(t, e, "SELECT uuid, note, n, city FROM trips ORDER BY uuid")
			want := `{"uuid":"a","note":"upd","n":null,"city":"sf"}
{"uuid":"b","note":null,"n":null,"city":"sf"}
{"uuid":"c","note":null,"n":null,"city":"nyc"}
{"uuid":"d","note":null,"n":null,"city":"la"}
{"uuid":"e","note":"hello","n":7,"city":"sf"}`
			if got != want {
				t.Errorf("rows:\n%s\nwant\n%s", got, want)
			}
		})
	}
}
