// Package table is a Hudi table's metadata: its config, timeline, schema history and the
// file-system view as of an instant. It does no data I/O.
package table

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Table is an opened table.
type Table struct {
	Storage  storage.Storage
	Config   *Config
	Timeline *timeline.Timeline
	Type     spec.TableType
	Version  spec.TableVersion

	cache *cache
}

// cache holds what was decoded from a table's immutable files: completed instants'
// metadata and base files' footer keys. A handle re-read after each commit (Reopen)
// keeps it, so a writer making many small commits does not re-read and re-decode every
// active commit's metadata (the average record size looks through all of them) and
// every base file's footer (the BLOOM index range check) on each commit: with
// hoodie.parquet.small.file.limit=0 the footer walks alone grew to ~200 ms a commit by
// commit 1000 of bench W7. Completed instant files and base files are never rewritten
// in place (a rewrite is a new file name), so an entry is valid for as long as its file
// exists; entries are dropped once their instant leaves the active timeline or their
// file is no longer a latest base file.
type cache struct {
	mu      sync.Mutex
	commits map[string]*commitmeta.CommitMetadata // by completed instant file path
	footers map[fileRef]parquet.FooterKeys
	// decoded holds full footers decoded by an index lookup for the merge of the same
	// file that follows in the same write (TakeFooter).
	decoded      map[fileRef]parquet.Footer
	decodedBytes int
	// histories holds the parsed schema history (schema evolution on read) by its text.
	histories map[string]*internalschema.History
}

// maxStashedFooterBytes bounds the footers an index lookup stashes for the merges that
// follow it: each holds its file's bloom filter (~430 KB by default), and an upsert
// touching a row in each of 10,000 partitions would otherwise hold 10,000 of them at
// once (8.7 GB, issue 25). A merge whose footer was not stashed decodes it again.
const maxStashedFooterBytes = 64 << 20

// fileRef names one version of a file: base files are immutable, and the size guards
// against a file replaced under the same name by something other than Hudi.
type fileRef struct {
	path string
	size int64
}

func newCache() *cache {
	return &cache{commits: map[string]*commitmeta.CommitMetadata{}, footers: map[fileRef]parquet.FooterKeys{},
		decoded: map[fileRef]parquet.Footer{}, histories: map[string]*internalschema.History{}}
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
	return &Table{Storage: st, Config: cfg, Timeline: tl, Type: typ, Version: v, cache: newCache()}, nil
}

// Reopen re-reads the table's config and timeline from storage (to see commits made
// since t was opened, by this process or others) and keeps t's cache of decoded
// immutable files, minus the commit metadata of instants no longer on the active
// timeline.
func (t *Table) Reopen(ctx context.Context) (*Table, error) {
	nt, err := Open(ctx, t.Storage)
	if err != nil {
		return nil, err
	}
	live := make(map[string]bool, len(nt.Timeline.Instants))
	for _, in := range nt.Timeline.Instants {
		if p, ok := in.File(spec.StateCompleted); ok {
			live[p] = true
		}
	}
	c := t.cache
	c.mu.Lock()
	for p := range c.commits {
		if !live[p] {
			delete(c.commits, p)
		}
	}
	c.mu.Unlock()
	nt.cache = c
	return nt, nil
}

// FooterKeys returns the footer keys of the base file path of the given size, if this
// handle (or one it was reopened from) has read them.
func (t *Table) FooterKeys(path string, size int64) (parquet.FooterKeys, bool) {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	fk, ok := t.cache.footers[fileRef{path, size}]
	return fk, ok
}

// SetFooterKeys remembers the footer keys read from the base file path of the given size.
func (t *Table) SetFooterKeys(path string, size int64, fk parquet.FooterKeys) {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	t.cache.footers[fileRef{path, size}] = fk
}

