// Package upgrade moves a table between table versions 6 (Hudi 0.14, timeline layout 1)
// and 8/9 (Hudi 1.0/1.1, timeline layout 2) as Hudi 1.x's UpgradeDowngrade does with its
// handlers SixToSeven/SevenToEight/EightToNine and NineToEight/EightToSeven/SevenToSix:
// the timeline files are renamed and rewritten into the other layout, the archived
// timeline is converted, and hoodie.properties is rewritten last.
//
// What comes before — rolling back failed writes, compacting a merge-on-read table
// (UpgradeDowngrade.performRollbackAndCompactionIfRequired) and the metadata table — is
// the caller's (the hudi facade), which runs the write services.
//
// Order, and what a crash leaves. Java moves each instant file (write the new one, delete
// the old) and then rewrites hoodie.properties: a crash in between leaves a table whose
// properties still name the old version but whose timeline is half moved, which only a
// re-run of the upgrade repairs (the handlers are "idempotent, for now"). hudi-go's order
// (its choice; the end state is Java's): write every file of the new layout next to the
// old ones, convert the archived timeline, rewrite hoodie.properties (Java's backup
// protocol, table.UpdateProperties), and only then delete the old layout's files. A crash
// before the properties switch leaves the table whole at its old version (the partial new
// layout is ignored by readers of the old one and replaced by the next run); a crash after
// it leaves the table whole at its new version with stale files of the old layout, which
// readers of the new one do not look at and which the next Run (any direction, or the same
// version again) deletes first.
package upgrade

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Options configure Run.
type Options struct {
	// To is the table version wanted: 6, 8 or 9.
	To spec.TableVersion
	// Now stamps hoodie.properties' comment line (tests); zero = time.Now.
	Now func() time.Time
	// LSM are the LSM timeline writer's settings, for the archived timeline's conversion.
	LSM timeline.LSMWriteOptions
	// ArchivalBatch is hoodie.commits.archival.batch: archived instants per LSM file
	// (SevenToEightUpgradeHandler.upgradeToLSMTimeline); 0 = Java's default 10.
	ArchivalBatch int
	// LegacyArchive writes the instants of the LSM timeline history as a version-6
	// archive log (a downgrade to 6 of a table with archived instants; Java's
	// downgradeFromLSMTimeline). The caller provides it (the archive service owns the
	// entry encoding); without it such a downgrade is refused.
	LegacyArchive func(ctx context.Context, archived []timeline.ArchivedInstant) error
	// WriterPartitionPathField is the writer's hoodie.datasource.write.partitionpath.field
	// ("" when not set): a CUSTOM key generator's partition fields (WriterPartitionFields).
	WriterPartitionPathField string
	Logger                   *slog.Logger
}

// Result says what Run did.
type Result struct {
	From, To spec.TableVersion
	// Files is the number of timeline files written in the new layout.
	Files int
	// Archived is the number of archived instants converted.
	Archived int
	// Stale is the number of files of the other layout deleted (after the switch, or left
	// by an interrupted earlier run).
	Stale int
}

// ErrArchivedHistory refuses a downgrade of a table whose LSM timeline holds archived
// instants when Run was given no Options.LegacyArchive to convert them.
var ErrArchivedHistory = errors.New("the table has archived instants in its LSM timeline (timeline/history) and no converter to the version 6 archive was given")

// Check refuses, before anything changes, a move Run cannot make: a target version the
// table's merge settings cannot have (merge mode CUSTOM).
func Check(ctx context.Context, t *table.Table, to spec.TableVersion) error {
	if _, err := Properties(t.Config.Props, t.Version, to); err != nil {
		return fmt.Errorf("table version %d to %d: %w", t.Version, to, err)
	}
	if strings.EqualFold(t.Config.Props.Value("hoodie.table.cdc.enabled"), "true") && timeline.LayoutOf(to).Version() == 2 && t.Version != to {
		// hudi-go's choice: it writes change-data capture on version 6 only, so an upgraded
		// CDC table could not be written by it any more (Java 1.x would upgrade it).
		return fmt.Errorf("table version %d to %d: the table has hoodie.table.cdc.enabled=true, and change-data capture on versions 8/9 is %w",
			t.Version, to, spec.ErrUnsupported)
	}
	return nil
}

