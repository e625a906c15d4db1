package crosscheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/testutil"
)

// baseFileRE is the v6 base file name: <uuid>-<n>_<partition>-<stage>-<attempt>_<instant>.parquet.
var baseFileRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-0_[0-9]+-[0-9]+-[0-9]+_[0-9]{17}\.parquet$`)

// ddlType renders an Arrow type as the Spark DDL hudi.Create accepts.
func ddlType(t *testing.T, dt arrow.DataType) string {
	t.Helper()
	switch d := dt.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN"
	case *arrow.Int8Type:
		return "TINYINT"
	case *arrow.Int16Type:
		return "SMALLINT"
	case *arrow.Int32Type:
		return "INT"
	case *arrow.Int64Type:
		return "BIGINT"
	case *arrow.Float32Type:
		return "FLOAT"
	case *arrow.Float64Type:
		return "DOUBLE"
	case *arrow.StringType, *arrow.LargeStringType:
		return "STRING"
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return "BINARY"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	case *arrow.Date32Type:
		return "DATE"
	case *arrow.TimestampType:
		return "TIMESTAMP"
	case *arrow.ListType:
		return "ARRAY<" + ddlType(t, d.Elem()) + ">"
	case *arrow.MapType:
		return "MAP<" + ddlType(t, d.KeyType()) + ", " + ddlType(t, d.ItemType()) + ">"
	case *arrow.StructType:
		var parts []string
		for _, f := range d.Fields() {
			parts = append(parts, f.Name+": "+ddlType(t, f.Type))
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	}
	t.Fatalf("no DDL for %s", dt)
	return ""
}

func ddlOf(t *testing.T, sc *arrow.Schema) string {
	var parts []string
	for _, f := range sc.Fields() {
		parts = append(parts, f.Name+" "+ddlType(t, f.Type))
	}
	return strings.Join(parts, ", ")
}

func readProps(t *testing.T, path string) *props.Properties {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := props.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// fixtureSchema is the user schema of a fixture table, from hoodie.table.create.schema.
func fixtureSchema(t *testing.T, fx string) *arrow.Schema {
	t.Helper()
	p := readProps(t, filepath.Join(fx, ".hoodie", "hoodie.properties"))
	cs, ok := p.Get("hoodie.table.create.schema")
	if !ok {
		t.Fatal("fixture has no create schema")
	}
	sc, err := schema.FromAvro(cs)
	if err != nil {
		t.Fatal(err)
	}
	return schema.WithoutMetaFields(sc)
}

// createLike creates a copy-on-write table at dst with the fixture's name, keys,
// partitioning, precombine field and schema, as Spark SQL's CREATE TABLE did.
func createLike(t *testing.T, fx, dst string) (*hudi.Table, *arrow.Schema) {
	t.Helper()
	p := readProps(t, filepath.Join(fx, ".hoodie", "hoodie.properties"))
	get := func(k string) string { v, _ := p.Get(k); return v }
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	sc := fixtureSchema(t, fx)
	tbl, err := hudi.Create(context.Background(), dst, hudi.CreateOptions{
		Name:            get("hoodie.table.name"),
		Database:        get("hoodie.database.name"),
		Type:            "cow",
		RecordKeyFields: split(get("hoodie.table.recordkey.fields")),
		PartitionFields: split(get("hoodie.table.partition.fields")),
		PrecombineField: get("hoodie.table.precombine.field"),
		HiveStyle:       get("hoodie.datasource.write.hive_style_partitioning") == "true",
		Schema:          ddlOf(t, sc),
		Settings:        map[string]string{"hoodie.table.keygenerator.class": get("hoodie.table.keygenerator.class")},
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return tbl, sc
}

// expectedRows decodes a fixture expected/*.jsonl file into Arrow batches of sc.
func expectedRows(t *testing.T, id, file string, sc *arrow.Schema) []arrow.Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.FixturesDir(t), "expected", id, file))
	if err != nil {
		t.Fatal(err)
	}
	return decodeRows(t, b, sc)
}

func decodeRows(t *testing.T, b []byte, sc *arrow.Schema) []arrow.Record {
	t.Helper()
	var out []arrow.Record
	for rec, err := range jsonl.Decode(bytes.NewReader(b), sc, memory.DefaultAllocator, 1024) {
		if err != nil {
			t.Fatalf("decode rows: %v", err)
		}
		out = append(out, rec)
	}
	t.Cleanup(func() {
		for _, r := range out {
			r.Release()
		}
	})
	return out
}

// firstInstants lists the fixture's completed instants (sorted) from its expected asof files.
func expectedInstants(t *testing.T, id string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(testutil.FixturesDir(t), "expected", id, "asof_*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range m {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "asof_"), ".jsonl"))
	}
	sort.Strings(out)
	return out
}

var clockBase = time.Date(2024, 4, 18, 17, 0, 0, 0, time.UTC)

// steppingClock returns a clock that advances one second per call, so that instants
// of consecutive writes are distinct and deterministic.
func steppingClock() func() time.Time {
	n := 0
	return func() time.Time { n++; return clockBase.Add(time.Duration(n) * time.Second) }
}

func write(t *testing.T, tbl *hudi.Table, recs []arrow.Record, op string, now func() time.Time, settings map[string]string) *hudi.WriteResult {
	t.Helper()
	res, err := tbl.Write(context.Background(), recs, hudi.WriteOptions{Operation: op, Now: now, Settings: settings})
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return res
}

// baseFiles lists the .parquet files under a table, relative to it, sorted.
func baseFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".hoodie" || d.Name() == "__MACOSX") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// instantOf is the instant of a base file name.
func instantOf(name string) string {
	base := strings.TrimSuffix(filepath.Base(name), ".parquet")
	return base[strings.LastIndex(base, "_")+1:]
}

// --- JSON shape -----------------------------------------------------------------------

// jnode is a JSON value that keeps object key order.
type jnode struct {
	kind string // object, array, string, number, bool, null
	keys []string
	vals []*jnode
	elem []*jnode
	str  string
}

func (n *jnode) get(k string) *jnode {
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return nil
}

func parseOrdered(t *testing.T, b []byte) *jnode {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	n, err := parseNode(d)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		t.Fatalf("json: trailing data")
	}
	return n
}

func parseNode(d *json.Decoder) (*jnode, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	return nodeFrom(d, tok)
}

func nodeFrom(d *json.Decoder, tok json.Token) (*jnode, error) {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &jnode{kind: "object"}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				val, err := parseNode(d)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, kt.(string))
				n.vals = append(n.vals, val)
			}
			_, err := d.Token()
			return n, err
		case '[':
			n := &jnode{kind: "array"}
			for d.More() {
				val, err := parseNode(d)
				if err != nil {
					return nil, err
				}
				n.elem = append(n.elem, val)
			}
			_, err := d.Token()
			return n, err
		}
	case string:
		return &jnode{kind: "string", str: v}, nil
	case json.Number:
		return &jnode{kind: "number", str: v.String()}, nil
	case bool:
		return &jnode{kind: "bool", str: fmt.Sprint(v)}, nil
	case nil:
		return &jnode{kind: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// --- Parquet schema tree --------------------------------------------------------------

// schemaTree renders a Parquet file's schema, one node a line: repetition, physical type
// (with FLBA length), name, logical type and converted type. Two encodings of the same
// Avro type are normalized (accepted differences, see compat_parquet_test.go):
//   - lists: parquet-avro's legacy 2-level form (repeated group "array" holding the element
//     fields) and the 3-level form (repeated group "list" holding optional "element") both
//     print as one "list-element" line followed by the element's fields;
//   - maps: the MAP_KEY_VALUE converted type parquet-avro puts on the repeated key_value
//     group is dropped.
func schemaTree(t *testing.T, path string) []string {
	t.Helper()
	r, err := pqfile.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var out []string
	annot := func(n pqschema.Node) string {
		lt := ""
		if n.LogicalType() != nil && !n.LogicalType().IsNone() {
			lt = " " + n.LogicalType().String()
		}
		if n.ConvertedType() != pqschema.ConvertedTypes.None {
			lt += " [" + n.ConvertedType().String() + "]"
		}
		return lt
	}
	var walk func(n pqschema.Node, depth int)
	children := func(g *pqschema.GroupNode, depth int) {
		for i := 0; i < g.NumFields(); i++ {
			walk(g.Field(i), depth)
		}
	}
	walk = func(n pqschema.Node, depth int) {
		ind := strings.Repeat("  ", depth)
		switch x := n.(type) {
		case *pqschema.GroupNode:
			out = append(out, fmt.Sprintf("%s%s group %s%s", ind, x.RepetitionType(), x.Name(), annot(x)))
			switch {
			case x.ConvertedType() == pqschema.ConvertedTypes.List && x.NumFields() == 1:
				rep := x.Field(0)
				var elem pqschema.Node = rep
				if g, ok := rep.(*pqschema.GroupNode); ok && g.NumFields() == 1 && (g.Name() == "list" || g.Field(0).Name() == "element") {
					elem = g.Field(0) // 3-level
				}
				switch e := elem.(type) {
				case *pqschema.GroupNode:
					out = append(out, ind+"  list-element group"+annot(e))
					children(e, depth+2)
				case *pqschema.PrimitiveNode:
					out = append(out, ind+"  list-element "+primitive(e))
				}
			case x.ConvertedType() == pqschema.ConvertedTypes.Map && x.NumFields() == 1:
				kv := x.Field(0).(*pqschema.GroupNode)
				out = append(out, fmt.Sprintf("%s  %s group %s", ind, kv.RepetitionType(), kv.Name()))
				children(kv, depth+2)
			default:
				children(x, depth+1)
			}
		case *pqschema.PrimitiveNode:
			out = append(out, fmt.Sprintf("%s%s %s %s", ind, x.RepetitionType(), x.Name(), primitive(x)))
		}
	}
	root := r.MetaData().Schema.Root()
	for i := 0; i < root.NumFields(); i++ {
		walk(root.Field(i), 0)
	}
	return out
}

func primitive(x *pqschema.PrimitiveNode) string {
	pt := x.PhysicalType().String()
	if x.TypeLength() > 0 {
		pt += fmt.Sprintf("(%d)", x.TypeLength())
	}
	if x.LogicalType() != nil && !x.LogicalType().IsNone() {
		pt += " " + x.LogicalType().String()
	}
	if x.ConvertedType() != pqschema.ConvertedTypes.None {
		pt += " [" + x.ConvertedType().String() + "]"
	}
	return pt
}

// footer returns a Parquet file's key/value metadata and created_by.
func footer(t *testing.T, path string) (map[string]string, []string, string) {
	t.Helper()
	r, err := pqfile.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	m := map[string]string{}
	var keys []string
	for _, kv := range r.MetaData().KeyValueMetadata() {
		v := ""
		if kv.Value != nil {
			v = *kv.Value
		}
		m[kv.Key] = v
		keys = append(keys, kv.Key)
	}
	return m, keys, r.MetaData().GetCreatedBy()
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// openTable opens a table afresh, as every CLI command does.
func openTable(t *testing.T, dir string) *hudi.Table {
	t.Helper()
	tbl, err := hudi.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// rawSchema lists a file's schema elements below the root in pre-order as
// "name physical-type REPETITION num_children CONVERTED_TYPE" (the columns of DuckDB's
// parquet_schema()), read with arrow-go.
func rawSchema(t *testing.T, path string) []string {
	t.Helper()
	r, err := pqfile.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var out []string
	var walk func(n pqschema.Node)
	walk = func(n pqschema.Node) {
		ct := ""
		if n.ConvertedType() != pqschema.ConvertedTypes.None {
			ct = strings.ToUpper(n.ConvertedType().String())
		}
		rep := strings.ToUpper(n.RepetitionType().String())
		switch x := n.(type) {
		case *pqschema.GroupNode:
			out = append(out, fmt.Sprintf("%s %s %s %d %s", x.Name(), "", rep, x.NumFields(), ct))
			for i := 0; i < x.NumFields(); i++ {
				walk(x.Field(i))
			}
		case *pqschema.PrimitiveNode:
			out = append(out, fmt.Sprintf("%s %s %s %d %s", x.Name(), x.PhysicalType().String(), rep, 0, ct))
		}
	}
	root := r.MetaData().Schema.Root()
	for i := 0; i < root.NumFields(); i++ {
		walk(root.Field(i))
	}
	return out
}
