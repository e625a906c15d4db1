package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A nested top-level column (struct, list, map) is written here, not by pqarrow: pqarrow
// writes only the schema it derives itself (3-level lists), and the Avro layout
// (layout.go) needs the column writers of a file.Writer opened on parquet-avro's schema.
// shredder computes each leaf's definition and repetition levels (Dremel) from the Arrow
// arrays, walking the Parquet schema alongside them, and the leaf values in the form
// pqarrow.WriteArrowToColumn takes: one slot per entry whose innermost list element
// exists (what arrow-go's column writers count as "spaced" values).

type shredKind uint8

const (
	shredLeaf shredKind = iota
	shredStruct
	shredList // a LIST or MAP group: one repeated child
)

// shredNode is a Parquet schema node with its levels.
type shredNode struct {
	kind     shredKind
	name     string // dotted path, for errors
	rep      pq.Repetition
	present  int16 // definition level of a present value of this node
	repLevel int16 // repetition level of this node's values (a list's element: the list's)
	// repAnc is the definition level at which the innermost repeated ancestor (or this
	// node, if repeated) exists: a leaf entry with def ≥ repAnc has a value slot.
	repAnc    int16
	children  []*shredNode
	firstLeaf int // index of the first leaf under this node among the column's leaves
	nLeaves   int
	dt        arrow.DataType // leaves: the Arrow type of the values
}

// newShredPlan builds the plan of top-level field n (a node of the file's schema) for
// Arrow type dt.
func newShredPlan(n schema.Node, dt arrow.DataType) (*shredNode, error) {
	leaves := 0
	return buildShred(n, dt, n.Name(), 0, 0, 0, &leaves)
}

func buildShred(n schema.Node, dt arrow.DataType, path string, parentDef, parentRep, parentAnc int16, leaves *int) (*shredNode, error) {
	s := &shredNode{name: path, rep: n.RepetitionType(), present: parentDef, repLevel: parentRep, repAnc: parentAnc, firstLeaf: *leaves}
	if s.rep != pq.Repetitions.Required {
		s.present++
	}
	if s.rep == pq.Repetitions.Repeated {
		s.repLevel++
		s.repAnc = s.present
	}
	if et, ok := dt.(arrow.ExtensionType); ok {
		dt = et.StorageType()
	}
	mismatch := func() error {
		return fmt.Errorf("parquet writer: column %s: Arrow type %s does not match the Parquet schema", path, dt)
	}
	switch n := n.(type) {
	case *schema.PrimitiveNode:
		s.kind, s.dt = shredLeaf, dt
		*leaves++
	case *schema.GroupNode:
		switch n.LogicalType().(type) {
		case schema.ListLogicalType, schema.MapLogicalType:
			lt, ok := dt.(arrow.ListLikeType)
			if !ok || n.NumFields() != 1 || n.Field(0).RepetitionType() != pq.Repetitions.Repeated {
				return nil, mismatch()
			}
			s.kind = shredList
			c, err := buildShred(n.Field(0), lt.Elem(), path+"."+n.Field(0).Name(), s.present, s.repLevel, s.repAnc, leaves)
			if err != nil {
				return nil, err
			}
			s.children = []*shredNode{c}
		default:
			st, ok := dt.(*arrow.StructType)
			if !ok || st.NumFields() != n.NumFields() {
				return nil, mismatch()
			}
			s.kind = shredStruct
			for i := 0; i < n.NumFields(); i++ {
				c, err := buildShred(n.Field(i), st.Field(i).Type, path+"."+n.Field(i).Name(), s.present, s.repLevel, s.repAnc, leaves)
				if err != nil {
					return nil, err
				}
				s.children = append(s.children, c)
			}
		}
	default:
		return nil, fmt.Errorf("parquet writer: column %s: unknown schema node %T", path, n)
	}
	s.nLeaves = *leaves - s.firstLeaf
	return s, nil
}

// leafOut collects one leaf's levels and value slots. The slots of a leaf are
// consecutive entries of one Arrow array as long as the list offsets are contiguous
// (arrays built by Arrow builders); otherwise the runs are concatenated at the end.
type leafOut struct {
	def, rep    []int16
	arr         arrow.Array
	start, next int
	runs        []arrow.Array
}

// shredder computes the levels of one top-level column's leaves over a batch of rows.
type shredder struct {
	plan   *shredNode
	leaves []leafOut
	row    int64 // row of the batch being shredded, for errors
	mem    memory.Allocator
}

func newShredder(plan *shredNode, mem memory.Allocator) *shredder {
	return &shredder{plan: plan, leaves: make([]leafOut, plan.nLeaves), mem: mem}
}

// shred computes the levels of every row of col (the top-level column); firstRow is the
// file row of col's first row, for errors.
func (s *shredder) shred(col arrow.Array, firstRow int64) error {
	for i := range s.leaves {
		l := &s.leaves[i]
		l.def, l.rep = l.def[:0], l.rep[:0]
		l.arr, l.start, l.next = nil, 0, 0
		for _, r := range l.runs {
			r.Release()
		}
		l.runs = l.runs[:0]
	}
	for i := 0; i < col.Len(); i++ {
		s.row = firstRow + int64(i)
		if err := s.visit(s.plan, col, i, 0); err != nil {
			return err
		}
	}
	return nil
}