// RetainFooterKeys forgets the footer keys of files for which keep is false (files that
// are no longer the latest base file of their group), so the cache follows the table's
// size rather than its history.
func (t *Table) RetainFooterKeys(keep func(path string) bool) {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	for r := range t.cache.footers {
		if !keep(r.path) {
			delete(t.cache.footers, r)
		}
	}
	for r, ft := range t.cache.decoded {
		if !keep(r.path) {
			delete(t.cache.decoded, r)
			t.cache.decodedBytes -= ft.Size()
		}
	}
}

// DropStashedFooters forgets every stashed footer: each holds its file's bloom filter
// (~430 KB by default), and they are meant for the merges of one write only.
func (t *Table) DropStashedFooters() {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	clear(t.cache.decoded)
	t.cache.decodedBytes = 0
}

// StashFooter keeps the decoded footer of the base file path of the given size for one
// later TakeFooter (an index lookup that found keys in a file leaves its footer for the
// merge that rewrites the file).
func (t *Table) StashFooter(path string, size int64, ft parquet.Footer) {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	r := fileRef{path, size}
	if _, ok := t.cache.decoded[r]; ok || t.cache.decodedBytes+ft.Size() > maxStashedFooterBytes {
		return
	}
	t.cache.decoded[r] = ft
	t.cache.decodedBytes += ft.Size()
}

// TakeFooter returns and forgets the footer stashed for the base file path of the
// given size. Footers a write does not take (a lookup that found keys it does not merge,
// such as an insert dropping duplicates, or a write that failed) are dropped by
// DropStashedFooters when the write ends.
func (t *Table) TakeFooter(path string, size int64) (parquet.Footer, bool) {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	r := fileRef{path, size}
	ft, ok := t.cache.decoded[r]
	if ok {
		delete(t.cache.decoded, r)
		t.cache.decodedBytes -= ft.Size()
	}
	return ft, ok
}

// CommitMetadata decodes (once) the metadata of a completed data instant.
func (t *Table) CommitMetadata(ctx context.Context, in timeline.Instant) (*commitmeta.CommitMetadata, error) {
	key, ok := in.File(spec.StateCompleted)
	if !ok {
		key = string(in.Time) // not completed: ReadCompleted below reports it
	}
	t.cache.mu.Lock()
	cm, ok := t.cache.commits[key]
	t.cache.mu.Unlock()
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
	t.cache.mu.Lock()
	t.cache.commits[key] = cm
	t.cache.mu.Unlock()
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

// View builds the file-system view as of asOf ("" = latest) from a listing. The latest
// view fails with ErrMissingFile when storage lacks a file that completed commits name
// as part of a latest file slice (checkLatestFiles).
func (t *Table) View(ctx context.Context, listing *fsview.Listing, asOf spec.InstantTime) (*fsview.View, error) {
	replaced, err := t.ReplacedFileGroups(ctx, asOf)
	if err != nil {
		return nil, err
	}
	if asOf == "" {
		if err := t.checkLatestFiles(ctx, listing, replaced); err != nil {
			return nil, err
		}
	}
	return fsview.Build(ctx, listing, t.Timeline, fsview.Options{AsOf: asOf, Replaced: replaced})
}

// Archived loads the archived timeline (layout 1: .hoodie/<hoodie.archivelog.folder>;
// layout 2: the LSM history under the timeline folder).
func (t *Table) Archived(ctx context.Context) ([]timeline.ArchivedInstant, error) {
	l := t.Timeline.Layout
	return timeline.LoadArchived(ctx, t.Storage, l, t.Config.get(l.ArchiveFolderKey()), t.Config.TimelinePath())
}

// ArchiveDir is the folder of the archived timeline relative to the table root (layout 1:
// .hoodie/<hoodie.archivelog.folder>; layout 2: <timeline folder>/<hoodie.timeline.history.path>).
func (t *Table) ArchiveDir() string {
	l := t.Timeline.Layout
	return l.ArchiveDir(t.Config.get(l.ArchiveFolderKey()), t.Config.TimelinePath())
}

// List lists the table's partitions and files.
func (t *Table) List(ctx context.Context) (*fsview.Listing, error) {
	return fsview.ListPartitions(ctx, t.Storage)
}

// LoadTimeline reads the active timeline from storage again (the table lock's holder does
// before it changes the timeline, to see what other processes did meanwhile).
func (t *Table) LoadTimeline(ctx context.Context) (*timeline.Timeline, error) {
	tl, err := t.Config.loadTimeline(ctx, t.Storage)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Storage.Root(), err)
	}
	return tl, nil
}

