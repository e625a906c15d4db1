package mdtwrite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/services/archive"
	"github.com/hudi-go/hudi/internal/services/clean"
	"github.com/hudi-go/hudi/internal/services/compaction"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// metadataCleanerCommitsRetained caps the metadata table's cleaner retention
// (HoodieMetadataConfig.DEFAULT_METADATA_CLEANER_COMMITS_RETAINED).
const metadataCleanerCommitsRetained = 20

// tableServices runs the metadata table's own services as Java 0.14's
// performTableServices does when a writer opens the table: pending compactions of the
// metadata table are finished, then it is cleaned, compacted and archived, each only
// when due. Its instants take the latest metadata deltacommit's instant plus a suffix
// ("001" compaction, "002" clean), so that no later data instant sorts before them.
// t is the data table as the operation sees it.
func (w *Writer) tableServices(ctx context.Context, t *table.Table) error {
	tl, err := w.mdtTimeline(ctx, t.Version)
	if err != nil {
		return err
	}
	for _, in := range tl.PendingCompactions() {
		if in.Action != spec.ActionCompaction {
			continue
		}
		if err := w.compact(ctx, t.Version, in.Time); err != nil {
			return err
		}
		if tl, err = w.mdtTimeline(ctx, t.Version); err != nil {
			return err
		}
	}
	var latest spec.InstantTime
	for _, in := range tl.Instants {
		if in.Action == spec.ActionDeltaCommit && in.IsCompleted() {
			latest = in.Time
		}
	}
	if latest == "" {
		return nil
	}
	if err := w.cleanIfNecessary(ctx, t, tl, latest); err != nil {
		return err
	}
	if tl, err = w.mdtTimeline(ctx, t.Version); err != nil {
		return err
	}
	ok, err := w.compactionAllowed(ctx, t, tl, latest)
	if err != nil {
		return err
	}
	if ok {
		if err := w.compactIfNecessary(ctx, t, tl, latest); err != nil {
			return err
		}
	}
	return w.archive(ctx, t)
}

// cleanIfNecessary cleans the metadata table at latest + "002" (cleanIfNecessary): not
// within the 3 instants that follow a compaction, which gives readers that opened the
// previous slice time to finish; KEEP_LATEST_COMMITS with min(the data table's
// hoodie.cleaner.commits.retained, 20) commits retained (HoodieMetadataWriteUtils).
//
// On layout 2 the clean takes a new instant time (serviceInstant; Hudi 1.x's
// writeClient.clean()).
func (w *Writer) cleanIfNecessary(ctx context.Context, t *table.Table, tl *timeline.Timeline, latest spec.InstantTime) error {
	if c, ok := lastCompactionOrReplace(tl); ok {
		after := 0
		for _, in := range tl.Instants {
			if in.IsCompleted() && c.Compare(in.Time) < 0 {
				after++
			}
		}
		if after < 3 {
			return nil
		}
	}
	inst := spec.InstantTime(string(latest) + suffixClean)
	if len(tl.At(inst)) > 0 && !tl.Layout.CompletionTimes() {
		return nil // cleaned at this instant already
	}
	// A clean deletes older file slices; while every file group has one slice (no
	// compaction since the last clean), the planner would find nothing, and a plan that
	// deletes nothing is never written. Skip the planning then: it is most commits.
	older := false
	partitions, err := w.partitions(ctx)
	if err != nil {
		return err
	}
	for _, partition := range partitions {
		listing, err := fsview.ListPartitionsIn(ctx, w.mst, []string{partition})
		if err != nil {
			return fmt.Errorf("metadata table: %w", err)
		}
		view, err := fsview.Build(ctx, listing, tl, fsview.Options{})
		if err != nil {
			return fmt.Errorf("metadata table: %w", err)
		}
		for _, g := range view.Groups {
			older = older || len(g.Slices) > 1
		}
	}
	if !older && len(tl.Filter(func(in timeline.Instant) bool { return in.Action == spec.ActionClean && !in.IsCompleted() })) == 0 {
		return nil
	}
	if tl.Layout.CompletionTimes() {
		dtl, err := t.LoadTimeline(ctx)
		if err != nil {
			return err
		}
		inst = w.serviceInstant(tl, dtl)
	}
	co := clean.Options{Policy: clean.KeepLatestCommits, CommitsRetained: min(w.o.CleanerCommitsRetained, metadataCleanerCommitsRetained),
		MaxCommits: 1, FailedWrites: string(commit.FailedWritesEager), Now: w.o.Now, TimelineZone: w.o.Zone, Logger: w.o.Logger, Instant: inst}
	if _, err := clean.Run(ctx, w.mst, co); err != nil {
		return fmt.Errorf("metadata table: clean: %w", err)
	}
	return nil
}

