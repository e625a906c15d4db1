package sql

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
)

// query runs a DuckDB query and returns its rows as Arrow records (see queryStream). The
// caller releases the records.
func (e *Engine) query(ctx context.Context, q string) (*arrow.Schema, []arrow.Record, error) {
	sc, read, cleanup, err := e.queryStream(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	var recs []arrow.Record
	err = read(func(rec arrow.Record) error {
		rec.Retain()
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, nil, err
	}
	return sc, recs, nil
}

// sparkResultTypes casts the 128-bit integer columns of a query's result — DuckDB's
// sum() and friends over BIGINT give HUGEINT, which Parquet cannot hold and DuckDB would
// copy out as DOUBLE (1.7000005e+12) — to BIGINT, Spark's type for sum(bigint). A value
// beyond BIGINT fails the query (DuckDB's overflow error) instead of printing rounded.
func (e *Engine) sparkResultTypes(ctx context.Context, q string) (string, error) {
	rows, err := e.conn.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE "+q+"\n)")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var sel []string
	wide := false
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", err
		}
		// Positional references (#n): result names may repeat (sum(a), sum(a)).
		ref := fmt.Sprintf("#%d", len(sel)+1)
		if typ == "HUGEINT" || typ == "UHUGEINT" {
			sel = append(sel, "CAST("+ref+" AS BIGINT) AS "+quoteIdent(name))
			wide = true
		} else {
			sel = append(sel, ref+" AS "+quoteIdent(name))
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if !wide {
		return q, nil
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM (" + q + "\n) AS __hudi_result", nil
}

// queryStream runs a DuckDB query and returns its schema and a reader of its batches:
// DuckDB copies the result to a Parquet file (streaming, preserving row order and nested
// types), which hudi-go's Parquet reader reads back a batch at a time, so nothing but a batch
// is held in memory. (duckdb-go's Arrow interface would avoid the file but needs the
// duckdb_arrow build tag.) cleanup removes the file.
func (e *Engine) queryStream(ctx context.Context, q string) (*arrow.Schema, func(func(arrow.Record) error) error, func(), error) {
	q, err := e.sparkResultTypes(ctx, q)
	if err != nil {
		return nil, nil, nil, err
	}
	file := e.tempFile("parquet")
	cleanup := func() { os.Remove(file) }
	if err := e.exec(ctx, "COPY ("+q+"\n) TO "+quoteString(file)+" (FORMAT parquet, COMPRESSION uncompressed)"); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	open := func() (*os.File, *parquet.File, error) {
		f, err := os.Open(file)
		if err != nil {
			return nil, nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		pf, err := parquet.Open(f, st.Size(), "query result", memory.DefaultAllocator, 0)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return f, pf, nil
	}
	f, pf, err := open()
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	sc := pf.Schema()
	pf.Close()
	f.Close()
	read := func(fn func(arrow.Record) error) error {
		f, pf, err := open()
		if err != nil {
			return err
		}
		defer f.Close()
		defer pf.Close()
		var fnErr error
		err = pf.ReadBatches(ctx, nil, nil, func(rec arrow.Record) error {
			fnErr = fn(rec)
			return fnErr
		})
		if err != nil && fnErr == nil {
			return fmt.Errorf("read query result: %w", err)
		}
		return err
	}
	return sc, read, cleanup, nil
}
