package filegroup

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fillPartitionValues replaces the given columns (all null: the data files do not store
// them) with the partition values parsed from the path, converted to the column type.
func fillPartitionValues(mem memory.Allocator, rec arrow.Record, values map[string]string) (arrow.Record, error) {
	sc := rec.Schema()
	cols := make([]arrow.Array, sc.NumFields())
	defer releaseAll(cols)
	n := int(rec.NumRows())
	for i, f := range sc.Fields() {
		v, ok := values[f.Name]
		if !ok || rec.Column(i).NullN() != n {
			cols[i] = rec.Column(i)
			cols[i].Retain()
			continue
		}
		arr, err := constantArray(mem, f.Type, v, n)
		if err != nil {
			return nil, fmt.Errorf("partition column %s: %w", f.Name, err)
		}
		cols[i] = arr
	}
	return array.NewRecord(sc, cols, int64(n)), nil
}

// constantArray builds an array of n copies of a partition value parsed into type t.
func constantArray(mem memory.Allocator, t arrow.DataType, v string, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	if v == "__HIVE_DEFAULT_PARTITION__" {
		b.AppendNulls(n)
		return b.NewArray(), nil
	}
	for i := 0; i < n; i++ {
		if err := b.AppendValueFromString(v); err != nil {
			return nil, fmt.Errorf("value %q as %s: %w", v, t, err)
		}
	}
	return b.NewArray(), nil
}
