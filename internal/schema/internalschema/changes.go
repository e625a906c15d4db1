package internalschema

import (
	"errors"
	"fmt"
	"strings"
)

// metaColumns are Hudi's meta columns (HoodieRecord.HOODIE_META_COLUMNS); no change may
// touch them.
var metaColumns = []string{"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"}

// PositionKind places a column within its record.
type PositionKind int

// Column positions of ADD COLUMNS and ALTER COLUMN (TableChange.ColumnPositionChange).
const (
	NoPosition PositionKind = iota
	First                   // first within its struct (not allowed for root columns)
	After                   // right after Ref, a sibling
	Before                  // right before Ref, a sibling
)

// Position is where a column goes; Ref is the full name of the sibling for After/Before.
type Position struct {
	Kind PositionKind
	Ref  string
}

// ErrChange marks a schema change Hudi refuses.
var ErrChange = errors.New("schema change refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrChange, fmt.Sprintf(format, args...))
}

func checkNotMeta(name string) error {
	for _, m := range metaColumns {
		if strings.EqualFold(m, name) {
			return refuse("cannot modify hudi meta col: %s", name)
		}
	}
	return nil
}

// positionChange is one reordering within the record whose id is the map key.
type positionChange struct {
	src, ref int
	kind     PositionKind
}

// changeBase is Java's TableChange.BaseColumnChange: the schema changed and the position
// changes per parent record id (-1 = root).
type changeBase struct {
	s         *Schema
	id2parent map[int]int
	positions map[int][]positionChange
}

func newChangeBase(s *Schema) changeBase {
	cb := changeBase{s: s, id2parent: map[int]int{}, positions: map[int][]positionChange{}}
	for id := range s.IDs() {
		if p := s.ParentID(id); p >= 0 {
			cb.id2parent[id] = p
		}
	}
	return cb
}

// addPosition records a move of src (a full name) relative to ref (BaseColumnChange.
// addPositionChange); findID resolves names, including columns added by the same change.
func (c *changeBase) addPosition(src string, pos Position, findID func(string) (int, error)) error {
	if pos.Kind == NoPosition {
		return nil
	}
	srcID, err := findID(src)
	if err != nil {
		return err
	}
	refID := -1
	if pos.Kind != First {
		if refID, err = findID(pos.Ref); err != nil {
			return err
		}
	}
	srcParent, srcHasParent := c.id2parent[srcID]
	refParent, refHasParent := -1, false
	if refID >= 0 {
		refParent, refHasParent = c.id2parent[refID]
	}
	switch pos.Kind {
	case Before:
		if err := checkNotMeta(pos.Ref); err != nil {
			return err
		}
	case First:
		if !srcHasParent {
			return refuse("forbid adjust top-level columns position by using through first syntax (column %s)", src)
		}
	case After:
		for _, m := range metaColumns[:3] {
			if strings.EqualFold(m, pos.Ref) {
				return refuse("forbid adjust the position of ordinary columns between meta columns (after %s)", pos.Ref)
			}
		}
	}
	var parent int
	switch {
	case srcHasParent && refHasParent && srcParent == refParent:
		pf, ok := c.s.FindByID(srcParent)
		if ok && pf.Type.Kind != Record {
			return refuse("only support reorder fields in struct type, but find: %s", pf.Type)
		}
		parent = srcParent
	case !srcHasParent && refID < 0:
		parent = -1
	case !srcHasParent && !refHasParent && refID >= 0:
		parent = -1
	case srcHasParent && refID < 0 && pos.Kind == First:
		parent = srcParent
	default:
		return refuse("cannot order position from different parent (%s and %s)", src, pos.Ref)
	}
	c.positions[parent] = append(c.positions[parent], positionChange{src: srcID, ref: refID, kind: pos.Kind})
	return nil
}

