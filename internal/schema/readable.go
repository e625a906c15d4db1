package schema

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// CheckReadable reports whether a file whose columns are file (a base file's or Parquet
// log block's Arrow schema, or an Avro log block's SCHEMA header through FromAvro) can be
// read under table, column by column as ConformRecord reads it: the pairs of types
// Conform converts, recursively through structs, lists and maps. Columns of table the
// file lacks read as null; columns only in the file are dropped. The error names every
// column that cannot be read, with both types.
//
// Writers call it before creating an instant that changes the table schema, so a commit
// never leaves files its own schema cannot read (what Java's
// TableSchemaResolver/AvroSchemaUtils.isSchemaCompatible guard against when they refuse
// an incompatible writer schema).
func CheckReadable(file, table *arrow.Schema) error {
	var errs []error
	for _, f := range table.Fields() {
		j := FieldIndex(file, f.Name)
		if j < 0 {
			continue
		}
		if path, ft, tt, ok := readableAs(file.Field(j).Type, f.Type, f.Name); !ok {
			errs = append(errs, fmt.Errorf("column %q: the file stores %s, which %s cannot read", path, typeName(ft), typeName(tt)))
		}
	}
	return errors.Join(errs...)
}

// readableAs mirrors convert: it returns ok, or the innermost path and pair of types that
// Conform cannot convert.
func readableAs(src, dst arrow.DataType, path string) (string, arrow.DataType, arrow.DataType, bool) {
	src, dst = undict(src), undict(dst)
	if arrow.TypeEqual(src, dst) || src.ID() == arrow.NULL {
		return "", nil, nil, true
	}
	fail := func() (string, arrow.DataType, arrow.DataType, bool) { return path, src, dst, false }
	in := func(ids ...arrow.Type) bool {
		for _, id := range ids {
			if src.ID() == id {
				return true
			}
		}
		return false
	}
	binaryLike := []arrow.Type{arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW}
	bytesLike := []arrow.Type{arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY, arrow.BINARY_VIEW}
	ok := false
	switch dst.ID() {
	case arrow.INT32:
		ok = in(arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16)
	case arrow.INT64:
		ok = in(arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.STRING, arrow.LARGE_STRING)
	case arrow.FLOAT32:
		ok = in(arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64)
	case arrow.FLOAT64:
		ok = in(arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32)
	case arrow.STRING:
		ok = in(binaryLike...) || in(arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64)
	case arrow.BINARY:
		ok = in(binaryLike...) || in(arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64)
	case arrow.FIXED_SIZE_BINARY:
		ok = in(bytesLike...)
	case arrow.TIMESTAMP:
		ok = in(arrow.TIMESTAMP)
	case arrow.DATE32:
		ok = in(arrow.DATE64)
	case arrow.TIME64:
		ok = in(arrow.TIME32, arrow.TIME64)
	case arrow.DECIMAL128:
		ok = in(arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256, arrow.INT32, arrow.INT64) || in(bytesLike...)
	case arrow.DECIMAL256:
		ok = in(arrow.DECIMAL128, arrow.DECIMAL256, arrow.INT64) || in(bytesLike...)
	case arrow.STRUCT:
		ss, isStruct := src.(*arrow.StructType)
		if !isStruct {
			return fail()
		}
		for _, f := range dst.(*arrow.StructType).Fields() {
			j := structFieldIndex(ss, f.Name)
			if j < 0 {
				continue
			}
			if p, a, b, ok := readableAs(ss.Field(j).Type, f.Type, joinPath(path, f.Name)); !ok {
				return p, a, b, false
			}
		}
		return "", nil, nil, true
	case arrow.LIST:
		sl, isList := src.(arrow.ListLikeType)
		if !isList || (src.ID() != arrow.LIST && src.ID() != arrow.LARGE_LIST) {
			return fail()
		}
		return readableAs(sl.Elem(), dst.(*arrow.ListType).Elem(), path+"[]")
	case arrow.MAP:
		sm, isMap := src.(*arrow.MapType)
		if !isMap {
			return fail()
		}
		dm := dst.(*arrow.MapType)
		if p, a, b, ok := readableAs(sm.KeyType(), dm.KeyType(), path+".key"); !ok {
			return p, a, b, false
		}
		return readableAs(sm.ItemType(), dm.ItemType(), path+".value")
	}
	if !ok {
		return fail()
	}
	return "", nil, nil, true
}
