package parquet

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/testutil"
)

// Every Spark-written base file of the fixtures, rewritten by Writer with Dictionary on,
// has a dictionary page in exactly the flat columns where parquet-mr wrote one: the
// commit time, partition path and file name, repetitive user columns (cities, currencies,
// dates, small integers), and none in unique ones (record keys, seqnos, uuids, amounts)
// or in single-row files. The rows are the file's own, read back through ReadBatches.
func TestDictionaryColumnsMatchSparkWrittenFiles(t *testing.T) {
	skipHeavyUnderRace(t)
	var compared, dictCols int
	for _, id := range testutil.TableIDs(t) {
		dir := testutil.Table(t, id)
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() && d.Name() == ".hoodie" {
				return filepath.SkipDir
			}
			if !strings.HasSuffix(p, ".parquet") {
				return nil
			}
			spark := openFile(t, p)
			defer spark.Close()
			if !strings.HasPrefix(spark.pr.MetaData().GetCreatedBy(), "parquet-mr") {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			want := sparkDictionaryColumns(spark)
			got, n := rewrittenDictionaryColumns(t, spark)
			if n == 0 {
				return nil
			}
			compared += n
			dictCols += len(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s %s (%d rows): dictionary columns %v, parquet-mr wrote %v", id, rel, spark.NumRows(), got, want)
			}
			return nil
		})
	}
	if compared < 500 || dictCols < 100 {
		t.Errorf("compared %d columns (%d with a dictionary): the fixtures should give more", compared, dictCols)
	}
	t.Logf("compared %d flat columns, %d of them dictionary-encoded by parquet-mr", compared, dictCols)
}

// sparkDictionaryColumns lists the flat top-level columns of f with a dictionary page.
func sparkDictionaryColumns(f *File) []string {
	var out []string
	md := f.pr.MetaData()
	for i, fld := range f.Schema().Fields() {
		if !isFlat(fld.Type) {
			continue
		}
		leaf := f.LeafIndex(fld.Name)
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(leaf)
			if err == nil && cc.HasDictionaryPage() {
				out = append(out, f.Schema().Field(i).Name)
				break
			}
		}
	}
	return out
}

func isFlat(dt arrow.DataType) bool {
	return allFlat(arrow.NewSchema([]arrow.Field{{Name: "x", Type: dt}}, nil))
}

