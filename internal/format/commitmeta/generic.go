package commitmeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/hudi-go/hudi/internal/avro"
)

// Timeline files come in two encodings holding the same field names: Jackson JSON (v6
// commit metadata) and Avro object containers (every v8+ file, and v6 plans/rollbacks).
// Both are first decoded into generic values — JSON with numbers kept as json.Number so
// longs stay exact, Avro through internal/avro (record → map, union → branch value) — and
// one set of mapping functions then copies them onto the typed structs by field name.
// Absent and null fields leave the Go zero value, unknown fields are ignored (field sets
// grow across Hudi versions), and a field of the wrong kind is an error naming its path.

// ErrEmpty is returned by decoders for which an empty file is not a valid encoding.
const ErrEmpty Error = "empty timeline file"

// Error is a constant error of this package.
type Error string

func (e Error) Error() string { return string(e) }

// decodeGeneric turns a timeline file into the generic value of its top-level record.
// what names the structure for error messages.
func decodeGeneric(data []byte, what string) (map[string]any, error) {
	var v any
	if bytes.HasPrefix(data, avro.ContainerMagic) {
		_, values, err := avro.ReadContainer(data)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", what, err)
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("decode %s: avro container holds no record", what)
		}
		// Java reads the first datum only; Hudi writes exactly one.
		v = values[0]
	} else {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		// Jackson ignores trailing content by default, so only the first value counts.
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("decode %s JSON: %w", what, err)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decode %s: top-level value is %s, not a record", what, kindOf(v))
	}
	return m, nil
}

// isEmpty reports whether data holds no content; Java treats an empty commit file as
// empty metadata, and whitespace alone carries nothing either.
func isEmpty(data []byte) bool { return len(bytes.TrimSpace(data)) == 0 }

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "record/map"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number, int32, int64, float32, float64:
		return "number"
	case bool:
		return "boolean"
	case []byte:
		return "bytes"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// rec reads the fields of one generic record. The first type error is kept in *err and
// later reads become no-ops that return zero values, so mapping code stays linear.
type rec struct {
	m    map[string]any
	path string
	err  *error
}

func newRec(m map[string]any, path string) rec {
	var err error
	return rec{m: m, path: path, err: &err}
}

func (r rec) child(m map[string]any, path string) rec { return rec{m: m, path: path, err: r.err} }

func (r rec) failed() bool { return *r.err != nil }

func (r rec) fail(field, want string, v any) {
	if *r.err == nil {
		*r.err = fmt.Errorf("%s: expected %s, found %s", joinPath(r.path, field), want, kindOf(v))
	}
}

// joinPath names a field below path ("" for the top-level record).
func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func (r rec) get(field string) any {
	if r.failed() {
		return nil
	}
	return r.m[field]
}

// has reports whether field is present with a non-null value.
func (r rec) has(field string) bool { return r.get(field) != nil }

func (r rec) str(field string) string {
	switch v := r.get(field).(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		r.fail(field, "string", v)
		return ""
	}
}

func (r rec) boolean(field string) bool {
	switch v := r.get(field).(type) {
	case nil:
		return false
	case bool:
		return v
	default:
		r.fail(field, "boolean", v)
		return false
	}
}

// toInt64 converts an integral generic number. JSON numbers must be integer literals in
// range: Jackson writes Java longs that way, and anything else would lose precision.
func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	default:
		return 0, false
	}
}

func toFloat64(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	default:
		return 0, false
	}
}

func (r rec) i64(field string) int64 {
	v := r.get(field)
	if v == nil {
		return 0
	}
	n, ok := toInt64(v)
	if !ok {
		r.fail(field, "integer", v)
	}
	return n
}

func (r rec) optI64(field string) *int64 {
	if !r.has(field) {
		return nil
	}
	n := r.i64(field)
	if r.failed() {
		return nil
	}
	return &n
}

func (r rec) i32(field string) int32 {
	n := r.i64(field)
	if n < math.MinInt32 || n > math.MaxInt32 {
		r.fail(field, "32-bit integer", n)
		return 0
	}
	return int32(n)
}

