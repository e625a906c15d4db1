package crosscheck_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
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
	batches := benchdata.Trips(n, 65536, 0)
	ctx := context.Background()
	b.Run("hudi", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dir := filepath.Join(b.TempDir(), "t")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, HiveStyle: true, Schema: benchdata.TripsDDL})
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
	if _, err := db.Exec("CREATE TABLE trips AS " + benchdata.TripsSQL(n, 0)); err != nil {
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
