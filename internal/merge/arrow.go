package merge

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// OrderingAt reads the ordering value of row i of an Arrow column (absent for null or an
// unsupported type). Dates and timestamps compare as their integer values; decimals as
// their float value.
func OrderingAt(arr arrow.Array, i int) Ordering {
	if arr.IsNull(i) {
		return Ordering{}
	}
	switch a := arr.(type) {
	case *array.Int8:
		return OrderingOf(int32(a.Value(i)))
	case *array.Int16:
		return OrderingOf(int32(a.Value(i)))
	case *array.Int32:
		return OrderingOf(a.Value(i)) // Avro int: a Java Integer
	case *array.Int64:
		return OrderingOf(a.Value(i))
	case *array.Float32:
		return OrderingOf(float64(a.Value(i)))
	case *array.Float64:
		return OrderingOf(a.Value(i))
	case *array.String:
		return OrderingOf(a.Value(i))
	case *array.Binary:
		return OrderingOf(a.Value(i))
	case *array.Boolean:
		return OrderingOf(a.Value(i))
	case *array.Date32:
		return OrderingOf(int32(a.Value(i))) // the Avro int a log data record holds
	case *array.Timestamp:
		return OrderingOf(int64(a.Value(i)))
	case *array.Decimal128:
		f, _ := strconv.ParseFloat(a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale), 64)
		return OrderingOf(f)
	}
	return Ordering{}
}
