// Package mdtwrite maintains a table's metadata table as Java 0.14's
// HoodieBackedTableMetadataWriter does for table version 6: it creates the metadata table
// (bootstrapping its files partition from a listing of the data table), records every
// data-table instant in it — a metadata deltacommit of the same instant time, written
// before the data instant completes — and rolls those deltacommits back with their data
// instants. Its Writer is the table.MetadataWriter an operation hands to
// table.PrepareChangeFor and to its commit.Timeline (WithMetadata).
//
// The metadata table is itself a merge-on-read table under .hoodie/metadata, written with
// the commit package through a storage rooted there (mdt.Storage): its deltacommits append
// HFILE_DATA_BLOCKs of metadata records to the log files of its file groups, and its own
// rollbacks append command blocks, as the data table's do.
package mdtwrite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// ErrUnsupported marks metadata-table settings hudi-go does not implement yet.
var ErrUnsupported = errors.New("not supported by hudi-go's metadata table writer yet")

// Options configure a Writer. The zero value takes Java 0.14's defaults.
type Options struct {
	// Now is the clock (nil: time.Now); Zone the timeline time zone (nil: time.Local).
	Now  func() time.Time
	Zone *time.Location
	// Lock takes the data table's lock for what (re-entrantly) and returns its release;
	// nil takes none. The metadata table is changed only under it: bootstrapping and its
	// own services in Prepare, deltacommits inside the data instant's commit, which holds
	// it already.
	Lock   func(ctx context.Context, what string) (func(), error)
	Logger *slog.Logger
	// AutoInitialize is hoodie.metadata.auto.initialize (default true).
	AutoInitialize *bool
	// CompactDeltaCommits is hoodie.metadata.compact.max.delta.commits (default 10).
	CompactDeltaCommits int
	// MaxDeltaCommitsWhenPending is hoodie.metadata.max.deltacommits.when_pending (1000).
	MaxDeltaCommitsWhenPending int
	// CleanerCommitsRetained is the data table's hoodie.cleaner.commits.retained (10); the
	// metadata table keeps min(it, 20) (HoodieMetadataWriteUtils).
	CleanerCommitsRetained int
	// MinCommitsToKeep and MaxCommitsToKeep are the data table's hoodie.keep.min.commits
	// and hoodie.keep.max.commits (20, 30), which the metadata table's archival uses too.
	MinCommitsToKeep, MaxCommitsToKeep int
	// RecordIndex is hoodie.metadata.record.index.enable: build the record_index
	// partition (and keep it current, which happens whenever hoodie.properties lists it,
	// as Java's enablePartitions does). RecordIndexFileGroups sizes it when it is built.
	RecordIndex           bool
	RecordIndexFileGroups FileGroupSizing
	// ColumnStats is hoodie.metadata.index.column.stats.enable: build the column_stats
	// partition (kept current whenever hoodie.properties lists it), with
	// ColumnStatsFileGroups file groups (…column.stats.file.group.count, 2), indexing
	// ColumnStatsColumns (…column.stats.column.list; empty: every column).
	ColumnStats           bool
	ColumnStatsColumns    []string
	ColumnStatsFileGroups int
	// BloomFilters is hoodie.metadata.index.bloom.filter.enable: build the bloom_filters
	// partition with BloomFilterFileGroups file groups (…bloom.filter.file.group.count,
	// 4). BloomFilterType is hoodie.bloom.index.filter.type (DYNAMIC_V0), recorded for
	// files whose footer names no type.
	BloomFilters          bool
	BloomFilterFileGroups int
	BloomFilterType       string
	// Services runs the metadata table's own services (compaction, clean, archival) in
	// Prepare. Java runs them when a write opens the table (initializeMetadataTable from
	// the write client's initTable), not from table services: the facade sets it for
	// writes only.
	Services bool
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Zone == nil {
		o.Zone = time.Local
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.AutoInitialize == nil {
		t := true
		o.AutoInitialize = &t
	}
	if o.CompactDeltaCommits <= 0 {
		o.CompactDeltaCommits = 10
	}
	if o.MaxDeltaCommitsWhenPending <= 0 {
		o.MaxDeltaCommitsWhenPending = 1000
	}
	if o.CleanerCommitsRetained <= 0 {
		o.CleanerCommitsRetained = 10
	}
	if o.MinCommitsToKeep <= 0 {
		o.MinCommitsToKeep = 20
	}
	if o.MaxCommitsToKeep <= 0 {
		o.MaxCommitsToKeep = 30
	}
	if o.ColumnStatsFileGroups <= 0 {
		o.ColumnStatsFileGroups = 2
	}
	if o.BloomFilterFileGroups <= 0 {
		o.BloomFilterFileGroups = 4
	}
	if o.BloomFilterType == "" {
		o.BloomFilterType = "DYNAMIC_V0"
	}
	if o.RecordIndexFileGroups == (FileGroupSizing{}) {
		o.RecordIndexFileGroups = DefaultFileGroupSizing
	}
	return o
}

// Enabled reports whether cfg maintains a metadata table (hoodie.metadata.enable, default
// true): an operation with it off deletes the table's metadata table instead.
func Enabled(cfg *config.Config) bool { return cfg.Bool(config.MetadataEnable) }

// OptionsFromConfig reads the metadata-table settings of a write's config, refusing the
// ones hudi-go does not implement (a setting is honoured or refused, never ignored).
func OptionsFromConfig(cfg *config.Config) (Options, error) {
	var o Options
	for _, k := range []config.Key{config.MetadataIndexAsync} {
		if cfg.Bool(k) {
			return o, fmt.Errorf("%s=true: the metadata table's %s is %w", k.Name, strings.TrimPrefix(k.Name, "hoodie.metadata."), ErrUnsupported)
		}
	}
	auto := cfg.Bool(config.MetadataAutoInitialize)
	o.AutoInitialize = &auto
	o.CompactDeltaCommits = cfg.Int(config.MetadataCompactDeltaCommits)
	if o.CompactDeltaCommits < 1 {
		return o, fmt.Errorf("%s=%d: want at least 1", config.MetadataCompactDeltaCommits.Name, o.CompactDeltaCommits)
	}
	o.MaxDeltaCommitsWhenPending = cfg.Int(config.MetadataMaxDeltaCommitsWhenPending)
	if o.MaxDeltaCommitsWhenPending < 1 {
		return o, fmt.Errorf("%s=%d: want at least 1", config.MetadataMaxDeltaCommitsWhenPending.Name, o.MaxDeltaCommitsWhenPending)
	}
	o.RecordIndex = cfg.Bool(config.RecordIndexEnable)
	o.RecordIndexFileGroups = FileGroupSizing{MinCount: cfg.Int(config.RecordIndexMinFileGroupCount), MaxCount: cfg.Int(config.RecordIndexMaxFileGroupCount),
		GrowthFactor: cfg.Double(config.RecordIndexGrowthFactor), MaxSizeBytes: cfg.Int(config.RecordIndexMaxFileGroupSize)}
	if err := o.RecordIndexFileGroups.check(); err != nil {
		return o, err
	}
	o.ColumnStats = cfg.Bool(config.MetadataIndexColumnStatsEnable)
	o.ColumnStatsColumns = cfg.List(config.MetadataIndexColumnStatsColumnList)
	o.ColumnStatsFileGroups = cfg.Int(config.MetadataIndexColumnStatsFileGroupCount)
	o.BloomFilters = cfg.Bool(config.MetadataIndexBloomFilterEnable)
	o.BloomFilterFileGroups = cfg.Int(config.MetadataIndexBloomFilterFileGroupCount)
	o.BloomFilterType = cfg.String(config.BloomFilterType)
	for _, k := range []config.Key{config.MetadataIndexColumnStatsFileGroupCount, config.MetadataIndexBloomFilterFileGroupCount} {
		if n := cfg.Int(k); n < 1 {
			return o, fmt.Errorf("%s=%d: want at least 1", k.Name, n)
		}
	}
	o.CleanerCommitsRetained = cfg.Int(config.CleanerCommitsRetained)
	o.MinCommitsToKeep = cfg.Int(config.KeepMinCommits)
	o.MaxCommitsToKeep = cfg.Int(config.KeepMaxCommits)
	return o, nil
}

// Writer keeps one data table's metadata table current (table.MetadataWriter).
type Writer struct {
	st  storage.Storage // the data table
	mst storage.Storage // its metadata table
	o   Options
	enc *mdt.Encoder
}

var _ table.MetadataWriter = (*Writer)(nil)

// New returns the metadata writer of the data table rooted at st.
func New(st storage.Storage, o Options) (*Writer, error) {
	enc, err := mdt.NewEncoder()
	if err != nil {
		return nil, err
	}
	return &Writer{st: st, mst: mdt.Storage(st), o: o.withDefaults(), enc: enc}, nil
}

// timeline is the handle that changes the metadata table's own timeline: no metadata
// table of its own, no lock (the data table's lock covers it, so it is Exclusive), no
// heartbeats on its deltacommits.
func (w *Writer) timeline() *commit.Timeline {
	return commit.NewTimeline(w.mst, commit.TimelineOptions{Now: w.o.Now, Zone: w.o.Zone, Logger: w.o.Logger, Exclusive: true})
}

func (w *Writer) lock(ctx context.Context, what string) (func(), error) {
	if w.o.Lock == nil {
		return func() {}, nil
	}
	return w.o.Lock(ctx, what)
}

// mdtTimeline loads the metadata table's active timeline (the data table's version: the
// metadata table of a version-6 table is a version-6 table).
func (w *Writer) mdtTimeline(ctx context.Context, version spec.TableVersion) (*timeline.Timeline, error) {
	tl, err := timeline.Load(ctx, w.mst, version, "")
	if err != nil {
		return nil, fmt.Errorf("metadata table: %w", err)
	}
	// The metadata table's own history, in the default folders (hudi-go writes no others).
	return tl.WithArchive(w.mst, tl.Layout.ArchiveDir("", "")), nil
}

// filesAvailable reports whether hoodie.properties lists the files partition as built
// (HoodieTableConfig.isMetadataTableAvailable): only then do readers, and the writer's
// updates, use the metadata table.
func filesAvailable(c *table.Config) bool { return hasPartition(c, mdt.PartitionFiles) }

// hasPartition reports whether hoodie.table.metadata.partitions lists partition as built.
func hasPartition(c *table.Config, partition string) bool {
	for _, p := range c.MetadataPartitions() {
		if p == partition {
			return true
		}
	}
	return false
}

// Update records a data-table instant in the metadata table (table.MetadataWriter): the
// files partition records of its metadata become a metadata deltacommit of the same
// instant time. A rollback also rolls back the metadata deltacommit of the instant it
// rolled back; a restore restores the metadata table to the savepoint (restore.go). A
// table whose metadata table is not (yet) built is left alone, as Java's writer skips
// updates until it is initialized.
func (w *Writer) Update(ctx context.Context, u table.MetadataUpdate) error {
	cfg, err := table.LoadConfig(ctx, w.st)
	if err != nil {
		return err
	}
	if !filesAvailable(cfg) {
		return nil
	}
	version, err := cfg.Version()
	if err != nil {
		return err
	}
	recs := map[string][]*mdt.Record{}
	switch {
	case u.Commit != nil:
		recs[mdt.PartitionFiles] = mdt.CommitRecords(u.Commit)
		if hasPartition(cfg, mdt.PartitionRecordIndex) {
			ri, err := w.recordIndexUpdates(ctx, cfg, u.Instant, u.Commit)
			if err != nil {
				return fmt.Errorf("metadata table: record index of %s: %w", u.Instant, err)
			}
			if len(ri) > 0 {
				recs[mdt.PartitionRecordIndex] = ri
			}
		}
		if hasPartition(cfg, mdt.PartitionColumnStats) {
			cs, err := w.commitColumnStats(ctx, cfg, u.Commit)
			if err != nil {
				return fmt.Errorf("metadata table: column stats of %s: %w", u.Instant, err)
			}
			if len(cs) > 0 {
				recs[mdt.PartitionColumnStats] = cs
			}
		}
		if hasPartition(cfg, mdt.PartitionBloomFilters) {
			bf, err := w.commitBloomFilters(ctx, u.Instant, u.Commit)
			if err != nil {
				return fmt.Errorf("metadata table: bloom filters of %s: %w", u.Instant, err)
			}
			if len(bf) > 0 {
				recs[mdt.PartitionBloomFilters] = bf
			}
		}
	case u.Clean != nil:
		recs[mdt.PartitionFiles] = mdt.CleanRecords(u.Clean)
		if err := w.cleanIndexRecords(ctx, cfg, u.Instant, u.Clean, recs); err != nil {
			return fmt.Errorf("metadata table: clean %s: %w", u.Instant, err)
		}
	case u.Rollback != nil:
		recs[mdt.PartitionFiles] = mdt.RollbackRecords(u.Rollback)
	case u.Restore:
		return w.restore(ctx, cfg, version, u.Instant, u.RestoreTo)
	default:
		return fmt.Errorf("metadata update of %s names no instant metadata", u.Instant)
	}
	if u.Rollback != nil && timeline.LayoutOf(version).LogFilesPerWrite() {
		// Hudi 1.x records a rollback in the metadata table only by rolling back the
		// deltacommit of the instant it rolled back (update(HoodieRollbackMetadata) in
		// apache/hudi master writes no deltacommit): a layout-2 rollback deletes the
		// failed write's own files, which only that deltacommit listed, and appends no
		// command blocks whose log files would need listing. A deltacommit at the
		// rollback's instant would also share its instant time with the metadata
		// rollback below.
		return w.rollbackDeltaCommit(ctx, version, u.Instant, u.Rollback)
	}
	if err := w.deltaCommit(ctx, version, u.Instant, recs); err != nil {
		return err
	}
	if u.Rollback != nil {
		return w.rollbackDeltaCommit(ctx, version, u.Instant, u.Rollback)
	}
	return nil
}

// rollbackDeltaCommit rolls back, in the metadata table, the deltacommit of the data
// instant a rollback rb rolled back (HoodieBackedTableMetadataWriter.update(
// HoodieRollbackMetadata)): on table version 6 under rb + Java's rollback suffix "006",
// on versions 8/9 under rb itself (Hudi 1.x's writer calls the metadata write client's
// rollback(commitToRollback, instantTime) with the data rollback's instant; read in
// apache/hudi master). Only a completed metadata deltacommit is rolled back there; a
// pending one is rolled back as a failed write by the next metadata commit, and one the
// metadata table's latest compaction already merged cannot be (Java refuses the rollback:
// restore the table instead). Merged means: the deltacommit's instant is at or before the
// compaction (layout 1), or it completed at or before the compaction's instant (layout 2,
// Java's validateRollback compares the completion time, since a layout-2 compaction may
// be requested after a deltacommit that started earlier).
func (w *Writer) rollbackDeltaCommit(ctx context.Context, version spec.TableVersion, rb spec.InstantTime, m *commitmeta.RollbackMetadata) error {
	if len(m.CommitsRollback) == 0 {
		return nil
	}
	target := spec.InstantTime(m.CommitsRollback[0])
	tl, err := w.mdtTimeline(ctx, version)
	if err != nil {
		return err
	}
	in, ok := tl.Get(target, spec.ActionDeltaCommit)
	if tl.Layout.CompletionTimes() && (!ok || !in.IsCompleted()) {
		return nil
	}
	if c, ok := lastCompaction(tl); ok {
		merged := target.Compare(c) <= 0
		if tl.Layout.CompletionTimes() {
			merged = in.Completion != "" && in.Completion.Compare(c) <= 0
		}
		if merged {
			return fmt.Errorf("rollback %s of %s: the metadata table compacted it already (compaction %s); Java refuses such a rollback: restore the table to a savepoint instead",
				rb, target, c)
		}
	}
	if !ok || !in.IsCompleted() {
		return nil
	}
	at := rollbackInstant(rb)
	if tl.Layout.CompletionTimes() {
		at = rb
	}
	if _, err := w.timeline().RollbackInstantAt(ctx, tl, in, at); err != nil {
		return fmt.Errorf("metadata table: roll back deltacommit %s: %w", target, err)
	}
	return nil
}

// serviceInstant is the instant of one of the metadata table's own operations (its
// compaction, clean, and the sync after a restore) on timeline layout 2, where Hudi 1.x
// takes a new instant time from its time generator (writeClient.createNewInstantTime)
// instead of appending a suffix to the latest deltacommit (apache/hudi master,
// HoodieBackedTableMetadataWriter.compactIfNecessary, executeClean, createRestoreInstantTime).
// It is later than every instant and completion time of the metadata table and than every
// instant of the data table dtl (nil: not consulted), so that it is unique on both and no
// log file completed before it sorts after it.
func (w *Writer) serviceInstant(tl, dtl *timeline.Timeline) spec.InstantTime {
	t := spec.InstantTimeOf(w.o.Now(), w.o.Zone)
	bump := func(u spec.InstantTime) {
		if u == "" || len(u) > 17 || t.Compare(u) > 0 {
			return
		}
		if ut, err := u.Time(w.o.Zone); err == nil {
			t = spec.InstantTimeOf(ut.Add(time.Millisecond), w.o.Zone)
		}
	}
	for _, x := range []*timeline.Timeline{tl, dtl} {
		if x == nil {
			continue
		}
		for _, in := range x.Instants {
			bump(in.Time)
			bump(in.Completion)
		}
	}
	return t
}

// Suffixes Java 0.14 appends to the instant times of the metadata table's own operations
// (HoodieTableMetadataUtil.OperationSuffix, PARTITION_INITIALIZATION_TIME_SUFFIX).
const (
	suffixCompaction = "001"
	suffixClean      = "002"
	suffixRestore    = "003"
	suffixRollback   = "006"
	suffixInitFirst  = 10 // "010": the first partition initialized, "011" the next, …
)

func rollbackInstant(t spec.InstantTime) spec.InstantTime {
	return spec.InstantTime(string(t) + suffixRollback)
}

// lastCompaction is the metadata table's latest completed compaction (a commit).
func lastCompaction(tl *timeline.Timeline) (spec.InstantTime, bool) {
	var last spec.InstantTime
	for _, in := range tl.Instants {
		if in.Action == spec.ActionCommit && in.IsCompleted() {
			last = in.Time
		}
	}
	return last, last != ""
}

// dropForRestore deletes the metadata table before a restore completes, where Java 0.14
// deletes it too (see restore): until the next operation's Prepare bootstraps it again,
// readers list files.
func (w *Writer) dropForRestore(ctx context.Context, restore spec.InstantTime) error {
	t, err := table.Open(ctx, w.st)
	if err != nil {
		return err
	}
	if _, err := t.DisableMetadataTable(ctx, w.o.Now()); err != nil {
		return fmt.Errorf("restore %s: %w", restore, err)
	}
	w.o.Logger.Debug("the restore dropped the metadata table; the next write rebuilds it", "restore", restore)
	return nil
}
