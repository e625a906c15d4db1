package table

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/schema"
)

// WithPartitionColumns appends to sc (a schema without meta fields) the partition columns
// a drop.partition.columns table leaves out of its data files and commit schemas, as Java's
// TableSchemaResolver.appendPartitionColumns does: at the end, nullable, typed as in types
// when it has them (e.g. the create schema, for input rows) and as string otherwise (what
// readers fill from the partition path). A schema holding some of them but not all is an
// error, as in Java. Tables that keep their partition columns get sc back.
func (c *Config) WithPartitionColumns(sc, types *arrow.Schema) (*arrow.Schema, error) {
	dropped := c.DroppedPartitionFields()
	var missing []string
	for _, f := range dropped {
		if schema.FieldIndex(sc, f) < 0 {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return sc, nil
	}
	if len(missing) != len(dropped) {
		return nil, fmt.Errorf("table %s: partition columns %v could not be partially contained in the data schema (missing %v)",
			c.Name(), dropped, missing)
	}
	fields := append([]arrow.Field(nil), sc.Fields()...)
	for _, name := range missing {
		f := arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
		if types != nil {
			if i := schema.FieldIndex(types, name); i >= 0 {
				f = types.Field(i)
				f.Nullable = true
			}
		}
		fields = append(fields, f)
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md), nil
}

// InputSchema is the schema input rows for a write are given in (no meta fields): the
// current table schema plus the partition columns a drop.partition.columns table leaves
// out of it, typed as in the create schema when it lists them. nil when the table records
// no schema.
func (t *Table) InputSchema(ctx context.Context) (*arrow.Schema, error) {
	avroSchema, err := t.SchemaAt(ctx, "")
	if err != nil || avroSchema == "" {
		return nil, err
	}
	sc, err := schema.FromAvro(avroSchema)
	if err != nil {
		return nil, fmt.Errorf("table %s schema: %w", t.Config.Name(), err)
	}
	sc = schema.WithoutMetaFields(sc)
	var types *arrow.Schema
	if cs := t.Config.CreateSchema(); cs != "" && len(t.Config.DroppedPartitionFields()) > 0 {
		if types, err = schema.FromAvro(cs); err != nil {
			return nil, fmt.Errorf("table %s create schema: %w", t.Config.Name(), err)
		}
	}
	return t.Config.WithPartitionColumns(sc, types)
}
