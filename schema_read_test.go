package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
)

// scanJSON runs a scan and returns its rows (meta columns dropped) as canonical JSON
// lines, sorted, plus the output column names.
func scanJSON(t *testing.T, tb *hudi.Table, o hudi.ScanOptions) ([]string, []string) {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.OpenStorage(ctx, tb.Storage())
	if err != nil {
		t.Fatal(err)
	}
	scan, err := tb.Scan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range scan.Schema().Fields() {
		if !strings.HasPrefix(f.Name, "_hoodie_") {
			cols = append(cols, f.Name)
		}
	}
	var buf bytes.Buffer
	enc := jsonl.NewEncoder(&buf, jsonl.Options{DropMetaColumns: true})
	if err := scan.Run(ctx, func(r arrow.Record) error { return enc.WriteRecord(r) }); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines, cols
}

func checkScan(t *testing.T, what string, tb *hudi.Table, o hudi.ScanOptions, wantCols string, want ...string) {
	t.Helper()
	got, cols := scanJSON(t, tb, o)
	if c := strings.Join(cols, ","); c != wantCols {
		t.Errorf("%s: columns %s, want %s", what, c, wantCols)
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %s\nwant %s", what, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// dataBatches decodes rows with the table's current columns (no meta columns).
func dataBatches(t *testing.T, tb *hudi.Table, rows []row) []arrow.Record {
	t.Helper()
	return batchesOf(t, tb, rows)
}

func mustAlter(t *testing.T, tb *hudi.Table, at string, c hudi.SchemaChange) string {
	t.Helper()
	res, err := tb.AlterSchema(context.Background(), c, hudi.WriteOptions{Now: clockAt(t, at)})
	if err != nil {
		t.Fatalf("alter at %s: %v", at, err)
	}
	return res.Instant
}

func mustWrite(t *testing.T, tb *hudi.Table, at, op string, rows []row) string {
	t.Helper()
	res, err := tb.Write(context.Background(), dataBatches(t, tb, rows), hudi.WriteOptions{Operation: op, Now: clockAt(t, at)})
	if err != nil {
		t.Fatalf("%s at %s: %v", op, at, err)
	}
	return res.Instant
}

// TestSchemaOnReadResolvesByID: after each ALTER, snapshot reads (and, on MOR, log
// blocks written under an older schema) resolve columns by id: a renamed column reads
// its old data, a dropped one disappears, one re-added under a dropped name reads null
// for old rows, type changes convert, reorders show; time travel reads with the schema of
// its instant; incremental reads with the latest.
func TestSchemaOnReadResolvesByID(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			tb, err := hudi.Create(ctx, t.TempDir()+"/t", hudi.CreateOptions{Name: "t", Type: typ, RecordKeyFields: []string{"id"}, PrecombineField: "ts",
				Schema:   "id INT, name STRING, price DOUBLE, ts BIGINT, info STRUCT<a: INT, b: STRING>, qty INT",
				Settings: map[string]string{"hoodie.table.timeline.timezone": "UTC"}})
			if err != nil {
				t.Fatal(err)
			}
			c1 := mustWrite(t, tb, "20240101000000001", "insert", []row{
				{"id": 1, "name": "a", "price": 1.5, "ts": 1, "info": row{"a": 10, "b": "x"}, "qty": 5},
				{"id": 2, "name": "b", "price": 2.5, "ts": 1, "info": row{"a": 20, "b": "y"}, "qty": 7}})
			// On MOR this is a log block written under the first schema.
			c2 := mustWrite(t, tb, "20240101000000002", "upsert", []row{
				{"id": 2, "name": "b2", "price": 2.75, "ts": 2, "info": row{"a": 21, "b": "y2"}, "qty": 8}})
			mustAlter(t, tb, "20240101000000003", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "name", Rename: "full_name"}}})
			checkScan(t, "after rename", tb, hudi.ScanOptions{}, "id,full_name,price,ts,info,qty",
				`{"id":1,"full_name":"a","price":1.5,"ts":1,"info":{"a":10,"b":"x"},"qty":5}`,
				`{"id":2,"full_name":"b2","price":2.75,"ts":2,"info":{"a":21,"b":"y2"},"qty":8}`)
			a4 := mustAlter(t, tb, "20240101000000004", hudi.SchemaChange{Delete: []string{"price"}})
			mustAlter(t, tb, "20240101000000005", hudi.SchemaChange{Add: []internalschema.AddColumn{{Name: "price", Type: internalType(t, "string")}}})
			checkScan(t, "price re-added", tb, hudi.ScanOptions{}, "id,full_name,ts,info,qty,price",
				`{"id":1,"full_name":"a","ts":1,"info":{"a":10,"b":"x"},"qty":5,"price":null}`,
				`{"id":2,"full_name":"b2","ts":2,"info":{"a":21,"b":"y2"},"qty":8,"price":null}`)
			mustAlter(t, tb, "20240101000000006", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "info.a", Type: internalType(t, "bigint")}}})
			mustAlter(t, tb, "20240101000000007", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "qty", Type: internalType(t, "decimal(10,2)")}}})
			mustAlter(t, tb, "20240101000000008", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "ts",
				Position: internalschema.Position{Kind: internalschema.After, Ref: "id"}}}})
			mustAlter(t, tb, "20240101000000009", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "info.b", Rename: "bb"}}})
			cols := "id,ts,full_name,info,qty,price"
			checkScan(t, "after type changes and reorder", tb, hudi.ScanOptions{}, cols,
				`{"id":1,"ts":1,"full_name":"a","info":{"a":10,"bb":"x"},"qty":"5.00","price":null}`,
				`{"id":2,"ts":2,"full_name":"b2","info":{"a":21,"bb":"y2"},"qty":"8.00","price":null}`)
			// A write under the newest schema, over files of older ones (COW: the merge
			// reads the old base file by id; MOR: a log block of the new schema).
			c10 := mustWrite(t, tb, "20240101000000010", "upsert", []row{
				{"id": 1, "ts": 3, "full_name": "a3", "info": row{"a": 1 << 40, "bb": "x3"}, "qty": "1.25", "price": "p"},
				{"id": 3, "ts": 3, "full_name": "c", "info": row{"a": 30, "bb": "z"}, "qty": "3.50", "price": "q"}})
			checkScan(t, "after a write of the new schema", tb, hudi.ScanOptions{}, cols,
				`{"id":1,"ts":3,"full_name":"a3","info":{"a":1099511627776,"bb":"x3"},"qty":"1.25","price":"p"}`,
				`{"id":2,"ts":2,"full_name":"b2","info":{"a":21,"bb":"y2"},"qty":"8.00","price":null}`,
				`{"id":3,"ts":3,"full_name":"c","info":{"a":30,"bb":"z"},"qty":"3.50","price":"q"}`)
			// Time travel reads with the schema of its instant.
			checkScan(t, "time travel to the first commit", tb, hudi.ScanOptions{AsOf: c1}, "id,name,price,ts,info,qty",
				`{"id":1,"name":"a","price":1.5,"ts":1,"info":{"a":10,"b":"x"},"qty":5}`,
				`{"id":2,"name":"b","price":2.5,"ts":1,"info":{"a":20,"b":"y"},"qty":7}`)
			checkScan(t, "time travel to the drop", tb, hudi.ScanOptions{AsOf: a4}, "id,full_name,ts,info,qty",
				`{"id":1,"full_name":"a","ts":1,"info":{"a":10,"b":"x"},"qty":5}`,
				`{"id":2,"full_name":"b2","ts":2,"info":{"a":21,"b":"y2"},"qty":8}`)
			checkScan(t, "incremental since the second commit", tb, hudi.ScanOptions{Incremental: true, Begin: c2, End: c10}, cols,
				`{"id":1,"ts":3,"full_name":"a3","info":{"a":1099511627776,"bb":"x3"},"qty":"1.25","price":"p"}`,
				`{"id":3,"ts":3,"full_name":"c","info":{"a":30,"bb":"z"},"qty":"3.50","price":"q"}`)
			latest := []string{
				`{"id":1,"ts":3,"full_name":"a3","info":{"a":1099511627776,"bb":"x3"},"qty":"1.25","price":"p"}`,
				`{"id":2,"ts":2,"full_name":"b2","info":{"a":21,"bb":"y2"},"qty":"8.00","price":null}`,
				`{"id":3,"ts":3,"full_name":"c","info":{"a":30,"bb":"z"},"qty":"3.50","price":"q"}`}
			// Compaction and clustering rewrite the files in the latest schema; reads stay.
			if typ == "mor" {
				if _, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Now: clockAt(t, "20240101000000011")}); err != nil {
					t.Fatal(err)
				}
				checkScan(t, "after compaction", tb, hudi.ScanOptions{}, cols, latest...)
				checkScan(t, "read-optimized after compaction", tb, hudi.ScanOptions{ReadOptimized: true}, cols, latest...)
			}
			cr, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true, Now: clockAt(t, "20240101000000012"),
				Settings: map[string]string{"hoodie.clustering.plan.strategy.small.file.limit": "1073741824"}})
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(cr); !strings.Contains(string(b), "20240101000000012") {
				t.Fatalf("clustering did not run: %s", b)
			}
			checkScan(t, "after clustering", tb, hudi.ScanOptions{}, cols, latest...)
			checkScan(t, "time travel to the first commit after the services", tb, hudi.ScanOptions{AsOf: c1}, "id,name,price,ts,info,qty",
				`{"id":1,"name":"a","price":1.5,"ts":1,"info":{"a":10,"b":"x"},"qty":5}`,
				`{"id":2,"name":"b","price":2.5,"ts":1,"info":{"a":20,"b":"y"},"qty":7}`)
		})
	}
}

