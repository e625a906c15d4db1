package hudi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
)

// metadataWriter returns what keeps the table's metadata table current through an
// operation with the settings cfg (hoodie.metadata.enable, default true, as Java 0.14), or
// nil when the operation runs with the metadata table disabled (table.PrepareChangeFor then
// deletes it, as Java does). c is the operation's concurrency: the metadata table changes
// under its lock, which the operation holds when it commits.
//
// A write (forWrite) also runs the metadata table's own compaction, clean and archival
// when they are due, as Java's write client does when it starts a write.
func (t *Table) metadataWriter(cfg *config.Config, c commit.Concurrency, now func() time.Time, logger *slog.Logger, forWrite bool) (table.MetadataWriter, error) {
	if !mdtwrite.Enabled(cfg) {
		return nil, nil
	}
	if cur := t.current(); !cur.Timeline.Layout.Writes(timeline.OpMetadata) {
		if cfg.IsSet(config.MetadataEnable) {
			return nil, fmt.Errorf("%s=true: %w", config.MetadataEnable.Name, cur.CheckLayoutWrites(timeline.OpMetadata))
		}
		return nil, nil
	}
	if cur := t.current(); cur.Timeline.Layout.CompletionTimes() {
		if err := refuseIndexPartitions(cfg, cur.Version); err != nil {
			return nil, err
		}
	}
	mo, err := mdtwrite.OptionsFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	mo.Services = forWrite
	mo.Now, mo.Logger, mo.Zone = now, logger, t.timelineZone()
	if c.Lock != nil {
		mo.Lock = c.Timeline(t.current().Storage, nil, nil, logger).Lock
	}
	w, err := mdtwrite.New(t.current().Storage, mo)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// refuseIndexPartitions refuses the metadata-table partitions hudi-go writes on version 6
// only, asked for on a table of version v (8 or 9). It writes column_stats and
// bloom_filters records as Hudi 0.14 lays them out; on a version 8/9 table it keeps only
// files and record_index and drops the others (docs/design/metadata-table.md), so asking
// for them there is refused, not accepted and then dropped.
func refuseIndexPartitions(cfg *config.Config, v spec.TableVersion) error {
	for _, k := range []config.Key{config.MetadataIndexColumnStatsEnable, config.MetadataIndexBloomFilterEnable} {
		if cfg.Bool(k) {
			return fmt.Errorf("%s=true: %w", k.Name, spec.Unsupported(fmt.Sprintf(
				"hudi-go does not write this metadata-table partition on a table of version %d yet (only on version 6)", v)))
		}
	}
	return nil
}

// timelineZone is the table's timeline time zone (hoodie.table.timeline.timezone: UTC,
// else the local zone, Hudi 0.14's default).
func (t *Table) timelineZone() *time.Location {
	return t.current().Config.TimelineZone()
}

// MetadataOptions configure the metadata-table commands (hudi metadata).
type MetadataOptions struct {
	// Settings take hoodie.* keys: the metadata table's (hoodie.metadata.*) and the table
	// lock's.
	Settings map[string]string
	Logger   *slog.Logger
	// Now replaces the clock (tests).
	Now func() time.Time
}

// ErrMetadataTableExists is returned by MetadataInit for a table that has one.
var ErrMetadataTableExists = errors.New("the table has a metadata table")

// MetadataInit builds the table's metadata table from a listing (Java's bootstrap of the
// files partition) as a write with hoodie.metadata.enable=true does on its first run. It
// refuses a table that has one (delete it first), and fails while an instant is pending on
// the data table, which Java's initialization waits out too.
func (t *Table) MetadataInit(ctx context.Context, o MetadataOptions) (*MetadataInfo, error) {
	cfg, err := settingsConfig(o.Settings, o.Logger)
	if err != nil {
		return nil, err
	}
	if !mdtwrite.Enabled(cfg) {
		return nil, fmt.Errorf("%s=false: nothing to initialize", config.MetadataEnable.Name)
	}
	if err := t.current().CheckLayoutWrites(timeline.OpMetadata); err != nil {
		return nil, err
	}
	err = t.underLockWith(ctx, cfg, o.Logger, "initialize the metadata table", func(c commit.Concurrency) error {
		mt, err := t.current().Reopen(ctx)
		if err != nil {
			return err
		}
		if slices.Contains(mt.Config.MetadataPartitions(), mdt.PartitionFiles) {
			return fmt.Errorf("%s lists %s: %w (hudi metadata TABLE delete removes it)", table.KeyMetadataPartitions, mdt.PartitionFiles, ErrMetadataTableExists)
		}
		for _, in := range mt.Timeline.Instants {
			if !in.IsCompleted() && in.Action != spec.ActionIndexing {
				return fmt.Errorf("instant %s %s is pending: the metadata table is built when no instant is (as Java); finish or roll it back first", in.Time, in.Action)
			}
		}
		mw, err := t.metadataWriter(cfg, c, o.Now, o.Logger, false)
		if err != nil {
			return err
		}
		if _, err := mt.PrepareChangeFor(ctx, nowOf(o.Now), o.Logger, mw); err != nil {
			return err
		}
		return nil
	})
	t.reload(ctx)
	if err != nil {
		return nil, err
	}
	return t.MetadataDescribe(ctx)
}

// MetadataDelete disables and deletes the table's metadata table, as a Java writer with
// hoodie.metadata.enable=false does: hoodie.table.metadata.partitions is cleared first, so
// readers list files directly from then on. It reports whether there was one.
func (t *Table) MetadataDelete(ctx context.Context, o MetadataOptions) (bool, error) {
	cfg, err := settingsConfig(o.Settings, o.Logger)
	if err != nil {
		return false, err
	}
	var had bool
	err = t.underLock(ctx, cfg, o.Logger, "delete the metadata table", func() error {
		mt, err := t.current().Reopen(ctx)
		if err != nil {
			return err
		}
		had, err = mt.DisableMetadataTable(ctx, nowOf(o.Now))
		return err
	})
	t.reload(ctx)
	return had, err
}

// MetadataValidation is what MetadataValidate compared and found (mdtwrite.Validation).
type MetadataValidation = mdtwrite.Validation

// MetadataValidate compares the files partition of the table's metadata table with a
// listing of the table's latest state (mdtwrite.Validate): every file slice planned from
// one must be planned from the other.
func (t *Table) MetadataValidate(ctx context.Context) (*MetadataValidation, error) {
	return mdtwrite.Validate(ctx, t.current().Storage)
}

// MetadataInfo describes a table's metadata table (hudi metadata TABLE describe).
type MetadataInfo struct {
	// Partitions and PartitionsInflight are hoodie.table.metadata.partitions(.inflight):
	// what readers may use, and what is being built.
	Partitions         []string `json:"partitions"`
	PartitionsInflight []string `json:"partitions_inflight"`
	// Exists: .hoodie/metadata has a table (it may exist without being listed, left by an
	// interrupted build, which the next write replaces).
	Exists  bool   `json:"exists"`
	Name    string `json:"name,omitempty"`
	Version int    `json:"version,omitempty"`
	// Instants counts the metadata table's completed instants by action, Pending its
	// pending ones.
	Instants         map[string]int      `json:"instants,omitempty"`
	Pending          int                 `json:"pending"`
	LatestInstant    string              `json:"latest_instant,omitempty"`
	LatestCompaction string              `json:"latest_compaction,omitempty"`
	FileGroups       []MetadataFileGroup `json:"file_groups,omitempty"`
	DataPartitions   int                 `json:"data_partitions"`
	DataFiles        int                 `json:"data_files"`
	DataBytes        int64               `json:"data_bytes"`
}

// MetadataFileGroup is one file group of the metadata table, its latest slice.
type MetadataFileGroup struct {
	Partition string `json:"partition"`
	FileID    string `json:"file_id"`
	BaseFile  string `json:"base_file,omitempty"`
	LogFiles  int    `json:"log_files"`
	Bytes     int64  `json:"bytes"`
}

// MetadataDescribe describes the table's metadata table: the partitions hoodie.properties
// lists, its timeline, its file groups, and what its files partition lists.
func (t *Table) MetadataDescribe(ctx context.Context) (*MetadataInfo, error) {
	mt, err := t.current().Reopen(ctx)
	if err != nil {
		return nil, err
	}
	info := &MetadataInfo{Partitions: mt.Config.MetadataPartitions(), PartitionsInflight: []string{}}
	if v, _ := mt.Config.Props.Get(table.KeyMetadataPartitionsInflight); v != "" {
		info.PartitionsInflight = strings.Split(v, ",")
	}
	if info.Partitions == nil {
		info.Partitions = []string{}
	}
	m, err := mdt.Open(ctx, mt.Storage)
	if errors.Is(err, mdt.ErrNoMetadataTable) {
		return info, nil
	}
	if err != nil {
		return nil, err
	}
	info.Exists = true
	mst := mdt.Storage(mt.Storage)
	if mcfg, err := table.LoadConfig(ctx, mst); err == nil {
		info.Name = mcfg.Name()
		if v, err := mcfg.Version(); err == nil {
			info.Version = int(v)
		}
	}
	info.Instants = map[string]int{}
	for _, in := range m.Timeline.Instants {
		if !in.IsCompleted() {
			info.Pending++
			continue
		}
		info.Instants[string(in.Action)]++
		info.LatestInstant = string(in.Time)
		if in.Action == spec.ActionCommit {
			info.LatestCompaction = string(in.Time)
		}
	}
	for _, p := range []string{mdt.PartitionFiles, mdt.PartitionColumnStats, mdt.PartitionBloomFilters, mdt.PartitionRecordIndex} {
		listing, err := fsview.ListPartitionsIn(ctx, mst, []string{p})
		if err != nil {
			return nil, err
		}
		view, err := fsview.Build(ctx, listing, m.Timeline, fsview.Options{})
		if err != nil {
			return nil, err
		}
		for _, sl := range view.LatestSlices() {
			g := MetadataFileGroup{Partition: sl.Partition, FileID: string(sl.FileID), LogFiles: len(sl.Logs)}
			if sl.Base != nil {
				g.BaseFile, g.Bytes = sl.Base.Name.String(), sl.Base.Size
			}
			for _, l := range sl.Logs {
				g.Bytes += l.Size
			}
			info.FileGroups = append(info.FileGroups, g)
		}
	}
	if slices.Contains(info.Partitions, mdt.PartitionFiles) {
		listing, err := m.Listing(ctx)
		if err != nil {
			return nil, err
		}
		info.DataPartitions = len(listing.Partitions)
		for _, p := range listing.Partitions {
			info.DataFiles += len(p.Files)
			for _, f := range p.Files {
				info.DataBytes += f.Size
			}
		}
	}
	return info, nil
}

func nowOf(now func() time.Time) time.Time {
	if now == nil {
		return time.Now()
	}
	return now()
}