// applyPositions adds adds to fields and applies the position changes in order
// (TableChangesHelper.applyAddChange2Fields).
func applyPositions(fields []Field, adds []Field, changes []positionChange) []Field {
	if adds == nil && changes == nil {
		return fields
	}
	out := append(append([]Field{}, fields...), adds...)
	indexOf := func(id int) int {
		for i, f := range out {
			if f.ID == id {
				return i
			}
		}
		return -1
	}
	for _, pc := range changes {
		si := indexOf(pc.src)
		if si < 0 {
			continue
		}
		src := out[si]
		out = append(out[:si], out[si+1:]...)
		at := 0
		switch pc.kind {
		case After:
			at = indexOf(pc.ref) + 1
		case Before:
			at = max(indexOf(pc.ref), 0)
		case First:
			at = 0
		}
		out = append(out[:at], append([]Field{src}, out[at:]...)...)
	}
	return out
}

// AddColumn is one column of ALTER TABLE ADD COLUMNS: Name under Parent ("" = root; a
// struct's full name, or "m.value" / "arr.element" for a map value or array element
// struct), its type (ids in it are reassigned), comment and position.
type AddColumn struct {
	Parent   string
	Name     string
	Type     *Type
	Doc      *string
	Position Position
}

// FullName is the new column's full name.
func (a AddColumn) FullName() string {
	if a.Parent == "" {
		return a.Name
	}
	return a.Parent + "." + a.Name
}

// AddColumns returns s with the columns added, as Java's ColumnAddChange and
// SchemaChangeUtils.applyTableChanges2Schema build it: each new column takes the next id
// after MaxColumnID (its nested fields the ones after), is optional whatever was asked
// (Java only adds optional columns: existing rows have no value), goes at the end of its
// record and is then moved by its position. The result has version 0 and the largest id
// as MaxColumnID; the caller sets the version.
func (s *Schema) AddColumns(adds []AddColumn) (*Schema, error) {
	cb := newChangeBase(s)
	next := s.MaxColumnID + 1
	added := map[string]int{}
	byParent := map[int][]Field{}
	for _, a := range adds {
		if err := checkNotMeta(a.Name); err != nil {
			return nil, err
		}
		parentID := -1
		if a.Parent != "" {
			pf, ok := s.Find(a.Parent)
			if !ok {
				return nil, refuse("cannot add column %s: its parent column %s does not exist", a.Name, a.Parent)
			}
			if pf.Type.Kind != Record {
				return nil, refuse("cannot add column %s to %s, which is %s: columns can only be added to structs", a.Name, a.Parent, pf.Type)
			}
			parentID = pf.ID
			for _, sib := range pf.Type.Fields {
				if strings.EqualFold(sib.Name, a.Name) {
					return nil, refuse("cannot add column %s: it already exists", a.FullName())
				}
			}
		} else {
			for _, f := range s.Fields {
				if strings.EqualFold(f.Name, a.Name) {
					return nil, refuse("cannot add column %s: it already exists", a.Name)
				}
			}
		}
		full := strings.ToLower(a.FullName())
		if _, dup := added[full]; dup {
			return nil, refuse("cannot add column %s twice", a.FullName())
		}
		added[full] = next
		if parentID >= 0 {
			cb.id2parent[next] = parentID
		}
		id := next
		nextID := next + 1
		typ := refreshIDs(a.Type, &nextID)
		byParent[parentID] = append(byParent[parentID], Field{ID: id, Name: a.Name, Optional: true, Type: typ, Doc: a.Doc})
		next = nextID
	}
	findID := func(name string) (int, error) {
		if f, ok := s.Find(name); ok {
			return f.ID, nil
		}
		if id, ok := added[strings.ToLower(name)]; ok {
			return id, nil
		}
		return -1, refuse("column %s does not exist", name)
	}
	for _, a := range adds {
		pos := a.Position
		if pos.Kind == After || pos.Kind == Before {
			if a.Parent != "" {
				pos.Ref = a.Parent + "." + pos.Ref
			}
		}
		if err := cb.addPosition(a.FullName(), pos, findID); err != nil {
			return nil, err
		}
	}
	var applyType func(t *Type) *Type
	applyAdd := func(f Field, t *Type) *Type {
		if fs, ps := byParent[f.ID], cb.positions[f.ID]; len(fs) > 0 || len(ps) > 0 {
			return &Type{Kind: Record, Fields: applyPositions(t.Fields, fs, ps), RecordName: t.RecordName}
		}
		return t
	}
	applyType = func(t *Type) *Type {
		switch t.Kind {
		case Record:
			fields := make([]Field, len(t.Fields))
			for i, f := range t.Fields {
				nt := applyType(f.Type)
				if nt.IsNested() {
					nt = applyAdd(f, nt)
				}
				f.Type = nt
				fields[i] = f
			}
			return &Type{Kind: Record, Fields: fields, RecordName: t.RecordName}
		case Array:
			el := applyAdd(Field{ID: t.ElementID}, applyType(t.Element))
			c := *t
			c.Element = el
			return &c
		case Map:
			if len(byParent[t.KeyID]) > 0 {
				return nil
			}
			v := applyAdd(Field{ID: t.ValueID}, applyType(t.Value))
			c := *t
			c.Value = v
			return &c
		}
		return t
	}
	root := applyType(s.Record())
	fields := applyPositions(root.Fields, byParent[-1], cb.positions[-1])
	out := New(0, fields)
	out.RecordName = s.RecordName
	// Never below the old MaxColumnID: ids of dropped columns stay retired.
	out.MaxColumnID = max(out.MaxColumnID, s.MaxColumnID)
	return out, nil
}

