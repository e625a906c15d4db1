package sql

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/format/parquet"
)

// query runs a DuckDB query and returns its rows as Arrow records: DuckDB copies the result
// to a Parquet file (preserving row order and nested types), which hudi-go's Parquet reader
// reads back. The caller releases the records.
func (e *Engine) query(ctx context.Context, q string) (*arrow.Schema, []arrow.Record, error) {
	file := e.tempFile("parquet")
	defer os.Remove(file)
	if err := e.exec(ctx, "COPY ("+q+"\n) TO "+quoteString(file)+" (FORMAT parquet, COMPRESSION uncompressed)"); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	pf, err := parquet.Open(f, st.Size(), "query result", memory.DefaultAllocator, 0)
	if err != nil {
		return nil, nil, err
	}
	defer pf.Close()
	var recs []arrow.Record
	err = pf.ReadBatches(ctx, nil, nil, func(rec arrow.Record) error {
		rec.Retain()
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, nil, fmt.Errorf("read query result: %w", err)
	}
	return pf.Schema(), recs, nil
}
