package sql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/sql/parser"
)

// BenchmarkLoad compares the two ways of handing a Hudi table to DuckDB: the Parquet
// transfer file the engine uses (scan → Parquet → read_parquet) and duckdb-go's Appender
// (scan → row by row). 100k rows of the quick start's trips schema (flat columns only: the
// Appender would need a Go value for every nested list/struct/map cell, the Parquet file
// carries them natively). Measured on the shared 2-core box under heavy load (load average
// 12–16), so only the ratio means something: parquet ~1.0 s, appender ~0.85 s beyond the
// 0.24 s scan. They are close; the engine keeps the Parquet path because it is exact for every
// Hudi type (decimals, timestamps, nested types) with no per-type conversion code.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Options{Warehouse: b.TempDir(), TimeZone: "UTC"})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	stmts, err := parser.Parse(`CREATE TABLE trips (ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING)
USING HUDI PARTITIONED BY (city) TBLPROPERTIES (primaryKey = 'uuid', preCombineField = 'ts');
INSERT INTO trips SELECT i, 'uuid-' || i, 'rider-' || (i % 100), 'driver-' || (i % 37), i * 0.5, 'city' || (i % 5) FROM range(100000) t(i)`)
	if err != nil {
		b.Fatal(err)
	}
	for _, st := range stmts {
		if _, err := e.Exec(ctx, st); err != nil {
			b.Fatal(err)
		}
	}
	h, err := e.resolveText(ctx, "trips")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parquet", func(b *testing.B) {
		for b.Loop() {
			bd := newBinder(e)
			if _, err := bd.load(ctx, h, hudiScanAll); err != nil {
				b.Fatal(err)
			}
			bd.close(ctx)
		}
	})
	b.Run("appender", func(b *testing.B) {
		for b.Loop() {
			if err := appendLoad(ctx, e, h); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func appendLoad(ctx context.Context, e *Engine, h *hudiTable) error {
	if err := e.exec(ctx, `CREATE OR REPLACE TEMP TABLE app (c0 VARCHAR, c1 VARCHAR, c2 VARCHAR, c3 VARCHAR, c4 VARCHAR,
ts BIGINT, uuid VARCHAR, rider VARCHAR, driver VARCHAR, fare DOUBLE, city VARCHAR)`); err != nil {
		return err
	}
	scan, err := h.t.Scan(ctx, hudiScanAll)
	if err != nil {
		return err
	}
	return e.conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppender(dc.(driver.Conn), "temp", "main", "app")
		if err != nil {
			return err
		}
		err = scan.Run(ctx, func(rec arrowRecord) error {
			row := make([]driver.Value, rec.NumCols())
			for i := 0; i < int(rec.NumRows()); i++ {
				for c := range row {
					row[c] = cellValue(rec.Column(c), i)
				}
				if err := a.AppendRow(row...); err != nil {
					return fmt.Errorf("append: %w", err)
				}
			}
			return nil
		})
		if cerr := a.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

func BenchmarkScanOnly(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Options{Warehouse: b.TempDir(), TimeZone: "UTC"})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	stmts, _ := parser.Parse(`CREATE TABLE trips (ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING)
USING HUDI PARTITIONED BY (city) TBLPROPERTIES (primaryKey = 'uuid', preCombineField = 'ts');
INSERT INTO trips SELECT i, 'uuid-' || i, 'rider-' || (i % 100), 'driver-' || (i % 37), i * 0.5, 'city' || (i % 5) FROM range(100000) t(i)`)
	for _, st := range stmts {
		if _, err := e.Exec(ctx, st); err != nil {
			b.Fatal(err)
		}
	}
	h, _ := e.resolveText(ctx, "trips")
	for b.Loop() {
		scan, _ := h.t.Scan(ctx, hudiScanAll)
		if err := scan.Run(ctx, func(rec arrowRecord) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

type arrowRecord = arrow.Record

var hudiScanAll = hudi.ScanOptions{}

// cellValue converts the flat types of the benchmark's schema.
func cellValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	}
	return nil
}