// refreshIDs assigns new ids to every field of t, from *next on
// (InternalSchemaBuilder.refreshNewId: a record's own fields first, then their children).
func refreshIDs(t *Type, next *int) *Type {
	switch t.Kind {
	case Record:
		cur := *next
		*next += len(t.Fields)
		fields := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			nt := refreshIDs(f.Type, next)
			fields[i] = Field{ID: cur, Name: f.Name, Optional: f.Optional, Type: nt, Doc: f.Doc}
			cur++
		}
		return &Type{Kind: Record, Fields: fields}
	case Array:
		id := *next
		*next++
		return ArrayOf(id, t.ElementOptional, refreshIDs(t.Element, next))
	case Map:
		kid := *next
		*next += 2
		k := refreshIDs(t.Key, next)
		v := refreshIDs(t.Value, next)
		return &Type{Kind: Map, KeyID: kid, ValueID: kid + 1, Key: k, Value: v, ValueOptional: t.ValueOptional}
	}
	return t
}

// DeleteColumns returns s without the named columns (ColumnDeleteChange): a struct must
// keep one field, and array elements and map keys or values cannot be deleted.
// MaxColumnID stays, so the ids are never reused.
func (s *Schema) DeleteColumns(names []string) (*Schema, error) {
	del := map[int]bool{}
	for _, n := range names {
		if err := checkNotMeta(n); err != nil {
			return nil, err
		}
		f, ok := s.Find(n)
		if !ok {
			return nil, refuse("cannot delete column %s: it does not exist", n)
		}
		del[f.ID] = true
	}
	var applyType func(t *Type, path string) (*Type, error)
	applyType = func(t *Type, path string) (*Type, error) {
		switch t.Kind {
		case Record:
			var fields []Field
			for _, f := range t.Fields {
				nt, err := applyType(f.Type, join(path, f.Name))
				if err != nil {
					return nil, err
				}
				if !del[f.ID] {
					f.Type = nt
					fields = append(fields, f)
				}
			}
			if len(fields) == 0 {
				return nil, refuse("cannot delete all columns of struct %s", pathOr(path))
			}
			return &Type{Kind: Record, Fields: fields, RecordName: t.RecordName}, nil
		case Array:
			if del[t.ElementID] {
				return nil, refuse("cannot delete the element of array %s", path)
			}
			el, err := applyType(t.Element, join(path, "element"))
			if err != nil {
				return nil, err
			}
			c := *t
			c.Element = el
			return &c, nil
		case Map:
			if del[t.KeyID] {
				return nil, refuse("cannot delete the key of map %s", path)
			}
			if del[t.ValueID] {
				return nil, refuse("cannot delete the value of map %s", path)
			}
			v, err := applyType(t.Value, join(path, "value"))
			if err != nil {
				return nil, err
			}
			c := *t
			c.Value = v
			return &c, nil
		}
		return t, nil
	}
	root, err := applyType(s.Record(), "")
	if err != nil {
		return nil, err
	}
	out := New(0, root.Fields)
	out.RecordName = s.RecordName
	out.MaxColumnID = s.MaxColumnID // AlterTableCommand.applyDeleteAction keeps it
	return out, nil
}

