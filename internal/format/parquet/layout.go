package parquet

import (
	"fmt"

	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Hudi 0.14 writes base files and Parquet log blocks through parquet-avro
// (HoodieAvroWriteSupport over AvroWriteSupport, also in HoodieParquetDataBlock), whose
// AvroSchemaConverter runs with parquet.avro.write-old-list-structure=true, its default.
// That converter lays out
//
//   - an Avro array as the 2-level list `<rep> group f (LIST) { repeated <element> array }`:
//     the element is named "array", is always repeated (an element union with null stays
//     repeated: AvroSchemaConverter.convertUnion only turns REQUIRED into OPTIONAL), and
//     keeps its own annotation, so a list of lists is
//     `group f (LIST) { repeated group array (LIST) { repeated <type> array } }`;
//   - an Avro map as `<rep> group f (MAP) { repeated group key_value (MAP_KEY_VALUE)
//     { required binary key (UTF8); <value> } }` (ConversionPatterns.stringKeyMapType): the
//     key_value group carries the converted type MAP_KEY_VALUE and no logical type
//     (parquet-mr has no logical type for it), as the 2024 files of the Spark-written
//     fixture cow/v6_simplekeygen_nonhivestyle hold.
//
// pqarrow derives the 3-level list/element form and an unannotated key_value instead.
// The 2-level form has the same definition and repetition levels as the 3-level form
// with a required element, so avroLayout rewrites pqarrow's schema into parquet-avro's
// and the column writers are given the result (shred.go computes the levels).

// mapKeyValueType is the MAP_KEY_VALUE annotation as parquet-mr writes it: converted type
// only. arrow-go derives a MAP logical type from the converted type, which parquet-mr
// does not write; embedding MapLogicalType keeps arrow-go's checks (a nested type
// compatible with MAP_KEY_VALUE) while leaving the logical type out of the footer.
type mapKeyValueType struct{ schema.MapLogicalType }

func (mapKeyValueType) IsSerialized() bool { return false }
func (mapKeyValueType) String() string     { return "MapKeyValue" }
func (mapKeyValueType) ToConvertedType() (schema.ConvertedType, schema.DecimalMetadata) {
	return schema.ConvertedTypes.MapKeyValue, schema.DecimalMetadata{}
}

// avroLayout returns sc (as pqarrow.ToParquet derives it from the Arrow schema) with
// every list and map laid out as parquet-avro's old list structure writes them.
func avroLayout(sc *schema.Schema) (*schema.Schema, error) {
	root := sc.Root()
	fields := make(schema.FieldList, root.NumFields())
	for i := range fields {
		f := root.Field(i)
		n, err := avroNode(f, f.Name(), f.RepetitionType())
		if err != nil {
			return nil, err
		}
		fields[i] = n
	}
	r, err := schema.NewGroupNode(root.Name(), root.RepetitionType(), fields, root.FieldID())
	if err != nil {
		return nil, err
	}
	return schema.NewSchema(r), nil
}

// avroNode rebuilds n as parquet-avro lays it out, named name with repetition rep.
func avroNode(n schema.Node, name string, rep pq.Repetition) (schema.Node, error) {
	switch n := n.(type) {
	case *schema.PrimitiveNode:
		return clonePrimitive(n, name, rep)
	case *schema.GroupNode:
		switch n.LogicalType().(type) {
		case schema.ListLogicalType:
			// pqarrow: group (LIST) { repeated group list { <optional|required> element } }
			list, ok := n.Field(0).(*schema.GroupNode)
			if n.NumFields() != 1 || !ok || list.NumFields() != 1 || list.RepetitionType() != pq.Repetitions.Repeated {
				return nil, fmt.Errorf("parquet writer: list %s is not in the 3-level form", n.Name())
			}
			elem, err := avroNode(list.Field(0), "array", pq.Repetitions.Repeated)
			if err != nil {
				return nil, err
			}
			return schema.NewGroupNodeLogical(name, rep, schema.FieldList{elem}, schema.ListLogicalType{}, n.FieldID())
		case schema.MapLogicalType:
			// pqarrow: group (MAP) { repeated group key_value { required key; value } }
			kv, ok := n.Field(0).(*schema.GroupNode)
			if n.NumFields() != 1 || !ok || kv.NumFields() != 2 || kv.RepetitionType() != pq.Repetitions.Repeated {
				return nil, fmt.Errorf("parquet writer: map %s is not a key_value group of key and value", n.Name())
			}
			key, err := avroNode(kv.Field(0), "key", pq.Repetitions.Required)
			if err != nil {
				return nil, err
			}
			value, err := avroNode(kv.Field(1), "value", kv.Field(1).RepetitionType())
			if err != nil {
				return nil, err
			}
			entries, err := schema.NewGroupNodeLogical("key_value", pq.Repetitions.Repeated, schema.FieldList{key, value}, mapKeyValueType{}, -1)
			if err != nil {
				return nil, err
			}
			return schema.NewGroupNodeLogical(name, rep, schema.FieldList{entries}, schema.MapLogicalType{}, n.FieldID())
		case schema.NoLogicalType, nil:
			fields := make(schema.FieldList, n.NumFields())
			for i := range fields {
				f := n.Field(i)
				c, err := avroNode(f, f.Name(), f.RepetitionType())
				if err != nil {
					return nil, err
				}
				fields[i] = c
			}
			return schema.NewGroupNode(name, rep, fields, n.FieldID())
		default:
			return nil, fmt.Errorf("parquet writer: group %s has logical type %s, which the Avro layout has no form for", n.Name(), n.LogicalType())
		}
	}
	return nil, fmt.Errorf("parquet writer: unknown schema node %T", n)
}

// clonePrimitive returns a new node like n (physical, converted and logical type, field
// id) named name with repetition rep. Nodes are never shared between trees: a node
// caches its column path the first time it is asked (schema.Node.Path), so a node moved
// into a new tree would keep its old path.
func clonePrimitive(n *schema.PrimitiveNode, name string, rep pq.Repetition) (*schema.PrimitiveNode, error) {
	if lt := n.LogicalType(); lt != nil && !lt.IsNone() {
		return schema.NewPrimitiveNodeLogical(name, rep, lt, n.PhysicalType(), n.TypeLength(), n.FieldID())
	}
	dec := n.DecimalMetadata()
	return schema.NewPrimitiveNodeConverted(name, rep, n.PhysicalType(), n.ConvertedType(), n.TypeLength(), int(dec.Precision), int(dec.Scale), n.FieldID())
}

// cloneNode returns a copy of the tree under n.
func cloneNode(n schema.Node) (schema.Node, error) {
	switch n := n.(type) {
	case *schema.PrimitiveNode:
		return clonePrimitive(n, n.Name(), n.RepetitionType())
	case *schema.GroupNode:
		fields := make(schema.FieldList, n.NumFields())
		for i := range fields {
			c, err := cloneNode(n.Field(i))
			if err != nil {
				return nil, err
			}
			fields[i] = c
		}
		return regroup(n, n.Name(), n.RepetitionType(), fields)
	}
	return nil, fmt.Errorf("unknown schema node %T", n)
}

// readLayout returns sc with the lists arrow-go's reader misreads rewritten into a form
// it reads, with the same leaves and levels; nil if sc has none. parquet-avro's 2-level
// list of lists or of maps, `group f (LIST) { repeated group array (LIST|MAP) { … } }`,
// has as element the repeated group itself (the Parquet format's backward-compatibility
// rules: a repeated group named "array" or "<f>_tuple", or whose only field is repeated,
// is the element; parquet-avro's AvroRecordConverter.isElementType). arrow-go's
// pqarrow reads such a group as a struct whatever its annotation, so a list of lists
// came back as a list of structs and a list of maps failed ("MAP group must have exactly
// 1 child"). The rewrite gives the list the 3-level form with that group as a required
// element: `group f (LIST) { repeated group list { required group array (LIST|MAP) { … } } }`.
// A required group adds no level, so every column keeps its definition and repetition
// levels and the column chunks read unchanged.
func readLayout(sc *schema.Schema) (*schema.Schema, error) {
	if !needsReadLayout(sc.Root()) {
		return nil, nil
	}
	n, err := readNode(sc.Root())
	if err != nil {
		return nil, err
	}
	return schema.NewSchema(n.(*schema.GroupNode)), nil
}

func needsReadLayout(n schema.Node) bool {
	g, ok := n.(*schema.GroupNode)
	if !ok {
		return false
	}
	if isAvroListOfGroups(g) {
		return true
	}
	for i := 0; i < g.NumFields(); i++ {
		if needsReadLayout(g.Field(i)) {
			return true
		}
	}
	return false
}

// isAvroListOfGroups reports whether g is a LIST whose repeated group is itself the
// element in a way arrow-go's reader does not see: an annotated group (a list of lists
// or of maps) or one whose only field is repeated.
func isAvroListOfGroups(g *schema.GroupNode) bool {
	if _, isList := g.LogicalType().(schema.ListLogicalType); !isList || g.NumFields() != 1 || g.Field(0).RepetitionType() != pq.Repetitions.Repeated {
		return false
	}
	r, ok := g.Field(0).(*schema.GroupNode)
	if !ok {
		return false
	}
	switch r.LogicalType().(type) {
	case schema.ListLogicalType, schema.MapLogicalType:
		return true
	}
	return r.ConvertedType() == schema.ConvertedTypes.MapKeyValue ||
		(r.NumFields() == 1 && r.Field(0).RepetitionType() == pq.Repetitions.Repeated)
}

// readNode returns a copy of the tree under n with readLayout's rewrite applied.
func readNode(n schema.Node) (schema.Node, error) {
	g, ok := n.(*schema.GroupNode)
	if !ok {
		return cloneNode(n)
	}
	if isAvroListOfGroups(g) {
		r := g.Field(0).(*schema.GroupNode)
		fields := make(schema.FieldList, r.NumFields())
		for i := range fields {
			c, err := readNode(r.Field(i))
			if err != nil {
				return nil, err
			}
			fields[i] = c
		}
		elem, err := regroup(r, r.Name(), pq.Repetitions.Required, fields)
		if err != nil {
			return nil, err
		}
		list, err := schema.NewGroupNode("list", pq.Repetitions.Repeated, schema.FieldList{elem}, -1)
		if err != nil {
			return nil, err
		}
		return regroup(g, g.Name(), g.RepetitionType(), schema.FieldList{list})
	}
	fields := make(schema.FieldList, g.NumFields())
	for i := range fields {
		c, err := readNode(g.Field(i))
		if err != nil {
			return nil, err
		}
		fields[i] = c
	}
	return regroup(g, g.Name(), g.RepetitionType(), fields)
}

// regroup builds a group like g (annotation and field id) with the given name,
// repetition and fields.
func regroup(g *schema.GroupNode, name string, rep pq.Repetition, fields schema.FieldList) (*schema.GroupNode, error) {
	if ct := g.ConvertedType(); ct != schema.ConvertedTypes.None {
		return schema.NewGroupNodeConverted(name, rep, fields, ct, g.FieldID())
	}
	lt := g.LogicalType()
	if lt == nil || lt.IsNone() {
		return schema.NewGroupNode(name, rep, fields, g.FieldID())
	}
	return schema.NewGroupNodeLogical(name, rep, fields, lt, g.FieldID())
}
