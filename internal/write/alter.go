package write

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
)

// OperationAlterSchema is the WriteOperationType of a schema change (ALTER_SCHEMA).
const OperationAlterSchema = "ALTER_SCHEMA"

// operationType is the operationType the write's inflight and completed commit metadata
// record. A write that only adds columns (Options.AddColumns: SQL's ALTER TABLE ADD
// COLUMNS) records ALTER_SCHEMA in both, as Java 0.14's
// AlterHoodieTableAddColumnsCommand.commitWithSchema does (the inflight file's metadata,
// and client.preWrite(ALTER_SCHEMA) before the commit).
func (w *writer) operationType(op Operation) string {
	if w.o.AddColumns {
		return OperationAlterSchema
	}
	return op.WriteOperationType()
}

// SchemaChange is one ALTER TABLE statement of schema evolution on read: columns added,
// deleted or updated (exactly one of the three, as each Spark statement is one kind of
// Java's TableChange).
type SchemaChange struct {
	Add    []internalschema.AddColumn
	Delete []string
	Update []internalschema.UpdateColumn
}

func (c SchemaChange) kinds() int {
	n := 0
	for _, l := range []int{len(c.Add), len(c.Delete), len(c.Update)} {
		if l > 0 {
			n++
		}
	}
	return n
}

// ErrKeyColumnChange refuses a rename or drop of a record key, precombine or partition
// column (Java's AlterTableCommand.checkSchemaChange).
var ErrKeyColumnChange = errors.New("cannot support apply changes for primaryKey/CombineKey/partitionKey")

// AlterSchema commits one schema change as Java 0.14's AlterTableCommand.commitWithSchema
// does: an instant with no data (a commit on copy-on-write, a delta commit on
// merge-on-read) whose inflight file says ALTER_SCHEMA, the table's schema history with
// the new version in front written under .hoodie/.schema, and commit metadata holding the
// new InternalSchema (latest_schema, version = the instant time) and its Avro form
// (schema). The first change of a table derives its InternalSchema from the Avro table
// schema (meta fields included, ids as AvroInternalSchemaConverter assigns them, version
// 0), which then starts the history. Refused changes leave no instant.
func AlterSchema(ctx context.Context, t *table.Table, change SchemaChange, o Options) (*Result, error) {
	if change.kinds() != 1 {
		return nil, errors.New("alter schema: give exactly one kind of change (add, delete or update)")
	}
	t, o, res, release, err := openForWrite(ctx, t, o)
	if err != nil {
		return nil, err
	}
	defer release()
	if o.SchemaOnRead != nil && !*o.SchemaOnRead {
		return nil, fmt.Errorf("alter schema of %s: hoodie.schema.on.read.enable=false: this change needs schema evolution on read", t.Config.Name())
	}
	if t.Config.DropPartitionColumns() {
		return nil, fmt.Errorf("alter schema of %s: schema evolution on read of tables that drop their partition columns (hoodie.datasource.write.drop.partition.columns) is %w", t.Config.Name(), ErrUnsupported)
	}
	start := commit.NewWriteStart(t.Timeline)
	old, history, err := CurrentInternalSchema(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := checkKeyColumns(t, old, change); err != nil {
		return nil, err
	}
	var next *internalschema.Schema
	switch {
	case len(change.Add) > 0:
		next, err = old.AddColumns(change.Add)
	case len(change.Delete) > 0:
		next, err = old.DeleteColumns(change.Delete)
	default:
		next, err = old.UpdateColumns(change.Update)
	}
	if err != nil {
		return nil, fmt.Errorf("alter schema of %s: %w", t.Config.Name(), err)
	}
	if history == "" {
		if history, err = internalschema.Inherit(old, ""); err != nil {
			return nil, err
		}
	}
	action := spec.ActionCommit
	if t.Type == spec.MergeOnRead {
		action = spec.ActionDeltaCommit
	}
	w := &writer{t: t, o: o}
	inflight := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: map[string]string{},
		OperationType: OperationAlterSchema}
	tl := t.Timeline
	if o.Concurrency.Mode == commit.OptimisticConcurrency {
		rel, err := o.timeline.Lock(ctx, "start schema change")
		if err != nil {
			return nil, err
		}
		tl, err = t.LoadTimeline(ctx)
		rel()
		if err != nil {
			return nil, err
		}
	}
	txn, err := o.timeline.Begin(ctx, tl, action, nil, inflight)
	if err != nil {
		return nil, err
	}
	defer txn.Close()
	version, err := txn.Instant.Int()
	if err != nil {
		return nil, err
	}
	next = next.WithVersion(version)
	text, err := internalschema.Inherit(next, history)
	if err != nil {
		return nil, fmt.Errorf("alter schema of %s: %w", t.Config.Name(), err)
	}
	if err := t.PersistSchemaHistory(ctx, txn.Instant, text); err != nil {
		return nil, err
	}
	// Java leaves the completed commit's operation type unset (the write client's, null):
	// only the inflight file says ALTER_SCHEMA (UNVERIFIED against a Java-written table).
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{},
		ExtraMetadata: map[string]string{"schema": schema.InternalToAvro(next, t.Config.Name()), internalschema.LatestSchemaKey: next.JSON()}}
	if err := w.commitUnderLock(ctx, txn, meta, start); err != nil {
		return nil, err
	}
	res.Instant = string(txn.Instant)
	res.Action = string(action)
	res.Operation = OperationAlterSchema
	return res, nil
}

