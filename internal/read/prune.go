package read

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
)

// rowGroupSelector returns, for a base file, the row groups whose column statistics may
// match the filter. Columns are looked up by name in the file — through fileColumn, when
// given, which names a table column in the file (schema evolution on read: by column id)
// and refuses columns whose statistics do not describe it; a column without statistics
// (or of a type we do not map) never prunes.
func rowGroupSelector(filter expr.Expr, tableSchema *arrow.Schema) filegroup.RowGroupSelector {
	return func(pf *parquet.File, fileColumn func(string) (string, bool)) []int {
		var keep []int
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			ok := expr.MayMatch(filter, func(col string) (expr.ColumnStats, bool) {
				if strings.Contains(col, ".") {
					return expr.ColumnStats{}, false
				}
				i := schema.FieldIndex(tableSchema, col)
				if i < 0 {
					return expr.ColumnStats{}, false
				}
				name := tableSchema.Field(i).Name
				if fileColumn != nil {
					var ok bool
					if name, ok = fileColumn(name); !ok {
						return expr.ColumnStats{}, false
					}
				}
				leaf := pf.LeafIndex(name)
				if leaf < 0 {
					return expr.ColumnStats{}, false
				}
				st, ok := pf.ColumnChunkStats(rg, leaf)
				if !ok {
					return expr.ColumnStats{}, false
				}
				return columnStats(st, tableSchema.Field(i).Type), true
			})
			if ok {
				keep = append(keep, rg)
			}
		}
		return keep
	}
}

// columnStats converts Parquet statistics to the filter's form, interpreting physical
// values through the column's Arrow (logical) type.
func columnStats(st metadata.TypedStatistics, t arrow.DataType) expr.ColumnStats {
	cs := expr.ColumnStats{NullCount: st.NullCount(), ValueCount: st.NumValues() + st.NullCount()}
	if !st.HasNullCount() {
		cs.ValueCount = 0 // counts unknown
	}
	if !st.HasMinMax() {
		return cs
	}
	var lo, hi any
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		switch t.ID() {
		case arrow.DATE32:
			lo, hi = expr.Date(s.Min()), expr.Date(s.Max())
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
			lo, hi = int64(s.Min()), int64(s.Max())
		}
	case *metadata.Int64Statistics:
		switch tt := t.(type) {
		case *arrow.TimestampType:
			// Stats are in the file's unit; the schema layer reads timestamps as micros.
			// Only a microsecond file column maps directly; others do not prune.
			if tt.Unit == arrow.Microsecond && st.Descr().LogicalType() != nil &&
				strings.Contains(st.Descr().LogicalType().String(), "micros") {
				lo, hi = expr.TimestampMicros(s.Min()), expr.TimestampMicros(s.Max())
			}
		case *arrow.Int64Type, *arrow.Int32Type:
			lo, hi = s.Min(), s.Max()
		}
	case *metadata.Float32Statistics:
		if t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 {
			lo, hi = float64(s.Min()), float64(s.Max())
		}
	case *metadata.Float64Statistics:
		if t.ID() == arrow.FLOAT64 {
			lo, hi = s.Min(), s.Max()
		}
	case *metadata.ByteArrayStatistics:
		if t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING {
			lo, hi = string(s.Min()), string(s.Max())
		}
	case *metadata.BooleanStatistics:
		if t.ID() == arrow.BOOL {
			lo, hi = s.Min(), s.Max()
		}
	}
	if lo != nil {
		cs.Min, cs.Max, cs.HasMinMax = lo, hi, true
	}
	return cs
}
