package hudi

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/storage"
)

// Read-only accessors of the table's metadata as this handle last read it (after its own
// changes it re-reads it). Each reads one consistent state, even while a Write through the
// same handle swaps it; what they return is the caller's: changing it does not change the
// handle.

// Name is the table's name (hoodie.table.name).
func (t *Table) Name() string { return t.current().Config.Name() }

// Type is the table type, copy-on-write or merge-on-read.
func (t *Table) Type() spec.TableType { return t.current().Type }

// Version is the table version of hoodie.properties.
func (t *Table) Version() spec.TableVersion { return t.current().Version }

// Storage is the storage the table is rooted at.
func (t *Table) Storage() storage.Storage { return t.current().Storage }

// Config is a read-only copy of the table's hoodie.properties with typed accessors.
func (t *Table) Config() TableConfig {
	return TableConfig{c: &table.Config{Props: t.current().Config.Props.Clone()}}
}

// Timeline is a copy of the table's active timeline.
func (t *Table) Timeline() *timeline.Timeline { return t.current().Timeline.Clone() }

// CommitMetadata reads the metadata of a completed instant of the timeline.
func (t *Table) CommitMetadata(ctx context.Context, in timeline.Instant) (*commitmeta.CommitMetadata, error) {
	return t.current().CommitMetadata(ctx, in)
}

// Archived lists the instants of the archived timeline.
func (t *Table) Archived(ctx context.Context) ([]timeline.ArchivedInstant, error) {
	return t.current().Archived(ctx)
}

// InputSchema is the Arrow schema of the rows a write takes (the table's columns, without
// meta fields).
func (t *Table) InputSchema(ctx context.Context) (*arrow.Schema, error) {
	return t.current().InputSchema(ctx)
}

// SchemaAt is the table's Avro schema (JSON) as of an instant ("" = latest).
func (t *Table) SchemaAt(ctx context.Context, asOf spec.InstantTime) (string, error) {
	return t.current().SchemaAt(ctx, asOf)
}

// InternalSchemaAt is the schema of schema evolution on read as of an instant ("" =
// latest), nil when the table has none.
func (t *Table) InternalSchemaAt(ctx context.Context, asOf spec.InstantTime) (*internalschema.Schema, error) {
	return t.current().InternalSchemaAt(ctx, asOf)
}

// CurrentInternalSchema is the schema a schema change applies to (write.CurrentInternalSchema).
func (t *Table) CurrentInternalSchema(ctx context.Context) (*internalschema.Schema, string, error) {
	return write.CurrentInternalSchema(ctx, t.current())
}

// Listing lists the table's partitions and files.
func (t *Table) Listing(ctx context.Context) (*fsview.Listing, error) { return t.current().List(ctx) }

// View lists the table and returns its file-system view as of an instant ("" = latest).
func (t *Table) View(ctx context.Context, asOf spec.InstantTime) (*fsview.View, error) {
	m := t.current()
	listing, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	return m.View(ctx, listing, asOf)
}