// Run moves the table t to o.To. t must have been opened after the caller's preparation
// (failed writes rolled back, merge-on-read table compacted, no metadata table): Run
// refuses a pending data write, since its files could not be rolled back by a reader of
// the other layout. With t already at o.To it only deletes files an interrupted run left.
func Run(ctx context.Context, t *table.Table, o Options) (*Result, error) {
	from, to := t.Version, o.To
	if !to.Supported() {
		return nil, fmt.Errorf("table version %d: hudi-go moves tables between versions 6, 8 and 9", to)
	}
	res := &Result{From: from, To: to}
	if err := Check(ctx, t, to); err != nil {
		return nil, err
	}
	newProps, err := Properties(t.Config.Props, from, to)
	if err != nil {
		return nil, err
	}
	WriterPartitionFields(newProps, from, to, o.WriterPartitionPathField)
	st := t.Storage
	oldLayout, newLayout := timeline.LayoutOf(from), timeline.LayoutOf(to)
	oldDir, newDir := oldLayout.Dir(t.Config.TimelinePath()), newLayout.Dir(timeline.DefaultTimelineFolder)
	if oldLayout.Version() == 2 {
		newDir = timeline.MetaDir
	}
	// Files of the other layout are stale: an interrupted earlier run left them.
	if res.Stale, err = deleteStale(ctx, st, oldLayout, t.Config.TimelinePath()); err != nil {
		return nil, err
	}
	if oldLayout.Version() == newLayout.Version() {
		if from != to {
			if err := t.UpdateProperties(ctx, replaceAll(newProps), now(o)); err != nil {
				return nil, fmt.Errorf("table version %d to %d: %w", from, to, err)
			}
		}
		return res, nil
	}
	if err := checkNoPendingWrite(t.Timeline); err != nil {
		return nil, err
	}
	zone := t.Config.TimelineZone()
	entries, err := st.List(ctx, oldDir)
	if err != nil {
		return nil, fmt.Errorf("list the timeline %s: %w", oldDir, err)
	}
	clustering, err := clusteringInstants(ctx, st, oldDir, entries)
	if err != nil {
		return nil, err
	}
	var moved []string
	for _, e := range entries {
		f, ok := spec.ParseInstantFileName(e.Name)
		if e.IsDir || !ok {
			continue
		}
		data, err := st.ReadFile(ctx, storage.Join(oldDir, e.Name))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name, err)
		}
		nf, nd, err := convert(f, data, e.ModTime, zone, newLayout.Version(), clustering[f.Instant])
		if err != nil {
			return nil, fmt.Errorf("convert %s: %w", storage.Join(oldDir, e.Name), err)
		}
		if err := st.Put(ctx, storage.Join(newDir, nf), nd); err != nil {
			return nil, fmt.Errorf("write %s: %w", nf, err)
		}
		if err := keepCompletionTime(ctx, st, storage.Join(newDir, nf), f, zone); err != nil {
			return nil, err
		}
		moved = append(moved, e.Name)
	}
	res.Files = len(moved)
	if newLayout.Version() == 2 {
		if res.Archived, err = archivedToLSM(ctx, t, o); err != nil {
			return nil, err
		}
		for _, d := range []string{newLayout.ArchiveDir("", ""), ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids", ".hoodie/.schema", ".hoodie/.temp"} {
			if err := st.MkdirAll(ctx, d); err != nil {
				return nil, err
			}
		}
	} else {
		if res.Archived, err = lsmToArchive(ctx, t, o); err != nil {
			return nil, err
		}
		if err := st.MkdirAll(ctx, storage.Join(timeline.MetaDir, timeline.DefaultArchiveFolder)); err != nil {
			return nil, err
		}
	}
	if err := t.UpdateProperties(ctx, replaceAll(newProps), now(o)); err != nil {
		return nil, fmt.Errorf("table version %d to %d: %w", from, to, err)
	}
	// Now the old layout's files are stale.
	for _, name := range moved {
		if err := st.Delete(ctx, storage.Join(oldDir, name)); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return res, fmt.Errorf("table version %d to %d: the table is version %d; delete the old timeline file %s (the next upgrade or downgrade deletes it): %w", from, to, to, name, err)
		}
	}
	if oldLayout.Version() == 2 {
		// The whole layout-2 timeline folder goes, history included (checked empty).
		if err := storage.DeleteTree(ctx, st, oldDir); err != nil {
			return res, fmt.Errorf("table version %d to %d: delete %s: %w", from, to, oldDir, err)
		}
	}
	if o.Logger != nil {
		o.Logger.Info("table version changed", "from", int(from), "to", int(to), "files", res.Files, "archived", res.Archived)
	}
	return res, nil
}

