package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

const hudiNamespace = "org.apache.hudi.avro.model"

// Fields of HoodieArchivedMetaEntry, in the order of HoodieArchivedMetaEntry.avsc. The
// first thirteen are the .avsc read (apache/hudi, stored version); HoodieInflightReplaceMetadata,
// hoodieIndexCommitMetadata and stateTransitionTime are the later additions that
// timeline/archived.go reads (their position after the thirteen is what that reader's
// tests assume; that 0.14.1 had stateTransitionTime is UNVERIFIED, and this writer leaves
// it null).
const (
	fCommitMetadata           = "hoodieCommitMetadata"
	fCleanMetadata            = "hoodieCleanMetadata"
	fCompactionMetadata       = "hoodieCompactionMetadata"
	fRollbackMetadata         = "hoodieRollbackMetadata"
	fSavepointMetadata        = "hoodieSavePointMetadata"
	fCommitTime               = "commitTime"
	fActionType               = "actionType"
	fVersion                  = "version"
	fCompactionPlan           = "hoodieCompactionPlan"
	fCleanerPlan              = "hoodieCleanerPlan"
	fActionState              = "actionState"
	fReplaceCommitMetadata    = "hoodieReplaceCommitMetadata"
	fRequestedReplaceMetadata = "hoodieRequestedReplaceMetadata"
	fInflightReplaceMetadata  = "HoodieInflightReplaceMetadata"
	fIndexCommitMetadata      = "hoodieIndexCommitMetadata"
	fStateTransitionTime      = "stateTransitionTime"
)

// entryField is one field of the entry: a nested record (schema set) or a nullable string
// or the version int.
type entryField struct {
	name   string
	schema string // self-contained record schema, "" for the scalar fields
	ref    string // a named type defined earlier (HoodieInflightReplaceMetadata)
}

// entryFields lists the entry's fields with the schemas of its nested records
// (format/avroschema: the timeline files' records where the archive writes the same
// revision, archived/ the others). Each is self-contained; entrySchemaJSON turns the second
// definition of a named type into a reference, as Java's Schema.toString does. Readers
// resolve the block's SCHEMA header against their own HoodieArchivedMetaEntry, so a field
// this writer schema has and a given Java release lacks (or the reverse) is skipped or
// defaulted by that reader rather than breaking it.
func entryFields() []entryField {
	return []entryField{
		{name: fCommitMetadata, schema: avroschema.ArchivedCommitMetadata.JSON()},
		{name: fCleanMetadata, schema: avroschema.ArchivedCleanMetadata.JSON()},
		{name: fCompactionMetadata, schema: avroschema.ArchivedCompactionMetadata.JSON()},
		{name: fRollbackMetadata, schema: avroschema.RollbackMetadata.JSON()},
		{name: fSavepointMetadata, schema: avroschema.ArchivedSavepointMetadata.JSON()},
		{name: fCommitTime},
		{name: fActionType},
		{name: fVersion},
		{name: fCompactionPlan, schema: avroschema.CompactionPlan.JSON()},
		{name: fCleanerPlan, schema: avroschema.ArchivedCleanerPlan.JSON()},
		{name: fActionState},
		{name: fReplaceCommitMetadata, schema: avroschema.ArchivedReplaceCommitMetadata.JSON()},
		{name: fRequestedReplaceMetadata, schema: avroschema.ArchivedRequestedReplaceMetadata.JSON()},
		{name: fInflightReplaceMetadata, ref: hudiNamespace + ".HoodieCommitMetadata"},
		{name: fIndexCommitMetadata, schema: avroschema.ArchivedIndexCommitMetadata.JSON()},
		{name: fStateTransitionTime},
	}
}