// FilesOptions configure Files.
type FilesOptions struct {
	// NoMetadata lists storage even when the metadata table could be planned from (a read
	// with hoodie.metadata.enable=false, as Java's readers take it).
	NoMetadata bool
	// Logger receives the line saying why a table with a metadata table was listed
	// instead (default slog.Default()).
	Logger *slog.Logger
}

// Files lists the table's partitions and files to plan a read, a write or a service from.
//
// When hoodie.table.metadata.partitions lists the files partition, the files come from
// the metadata table (Java's readers and writers plan from it then:
// HoodieMetadataFileSystemView), so that no data partition is listed — on object stores
// listing is the main cost of planning. The metadata table is used only when it is
// current: it recorded every file-changing instant of the data timeline t plans with
// (mdt.Table.CheckCurrent). When it is missing or behind, Files says so in the log and
// lists storage (List): planning from a stale one would miss files. The metadata table
// records committed files only; storage also holds files of failed or running writes,
// which the file-system view leaves out either way.
func (t *Table) Files(ctx context.Context, o FilesOptions) (*fsview.Listing, error) {
	l, ok, err := t.metadataListing(ctx, o)
	if err != nil || ok {
		return l, err
	}
	return t.List(ctx)
}

// FilesIn is Files for the given partitions only (relative paths, "" for a
// non-partitioned table's root): from the metadata table when Files would use it, else a
// listing of those partitions alone (fsview.ListPartitionsIn).
func (t *Table) FilesIn(ctx context.Context, o FilesOptions, partitions []string) (*fsview.Listing, error) {
	l, ok, err := t.metadataListing(ctx, o)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fsview.ListPartitionsIn(ctx, t.Storage, partitions)
	}
	want := make(map[string]bool, len(partitions))
	for _, p := range partitions {
		want[p] = true
	}
	out := &fsview.Listing{}
	for _, p := range l.Partitions {
		if want[p.Path] {
			out.Partitions = append(out.Partitions, p)
		}
	}
	return out, nil
}

// metadataListing is the listing the files partition of the metadata table gives, ok
// false when Files is to list storage instead.
func (t *Table) metadataListing(ctx context.Context, o FilesOptions) (*fsview.Listing, bool, error) {
	if o.NoMetadata || !slices.Contains(t.Config.MetadataPartitions(), mdt.PartitionFiles) {
		return nil, false, nil
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	m, err := mdt.OpenWith(ctx, t.Storage, t.Timeline)
	if errors.Is(err, mdt.ErrNoMetadataTable) {
		logger.Info("planning from a listing of storage: "+KeyMetadataPartitions+" lists the files partition but the table has no metadata table",
			"table", t.Config.Name(), "dir", mdt.Dir)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("table %s: plan from the metadata table (a read with hoodie.metadata.enable=false lists storage instead): %w", t.Config.Name(), err)
	}
	if err := m.CheckCurrent(); err != nil {
		logger.Info("planning from a listing of storage: the metadata table is behind the data timeline", "table", t.Config.Name(), "reason", err)
		return nil, false, nil
	}
	l, err := m.Listing(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("table %s: plan from the metadata table (a read with hoodie.metadata.enable=false lists storage instead): %w", t.Config.Name(), err)
	}
	return l, true, nil
}
