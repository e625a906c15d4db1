// Package mdt reads Hudi's metadata table (MDT): the merge-on-read table under
// .hoodie/metadata whose "partitions" index the data table — files (the file listing),
// record_index (record key → file group), column_stats, bloom_filters, … Its base files are
// HFiles and its log files carry HFILE_DATA_BLOCKs; each record is an Avro
// HoodieMetadataRecord keyed by the HFile key.
//
// A partition is read as Java's HoodieBackedTableMetadata reads it: the latest file slice
// of each of its file groups as of the metadata table's own timeline; the log blocks of a
// slice merged in order among themselves (a rollback command block drops the earlier blocks
// of its target instant; a delete block deletes keys), then merged over the base file's
// records with HoodieMetadataPayload's rules. Only log blocks written by an instant that is
// valid on the data table are read (HoodieTableMetadataUtil.getValidInstantTimestamps): the
// metadata table is written before the data instant completes, so a failed data write can
// leave a completed metadata deltacommit behind.
//
// The package also encodes metadata records and their HFiles (Encoder) and computes the
// files-partition records each kind of data-table instant makes (CommitRecords,
// CleanRecords, RollbackRecords); package mdt/mdtwrite writes them.
package mdt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Dir is the metadata table's folder, relative to the data table's root.
const Dir = ".hoodie/metadata"

// Partition names of the metadata table (Java's MetadataPartitionType paths).
const (
	PartitionFiles        = "files"
	PartitionColumnStats  = "column_stats"
	PartitionBloomFilters = "bloom_filters"
	PartitionRecordIndex  = "record_index"
)

// Keys of hoodie.properties this package reads.
const (
	keyTableVersion       = "hoodie.table.version"
	keyTimelinePath       = "hoodie.timeline.path"
	keyMetadataPartitions = "hoodie.table.metadata.partitions"
)

// ErrNoMetadataTable is returned by Open for a table without a metadata table.
var ErrNoMetadataTable = errors.New("table has no metadata table")

// ErrNoPartition is returned by ReadPartition for a metadata-table partition without a
// partition folder holding files (Hudi 1.x leaves a listed column_stats partition of a
// table whose files it does not index — Lance base files — without one).
var ErrNoPartition = errors.New("no partition")

// Table is a data table's metadata table, opened for reading.
type Table struct {
	st  storage.Storage // the data table
	mst storage.Storage // rooted at .hoodie/metadata
	// DataTimeline and Timeline are the active timelines of the data table and of the
	// metadata table.
	DataTimeline *timeline.Timeline
	Timeline     *timeline.Timeline
	// Available lists the partitions hoodie.table.metadata.partitions names as complete:
	// Java reads a partition only if it is listed there.
	Available []string
	schemas   schemaCache
	// valid is the set of instants whose log blocks are read (validInstants).
	valid map[spec.InstantTime]bool
}

// Open opens the metadata table of the table rooted at st.
func Open(ctx context.Context, st storage.Storage) (*Table, error) {
	return OpenWith(ctx, st, nil)
}

// OpenWith opens the metadata table of the table rooted at st with dataTimeline as the
// data table's active timeline (nil: load it). A reader planning from the metadata table
// passes the timeline it plans with, so that the metadata table is checked against
// (CheckCurrent), and its log blocks are filtered by (validOnData), the same instants.
func OpenWith(ctx context.Context, st storage.Storage, dataTimeline *timeline.Timeline) (*Table, error) {
	dataProps, err := readProps(ctx, st)
	if err != nil {
		return nil, err
	}
	mst := subStorage{st: st, dir: Dir}
	mdtProps, err := readProps(ctx, mst)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, ErrNoMetadataTable
	}
	if err != nil {
		return nil, fmt.Errorf("metadata table: %w", err)
	}
	t := &Table{st: st, mst: mst}
	t.DataTimeline = dataTimeline
	if t.DataTimeline == nil {
		if t.DataTimeline, err = loadTimeline(ctx, st, dataProps); err != nil {
			return nil, err
		}
	}
	if t.Timeline, err = loadTimeline(ctx, mst, mdtProps); err != nil {
		return nil, fmt.Errorf("metadata table: %w", err)
	}
	if t.valid, err = t.validInstants(ctx); err != nil {
		return nil, fmt.Errorf("metadata table: valid instants: %w", err)
	}
	if v, ok := dataProps.Get(keyMetadataPartitions); ok {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				t.Available = append(t.Available, p)
			}
		}
	}
	return t, nil
}

func readProps(ctx context.Context, st storage.Storage) (*props.Properties, error) {
	b, err := st.ReadFile(ctx, storage.Join(timeline.MetaDir, "hoodie.properties"))
	if err != nil {
		return nil, err
	}
	p, err := props.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parse %s/hoodie.properties: %w", timeline.MetaDir, err)
	}
	return p, nil
}

