package keygen

import (
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Key generator type names (hoodie.table.keygenerator.type, KeyGeneratorType).
const (
	TypeSimple       = "SIMPLE"
	TypeComplex      = "COMPLEX"
	TypeNonPartition = "NON_PARTITION"
	TypeTimestamp    = "TIMESTAMP"
	TypeCustom       = "CUSTOM"
	TypeGlobalDelete = "GLOBAL_DELETE"
)

// Spark key generator classes Hudi 0.14 records in hoodie.table.keygenerator.class.
var typeClass = map[string]string{
	TypeSimple:       "org.apache.hudi.keygen.SimpleKeyGenerator",
	TypeComplex:      "org.apache.hudi.keygen.ComplexKeyGenerator",
	TypeNonPartition: "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
	TypeTimestamp:    "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
	TypeCustom:       "org.apache.hudi.keygen.CustomKeyGenerator",
	TypeGlobalDelete: "org.apache.hudi.keygen.GlobalDeleteKeyGenerator",
}

// classType maps simple class names (upper case; Spark and Avro variants) to types.
var classType = map[string]string{
	"SIMPLEKEYGENERATOR": TypeSimple, "SIMPLEAVROKEYGENERATOR": TypeSimple,
	"COMPLEXKEYGENERATOR": TypeComplex, "COMPLEXAVROKEYGENERATOR": TypeComplex,
	"NONPARTITIONEDKEYGENERATOR": TypeNonPartition, "NONPARTITIONEDAVROKEYGENERATOR": TypeNonPartition,
	"TIMESTAMPBASEDKEYGENERATOR": TypeTimestamp, "TIMESTAMPBASEDAVROKEYGENERATOR": TypeTimestamp,
	"CUSTOMKEYGENERATOR": TypeCustom, "CUSTOMAVROKEYGENERATOR": TypeCustom,
	"GLOBALDELETEKEYGENERATOR": TypeGlobalDelete, "GLOBALAVRODELETEKEYGENERATOR": TypeGlobalDelete,
}

// Options configures a Generator.
type Options struct {
	// KeyGenerator is a class name (FQCN or simple name, Spark or Avro variant) or a type
	// name (SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM, GLOBAL_DELETE). Empty means
	// infer as Java 0.14 does (KeyGenUtils.inferKeyGeneratorType).
	KeyGenerator string
	// RecordKeyFields are the key fields; nested fields use dots ("a.b.c").
	RecordKeyFields []string
	// PartitionFields are the partition fields; for CUSTOM each is "field:SIMPLE" or
	// "field:TIMESTAMP".
	PartitionFields []string
	// HiveStyle writes "field=value" directories
	// (hoodie.datasource.write.hive_style_partitioning).
	HiveStyle bool
	// URLEncode escapes partition values (hoodie.datasource.write.partitionpath.urlencode).
	URLEncode bool
	// Props holds hoodie.keygen.timebased.* settings (legacy
	// hoodie.deltastreamer.keygen.timebased.* accepted) for TIMESTAMP and CUSTOM.
	Props map[string]string
}

// Generator computes record keys and partition paths from Arrow rows exactly as Java Hudi
// 0.14's Avro key generators compute them from the equivalent Avro record. It is safe for
// concurrent use.
//
// Checked against every Spark-written fixture table (fixtures_test.go). Known differences
// from Java, each deliberate or unverifiable:
//   - hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled=true is not
//     supported; timestamps are keyed as raw microseconds (the 0.14 default).
//   - COMPLEX with one key field writes "field:value" (0.14.0 and 1.1+); 0.14.1–1.0.2 wrote
//     the bare value (HUDI-7001).
//   - With no timebased time zone configured Java uses the JVM default zone for numbers; we
//     use UTC.
//   - A string holding a whole number is accepted by numeric timestamp types (Java throws).
//   - Unknown time zone ids are errors (Java silently uses GMT); ".." partition segments are
//     errors (Hudi 0.14 allowed them, newer Hudi rejects them).
//   - Binary, struct, list and map key fields are refused (Java keys on the object's
//     toString, e.g. a ByteBuffer description).
type Generator struct {
	kind      string
	className string
	keyFields []fieldPath
	complex   bool // record keys in "f1:v1,f2:v2" form
	auto      bool // no record key fields: keys are generated (AutoKeys)
	parts     []partField
	hive      bool
	urlEncode bool

	// cols caches the top-level column of every key and partition field for the schema
	// most recently seen (records of one write share it), replacing a per-row lookup.
	cols atomic.Pointer[resolvedCols]
}

type resolvedCols struct {
	schema   *arrow.Schema
	keyCols  []int // -1: not in the schema (the value is null)
	partCols []int
}

// resolve returns the column indices for rec's schema.
func (g *Generator) resolve(rec arrow.Record) *resolvedCols {
	sc := rec.Schema()
	if rc := g.cols.Load(); rc != nil && rc.schema == sc {
		return rc
	}
	rc := &resolvedCols{schema: sc, keyCols: make([]int, len(g.keyFields)), partCols: make([]int, len(g.parts))}
	col := func(fp fieldPath) int {
		if idx := sc.FieldIndices(fp.parts[0]); len(idx) > 0 {
			return idx[0]
		}
		return -1
	}
	for i, f := range g.keyFields {
		rc.keyCols[i] = col(f)
	}
	for i, pf := range g.parts {
		rc.partCols[i] = col(pf.fieldPath)
	}
	g.cols.Store(rc)
	return rc
}

type fieldPath struct {
	name  string   // as configured, used in keys and hive-style paths
	parts []string // split on "."
}

type partField struct {
	fieldPath
	ts *tsConfig // non-nil for timestamp partitions
	// cache maps recent values of a non-timestamp field to their finished path part.
	cache *partCache
}

// partCacheSlots is the size of a partition field's direct-mapped value cache.
const partCacheSlots = 256

// partCache is a lock-free direct-mapped cache from a partition value's string form to
// its path part (escaped, hive-prefixed, traversal-checked). Entries are immutable and
// own their strings (values read from Arrow buffers are cloned), so a hit costs a hash
// and a compare and allocates nothing.
type partCache struct {
	seed  maphash.Seed
	null  atomic.Pointer[partEntry] // the null value's part
	slots [partCacheSlots]atomic.Pointer[partEntry]
}

type partEntry struct {
	value, part string
	err         bool // the part has a ".." segment
}

// resolveType turns Options.KeyGenerator into a type name and the class to record.
func resolveType(o Options) (kind, class string, err error) {
	kg := strings.TrimSpace(o.KeyGenerator)
	if kg == "" {
		return inferType(len(o.RecordKeyFields), o.PartitionFields), "", nil
	}
	up := strings.ToUpper(kg)
	if _, ok := typeClass[up]; ok {
		return up, "", nil
	}
	simple := up
	if i := strings.LastIndexByte(simple, '.'); i >= 0 {
		simple = simple[i+1:]
	}
	if t, ok := classType[simple]; ok {
		if strings.Contains(kg, ".") {
			class = kg // keep the configured class, as Java records it
		}
		return t, class, nil
	}
	return "", "", fmt.Errorf("key generator %q is not supported (want one of SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM, GLOBAL_DELETE or their org.apache.hudi.keygen classes)", kg)
}

// inferType is KeyGenUtils.inferKeyGeneratorType: no partition field → NON_PARTITION; a
// "field:type" partition → CUSTOM; one partition field → SIMPLE, unless several key fields
// make it COMPLEX; several partition fields → COMPLEX.
func inferType(numKeys int, partitions []string) string {
	if len(partitions) == 0 {
		return TypeNonPartition
	}
	if strings.Contains(partitions[0], ":") {
		return TypeCustom
	}
	if len(partitions) == 1 && numKeys <= 1 {
		return TypeSimple
	}
	return TypeComplex
}

func cleanFields(fs []string) []string {
	var out []string
	for _, f := range fs {
		// Java splits the comma-separated config and trims; blank entries vanish.
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// New builds a generator for rows of schema. It checks that every field exists (nested
// fields through structs), has a type Java stringifies by value, and that timestamp settings
// are present and parseable.
func New(o Options, schema *arrow.Schema) (*Generator, error) {
	o.RecordKeyFields = cleanFields(o.RecordKeyFields)
	o.PartitionFields = cleanFields(o.PartitionFields)
	kind, class, err := resolveType(o)
	if err != nil {
		return nil, err
	}
	if class == "" {
		class = typeClass[kind]
	}
	g := &Generator{kind: kind, className: class, hive: o.HiveStyle, urlEncode: o.URLEncode}
	// No record key fields: Java 0.14 generates the keys (AutoRecordGenWrapperKeyGenerator
	// wrapping the key generator, which then only computes partition paths).
	g.auto = len(o.RecordKeyFields) == 0
	for _, f := range o.RecordKeyFields {
		fp, err := lookupField(schema, f)
		if err != nil {
			return nil, fmt.Errorf("record key field: %w", err)
		}
		g.keyFields = append(g.keyFields, fp)
	}
	switch {
	case g.auto:
		if (kind == TypeSimple || kind == TypeTimestamp) && len(o.PartitionFields) != 1 {
			return nil, fmt.Errorf("key generator %s takes exactly one partition field, got %d %v", kind, len(o.PartitionFields), o.PartitionFields)
		}
	case kind == TypeSimple || kind == TypeTimestamp:
		// SimpleAvroKeyGenerator takes the whole record-key config as one field name, so
		// "a,b" would be looked up as a field named "a,b" and fail on every record.
		if len(g.keyFields) != 1 {
			return nil, fmt.Errorf("key generator %s takes exactly one record key field, got %d %v (use COMPLEX)", kind, len(g.keyFields), o.RecordKeyFields)
		}
		if len(o.PartitionFields) != 1 {
			return nil, fmt.Errorf("key generator %s takes exactly one partition field, got %d %v", kind, len(o.PartitionFields), o.PartitionFields)
		}
	case kind == TypeComplex || kind == TypeGlobalDelete:
		g.complex = true
	case kind == TypeNonPartition || kind == TypeCustom:
		// One key field is a bare value, several use the complex form.
		g.complex = len(g.keyFields) > 1
	}
	switch kind {
	case TypeNonPartition, TypeGlobalDelete:
		// These ignore partition fields: every record goes to the table root.
	case TypeCustom:
		for _, spec := range o.PartitionFields {
			name, typ, ok := strings.Cut(spec, ":")
			if !ok || strings.Contains(typ, ":") {
				return nil, fmt.Errorf("custom key generator: partition field %q must be \"field:SIMPLE\" or \"field:TIMESTAMP\"", spec)
			}
			pf := partField{}
			if pf.fieldPath, err = lookupField(schema, name); err != nil {
				return nil, fmt.Errorf("partition field: %w", err)
			}
			switch strings.ToUpper(typ) {
			case "SIMPLE":
			case "TIMESTAMP":
				if pf.ts, err = newTSConfig(o.Props); err != nil {
					return nil, fmt.Errorf("partition field %q: %w", name, err)
				}
			default:
				return nil, fmt.Errorf("custom key generator: partition field %q has type %q, want SIMPLE or TIMESTAMP", name, typ)
			}
			g.parts = append(g.parts, pf)
		}
	default:
		for _, f := range o.PartitionFields {
			pf := partField{}
			if pf.fieldPath, err = lookupField(schema, f); err != nil {
				return nil, fmt.Errorf("partition field: %w", err)
			}
			g.parts = append(g.parts, pf)
		}
		if kind == TypeTimestamp {
			if g.parts[0].ts, err = newTSConfig(o.Props); err != nil {
				return nil, err
			}
		}
	}
	for i := range g.parts {
		if g.parts[i].ts == nil {
			g.parts[i].cache = &partCache{seed: maphash.MakeSeed()}
		}
	}
	return g, nil
}

// lookupField resolves a dotted field name against the schema.
func lookupField(schema *arrow.Schema, name string) (fieldPath, error) {
	fp := fieldPath{name: name, parts: strings.Split(name, ".")}
	if schema == nil {
		return fp, fmt.Errorf("field %q: no schema given", name)
	}
	idx := schema.FieldIndices(fp.parts[0])
	if len(idx) == 0 {
		return fp, fmt.Errorf("field %q not found in schema (fields: %v)", name, fieldNames(schema.Fields()))
	}
	dt := schema.Field(idx[0]).Type
	for i, p := range fp.parts[1:] {
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return fp, fmt.Errorf("field %q: %q is %s, not a struct", name, strings.Join(fp.parts[:i+1], "."), dt)
		}
		j, ok := st.FieldIdx(p)
		if !ok {
			return fp, fmt.Errorf("field %q: struct %q has no field %q (fields: %v)", name, strings.Join(fp.parts[:i+1], "."), p, fieldNames(st.Fields()))
		}
		dt = st.Field(j).Type
	}
	if err := supportedType(dt); err != nil {
		return fp, fmt.Errorf("field %q: %w", name, err)
	}
	return fp, nil
}

func fieldNames(fs []arrow.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// Kind returns the key generator type name (SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM,
// GLOBAL_DELETE), as table version 8+ record it in hoodie.table.keygenerator.type.
func (g *Generator) Kind() string { return g.kind }

// ClassName returns the class to record in hoodie.table.keygenerator.class (table version 6):
// the configured class if one was given, else the Spark class for the type.
func (g *Generator) ClassName() string { return g.className }

// value reads a (possibly nested) field of row. A missing column or a null parent struct is
// null, as HoodieAvroUtils.getNestedFieldVal with returnNullIfNotFound=true makes it.
func value(rec arrow.Record, row int, fp fieldPath) (jval, error) {
	col := -1
	if idx := rec.Schema().FieldIndices(fp.parts[0]); len(idx) > 0 {
		col = idx[0]
	}
	return valueAt(rec, row, fp, col)
}

// valueAt is value with the field's top-level column index resolved (-1: absent).
func valueAt(rec arrow.Record, row int, fp fieldPath, col int) (jval, error) {
	if row < 0 || int64(row) >= rec.NumRows() {
		return jval{}, fmt.Errorf("row %d out of range (record has %d rows)", row, rec.NumRows())
	}
	if col < 0 {
		return jval{}, nil
	}
	arr := rec.Column(col)
	for _, p := range fp.parts[1:] {
		st, ok := arr.(*array.Struct)
		if !ok {
			return jval{}, fmt.Errorf("field %q: %s is not a struct", fp.name, arr.DataType())
		}
		if st.IsNull(row) {
			return jval{}, nil
		}
		j, ok := st.DataType().(*arrow.StructType).FieldIdx(p)
		if !ok {
			return jval{}, nil
		}
		arr = st.Field(j)
	}
	v, err := cellValue(arr, row)
	if err != nil {
		return jval{}, fmt.Errorf("field %q: %w", fp.name, err)
	}
	return v, nil
}

// RecordKey returns the record key of row. A single-field key (SIMPLE, TIMESTAMP, and
// NON_PARTITION/CUSTOM with one field) is the bare value and must not be null or empty;
// otherwise parts are "field:value" joined by ",", with null as __null__ and empty as
// __empty__, failing only when every part is null or empty (KeyGenUtils.getRecordKey).
//
// With auto-generated keys (AutoKeys) the key is the row's _hoodie_record_key value, which
// a prepped write (rows read from the table) carries; without one it is ErrAutoKey: the
// writer generates the key (AutoKey).
func (g *Generator) RecordKey(rec arrow.Record, row int) (string, error) {
	if g.auto {
		return storedKey(rec, row)
	}
	rc := g.resolve(rec)
	if !g.complex {
		f := g.keyFields[0]
		// Fast path: a top-level string column's value is the key as is (no copy).
		if col := rc.keyCols[0]; col >= 0 && len(f.parts) == 1 && row >= 0 && int64(row) < rec.NumRows() {
			if a, ok := rec.Column(col).(*array.String); ok && a.IsValid(row) {
				if s := a.Value(row); s != "" {
					return s, nil
				}
			}
		}
		v, err := valueAt(rec, row, f, rc.keyCols[0])
		if err != nil {
			return "", fmt.Errorf("record key field %q, row %d: %w", f.name, row, err)
		}
		s := v.String()
		if v.kind == jNull || s == "" {
			return "", fmt.Errorf("record key field %q, row %d: value %s cannot be null or empty", f.name, row, describe(v))
		}
		return s, nil
	}
	// One allocation: parts are appended to a stack buffer, copied out once.
	var stack [128]byte
	b := stack[:0]
	allNullOrEmpty := true
	for i, f := range g.keyFields {
		v, err := valueAt(rec, row, f, rc.keyCols[i])
		if err != nil {
			return "", fmt.Errorf("record key field %q, row %d: %w", f.name, row, err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f.name...)
		b = append(b, ':')
		switch {
		case v.kind == jNull:
			b = append(b, NullRecordKeyPlaceholder...)
		case v.kind == jInt || v.kind == jLong:
			allNullOrEmpty = false
			b = strconv.AppendInt(b, v.i, 10)
		default:
			s := v.String()
			if s == "" {
				b = append(b, EmptyRecordKeyPlaceholder...)
			} else {
				allNullOrEmpty = false
				b = append(b, s...)
			}
		}
	}
	if allNullOrEmpty {
		return "", fmt.Errorf("record key fields %v, row %d: values %q are all null or empty", g.keyFieldNames(), row, string(b))
	}
	return string(b), nil
}

// RecordKeyMetaField is the column holding a stored record's key.
const RecordKeyMetaField = "_hoodie_record_key"

// ErrAutoKey is RecordKey's error for a row of a table with auto-generated keys that
// carries no key of its own: the writer generates one (AutoKey).
var ErrAutoKey = errors.New("the table generates its record keys and the row carries none")

// storedKey is a row's _hoodie_record_key value, or ErrAutoKey when the column is
// absent or the value null or empty.
func storedKey(rec arrow.Record, row int) (string, error) {
	if row < 0 || int64(row) >= rec.NumRows() {
		return "", fmt.Errorf("row %d out of range (record has %d rows)", row, rec.NumRows())
	}
	idx := rec.Schema().FieldIndices(RecordKeyMetaField)
	if len(idx) == 0 {
		return "", ErrAutoKey
	}
	a, ok := rec.Column(idx[0]).(*array.String)
	if !ok {
		return "", fmt.Errorf("%s is %s, not a string", RecordKeyMetaField, rec.Column(idx[0]).DataType())
	}
	if a.IsNull(row) || a.Value(row) == "" {
		return "", ErrAutoKey
	}
	return a.Value(row), nil
}

// AutoKeys reports a table without record key fields, whose keys Java 0.14 generates
// (KeyGenUtils.isAutoGeneratedRecordKeysEnabled: hoodie.datasource.write.recordkey.field
// unset).
func (g *Generator) AutoKeys() bool { return g.auto }

// AutoKey is the record key Java 0.14 generates for the rowID-th record of input partition
// partitionID of the write at instant: "<instant>_<partitionID>_<rowID>"
// (AutoRecordGenWrapperKeyGenerator, HoodieRecord.generateSequenceId). Java's partition is
// the Spark partition of the input; hudi-go writes its input as one partition, 0.
func AutoKey(instant string, partitionID int, rowID int64) string {
	b := make([]byte, 0, len(instant)+24)
	b = append(b, instant...)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(partitionID), 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, rowID, 10)
	return string(b)
}

func (g *Generator) keyFieldNames() []string {
	out := make([]string, len(g.keyFields))
	for i, f := range g.keyFields {
		out[i] = f.name
	}
	return out
}

func describe(v jval) string {
	if v.kind == jNull {
		return "null"
	}
	return fmt.Sprintf("%q", v.String())
}

// PartitionPath returns the partition path of row: "" for non-partitioned generators,
// otherwise one part per field joined by "/". A null or empty value becomes
// __HIVE_DEFAULT_PARTITION__; with URL encoding the value is escaped as Hive's escapePathName;
// hive style prefixes "field=". Timestamp parts are the formatted time (a null timestamp is
// formatted from Java's default value, not the default partition).
func (g *Generator) PartitionPath(rec arrow.Record, row int) (string, error) {
	if len(g.parts) == 0 {
		return "", nil
	}
	rc := g.resolve(rec)
	if len(g.parts) == 1 {
		return g.partPath(rec, row, 0, rc.partCols[0])
	}
	var stack [128]byte
	b := stack[:0]
	for i := range g.parts {
		part, err := g.partPath(rec, row, i, rc.partCols[i])
		if err != nil {
			return "", err
		}
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, part...)
	}
	return string(b), nil
}

// partPath is the path part of partition field i for row.
func (g *Generator) partPath(rec arrow.Record, row, i, col int) (string, error) {
	pf := &g.parts[i]
	v, err := valueAt(rec, row, pf.fieldPath, col)
	if err != nil {
		return "", fmt.Errorf("partition field %q, row %d: %w", pf.name, row, err)
	}
	if pf.ts != nil {
		part, err := pf.ts.format(v)
		if err != nil {
			return "", fmt.Errorf("partition field %q, row %d, value %s: %w", pf.name, row, describe(v), err)
		}
		if g.urlEncode {
			part = EscapePathName(part)
		}
		return g.finishPart(pf, part, v, row)
	}
	c := pf.cache
	if c == nil { // a Generator built without New
		part := v.String()
		switch {
		case v.kind == jNull || part == "":
			part = DefaultPartitionPath
		case g.urlEncode:
			part = EscapePathName(part)
		}
		return g.finishPart(pf, part, v, row)
	}
	var slot *atomic.Pointer[partEntry]
	var s string
	if v.kind == jNull {
		slot = &c.null
	} else {
		s = v.String()
		slot = &c.slots[maphash.String(c.seed, s)%partCacheSlots]
	}
	e := slot.Load()
	if e == nil || (v.kind != jNull && e.value != s) {
		part := s
		switch {
		case v.kind == jNull || s == "":
			part = DefaultPartitionPath
		case g.urlEncode:
			part = EscapePathName(s)
		}
		if g.hive {
			part = pf.name + "=" + part
		} else {
			part = strings.Clone(part) // never keep a string that aliases an Arrow buffer
		}
		e = &partEntry{value: strings.Clone(s), part: part, err: hasPathTraversal(part)}
		slot.Store(e)
	}
	if e.err {
		return "", fmt.Errorf("partition field %q, row %d: value %s makes a \"..\" path segment", pf.name, row, describe(v))
	}
	return e.part, nil
}

// finishPart adds the hive-style prefix and checks for a ".." segment.
func (g *Generator) finishPart(pf *partField, part string, v jval, row int) (string, error) {
	if g.hive {
		part = pf.name + "=" + part
	}
	if hasPathTraversal(part) {
		return "", fmt.Errorf("partition field %q, row %d: value %s makes a \"..\" path segment", pf.name, row, describe(v))
	}
	return part, nil
}

// TypeClass returns the Spark key generator class Hudi 0.14 records for a type name
// (SIMPLE → org.apache.hudi.keygen.SimpleKeyGenerator, …).
func TypeClass(typ string) (string, bool) {
	c, ok := typeClass[strings.ToUpper(strings.TrimSpace(typ))]
	return c, ok
}

// TypeOfClass returns the key generator type of a class name (KeyGeneratorType.fromClassName
// for the classes hudi-go knows: Spark and Avro variants), and false for another class.
func TypeOfClass(class string) (string, bool) {
	simple := strings.ToUpper(strings.TrimSpace(class))
	if i := strings.LastIndexByte(simple, '.'); i >= 0 {
		simple = simple[i+1:]
	}
	t, ok := classType[simple]
	return t, ok
}

// ClassOfType returns the class Java records for a key generator type
// (KeyGeneratorType.getKeyGeneratorClassName), and false for another type.
func ClassOfType(typ string) (string, bool) {
	c, ok := typeClass[strings.ToUpper(strings.TrimSpace(typ))]
	return c, ok
}
