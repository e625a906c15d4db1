package internalschema

import (
	"sort"
	"strings"
)

// Reconcile evolves s by the schema of a write (incoming, whose ids are its own: it is
// converted from the writer's Avro schema) as Java 0.14's
// AvroSchemaEvolutionUtils.reconcileSchema does when a write runs with schema evolution
// on read:
//
//   - columns are matched by full name ("a.b", "arr.element.x", "m.value.y"), exactly;
//   - a column of incoming that s lacks is added (only the outermost one of a new nested
//     column), with a new id, optional, and placed before the first column of incoming
//     that follows it in the same record and exists in s — the one of those with the
//     smallest id in s (Java's inferred "before" position); with none, at the end;
//   - a primitive column whose type differs takes incoming's type, which must be an
//     allowed change (TypeChangeAllowed), else the write is refused;
//   - columns of s that incoming lacks stay (the write leaves them null).
//
// changed is false, and s is returned, when incoming has exactly s's columns with the
// same types. Java compares nested types with their ids, which the incoming schema
// assigns afresh, so it records a new (identical) version at every write to a table with
// a struct, array or map column; hudi-go compares them without ids and records none. Otherwise the result has version 0 (the caller sets the write's instant),
// also when only columns are missing: Java compares the rebuilt schema, whose version id
// differs, and so records a new version with the same columns.
func (s *Schema) Reconcile(incoming *Schema) (_ *Schema, changed bool, _ error) {
	inNames := incoming.allNames()
	oldNames := s.allNames()
	var added []string
	for _, n := range inNames {
		if _, ok := s.idx().idOf[n]; !ok {
			added = append(added, n)
		}
	}
	var typeChanged []string
	for _, n := range inNames {
		oid, ok := s.idx().idOf[n]
		if !ok {
			continue
		}
		if !sameShape(incoming.idx().byID[incoming.idx().idOf[n]].Type, s.idx().byID[oid].Type) {
			typeChanged = append(typeChanged, n)
		}
	}
	missing := 0
	for _, n := range oldNames {
		if _, ok := incoming.idx().idOf[n]; !ok {
			missing++
		}
	}
	if len(added) == 0 && len(typeChanged) == 0 && missing == 0 {
		return s, false, nil
	}

	// The outermost new columns, in incoming's id order (Java's TreeMap by incoming id).
	isAdded := map[string]bool{}
	for _, n := range added {
		isAdded[n] = true
	}
	var outer []string
	for _, n := range added {
		if parent, _ := splitFull(n); parent != "" && isAdded[parent] {
			continue
		}
		outer = append(outer, n)
	}
	inID := func(n string) int { return incoming.idx().idOf[n] }
	sort.SliceStable(outer, func(i, j int) bool { return inID(outer[i]) < inID(outer[j]) })

	var adds []AddColumn
	for _, n := range outer {
		parent, raw := splitFull(n)
		dot := strings.LastIndexByte(n, '.')
		// Java's position inference: columns of incoming at the same depth under the same
		// prefix, after n, that exist in s, the one with the smallest id in s first.
		var cands []string
		for _, c := range inNames {
			oid, ok := s.idx().idOf[c]
			if strings.LastIndexByte(c, '.') == dot && strings.HasPrefix(c, parent) && inID(c) > inID(n) && ok && oid > 0 {
				cands = append(cands, c)
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return s.idx().idOf[cands[i]] < s.idx().idOf[cands[j]] })
		a := AddColumn{Parent: parent, Name: raw, Type: incoming.idx().byID[inID(n)].Type}
		if len(cands) > 0 {
			_, ref := splitFull(cands[0])
			a.Position = Position{Kind: Before, Ref: ref}
		}
		adds = append(adds, a)
	}
	out := s
	if len(adds) > 0 {
		var err error
		if out, err = s.AddColumns(adds); err != nil {
			return nil, false, err
		}
	}
	var ups []UpdateColumn
	for _, n := range typeChanged {
		if t := incoming.idx().byID[inID(n)].Type; !t.IsNested() {
			ups = append(ups, UpdateColumn{Name: n, Type: t})
		}
	}
	if len(ups) > 0 {
		var err error
		if out, err = out.UpdateColumns(ups); err != nil {
			return nil, false, err
		}
	}
	if out == s {
		out = New(0, s.Fields)
		out.MaxColumnID = s.MaxColumnID
	}
	out.RecordName = s.RecordName
	return out, true, nil
}

// allNames lists the full names of every field, in id order.
func (s *Schema) allNames() []string {
	ix := s.idx()
	ids := make([]int, 0, len(ix.byID))
	for id := range ix.byID {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = ix.nameOf[id]
	}
	return out
}

// splitFull splits a full name into its parent's full name ("" at the root) and its own.
func splitFull(full string) (parent, name string) {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}

// sameShape compares two types ignoring field ids and docs: kinds, sizes, precisions,
// and the names, optionality and types of nested fields.
func sameShape(a, b *Type) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Fixed:
		return a.Size == b.Size
	case Decimal:
		return a.Precision == b.Precision && a.Scale == b.Scale
	case Record:
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			fa, fb := a.Fields[i], b.Fields[i]
			if fa.Name != fb.Name || fa.Optional != fb.Optional || !sameShape(fa.Type, fb.Type) {
				return false
			}
		}
	case Array:
		return a.ElementOptional == b.ElementOptional && sameShape(a.Element, b.Element)
	case Map:
		return a.ValueOptional == b.ValueOptional && sameShape(a.Key, b.Key) && sameShape(a.Value, b.Value)
	}
	return true
}