// UpdateColumn is one ALTER COLUMN change of the column Name (a full name): any of a new
// type (TypeChangeAllowed), a comment, a new name (the last part only), nullability (only
// required → optional) and a position.
type UpdateColumn struct {
	Name     string
	Type     *Type
	Doc      *string
	Rename   string
	Nullable *bool
	Position Position
}

// UpdateColumns returns s with the updates applied (ColumnUpdateChange and
// SchemaChangeUtils.applyTableChanges2Schema).
func (s *Schema) UpdateColumns(ups []UpdateColumn) (*Schema, error) {
	cb := newChangeBase(s)
	updates := map[int]Field{}
	typeChanged := map[int]bool{}
	current := func(f Field) Field {
		if u, ok := updates[f.ID]; ok {
			return u
		}
		return f
	}
	for _, u := range ups {
		if err := checkNotMeta(u.Name); err != nil {
			return nil, err
		}
		f, ok := s.Find(u.Name)
		if !ok {
			return nil, refuse("cannot update column %s: it does not exist", u.Name)
		}
		if u.Type != nil {
			if u.Type.IsNested() {
				return nil, refuse("cannot update column %s to nested type %s", u.Name, u.Type)
			}
			if f.Type.IsNested() {
				return nil, refuse("cannot change the type of %s, which is %s: only primitive types can change", u.Name, f.Type)
			}
			if !TypeChangeAllowed(f.Type, u.Type) {
				return nil, refuse("cannot update column %s from type %s to incompatible type %s", u.Name, f.Type, u.Type)
			}
			if !f.Type.Equal(u.Type) {
				c := current(f)
				c.Type = u.Type
				updates[f.ID] = c
				typeChanged[f.ID] = true
			}
		}
		if u.Doc != nil {
			if f.Doc == nil || *f.Doc != *u.Doc {
				c := current(f)
				d := *u.Doc
				c.Doc = &d
				updates[f.ID] = c
			}
		}
		if u.Rename != "" {
			if f.Name == u.Rename {
				return nil, refuse("cannot rename column %s to the same name", u.Name)
			}
			parent := ""
			if i := strings.LastIndex(s.FullName(f.ID), "."); i >= 0 {
				parent = s.FullName(f.ID)[:i]
			}
			if sib, ok := s.Find(join(parent, u.Rename)); ok && sib.ID != f.ID {
				return nil, refuse("cannot rename column %s to %s: a column with that name already exists", u.Name, u.Rename)
			}
			c := current(f)
			c.Name = u.Rename
			updates[f.ID] = c
		}
		if u.Nullable != nil && *u.Nullable != f.Optional {
			if f.Optional && !*u.Nullable {
				return nil, refuse("cannot change column %s from optional to required", u.Name)
			}
			c := current(f)
			c.Optional = *u.Nullable
			updates[f.ID] = c
		}
		pos := u.Position
		if pos.Kind == After || pos.Kind == Before {
			full := s.FullName(f.ID)
			if i := strings.LastIndex(full, "."); i >= 0 {
				pos.Ref = full[:i] + "." + pos.Ref
			}
		}
		findID := func(name string) (int, error) {
			if f, ok := s.Find(name); ok {
				return f.ID, nil
			}
			return -1, refuse("column %s does not exist", name)
		}
		if err := cb.addPosition(s.FullName(f.ID), pos, findID); err != nil {
			return nil, err
		}
	}
	applyUpdates := func(old Field, t *Type) *Type {
		if typeChanged[old.ID] {
			return updates[old.ID].Type
		}
		if ps := cb.positions[old.ID]; len(ps) > 0 && t.Kind == Record {
			return &Type{Kind: Record, Fields: applyPositions(t.Fields, nil, ps), RecordName: t.RecordName}
		}
		return t
	}
	var applyType func(t *Type) *Type
	applyType = func(t *Type) *Type {
		switch t.Kind {
		case Record:
			fields := make([]Field, len(t.Fields))
			for i, f := range t.Fields {
				nt := applyUpdates(f, applyType(f.Type))
				if u, ok := updates[f.ID]; ok {
					fields[i] = Field{ID: f.ID, Name: u.Name, Optional: u.Optional, Type: nt, Doc: u.Doc}
				} else {
					f.Type = nt
					fields[i] = f
				}
			}
			return &Type{Kind: Record, Fields: fields, RecordName: t.RecordName}
		case Array:
			el := Field{ID: t.ElementID, Name: "element", Optional: t.ElementOptional, Type: t.Element}
			c := *t
			c.Element = applyUpdates(el, applyType(t.Element))
			if u, ok := updates[t.ElementID]; ok {
				c.ElementOptional = u.Optional
			}
			return &c
		case Map:
			v := Field{ID: t.ValueID, Name: "value", Optional: t.ValueOptional, Type: t.Value}
			c := *t
			c.Value = applyUpdates(v, applyType(t.Value))
			if u, ok := updates[t.ValueID]; ok {
				c.ValueOptional = u.Optional
			}
			return &c
		}
		return t
	}
	root := applyType(s.Record())
	fields := applyPositions(root.Fields, nil, cb.positions[-1])
	out := New(0, fields)
	out.RecordName = s.RecordName
	// Java recomputes the largest id here (InternalSchema(RecordType)), which after a drop
	// of the highest-id column would hand that id out again; hudi-go keeps it retired.
	out.MaxColumnID = max(out.MaxColumnID, s.MaxColumnID)
	return out, nil
}

