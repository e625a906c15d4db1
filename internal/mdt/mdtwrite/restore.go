package mdtwrite

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
)

// restore brings the metadata table in line with a data restore to savepoint sp before
// the data restore completes, as Java does (BaseHoodieWriteClient.restoreToSavepoint and
// HoodieBackedTableMetadataWriter.update(HoodieRestoreMetadata); read in 0.14/0.15-era and
// 1.x copies, the exact 0.14.1 text UNVERIFIED):
//
//   - the metadata table is deleted where Java deletes it: sp at or before its oldest
//     completed compaction, or before its timeline starts; and where Java refuses ("Can't
//     restore … Please delete metadata table and retry"): a files-partition file group
//     without a base file at or before sp, or (hudi-go's addition) a group of another listed
//     partition started after sp (hudi-go deletes instead of refusing: the next write
//     rebuilds it);
//   - otherwise the metadata table itself is restored to sp (one restore instant on its
//     timeline rolling back every deltacommit and compaction after sp, which also brings
//     record_index back to sp), then one deltacommit at a new instant + "003" adds and
//     deletes files-partition entries until they match a listing of the data table (files
//     cleaned after sp stay deleted).
//
// Run again after a crash, it finishes a pending metadata restore, rolls back a failed
// sync deltacommit and syncs again.
func (w *Writer) restore(ctx context.Context, cfg *table.Config, version spec.TableVersion, rs, sp spec.InstantTime) error {
	if sp == "" {
		return w.dropForRestore(ctx, rs)
	}
	ct := w.timeline()
	tl, err := w.mdtTimeline(ctx, version)
	if err != nil {
		return err
	}
	for _, in := range tl.Instants {
		if in.Action == spec.ActionRestore && !in.IsCompleted() {
			if _, err := ct.ResumeRestore(ctx, tl, in, sp); err != nil {
				return fmt.Errorf("metadata table: finish restore %s: %w", in.Time, err)
			}
			if tl, err = w.mdtTimeline(ctx, version); err != nil {
				return err
			}
		}
	}
	if why, err := w.restoreImpossible(ctx, cfg, tl, sp); err != nil {
		return err
	} else if why != "" {
		w.o.Logger.Warn("the restore deletes the metadata table; the next write rebuilds it", "restore", rs, "savepoint", sp, "reason", why)
		return w.dropForRestore(ctx, rs)
	}
	var todo []timeline.Instant
	for i := len(tl.Instants) - 1; i >= 0; i-- {
		in := tl.Instants[i]
		if sp.Less(in.Time) && (in.Action.IsDataAction() || in.Action == spec.ActionCompaction) {
			todo = append(todo, in)
		}
	}
	if len(todo) > 0 {
		if _, _, err := ct.Restore(ctx, tl, sp, todo); err != nil {
			return fmt.Errorf("metadata table: restore to %s: %w", sp, err)
		}
		if tl, err = w.mdtTimeline(ctx, version); err != nil {
			return err
		}
	}
	recs, err := w.restoreSyncRecords(ctx, rs)
	if err != nil {
		return err
	}
	byPartition, err := w.restoreIndexRecords(ctx, cfg, rs, recs)
	if err != nil {
		return err
	}
	byPartition[mdt.PartitionFiles] = recs
	sync := spec.InstantTime(string(ct.NewInstantTime(tl)) + suffixRestore)
	if tl.Layout.CompletionTimes() {
		// Hudi 1.x: a new instant time (createRestoreInstantTime), valid to readers as a
		// completed deltacommit not pending on the data table.
		dtl, err := timeline.Load(ctx, w.st, version, cfg.TimelinePath())
		if err != nil {
			return err
		}
		sync = w.serviceInstant(tl, dtl)
	}
	if err := w.deltaCommit(ctx, version, sync, byPartition); err != nil {
		return fmt.Errorf("metadata table: sync after restore %s: %w", rs, err)
	}
	return nil
}