// lastCompactionOrReplace is the latest completed commit or replacecommit of the metadata
// table (getCommitAndReplaceTimeline().filterCompletedInstants().lastInstant()).
func lastCompactionOrReplace(tl *timeline.Timeline) (spec.InstantTime, bool) {
	var last spec.InstantTime
	for _, in := range tl.Instants {
		if in.IsCompleted() && (in.Action == spec.ActionCommit || in.Action == spec.ActionReplaceCommit) {
			last = in.Time
		}
	}
	return last, last != ""
}

// compactionAllowed is validateTimelineBeforeSchedulingCompaction: no data instant at or
// before the latest metadata deltacommit may be pending (a base file of the metadata
// table at time T must hold every data instant up to T; a pending one may still fail and
// be rolled back), and no compaction of the metadata table may be pending. While a data
// instant stays pending, more than hoodie.metadata.max.deltacommits.when_pending
// deltacommits since the last compaction is an error.
func (w *Writer) compactionAllowed(ctx context.Context, t *table.Table, tl *timeline.Timeline, latest spec.InstantTime) (bool, error) {
	dtl, err := t.LoadTimeline(ctx)
	if err != nil {
		return false, err
	}
	var pending []string
	for _, in := range dtl.Instants {
		if !in.IsCompleted() && in.Time.Compare(latest) <= 0 {
			pending = append(pending, fmt.Sprintf("%s %s", in.Time, in.Action))
		}
	}
	if len(pending) > 0 {
		if n := deltaCommitsSinceCompaction(tl); n > w.o.MaxDeltaCommitsWhenPending {
			return false, fmt.Errorf("metadata table's deltacommits exceeded %d: this is likely caused by a pending instant in the data table (%v). "+
				"Resolve the pending instant or adjust hoodie.metadata.max.deltacommits.when_pending", w.o.MaxDeltaCommitsWhenPending, pending)
		}
		return false, nil
	}
	return len(tl.PendingCompactions()) == 0, nil
}

// deltaCommitsSinceCompaction counts the metadata table's deltacommits (any state) after
// its latest completed compaction, or all of them (CompactionUtils
// .getDeltaCommitsSinceLatestCompaction, the count Java's NUM_COMMITS trigger compares).
func deltaCommitsSinceCompaction(tl *timeline.Timeline) int {
	c, _ := lastCompaction(tl)
	n := 0
	for _, in := range tl.Instants {
		if in.Action == spec.ActionDeltaCommit && (c == "" || c.Compare(in.Time) < 0) {
			n++
		}
	}
	return n
}

