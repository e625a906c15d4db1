package write

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
)

// schemaOnRead is what a write to a table under schema evolution on read does besides
// writing rows, as Java 0.14's BaseHoodieWriteClient.saveInternalSchema does when
// hoodie.schema.on.read.enable is set: the write's schema is reconciled with the table's
// InternalSchema (new columns get new ids; widened types change), stored files are read
// by id under the result, and the commit records it as latest_schema (a new version, at
// the write's instant, when it changed) and writes the schema history under
// .hoodie/.schema.
//
// Java records all this only for writers that set the flag; hudi-go does it for every
// write once the table has an InternalSchema, because Java's readers take the
// InternalSchema from the latest commit only (TableSchemaResolver.
// getTableInternalSchemaFromCommitMetadata): a commit without latest_schema would make
// them read every older file by name. An explicit hoodie.schema.on.read.enable=false is
// refused, as the seed says the feature cannot be disabled once used.
type schemaOnRead struct {
	current *internalschema.Schema // the table's InternalSchema before the write
	evolved *internalschema.Schema // current reconciled with the write (version 0 if changed)
	changed bool
	history string // the schema history text before the write ("" if none)
	// recordName is the Avro record name of the commit schema.
	recordName string
}

// currentSchemaOnRead returns the table's InternalSchema and schema history text, nil
// when the table has none (schema evolution on read never changed it: the write goes by
// name, as Java's does without a history). It refuses turning the feature off.
func currentSchemaOnRead(ctx context.Context, t *table.Table, o Options) (*internalschema.Schema, string, error) {
	cur, err := t.InternalSchemaAt(ctx, "")
	if err != nil || cur == nil {
		return nil, "", err
	}
	if o.SchemaOnRead != nil && !*o.SchemaOnRead {
		return nil, "", fmt.Errorf("table %s evolved its schema on read (it has an InternalSchema, version %d): hoodie.schema.on.read.enable=false cannot turn the feature off",
			t.Config.Name(), cur.VersionID)
	}
	history, err := t.SchemaHistoryText(ctx)
	if err != nil {
		return nil, "", err
	}
	return cur, history, nil
}

// reconcileWrite reconciles the table's InternalSchema cur with a write of writeSchema
// (the data columns the rows are written with). input, when the write has input rows,
// gives the order in which new columns were given, from which Java infers their
// positions.
func reconcileWrite(t *table.Table, cur *internalschema.Schema, history string, input, writeSchema *arrow.Schema) (*schemaOnRead, error) {
	incoming := writeSchema
	if input != nil {
		incoming = orderLike(writeSchema, schema.WithoutMetaFields(input))
	}
	if _, ok := cur.Find("_hoodie_commit_time"); ok {
		incoming = schema.WithMetaFields(incoming)
	}
	avroIn, err := schema.ToAvro(incoming, t.Config.Name())
	if err != nil {
		return nil, fmt.Errorf("write schema: %w", err)
	}
	in, err := schema.InternalFromAvro(avroIn)
	if err != nil {
		return nil, fmt.Errorf("write schema: %w", err)
	}
	evolved, changed, err := cur.Reconcile(in)
	if err != nil {
		return nil, fmt.Errorf("input schema is not compatible with the InternalSchema of table %s (schema evolution on read): %w", t.Config.Name(), err)
	}
	return &schemaOnRead{current: cur, evolved: evolved, changed: changed, history: history, recordName: t.Config.Name()}, nil
}

// evolution reads stored files by id under the write's schema: a column the write adds
// under a name an older file used for a dropped column reads null there.
func (s *schemaOnRead) evolution(ctx context.Context, t *table.Table) *filegroup.Evolution {
	return &filegroup.Evolution{Query: s.evolved, FileSchema: func(in spec.InstantTime) (*internalschema.Schema, error) {
		return t.FileInternalSchema(ctx, in)
	}}
}

// record writes the schema history of instant and puts latest_schema and the schema into
// the commit metadata, before the instant completes (readers only see the history of
// completed instants).
func (s *schemaOnRead) record(ctx context.Context, t *table.Table, instant spec.InstantTime, meta *commitmeta.CommitMetadata) error {
	latest := s.current
	history := s.history
	if s.changed {
		v, err := instant.Int()
		if err != nil {
			return err
		}
		latest = s.evolved.WithVersion(v)
		if history, err = internalschema.Inherit(latest, s.history); err != nil {
			return fmt.Errorf("schema history of %s: %w", t.Config.Name(), err)
		}
	} else if history == "" {
		var err error
		if history, err = internalschema.Inherit(latest, ""); err != nil {
			return err
		}
	}
	if err := t.PersistSchemaHistory(ctx, instant, history); err != nil {
		return err
	}
	if meta.ExtraMetadata == nil {
		meta.ExtraMetadata = map[string]string{}
	}
	meta.ExtraMetadata[internalschema.LatestSchemaKey] = latest.JSON()
	meta.ExtraMetadata["schema"] = schema.InternalToAvro(latest, s.recordName)
	return nil
}

// orderLike returns s with the fields of every struct (the root, nested structs, list
// elements and map values) in the order of the same-named fields of like; fields like
// lacks keep their order after them.
func orderLike(s, like *arrow.Schema) *arrow.Schema {
	md := s.Metadata()
	return arrow.NewSchema(orderFields(s.Fields(), like.Fields()), &md)
}

func orderFields(fields, like []arrow.Field) []arrow.Field {
	out := make([]arrow.Field, 0, len(fields))
	used := make([]bool, len(fields))
	for _, l := range like {
		for i, f := range fields {
			if !used[i] && strings.EqualFold(f.Name, l.Name) {
				used[i] = true
				f.Type = orderType(f.Type, l.Type)
				out = append(out, f)
				break
			}
		}
	}
	for i, f := range fields {
		if !used[i] {
			out = append(out, f)
		}
	}
	return out
}

func orderType(t, like arrow.DataType) arrow.DataType {
	switch tt := t.(type) {
	case *arrow.StructType:
		if lt, ok := like.(*arrow.StructType); ok {
			return arrow.StructOf(orderFields(tt.Fields(), lt.Fields())...)
		}
	case *arrow.ListType:
		if lt, ok := like.(*arrow.ListType); ok {
			ef := tt.ElemField()
			ef.Type = orderType(ef.Type, lt.Elem())
			return arrow.ListOfField(ef)
		}
	case *arrow.MapType:
		if lt, ok := like.(*arrow.MapType); ok {
			mt := arrow.MapOfWithMetadata(tt.KeyType(), tt.KeyField().Metadata, orderType(tt.ItemType(), lt.ItemType()), tt.ItemField().Metadata)
			mt.KeysSorted = tt.KeysSorted
			if !tt.ItemField().Nullable {
				mt.SetItemNullable(false)
			}
			return mt
		}
	}
	return t
}