// values returns leaf i's value slots (a new reference).
func (s *shredder) values(i int) (arrow.Array, error) {
	l := &s.leaves[i]
	if l.arr == nil {
		if len(l.runs) == 0 {
			return array.MakeArrayOfNull(s.mem, s.leafType(i), 0), nil
		}
	} else {
		l.runs = append(l.runs, array.NewSlice(l.arr, int64(l.start), int64(l.next)))
		l.arr = nil
	}
	if len(l.runs) == 1 {
		a := l.runs[0]
		l.runs = l.runs[:0]
		return a, nil
	}
	a, err := array.Concatenate(l.runs, s.mem)
	for _, r := range l.runs {
		r.Release()
	}
	l.runs = l.runs[:0]
	return a, err
}

func (s *shredder) leafType(i int) arrow.DataType {
	var find func(n *shredNode) arrow.DataType
	find = func(n *shredNode) arrow.DataType {
		if n.kind == shredLeaf {
			return n.dt
		}
		for _, c := range n.children {
			if i >= c.firstLeaf && i < c.firstLeaf+c.nLeaves {
				return find(c)
			}
		}
		return nil
	}
	return find(s.plan)
}

// release drops the references the shredder holds.
func (s *shredder) release() {
	for i := range s.leaves {
		for _, r := range s.leaves[i].runs {
			r.Release()
		}
		s.leaves[i].runs = nil
	}
}

func (s *shredder) level(leaf int, def, rep int16) {
	l := &s.leaves[leaf]
	l.def = append(l.def, def)
	l.rep = append(l.rep, rep)
}

// slot records value i of a as the leaf's next value slot.
func (s *shredder) slot(leaf int, a arrow.Array, i int) {
	l := &s.leaves[leaf]
	switch {
	case l.arr == nil:
		l.arr, l.start, l.next = a, i, i+1
	case l.arr == a && i == l.next:
		l.next++
	default:
		l.runs = append(l.runs, array.NewSlice(l.arr, int64(l.start), int64(l.next)))
		l.arr, l.start, l.next = a, i, i+1
	}
}

// visit writes value i of a, the array of node n; rep is the repetition level of its
// first entry.
func (s *shredder) visit(n *shredNode, a arrow.Array, i int, rep int16) error {
	if ea, ok := a.(array.ExtensionArray); ok {
		a = ea.Storage()
	}
	if a.IsNull(i) {
		switch n.rep {
		case pq.Repetitions.Repeated:
			// parquet-avro's AvroWriteSupport refuses these too ("Array contains a null
			// element"); writes refuse them in their input first (schema.CheckListElements).
			return fmt.Errorf("column %s: row %d holds a null list element, which the 2-level list form of Java's Avro write path cannot store", n.name, s.row)
		case pq.Repetitions.Required:
			return fmt.Errorf("column %s: row %d holds a null in a required field", n.name, s.row)
		}
		s.absent(n, a, i, n.present-1, rep)
		return nil
	}
	switch n.kind {
	case shredLeaf:
		s.level(n.firstLeaf, n.present, rep)
		s.slot(n.firstLeaf, a, i)
	case shredStruct:
		st, ok := a.(*array.Struct)
		if !ok {
			return fmt.Errorf("column %s: %s array where a struct was expected", n.name, a.DataType())
		}
		for k, c := range n.children {
			if err := s.visit(c, st.Field(k), i, rep); err != nil {
				return err
			}
		}
	case shredList:
		l, ok := a.(array.ListLike)
		if !ok {
			return fmt.Errorf("column %s: %s array where a list was expected", n.name, a.DataType())
		}
		start, end := l.ValueOffsets(i)
		if start == end {
			s.levelsOnly(n, n.present, rep)
			return nil
		}
		vals, c := l.ListValues(), n.children[0]
		for j := start; j < end; j++ {
			r := rep
			if j > start {
				r = c.repLevel
			}
			if err := s.visit(c, vals, int(j), r); err != nil {
				return err
			}
		}
	}
	return nil
}

// absent writes the entries of a null value i of a (node n's array) at definition
// level def: leaves reached through structs keep their value slot (a struct's children
// hold a slot for each of its rows, null or not), leaves under a list have none.
func (s *shredder) absent(n *shredNode, a arrow.Array, i int, def, rep int16) {
	if ea, ok := a.(array.ExtensionArray); ok {
		a = ea.Storage()
	}
	switch n.kind {
	case shredLeaf:
		s.level(n.firstLeaf, def, rep)
		if def >= n.repAnc {
			s.slot(n.firstLeaf, a, i)
		}
	case shredStruct:
		st, ok := a.(*array.Struct)
		for k, c := range n.children {
			if ok {
				s.absent(c, st.Field(k), i, def, rep)
			} else {
				s.levelsOnly(c, def, rep)
			}
		}
	case shredList:
		s.levelsOnly(n, def, rep)
	}
}

// levelsOnly writes an entry without a value slot at def for every leaf under n.
func (s *shredder) levelsOnly(n *shredNode, def, rep int16) {
	for leaf := n.firstLeaf; leaf < n.firstLeaf+n.nLeaves; leaf++ {
		s.level(leaf, def, rep)
	}
}
