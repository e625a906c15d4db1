package parquet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// BenchmarkWriterVsPqarrow writes the rows of one bulk_insert partition file (250k trips
// rows with meta columns, in batches of 16k rows as the bench's peers see them) through
// Writer (one row group) and through bare pqarrow with the same properties: Write per
// batch (a row group per batch, bench W1's arrow-go peer) and WriteBuffered (one row
// group). Only ratios between sub-benchmarks of one run mean anything.
//
//	go test ./format/parquet -run '^$' -bench WriterVsPqarrow -benchtime 5x -benchmem
func BenchmarkWriterVsPqarrow(b *testing.B) {
	const rows, batch = 250_000, 16_384
	mem := memory.NewGoAllocator()
	sc := tripsSchema()
	var recs []arrow.Record
	for base := 0; base < rows; base += batch {
		recs = append(recs, tripsRecord(mem, sc, base, min(batch, rows-base)))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	props := func() *pq.WriterProperties {
		return pq.NewWriterProperties(pq.WithCompression(compress.Codecs.Gzip), pq.WithDictionaryDefault(false), pq.WithStats(true),
			pq.WithDataPageSize(1<<20), pq.WithDataPageVersion(pq.DataPageV1), pq.WithMaxRowGroupLength(math.MaxInt64/2))
	}
	b.Run("Writer", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			w, err := NewWriter(io.Discard, sc, WriterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, buffered := range []bool{false, true} {
		name := "pqarrow-Write-rowgroup-per-batch"
		if buffered {
			name = "pqarrow-WriteBuffered-one-rowgroup"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				fw, err := pqarrow.NewFileWriter(sc, nopCloser{io.Discard}, props(), pqarrow.DefaultWriterProps())
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range recs {
					if buffered {
						err = fw.WriteBuffered(r)
					} else {
						err = fw.Write(r)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if err := fw.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// flatRecord projects allTypesRecord onto its flat columns and adds the other flat types
// Writer writes without pqarrow's level builder (narrow and unsigned ints, nanosecond
// and zoneless timestamps, date64, times, large strings, fixed-size binary, a
// non-nullable column).
func flatRecord(mem memory.Allocator, base, n int) arrow.Record {
	all := allTypesRecord(mem, allTypesSchema(), base, n)
	defer all.Release()
	var fields []arrow.Field
	var cols []arrow.Array
	for i, f := range all.Schema().Fields() {
		if allFlat(arrow.NewSchema([]arrow.Field{f}, nil)) {
			fields = append(fields, f)
			cols = append(cols, all.Column(i))
		}
	}
	extra := []arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "tsns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "tsms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "d64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "t32", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "t64", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4}, Nullable: true},
		{Name: "req", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
		{Name: "allnull", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(extra, nil))
	defer b.Release()
	for r := base; r < base+n; r++ {
		for c := range extra {
			fb := b.Field(c)
			if (c != 9 && (r+c)%5 == 0) || c == 10 {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int8Builder:
				fb.Append(int8(r))
			case *array.Uint32Builder:
				fb.Append(uint32(r) * 2654435761)
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(int64(r) * 1_000_003))
			case *array.Date64Builder:
				fb.Append(arrow.Date64(int64(r) * 86_400_000))
			case *array.Time32Builder:
				fb.Append(arrow.Time32(r * 1000))
			case *array.Time64Builder:
				fb.Append(arrow.Time64(int64(r) * 1_000_000))
			case *array.LargeStringBuilder:
				fb.Append(fmt.Sprint("large-", r))
			case *array.FixedSizeBinaryBuilder:
				fb.Append([]byte{byte(r), byte(r >> 8), 1, 2})
			case *array.Int64Builder:
				fb.Append(int64(r))
			case *array.StringBuilder:
				fb.Append("x")
			}
		}
	}
	ex := b.NewRecordBatch()
	defer ex.Release()
	fields = append(fields, extra...)
	cols = append(cols, ex.Columns()...)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
}

// TestWriterDirectMatchesPqarrow: a flat schema written column by column (Writer's own
// definition levels) gives the very bytes pqarrow's record path gives, across codecs,
// several row groups, slices with and without nulls, empty and all-null batches.
func TestWriterDirectMatchesPqarrow(t *testing.T) {
	skipHeavyUnderRace(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var recs []arrow.Record
	for _, r := range [][2]int{{0, 700}, {700, 0}, {700, 3000}, {3700, 1}, {3701, 20000}} {
		recs = append(recs, flatRecord(mem, r[0], r[1]))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	sc := recs[0].Schema()
	if !allFlat(sc) {
		t.Fatal("test schema is not flat")
	}
	// A slice at an offset (not a multiple of 8) with nulls.
	sliced := recs[4].NewSlice(13, 9000)
	defer sliced.Release()
	trips := tripsRecord(mem, tripsSchema(), 0, 30000)
	defer trips.Release()
	for _, tc := range []struct {
		name string
		o    WriterOptions
		sc   *arrow.Schema
		recs []arrow.Record
	}{
		{"gzip", WriterOptions{Mem: mem, KeyValue: map[string]string{KeyAvroSchema: testAvroSchema, KeyWriterModelName: "avro"}}, sc, append(recs, sliced)},
		{"snappy-small-pages-rowgroups", WriterOptions{Mem: mem, Compression: "snappy", PageSize: 4 << 10, BlockSize: 64 << 10}, sc, append(recs, sliced)},
		{"uncompressed", WriterOptions{Mem: mem, Compression: "uncompressed", PageSize: 64 << 10}, sc, recs},
		// No dictionary here outgrows the page size: arrow-go lists a fallen-back chunk's
		// encodings in map order, so such files differ from run to run in those bytes.
		{"dictionary-columns", WriterOptions{Mem: mem, DictionaryColumns: []string{"s", "i", "ls", "dec10"}}, sc, append(recs, sliced)},
		{"dictionary-chosen", WriterOptions{Mem: mem, Dictionary: true}, sc, append(recs, sliced)},
		{"trips-dictionary-chosen", WriterOptions{Mem: mem, Compression: "snappy", Dictionary: true, BlockSize: 256 << 10}, tripsSchema(), []arrow.Record{trips}},
		{"trips-gzip-rowgroups", WriterOptions{Mem: mem, BlockSize: 256 << 10}, tripsSchema(), []arrow.Record{trips}},
		{"no-rows", WriterOptions{Mem: mem}, sc, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write := func(pqarrowPath bool) []byte {
				forcePqarrow = pqarrowPath
				defer func() { forcePqarrow = false }()
				var buf bytes.Buffer
				w, err := NewWriter(&buf, tc.sc, tc.o)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range tc.recs {
					if err := w.Write(r); err != nil {
						t.Fatal(err)
					}
				}
				if w.opened && (w.pw != nil) == pqarrowPath {
					t.Fatalf("pqarrow path %v, writer direct %v", pqarrowPath, w.pw != nil)
				}
				w.AddKeyValue(KeyMinRecordKey, "a")
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if w.BytesWritten() != int64(buf.Len()) {
					t.Errorf("BytesWritten %d, file %d bytes", w.BytesWritten(), buf.Len())
				}
				return buf.Bytes()
			}
			direct, viaPqarrow := write(false), write(true)
			if tc.o.Dictionary {
				// The direct path hands chosen string columns to arrow-go as ids into a fixed
				// dictionary (dictwrite.go), whose page statistics are the dictionary's bounds:
				// the same rows, not the same bytes.
				sameRows(t, direct, viaPqarrow)
			} else if !bytes.Equal(direct, viaPqarrow) {
				t.Fatalf("direct path wrote %d bytes, pqarrow path %d bytes: files differ", len(direct), len(viaPqarrow))
			}
			f, err := file.NewParquetReader(bytes.NewReader(direct))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes, %d row groups, %d rows", len(direct), f.NumRowGroups(), f.NumRows())
			f.Close()
		})
	}
}

// TestWriterLazyRatiosMatchEager: learning the compression ratios only when a size
// decision needs them cuts the same row groups (same bytes) and reports the same sizes as
// compressing every sample at once.
func TestWriterLazyRatiosMatchEager(t *testing.T) {
	skipHeavyUnderRace(t)
	mem := memory.NewGoAllocator()
	sc := tripsSchema()
	var recs []arrow.Record
	for base := 0; base < 60000; base += 7000 {
		recs = append(recs, tripsRecord(mem, sc, base, 7000))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, o := range []WriterOptions{
		{BlockSize: 256 << 10},
		{BlockSize: 1 << 20, Compression: "snappy", PageSize: 64 << 10},
		{BlockSize: 3 << 20, Compression: "zstd"},
		{},
	} {
		t.Run(fmt.Sprintf("%s-%d", o.Compression, o.BlockSize), func(t *testing.T) {
			write := func(eager bool) ([]byte, []int64) {
				eagerRatios = eager
				defer func() { eagerRatios = false }()
				var buf bytes.Buffer
				w, err := NewWriter(&buf, sc, o)
				if err != nil {
					t.Fatal(err)
				}
				var sizes []int64
				for _, r := range recs {
					if err := w.Write(r); err != nil {
						t.Fatal(err)
					}
					b := w.BytesWrittenBound()
					exact := w.BytesWritten()
					if exact > b {
						t.Fatalf("BytesWritten %d above its bound %d", exact, b)
					}
					sizes = append(sizes, exact)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes(), sizes
			}
			lazy, lazySizes := write(false)
			eager, eagerSizes := write(true)
			if !bytes.Equal(lazy, eager) {
				t.Fatalf("lazy ratios wrote %d bytes, eager %d: files differ", len(lazy), len(eager))
			}
			if !slicesEqual(lazySizes, eagerSizes) {
				t.Fatalf("sizes differ:\nlazy  %v\neager %v", lazySizes, eagerSizes)
			}
			f, err := file.NewParquetReader(bytes.NewReader(lazy))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d row groups, %d bytes", f.NumRowGroups(), len(lazy))
			f.Close()
		})
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameRows fails unless two Parquet files hold the same rows and dictionary-encode the
// same columns.
func sameRows(t *testing.T, a, b []byte) {
	t.Helper()
	fa, err := OpenBytes(a, "a", memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := OpenBytes(b, "b", memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	if da, db := sparkDictionaryColumns(fa), sparkDictionaryColumns(fb); !slices.Equal(da, db) {
		t.Errorf("dictionary columns %v and %v", da, db)
	}
	ta, tb := readTable(t, fa), readTable(t, fb)
	defer ta.Release()
	defer tb.Release()
	if !array.TableEqual(ta, tb) {
		t.Errorf("the files hold different rows")
	}
}

func readTable(t *testing.T, f *File) arrow.Table {
	t.Helper()
	var recs []arrow.Record
	if err := f.ReadBatches(context.Background(), nil, nil, func(r arrow.Record) error {
		r.Retain()
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return array.NewTableFromRecords(f.Schema(), recs)
}
