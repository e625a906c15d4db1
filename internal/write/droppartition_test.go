package write_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
)

// dpRow is one row of the drop.partition.columns tests: city and region are the partition
// columns (region only in the two-field cases, else a plain data column).
type dpRow struct {
	id, city, region string
	ts, val          int64
}

var dpSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "val", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func dpBatch(rows []dpRow) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, dpSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.city)
		b.Field(2).(*array.StringBuilder).Append(r.region)
		b.Field(3).(*array.Int64Builder).Append(r.ts)
		b.Field(4).(*array.Int64Builder).Append(r.val)
	}
	return b.NewRecord()
}

// dpCase is one table layout.
type dpCase struct {
	name  string
	typ   string // cow or mor
	hive  bool
	parts []string // partition fields
}

// partition is the partition path of a row.
func (c dpCase) partition(r dpRow) string {
	vals := map[string]string{"city": r.city, "region": r.region}
	var segs []string
	for _, f := range c.parts {
		if c.hive {
			segs = append(segs, f+"="+vals[f])
		} else {
			segs = append(segs, vals[f])
		}
	}
	return strings.Join(segs, "/")
}

// canon is a row as the reader must return it: the partition columns are read back from
// the partition path as strings (equal to the written values, all strings here).
func (c dpCase) canon(r dpRow) string {
	return fmt.Sprintf("%s|part=%s|city=%s|region=%s|ts=%d|val=%d", r.id, c.partition(r), r.city, r.region, r.ts, r.val)
}

// TestDropPartitionColumns writes copy-on-write and merge-on-read tables with
// hoodie.datasource.write.drop.partition.columns=true (hive-style and not, one and two
// partition fields) through upsert, delete, insert_overwrite and compaction, and checks
// after every step that the snapshot equals a model, that no Parquet base file, log block
// SCHEMA header or commit schema holds a partition column, and that every stored row has
// _hoodie_partition_path filled with its partition.
func TestDropPartitionColumns(t *testing.T) {
	cases := []dpCase{
		{name: "cow/plain", typ: "cow", parts: []string{"city"}},
		{name: "cow/hive/two-fields", typ: "cow", hive: true, parts: []string{"city", "region"}},
		{name: "mor/hive", typ: "mor", hive: true, parts: []string{"city"}},
		{name: "mor/plain/two-fields", typ: "mor", parts: []string{"city", "region"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runDropPartitionCase(t, c)
		})
	}
}

