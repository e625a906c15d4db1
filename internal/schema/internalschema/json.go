package internalschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// LatestSchemaKey is the commit metadata extraMetadata key holding the schema a commit
// was made with (Java's SerDeHelper.LATEST_SCHEMA).
const LatestSchemaKey = "latest_schema"

// JSON returns the schema in Java's JSON form (SerDeHelper.toJson, written by Jackson with
// no whitespace): {"max_column_id":…,"version-id":…,"type":"record","fields":[…]}, each
// field {"id","name","optional","type"[,"doc"]}, primitive types as their Type.String,
// arrays {"type":"array","element-id","element","element_optional"}, maps
// {"type":"map","key-id","key","value-id","value","value_optional"}.
func (s *Schema) JSON() string {
	var b strings.Builder
	writeRecord(&b, s.Fields, &s.MaxColumnID, &s.VersionID)
	return b.String()
}

func writeRecord(b *strings.Builder, fields []Field, maxID *int, version *int64) {
	b.WriteByte('{')
	if maxID != nil {
		fmt.Fprintf(b, `"max_column_id":%d,`, *maxID)
	}
	if version != nil {
		fmt.Fprintf(b, `"version-id":%d,`, *version)
	}
	b.WriteString(`"type":"record","fields":[`)
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"id":%d,"name":`, f.ID)
		writeJSONString(b, f.Name)
		fmt.Fprintf(b, `,"optional":%t,"type":`, f.Optional)
		writeType(b, f.Type)
		if f.Doc != nil {
			b.WriteString(`,"doc":`)
			writeJSONString(b, *f.Doc)
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
}

func writeType(b *strings.Builder, t *Type) {
	switch t.Kind {
	case Record:
		writeRecord(b, t.Fields, nil, nil)
	case Array:
		fmt.Fprintf(b, `{"type":"array","element-id":%d,"element":`, t.ElementID)
		writeType(b, t.Element)
		fmt.Fprintf(b, `,"element_optional":%t}`, t.ElementOptional)
	case Map:
		fmt.Fprintf(b, `{"type":"map","key-id":%d,"key":`, t.KeyID)
		writeType(b, t.Key)
		fmt.Fprintf(b, `,"value-id":%d,"value":`, t.ValueID)
		writeType(b, t.Value)
		fmt.Fprintf(b, `,"value_optional":%t}`, t.ValueOptional)
	default:
		writeJSONString(b, t.String())
	}
}

// writeJSONString escapes like Jackson's JsonGenerator: '"', '\\' and control characters
// only (\b \t \n \f \r, others \u00XX in upper-case hex); non-ASCII is written as is.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

var (
	fixedPattern   = regexp.MustCompile(`^fixed\[(\d+)\]$`)
	decimalPattern = regexp.MustCompile(`^decimal\((\d+),\s+(\d+)\)$`)
)

// Parse reads a schema in Java's JSON form (SerDeHelper.fromJson). Without "version-id"
// the version is 0; without "max_column_id" it is the largest id present.
func Parse(text string) (*Schema, error) {
	var raw map[string]any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("internal schema JSON: %w", err)
	}
	return parseSchemaObject(raw)
}

func parseSchemaObject(raw map[string]any) (*Schema, error) {
	t, err := parseType(raw, "")
	if err != nil {
		return nil, fmt.Errorf("internal schema: %w", err)
	}
	if t.Kind != Record {
		return nil, fmt.Errorf("internal schema: the root is %s, not a record", t)
	}
	s := &Schema{Fields: t.Fields, index: buildIndex(t.Fields)}
	n := 0
	walk(t.Fields, func(Field, string, int) { n++ })
	if n != len(s.index.byID) {
		// Columns are matched by id: two columns of one id would read each other's data.
		return nil, fmt.Errorf("internal schema: %d columns but %d distinct ids (ids must be unique)", n, len(s.index.byID))
	}
	if v, ok := raw["version-id"]; ok {
		n, err := jsonInt(v, "version-id")
		if err != nil {
			return nil, fmt.Errorf("internal schema: %w", err)
		}
		s.VersionID = n
	}
	s.MaxColumnID = s.maxID()
	if v, ok := raw["max_column_id"]; ok {
		n, err := jsonInt(v, "max_column_id")
		if err != nil {
			return nil, fmt.Errorf("internal schema: %w", err)
		}
		s.MaxColumnID = int(n)
	}
	return s, nil
}

func jsonInt(v any, what string) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s is %v, not a number", what, v)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %s is not an integer", what, n)
	}
	return i, nil
}

func parseType(v any, path string) (*Type, error) {
	switch x := v.(type) {
	case string:
		return parsePrimitive(strings.ToLower(x), path)
	case map[string]any:
		kind, _ := x["type"].(string)
		switch kind {
		case "record":
			list, ok := x["fields"].([]any)
			if !ok {
				return nil, fmt.Errorf("%s: record without a fields array", pathOr(path))
			}
			fields := make([]Field, 0, len(list))
			for i, fv := range list {
				fo, ok := fv.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s: field %d is not an object", pathOr(path), i)
				}
				id, err := jsonInt(fo["id"], "id")
				if err != nil {
					return nil, fmt.Errorf("%s: field %d: %w", pathOr(path), i, err)
				}
				name, ok := fo["name"].(string)
				if !ok {
					return nil, fmt.Errorf("%s: field %d has no name", pathOr(path), i)
				}
				opt, ok := fo["optional"].(bool)
				if !ok {
					return nil, fmt.Errorf("%s: field %s has no optional flag", pathOr(path), name)
				}
				ft, err := parseType(fo["type"], join(path, name))
				if err != nil {
					return nil, err
				}
				f := Field{ID: int(id), Name: name, Optional: opt, Type: ft}
				if d, ok := fo["doc"].(string); ok {
					f.Doc = &d
				}
				fields = append(fields, f)
			}
			return &Type{Kind: Record, Fields: fields}, nil
		case "array":
			id, err := jsonInt(x["element-id"], "element-id")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pathOr(path), err)
			}
			el, err := parseType(x["element"], join(path, "element"))
			if err != nil {
				return nil, err
			}
			opt, _ := x["element_optional"].(bool)
			return ArrayOf(int(id), opt, el), nil
		case "map":
			kid, err := jsonInt(x["key-id"], "key-id")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pathOr(path), err)
			}
			vid, err := jsonInt(x["value-id"], "value-id")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pathOr(path), err)
			}
			key, err := parseType(x["key"], join(path, "key"))
			if err != nil {
				return nil, err
			}
			val, err := parseType(x["value"], join(path, "value"))
			if err != nil {
				return nil, err
			}
			opt, _ := x["value_optional"].(bool)
			return &Type{Kind: Map, KeyID: int(kid), ValueID: int(vid), Key: key, Value: val, ValueOptional: opt}, nil
		}
		return nil, fmt.Errorf("%s: unknown nested type %q", pathOr(path), kind)
	}
	return nil, fmt.Errorf("%s: cannot parse type from %v", pathOr(path), v)
}

func parsePrimitive(s, path string) (*Type, error) {
	if m := fixedPattern.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("%s: bad fixed size in %q", pathOr(path), s)
		}
		return FixedOf(n), nil
	}
	if m := decimalPattern.FindStringSubmatch(s); m != nil {
		p, err1 := strconv.Atoi(m[1])
		sc, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad decimal %q", pathOr(path), s)
		}
		return DecimalOf(p, sc), nil
	}
	for k := Boolean; k <= Binary; k++ {
		if (&Type{Kind: k}).String() == s {
			return Primitive(k), nil
		}
	}
	return nil, fmt.Errorf("%s: unknown type %q", pathOr(path), s)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func pathOr(path string) string {
	if path == "" {
		return "root record"
	}
	return "column " + path
}

// History is the list of a table's schema versions as kept in a .hoodie/.schema file:
// {"schemas":[newest, …, oldest]}.
type History struct {
	Schemas []*Schema // newest first, as Java writes them
}

// historyPrefix starts every history text (SerDeHelper.inheritSchemas relies on it).
const historyPrefix = `{"schemas":[`

// JSON writes the history as Java's SerDeHelper.toJson(List) does.
func (h *History) JSON() string {
	var b strings.Builder
	b.WriteString(historyPrefix)
	for i, s := range h.Schemas {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.JSON())
	}
	b.WriteString("]}")
	return b.String()
}

// Inherit returns the history text with s in front of the versions of old (a history
// text, "" for none), by text splicing as Java's SerDeHelper.inheritSchemas does so that
// the older versions keep their exact bytes. An old text that is not a history is an
// error (Java returns "" and loses the history).
func Inherit(s *Schema, old string) (string, error) {
	if old == "" {
		return (&History{Schemas: []*Schema{s}}).JSON(), nil
	}
	if !strings.HasPrefix(old, historyPrefix) {
		return "", fmt.Errorf("schema history does not start with %s", historyPrefix)
	}
	return historyPrefix + s.JSON() + "," + old[len(historyPrefix):], nil
}

// ParseHistory reads a history text (SerDeHelper.parseSchemas).
func ParseHistory(text string) (*History, error) {
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("schema history JSON: %w", err)
	}
	list, ok := raw["schemas"].([]any)
	if !ok {
		return nil, fmt.Errorf("schema history: missing key schemas")
	}
	h := &History{}
	for i, v := range list {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema history: entry %d is not an object", i)
		}
		s, err := parseSchemaObject(o)
		if err != nil {
			return nil, fmt.Errorf("schema history: entry %d: %w", i, err)
		}
		h.Schemas = append(h.Schemas, s)
	}
	return h, nil
}

// At returns the version in force at instant version: the one with the largest version
// id at or below it (InternalSchemaUtils.searchSchema), or nil if every version is newer.
func (h *History) At(version int64) *Schema {
	byVersion := append([]*Schema(nil), h.Schemas...)
	sort.SliceStable(byVersion, func(i, j int) bool { return byVersion[i].VersionID < byVersion[j].VersionID })
	var out *Schema
	for _, s := range byVersion {
		if s.VersionID <= version {
			out = s
		}
	}
	return out
}
