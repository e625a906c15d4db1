// Package internalschema is Hudi's InternalSchema: the table schema of schema evolution on
// read (hoodie.schema.on.read.enable), in which every column — nested fields, array
// elements, map keys and values included — carries an id that never changes, so that a
// column renamed, moved, re-typed or dropped is still matched by id in files written
// before the change. A schema also carries a version id (the instant time that made it)
// and the largest column id ever assigned.
//
// The package mirrors Java Hudi 0.14's org.apache.hudi.internal.schema: the type system
// (Types), the JSON form (SerDeHelper), the history of versions (.hoodie/.schema files),
// and the column changes of ALTER TABLE (TableChanges, SchemaChangeUtils). It is pure: no
// Avro, Arrow or storage; package schema converts to and from those.
package internalschema

import (
	"fmt"
	"strings"
)

// Kind is a type's kind (Java's Type.TypeID).
type Kind int

// The kinds of Hudi 0.14's InternalSchema.
const (
	Boolean Kind = iota
	Int
	Long
	Float
	Double
	Date
	Time
	Timestamp
	String
	UUID
	Binary
	Fixed
	Decimal
	Record
	Array
	Map
)

// Type is a column type. Primitive types are values of a kind (plus size or precision and
// scale); Record, Array and Map hold their children. Types are never modified after
// construction: changes build new ones.
type Type struct {
	Kind Kind
	// Size is the byte length of a Fixed type.
	Size int
	// Precision and Scale of a Decimal type.
	Precision, Scale int
	// Fields of a Record.
	Fields []Field
	// RecordName is the Avro full name a Record was converted from ("" when unknown). It is
	// not part of the JSON form; Java keeps it for a lossless round trip through Avro.
	RecordName string
	// Element of an Array.
	ElementID       int
	ElementOptional bool
	Element         *Type
	// Key and Value of a Map (keys are strings in Hudi).
	KeyID, ValueID int
	Key, Value     *Type
	ValueOptional  bool
}

// Field is a named member of a record, or the element of an array, or the key or value
// of a map (named "element", "key", "value" as Java names them).
type Field struct {
	ID       int
	Name     string
	Optional bool
	Type     *Type
	// Doc is the column comment; nil means none (not written to JSON).
	Doc *string
}

// Primitive returns the primitive type of kind k (not Fixed or Decimal).
func Primitive(k Kind) *Type { return &Type{Kind: k} }

// DecimalOf returns decimal(precision, scale).
func DecimalOf(precision, scale int) *Type {
	return &Type{Kind: Decimal, Precision: precision, Scale: scale}
}

// FixedOf returns fixed[size].
func FixedOf(size int) *Type { return &Type{Kind: Fixed, Size: size} }

// RecordOf returns a record of the given fields.
func RecordOf(fields ...Field) *Type { return &Type{Kind: Record, Fields: fields} }

// ArrayOf returns an array type.
func ArrayOf(elementID int, optional bool, element *Type) *Type {
	return &Type{Kind: Array, ElementID: elementID, ElementOptional: optional, Element: element}
}

// MapOf returns a map type with string keys.
func MapOf(keyID, valueID int, value *Type, valueOptional bool) *Type {
	return &Type{Kind: Map, KeyID: keyID, ValueID: valueID, Key: Primitive(String), Value: value, ValueOptional: valueOptional}
}

// IsNested reports whether t is a record, array or map.
func (t *Type) IsNested() bool {
	return t.Kind == Record || t.Kind == Array || t.Kind == Map
}

