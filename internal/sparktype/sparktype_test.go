package sparktype

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestOf pins Spark SQL's type names (DataType.simpleString/catalogString) for Hudi's
// column types.
func TestOf(t *testing.T) {
	for _, tc := range []struct {
		t    arrow.DataType
		want string
	}{
		{arrow.PrimitiveTypes.Int32, "int"},
		{arrow.PrimitiveTypes.Int64, "bigint"},
		{arrow.BinaryTypes.String, "string"},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, "decimal(10,2)"},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "timestamp"},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, "timestamp_ntz"},
		{arrow.FixedWidthTypes.Date32, "date"},
		{arrow.ListOf(arrow.BinaryTypes.String), "array<string>"},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), "map<string,int>"},
		{arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Float64}), "struct<a:double>"},
	} {
		if got := Of(tc.t); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.t, got, tc.want)
		}
	}
}