// batchesDDL decodes rows with the columns of a DDL (an input whose schema differs from
// the table's).
func batchesDDL(t *testing.T, ddl string, rows []row) []arrow.Record {
	t.Helper()
	sc, err := schema.ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	var out []arrow.Record
	for rec, err := range jsonl.Decode(&buf, sc, memory.DefaultAllocator, 0) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// latestSchemaOf returns the latest_schema a completed instant recorded ("" if none).
func latestSchemaOf(t *testing.T, tb *hudi.Table, instant string) string {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.OpenStorage(ctx, tb.Storage())
	if err != nil {
		t.Fatal(err)
	}
	in, ok := tb.Timeline().CompletedDataInstant(spec.InstantTime(instant))
	if !ok {
		t.Fatalf("instant %s is not completed", instant)
	}
	cm, err := tb.CommitMetadata(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return cm.ExtraMetadata[internalschema.LatestSchemaKey]
}

// TestSchemaOnReadWritesEvolve: once a table has an InternalSchema, every write records
// latest_schema and a schema history file (Java's BaseHoodieWriteClient.saveInternalSchema
// with hoodie.schema.on.read.enable), and a write whose rows carry an evolved schema
// evolves it as AvroSchemaEvolutionUtils.reconcileSchema does: the seed's example (a new
// column and int → long) after a rename, a new column given before existing ones placed
// there, and a column named like a dropped one taking a new id, so older rows read null
// for it, never the dropped data. hoodie.schema.on.read.enable=false is then refused.
func TestSchemaOnReadWritesEvolve(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			tb, err := hudi.Create(ctx, t.TempDir()+"/t", hudi.CreateOptions{Name: "hudi_trips", Type: typ, RecordKeyFields: []string{"rowId"},
				PrecombineField: "preComb", PartitionFields: []string{"partitionId"},
				Schema:   "rowId STRING, partitionId STRING, preComb BIGINT, name STRING, versionId STRING, intToLong INT",
				Settings: map[string]string{"hoodie.table.timeline.timezone": "UTC"}})
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, tb, "20240101000000001", "upsert", []row{
				{"rowId": "row_1", "partitionId": "part_0", "preComb": 0, "name": "bob", "versionId": "v_0", "intToLong": 0},
				{"rowId": "row_2", "partitionId": "part_0", "preComb": 0, "name": "john", "versionId": "v_0", "intToLong": 0},
				{"rowId": "row_3", "partitionId": "part_0", "preComb": 0, "name": "tom", "versionId": "v_0", "intToLong": 0}})
			mustAlter(t, tb, "20240101000000002", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "name", Rename: "full_name"}}})
			// The seed's second write, under the renamed column: intToLong int → long and a
			// new column newField.
			on := map[string]string{"hoodie.schema.on.read.enable": "true"}
			w3, err := tb.Write(ctx, batchesDDL(t, "rowId STRING, partitionId STRING, preComb BIGINT, full_name STRING, versionId STRING, intToLong BIGINT, newField STRING", []row{
				{"rowId": "row_2", "partitionId": "part_0", "preComb": 5, "full_name": "john", "versionId": "v_3", "intToLong": 3, "newField": "newField_1"},
				{"rowId": "row_5", "partitionId": "part_0", "preComb": 5, "full_name": "maroon", "versionId": "v_2", "intToLong": 2, "newField": "newField_1"},
				{"rowId": "row_9", "partitionId": "part_0", "preComb": 5, "full_name": "michael", "versionId": "v_2", "intToLong": 2, "newField": "newField_1"}}),
				hudi.WriteOptions{Operation: "upsert", Settings: on, Now: clockAt(t, "20240101000000003")})
			if err != nil {
				t.Fatal(err)
			}
			cols := "rowId,partitionId,preComb,full_name,versionId,intToLong,newField"
			checkScan(t, "the seed's example", tb, hudi.ScanOptions{}, cols,
				`{"rowId":"row_1","partitionId":"part_0","preComb":0,"full_name":"bob","versionId":"v_0","intToLong":0,"newField":null}`,
				`{"rowId":"row_2","partitionId":"part_0","preComb":5,"full_name":"john","versionId":"v_3","intToLong":3,"newField":"newField_1"}`,
				`{"rowId":"row_3","partitionId":"part_0","preComb":0,"full_name":"tom","versionId":"v_0","intToLong":0,"newField":null}`,
				`{"rowId":"row_5","partitionId":"part_0","preComb":5,"full_name":"maroon","versionId":"v_2","intToLong":2,"newField":"newField_1"}`,
				`{"rowId":"row_9","partitionId":"part_0","preComb":5,"full_name":"michael","versionId":"v_2","intToLong":2,"newField":"newField_1"}`)
			ls := latestSchemaOf(t, tb, w3.Instant)
			for _, want := range []string{`"version-id":20240101000000003`, `"name":"intToLong","optional":true,"type":"long"`, `{"id":11,"name":"newField","optional":true,"type":"string"}`} {
				if !strings.Contains(ls, want) {
					t.Errorf("latest_schema of the evolving write lacks %s:\n%s", want, ls)
				}
			}
			if _, err := os.Stat(filepath.Join(tb.Storage().Root(), ".hoodie", ".schema", w3.Instant+".schemacommit")); err != nil {
				t.Errorf("no schema history file for the write: %v", err)
			}

			// A plain write (no new columns) records the current version unchanged.
			w4 := mustWrite(t, tb, "20240101000000004", "upsert", []row{
				{"rowId": "row_3", "partitionId": "part_0", "preComb": 6, "full_name": "tom4", "versionId": "v_4", "intToLong": 4, "newField": "n4"}})
			if got := latestSchemaOf(t, tb, w4); got != ls {
				t.Errorf("latest_schema of a plain write:\n got %s\nwant %s", got, ls)
			}

			// Drop versionId, then write it again (a new id: old rows read null) with a new
			// column placed before preComb.
			mustAlter(t, tb, "20240101000000005", hudi.SchemaChange{Delete: []string{"versionId"}})
			if _, err := tb.Write(ctx, batchesDDL(t, "rowId STRING, partitionId STRING, extra INT, preComb BIGINT, full_name STRING, intToLong BIGINT, newField STRING, versionId STRING", []row{
				{"rowId": "row_1", "partitionId": "part_0", "extra": 7, "preComb": 9, "full_name": "bob6", "intToLong": 6, "newField": "n6", "versionId": "new_6"}}),
				hudi.WriteOptions{Operation: "upsert", Now: clockAt(t, "20240101000000006")}); err != nil {
				t.Fatal(err)
			}
			checkScan(t, "a dropped name written again, a column placed before preComb", tb, hudi.ScanOptions{},
				"rowId,partitionId,extra,preComb,full_name,intToLong,newField,versionId",
				`{"rowId":"row_1","partitionId":"part_0","extra":7,"preComb":9,"full_name":"bob6","intToLong":6,"newField":"n6","versionId":"new_6"}`,
				`{"rowId":"row_2","partitionId":"part_0","extra":null,"preComb":5,"full_name":"john","intToLong":3,"newField":"newField_1","versionId":null}`,
				`{"rowId":"row_3","partitionId":"part_0","extra":null,"preComb":6,"full_name":"tom4","intToLong":4,"newField":"n4","versionId":null}`,
				`{"rowId":"row_5","partitionId":"part_0","extra":null,"preComb":5,"full_name":"maroon","intToLong":2,"newField":"newField_1","versionId":null}`,
				`{"rowId":"row_9","partitionId":"part_0","extra":null,"preComb":5,"full_name":"michael","intToLong":2,"newField":"newField_1","versionId":null}`)
			checkScan(t, "time travel before the drop", tb, hudi.ScanOptions{AsOf: w4}, cols,
				`{"rowId":"row_1","partitionId":"part_0","preComb":0,"full_name":"bob","versionId":"v_0","intToLong":0,"newField":null}`,
				`{"rowId":"row_2","partitionId":"part_0","preComb":5,"full_name":"john","versionId":"v_3","intToLong":3,"newField":"newField_1"}`,
				`{"rowId":"row_3","partitionId":"part_0","preComb":6,"full_name":"tom4","versionId":"v_4","intToLong":4,"newField":"n4"}`,
				`{"rowId":"row_5","partitionId":"part_0","preComb":5,"full_name":"maroon","versionId":"v_2","intToLong":2,"newField":"newField_1"}`,
				`{"rowId":"row_9","partitionId":"part_0","preComb":5,"full_name":"michael","versionId":"v_2","intToLong":2,"newField":"newField_1"}`)

			// Disabling the feature is refused, and nothing is committed.
			_, err = tb.Write(ctx, dataBatches(t, tb, []row{{"rowId": "row_1", "partitionId": "part_0", "preComb": 10}}),
				hudi.WriteOptions{Operation: "upsert", Settings: map[string]string{"hoodie.schema.on.read.enable": "false", "hoodie.write.set.null.for.missing.columns": "true"},
					Now: clockAt(t, "20240101000000007")})
			if err == nil || !strings.Contains(err.Error(), "hoodie.schema.on.read.enable=false") {
				t.Fatalf("write with hoodie.schema.on.read.enable=false: %v", err)
			}
		})
	}
}

