package crosscheck_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/hudi-go/hudi"
)

func benchRows() int {
	if v, err := strconv.Atoi(os.Getenv("HUDI_BENCH_ROWS")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}

// BenchmarkBulkInsertVsDuckDB compares hudi-go's bulk_insert of a trips table with DuckDB
// COPY writing the same rows, partitioned the same way, with the five _hoodie_* columns
// computed in SQL, to gzip Parquet. DuckDB runs with one thread per core, as hudi-go
// writes files in parallel. Run:
//
//	go test ./internal/crosscheck -run '^$' -bench BulkInsertVsDuckDB -benchtime 2x
func BenchmarkBulkInsertVsDuckDB(b *testing.B) {
	n := benchRows()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "rider", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "driver", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	cities := []string{"san_francisco", "sao_paulo", "chennai", "new_york"}
	var batches []arrow.Record
	for start := 0; start < n; start += 65536 {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i := start; i < min(n, start+65536); i++ {
			rb.Field(0).(*array.Int64Builder).Append(1700000000000 + int64(i))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*7919))
			rb.Field(2).(*array.StringBuilder).Append("rider-" + strconv.Itoa(i%100))
			rb.Field(3).(*array.StringBuilder).Append("driver-" + strconv.Itoa(i%50))
			rb.Field(4).(*array.Float64Builder).Append(float64(i%1000) / 10)
			rb.Field(5).(*array.StringBuilder).Append(cities[i%len(cities)])
		}
		batches = append(batches, rb.NewRecord())
		rb.Release()
	}
	ctx := context.Background()
	b.Run("hudi", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dir := filepath.Join(b.TempDir(), "t")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, HiveStyle: true, Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tb.Write(ctx, batches, hudi.WriteOptions{Operation: "bulk_insert"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	// The same rows, generated inside DuckDB so that no Go→DuckDB transfer is timed.
	if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE trips AS SELECT 1700000000000 + i AS ts,
		printf('%%08x-0000-4000-8000-%%012x', i, i*7919) AS uuid, 'rider-' || (i %% 100) AS rider,
		'driver-' || (i %% 50) AS driver, (i %% 1000) / 10.0 AS fare,
		['san_francisco','sao_paulo','chennai','new_york'][(i %% 4) + 1] AS city FROM range(%d) t(i)`, n)); err != nil {
		b.Fatal(err)
	}
	b.Run("duckdb-copy-with-meta", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dir := b.TempDir()
			_, err := db.Exec(fmt.Sprintf(`COPY (SELECT '20250101000000000' AS _hoodie_commit_time,
				'20250101000000000_0_' || row_number() OVER () AS _hoodie_commit_seqno, uuid AS _hoodie_record_key,
				'city=' || city AS _hoodie_partition_path, 'f-0_0-1-0_20250101000000000.parquet' AS _hoodie_file_name,
				ts, uuid, rider, driver, fare, city AS city_value, city FROM trips)
				TO '%s' (FORMAT parquet, COMPRESSION gzip, PARTITION_BY (city))`, filepath.Join(dir, "out")))
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("duckdb-copy-user-columns", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dir := b.TempDir()
			if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT ts, uuid, rider, driver, fare, city AS city_value, city FROM trips)
				TO '%s' (FORMAT parquet, COMPRESSION gzip, PARTITION_BY (city))`, filepath.Join(dir, "out"))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