// String is Java's Type.toString, which is also the JSON spelling of a primitive type:
// "int", "decimal(10, 2)", "fixed[16]", … (nested types print as Java prints them, for
// messages only).
func (t *Type) String() string {
	switch t.Kind {
	case Boolean:
		return "boolean"
	case Int:
		return "int"
	case Long:
		return "long"
	case Float:
		return "float"
	case Double:
		return "double"
	case Date:
		return "date"
	case Time:
		return "time"
	case Timestamp:
		return "timestamp"
	case String:
		return "string"
	case UUID:
		return "uuid"
	case Binary:
		return "binary"
	case Fixed:
		return fmt.Sprintf("fixed[%d]", t.Size)
	case Decimal:
		return fmt.Sprintf("decimal(%d, %d)", t.Precision, t.Scale)
	case Record:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.String()
		}
		return "Record<" + strings.Join(parts, "-") + ">"
	case Array:
		return "list<" + t.Element.String() + ">"
	case Map:
		return "map<" + t.Key.String() + ", " + t.Value.String() + ">"
	}
	return fmt.Sprintf("kind(%d)", t.Kind)
}

// String prints a field as Java's Types.Field does (id: name: optional|required type).
func (f Field) String() string {
	req := "required"
	if f.Optional {
		req = "optional"
	}
	s := fmt.Sprintf("%d: %s: %s %s", f.ID, f.Name, req, f.Type)
	if f.Doc != nil {
		s += " (" + *f.Doc + ")"
	}
	return s
}

// Equal reports structural equality, as Java's Type.equals: ids, names, optionality, docs
// and types; record names are not compared.
func (t *Type) Equal(o *Type) bool {
	if t == o {
		return true
	}
	if t == nil || o == nil || t.Kind != o.Kind {
		return false
	}
	switch t.Kind {
	case Fixed:
		return t.Size == o.Size
	case Decimal:
		return t.Precision == o.Precision && t.Scale == o.Scale
	case Record:
		return fieldsEqual(t.Fields, o.Fields)
	case Array:
		return t.ElementID == o.ElementID && t.ElementOptional == o.ElementOptional && t.Element.Equal(o.Element)
	case Map:
		return t.KeyID == o.KeyID && t.ValueID == o.ValueID && t.ValueOptional == o.ValueOptional &&
			t.Key.Equal(o.Key) && t.Value.Equal(o.Value)
	}
	return true
}