// TestSchemaOnReadFilterPrunesByID: row-group pruning looks a filter column up in each
// base file by id: the statistics of a dropped column whose name was taken again, or of a
// re-typed one, never prune (they describe other data), and a renamed column prunes by
// its old name.
func TestSchemaOnReadFilterPrunesByID(t *testing.T) {
	ctx := context.Background()
	tb, err := hudi.Create(ctx, t.TempDir()+"/t", hudi.CreateOptions{Name: "t", Type: "cow", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		Schema:   "id INT, name STRING, price DOUBLE, qty INT, ts BIGINT",
		Settings: map[string]string{"hoodie.table.timeline.timezone": "UTC"}})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, tb, "20240101000000001", "insert", []row{
		{"id": 1, "name": "a", "price": 1.5, "qty": 5, "ts": 1},
		{"id": 2, "name": "b", "price": 2.5, "qty": 7, "ts": 1}})
	mustAlter(t, tb, "20240101000000002", hudi.SchemaChange{Delete: []string{"price"}})
	mustAlter(t, tb, "20240101000000003", hudi.SchemaChange{Add: []internalschema.AddColumn{{Name: "price", Type: internalType(t, "double")}}})
	mustAlter(t, tb, "20240101000000004", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "qty", Type: internalType(t, "bigint")}}})
	mustAlter(t, tb, "20240101000000005", hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: "name", Rename: "full_name"}}})
	cols := "id,full_name,qty,ts,price"
	a := `{"id":1,"full_name":"a","qty":5,"ts":1,"price":null}`
	b := `{"id":2,"full_name":"b","qty":7,"ts":1,"price":null}`
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"price is null", []string{a, b}},
		{"price < 100", nil},
		{"qty = 5", []string{a}},
		{"qty > 6", []string{b}},
		{"full_name = 'b'", []string{b}},
		{"full_name = 'zz'", nil},
	} {
		checkScan(t, "filter "+tc.filter, tb, hudi.ScanOptions{Filter: tc.filter}, cols, tc.want...)
	}
}
