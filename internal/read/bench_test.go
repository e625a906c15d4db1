package read

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage/local"
)

// tripsAvroSchema is the quickstart trips schema as Hudi records it in commit metadata.
const tripsAvroSchema = `{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":[` +
	`{"name":"ts","type":["null","long"],"default":null},{"name":"uuid","type":["null","string"],"default":null},` +
	`{"name":"rider","type":["null","string"],"default":null},{"name":"driver","type":["null","string"],"default":null},` +
	`{"name":"fare","type":["null","double"],"default":null},{"name":"city","type":["null","string"],"default":null}]}`

// writeSyntheticCOWTable writes a v6 copy-on-write table with one commit of `files` base
// files of `rows` rows each, laid out as Hudi 0.14 lays them out, and returns the table
// path and the base file paths. It stands in for the writer until hudi-go has one.
func writeSyntheticCOWTable(tb testing.TB, dir string, files, rows int) []string {
	tb.Helper()
	const instant = "20250101000000000"
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, ".hoodie"), 0o755))
	props := "hoodie.table.name=trips\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=6\n" +
		"hoodie.table.recordkey.fields=uuid\nhoodie.table.precombine.field=ts\n" +
		"hoodie.table.keygenerator.class=org.apache.hudi.keygen.NonpartitionedKeyGenerator\n" +
		"hoodie.timeline.layout.version=1\nhoodie.table.checksum=3761586722\n"
	must(os.WriteFile(filepath.Join(dir, ".hoodie", "hoodie.properties"), []byte(props), 0o644))
	must(os.WriteFile(filepath.Join(dir, ".hoodie_partition_metadata"), []byte("commitTime="+instant+"\npartitionDepth=0\n"), 0o644))
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "_hoodie_commit_time", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "_hoodie_commit_seqno", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "_hoodie_record_key", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "_hoodie_partition_path", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "_hoodie_file_name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "rider", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "driver", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	cities := []string{"san_francisco", "sao_paulo", "chennai", "new_york"}
	var paths []string
	for f := 0; f < files; f++ {
		name := fmt.Sprintf("%08d-0000-0000-0000-000000000000-0_0-1-%d_%s.parquet", f, f, instant)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i := 0; i < rows; i++ {
			key := fmt.Sprintf("key-%d-%08d", f, i)
			b.Field(0).(*array.StringBuilder).Append(instant)
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%s_%d_%d", instant, f, i))
			b.Field(2).(*array.StringBuilder).Append(key)
			b.Field(3).(*array.StringBuilder).Append("")
			b.Field(4).(*array.StringBuilder).Append(name)
			b.Field(5).(*array.Int64Builder).Append(int64(1700000000000 + i))
			b.Field(6).(*array.StringBuilder).Append(key)
			b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("rider-%d", i%100))
			b.Field(8).(*array.StringBuilder).Append(fmt.Sprintf("driver-%d", i%50))
			b.Field(9).(*array.Float64Builder).Append(float64(i%1000) / 10)
			b.Field(10).(*array.StringBuilder).Append(cities[i%len(cities)])
		}
		rec := b.NewRecord()
		b.Release()
		p := filepath.Join(dir, name)
		out, err := os.Create(p)
		must(err)
		w, err := pqarrow.NewFileWriter(sc, out, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false)), pqarrow.DefaultWriterProps())
		must(err)
		must(w.Write(rec))
		must(w.Close())
		rec.Release()
		paths = append(paths, p)
	}
	commit := fmt.Sprintf(`{"partitionToWriteStats":{},"compacted":false,"extraMetadata":{"schema":%q},"operationType":"INSERT"}`, tripsAvroSchema)
	for _, n := range []string{instant + ".commit.requested", instant + ".inflight"} {
		must(os.WriteFile(filepath.Join(dir, ".hoodie", n), nil, 0o644))
	}
	must(os.WriteFile(filepath.Join(dir, ".hoodie", instant+".commit"), []byte(commit), 0o644))
	return paths
}

// BenchmarkCOWSnapshotScan compares a hudi-go snapshot scan of a COW table with arrow-go
// reading the same Parquet files directly. Run:
//
//	go test ./read -run '^$' -bench COWSnapshotScan -benchtime 5x
//
// and compare the ns/op of the two sub-benchmarks (the ratio is what counts).
func BenchmarkCOWSnapshotScan(b *testing.B) {
	dir := b.TempDir()
	paths := writeSyntheticCOWTable(b, dir, 4, 250_000)
	ctx := context.Background()
	b.Run("hudi", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			t, err := table.Open(ctx, local.New(dir))
			if err != nil {
				b.Fatal(err)
			}
			s, err := Plan(ctx, t, Options{Parallelism: 1})
			if err != nil {
				b.Fatal(err)
			}
			rows := 0
			if err := s.Run(ctx, func(r arrow.Record) error { rows += int(r.NumRows()); return nil }); err != nil {
				b.Fatal(err)
			}
			if rows != 1_000_000 {
				b.Fatalf("rows = %d", rows)
			}
		}
	})
	b.Run("arrow-go", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rows := 0
			for _, p := range paths {
				f, err := os.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				pr, err := file.NewParquetReader(f)
				if err != nil {
					b.Fatal(err)
				}
				fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				rr, err := fr.GetRecordReader(ctx, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				for rr.Next() {
					rows += int(rr.Record().NumRows())
				}
				rr.Release()
				pr.Close()
			}
			if rows != 1_000_000 {
				b.Fatalf("rows = %d", rows)
			}
		}
	})
}
