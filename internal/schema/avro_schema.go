package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// avroType is one node of a parsed Avro schema, with named-type references already
// resolved to the node they name. The package parses the JSON itself (rather than walking
// the Avro library's tree) because it needs only the shape and logical-type attributes, and
// owning the walk keeps name resolution and error paths under its control.
type avroType struct {
	kind    string // null boolean int long float double bytes string record enum array map fixed union
	logical string // logicalType attribute, "" if none
	// decimal attributes (logical == "decimal")
	precision, scale int32
	size             int // fixed
	name             string
	doc              string
	fields           []avroField // record
	items            *avroType   // array
	values           *avroType   // map
	branches         []*avroType // union
	symbols          []string    // enum
}

type avroField struct {
	name string
	doc  string
	// hasDoc: the field has a "doc" (possibly ""), which InternalSchema conversion keeps.
	hasDoc bool
	typ    *avroType
}

// nonNull splits a type into the value type and whether null is allowed: a union of null and
// one other type is the Avro spelling of a nullable field. Unions of several non-null types
// have no Arrow counterpart Hudi uses, so they are rejected.
func (t *avroType) nonNull(path string) (*avroType, bool, error) {
	if t.kind != "union" {
		return t, t.kind == "null", nil
	}
	var value *avroType
	nullable := false
	for _, b := range t.branches {
		if b.kind == "null" {
			nullable = true
			continue
		}
		if value != nil {
			return nil, false, fmt.Errorf("field %s: union of several non-null types (%s and %s) is not supported", path, value.describe(), b.describe())
		}
		value = b
	}
	if value == nil {
		return t.branches[0], true, nil
	}
	return value, nullable, nil
}

// describe names a type for error messages.
func (t *avroType) describe() string {
	s := t.kind
	if t.name != "" {
		s += " " + t.name
	}
	if t.logical != "" {
		s += " (" + t.logical + ")"
	}
	return s
}

// parseAvroSchema parses Avro schema JSON into a resolved avroType tree.
func parseAvroSchema(schemaJSON string) (*avroType, error) {
	var raw any
	dec := json.NewDecoder(strings.NewReader(schemaJSON))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("parse avro schema JSON: %w", err)
	}
	p := avroParser{named: map[string]*avroType{}}
	return p.parse(raw, "", "")
}

type avroParser struct {
	named map[string]*avroType // full name → type
}

func isAvroPrimitive(name string) bool {
	switch name {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
		return true
	}
	return false
}

// fullName applies Avro's namespace rules: a dotted name is already full; otherwise the
// explicit namespace, else the enclosing one, is prepended.
func fullName(name, namespace, enclosing string) string {
	if strings.Contains(name, ".") {
		return name
	}
	if namespace == "" {
		namespace = enclosing
	}
	if namespace == "" {
		return name
	}
	return namespace + "." + name
}

func (p *avroParser) parse(raw any, ns, path string) (*avroType, error) {
	switch v := raw.(type) {
	case string:
		if isAvroPrimitive(v) {
			return &avroType{kind: v}, nil
		}
		if t := p.named[fullName(v, "", ns)]; t != nil {
			return t, nil
		}
		if t := p.named[v]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("avro schema %s: unknown type %q", pathOrRoot(path), v)
	case []any:
		u := &avroType{kind: "union"}
		for i, b := range v {
			bt, err := p.parse(b, ns, path)
			if err != nil {
				return nil, err
			}
			if bt.kind == "union" {
				return nil, fmt.Errorf("avro schema %s: union branch %d is itself a union", pathOrRoot(path), i)
			}
			u.branches = append(u.branches, bt)
		}
		if len(u.branches) == 0 {
			return nil, fmt.Errorf("avro schema %s: empty union", pathOrRoot(path))
		}
		return u, nil
	case map[string]any:
		return p.parseObject(v, ns, path)
	default:
		return nil, fmt.Errorf("avro schema %s: unexpected JSON %T", pathOrRoot(path), raw)
	}
}

func pathOrRoot(path string) string {
	if path == "" {
		return "<root>"
	}
	return "field " + path
}

func (p *avroParser) parseObject(o map[string]any, ns, path string) (*avroType, error) {
	typeName, ok := o["type"].(string)
	if !ok {
		// {"type": {...}} or {"type": [...]} nests a full schema.
		if inner, present := o["type"]; present {
			return p.parse(inner, ns, path)
		}
		return nil, fmt.Errorf("avro schema %s: object without type", pathOrRoot(path))
	}
	t := &avroType{kind: typeName}
	t.logical, _ = o["logicalType"].(string)
	t.doc, _ = o["doc"].(string)
	if t.logical == "decimal" {
		prec, err := jsonInt(o["precision"])
		if err != nil {
			return nil, fmt.Errorf("avro schema %s: decimal precision: %w", pathOrRoot(path), err)
		}
		scale := int64(0)
		if s, present := o["scale"]; present {
			if scale, err = jsonInt(s); err != nil {
				return nil, fmt.Errorf("avro schema %s: decimal scale: %w", pathOrRoot(path), err)
			}
		}
		if prec <= 0 || scale < 0 || scale > prec {
			return nil, fmt.Errorf("avro schema %s: invalid decimal(%d,%d)", pathOrRoot(path), prec, scale)
		}
		t.precision, t.scale = int32(prec), int32(scale)
	}

	switch typeName {
	case "record", "error", "enum", "fixed":
		name, _ := o["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("avro schema %s: %s without name", pathOrRoot(path), typeName)
		}
		space, _ := o["namespace"].(string)
		t.name = fullName(name, space, ns)
		// Register before descending so recursive references resolve (and are then
		// rejected by the Arrow conversion, which cannot express recursion).
		p.named[t.name] = t
		childNS := ns
		if i := strings.LastIndexByte(t.name, '.'); i >= 0 {
			childNS = t.name[:i]
		} else {
			childNS = ""
		}
		switch typeName {
		case "record", "error":
			t.kind = "record"
			fields, _ := o["fields"].([]any)
			for i, rf := range fields {
				fo, ok := rf.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("avro schema %s: record field %d is not an object", pathOrRoot(path), i)
				}
				fname, _ := fo["name"].(string)
				ft, err := p.parse(fo["type"], childNS, joinPath(path, fname))
				if err != nil {
					return nil, err
				}
				fdoc, hasDoc := fo["doc"].(string)
				t.fields = append(t.fields, avroField{name: fname, doc: fdoc, hasDoc: hasDoc, typ: ft})
			}
		case "enum":
			syms, _ := o["symbols"].([]any)
			for _, s := range syms {
				str, _ := s.(string)
				t.symbols = append(t.symbols, str)
			}
		case "fixed":
			size, err := jsonInt(o["size"])
			if err != nil || size < 0 {
				return nil, fmt.Errorf("avro schema %s: fixed %s size: %v", pathOrRoot(path), t.name, o["size"])
			}
			t.size = int(size)
		}
	case "array":
		items, err := p.parse(o["items"], ns, path+"[]")
		if err != nil {
			return nil, err
		}
		t.items = items
	case "map":
		values, err := p.parse(o["values"], ns, path+"{}")
		if err != nil {
			return nil, err
		}
		t.values = values
	default:
		if !isAvroPrimitive(typeName) {
			// A named type referenced in object form, e.g. {"type": "some.Record"}.
			return p.parse(typeName, ns, path)
		}
	}
	return t, nil
}

func jsonInt(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number: %v", v)
	}
	return n.Int64()
}