// CurrentInternalSchema returns the table's InternalSchema now and the text of its schema
// history ("" when there is none yet). A table never changed by schema evolution on read
// gets the InternalSchema Java derives from its Avro schema with meta fields (version 0).
func CurrentInternalSchema(ctx context.Context, t *table.Table) (*internalschema.Schema, string, error) {
	history, err := t.SchemaHistoryText(ctx)
	if err != nil {
		return nil, "", err
	}
	cur, err := t.InternalSchemaAt(ctx, "")
	if err != nil {
		return nil, "", err
	}
	if cur != nil {
		return cur, history, nil
	}
	avroSchema, err := t.SchemaAt(ctx, "")
	if err != nil {
		return nil, "", err
	}
	if avroSchema == "" {
		return nil, "", fmt.Errorf("table %s records no schema", t.Config.Name())
	}
	if t.Config.PopulateMetaFields() {
		if avroSchema, err = schema.WithMetaFieldsAvro(avroSchema); err != nil {
			return nil, "", err
		}
	}
	cur, err = schema.InternalFromAvro(avroSchema)
	if err != nil {
		return nil, "", fmt.Errorf("table %s schema: %w", t.Config.Name(), err)
	}
	return cur, history, nil
}

// checkKeyColumns refuses renaming or dropping the record key, precombine and partition
// columns, as Java's AlterTableCommand.checkSchemaChange does.
func checkKeyColumns(t *table.Table, s *internalschema.Schema, c SchemaChange) error {
	var keys []string
	keys = append(keys, t.Config.RecordKeyFields()...)
	keys = append(keys, t.Config.OrderingFields()...)
	keys = append(keys, t.Config.PartitionFields()...)
	var touched []string
	touched = append(touched, c.Delete...)
	for _, u := range c.Update {
		if u.Rename != "" {
			touched = append(touched, u.Name)
		}
	}
	for _, name := range touched {
		f, ok := s.Find(name)
		if !ok {
			continue // reported by the change itself
		}
		full := s.FullName(f.ID)
		for _, k := range keys {
			if strings.EqualFold(k, full) {
				return fmt.Errorf("alter schema of %s: column %s: %w", t.Config.Name(), full, ErrKeyColumnChange)
			}
		}
	}
	return nil
}

// ServiceSchema is the schema a compaction or clustering writes its files with.
type ServiceSchema struct {
	// AvroSchema is the commit metadata's schema.
	AvroSchema string
	// Data is the data schema (no meta fields) of the written files.
	Data *arrow.Schema
	// Evolution reads the slices by column id (schema evolution on read), nil otherwise.
	Evolution *filegroup.Evolution
	// Internal is the InternalSchema the files are written under, recorded as the
	// commit's latest_schema (nil without schema evolution on read).
	Internal *internalschema.Schema
}

// ServiceSchemaFor returns the schema a compaction or clustering at instant writes with.
// Under schema evolution on read it is the InternalSchema of the last commit before the
// instant, as Java's InternalSchemaCache.getInternalSchemaAndAvroSchemaForClusteringAndCompaction
// takes it (files planned then were written under it or older versions, read by id);
// otherwise the table's latest schema.
func ServiceSchemaFor(ctx context.Context, t *table.Table, instant spec.InstantTime) (*ServiceSchema, error) {
	q, err := t.InternalSchemaAt(ctx, instant)
	if err != nil {
		return nil, err
	}
	if q != nil {
		full, err := schema.ArrowFromInternal(q)
		if err != nil {
			return nil, fmt.Errorf("table %s schema (version %d): %w", t.Config.Name(), q.VersionID, err)
		}
		return &ServiceSchema{AvroSchema: schema.InternalToAvro(q, t.Config.Name()), Data: schema.WithoutMetaFields(full), Internal: q,
			Evolution: &filegroup.Evolution{Query: q, FileSchema: func(in spec.InstantTime) (*internalschema.Schema, error) {
				return t.FileInternalSchema(ctx, in)
			}}}, nil
	}
	avroSchema, err := t.SchemaAt(ctx, "")
	if err != nil {
		return nil, err
	}
	if avroSchema == "" {
		return nil, fmt.Errorf("table %s records no schema", t.Config.Name())
	}
	data, err := schema.FromAvro(avroSchema)
	if err != nil {
		return nil, fmt.Errorf("table schema: %w", err)
	}
	data = schema.WithoutMetaFields(data)
	// drop.partition.columns: rewritten base files lack the partition columns, as the
	// files they are made of do (commit schemas already lack them; a create schema may not).
	data, stripped := DataFileSchema(t.Config, data)
	if avroSchema == t.Config.CreateSchema() || stripped {
		// The create schema has another form (no defaults); commits carry the writer's.
		if avroSchema, err = schema.ToAvro(data, t.Config.Name()); err != nil {
			return nil, err
		}
	}
	return &ServiceSchema{AvroSchema: avroSchema, Data: data}, nil
}

// ExtraMetadata is the commit metadata's extraMetadata of a service writing with s.
func (s *ServiceSchema) ExtraMetadata() map[string]string {
	m := map[string]string{"schema": s.AvroSchema}
	if s.Internal != nil {
		m[internalschema.LatestSchemaKey] = s.Internal.JSON()
	}
	return m
}
