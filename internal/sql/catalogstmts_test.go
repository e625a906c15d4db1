package sql

import (
	"strings"
	"testing"
)

// TestCatalogStatements runs the catalog statements of Spark SQL (Spark's SQL reference,
// sql-ref-syntax-aux-show-*.html and sql-ref-syntax-ddl-*.html) against a warehouse and
// checks their results.
func TestCatalogStatements(t *testing.T) {
	e := newTrips(t, "cow")
	run(t, e, "CREATE DATABASE sales; CREATE TABLE sales.orders (id INT, amount DOUBLE) USING HUDI TBLPROPERTIES (primaryKey = 'id')")
	for _, tc := range []struct{ q, want string }{
		{"SHOW DATABASES", `{"namespace":"default"}
{"namespace":"sales"}`},
		{"SHOW DATABASES LIKE 'sal*'", `{"namespace":"sales"}`},
		{"SHOW TABLES IN sales", `{"namespace":"sales","tableName":"orders","isTemporary":false}`},
		{"SHOW TABLES", `{"namespace":"default","tableName":"trips","isTemporary":false}`},
		{"SHOW TABLES LIKE 'tr*|x'", `{"namespace":"default","tableName":"trips","isTemporary":false}`},
		{"SHOW PARTITIONS trips", `{"partition":"city=la"}
{"partition":"city=nyc"}
{"partition":"city=sf"}`},
		{"SHOW COLUMNS IN orders IN sales", `{"col_name":"_hoodie_commit_time"}
{"col_name":"_hoodie_commit_seqno"}
{"col_name":"_hoodie_record_key"}
{"col_name":"_hoodie_partition_path"}
{"col_name":"_hoodie_file_name"}
{"col_name":"id"}
{"col_name":"amount"}`},
		{"SHOW TBLPROPERTIES trips ('primaryKey')", `{"key":"primaryKey","value":"uuid"}`},
	} {
		if got := query(t, e, tc.q); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.q, got, tc.want)
		}
	}
	create := query(t, e, "SHOW CREATE TABLE trips")
	for _, want := range []string{"CREATE TABLE default.trips (", "ts BIGINT", "city STRING", "USING hudi", "PARTITIONED BY (city)", "'primaryKey' = 'uuid'", "'preCombineField' = 'ts'"} {
		if !strings.Contains(create, want) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, create)
		}
	}

	// ALTER TABLE SET/UNSET TBLPROPERTIES, RENAME TO.
	run(t, e, "ALTER TABLE trips SET TBLPROPERTIES ('hoodie.parquet.small.file.limit' = '0')")
	if got := query(t, e, "SHOW TBLPROPERTIES trips ('hoodie.parquet.small.file.limit')"); got != `{"key":"hoodie.parquet.small.file.limit","value":"0"}` {
		t.Errorf("after SET TBLPROPERTIES: %s", got)
	}
	run(t, e, "ALTER TABLE trips UNSET TBLPROPERTIES ('hoodie.parquet.small.file.limit')")
	if err := runErr(t, e, "ALTER TABLE trips UNSET TBLPROPERTIES ('hoodie.nope')"); !strings.Contains(err.Error(), "hoodie.nope") {
		t.Errorf("UNSET of an unset property: %v", err)
	}
	run(t, e, "ALTER TABLE trips UNSET TBLPROPERTIES IF EXISTS ('hoodie.nope')")
	run(t, e, "ALTER TABLE sales.orders RENAME TO orders2; INSERT INTO sales.orders2 VALUES (1, 2.5)")
	if got := query(t, e, "SELECT id, amount FROM sales.orders2"); got != `{"id":1,"amount":2.5}` {
		t.Errorf("after RENAME: %s", got)
	}

	// DROP PARTITION commits a delete_partition; an unknown partition fails.
	if err := runErr(t, e, "ALTER TABLE trips DROP PARTITION (city = 'paris')"); !strings.Contains(err.Error(), "city=paris not found") {
		t.Errorf("DROP PARTITION of a missing partition: %v", err)
	}
	r := run(t, e, "ALTER TABLE trips DROP PARTITION (city = 'sf')")
	if !strings.Contains(r[0].Summary, "dropped city=sf; committed replacecommit") {
		t.Errorf("DROP PARTITION: %s", r[0].Summary)
	}
	if got := query(t, e, "SELECT uuid FROM trips ORDER BY uuid"); got != `{"uuid":"c"}
{"uuid":"d"}` {
		t.Errorf("after DROP PARTITION: %s", got)
	}
	// TRUNCATE TABLE … PARTITION, then TRUNCATE TABLE.
	run(t, e, "TRUNCATE TABLE trips PARTITION (city = 'la')")
	if got := query(t, e, "SELECT uuid FROM trips"); got != `{"uuid":"c"}` {
		t.Errorf("after TRUNCATE PARTITION: %s", got)
	}
	run(t, e, "TRUNCATE TABLE trips")
	if got := query(t, e, "SELECT count(*) AS n FROM trips"); got != `{"n":0}` {
		t.Errorf("after TRUNCATE: %s", got)
	}

	// CREATE TABLE LIKE copies the definition, not the rows.
	run(t, e, "CREATE TABLE trips2 LIKE trips; INSERT INTO trips2 VALUES (9, 'z', 'rider-Z', 1.0, 'sf')")
	if got := query(t, e, "SELECT uuid, city FROM trips2"); got != `{"uuid":"z","city":"sf"}` {
		t.Errorf("CREATE TABLE LIKE: %s", got)
	}
	if got := query(t, e, "SHOW TBLPROPERTIES trips2 ('primaryKey')"); got != `{"key":"primaryKey","value":"uuid"}` {
		t.Errorf("CREATE TABLE LIKE keys: %s", got)
	}

	// DROP DATABASE needs CASCADE while it holds tables.
	if err := runErr(t, e, "DROP DATABASE sales"); !strings.Contains(err.Error(), "CASCADE") {
		t.Errorf("DROP DATABASE of a non-empty database: %v", err)
	}
	run(t, e, "DROP DATABASE sales CASCADE")
	if got := query(t, e, "SHOW DATABASES"); got != `{"namespace":"default"}` {
		t.Errorf("after DROP DATABASE: %s", got)
	}
}

// TestCreateOverExistingTable: CREATE TABLE … LOCATION over a Hudi table registers it only
// when the definition given is the table's; another schema or key fails.
func TestCreateOverExistingTable(t *testing.T) {
	e := newTrips(t, "cow")
	loc := e.cat.defaultPath("default", "trips")
	for _, tc := range []struct{ ddl, err string }{
		{"CREATE TABLE t1 (ts BIGINT, uuid STRING) USING HUDI LOCATION '" + loc + "'", "columns"},
		{"CREATE TABLE t2 USING HUDI TBLPROPERTIES (primaryKey = 'rider') LOCATION '" + loc + "'", "primaryKey rider"},
		{"CREATE TABLE t3 USING HUDI TBLPROPERTIES (type = 'mor') LOCATION '" + loc + "'", "type mor"},
	} {
		if err := runErr(t, e, tc.ddl); !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error about %s", tc.ddl, err, tc.err)
		}
	}
	run(t, e, "CREATE TABLE t4 (ts BIGINT, uuid STRING, rider STRING, fare DOUBLE, city STRING) USING HUDI TBLPROPERTIES (primaryKey = 'uuid') LOCATION '"+loc+"'")
	if got := query(t, e, "SELECT count(*) AS n FROM t4"); got != `{"n":4}` {
		t.Errorf("registered table: %s", got)
	}
}