func (r rec) strList(field string) []string {
	v := r.get(field)
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.fail(field, "array of strings", v)
		return nil
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			r.fail(fmt.Sprintf("%s[%d]", field, i), "string", e)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r rec) genericMap(field string) (map[string]any, bool) {
	v := r.get(field)
	if v == nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.fail(field, "map", v)
		return nil, false
	}
	return m, true
}

// strMap reads a map<string>. Null values (possible in Java maps) become "".
func (r rec) strMap(field string) map[string]string {
	m, ok := r.genericMap(field)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		switch s := e.(type) {
		case nil:
			out[k] = ""
		case string:
			out[k] = s
		default:
			r.fail(fmt.Sprintf("%s[%q]", field, k), "string", e)
			return nil
		}
	}
	return out
}

func (r rec) i64Map(field string) map[string]int64 {
	m, ok := r.genericMap(field)
	if !ok {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, e := range m {
		n, ok := toInt64(e)
		if !ok {
			r.fail(fmt.Sprintf("%s[%q]", field, k), "integer", e)
			return nil
		}
		out[k] = n
	}
	return out
}

func (r rec) f64Map(field string) map[string]float64 {
	m, ok := r.genericMap(field)
	if !ok {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, e := range m {
		f, ok := toFloat64(e)
		if !ok {
			r.fail(fmt.Sprintf("%s[%q]", field, k), "number", e)
			return nil
		}
		out[k] = f
	}
	return out
}

// strListMap reads a map<array<string>>.
func (r rec) strListMap(field string) map[string][]string {
	m, ok := r.genericMap(field)
	if !ok {
		return nil
	}
	out := make(map[string][]string, len(m))
	inner := r.child(m, joinPath(r.path, field))
	for k := range m {
		out[k] = inner.strList(k)
	}
	if r.failed() {
		return nil
	}
	return out
}

// record reads a nested record; ok is false when it is absent or null.
func (r rec) record(field string) (rec, bool) {
	v := r.get(field)
	if v == nil {
		return rec{}, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.fail(field, "record", v)
		return rec{}, false
	}
	return r.child(m, joinPath(r.path, field)), true
}

// records reads an array of records, calling fn for each element.
func (r rec) records(field string, fn func(rec)) {
	v := r.get(field)
	if v == nil {
		return
	}
	a, ok := v.([]any)
	if !ok {
		r.fail(field, "array of records", v)
		return
	}
	for i, e := range a {
		m, ok := e.(map[string]any)
		if !ok {
			r.fail(fmt.Sprintf("%s[%d]", field, i), "record", e)
			return
		}
		fn(r.child(m, joinPath(r.path, fmt.Sprintf("%s[%d]", field, i))))
		if r.failed() {
			return
		}
	}
}

// recordMap reads a map of records, calling fn for each entry; ok is false when the map
// is absent or null.
func (r rec) recordMap(field string, fn func(key string, e rec)) bool {
	m, ok := r.genericMap(field)
	if !ok {
		return false
	}
	for k, e := range m {
		em, ok := e.(map[string]any)
		if !ok {
			r.fail(fmt.Sprintf("%s[%q]", field, k), "record", e)
			return false
		}
		fn(k, r.child(em, joinPath(r.path, fmt.Sprintf("%s[%q]", field, k))))
		if r.failed() {
			return false
		}
	}
	return true
}

// result wraps the first mapping error, if any, with the decoded structure's name.
func (r rec) result(what string) error {
	if *r.err != nil {
		return fmt.Errorf("decode %s: %w", what, *r.err)
	}
	return nil
}

// decodeInto runs the shared prologue of every decoder: empty handling, generic decode,
// mapping, and error wrapping.
func decodeInto(data []byte, what string, allowEmpty bool, mapFn func(rec)) error {
	if isEmpty(data) {
		if allowEmpty {
			return nil
		}
		return fmt.Errorf("decode %s: %w", what, ErrEmpty)
	}
	m, err := decodeGeneric(data, what)
	if err != nil {
		return err
	}
	r := newRec(m, "")
	mapFn(r)
	return r.result(what)
}