func loadTimeline(ctx context.Context, st storage.Storage, p *props.Properties) (*timeline.Timeline, error) {
	s, _ := p.Get(keyTableVersion)
	v, err := strconv.Atoi(s)
	if err != nil || !spec.TableVersion(v).Supported() {
		return nil, fmt.Errorf("unsupported table version %q in %s", s, storage.Join(st.Root(), timeline.MetaDir, "hoodie.properties"))
	}
	tlPath, _ := p.Get(keyTimelinePath)
	tl, err := timeline.Load(ctx, st, spec.TableVersion(v), tlPath)
	if err != nil {
		return nil, err
	}
	history, _ := p.Get(tl.Layout.ArchiveFolderKey())
	return tl.WithArchive(st, tl.Layout.ArchiveDir(history, tlPath)), nil
}

// IsAvailable reports whether partition is listed as complete in the data table's
// hoodie.table.metadata.partitions.
func (t *Table) IsAvailable(partition string) bool {
	for _, p := range t.Available {
		if p == partition {
			return true
		}
	}
	return false
}

// committedInMDT reports whether the metadata table committed instant ts: a completed
// instant of its timeline, or older than its active timeline (archived).
func (t *Table) committedInMDT(ts spec.InstantTime) bool {
	for _, in := range t.Timeline.At(ts) {
		if in.IsCompleted() {
			return true
		}
	}
	return t.Timeline.IsBeforeStart(ts)
}

// validOnData reports whether a metadata-table log block written by instant ts is to be
// read: ts is in Java's set of valid instants (HoodieTableMetadataUtil.getValidInstantTimestamps,
// see validInstants). The metadata table is written before the data instant completes, so
// a block of a data instant that is pending, failed, or removed by a restore that has not
// completed is not read.
func (t *Table) validOnData(ts spec.InstantTime) bool {
	return t.valid[ts]
}

// validInstants computes HoodieTableMetadataUtil.getValidInstantTimestamps (Hudi 0.14): the
// completed instants of the data table (any action); the metadata table's completed
// deltacommits that carry one of its operation suffixes (a 20-digit instant ending in
// 001–006 or 010 and up: partition initializations, indexing, …); the instants that
// completed rollbacks and restores of the data table rolled back, for those newer than the
// earliest valid instant; the metadata table's completed rollbacks and restores; and its
// completed deltacommits whose instant starts with 00000000000000 (the initialization of a
// table without commits).
func (t *Table) validInstants(ctx context.Context) (map[spec.InstantTime]bool, error) {
	valid := map[spec.InstantTime]bool{}
	for _, in := range t.DataTimeline.Instants {
		if in.IsCompleted() {
			valid[in.Time] = true
		}
	}
	// Hudi 1.x (a metadata table of timeline layout 2) takes every completed deltacommit
	// whose instant is not pending on the data table (isValidInstant in apache/hudi
	// master): its own operations take new instant times, not suffixes.
	pendingOnData := map[spec.InstantTime]bool{}
	for _, in := range t.DataTimeline.Instants {
		if !in.IsCompleted() {
			pendingOnData[in.Time] = true
		}
	}
	for _, in := range t.Timeline.Instants {
		if !in.IsCompleted() || in.Action != spec.ActionDeltaCommit {
			continue
		}
		if validSuffixInstant(in.Time) || (t.Timeline.Layout.CompletionTimes() && !pendingOnData[in.Time]) {
			valid[in.Time] = true
		}
	}
	earliest := spec.InstantTime(soloCommitTimestamp)
	first := true
	for ts := range valid {
		if first || ts.Compare(earliest) < 0 {
			earliest, first = ts, false
		}
	}
	for _, in := range t.DataTimeline.Instants {
		if !in.IsCompleted() || (in.Action != spec.ActionRollback && in.Action != spec.ActionRestore) || in.Time.Compare(earliest) <= 0 {
			continue
		}
		b, err := t.DataTimeline.ReadCompleted(ctx, t.st, in)
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", in.Action, in.Time, err)
		}
		rolled, err := rolledBackInstants(b)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", in.Action, in.Time, err)
		}
		for _, r := range rolled {
			valid[spec.InstantTime(r)] = true
		}
	}
	for _, in := range t.Timeline.Instants {
		if in.IsCompleted() && (in.Action == spec.ActionRollback || in.Action == spec.ActionRestore) {
			valid[in.Time] = true
		}
		if in.IsCompleted() && in.Action == spec.ActionDeltaCommit && strings.HasPrefix(string(in.Time), soloCommitTimestamp) {
			valid[in.Time] = true
		}
	}
	return valid, nil
}

// soloCommitTimestamp is HoodieTableMetadata.SOLO_COMMIT_TIMESTAMP.
const soloCommitTimestamp = "00000000000000"

// validSuffixInstant is HoodieTableMetadataUtil.isValidInstant without the action check:
// a 17-digit instant plus a 3-digit suffix that is an operation suffix (001–006) or a
// partition initialization suffix (010 and up).
func validSuffixInstant(ts spec.InstantTime) bool {
	if len(ts) != 20 {
		return false
	}
	suffix := string(ts[17:])
	return (suffix >= "001" && suffix <= "006") || suffix >= "010"
}