func now(o Options) time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func replaceAll(p *props.Properties) func(*props.Properties) {
	return func(dst *props.Properties) {
		for _, k := range dst.Keys() {
			dst.Delete(k)
		}
		for _, k := range p.Keys() {
			v, _ := p.Get(k)
			dst.Set(k, v)
		}
	}
}

// deleteStale deletes the files of the layout the table does not have: for a layout-1
// table the .hoodie/timeline folder, for a layout-2 table the instant files directly under
// .hoodie.
func deleteStale(ctx context.Context, st storage.Storage, current timeline.Layout, timelinePath string) (int, error) {
	if current.Version() == 1 {
		dir := timeline.LayoutV2.Dir("")
		names, err := storage.ListNames(ctx, st, dir)
		if errors.Is(err, storage.ErrNotExist) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("list %s: %w", dir, err)
		}
		if err := storage.DeleteTree(ctx, st, dir); err != nil {
			return 0, fmt.Errorf("delete the stale %s left by an interrupted upgrade or downgrade: %w", dir, err)
		}
		return len(names), nil
	}
	entries, err := st.List(ctx, timeline.MetaDir)
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", timeline.MetaDir, err)
	}
	n := 0
	for _, e := range entries {
		if _, ok := spec.ParseInstantFileName(e.Name); e.IsDir || !ok {
			continue
		}
		if err := st.Delete(ctx, storage.Join(timeline.MetaDir, e.Name)); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return n, fmt.Errorf("delete the stale %s left by an interrupted upgrade or downgrade: %w", e.Name, err)
		}
		n++
	}
	return n, nil
}

// checkNoPendingWrite refuses pending data writes: the caller rolled back the failed ones
// (Java's rollbackFailedWritesAndCompact), so one left is a live writer's.
func checkNoPendingWrite(tl *timeline.Timeline) error {
	for _, in := range tl.Instants {
		if in.IsCompleted() {
			continue
		}
		switch in.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit:
			return fmt.Errorf("pending %s %s: another writer is running; upgrade or downgrade when no write is in progress", in.Action, in.Time)
		}
	}
	return nil
}

// clusteringInstants finds the replacecommit/clustering instants whose plan is a
// clustering (operationType CLUSTER), the ones whose pending files layout 2 names
// "clustering". Java's SevenToEightUpgradeHandler renames every pending replacecommit file
// (insert_overwrite's too); hudi-go renames only clusterings' (its choice), so that the
// upgraded timeline is named as Hudi 1.x itself names it (an insert_overwrite keeps
// <T>.replacecommit.requested in the Spark v9 fixtures) and an insert_overwrite does not
// turn into a clustering, which incremental reads would skip.
func clusteringInstants(ctx context.Context, st storage.Storage, dir string, entries []storage.FileInfo) (map[spec.InstantTime]bool, error) {
	out := map[spec.InstantTime]bool{}
	for _, e := range entries {
		f, ok := spec.ParseInstantFileName(e.Name)
		if !ok || f.State != spec.StateRequested {
			continue
		}
		switch f.Action {
		case spec.ActionClustering:
			out[f.Instant] = true
		case spec.ActionReplaceCommit:
			data, err := st.ReadFile(ctx, storage.Join(dir, e.Name))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", e.Name, err)
			}
			if len(data) == 0 {
				continue
			}
			m, err := commitmeta.DecodeRequestedReplace(data)
			if err != nil {
				return nil, fmt.Errorf("decode %s: %w", storage.Join(dir, e.Name), err)
			}
			out[f.Instant] = strings.EqualFold(m.OperationType, "CLUSTER")
		}
	}
	return out, nil
}