func fieldsEqual(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// Equal compares two fields as Java's Types.Field.equals.
func (f Field) Equal(o Field) bool {
	if f.ID != o.ID || f.Name != o.Name || f.Optional != o.Optional {
		return false
	}
	if (f.Doc == nil) != (o.Doc == nil) || (f.Doc != nil && *f.Doc != *o.Doc) {
		return false
	}
	return f.Type.Equal(o.Type)
}

// Schema is an InternalSchema: the root record's fields, the version id (the instant time
// of the commit that made it; 0 for a schema derived from an Avro schema and not yet
// committed) and the largest column id assigned so far, which new columns count on from
// (it stays when the column holding it is dropped, so ids are never reused).
type Schema struct {
	Fields      []Field
	VersionID   int64
	MaxColumnID int
	// RecordName is the root record's Avro full name, when known (not serialized).
	RecordName string

	// index holds the lookups, built when the schema is made: a schema is shared by the
	// goroutines reading file slices, so it is never written after construction.
	index *index
}

// New returns a schema of fields with the given version and the largest id found in
// fields as its MaxColumnID (Java's InternalSchema(versionId, fields)).
func New(version int64, fields []Field) *Schema {
	s := &Schema{Fields: fields, VersionID: version}
	s.index = buildIndex(fields)
	s.MaxColumnID = s.maxID()
	return s
}

// Record returns the root record type.
func (s *Schema) Record() *Type {
	return &Type{Kind: Record, Fields: s.Fields, RecordName: s.RecordName}
}

// WithVersion returns a copy of s with another version id.
func (s *Schema) WithVersion(v int64) *Schema {
	c := *s
	c.VersionID = v
	return &c
}

// Equal compares version ids and fields, as Java's InternalSchema.equals (the max column
// id is not compared).
func (s *Schema) Equal(o *Schema) bool {
	return s.VersionID == o.VersionID && fieldsEqual(s.Fields, o.Fields)
}

func (s *Schema) maxID() int {
	m := -1
	walk(s.Fields, func(f Field, _ string, _ int) { m = max(m, f.ID) })
	return m
}

// walk visits every field (record fields, array elements, map keys and values) depth
// first, children before their parent as Java's visitors build their maps, with the
// field's full name ("a.b", "arr.element", "m.value.c") and its parent's id (-1 at the
// root).
func walk(fields []Field, fn func(f Field, fullName string, parent int)) {
	var visit func(t *Type, prefix string, self int)
	visitField := func(f Field, prefix string, parent int) {
		name := f.Name
		if prefix != "" {
			name = prefix + "." + f.Name
		}
		visit(f.Type, name, f.ID)
		fn(f, name, parent)
	}
	visit = func(t *Type, prefix string, self int) {
		switch t.Kind {
		case Record:
			for _, c := range t.Fields {
				visitField(c, prefix, self)
			}
		case Array:
			visitField(Field{ID: t.ElementID, Name: "element", Optional: t.ElementOptional, Type: t.Element}, prefix, self)
		case Map:
			visitField(Field{ID: t.KeyID, Name: "key", Optional: false, Type: t.Key}, prefix, self)
			visitField(Field{ID: t.ValueID, Name: "value", Optional: t.ValueOptional, Type: t.Value}, prefix, self)
		}
	}
	for _, f := range fields {
		visitField(f, "", -1)
	}
}

// index holds the lookups of a schema, built once.
type index struct {
	byID     map[int]Field
	nameOf   map[int]string
	idOf     map[string]int
	lowerIDs map[string][]int
	parent   map[int]int
}

func (s *Schema) idx() *index {
	if s.index != nil {
		return s.index
	}
	// A Schema literal made outside New or Parse: build the lookups without keeping them,
	// so that concurrent readers never race on the field.
	return buildIndex(s.Fields)
}

func buildIndex(fields []Field) *index {
	ix := &index{byID: map[int]Field{}, nameOf: map[int]string{}, idOf: map[string]int{}, lowerIDs: map[string][]int{}, parent: map[int]int{}}
	walk(fields, func(f Field, name string, parent int) {
		ix.byID[f.ID] = f
		ix.nameOf[f.ID] = name
		ix.idOf[name] = f.ID
		l := strings.ToLower(name)
		ix.lowerIDs[l] = append(ix.lowerIDs[l], f.ID)
		if parent >= 0 {
			ix.parent[f.ID] = parent
		}
	})
	return ix
}

// FindByID returns the field with id, if any.
func (s *Schema) FindByID(id int) (Field, bool) {
	f, ok := s.idx().byID[id]
	return f, ok
}

// FullName returns the dotted full name of the field with id ("" if none).
func (s *Schema) FullName(id int) string { return s.idx().nameOf[id] }

// Find returns the field of a full name ("a.b.c", "arr.element", "m.value.x"): an exact
// match, else the only case-insensitive one (Spark resolves column names ignoring case).
func (s *Schema) Find(fullName string) (Field, bool) {
	ix := s.idx()
	if id, ok := ix.idOf[fullName]; ok {
		return ix.byID[id], true
	}
	if ids := ix.lowerIDs[strings.ToLower(fullName)]; len(ids) == 1 {
		return ix.byID[ids[0]], true
	}
	return Field{}, false
}

// ParentID returns the id of the field whose type holds the field with id (-1 for a root
// column).
func (s *Schema) ParentID(id int) int {
	if p, ok := s.idx().parent[id]; ok {
		return p
	}
	return -1
}

// IDs returns every field id of the schema.
func (s *Schema) IDs() map[int]bool {
	out := map[int]bool{}
	for id := range s.idx().byID {
		out[id] = true
	}
	return out
}

// String prints the schema as Java's InternalSchema.toString.
func (s *Schema) String() string {
	lines := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		lines[i] = " " + f.String()
	}
	return "table {\n" + strings.Join(lines, "\n") + "\n}"
}
