package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/testutil"
)

type row = map[string]any

// readRows returns the table's snapshot as user-column rows keyed by record key field.
func readRows(t *testing.T, tb *hudi.Table, key string) map[string]row {
	t.Helper()
	return readRowsOnce(t, tb, key, false)
}

// scanRows is readRows that fails on a key read twice.
func scanRows(t *testing.T, tb *hudi.Table, key string) map[string]row {
	t.Helper()
	return readRowsOnce(t, tb, key, true)
}

// readRowsOnce scans the snapshot into rows keyed by key; with unique, a key read twice
// fails the test.
func readRowsOnce(t *testing.T, tb *hudi.Table, key string, unique bool) map[string]row {
	t.Helper()
	ctx := context.Background()
	scan, err := tb.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := jsonl.NewEncoder(&buf, jsonl.Options{DropMetaColumns: true})
	if err := scan.Run(ctx, func(r arrow.Record) error { return enc.WriteRecord(r) }); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	out := map[string]row{}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	for dec.More() {
		var r row
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		k := string(mustJSON(r[key]))
		if _, dup := out[k]; dup && unique {
			t.Errorf("key %s read twice", k)
		}
		out[k] = r
	}
	return out
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// batchesOf encodes rows in the canonical encoding and decodes them with the table schema.
func batchesOf(t *testing.T, tb *hudi.Table, rows []row) []arrow.Record {
	t.Helper()
	avro, err := tb.SchemaAt(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.FromAvro(avro)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, r := range rows {
		buf.Write(mustJSON(r))
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

func sameRows(t *testing.T, what string, got, want map[string]row) {
	t.Helper()
	canon := func(m map[string]row) string {
		var lines []string
		for _, r := range m {
			lines = append(lines, string(mustJSON(r)))
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	if g, w := canon(got), canon(want); g != w {
		t.Errorf("%s: table differs from the model\n got:\n%s\nwant:\n%s", what, g, w)
	}
}

// Upsert, delete and insert_overwrite on copies of Spark-written v6 copy-on-write and
// merge-on-read tables read back equal to a model, and keep the table's settings.
func TestWritesOnSparkTables(t *testing.T) {
	for i, tc := range []struct {
		id, key, ordering string
		mutate            string // a non-key column the upsert changes
		numeric           bool   // mutate is numeric: set to a number, not a string
		newKey            any    // the inserted row's key value
	}{
		{"cow/v6_nonpartitioned", "id", "longField", "name", false, json.Number("424242")},
		{"cow/v6_simplekeygen_nonhivestyle", "id", "longField", "name", false, json.Number("424242")},
		{"cow/v6_simplekeygen_nonhivestyle_overwritetable", "id", "longField", "name", false, json.Number("424242")},
		// hoodie.populate.meta.fields=false: stored keys are rebuilt from id.
		{"cow/v6_simplekeygen_hivestyle_no_metafields", "id", "longField", "name", false, json.Number("424242")},
		{"mor-parquet/v6_nonpartitioned", "id", "longField", "name", false, json.Number("424242")},
		{"mor-parquet/v6_nonpartitioned_rollback", "id", "longField", "name", false, json.Number("424242")},
		{"mor-parquet/v6_simplekeygen_nonhivestyle", "id", "longField", "name", false, json.Number("424242")},
		// Record key id,name and two partition fields: the upsert changes intField.
		{"mor-parquet/v6_complexkeygen_hivestyle", "id", "longField", "intField", true, json.Number("424242")},
		{"trips-mor-avro/v6_trips_8i1u", "uuid", "ts", "rider", false, "uuid-new-424242"},
		// Table versions 8 and 9 (Hudi 1.x, timeline layout 2), copy-on-write with Parquet
		// base files: merge mode EVENT_TIME_ORDERING; the tables with a metadata table have
		// it dropped by the first write.
		{"cow/v8_nonpartitioned", "id", "longField", "name", false, json.Number("424242")},
		{"cow/v8_simplekeygen_nonhivestyle", "id", "longField", "name", false, json.Number("424242")},
		{"cow/v8_complexkeygen_hivestyle", "id", "longField", "intField", true, json.Number("424242")},
		{"cow/v9_txns_simple_nometa", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"cow/v9_txns_nonpart_nometa", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"cow/v9_txns_simple_meta", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"cow/v9_txns_complex_meta", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"cow/v9_txns_simple_overwrite", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		// Merge-on-read on versions 8 and 9: logs named by their deltacommit, compaction.
		{"mor-avro/v9_txns_simple_nometa", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"mor-avro/v9_txns_nonpart_nometa", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"mor-avro/v9_txns_complex_nometa", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"mor-avro/v9_txns_complex_meta", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"mor-avro/v9_txns_nonpart_meta", "txn_id", "txn_ts", "merchant_name", false, "txn-new-424242"},
		{"trips-mor-avro/v8_trips_8i3u1d", "uuid", "ts", "rider", false, "uuid-new-424242"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			testutil.RaceSample(t, i)
			ctx := context.Background()
			dir := testutil.Table(t, tc.id)
			propsBefore, _ := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			model := readRows(t, tb, tc.key)
			if len(model) == 0 {
				t.Fatal("fixture snapshot is empty")
			}
			var some row
			for _, r := range model {
				some = r
				break
			}
			// 1. upsert: change every stored row and add a new one.
			var in []row
			for k, r := range model {
				u := row{}
				for c, v := range r {
					u[c] = v
				}
				u[tc.mutate] = "changed-" + k
				if tc.numeric {
					u[tc.mutate] = json.Number(fmt.Sprint(700000 + len(in)))
				}
				in = append(in, u)
				model[k] = u
			}
			n := row{}
			for c, v := range some {
				n[c] = v
			}
			n[tc.key] = tc.newKey
			n[tc.mutate] = "new"
			if tc.numeric {
				n[tc.mutate] = json.Number("424242")
			}
			in = append(in, n)
			model[string(mustJSON(n[tc.key]))] = n
			res, err := tb.Write(ctx, batchesOf(t, tb, in), hudi.WriteOptions{Operation: "upsert"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Records.Updated != int64(len(in)-1) || res.Records.Inserted != 1 {
				t.Errorf("upsert counts: %+v", res.Records)
			}
			tb, _ = hudi.Open(ctx, dir)
			sameRows(t, "after upsert", readRows(t, tb, tc.key), model)
			if tb.Type() == "MERGE_ON_READ" && tb.Version() >= 8 {
				// Compaction merges the logs just written (named by their deltacommit).
				if _, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true}); err != nil {
					t.Fatal(err)
				}
				tb, _ = hudi.Open(ctx, dir)
				sameRows(t, "after compaction", readRows(t, tb, tc.key), model)
			}

			// 2. delete the new row and one old one.
			del := []row{n, some}
			delete(model, string(mustJSON(n[tc.key])))
			delete(model, string(mustJSON(some[tc.key])))
			if _, err := tb.Write(ctx, batchesOf(t, tb, del), hudi.WriteOptions{Operation: "delete"}); err != nil {
				t.Fatal(err)
			}
			tb, _ = hudi.Open(ctx, dir)
			sameRows(t, "after delete", readRows(t, tb, tc.key), model)

			// 3. insert_overwrite with one row: its partition is replaced.
			ow := row{}
			for c, v := range some {
				ow[c] = v
			}
			ow[tc.mutate] = "overwritten"
			if tc.numeric {
				ow[tc.mutate] = json.Number("-1")
			}
			owPartition := partitionOf(tb, ow)
			for k, r := range model {
				if partitionOf(tb, r) == owPartition {
					delete(model, k)
				}
			}
			model[string(mustJSON(ow[tc.key]))] = ow
			if _, err := tb.Write(ctx, batchesOf(t, tb, []row{ow}), hudi.WriteOptions{Operation: "insert_overwrite"}); err != nil {
				t.Fatal(err)
			}
			tb, _ = hudi.Open(ctx, dir)
			sameRows(t, "after insert_overwrite", readRows(t, tb, tc.key), model)

			// The writes built the table's metadata table (Hudi's default) where it had
			// none, and kept Spark's current (versions 8/9: files and record_index kept,
			// the partitions hudi-go does not maintain dropped, TestLayoutTwoKeepsSparkMetadataTable).
			// hoodie.properties changed only in that.
			propsAfter, _ := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
			if got, want := propsWithout(t, propsAfter), propsWithout(t, propsBefore); got != want {
				t.Errorf("hoodie.properties changed:\n%s\n---\n%s", want, got)
			}
			validateMDT(t, dir, "after the writes")
			if !strings.Contains(string(propsAfter), "hoodie.table.metadata.partitions=files\n") &&
				!strings.Contains(string(propsAfter), "hoodie.table.metadata.partitions=files,record_index\n") {
				t.Errorf("hoodie.properties does not name the files partition:\n%s", propsAfter)
			}
		})
	}
}

// propsWithout is a properties file's key=value lines, sorted, without the comment lines,
// the checksum and the metadata-table keys a write adds.
func propsWithout(t *testing.T, b []byte) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "hoodie.table.checksum=") || strings.HasPrefix(l, "hoodie.table.metadata.partitions") {
			continue
		}
		out = append(out, l)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// partitionOf is a row's partition: its partition fields' values, which for the fixture
// tables used here (simple and complex key generators) decide the partition path.
func partitionOf(tb *hudi.Table, r row) string {
	var vals []string
	for _, f := range tb.Config().PartitionFields() {
		vals = append(vals, string(mustJSON(r[f])))
	}
	return strings.Join(vals, "/")
}

// A write with hoodie.metadata.enable=false to a table with a metadata table first disables
// and deletes it (as Java does), so Java readers, which would list files through it, see
// our files.
func TestWriteDisablesMetadataTable(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Table(t, "cow/v6_nonpartitioned")
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// The rows before: read now, the placeholder metadata table below is not readable.
	model := readRows(t, tb, "id")
	// Give the Spark table a metadata table, as a Hudi writer with the MDT enabled would.
	os.MkdirAll(filepath.Join(dir, ".hoodie", "metadata", ".hoodie"), 0o755)
	os.WriteFile(filepath.Join(dir, ".hoodie", "metadata", ".hoodie", "hoodie.properties"), []byte("hoodie.table.name=x_metadata\n"), 0o644)
	if err := openMeta(t, tb).UpdateProperties(ctx, func(p *props.Properties) { p.Set("hoodie.table.metadata.partitions", "files") }, time.Now()); err != nil {
		t.Fatal(err)
	}
	tb, _ = hudi.Open(ctx, dir)
	var some row
	for _, r := range model {
		some = r
		break
	}
	u := row{}
	for c, v := range some {
		u[c] = v
	}
	u["name"] = "after-mdt"
	model[string(mustJSON(u["id"]))] = u
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{u}), hudi.WriteOptions{Settings: map[string]string{"hoodie.metadata.enable": "false"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", "metadata")); !os.IsNotExist(err) {
		t.Error(".hoodie/metadata survived the write")
	}
	tb, _ = hudi.Open(ctx, dir)
	if p := tb.Config().MetadataPartitions(); len(p) != 0 {
		t.Errorf("hoodie.table.metadata.partitions = %v", p)
	}
	sameRows(t, "after the write", readRows(t, tb, "id"), model)
}