// convert returns the name and content a timeline file has in the other layout
// (SevenToEightUpgradeHandler.upgradeActiveTimelineInstant and
// EightToSevenDowngradeHandler.downgradeActiveTimelineInstant): a completed instant's
// name gains (layout 2) or loses (layout 1) its completion time — on upgrade the file's
// modification time, formatted in the timeline's zone, as Java's layout-1 instants
// report it; a clustering's pending files are renamed; commit and deltacommit files of
// any state and completed replacecommits are re-encoded (JSON in layout 1, Avro in
// layout 2). Empty files stay empty (Spark's layout-2 requested commits are empty too).
// Other files keep their bytes (their Avro records are the same in both layouts).
func convert(f spec.InstantFileName, data []byte, mod time.Time, zone *time.Location, layout int, clustering bool) (string, []byte, error) {
	nf := f
	completed := f.State == spec.StateCompleted
	if layout == 2 {
		if completed {
			nf.Completion = spec.InstantTimeOf(mod, zone)
		}
		if !completed && f.Action == spec.ActionReplaceCommit && clustering {
			nf.Action = spec.ActionClustering
		}
	} else {
		nf.Completion = ""
		if !completed && f.Action == spec.ActionClustering {
			nf.Action = spec.ActionReplaceCommit
		}
	}
	rewrite := f.Action == spec.ActionCommit || f.Action == spec.ActionDeltaCommit ||
		(completed && (f.Action == spec.ActionReplaceCommit || f.Action == spec.ActionClustering))
	if !rewrite || len(strings.TrimSpace(string(data))) == 0 {
		return nf.FileName(layout), data, nil
	}
	m, err := commitmeta.Decode(data)
	if err != nil {
		return "", nil, err
	}
	if completed && (f.Action == spec.ActionReplaceCommit || f.Action == spec.ActionClustering) && m.PartitionToReplaceFileIDs == nil {
		m.PartitionToReplaceFileIDs = map[string][]string{}
	}
	// An inflight commit holds the workload profile (null paths).
	m.Profile = f.State == spec.StateInflight
	var out []byte
	if layout == 2 {
		out, err = timeline.LayoutV2.EncodeCommitMetadata(m)
	} else {
		out, err = timeline.LayoutV1.EncodeCommitMetadata(m)
	}
	if err != nil {
		return "", nil, err
	}
	return nf.FileName(layout), out, nil
}

// keepCompletionTime sets the modification time of a completed instant file written by a
// downgrade (layout 2 → 1) to the instant's completion time, as Java's
// EightToSevenDowngradeHandler does for the files it rewrites (the ones it renames keep
// theirs, written at completion): a version-6 timeline has no completion times in its
// names, and Hudi 1.x readers of the downgraded table, like hudi-go's upgrade back to 8/9,
// take the file's modification time as the completion time (HoodieFileGroup places log
// files by it). Java parses the completion time in the JVM's zone; hudi-go in the table's
// timeline zone (hoodie.table.timeline.timezone, the zone the time was written in).
// Storage that cannot set modification times (object stores) keeps the write time, as
// Java's would.
func keepCompletionTime(ctx context.Context, st storage.Storage, path string, f spec.InstantFileName, zone *time.Location) error {
	ms, ok := st.(storage.ModTimeSetter)
	if !ok || f.State != spec.StateCompleted || f.Completion == "" {
		return nil
	}
	at, err := f.Completion.Time(zone)
	if err != nil {
		return nil // Java logs an unparsable completion time and leaves the time as written
	}
	return ms.SetModTime(ctx, path, at)
}

