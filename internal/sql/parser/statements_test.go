package parser

import "testing"

// TestStatementForms parses one of each statement form into its AST.
func TestStatementForms(t *testing.T) {
	tests := []struct{ name, sql, want string }{
		{"create full", `CREATE TABLE IF NOT EXISTS db.trips (
			uuid STRING NOT NULL COMMENT 'the key',
			fare DECIMAL(10, 2), tags ARRAY<STRING>, m MAP<STRING, INT>,
			s STRUCT<a: INT, b STRING NOT NULL COMMENT 'x'>, l LONG, sh SHORT, by BYTE, ts TIMESTAMP, bin BINARY
		) USING HUDI
		COMMENT 'trips'
		LOCATION '/data/trips'
		TBLPROPERTIES (type = 'mor', primaryKey = 'uuid', 'hoodie.metadata.enable' = 'false', hoodie.x.y = 10, flag true)
		OPTIONS ('k' = "v")
		PARTITIONED BY (city, day)`,
			`CreateTable{IfNotExists:true Table:db.trips Columns:[ColumnDef{Name:"uuid" Type:"STRING" NotNull:true Comment:"the key"} ColumnDef{Name:"fare" Type:"DECIMAL(10,2)"} ColumnDef{Name:"tags" Type:"ARRAY<STRING>"} ColumnDef{Name:"m" Type:"MAP<STRING, INT>"} ColumnDef{Name:"s" Type:"STRUCT<a: INT, b: STRING NOT NULL COMMENT 'x'>"} ColumnDef{Name:"l" Type:"BIGINT"} ColumnDef{Name:"sh" Type:"SMALLINT"} ColumnDef{Name:"by" Type:"TINYINT"} ColumnDef{Name:"ts" Type:"TIMESTAMP"} ColumnDef{Name:"bin" Type:"BINARY"}] Using:"hudi" PartitionedBy:["city" "day"] Properties:[Property{Key:"type" Value:"mor"} Property{Key:"primaryKey" Value:"uuid"} Property{Key:"hoodie.metadata.enable" Value:"false"} Property{Key:"hoodie.x.y" Value:"10"} Property{Key:"flag" Value:"true"}] Options:[Property{Key:"k" Value:"v"}] Location:"/data/trips" Comment:"trips"}`},
		{"create nested struct with comments", "create table `my t` (\n s STRUCT<\n  f1: STRING, -- first\n  `f 2` : STRUCT< c: DOUBLE /* c */ >\n >\n) using hudi",
			"CreateTable{Table:my t Columns:[ColumnDef{Name:\"s\" Type:\"STRUCT<f1: STRING, `f 2`: STRUCT<c: DOUBLE>>\"}] Using:\"hudi\"}"},
		{"ctas", `CREATE TABLE t USING hudi TBLPROPERTIES (primaryKey = 'id') AS SELECT id, name FROM src WHERE id > 1L`,
			`CreateTable{Table:t Using:"hudi" Properties:[Property{Key:"primaryKey" Value:"id"}] AsSelect:"SELECT id, name FROM {src} WHERE id > CAST(1 AS BIGINT)"}`},
		{"ctas without AS", `CREATE TABLE t USING hudi SELECT 1 AS id`,
			`CreateTable{Table:t Using:"hudi" AsSelect:"SELECT 1 AS id"}`},
		{"create path table", "CREATE TABLE hudi.`/data/t` (id INT) USING hudi",
			`CreateTable{Table:/data/t Columns:[ColumnDef{Name:"id" Type:"INT"}] Using:"hudi"}`},
		{"insert values", `INSERT INTO t VALUES (1, "a"), (2, 'b')`,
			`Insert{Table:t Source:"VALUES (1, 'a'), (2, 'b')"}`},
		{"insert overwrite table partition cols", `INSERT OVERWRITE TABLE db.t PARTITION (region = 'eu', day) (id, name) SELECT id, name FROM s`,
			`Insert{Table:db.t Overwrite:true Partition:[PartitionValue{Column:"region" Value:"'eu'"} PartitionValue{Column:"day"}] Columns:["id" "name"] Source:"SELECT id, name FROM {s}"}`},
		{"insert with", `INSERT INTO t WITH c AS (SELECT * FROM s) SELECT * FROM c`,
			`Insert{Table:t Source:"WITH c AS (SELECT * FROM {s}) SELECT * FROM c"}`},
		{"with before insert", `WITH c AS (SELECT * FROM s) INSERT INTO t SELECT * FROM c JOIN u ON c.id = u.id`,
			`Insert{Table:t Source:"WITH c AS (SELECT * FROM {s}) SELECT * FROM c JOIN {u} ON c.id = u.id"}`},
		{"insert table", `INSERT INTO t TABLE s`, `Insert{Table:t Source:"SELECT * FROM {s}"}`},
		{"insert parenthesized query", `INSERT INTO t (SELECT * FROM s)`, `Insert{Table:t Source:"(SELECT * FROM {s})"}`},
		{"update", `UPDATE db.t AS x SET x.fare = fare * 2, city = 'sf' WHERE x.id IN (SELECT id FROM s)`,
			`Update{Table:db.t Alias:"x" Set:[Assignment{Column:"fare" Value:"fare * 2"} Assignment{Column:"city" Value:"'sf'"}] Where:"x.id IN (SELECT id FROM {s})"}`},
		{"update bare alias, table-qualified column", `UPDATE t x SET t.a = CASE WHEN b == 1 THEN 2 ELSE 3 END`,
			`Update{Table:t Alias:"x" Set:[Assignment{Column:"a" Value:"CASE WHEN b = 1 THEN 2 ELSE 3 END"}]}`},
		{"delete", `DELETE FROM t WHERE rider = "rider-J"`, `Delete{Table:t Where:"rider = 'rider-J'"}`},
		{"delete alias no where", `DELETE FROM t AS x`, `Delete{Table:t Alias:"x"}`},
		{"merge", `MERGE INTO trips AS t USING (SELECT * FROM updates WHERE ok) s ON t.id = s.id AND CASE WHEN s.x THEN true END
			WHEN MATCHED AND s.op = 'D' THEN DELETE
			WHEN MATCHED AND CASE WHEN s.y THEN true ELSE false END THEN UPDATE SET t.fare = s.fare, ts = s.ts
			WHEN MATCHED THEN UPDATE SET *
			WHEN NOT MATCHED AND s.op != 'D' THEN INSERT (id, fare) VALUES (s.id, s.fare * 1.5D)
			WHEN NOT MATCHED BY TARGET THEN INSERT *`,
			`Merge{Target:trips TargetAlias:"t" Source:"(SELECT * FROM {updates} WHERE ok)" SourceAlias:"s" On:"t.id = s.id AND CASE WHEN s.x THEN true END" Clauses:[MergeClause{Matched:true Condition:"s.op = 'D'" Action:delete} MergeClause{Matched:true Condition:"CASE WHEN s.y THEN true ELSE false END" Set:[Assignment{Column:"fare" Value:"s.fare"} Assignment{Column:"ts" Value:"s.ts"}]} MergeClause{Matched:true Star:true} MergeClause{Condition:"s.op != 'D'" Action:insert Columns:["id" "fare"] Values:["s.id" "s.fare * CAST(1.5 AS DOUBLE)"]} MergeClause{Action:insert Star:true}]}`},
		{"merge table source", `MERGE INTO t USING src TIMESTAMP AS OF '2024-01-01' AS s ON t.id = s.id WHEN MATCHED THEN DELETE`,
			`Merge{Target:t Source:"{src asof=2024-01-01}" SourceAlias:"s" On:"t.id = s.id" Clauses:[MergeClause{Matched:true Action:delete}]}`},
		{"select", `SELECT * FROM t`, `Select{Query:"SELECT * FROM {t}"}`},
		{"with select", `WITH a AS (SELECT 1) SELECT * FROM a`, `Select{Query:"WITH a AS (SELECT 1) SELECT * FROM a"}`},
		{"values", `VALUES (1), (2)`, `Select{Query:"VALUES (1), (2)"}`},
		{"from first", `FROM t SELECT a`, `Select{Query:"FROM {t} SELECT a"}`},
		{"table", `TABLE db.t`, `Select{Query:"SELECT * FROM {db.t}"}`},
		{"parenthesized", `(SELECT 1) UNION (SELECT 2)`, `Select{Query:"(SELECT 1) UNION (SELECT 2)"}`},
		{"alter add columns", `ALTER TABLE t ADD COLUMNS (a INT COMMENT 'x', b ARRAY<LONG>)`,
			`AlterAddColumns{Table:t Columns:[ColumnDef{Name:"a" Type:"INT" Comment:"x"} ColumnDef{Name:"b" Type:"ARRAY<BIGINT>"}]}`},
		{"alter add column", `ALTER TABLE t ADD COLUMN a STRING`, `AlterAddColumns{Table:t Columns:[ColumnDef{Name:"a" Type:"STRING"}]}`},
		{"alter add column first", `ALTER TABLE t ADD COLUMN a STRING FIRST`, `AlterColumns{Table:t Add:[AddColumnSpec{Name:["a"] Def:ColumnDef{Name:"a" Type:"STRING"} Position:ColumnPosition{First:true}}] Kind:"ADD COLUMNS"}`},
		// The seed's forms (schema evolution on read).
		{"alter add columns after", `ALTER TABLE h0 ADD COLUMNS(new_col int not null comment 'add new column' AFTER col1)`,
			`AlterColumns{Table:h0 Add:[AddColumnSpec{Name:["new_col"] Def:ColumnDef{Name:"new_col" Type:"INT" NotNull:true Comment:"add new column"} Position:ColumnPosition{After:"col1"}}] Kind:"ADD COLUMNS"}`},
		{"alter add nested column", `ALTER TABLE complex_table ADD COLUMNS(col_struct.col_name string comment 'add new column to a struct col' AFTER col_from_col_struct, member.value.col1 string)`,
			`AlterColumns{Table:complex_table Add:[AddColumnSpec{Name:["col_struct" "col_name"] Def:ColumnDef{Name:"col_name" Type:"STRING" Comment:"add new column to a struct col"} Position:ColumnPosition{After:"col_from_col_struct"}} AddColumnSpec{Name:["member" "value" "col1"] Def:ColumnDef{Name:"col1" Type:"STRING"}}] Kind:"ADD COLUMNS"}`},
		{"alter column type", `ALTER TABLE table1 ALTER COLUMN a.b.c TYPE bigint`, `AlterColumns{Table:table1 Alter:AlterColumnSpec{Name:["a" "b" "c"] Type:"BIGINT"} Kind:"ALTER COLUMN"}`},
		{"alter column all", `ALTER TABLE table1 ALTER a.b.c TYPE decimal(10, 2) COMMENT 'new comment' AFTER x DROP NOT NULL`,
			`AlterColumns{Table:table1 Alter:AlterColumnSpec{Name:["a" "b" "c"] Type:"DECIMAL(10,2)" Comment:"new comment" Position:ColumnPosition{After:"x"} DropNotNull:true} Kind:"ALTER COLUMN"}`},
		{"alter column first", `ALTER TABLE table1 ALTER COLUMN a.b.c FIRST`, `AlterColumns{Table:table1 Alter:AlterColumnSpec{Name:["a" "b" "c"] Position:ColumnPosition{First:true}} Kind:"ALTER COLUMN"}`},
		{"change column comment", `ALTER TABLE table1 CHANGE COLUMN c COMMENT ''`, `AlterColumns{Table:table1 Alter:AlterColumnSpec{Name:["c"] Comment:""} Kind:"ALTER COLUMN"}`},
		{"hive change column", `ALTER TABLE t CHANGE COLUMN a b INT`, `AlterTable{Table:t Text:"ALTER TABLE t CHANGE COLUMN a b INT"}`},
		{"drop column", `ALTER TABLE table1 DROP COLUMN a.b.c`, `AlterColumns{Table:table1 Drop:[["a" "b" "c"]] Kind:"DROP COLUMN"}`},
		{"drop columns", `ALTER TABLE table1 DROP COLUMNS IF EXISTS (a.b.c, x, y)`, `AlterColumns{Table:table1 Drop:[["a" "b" "c"] ["x"] ["y"]] DropIfExists:true Kind:"DROP COLUMN"}`},
		{"rename column", `ALTER TABLE table1 RENAME COLUMN a.b.c TO x`, `AlterColumns{Table:table1 RenameFrom:["a" "b" "c"] RenameTo:"x" Kind:"RENAME COLUMN"}`},
		{"replace columns", `ALTER TABLE t REPLACE COLUMNS (a INT)`, `AlterTable{Table:t Text:"ALTER TABLE t REPLACE COLUMNS (a INT)"}`},
		{"alter rename", `ALTER TABLE t RENAME TO u`, `AlterRename{Table:t To:u}`},

		{"alter set props", `ALTER TABLE t SET TBLPROPERTIES ('hoodie.x' = '1', comment = 'c')`, `AlterProps{Table:t Props:[Property{Key:"hoodie.x" Value:"1"} Property{Key:"comment" Value:"c"}]}`},
		{"alter unset props", `ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('hoodie.x', y.z)`, `AlterProps{Table:t Unset:true IfExists:true Props:[Property{Key:"hoodie.x"} Property{Key:"y.z"}]}`},
		{"alter drop partition", `ALTER TABLE t DROP IF EXISTS PARTITION (city = 'sf'), PARTITION (city = 'la')`, `AlterDropPartition{Table:t IfExists:true Partitions:[[PartitionValue{Column:"city" Value:"'sf'"}] [PartitionValue{Column:"city" Value:"'la'"}]]}`},
		{"create like", `CREATE TABLE IF NOT EXISTS u LIKE db.t USING hudi LOCATION '/x' TBLPROPERTIES (type = 'mor')`, `CreateLike{IfNotExists:true Table:u Source:db.t Location:"/x" Properties:[Property{Key:"type" Value:"mor"}]}`},
		{"create database", `CREATE DATABASE IF NOT EXISTS db COMMENT 'c'`, `CreateDatabase{Name:"db" IfNotExists:true}`},
		{"drop database", `DROP SCHEMA IF EXISTS db CASCADE`, `DropDatabase{Name:"db" IfExists:true Cascade:true}`},
		{"show tblproperties", `SHOW TBLPROPERTIES t ('primaryKey')`, `Show{What:"TBLPROPERTIES" Table:t Key:"primaryKey"}`},
		{"show create table", `SHOW CREATE TABLE db.t`, `Show{What:"CREATE TABLE" Table:db.t}`},
		{"show columns", `SHOW COLUMNS IN t IN db`, `Show{What:"COLUMNS" Table:t Database:"db"}`},
		{"show databases", `SHOW DATABASES LIKE 'd*'`, `Show{What:"DATABASES" Like:"d*"}`},
		{"show tables", `SHOW TABLES`, `ShowTables{}`},
		{"show tables in like", `SHOW TABLES IN db LIKE 'tr*'`, `ShowTables{Database:"db" Like:"tr*"}`},
		{"show partitions", `SHOW PARTITIONS t`, `Show{What:"PARTITIONS" Table:t}`},
		{"describe", `DESCRIBE t`, `Describe{Table:t}`},
		{"desc table extended", `DESC TABLE EXTENDED db.t`, `Describe{Table:db.t}`},
		{"desc extended", `desc extended t`, `Describe{Table:t}`},
		{"call named", `call rollback_to_instant(table => 'v6', instant_time => '20250126035006837')`,
			`Call{Procedure:"rollback_to_instant" Args:[CallArg{Name:"table" Value:"v6"} CallArg{Name:"instant_time" Value:"20250126035006837"}]}`},
		{"call positional", `CALL System.Show_Commits('t', 10, true, -1, map('a', 1))`,
			`Call{Procedure:"system.show_commits" Args:[CallArg{Value:"t"} CallArg{Value:"10"} CallArg{Value:"true"} CallArg{Value:"-1"} CallArg{Value:"map('a', 1)"}]}`},
		{"call no args", `CALL p()`, `Call{Procedure:"p"}`},
		{"set raw", `SET hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider`,
			`Set{Key:"hoodie.write.lock.provider" Value:"org.apache.hudi.client.transaction.lock.InProcessLockProvider"}`},
		{"set quoted", `SET spark.sql.session.timeZone = 'America/Los_Angeles'`, `Set{Key:"spark.sql.session.timeZone" Value:"America/Los_Angeles"}`},
		{"set raw with odd characters", `SET a.b = x$y (z`, `Set{Key:"a.b" Value:"x$y (z"}`},
		{"set time zone", `SET TIME ZONE 'UTC'`, `Set{Key:"spark.sql.session.timeZone" Value:"UTC"}`},
		{"set list", `SET`, `Unsupported{Kind:"SET" Text:"SET"}`},
		{"use", `use db`, `Use{Database:"db"}`},
		{"use database", "USE DATABASE `my db`", `Use{Database:"my db"}`},
		{"drop", `DROP TABLE IF EXISTS db.t PURGE`, `DropTable{IfExists:true Table:db.t Purge:true}`},
		{"drop plain", `DROP TABLE t`, `DropTable{Table:t}`},
		{"create index", `CREATE INDEX idx ON t (c)`, `Unsupported{Kind:"CREATE INDEX" Text:"CREATE INDEX idx ON t (c)"}`},
		{"create view", `CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 1`, `Unsupported{Kind:"CREATE VIEW" Text:"CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 1"}`},
		{"drop index", `DROP INDEX idx ON t`, `Unsupported{Kind:"DROP INDEX" Text:"DROP INDEX idx ON t"}`},
		{"truncate", `TRUNCATE TABLE t PARTITION (city = 'sf')`, `Truncate{Table:t Partition:[PartitionValue{Column:"city" Value:"'sf'"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stmts, err := Parse(tc.sql)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.sql, err)
			}
			if len(stmts) != 1 {
				t.Fatalf("Parse(%q): %d statements, want 1", tc.sql, len(stmts))
			}
			if got := show(stmts[0]); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.sql, got, tc.want)
			}
		})
	}
}

// TestScriptSplitting checks ';' splits only outside strings and comments, empty
// statements are skipped and positions are the statements' own.
func TestScriptSplitting(t *testing.T) {
	script := "/* license; with ; */\n-- a comment; still\nSET a = 'x;y';;\n\n  SELECT ';' AS s /* ; */ ; ;\nuse db"
	stmts, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range stmts {
		got = append(got, show(s))
	}
	want := []string{`Set{Key:"a" Value:"x;y"}`, `Select{Query:"SELECT ';' AS s"}`, `Use{Database:"db"}`}
	if len(got) != len(want) {
		t.Fatalf("got %d statements %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("statement %d: got %s, want %s", i, got[i], want[i])
		}
	}
	wantPos := []Pos{{3, 1}, {5, 3}, {6, 1}}
	for i, s := range stmts {
		if s.Position() != wantPos[i] {
			t.Errorf("statement %d at %v, want %v", i, s.Position(), wantPos[i])
		}
	}
	for _, empty := range []string{"", ";", " ;; ", "-- only a comment", "/* x */ ;"} {
		if stmts, err := Parse(empty); err != nil || len(stmts) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no statements", empty, stmts, err)
		}
	}
}
