package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/sparktype"
)

// duckType is the DuckDB type a value of a Hudi column is cast to before it is written, so
// the rows DuckDB hands back already have the table's types (an INT column gets INTEGER,
// not the BIGINT a literal would give, and the writer never widens the table schema by
// accident). Spark TIMESTAMP is an instant: TIMESTAMPTZ, whose casts from text or from a
// naive TIMESTAMP use the session TimeZone, as Spark's use spark.sql.session.timeZone.
func duckType(t arrow.DataType) (string, error) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN", nil
	case *arrow.Int8Type:
		return "TINYINT", nil
	case *arrow.Int16Type:
		return "SMALLINT", nil
	case *arrow.Int32Type:
		return "INTEGER", nil
	case *arrow.Int64Type:
		return "BIGINT", nil
	case *arrow.Float32Type:
		return "FLOAT", nil
	case *arrow.Float64Type:
		return "DOUBLE", nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "VARCHAR", nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return "BLOB", nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return "DATE", nil
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return "TIMESTAMP", nil
		}
		return "TIMESTAMPTZ", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), nil
	case *arrow.Decimal256Type:
		if t.Precision > 38 {
			return "", fmt.Errorf("DECIMAL(%d,%d) is wider than DuckDB's DECIMAL(38)", t.Precision, t.Scale)
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), nil
	case *arrow.ListType:
		e, err := duckType(t.Elem())
		if err != nil {
			return "", err
		}
		return e + "[]", nil
	case *arrow.LargeListType:
		e, err := duckType(t.Elem())
		if err != nil {
			return "", err
		}
		return e + "[]", nil
	case *arrow.MapType:
		k, err := duckType(t.KeyType())
		if err != nil {
			return "", err
		}
		v, err := duckType(t.ItemType())
		if err != nil {
			return "", err
		}
		return "MAP(" + k + ", " + v + ")", nil
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			ft, err := duckType(f.Type)
			if err != nil {
				return "", err
			}
			parts[i] = quoteIdent(f.Name) + " " + ft
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")", nil
	}
	return "", fmt.Errorf("no DuckDB type for %s", t)
}

// sparkType names an Arrow type of a Hudi table the way Spark's DESCRIBE does.
func sparkType(t arrow.DataType) string { return sparktype.Of(t) }

// quoteIdent quotes a DuckDB identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a DuckDB string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