// rolledBackInstants reads the instants a completed rollback or restore rolled back: a
// rollback's commitsRollback, the commitsRollback of every rollback a restore records.
func rolledBackInstants(b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, nil // Java falls back to the rollback plan; an empty file names nothing here
	}
	_, values, err := avro.ReadContainer(b)
	if err != nil {
		return nil, err
	}
	var out []string
	strs := func(v any) {
		if a, ok := v.([]any); ok {
			for _, e := range a {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	for _, v := range values {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		strs(m["commitsRollback"])
		if rms, ok := m["hoodieRestoreMetadata"].(map[string]any); ok {
			for _, list := range rms {
				l, _ := list.([]any)
				for _, rm := range l {
					if r, ok := rm.(map[string]any); ok {
						strs(r["commitsRollback"])
					}
				}
			}
		}
	}
	return out, nil
}

// partitionFromMDT maps the metadata table's name of a data partition to the relative
// path: Java names the non-partitioned table's single partition "."
// (HoodieTableMetadata.NON_PARTITIONED_NAME).
func partitionFromMDT(p string) string {
	if p == "." {
		return ""
	}
	return p
}

// LatestCompaction returns the instant of the metadata table's latest completed
// compaction (a commit on its timeline; HoodieBackedTableMetadata.getLatestCompactionTime),
// ok false when it has none. version is the data table's (and so the metadata table's).
func LatestCompaction(ctx context.Context, st storage.Storage, version spec.TableVersion) (spec.InstantTime, bool, error) {
	tl, err := timeline.Load(ctx, Storage(st), version, "")
	if err != nil {
		return "", false, fmt.Errorf("metadata table: %w", err)
	}
	var last spec.InstantTime
	for _, in := range tl.Instants {
		if in.Action == spec.ActionCommit && in.IsCompleted() {
			last = in.Time
		}
	}
	return last, last != "", nil
}

// ErrNotCurrent: the metadata table does not record every instant the data table
// completed since its last compaction (a writer that does not maintain it wrote since), so
// planning from it would miss files.
var ErrNotCurrent = errors.New("the metadata table is not current")

// CheckCurrent verifies that the metadata table recorded every completed data-table
// instant that changes files — commit, deltacommit, replacecommit, clean, rollback — from
// its latest compaction on (or from its first instant, without one), as a completed
// deltacommit of the same instant. Older instants are in its base files. Java trusts a
// metadata table that hoodie.properties lists; hudi-go checks, because planning from a
// stale one would drop files.
func (t *Table) CheckCurrent() error {
	from := spec.InstantTime("")
	for _, in := range t.Timeline.Instants {
		if in.Action == spec.ActionCommit && in.IsCompleted() {
			from = in.Time
		}
	}
	if from == "" {
		if first, ok := t.Timeline.First(); ok {
			from = first.Time
		}
	}
	// A completed restore of the metadata table followed by a completed deltacommit (the
	// sync that makes the files partition equal a listing of the restored data table)
	// covers every data instant before the restore: the data cleans after the savepoint
	// keep their instants, whose deltacommits the restore rolled back.
	var restored spec.InstantTime
	for _, in := range t.Timeline.Instants {
		switch {
		case in.Action == spec.ActionRestore && in.IsCompleted():
			restored = in.Time
		case in.Action == spec.ActionDeltaCommit && in.IsCompleted() && restored != "" && restored.Compare(in.Time) < 0 && from.Compare(restored) < 0:
			from = restored
		}
	}
	// On layout 2 the files partition is initialized at 00000000000000000 (Hudi 1.x),
	// whatever the data timeline holds: it lists the data instants that completed before
	// its initialization completed, which therefore have no deltacommit of their own.
	var initDone spec.InstantTime
	if t.Timeline.Layout.CompletionTimes() {
		for _, in := range t.Timeline.Instants {
			if in.Action == spec.ActionDeltaCommit && in.IsCompleted() && strings.HasPrefix(string(in.Time), soloCommitTimestamp) {
				initDone = in.Completion
				break
			}
		}
	}
	for _, in := range t.DataTimeline.Instants {
		if !in.IsCompleted() || in.Time.Compare(from) <= 0 {
			continue
		}
		if initDone != "" && in.Completion != "" && in.Completion.Compare(initDone) <= 0 {
			continue
		}
		switch in.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit, spec.ActionClean:
		case spec.ActionRollback:
			if t.Timeline.Layout.LogFilesPerWrite() {
				// Hudi 1.x writes no deltacommit for a rollback: it rolls back the
				// deltacommit of the instant rolled back, if there was one.
				continue
			}
		default:
			continue
		}
		if m, ok := t.Timeline.Get(in.Time, spec.ActionDeltaCommit); !ok || !m.IsCompleted() {
			return fmt.Errorf("%w: data instant %s %s has no completed metadata deltacommit", ErrNotCurrent, in.Time, in.Action)
		}
	}
	return nil
}