// rewrittenDictionaryColumns writes f's flat top-level columns with Dictionary on and
// returns the columns the new file dictionary-encodes, and how many columns it wrote.
func rewrittenDictionaryColumns(t *testing.T, f *File) ([]string, int) {
	t.Helper()
	var leaves []int
	var fields []arrow.Field
	for _, fld := range f.Schema().Fields() {
		if isFlat(fld.Type) {
			leaves = append(leaves, f.LeafIndex(fld.Name))
			fields = append(fields, fld)
		}
	}
	if len(fields) == 0 {
		return nil, 0
	}
	sc := arrow.NewSchema(fields, nil)
	var recs []arrow.Record
	err := f.ReadBatches(context.Background(), leaves, nil, func(rec arrow.Record) error {
		rec.Retain()
		recs = append(recs, array.NewRecordBatch(sc, rec.Columns(), rec.NumRows()))
		rec.Release()
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, sc, WriterOptions{Dictionary: true})
	if err != nil {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	out, err := OpenBytes(buf.Bytes(), "rewritten", memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if slices.Compare(sparkDictionaryColumns(out), w.DictionaryColumns()) != 0 {
		t.Errorf("%s: file has dictionary pages in %v, the writer chose %v", f.Name(), sparkDictionaryColumns(out), w.DictionaryColumns())
	}
	return sparkDictionaryColumns(out), len(fields)
}

// The first-page test, column by column: what parquet-mr keeps dictionary-encoded and
// what it writes PLAIN. The files read back value for value.
func TestChooseDictionary(t *testing.T) {
	mem := memory.NewGoAllocator()
	n := 30000
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "constant", Type: arrow.BinaryTypes.String},
		{Name: "unique", Type: arrow.BinaryTypes.String},
		{Name: "fewInts", Type: arrow.PrimitiveTypes.Int32},
		{Name: "uniqueLongs", Type: arrow.PrimitiveTypes.Int64},
		{Name: "fewDoubles", Type: arrow.PrimitiveTypes.Float64},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
		{Name: "mostlyNull", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bigValues", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	big := strings.Repeat("x", 200)
	for i := 0; i < n; i++ {
		b.Field(0).(*array.StringBuilder).Append("20261201000000000")
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("key-%08d", i))
		b.Field(2).(*array.Int32Builder).Append(int32(i % 7))
		b.Field(3).(*array.Int64Builder).Append(int64(i) * 1000003)
		b.Field(4).(*array.Float64Builder).Append(float64(i%3) + 0.5)
		b.Field(5).(*array.BooleanBuilder).Append(i%2 == 0)
		b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i % 5)))
		if i%1000 == 0 {
			b.Field(7).(*array.StringBuilder).Append("rare")
		} else {
			b.Field(7).(*array.StringBuilder).AppendNull()
		}
		// 10,000 distinct values of 204 bytes: a 2 MB dictionary, past the page size
		b.Field(8).(*array.StringBuilder).Append(fmt.Sprintf("%s%06d", big, i%10000))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	for _, tc := range []struct {
		name string
		o    WriterOptions
		want []string
	}{
		{"dictionary on", WriterOptions{Dictionary: true}, []string{"constant", "fewInts", "fewDoubles", "mostlyNull"}},
		{"dictionary off", WriterOptions{}, nil},
		{"forced column", WriterOptions{Dictionary: true, DictionaryColumns: []string{"unique"}}, []string{"constant", "fewInts", "fewDoubles", "mostlyNull"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := OpenBytes(writeRecords(t, tc.o, sc, rec), tc.name, mem, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, c := range sc.Fields() {
				cc, _ := f.pr.MetaData().RowGroup(0).ColumnChunk(f.LeafIndex(c.Name))
				want := slices.Contains(tc.want, c.Name) || slices.Contains(tc.o.DictionaryColumns, c.Name)
				if got := cc.HasDictionaryPage(); got != want {
					t.Errorf("column %s: dictionary page %v, want %v", c.Name, got, want)
				}
			}
			var back []arrow.Record
			if err := f.ReadBatches(context.Background(), nil, nil, func(r arrow.Record) error {
				r.Retain()
				back = append(back, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			tbl := array.NewTableFromRecords(sc, back)
			defer tbl.Release()
			for i := range sc.Fields() {
				got := array.NewChunkedSlice(tbl.Column(i).Data(), 0, int64(n))
				want := rec.Column(i)
				if arr, err := array.Concatenate(got.Chunks(), mem); err != nil || !array.Equal(arr, want) {
					t.Errorf("column %s does not read back (%v)", sc.Field(i).Name, err)
				}
				got.Release()
			}
			for _, r := range back {
				r.Release()
			}
		})
	}
}

// A file of one row has no dictionary anywhere (one value costs as much PLAIN as in a
// dictionary, plus its index), as in parquet-mr's single-row files; an empty file opens
// without a dictionary decision.
func TestChooseDictionarySmallFiles(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, rows := range []int{0, 1, 2} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for range rows {
			b.Field(0).(*array.StringBuilder).Append("same value")
			b.Field(1).(*array.Int64Builder).Append(42)
		}
		rec := b.NewRecordBatch()
		f, err := OpenBytes(writeRecords(t, WriterOptions{Dictionary: true}, sc, rec), "small", memory.DefaultAllocator, 0)
		if err != nil {
			t.Fatalf("%d rows: %v", rows, err)
		}
		want := []string(nil)
		if rows == 2 {
			want = []string{"s", "i"}
		}
		if got := sparkDictionaryColumns(f); rows > 0 && !slices.Equal(got, want) {
			t.Errorf("%d rows: dictionary columns %v, want %v", rows, got, want)
		}
		if f.NumRows() != int64(rows) {
			t.Errorf("%d rows: file has %d", rows, f.NumRows())
		}
		f.Close()
		rec.Release()
		b.Release()
	}
}

// A chosen string column goes to arrow-go as ids into the dictionary of the file's first
// rows while its values stay in it, and as values otherwise: a later batch with new
// values (appended to the same dictionary), row groups that start with values outside it
// (written as values for the rest of that row group) or with nulls. Every row reads back,
// and every row group still dictionary-encodes the column.
func TestFixedDictionaryFallsBackToValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "raw", Type: arrow.BinaryTypes.Binary},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	batch := func(from, n int, cities []string, nulls bool) arrow.Record {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for i := from; i < from+n; i++ {
			if nulls && i%5 == 0 {
				b.Field(0).(*array.StringBuilder).AppendNull()
			} else {
				b.Field(0).(*array.StringBuilder).Append(cities[i%len(cities)])
			}
			b.Field(1).(*array.BinaryBuilder).Append([]byte(cities[(i+1)%len(cities)]))
			b.Field(2).(*array.Int64Builder).Append(int64(i))
		}
		return b.NewRecordBatch()
	}
	recs := []arrow.Record{
		batch(0, 30000, []string{"chennai", "sao_paulo"}, false),         // defines the dictionary
		batch(30000, 30000, []string{"chennai", "new_york"}, false),      // a new value: written as values
		batch(60000, 30000, []string{"chennai"}, false),                  // back in the dictionary
		batch(90000, 30000, []string{"tokyo", "chennai", "lima"}, false), // row groups that start outside it
		batch(120000, 30000, []string{"chennai", "sao_paulo"}, true),     // nulls
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	b := writeRecords(t, WriterOptions{Mem: mem, Dictionary: true, BlockSize: 256 << 10, Compression: "snappy"}, sc, recs...)
	f, err := OpenBytes(b, "fixed", memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.NumRowGroups() < 3 {
		t.Fatalf("%d row groups, want several", f.NumRowGroups())
	}
	for rg := 0; rg < f.NumRowGroups(); rg++ {
		for _, c := range []string{"city", "raw"} {
			if cc, _ := f.RowGroupMetadata(rg).ColumnChunk(f.LeafIndex(c)); !cc.HasDictionaryPage() {
				t.Errorf("row group %d: %s has no dictionary page", rg, c)
			}
		}
	}
	got := readTable(t, f)
	defer got.Release()
	want := array.NewTableFromRecords(sc, recs)
	defer want.Release()
	if !array.TableEqual(got, want) {
		for c := 0; c < int(want.NumCols()); c++ {
			g, _ := array.Concatenate(got.Column(c).Data().Chunks(), memory.DefaultAllocator)
			wnt, _ := array.Concatenate(want.Column(c).Data().Chunks(), memory.DefaultAllocator)
			for i := 0; i < wnt.Len(); i++ {
				if g.ValueStr(i) != wnt.ValueStr(i) {
					t.Errorf("column %s row %d: read %s, wrote %s", sc.Field(c).Name, i, g.ValueStr(i), wnt.ValueStr(i))
					break
				}
			}
			g.Release()
			wnt.Release()
		}
	}
}
