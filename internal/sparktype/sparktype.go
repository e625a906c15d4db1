// Package sparktype names Arrow types of Hudi tables as Spark SQL does (DESCRIBE, SHOW
// CREATE TABLE, hudi describe), so the CLI and the SQL engine print the same names.
package sparktype

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Of names an Arrow type of a Hudi table the way Spark SQL's DESCRIBE does.
func Of(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return "boolean"
	case *arrow.Int8Type:
		return "tinyint"
	case *arrow.Int16Type:
		return "smallint"
	case *arrow.Int32Type:
		return "int"
	case *arrow.Int64Type:
		return "bigint"
	case *arrow.Float32Type:
		return "float"
	case *arrow.Float64Type:
		return "double"
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "string"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return "binary"
	case *arrow.Date32Type, *arrow.Date64Type:
		return "date"
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return "timestamp_ntz"
		}
		return "timestamp"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *arrow.ListType:
		return "array<" + Of(t.Elem()) + ">"
	case *arrow.LargeListType:
		return "array<" + Of(t.Elem()) + ">"
	case *arrow.MapType:
		return "map<" + Of(t.KeyType()) + "," + Of(t.ItemType()) + ">"
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = f.Name + ":" + Of(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return strings.ToLower(t.String())
}
