package write

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/table"
)

// Tables with hoodie.datasource.write.drop.partition.columns=true (Java 0.14's Avro write
// path, HoodieSparkSqlWriter): keys, partition paths and ordering values come from the full
// incoming row, then the top-level partition columns are removed and files, log blocks and
// the commit schema hold the rest. Rows are therefore keyed in the "row schema" (the file
// schema plus the dropped columns, appended) and written in the file schema.

// DataFileSchema returns s without the columns the table leaves out of its data files
// (table.Config.DroppedPartitionFields) and whether any were present. s has no meta fields.
func DataFileSchema(cfg *table.Config, s *arrow.Schema) (*arrow.Schema, bool) {
	dropped := cfg.DroppedPartitionFields()
	if len(dropped) == 0 || s == nil {
		return s, false
	}
	skip := map[int]bool{}
	for _, f := range dropped {
		if i := schema.FieldIndex(s, f); i >= 0 {
			skip[i] = true
		}
	}
	if len(skip) == 0 {
		return s, false
	}
	fields := make([]arrow.Field, 0, s.NumFields()-len(skip))
	for i, f := range s.Fields() {
		if !skip[i] {
			fields = append(fields, f)
		}
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md), true
}

// rowSchema is the schema input rows are conformed and keyed in: the file schema followed
// by the dropped partition columns, typed as in the input (nullable string when the input
// lacks them, e.g. a delete_partition without rows) — the table's
// Config.WithPartitionColumns with the input as the type source. Without dropped columns it
// is the file schema itself.
func rowSchema(cfg *table.Config, file *arrow.Schema, input *arrow.Schema) (*arrow.Schema, error) {
	return cfg.WithPartitionColumns(file, input)
}

// checkDropPartitionColumns refuses the drop.partition.columns cases hudi-go does not
// write (see docs/design/virtual-keys.md E.2).
func checkDropPartitionColumns(t *table.Table) error {
	if err := checkDroppedKeyGenerator(t); err != nil {
		return err
	}
	return checkDroppedOrdering(t)
}

// checkDroppedOrdering refuses an ordering (precombine) field that is a dropped partition
// column: incoming records would carry it but stored records would not, so a merge could
// not compare them the way Java's payloads do (they read a missing field as null, which
// hudi-go does not model).
func checkDroppedOrdering(t *table.Table) error {
	of := t.Config.OrderingFields()
	if len(of) == 0 {
		return nil
	}
	for _, f := range t.Config.DroppedPartitionFields() {
		if strings.EqualFold(f, of[0]) { // field lookups fold case (schema.FieldIndex)
			return fmt.Errorf("table %s: ordering field %s is a partition column and %s=true leaves it out of data files: %w",
				t.Config.Name(), f, table.KeyDropPartitionColumns, ErrUnsupported)
		}
	}
	return nil
}

// checkDroppedKeyGenerator refuses drop.partition.columns with timestamp-based and custom
// key generators: their partition paths are formatted values (e.g. "2024/01/31"), which the
// reader does not map back onto the partition columns, so the dropped columns would read
// back null (Spark's file index has its own rules for such paths; not verified for 0.14).
func checkDroppedKeyGenerator(t *table.Table) error {
	if len(t.Config.DroppedPartitionFields()) == 0 {
		return nil
	}
	kg := strings.ToUpper(t.Config.KeyGenerator())
	if strings.Contains(kg, "TIMESTAMP") || strings.Contains(kg, "CUSTOM") {
		return fmt.Errorf("table %s: %s=true with key generator %s: %w (the partition columns could not be read back from its partition paths)",
			t.Config.Name(), table.KeyDropPartitionColumns, t.Config.KeyGenerator(), ErrUnsupported)
	}
	return nil
}

// project narrows the input batches to the file schema, a prefix of their row schema:
// once keys, partition paths and ordering values are computed, the dropped partition
// columns are no longer needed.
func (in *inputSet) project(file *arrow.Schema) {
	if in.schema.NumFields() == file.NumFields() {
		in.schema = file
		return
	}
	for i, b := range in.batches {
		cols := make([]arrow.Array, file.NumFields())
		for c := range cols {
			cols[c] = b.Column(c)
		}
		in.batches[i] = array.NewRecord(file, cols, b.NumRows())
		b.Release()
	}
	in.schema = file
}