// TypeChangeAllowed reports whether ALTER COLUMN may change a column of type from to type
// to: the seed's "column type change" chart (SchemaChangeUtils.isTypeUpdateAllow):
//
//	int     → long, float, double, string, decimal
//	long    → float, double, string, decimal
//	float   → double, string, decimal
//	double  → string, decimal
//	decimal → string, a decimal at least as wide (precision−scale and scale not smaller)
//	          or of the same scale and a larger precision
//	string  → date, decimal
//	date    → string
//
// plus no change at all. Nested types never change.
func TypeChangeAllowed(from, to *Type) bool {
	if from.IsNested() || to.IsNested() {
		return false
	}
	if from.Equal(to) {
		return true
	}
	switch from.Kind {
	case Int:
		return to.Kind == Long || to.Kind == Float || to.Kind == Double || to.Kind == String || to.Kind == Decimal
	case Long:
		return to.Kind == Float || to.Kind == Double || to.Kind == String || to.Kind == Decimal
	case Float:
		return to.Kind == Double || to.Kind == String || to.Kind == Decimal
	case Double:
		return to.Kind == String || to.Kind == Decimal
	case Date:
		return to.Kind == String
	case Decimal:
		switch to.Kind {
		case Decimal:
			wider := to.Precision-to.Scale >= from.Precision-from.Scale && to.Scale > from.Scale
			return wider || (to.Precision >= from.Precision && to.Scale == from.Scale)
		case String:
			return true
		}
	case String:
		return to.Kind == Date || to.Kind == Decimal
	}
	return false
}