// restoreImpossible says why the metadata table cannot be restored to sp ("" if it can).
func (w *Writer) restoreImpossible(ctx context.Context, cfg *table.Config, tl *timeline.Timeline, sp spec.InstantTime) (string, error) {
	var first spec.InstantTime
	for _, in := range tl.Instants {
		if !in.Action.IsDataAction() && in.Action != spec.ActionCompaction {
			continue
		}
		if first == "" {
			first = in.Time
		}
		if in.Action == spec.ActionCommit && in.IsCompleted() {
			if !sp.Less(in.Time) {
				break
			}
			return fmt.Sprintf("the savepoint is at or before the metadata table's oldest compaction %s", in.Time), nil
		}
	}
	if first == "" || sp.Less(first) {
		return fmt.Sprintf("the savepoint is before the metadata table's timeline starts (%s)", first), nil
	}
	listing, err := fsview.ListPartitions(ctx, w.mst)
	if err != nil {
		return "", fmt.Errorf("metadata table: list its partitions: %w", err)
	}
	listed := map[string]bool{}
	for _, p := range cfg.MetadataPartitions() {
		listed[p] = true
	}
	for _, p := range listing.Partitions {
		if !listed[p.Path] {
			continue
		}
		groups := map[spec.FileID]bool{}
		for _, f := range p.Files {
			if b, ok := spec.ParseBaseFileName(f.Name); ok {
				groups[b.FileID] = groups[b.FileID] || !sp.Less(b.Instant)
			} else if l, ok := spec.ParseLogFileName(f.Name); ok {
				// Java checks the files partition only, whose file groups all have base
				// files; a record_index group without keys has only log files, whose
				// instant is the slice's: it must have been started at or before sp.
				groups[l.FileID] = groups[l.FileID] || (p.Path != mdt.PartitionFiles && !sp.Less(l.Instant))
			}
		}
		for g, ok := range groups {
			if !ok {
				return fmt.Sprintf("file group %s of %s has no file slice at or before the savepoint", g, p.Path), nil
			}
		}
	}
	return "", nil
}

// restoreSyncRecords are the files-partition records that make the metadata table list
// what a listing of the data table finds (files of instants up to the restore rs; Java's
// listAllPartitionsFromFilesystem and fetchOutofSyncFilesRecordsFromMetadataTable): files
// missing from it or listed with another size are added, files and partitions it lists
// that are gone are deleted.
func (w *Writer) restoreSyncRecords(ctx context.Context, rs spec.InstantTime) ([]*mdt.Record, error) {
	want, err := w.listDataFiles(ctx, rs)
	if err != nil {
		return nil, err
	}
	m, err := mdt.Open(ctx, w.st)
	if err != nil {
		return nil, fmt.Errorf("metadata table: open after restore: %w", err)
	}
	have, err := m.Listing(ctx)
	if err != nil {
		return nil, fmt.Errorf("metadata table: read files after restore: %w", err)
	}
	haveFiles := map[string]map[string]int64{}
	for _, p := range have.Partitions {
		fs := map[string]int64{}
		for _, f := range p.Files {
			fs[f.Name] = f.Size
		}
		haveFiles[p.Path] = fs
	}
	var out []*mdt.Record
	var added, gone []string
	for _, pf := range want {
		p, files := pf.path, pf.files
		old, ok := haveFiles[p]
		if !ok {
			added = append(added, p)
		}
		add := map[string]int64{}
		for f, size := range files {
			if s, ok := old[f]; !ok || s != size {
				add[f] = size
			}
		}
		var del []string
		for f := range old {
			if _, ok := files[f]; !ok {
				del = append(del, f)
			}
		}
		delete(haveFiles, p)
		if len(add) > 0 || len(del) > 0 {
			out = append(out, mdt.PartitionFilesRecord(p, add, del))
		}
	}
	for p := range haveFiles {
		gone = append(gone, p)
	}
	if len(added) > 0 {
		out = append(out, mdt.PartitionListRecord(added, false))
	}
	if len(gone) > 0 {
		out = append(out, mdt.PartitionListRecord(gone, true))
	}
	return out, nil
}