// lsmToArchive writes the LSM history's instants as a version-6 archive log through
// o.LegacyArchive, before the properties switch: a crash before it leaves the table at
// version 8/9 with an extra archive log that layout-2 readers do not look at (the next
// run writes another one, whose duplicate entries version-6 readers drop, Java's as ours).
func lsmToArchive(ctx context.Context, t *table.Table, o Options) (int, error) {
	from := timeline.LayoutOf(t.Version)
	archived, err := timeline.LoadArchived(ctx, t.Storage, from, t.Config.Props.Value(from.ArchiveFolderKey()), t.Config.TimelinePath())
	if err != nil {
		return 0, fmt.Errorf("read the LSM timeline: %w", err)
	}
	if len(archived) == 0 {
		return 0, nil
	}
	if o.LegacyArchive == nil {
		return 0, fmt.Errorf("downgrade to table version %d: %w", o.To, ErrArchivedHistory)
	}
	if err := o.LegacyArchive(ctx, archived); err != nil {
		return 0, fmt.Errorf("downgrade to table version %d: convert the archived timeline: %w", o.To, err)
	}
	return len(archived), nil
}

// archivedToLSM converts the layout-1 archived timeline into the LSM timeline
// (SevenToEightUpgradeHandler.upgradeToLSMTimeline: LegacyArchivedMetaEntryReader's
// completed instants, written hoodie.commits.archival.batch at a time, each batch followed
// by the LSM compaction and cleaning). A commit's metadata is re-encoded as the layout-2
// completed file (Avro HoodieCommitMetadata); other metadata and plans keep their Avro
// bytes. The completion time is the entry's stateTransitionTime, else its instant time
// (UNVERIFIED: which of the two LegacyArchivedMetaEntryReader takes was not read).
func archivedToLSM(ctx context.Context, t *table.Table, o Options) (int, error) {
	archived, err := timeline.LoadArchived(ctx, t.Storage, timeline.LayoutV1, t.Config.Props.Value(timeline.LayoutV1.ArchiveFolderKey()), "")
	if err != nil {
		return 0, fmt.Errorf("read the archived timeline: %w", err)
	}
	var rows []timeline.LSMInstant
	for _, a := range archived {
		if !a.Instant.IsCompleted() {
			continue
		}
		row := timeline.LSMInstant{Time: a.Instant.Time, Completion: a.Instant.Time,
			Action: a.Instant.Action.CompletedAction(), Metadata: a.Metadata, Plan: a.Plan}
		if c, err := spec.ParseFileInstant(a.StateTransitionTime); err == nil && a.StateTransitionTime != "" {
			row.Completion = c
		}
		switch row.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit:
			if len(a.Metadata) > 0 {
				m, err := commitmeta.Decode(a.Metadata)
				if err != nil {
					return 0, fmt.Errorf("archived %s %s: %w", row.Action, row.Time, err)
				}
				if row.Action == spec.ActionReplaceCommit && m.PartitionToReplaceFileIDs == nil {
					m.PartitionToReplaceFileIDs = map[string][]string{}
				}
				if row.Metadata, err = timeline.LayoutV2.EncodeCommitMetadata(m); err != nil {
					return 0, err
				}
			}
		}
		rows = append(rows, row)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Time.Less(rows[j].Time) })
	batch := o.ArchivalBatch
	if batch <= 0 {
		batch = 10
	}
	dir := timeline.LayoutV2.ArchiveDir("", "")
	lsm := o.LSM
	if lsm.CompactionBatch == 0 {
		lsm.CompactionBatch = timeline.DefaultLSMCompactionBatch
	}
	for i := 0; i < len(rows); i += batch {
		end := min(i+batch, len(rows))
		if _, _, _, err := timeline.WriteLSMFile(ctx, t.Storage, dir, rows[i:end], lsm); err != nil {
			return 0, fmt.Errorf("convert the archived timeline: %w", err)
		}
		if _, err := timeline.CompactAndCleanLSM(ctx, t.Storage, dir, lsm); err != nil {
			return 0, fmt.Errorf("convert the archived timeline: %w", err)
		}
	}
	return len(rows), nil
}
