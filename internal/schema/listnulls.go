package schema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// CheckListElements refuses a null element in any list of rec (top-level, or inside
// structs, maps and other lists). Java Hudi 0.14 writes records through parquet-avro with
// its default old (2-level) list structure, which cannot hold a null element: its
// AvroWriteSupport throws "Array contains a null element at <i>". A file of ours holding
// one would make Java's later merge of that file group fail, so the write is refused up
// front. The error names the input row (1-based; rec's first row is input row row0+1),
// the column and the element's index.
func CheckListElements(rec arrow.Record, row0 int64) error {
	for c := 0; c < int(rec.NumCols()); c++ {
		if err := checkListNulls(rec.Column(c), rec.ColumnName(c), -1, row0); err != nil {
			return err
		}
	}
	return nil
}

// checkListNulls checks arr; row >= 0 is the top-level row that arr's values belong to
// when arr is nested (a struct field or list values are checked row by row only at the
// top level, so the reported row is exact there).
func checkListNulls(arr arrow.Array, path string, row int, row0 int64) error {
	switch a := arr.(type) {
	case array.ListLike:
		if _, isMap := a.(*array.Map); isMap {
			m := a.(*array.Map)
			if err := checkListNulls(m.Keys(), path+".key", row, row0); err != nil {
				return err
			}
			return checkListNulls(m.Items(), path+".value", row, row0)
		}
		vals := a.ListValues()
		nested := containsList(vals.DataType())
		if vals.NullN() == 0 && !nested {
			return nil // the common case: nothing to look for
		}
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				continue
			}
			start, end := a.ValueOffsets(i)
			r := row
			if r < 0 {
				r = i
			}
			for j := start; j < end; j++ {
				if vals.IsNull(int(j)) {
					return fmt.Errorf("input row %d, column %s: the array contains a null element at index %d; Hudi 0.14's Avro "+
						"write path (parquet-avro's 2-level lists) cannot write null list elements", row0+int64(r)+1, path, j-start)
				}
			}
			if nested {
				sub := array.NewSlice(vals, start, end)
				err := checkListNulls(sub, path+"[]", r, row0)
				sub.Release()
				if err != nil {
					return err
				}
			}
		}
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for f := 0; f < a.NumField(); f++ {
			if !containsList(st.Field(f).Type) {
				continue
			}
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					continue
				}
				r := row
				if r < 0 {
					r = i
				}
				s := array.NewSlice(a.Field(f), int64(i), int64(i+1))
				err := checkListNulls(s, path+"."+st.Field(f).Name, r, row0)
				s.Release()
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// containsList reports whether dt holds a (non-map) list anywhere.
func containsList(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.MapType:
		return containsList(t.KeyType()) || containsList(t.ItemType())
	case arrow.ListLikeType:
		return true
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if containsList(f.Type) {
				return true
			}
		}
	}
	return false
}
