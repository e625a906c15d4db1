package write

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
)

// Virtual keys (hoodie.populate.meta.fields=false), as Hudi 0.14 writes them
// (docs/design/virtual-keys.md, section A and plan C): files keep the five meta columns,
// but _hoodie_commit_time, _hoodie_commit_seqno, _hoodie_record_key and
// _hoodie_partition_path are null, _hoodie_file_name names the base file (null in log
// records), and no bloom filter or min/max record key goes into the footer. Every stored
// row's key is rebuilt from its data columns with the table's key generator.

// Key generator classes Java 0.14 accepts on a table without meta fields
// (HoodieTableMetaClient.validateTableProperties compares the class name string exactly).
var virtualKeyGenerators = map[string]bool{
	"org.apache.hudi.keygen.SimpleKeyGenerator":         true,
	"org.apache.hudi.keygen.NonpartitionedKeyGenerator": true,
	"org.apache.hudi.keygen.ComplexKeyGenerator":        true,
}

// checkMetaFieldsSetting validates the write's hoodie.populate.meta.fields against the
// table's, and a virtual-key table's key generator, key fields and index.
func checkMetaFieldsSetting(t *table.Table, o Options) error {
	name := t.Config.Name()
	if t.Config.PopulateMetaFields() {
		if o.PopulateMetaFields != nil && !*o.PopulateMetaFields {
			// Java would start writing virtual-key files into a table whose files and
			// hoodie.properties say keys are stored; the writer follows the table.
			return fmt.Errorf("table %s populates meta fields: writing it with %s=false is %w (the setting is fixed when the table is created)",
				name, table.KeyPopulateMetaFields, ErrUnsupported)
		}
		return nil
	}
	if o.PopulateMetaFields != nil && *o.PopulateMetaFields {
		// Java's message (HoodieTableMetaClient.validateTableProperties).
		return fmt.Errorf("table %s: %s already disabled for the table. Can't be re-enabled back", name, table.KeyPopulateMetaFields)
	}
	if err := CheckVirtualKeyTable(t); err != nil {
		return err
	}
	// The indexes that work without keys in the files (index.Index.NeedsStoredKeys):
	// SIMPLE and GLOBAL_SIMPLE rebuild keys with the key generator as Java's do; BUCKET
	// routes by key hash and never reads a stored key through the index (UNVERIFIED
	// against Java 0.14, which has no guard either way); INMEMORY is our SIMPLE lookup
	// under another name.
	if o.index.NeedsStoredKeys() {
		return fmt.Errorf("table %s has %s=false: hoodie.index.type=%s needs record keys stored in the files (bloom filter, %s); use SIMPLE or GLOBAL_SIMPLE: %w",
			name, table.KeyPopulateMetaFields, o.index.Type(), schema.MetaFields[2], ErrUnsupported)
	}
	return nil
}

// CheckVirtualKeyTable refuses a table with hoodie.populate.meta.fields=false whose keys
// hudi-go (and Java 0.14) cannot rebuild consistently: drop.partition.columns, no record
// key fields, a key generator other than Simple/Nonpartitioned/Complex, and on
// merge-on-read anything but a single-field Simple or Nonpartitioned key. Tables that
// populate meta fields pass.
func CheckVirtualKeyTable(t *table.Table) error {
	if t.Config.PopulateMetaFields() {
		return nil
	}
	name := t.Config.Name()
	if t.Config.DropPartitionColumns() {
		// Java 0.14 rebuilds stored keys from rows that lack the partition columns, so
		// updates never match (docs/design/virtual-keys.md fact 28).
		return fmt.Errorf("table %s has %s=false and %s=true: stored keys cannot be rebuilt without the partition columns, so writing it is %w",
			name, table.KeyPopulateMetaFields, table.KeyDropPartitionColumns, ErrUnsupported)
	}
	if len(t.Config.RecordKeyFields()) == 0 {
		return fmt.Errorf("table %s: Disabling %s is not supported with auto generation of record keys", name, table.KeyPopulateMetaFields)
	}
	cls := virtualKeyGeneratorClass(t)
	if !virtualKeyGenerators[cls] {
		return fmt.Errorf("table %s: Only simple, non-partitioned or complex key generator are supported when meta-fields are disabled. Used: %s", name, cls)
	}
	if t.Type == spec.MergeOnRead {
		// Java's log reader keys log records by the field named by the whole
		// hoodie.table.recordkey.fields value, so only a single-field key whose value is the
		// key (Simple, or Nonpartitioned with one field) reads back as written.
		simple := cls == "org.apache.hudi.keygen.SimpleKeyGenerator" ||
			cls == "org.apache.hudi.keygen.NonpartitionedKeyGenerator"
		if !simple || len(t.Config.RecordKeyFields()) != 1 {
			return fmt.Errorf("table %s: merge-on-read with %s=false needs a single record key field and SimpleKeyGenerator or NonpartitionedKeyGenerator (got %s on %v): %w",
				name, table.KeyPopulateMetaFields, cls, t.Config.RecordKeyFields(), ErrUnsupported)
		}
	}
	return nil
}

