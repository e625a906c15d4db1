package schema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// NullViolation is a null value in a NOT NULL column (or struct field).
type NullViolation struct {
	Row  int    // 0-based row of the record
	Path string // column, or column.field for a struct field
}

func (v *NullViolation) Error() string {
	return fmt.Sprintf("column %q is NOT NULL, but row %d holds a null", v.Path, v.Row+1)
}

// CheckNotNull returns the first null in rec that its schema declares NOT NULL: a
// top-level column, or a struct field within a non-null struct value. Written as is, such
// a null would reach the Parquet writer of a required column, which stores the type's
// zero value ("" or 0) instead.
func CheckNotNull(rec arrow.Record) *NullViolation {
	for i, f := range rec.Schema().Fields() {
		if v := checkNotNull(rec.Column(i), f, f.Name, nil); v != nil {
			return v
		}
	}
	return nil
}

// checkNotNull checks arr (field f) in the rows where valid (nil = all rows) is true.
func checkNotNull(arr arrow.Array, f arrow.Field, path string, valid func(int) bool) *NullViolation {
	if !f.Nullable && arr.NullN() > 0 {
		for r := 0; r < arr.Len(); r++ {
			if arr.IsNull(r) && (valid == nil || valid(r)) {
				return &NullViolation{Row: r, Path: path}
			}
		}
	}
	st, ok := arr.(*array.Struct)
	if !ok {
		return nil
	}
	here := func(r int) bool { return st.IsValid(r) && (valid == nil || valid(r)) }
	for j, cf := range st.DataType().(*arrow.StructType).Fields() {
		if v := checkNotNull(st.Field(j), cf, path+"."+cf.Name, here); v != nil {
			return v
		}
	}
	return nil
}
