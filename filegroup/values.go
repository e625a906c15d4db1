package filegroup

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/merge"
)

// orderingValue reads an ordering value from an Arrow cell.
func orderingValue(arr arrow.Array, i int) merge.Ordering {
	if arr.IsNull(i) {
		return merge.Ordering{}
	}
	switch a := arr.(type) {
	case *array.Int8:
		return merge.OrderingOf(int64(a.Value(i)))
	case *array.Int16:
		return merge.OrderingOf(int64(a.Value(i)))
	case *array.Int32:
		return merge.OrderingOf(int64(a.Value(i)))
	case *array.Int64:
		return merge.OrderingOf(a.Value(i))
	case *array.Float32:
		return merge.OrderingOf(float64(a.Value(i)))
	case *array.Float64:
		return merge.OrderingOf(a.Value(i))
	case *array.String:
		return merge.OrderingOf(a.Value(i))
	case *array.Binary:
		return merge.OrderingOf(a.Value(i))
	case *array.Boolean:
		return merge.OrderingOf(a.Value(i))
	case *array.Date32:
		return merge.OrderingOf(int64(a.Value(i)))
	case *array.Timestamp:
		return merge.OrderingOf(int64(a.Value(i)))
	case *array.Decimal128:
		f, _ := strconv.ParseFloat(a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale), 64)
		return merge.OrderingOf(f)
	}
	return merge.Ordering{}
}

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