// virtualKeyGeneratorClass is the key generator class Java checks: the table's
// hoodie.table.keygenerator.class, the class of its keygenerator.type, or Java's default
// SimpleKeyGenerator.
func virtualKeyGeneratorClass(t *table.Table) string {
	if v, ok := t.Config.Props.Get(table.KeyKeyGeneratorClass); ok && v != "" {
		return v
	}
	if typ := t.Config.KeyGenerator(); typ != "" {
		if cls, ok := keygen.TypeClass(typ); ok {
			return cls
		}
		return typ
	}
	return "org.apache.hudi.keygen.SimpleKeyGenerator"
}

// storedKeys finds the record keys of stored rows: the _hoodie_record_key column, or, for
// virtual keys, the key generator over the key fields' columns.
type storedKeys struct {
	gen    *keygen.Generator // nil: keys are in _hoodie_record_key
	fields []string          // virtual keys: the top-level columns the generator reads
}

func newStoredKeys(t *table.Table, gen *keygen.Generator) storedKeys {
	if t.Config.PopulateMetaFields() {
		return storedKeys{}
	}
	return storedKeys{gen: gen, fields: keyColumnNames(t.Config.RecordKeyFields())}
}

// virtual reports keys rebuilt by the key generator.
func (k storedKeys) virtual() bool { return k.gen != nil }

// columns are the columns to read for the keys.
func (k storedKeys) columns() []string {
	if k.gen == nil {
		return []string{schema.MetaFields[2]}
	}
	return k.fields
}

// keyer returns a function giving row i's key (ok=false for a null stored key) for a
// batch holding columns(); file names the batch's source in errors.
func (k storedKeys) keyer(rec arrow.Record, file string) (func(i int) (string, bool, error), error) {
	if k.gen != nil {
		return func(i int) (string, bool, error) {
			key, err := k.gen.RecordKey(rec, i)
			if err != nil {
				return "", false, fmt.Errorf("%s: rebuild record key: %w", file, err)
			}
			return key, true, nil
		}, nil
	}
	idx := rec.Schema().FieldIndices(schema.MetaFields[2])
	if len(idx) == 0 {
		return nil, fmt.Errorf("%s has no %s column", file, schema.MetaFields[2])
	}
	col, ok := rec.Column(idx[0]).(*array.String)
	if !ok {
		return nil, fmt.Errorf("%s of %s is %s, not a string", schema.MetaFields[2], file, rec.Column(idx[0]).DataType())
	}
	return func(i int) (string, bool, error) {
		if !col.IsValid(i) {
			return "", false, nil
		}
		return col.Value(i), true, nil
	}, nil
}

// keyColumnNames are the top-level columns of record key fields (dot notation).
func keyColumnNames(fields []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		top := f
		for i := 0; i < len(f); i++ {
			if f[i] == '.' {
				top = f[:i]
				break
			}
		}
		if !seen[top] {
			seen[top] = true
			out = append(out, top)
		}
	}
	return out
}

// virtualMetaColumns are the five meta columns of n virtual-key rows: four nulls and the
// file name (null too when fileName is "", as in log records).
func (e *writeEnv) virtualMetaColumns(fileName string, n int) []arrow.Array {
	cols := make([]arrow.Array, 0, len(schema.MetaFields))
	for range 4 {
		cols = append(cols, array.MakeArrayOfNull(e.mem, arrow.BinaryTypes.String, n))
	}
	if fileName == "" {
		return append(cols, array.MakeArrayOfNull(e.mem, arrow.BinaryTypes.String, n))
	}
	return append(cols, e.constant(fileName, n))
}

// checkVirtualLogKeyType refuses merge-on-read virtual keys on a key field whose value
// Java's log reader would spell differently from its key generator: the reader keys a log
// record by the raw Avro value's toString (AbstractHoodieLogRecordReader), the key
// generator (base files, index) renders dates, decimals and the like in their logical
// form, so such keys would not meet. Strings, integers and booleans are spelled alike.
// UNVERIFIED against a Java 0.14 run; refused rather than guessed.
func checkVirtualLogKeyType(t *table.Table, writeSchema *arrow.Schema) error {
	if t.Type != spec.MergeOnRead || t.Config.PopulateMetaFields() {
		return nil
	}
	for _, f := range t.Config.RecordKeyFields() {
		i := schema.FieldIndex(writeSchema, f)
		if i < 0 {
			continue // nested or missing: the key generator reports it
		}
		switch writeSchema.Field(i).Type.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.BOOL:
		default:
			return fmt.Errorf("table %s: merge-on-read with %s=false keys log records by the raw value of %s, which for type %s differs from the key generator's spelling: %w",
				t.Config.Name(), table.KeyPopulateMetaFields, f, writeSchema.Field(i).Type, ErrUnsupported)
		}
	}
	return nil
}