// compactIfNecessary schedules and runs a compaction of the metadata table at latest +
// "001" once hoodie.metadata.compact.max.delta.commits deltacommits happened since the last
// one (NUM_COMMITS), over every file slice with log files (UnBoundedCompactionStrategy).
//
// On layout 2 the compaction takes a new instant time (serviceInstant; Hudi 1.x's
// compactIfNecessary takes writeClient.createNewInstantTime unless a data instant pending
// on the data table completed on the metadata table, which compactionAllowed excludes here).
// A deltacommit that completes after it is requested falls into the new file slice by its
// completion time, so the plan holds the log files of completed deltacommits only.
func (w *Writer) compactIfNecessary(ctx context.Context, t *table.Table, tl *timeline.Timeline, latest spec.InstantTime) error {
	version := t.Version
	inst := spec.InstantTime(string(latest) + suffixCompaction)
	if len(tl.At(inst)) > 0 && !tl.Layout.CompletionTimes() {
		return nil // a compaction with this instant exists already (Java checks completed ones)
	}
	if deltaCommitsSinceCompaction(tl) < w.o.CompactDeltaCommits {
		return nil
	}
	if tl.Layout.CompletionTimes() {
		dtl, err := t.LoadTimeline(ctx)
		if err != nil {
			return err
		}
		inst = w.serviceInstant(tl, dtl)
	}
	plan := &commitmeta.CompactionPlan{Version: 2}
	partitions, err := w.partitions(ctx)
	if err != nil {
		return err
	}
	for _, partition := range partitions {
		slices, err := latestSlices(ctx, w.mst, tl, partition)
		if err != nil {
			return err
		}
		for _, sl := range slices {
			if len(sl.Logs) == 0 {
				continue
			}
			op := commitmeta.CompactionOperation{BaseInstantTime: string(sl.BaseInstant), FileID: string(sl.FileID), PartitionPath: sl.Partition}
			var logSize, baseSize int64
			for _, l := range sl.Logs {
				op.DeltaFilePaths = append(op.DeltaFilePaths, l.Name.String())
				logSize += l.Size
			}
			if sl.Base != nil {
				op.DataFilePath, baseSize = sl.Base.Name.String(), sl.Base.Size
			}
			readMB, writeMB := (baseSize+logSize)>>20, baseSize>>20
			op.Metrics = map[string]float64{compaction.MetricTotalIOReadMB: float64(readMB), compaction.MetricTotalIOWriteMB: float64(writeMB),
				compaction.MetricTotalIOMB: float64(readMB + writeMB), compaction.MetricTotalLogFilesSize: float64(logSize),
				compaction.MetricTotalLogFiles: float64(len(sl.Logs))}
			plan.Operations = append(plan.Operations, op)
		}
	}
	if len(plan.Operations) == 0 {
		return nil
	}
	body, err := compaction.EncodePlan(plan)
	if err != nil {
		return err
	}
	if err := w.timeline().RequestCompactionAt(ctx, tl, inst, body); err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	return w.compact(ctx, version, inst)
}

// compact executes the metadata table's pending compaction inst: each planned slice's
// records, merged as readers merge them (mdt.Table.ReadSlice), become one base HFile of
// the compaction instant; the compaction completes as a commit (compacted, COMPACT).
// A compaction killed earlier is run again from its plan: files it left are replaced.
func (w *Writer) compact(ctx context.Context, version spec.TableVersion, inst spec.InstantTime) error {
	tl, err := w.mdtTimeline(ctx, version)
	if err != nil {
		return err
	}
	in, ok := tl.Get(inst, spec.ActionCompaction)
	if !ok {
		return fmt.Errorf("metadata table: no pending compaction %s", inst)
	}
	b, err := tl.ReadRequested(ctx, w.mst, in)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	plan, err := commitmeta.DecodeCompactionPlan(b)
	if err != nil {
		return fmt.Errorf("metadata table: compaction plan %s: %w", inst, err)
	}
	reader, err := mdt.Open(ctx, w.st)
	if err != nil {
		return err
	}
	// The reader decides which log blocks count from its own view of the metadata
	// timeline; the compaction merges exactly the slices its plan names.
	ct := w.timeline()
	txn, err := ct.BeginCompaction(ctx, tl, in)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	defer txn.Close()
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, Compacted: true,
		ExtraMetadata: w.extraMetadata(tl), OperationType: "COMPACT"}
	for i, op := range plan.Operations {
		start := time.Now()
		sl := fsview.FileSlice{Partition: op.PartitionPath, FileID: spec.FileID(op.FileID), BaseInstant: spec.InstantTime(op.BaseInstantTime)}
		if op.DataFilePath != "" {
			bn, ok := spec.ParseBaseFileName(op.DataFilePath)
			if !ok {
				return fmt.Errorf("metadata table: compaction plan %s: base file %q", inst, op.DataFilePath)
			}
			sl.Base = &fsview.BaseFile{Name: bn, Path: storage.Join(op.PartitionPath, op.DataFilePath)}
		}
		var logSize int64
		for _, d := range op.DeltaFilePaths {
			ln, ok := spec.ParseLogFileName(d)
			if !ok {
				return fmt.Errorf("metadata table: compaction plan %s: log file %q", inst, d)
			}
			p := storage.Join(op.PartitionPath, d)
			fi, err := w.mst.Stat(ctx, p)
			if err != nil {
				return fmt.Errorf("metadata table: compaction %s: %w", inst, err)
			}
			logSize += fi.Size
			sl.Logs = append(sl.Logs, fsview.LogFile{Name: ln, Path: p, Size: fi.Size})
		}
		merged, err := reader.ReadSlice(ctx, sl)
		if err != nil {
			return fmt.Errorf("metadata table: compaction %s: %w", inst, err)
		}
		recs := make([]*mdt.Record, 0, len(merged))
		for _, r := range merged {
			recs = append(recs, r)
		}
		content, err := w.enc.BuildHFile(recs, mdt.BaseFile)
		if err != nil {
			return err
		}
		name := spec.BaseFileName{FileID: sl.FileID, WriteToken: logToken(i), Instant: inst, Extension: "hfile"}
		p := storage.Join(op.PartitionPath, name.String())
		if err := txn.Marker(ctx, op.PartitionPath, name.String(), commit.IOCreate); err != nil {
			return err
		}
		// A killed earlier run may have left the file: it is replaced.
		if err := w.mst.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return err
		}
		if err := writeNew(ctx, w.mst, p, content); err != nil {
			return fmt.Errorf("metadata table: compaction %s: %w", inst, err)
		}
		size, n := int64(len(content)), int64(len(recs))
		meta.PartitionToWriteStats[op.PartitionPath] = append(meta.PartitionToWriteStats[op.PartitionPath], commitmeta.WriteStat{
			FileID: op.FileID, Path: p, PrevCommit: op.BaseInstantTime, NumWrites: n, NumUpdateWrites: n,
			TotalWriteBytes: size, PartitionPath: op.PartitionPath, FileSizeInBytes: size,
			TotalLogFilesCompacted: int64(len(op.DeltaFilePaths)), TotalLogSizeCompacted: logSize,
			RuntimeStats: &commitmeta.RuntimeStats{TotalUpsertTime: time.Since(start).Milliseconds()},
		})
	}
	if err := txn.Complete(ctx, meta); err != nil {
		return fmt.Errorf("metadata table: complete compaction %s: %w", inst, err)
	}
	return nil
}