func runDropPartitionCase(t *testing.T, c dpCase) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "t")
	_, err := hudi.Create(ctx, root, hudi.CreateOptions{Name: "dp", Type: c.typ, RecordKeyFields: []string{"id"},
		PartitionFields: c.parts, PrecombineField: "ts", HiveStyle: c.hive,
		Schema:   "id STRING, city STRING, region STRING, ts BIGINT, val BIGINT",
		Settings: map[string]string{"hoodie.datasource.write.drop.partition.columns": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]dpRow{}
	step := func(op string, rows []dpRow, apply func()) {
		t.Helper()
		tb, err := hudi.Open(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		batch := dpBatch(rows)
		defer batch.Release()
		if _, err := tb.Write(ctx, []arrow.Record{batch}, hudi.WriteOptions{Operation: op}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		apply()
		checkDropPartition(t, c, root, op, model)
	}
	upsert := func(rows []dpRow) func() {
		return func() {
			for _, r := range rows {
				model[r.id] = r
			}
		}
	}
	first := []dpRow{{"a", "sf", "west", 1, 1}, {"b", "sf", "west", 1, 2}, {"c", "nyc", "east", 1, 3},
		{"d", "la", "west", 1, 4}, {"e", "nyc", "east", 1, 5}}
	step("insert", first, upsert(first))
	// Updates and an insert (OverwriteWithLatestAvroPayload: the incoming record wins even
	// with an older ts).
	second := []dpRow{{"a", "sf", "west", 2, 10}, {"c", "nyc", "east", 2, 30}, {"f", "la", "west", 2, 6}, {"b", "sf", "west", 0, 99}}
	step("upsert", second, upsert(second))
	step("delete", []dpRow{{"e", "nyc", "east", 3, 0}}, func() { delete(model, "e") })
	over := []dpRow{{"g", "la", "west", 4, 7}}
	step("insert_overwrite", over, func() {
		for k, r := range model {
			if c.partition(r) == c.partition(over[0]) {
				delete(model, k)
			}
		}
		upsert(over)()
	})
	if c.typ != "mor" {
		return
	}
	step("upsert", []dpRow{{"a", "sf", "west", 5, 100}}, upsert([]dpRow{{"a", "sf", "west", 5, 100}}))
	tb, err := hudi.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true})
	if err != nil || !res.Completed {
		t.Fatalf("compaction: %+v, %v", res, err)
	}
	checkDropPartition(t, c, root, "compaction", model)
	tb, _ = hudi.Open(ctx, root)
	if got, want := dpScan(t, tb, hudi.ScanOptions{ReadOptimized: true}), dpWant(c, model); !slices.Equal(got, want) {
		t.Errorf("read-optimized after compaction:\n got %v\nwant %v", got, want)
	}
}

func dpWant(c dpCase, model map[string]dpRow) []string {
	var want []string
	for _, r := range model {
		want = append(want, c.canon(r))
	}
	sort.Strings(want)
	return want
}

// checkDropPartition compares the snapshot with the model and checks the table's files.
func checkDropPartition(t *testing.T, c dpCase, root, after string, model map[string]dpRow) {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dpScan(t, tb, hudi.ScanOptions{}), dpWant(c, model); !slices.Equal(got, want) {
		t.Errorf("after %s: snapshot\n got %v\nwant %v", after, got, want)
	}
	if got := tb.Config().PartitionFieldsRaw(); !slices.Equal(got, c.parts) {
		t.Errorf("after %s: hoodie.table.partition.fields %v, want %v", after, got, c.parts)
	}
	for _, in := range tb.Timeline().DataInstants() {
		cm, err := tb.CommitMetadata(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		checkAvroLacks(t, fmt.Sprintf("after %s: commit %s schema", after, in.Time), cm.Schema(), c.parts, false)
	}
	var bases, blocks int
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".hoodie" {
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		switch {
		case strings.HasSuffix(p, ".parquet"):
			checkDropBaseFile(t, p, filepath.ToSlash(rel), c.parts)
			bases++
		case strings.Contains(d.Name(), ".log."):
			blocks += checkDropLogFile(t, p, filepath.ToSlash(rel), c.parts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The checks above must not pass vacuously.
	if bases == 0 || (c.typ == "mor" && after == "upsert" && blocks == 0) {
		t.Errorf("after %s: %d base files and %d log data blocks checked", after, bases, blocks)
	}
}

// dpScan reads a query as canonical rows.
func dpScan(t *testing.T, tb *hudi.Table, o hudi.ScanOptions) []string {
	t.Helper()
	ctx := context.Background()
	s, err := tb.Scan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = s.Run(ctx, func(rec arrow.Record) error {
		col := func(name string) arrow.Array { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
		str := func(name string) *array.String { return col(name).(*array.String) }
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, fmt.Sprintf("%s|part=%s|city=%s|region=%s|ts=%d|val=%d", str("id").Value(i),
				str("_hoodie_partition_path").Value(i), str("city").Value(i), str("region").Value(i),
				col("ts").(*array.Int64).Value(i), col("val").(*array.Int64).Value(i)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// checkAvroLacks checks that an Avro record schema has none of the dropped fields (and,
// for file schemas, the meta fields).
func checkAvroLacks(t *testing.T, what, avroSchema string, dropped []string, withMeta bool) {
	t.Helper()
	var s struct {
		Fields []struct{ Name string } `json:"fields"`
	}
	if err := json.Unmarshal([]byte(avroSchema), &s); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name)
	}
	for _, d := range dropped {
		if slices.Contains(names, d) {
			t.Errorf("%s has partition column %s: %v", what, d, names)
		}
	}
	if hasMeta := slices.Contains(names, "_hoodie_partition_path"); hasMeta != withMeta {
		t.Errorf("%s: meta fields present %v, want %v: %v", what, hasMeta, withMeta, names)
	}
	if !slices.Contains(names, "id") || !slices.Contains(names, "val") {
		t.Errorf("%s lacks data columns: %v", what, names)
	}
}

func checkDropBaseFile(t *testing.T, p, partition string, dropped []string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.Open(f, fi.Size(), p, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for _, d := range dropped {
		if len(pf.Schema().FieldIndices(d)) > 0 {
			t.Errorf("%s has partition column %s", p, d)
		}
	}
	avroSchema, _ := pf.Metadata(parquet.KeyAvroSchema)
	checkAvroLacks(t, p+" parquet.avro.schema", avroSchema, dropped, true)
	leaves, _ := pf.LeafColumns([]string{"_hoodie_partition_path"})
	err = pf.ReadBatches(context.Background(), leaves, nil, func(rec arrow.Record) error {
		col := rec.Column(rec.Schema().FieldIndices("_hoodie_partition_path")[0]).(*array.String)
		for i := 0; i < col.Len(); i++ {
			if !col.IsValid(i) || col.Value(i) != partition {
				t.Errorf("%s row %d: _hoodie_partition_path %q, want %q", p, i, col.Value(i), partition)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkDropLogFile checks a log file's data blocks and returns how many it has.
func checkDropLogFile(t *testing.T, p, partition string, dropped []string) int {
	t.Helper()
	n := 0
	for _, b := range readLog(t, p) {
		if b.Type != logfile.AvroDataBlock && b.Type != logfile.ParquetDataBlock {
			continue
		}
		n++
		checkAvroLacks(t, p+" block SCHEMA header", b.Header[logfile.Schema], dropped, true)
		for _, r := range decodeDataBlock(t, b) {
			if r["_hoodie_partition_path"] != partition {
				t.Errorf("%s: log record %v has _hoodie_partition_path %v, want %q", p, r["id"], r["_hoodie_partition_path"], partition)
			}
			for _, d := range dropped {
				if _, ok := r[d]; ok {
					t.Errorf("%s: log record %v has partition column %s", p, r["id"], d)
				}
			}
		}
	}
	return n
}

// TestDropPartitionColumnsRefusals pins what stays refused on drop.partition.columns
// tables: an ordering field that is a dropped partition column, timestamp-based (and
// custom) key generators, clustering sorted by a dropped column, and virtual keys
// (TestVirtualKeyRefusals).
func TestDropPartitionColumnsRefusals(t *testing.T) {
	ctx := context.Background()
	create := func(t *testing.T, precombine string, extra ...string) *hudi.Table {
		t.Helper()
		settings := map[string]string{"hoodie.datasource.write.drop.partition.columns": "true"}
		part := "city"
		for i := 0; i+1 < len(extra); i += 2 {
			if extra[i] == "partition" {
				part = extra[i+1]
				continue
			}
			settings[extra[i]] = extra[i+1]
		}
		tb, err := hudi.Create(ctx, filepath.Join(t.TempDir(), "t"), hudi.CreateOptions{Name: "dp", RecordKeyFields: []string{"id"},
			PartitionFields: []string{part}, PrecombineField: precombine,
			Schema:   "id STRING, city STRING, region STRING, ts BIGINT, val BIGINT",
			Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	rows := []dpRow{{"a", "sf", "west", 1, 1}, {"b", "la", "west", 1, 2}}
	cases := []struct {
		name string
		run  func(t *testing.T) error
		want string
	}{
		{name: "ordering field is a partition column",
			run: func(t *testing.T) error {
				tb := create(t, "city")
				b := dpBatch(rows)
				defer b.Release()
				_, err := tb.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: "upsert"})
				return err
			},
			want: "table dp: ordering field city is a partition column and hoodie.datasource.write.drop.partition.columns=true leaves it out of data files: not supported"},
		{name: "timestamp-based key generator",
			run: func(t *testing.T) error {
				tb := create(t, "val", "partition", "ts",
					"hoodie.datasource.write.keygenerator.class", "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
					"hoodie.keygen.timebased.timestamp.type", "EPOCHMILLISECONDS",
					"hoodie.keygen.timebased.output.dateformat", "yyyy/MM/dd")
				b := dpBatch(rows)
				defer b.Release()
				_, err := tb.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: "upsert"})
				return err
			},
			want: "table dp: hoodie.datasource.write.drop.partition.columns=true with key generator org.apache.hudi.keygen.TimestampBasedKeyGenerator: not supported by the hudi-go writer yet (the partition columns could not be read back from its partition paths)"},
		{name: "clustering sorted by a partition column",
			run: func(t *testing.T) error {
				tb := create(t, "ts")
				b := dpBatch(rows)
				defer b.Release()
				if _, err := tb.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: "insert"}); err != nil {
					return err
				}
				tb, _ = hudi.Open(ctx, tb.Storage().Root())
				_, err := tb.Cluster(ctx, hudi.ClusterOptions{Settings: map[string]string{"hoodie.clustering.plan.strategy.sort.columns": "city"}})
				return err
			},
			want: "table dp: sort column city is a partition column left out of data files (hoodie.datasource.write.drop.partition.columns=true): clustering by it is not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(t); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestDropPartitionColumnsEvolutionAndTypes adds a column on a drop.partition.columns table
// whose partition column is an INT: the input (with the partition column) is checked
// against the commit schema (without it), the new commit schema has the new column and
// still lacks the partition column, and reads return the partition column as the path's
// text, a string, as Java's schema resolver and Spark 0.14 do.
func TestDropPartitionColumnsEvolutionAndTypes(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "t")
	if _, err := hudi.Create(ctx, root, hudi.CreateOptions{Name: "ev", RecordKeyFields: []string{"id"}, PartitionFields: []string{"year"},
		PrecombineField: "ts", HiveStyle: true, Schema: "id STRING, year INT, ts BIGINT",
		Settings: map[string]string{"hoodie.datasource.write.drop.partition.columns": "true"}}); err != nil {
		t.Fatal(err)
	}
	batch := func(withNote bool, rows ...[]any) arrow.Record {
		fields := []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "year", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}
		if withNote {
			fields = append(fields, arrow.Field{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true})
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
		defer b.Release()
		for _, r := range rows {
			b.Field(0).(*array.StringBuilder).Append(r[0].(string))
			b.Field(1).(*array.Int32Builder).Append(int32(r[1].(int)))
			b.Field(2).(*array.Int64Builder).Append(int64(r[2].(int)))
			if withNote {
				b.Field(3).(*array.StringBuilder).Append(r[3].(string))
			}
		}
		return b.NewRecord()
	}
	write := func(rec arrow.Record) {
		t.Helper()
		defer rec.Release()
		tb, _ := hudi.Open(ctx, root)
		if _, err := tb.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: "upsert"}); err != nil {
			t.Fatal(err)
		}
	}
	write(batch(false, []any{"a", 2024, 1}, []any{"b", 2025, 1}))
	write(batch(true, []any{"a", 2024, 2, "x"}, []any{"c", 2025, 2, "y"}))

	tb, _ := hudi.Open(ctx, root)
	in := tb.Timeline().DataInstants()
	cm, err := tb.CommitMetadata(ctx, in[len(in)-1])
	if err != nil {
		t.Fatal(err)
	}
	if s := cm.Schema(); strings.Contains(s, `"year"`) || !strings.Contains(s, `"note"`) {
		t.Errorf("evolved commit schema %s: want note and no year", s)
	}
	s, err := tb.Scan(ctx, hudi.ScanOptions{Columns: []string{"id", "year", "ts", "note"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = s.Run(ctx, func(rec arrow.Record) error {
		year, ok := rec.Column(1).(*array.String)
		if !ok {
			return fmt.Errorf("year read back as %s, want string", rec.Column(1).DataType())
		}
		note := rec.Column(3).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, fmt.Sprintf("%s|%s|%d|%q", rec.Column(0).(*array.String).Value(i), year.Value(i),
				rec.Column(2).(*array.Int64).Value(i), note.ValueStr(i)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	want := []string{`a|2024|2|"x"`, `b|2025|1|"(null)"`, `c|2025|2|"y"`}
	if !slices.Equal(got, want) {
		t.Errorf("read\n got %v\nwant %v", got, want)
	}
}