// entrySchemaJSON builds the HoodieArchivedMetaEntry writer schema that heads every block:
// each nested record inlined at its first use and referenced by full name afterwards.
func entrySchemaJSON() (string, error) {
	seen := map[string]bool{}
	var fields []any
	for _, f := range entryFields() {
		var typ any
		switch {
		case f.schema != "":
			var node any
			if err := json.Unmarshal([]byte(f.schema), &node); err != nil {
				return "", fmt.Errorf("schema of %s: %w", f.name, err)
			}
			typ = []any{"null", avro.DedupeNamedTypes(node, hudiNamespace, seen)}
		case f.ref != "":
			typ = []any{"null", f.ref}
		case f.name == fVersion:
			fields = append(fields, map[string]any{"name": f.name, "type": []any{"int", "null"}, "default": 1})
			continue
		default:
			typ = []any{"null", "string"}
		}
		fields = append(fields, map[string]any{"name": f.name, "type": typ, "default": nil})
	}
	b, err := json.Marshal(map[string]any{"type": "record", "name": "HoodieArchivedMetaEntry", "namespace": hudiNamespace, "fields": fields})
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// schemaNode is a nested record schema parsed with encoding/json, walked by project.
type schemaNode = any

func parseSchemaNode(schemaJSON string) (schemaNode, error) {
	var n any
	d := json.NewDecoder(strings.NewReader(schemaJSON))
	d.UseNumber()
	if err := d.Decode(&n); err != nil {
		return nil, err
	}
	return n, nil
}

// errNoValue marks a record field that has neither a value nor a default.
var errNoValue = errors.New("no value and no default")

// project converts v into the generic Avro value the self-contained schema s describes,
// matching record fields by name: what Jackson's convertValue does when Java turns a JSON
// HoodieCommitMetadata into the Avro record, and what Avro resolution does for a file
// written with another version of a schema. Fields v lacks take the schema default;
// fields s lacks are dropped. v comes from encoding/json (json.Number) or from an Avro
// decode (int32, int64, float64, …).
func project(s schemaNode, v any, path string) (any, error) {
	switch t := s.(type) {
	case string:
		return projectPrimitive(t, v, path)
	case []any: // union
		if v == nil {
			for _, b := range t {
				if b == "null" {
					return nil, nil
				}
			}
			return nil, fmt.Errorf("%s: null for a union without null", path)
		}
		var lastErr error
		for _, b := range t {
			if b == "null" {
				continue
			}
			out, err := project(b, v, path)
			if err == nil {
				return out, nil
			}
			lastErr = err
		}
		return nil, lastErr
	case map[string]any:
		typ, _ := t["type"].(string)
		switch typ {
		case "record":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %T is not a record", path, v)
			}
			fields, _ := t["fields"].([]any)
			out := make(map[string]any, len(fields))
			for _, f := range fields {
				fm := f.(map[string]any)
				name := fm["name"].(string)
				fv, has := m[name]
				if !has {
					def, hasDef := fm["default"]
					if !hasDef {
						if u, ok := fm["type"].([]any); ok && slices.Contains(u, any("null")) {
							out[name] = nil // Java's no-arg constructor leaves it null
							continue
						}
						return nil, fmt.Errorf("%s.%s: %w", path, name, errNoValue)
					}
					fv = def
				}
				pv, err := project(fm["type"], fv, path+"."+name)
				if err != nil {
					return nil, err
				}
				out[name] = pv
			}
			return out, nil
		case "map":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %T is not a map", path, v)
			}
			out := make(map[string]any, len(m))
			for k, e := range m {
				pv, err := project(t["values"], e, path+"["+k+"]")
				if err != nil {
					return nil, err
				}
				out[k] = pv
			}
			return out, nil
		case "array":
			a, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: %T is not an array", path, v)
			}
			out := make([]any, len(a))
			for i, e := range a {
				pv, err := project(t["items"], e, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				out[i] = pv
			}
			return out, nil
		case "":
			return nil, fmt.Errorf("%s: schema node without a type", path)
		default: // {"type":"string","avro.java.string":"String"} and friends
			return projectPrimitive(typ, v, path)
		}
	}
	return nil, fmt.Errorf("%s: unexpected schema node %T", path, s)
}

func projectPrimitive(typ string, v any, path string) (any, error) {
	switch typ {
	case "null":
		if v == nil {
			return nil, nil
		}
	case "string":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "int", "long":
		n, ok := toInt64(v)
		if !ok {
			break
		}
		if typ == "int" {
			if n < math.MinInt32 || n > math.MaxInt32 {
				return nil, fmt.Errorf("%s: %d overflows an int", path, n)
			}
			return int32(n), nil
		}
		return n, nil
	case "double", "float":
		f, ok := toFloat64(v)
		if !ok {
			break
		}
		if typ == "float" {
			return float32(f), nil
		}
		return f, nil
	default:
		return nil, fmt.Errorf("%s: unsupported schema type %q", path, typ)
	}
	return nil, fmt.Errorf("%s: %T (%v) is not a %s", path, v, v, typ)
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int:
		return int64(n), true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

func toFloat64(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
