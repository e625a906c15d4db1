package write_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/schema"
)

// benchRows is the bulk_insert size; HUDI_BENCH_ROWS overrides it (the target is
// measured with 5M rows).
func benchRows() int {
	if v, err := strconv.Atoi(os.Getenv("HUDI_BENCH_ROWS")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}

// BenchmarkBulkInsert compares hudi-go's bulk_insert of a trips table with arrow-go
// writing the same rows (plus the five _hoodie_* columns filled the same way) to one
// Parquet file per partition with the same codec, and with plain Parquet of the user
// columns. Run:
//
//	go test ./write -run '^$' -bench BulkInsert -benchtime 3x
//
// Only the ratio of ns/op between sub-benchmarks of one run means anything.
func BenchmarkBulkInsert(b *testing.B) {
	n := benchRows()
	batches := benchdata.Trips(n, 65536, 0)
	ctx := context.Background()
	const instant = "20250101000000000"
	b.Run("hudi", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dir := filepath.Join(b.TempDir(), "t")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, HiveStyle: true, Schema: benchdata.TripsDDL})
			if err != nil {
				b.Fatal(err)
			}
			res, err := tb.Write(ctx, batches, hudi.WriteOptions{Operation: "bulk_insert"})
			if err != nil {
				b.Fatal(err)
			}
			if res.Records.Inserted != int64(n) {
				b.Fatalf("inserted %d", res.Records.Inserted)
			}
		}
	})
	withMeta := schema.WithMetaFields(benchdata.TripsSchema)
	writeParquet := func(b *testing.B, sc *arrow.Schema, meta bool) {
		dir := b.TempDir()
		writers := map[string]*pqarrow.FileWriter{}
		props := pq.NewWriterProperties(pq.WithCompression(compress.Codecs.Gzip), pq.WithDictionaryDefault(false))
		for bi, rec := range batches {
			city := rec.Column(5).(*array.String)
			// group rows by partition as the Hudi writer does
			idx := map[string][]int{}
			for r := 0; r < int(rec.NumRows()); r++ {
				idx[city.Value(r)] = append(idx[city.Value(r)], r)
			}
			for c, rows := range idx {
				w := writers[c]
				if w == nil {
					f, err := os.Create(filepath.Join(dir, c+".parquet"))
					if err != nil {
						b.Fatal(err)
					}
					w, err = pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
					if err != nil {
						b.Fatal(err)
					}
					writers[c] = w
				}
				rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
				off := 0
				if meta {
					for _, r := range rows {
						rb.Field(0).(*array.StringBuilder).Append(instant)
						rb.Field(1).(*array.StringBuilder).Append(instant + "_" + strconv.Itoa(bi) + "_" + strconv.Itoa(r))
						rb.Field(2).(*array.StringBuilder).Append(rec.Column(1).(*array.String).Value(r))
						rb.Field(3).(*array.StringBuilder).Append("city=" + c)
						rb.Field(4).(*array.StringBuilder).Append(c + ".parquet")
					}
					off = 5
				}
				for _, r := range rows {
					rb.Field(off + 0).(*array.Int64Builder).Append(rec.Column(0).(*array.Int64).Value(r))
					rb.Field(off + 1).(*array.StringBuilder).Append(rec.Column(1).(*array.String).Value(r))
					rb.Field(off + 2).(*array.StringBuilder).Append(rec.Column(2).(*array.String).Value(r))
					rb.Field(off + 3).(*array.StringBuilder).Append(rec.Column(3).(*array.String).Value(r))
					rb.Field(off + 4).(*array.Float64Builder).Append(rec.Column(4).(*array.Float64).Value(r))
					rb.Field(off + 5).(*array.StringBuilder).Append(c)
				}
				out := rb.NewRecord()
				if err := w.Write(out); err != nil {
					b.Fatal(err)
				}
				out.Release()
				rb.Release()
			}
		}
		for _, w := range writers {
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("arrow-go-with-meta", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			writeParquet(b, withMeta, true)
		}
	})
	b.Run("arrow-go-user-columns", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			writeParquet(b, benchdata.TripsSchema, false)
		}
	})
}
