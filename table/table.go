// Package table is a Hudi table's metadata: its config, timeline, schema history and the
// file-system view as of an instant. It does no data I/O.
package table

import (
	"context"
	"fmt"
	"sync"

	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/fsview"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// Table is an opened table.
type Table struct {
	Storage  storage.Storage
	Config   *Config
	Timeline *timeline.Timeline
	Type     spec.TableType
	Version  spec.TableVersion

	mu      sync.Mutex
	commits map[spec.InstantTime]*commitmeta.CommitMetadata
}

// Open loads a table's config and active timeline.
func Open(ctx context.Context, st storage.Storage) (*Table, error) {
	cfg, err := LoadConfig(ctx, st)
	if err != nil {
		return nil, err
	}
	tl, err := cfg.loadTimeline(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", st.Root(), err)
	}
	typ, _ := cfg.Type()
	v, _ := cfg.Version()
	return &Table{Storage: st, Config: cfg, Timeline: tl, Type: typ, Version: v,
		commits: map[spec.InstantTime]*commitmeta.CommitMetadata{}}, nil
}

// CommitMetadata decodes (once) the metadata of a completed data instant.
func (t *Table) CommitMetadata(ctx context.Context, in timeline.Instant) (*commitmeta.CommitMetadata, error) {
	t.mu.Lock()
	cm, ok := t.commits[in.Time]
	t.mu.Unlock()
	if ok {
		return cm, nil
	}
	data, err := t.Timeline.ReadCompleted(ctx, t.Storage, in)
	if err != nil {
		return nil, err
	}
	cm, err = commitmeta.Decode(data)
	if err != nil {
		p, _ := in.File(spec.StateCompleted)
		return nil, fmt.Errorf("decode commit metadata %s: %w", p, err)
	}
	t.mu.Lock()
	t.commits[in.Time] = cm
	t.mu.Unlock()
	return cm, nil
}

// visibleDataInstants returns completed data instants at or before asOf ("" = all).
func (t *Table) visibleDataInstants(asOf spec.InstantTime) []timeline.Instant {
	var out []timeline.Instant
	for _, in := range t.Timeline.DataInstants() {
		if asOf == "" || in.Time.Compare(asOf) <= 0 {
			out = append(out, in)
		}
	}
	return out
}

// SchemaAt returns the table's Avro schema (without meta fields) as of an instant: the
// schema in the metadata of the latest completed data instant at or before asOf that has
// one (as Java's TableSchemaResolver does for time travel), else the create schema. ""
// means no schema is recorded (the caller falls back to a data file's schema).
func (t *Table) SchemaAt(ctx context.Context, asOf spec.InstantTime) (string, error) {
	ins := t.visibleDataInstants(asOf)
	for i := len(ins) - 1; i >= 0; i-- {
		cm, err := t.CommitMetadata(ctx, ins[i])
		if err != nil {
			return "", err
		}
		if s := cm.Schema(); s != "" {
			return s, nil
		}
	}
	return t.Config.CreateSchema(), nil
}

// ReplacedFileGroups returns the file groups retired by replacecommits visible as of asOf.
func (t *Table) ReplacedFileGroups(ctx context.Context, asOf spec.InstantTime) (map[string]map[spec.FileID]bool, error) {
	out := map[string]map[spec.FileID]bool{}
	for _, in := range t.visibleDataInstants(asOf) {
		if in.Action != spec.ActionReplaceCommit {
			continue
		}
		cm, err := t.CommitMetadata(ctx, in)
		if err != nil {
			return nil, err
		}
		for p, ids := range cm.PartitionToReplaceFileIDs {
			if out[p] == nil {
				out[p] = map[spec.FileID]bool{}
			}
			for _, id := range ids {
				out[p][spec.FileID(id)] = true
			}
		}
	}
	return out, nil
}

// View builds the file-system view as of asOf ("" = latest) from a listing.
func (t *Table) View(ctx context.Context, listing *fsview.Listing, asOf spec.InstantTime) (*fsview.View, error) {
	replaced, err := t.ReplacedFileGroups(ctx, asOf)
	if err != nil {
		return nil, err
	}
	return fsview.Build(listing, t.Timeline, fsview.Options{AsOf: asOf, Replaced: replaced}), nil
}

// Archived loads the archived timeline (layout 1: .hoodie/<hoodie.archivelog.folder>;
// layout 2: the LSM history under the timeline folder).
func (t *Table) Archived(ctx context.Context) ([]timeline.ArchivedInstant, error) {
	folder := t.Config.get(KeyArchiveLogFolder)
	if t.Timeline.Layout >= 2 {
		folder = t.Config.get(KeyTimelineHistoryPath)
	}
	return timeline.LoadArchived(ctx, t.Storage, t.Timeline.Layout, folder, t.Config.TimelinePath())
}

// List lists the table's partitions and files.
func (t *Table) List(ctx context.Context) (*fsview.Listing, error) {
	return fsview.ListPartitions(ctx, t.Storage)
}
