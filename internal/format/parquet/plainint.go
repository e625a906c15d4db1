package parquet

// plainIntType: an Arrow extension type that makes pqarrow write an integer column without
// a logical type annotation, as parquet-avro does for Avro int and long.

import (
	"reflect"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// plainIntType marks an Int32/Int64 column to be written without the INT(32/64,
// signed) annotation pqarrow adds: parquet-avro and Spark write plain INT32/INT64, and
// keeping the files alike keeps schema comparisons across writers trivial. pqarrow
// takes a column's logical type from an extension type's ParquetLogicalType and writes
// its storage, so the data is unchanged; readers see plain Int32/Int64.
type plainIntType struct {
	arrow.ExtensionBase
}

func (t *plainIntType) ArrayType() reflect.Type { return reflect.TypeOf(plainIntArray{}) }

func (t *plainIntType) ExtensionName() string { return "hudi-go.plain-int" }

func (t *plainIntType) Serialize() string { return "" }

func (t *plainIntType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	return &plainIntType{arrow.ExtensionBase{Storage: storage}}, nil
}

func (t *plainIntType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName() && arrow.TypeEqual(t.Storage, o.StorageType())
}

func (t *plainIntType) ParquetLogicalType() schema.LogicalType { return schema.NoLogicalType{} }

type plainIntArray struct {
	array.ExtensionArrayBase
}

// plainIntTypes returns dt with every Int32/Int64 leaf wrapped in plainIntType.
func plainIntTypes(dt arrow.DataType) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.Int32Type, *arrow.Int64Type:
		return &plainIntType{arrow.ExtensionBase{Storage: dt}}
	case *arrow.StructType:
		fs := slices.Clone(t.Fields())
		for i := range fs {
			fs[i].Type = plainIntTypes(fs[i].Type)
		}
		return arrow.StructOf(fs...)
	case *arrow.ListType:
		e := t.ElemField()
		e.Type = plainIntTypes(e.Type)
		return arrow.ListOfField(e)
	case *arrow.LargeListType:
		e := t.ElemField()
		e.Type = plainIntTypes(e.Type)
		return arrow.LargeListOfField(e)
	case *arrow.FixedSizeListType:
		e := t.ElemField()
		e.Type = plainIntTypes(e.Type)
		return arrow.FixedSizeListOfField(t.Len(), e)
	case *arrow.MapType:
		k, v := t.KeyField(), t.ItemField()
		k.Type, v.Type = plainIntTypes(k.Type), plainIntTypes(v.Type)
		m := arrow.MapOfFields(k, v)
		m.KeysSorted = t.KeysSorted
		return m
	}
	return dt
}

// retypeData relabels d (zero-copy, same buffers) with dt, a plainIntTypes image of
// its type. The result is a new reference.
func retypeData(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	if arrow.TypeEqual(d.DataType(), dt) {
		d.Retain()
		return d
	}
	var childTypes []arrow.Field
	if nt, ok := dt.(arrow.NestedType); ok {
		if _, ext := dt.(arrow.ExtensionType); !ext {
			childTypes = nt.Fields()
		}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		if i < len(childTypes) {
			children[i] = retypeData(c, childTypes[i].Type)
		} else {
			c.Retain()
			children[i] = c
		}
	}
	out := array.NewData(dt, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out
}
