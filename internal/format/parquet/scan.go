package parquet

import (
	"context"
	"fmt"

	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// ScanStrings calls fn with each row's value of a flat byte-array leaf column (a string
// column such as _hoodie_record_key), in row order over every row group, without building
// Arrow arrays: v points into the decoded page and is valid only during the call (copy it
// to keep it); a null value comes with valid=false. An index lookup that only tests each
// key against a set spent most of its time growing Arrow string builders (bench W3). As
// in ReadBatches, a panic of the decoder on corrupt pages becomes an error naming the file.
func (f *File) ScanStrings(ctx context.Context, leaf int, fn func(v []byte, valid bool) error) (err error) {
	schema := f.pr.MetaData().Schema
	if leaf < 0 || leaf >= schema.NumColumns() {
		return fmt.Errorf("parquet file %s: no leaf column %d", f.name, leaf)
	}
	col := schema.Column(leaf)
	if col.PhysicalType() != pq.Types.ByteArray || col.MaxRepetitionLevel() != 0 {
		return fmt.Errorf("parquet file %s: column %s is not a flat byte-array column", f.name, col.Path())
	}
	maxDef := col.MaxDefinitionLevel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet file %s: corrupt data in column %s: %v", f.name, col.Path(), p)
		}
	}()
	const batch = 4096
	values := make([]pq.ByteArray, batch)
	defs := make([]int16, batch)
	for rg := 0; rg < f.pr.NumRowGroups(); rg++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		cr, err := f.pr.RowGroup(rg).Column(leaf)
		if err != nil {
			return fmt.Errorf("parquet file %s: row group %d column %s: %w", f.name, rg, col.Path(), err)
		}
		br, ok := cr.(*file.ByteArrayColumnChunkReader)
		if !ok {
			return fmt.Errorf("parquet file %s: column %s has reader %T", f.name, col.Path(), cr)
		}
		for br.HasNext() {
			// In-page reads hand out slices of the page buffer instead of copies.
			total, n, err := br.ReadBatchInPage(batch, values, defs, nil)
			if err != nil {
				return fmt.Errorf("parquet file %s: row group %d column %s: %w", f.name, rg, col.Path(), err)
			}
			if total == 0 {
				break
			}
			vi := 0
			for i := 0; i < int(total); i++ {
				if maxDef > 0 && defs[i] < maxDef {
					if err := fn(nil, false); err != nil {
						return err
					}
					continue
				}
				if vi >= n {
					return fmt.Errorf("parquet file %s: row group %d column %s: %d values for %d defined rows", f.name, rg, col.Path(), n, vi+1)
				}
				if err := fn(values[vi], true); err != nil {
					return err
				}
				vi++
			}
		}
	}
	return nil
}