// archive archives the metadata table's timeline as Java's archiver does for a metadata
// table: with the data table's hoodie.keep.min/max.commits, keeping the deltacommits its
// compaction trigger counts, and no instant at or after the data table's earliest commit,
// deltacommit or replacecommit, nor its earliest pending instant
// (TimelineUtils.getEarliestInstantForMetadataArchival).
func (w *Writer) archive(ctx context.Context, t *table.Table) error {
	mt, err := table.Open(ctx, w.mst)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	ao := archive.Options{MinCommits: w.o.MinCommitsToKeep, MaxCommits: w.o.MaxCommitsToKeep, BatchSize: 10,
		CleanerPolicy: string(clean.KeepLatestCommits), CleanerCommitsRetained: min(w.o.CleanerCommitsRetained, metadataCleanerCommitsRetained),
		CompactTriggerStrategy: "NUM_COMMITS", CompactDeltaCommitMax: w.o.CompactDeltaCommits, TimelineZone: w.o.Zone, Logger: w.o.Logger}
	// A metadata archival killed between publishing its archive and removing the archived
	// instants left them in both places: finish that first, as the data table's archival
	// does, so none is archived twice.
	if mt, err = archive.FinishInterrupted(ctx, mt, ao); err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	p, err := archive.PlanArchive(ctx, mt, ao)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	if len(p.Instants) == 0 {
		return nil
	}
	dtl, err := t.LoadTimeline(ctx)
	if err != nil {
		return err
	}
	var bound spec.InstantTime
	for _, in := range dtl.Instants {
		if in.Action.IsDataAction() || !in.IsCompleted() {
			bound = in.Time
			break
		}
	}
	var keep []timeline.Instant
	for _, in := range p.Instants {
		if bound == "" || in.Time.Compare(bound) < 0 {
			keep = append(keep, in)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	p.Instants = keep
	if _, err := archive.Execute(ctx, mt, p, ao); err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	return nil
}

// partitions are the metadata table's partitions hoodie.properties lists as built: the
// ones its services work on.
func (w *Writer) partitions(ctx context.Context) ([]string, error) {
	cfg, err := table.LoadConfig(ctx, w.st)
	if err != nil {
		return nil, err
	}
	return cfg.MetadataPartitions(), nil
}
