package parquet_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

// writeEmpty writes a file with no rows for Avro schema avsc, as the write path opens
// base files and Parquet log blocks (footer parquet.avro.schema and writer.model.name).
func writeEmpty(t *testing.T, avsc string) []byte {
	t.Helper()
	sc, err := schema.FromAvro(avsc)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, sc, parquet.WriterOptions{Mem: memory.NewGoAllocator(),
		KeyValue: map[string]string{parquet.KeyAvroSchema: avsc, parquet.KeyWriterModelName: "avro"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func footerSchema(t *testing.T, b []byte) string {
	t.Helper()
	els, err := parquet.ReadSchemaElements(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return parquet.FormatSchema(els)
}

// TestAvroLayoutMatchesSparkFixture: for the Avro schema of the 2024 base files of
// cow/v6_simplekeygen_nonhivestyle (Hudi 0.14, Spark's Avro write path: parquet-avro with
// the old list structure), the Parquet schema hudi-go writes equals the one in those files
// element by element as stored in the footer: names, repetition, physical, converted and
// logical types, including the 2-level list `repeated group array` of structs and the map
// with `repeated group key_value` (MAP_KEY_VALUE) of struct values.
func TestAvroLayoutMatchesSparkFixture(t *testing.T) {
	fx := testutil.Table(t, "cow/v6_simplekeygen_nonhivestyle")
	files, _ := filepath.Glob(filepath.Join(fx, "*", "*_20240418*.parquet"))
	if len(files) == 0 {
		t.Fatal("no 2024 base files in the fixture")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenBytes(b, p, memory.NewGoAllocator(), 0)
		if err != nil {
			t.Fatal(err)
		}
		avsc, ok := f.Metadata(parquet.KeyAvroSchema)
		model, _ := f.Metadata(parquet.KeyWriterModelName)
		f.Close()
		if !ok || model != "avro" {
			t.Fatalf("%s: not written by the Avro write path (model %q)", p, model)
		}
		spark, ours := footerSchema(t, b), footerSchema(t, writeEmpty(t, avsc))
		if ours != spark {
			t.Errorf("%s: Parquet schema differs from Spark's\nours:\n%s\nspark:\n%s", filepath.Base(p), ours, spark)
		}
	}
}

// goldenAvro has arrays of primitives (an element union with null and a plain element),
// of records, of arrays and of maps, maps of arrays and of records, and arrays and maps in
// a record, with logical types in elements.
const goldenAvro = `{"type":"record","name":"shapes_record","namespace":"hoodie.shapes","fields":[
 {"name":"ints","type":["null",{"type":"array","items":["null","int"]}],"default":null},
 {"name":"strs","type":{"type":"array","items":"string"}},
 {"name":"recs","type":["null",{"type":"array","items":["null",{"type":"record","name":"recs","namespace":"hoodie.shapes.shapes_record","fields":[{"name":"a","type":["null","string"],"default":null},{"name":"b","type":["null","long"],"default":null}]}]}],"default":null},
 {"name":"nested","type":["null",{"type":"array","items":["null",{"type":"array","items":["null","string"]}]}],"default":null},
 {"name":"lmap","type":["null",{"type":"array","items":["null",{"type":"map","values":["null","int"]}]}],"default":null},
 {"name":"mlist","type":["null",{"type":"map","values":["null",{"type":"array","items":["null","long"]}]}],"default":null},
 {"name":"mrec","type":["null",{"type":"map","values":["null",{"type":"record","name":"mrec","namespace":"hoodie.shapes.shapes_record","fields":[{"name":"x","type":["null","double"],"default":null}]}]}],"default":null},
 {"name":"st","type":["null",{"type":"record","name":"st","namespace":"hoodie.shapes.shapes_record","fields":[
   {"name":"dates","type":["null",{"type":"array","items":["null",{"type":"int","logicalType":"date"}]}],"default":null},
   {"name":"decs","type":["null",{"type":"map","values":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.shapes.shapes_record.st.decs","size":5,"logicalType":"decimal","precision":10,"scale":2}]}],"default":null}]}],"default":null},
 {"name":"times","type":["null",{"type":"array","items":["null",{"type":"long","logicalType":"timestamp-micros"}]}],"default":null}]}`

// TestAvroLayoutGolden pins the Parquet schema written for goldenAvro
// (testdata/avro_layout.golden). The shapes the fixture lacks follow parquet-avro's
// AvroSchemaConverter with write-old-list-structure=true (UNVERIFIED against a
// Java-written file: no fixture holds them): an array is `group (LIST) { repeated <element>
// array }` at every depth, an element union with null stays repeated, a map is `group (MAP)
// { repeated group key_value (MAP_KEY_VALUE) { required binary key (UTF8); value } }`.
func TestAvroLayoutGolden(t *testing.T) {
	got := footerSchema(t, writeEmpty(t, goldenAvro))
	golden := filepath.Join("testdata", "avro_layout.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Parquet schema for the shapes:\n%s\nwant (%s):\n%s", got, golden, want)
	}
}
