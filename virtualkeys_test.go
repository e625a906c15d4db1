package hudi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/testutil"
)

// vkFixture is the Spark (Hudi 0.14) table written with hoodie.populate.meta.fields=false.
const vkFixture = "cow/v6_simplekeygen_hivestyle_no_metafields"

// baseFileFacts is what a virtual-key base file must share with Spark's: footer keys,
// Avro and Parquet schemas, and per meta column the number of nulls and distinct values.
type baseFileFacts struct {
	name        string
	footerKeys  []string
	avroSchema  string
	modelName   string
	arrowSchema *arrow.Schema
	parquet     string
	rows        int64
	metaNulls   [5]int64
	fileNames   []string // distinct _hoodie_file_name values
}

func readBaseFileFacts(t *testing.T, path string) baseFileFacts {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.Open(f, fi.Size(), path, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	facts := baseFileFacts{name: filepath.Base(path), footerKeys: pf.MetadataKeys(), arrowSchema: pf.Schema(),
		parquet: parquetShape(t, path), rows: pf.NumRows()}
	slices.Sort(facts.footerKeys)
	facts.avroSchema, _ = pf.Metadata(parquet.KeyAvroSchema)
	facts.modelName, _ = pf.Metadata("writer.model.name")
	leaves, _ := pf.LeafColumns(schema.MetaFields[:5])
	seen := map[string]bool{}
	err = pf.ReadBatches(context.Background(), leaves, nil, func(rec arrow.Record) error {
		for c, name := range schema.MetaFields[:5] {
			col := rec.Column(rec.Schema().FieldIndices(name)[0]).(*array.String)
			facts.metaNulls[c] += int64(col.NullN())
			if c == 4 {
				for i := 0; i < col.Len(); i++ {
					if col.IsValid(i) && !seen[col.Value(i)] {
						seen[col.Value(i)] = true
						facts.fileNames = append(facts.fileNames, col.Value(i))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return facts
}

// TestVirtualKeyBaseFilesMatchSpark writes into the Spark virtual-key fixture — a merge
// (update of a stored row, the other copied) and a create (a new partition) — and checks
// that both new base files look like Spark's own: the same footer keys (no bloom filter,
// no min/max record key), Avro and Parquet schemas, commit time, seqno, key and partition
// all null, and _hoodie_file_name the file's own name on every row.
func TestVirtualKeyBaseFilesMatchSpark(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Table(t, vkFixture)
	sparkFile, _ := filepath.Glob(filepath.Join(dir, "byteField=10", "*.parquet"))
	if len(sparkFile) != 1 {
		t.Fatalf("fixture files in byteField=10: %v", sparkFile)
	}
	spark := readBaseFileFacts(t, sparkFile[0])
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, tb, "id")
	upd := rows["1"] // byteField=10, stored with id 3
	upd["name"] = "changed"
	ins := row{}
	for k, v := range rows["2"] {
		ins[k] = v
	}
	ins["id"], ins["byteField"] = json.Number("99"), json.Number("40")
	res, err := tb.Write(ctx, batchesOf(t, tb, []row{upd, ins}), hudi.WriteOptions{Operation: "upsert"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records.Updated != 1 || res.Records.Inserted != 1 {
		t.Fatalf("upsert counts %+v, want 1 update and 1 insert", res.Records)
	}
	for _, tc := range []struct {
		name, partition string
		rows            int64
	}{
		{"merge", "byteField=10", 2},
		{"create", "byteField=40", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, _ := filepath.Glob(filepath.Join(dir, tc.partition, "*_"+res.Instant+".parquet"))
			if len(ours) != 1 {
				t.Fatalf("files of %s in %s: %v", res.Instant, tc.partition, ours)
			}
			got := readBaseFileFacts(t, ours[0])
			if !slices.Equal(got.footerKeys, spark.footerKeys) {
				t.Errorf("footer keys %v, Spark's %v", got.footerKeys, spark.footerKeys)
			}
			if got.avroSchema != spark.avroSchema {
				t.Errorf("parquet.avro.schema\n got %s\nSpark %s", got.avroSchema, spark.avroSchema)
			}
			if got.modelName != spark.modelName {
				t.Errorf("writer.model.name %q, Spark's %q", got.modelName, spark.modelName)
			}
			if !got.arrowSchema.Equal(spark.arrowSchema) {
				t.Errorf("Arrow schema\n got %s\nSpark %s", got.arrowSchema, spark.arrowSchema)
			}
			if got.parquet != spark.parquet {
				t.Errorf("Parquet schema\n got %s\nSpark %s", got.parquet, spark.parquet)
			}
			if got.rows != tc.rows {
				t.Errorf("%d rows, want %d", got.rows, tc.rows)
			}
			for _, f := range []baseFileFacts{spark, got} {
				for c, name := range schema.MetaFields[:4] {
					if f.metaNulls[c] != f.rows {
						t.Errorf("%s: %s has %d nulls in %d rows, want all null", f.name, name, f.metaNulls[c], f.rows)
					}
				}
				if f.metaNulls[4] != 0 || !slices.Equal(f.fileNames, []string{f.name}) {
					t.Errorf("%s: _hoodie_file_name has %d nulls and values %v, want the file's own name", f.name, f.metaNulls[4], f.fileNames)
				}
			}
		})
	}
	// Commit metadata carries the schema without meta fields, as the fixture's does.
	cm, err := tb.CommitMetadata(ctx, tb.Timeline().DataInstants()[len(tb.Timeline().DataInstants())-1])
	if err != nil {
		t.Fatal(err)
	}
	if s := cm.ExtraMetadata["schema"]; s == "" || strings.Contains(s, "_hoodie_") {
		t.Errorf("commit schema %q: want the data schema without meta fields", s)
	}
}

// parquetShape prints a file's Parquet schema one node a line (repetition, name, physical
// and logical types), with the writer's documented layout choices normalized as
// internal/crosscheck does for meta-on tables: parquet-avro's 2-level lists (repeated
// group "array") and our 3-level ones (repeated group "list" of "element") both print as
// "list-element", and the legacy MAP_KEY_VALUE annotation on a map's key_value group is
// dropped (format/parquet.NewWriter explains why lists are 3-level).
func parquetShape(t *testing.T, path string) string {
	t.Helper()
	r, err := pqfile.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	var walk func(n pqschema.Node, depth int)
	walk = func(n pqschema.Node, depth int) {
		ind := strings.Repeat("  ", depth)
		lt := ""
		if n.LogicalType() != nil && !n.LogicalType().IsNone() {
			lt = " " + n.LogicalType().String()
		}
		switch x := n.(type) {
		case *pqschema.PrimitiveNode:
			fmt.Fprintf(&b, "%s%s %s %s(%d)%s\n", ind, x.RepetitionType(), x.Name(), x.PhysicalType(), x.TypeLength(), lt)
		case *pqschema.GroupNode:
			fmt.Fprintf(&b, "%s%s group %s%s\n", ind, x.RepetitionType(), x.Name(), lt)
			switch {
			case x.ConvertedType() == pqschema.ConvertedTypes.List && x.NumFields() == 1:
				elem := x.Field(0)
				if g, ok := elem.(*pqschema.GroupNode); ok && g.Name() == "list" && g.NumFields() == 1 {
					elem = g.Field(0) // 3-level
				}
				fmt.Fprintf(&b, "%s  list-element\n", ind)
				if g, ok := elem.(*pqschema.GroupNode); ok {
					for i := 0; i < g.NumFields(); i++ {
						walk(g.Field(i), depth+2)
					}
				} else {
					walk(elem, depth+2)
				}
			case x.ConvertedType() == pqschema.ConvertedTypes.Map && x.NumFields() == 1:
				kv := x.Field(0).(*pqschema.GroupNode)
				fmt.Fprintf(&b, "%s  %s group %s\n", ind, kv.RepetitionType(), kv.Name()) // no MAP_KEY_VALUE
				for i := 0; i < kv.NumFields(); i++ {
					walk(kv.Field(i), depth+2)
				}
			default:
				for i := 0; i < x.NumFields(); i++ {
					walk(x.Field(i), depth+1)
				}
			}
		}
	}
	root := r.MetaData().Schema.Root()
	for i := 0; i < root.NumFields(); i++ {
		walk(root.Field(i), 0)
	}
	return b.String()
}
