package archive

// Archival on timeline layout 2 (table versions 8 and 9) into the LSM timeline history, as
// Hudi 1.x's TimelineArchiverV2 chooses the instants (apache/hudi hudi-client-common
// .../timeline/versioning/v2/TimelineArchiverV2.java, with ArchivalUtils,
// ClusteringUtils.getEarliestInstantToRetainForClustering and
// getEarliestReplacedSavepointInClean, CompactionUtils) and LSMTimelineWriter writes them
// (timeline.WriteLSMFile, timeline.CompactAndCleanLSM):
//
//   - nothing is archived until there are more than hoodie.keep.max.commits completed
//     commits, deltacommits and replacecommits; then the oldest go, down to
//     hoodie.keep.min.commits, never at or after the earliest instant to retain — the
//     latest completed commit before the oldest pending write (commit, deltacommit,
//     replacecommit, compaction, log compaction, clustering), or that pending write; the
//     delta commits a MOR table keeps to trigger compaction by count; the first
//     replacecommit or clustering the last clean has not passed (or the earliest savepoint
//     that clean kept replaced files for) — nor at or after the first savepoint;
//   - completed cleans and rollbacks older than the last commit archived go with them
//     (unlike layout 1, which bounds cleans and rollbacks by count on their own);
//   - the keep bounds move up when the cleaner retains more: commits after its earliest
//     commit to retain plus two (layout 1: plus one);
//   - all of them, sorted by instant time, become one parquet file of layer 0; then their
//     timeline files are deleted (pending ones first, completed ones oldest first), then
//     the LSM timeline is compacted and cleaned.
//
// hoodie.commits.archival.batch sizes the log blocks of layout 1's archive files; Java's
// LSM writer does not use it (one file per archival), and neither does this.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// planLSM is PlanArchive for layout 2 (TimelineArchiverV2.getInstantsToArchive).
func planLSM(ctx context.Context, t *table.Table, o Options) (*Plan, error) {
	p := &Plan{}
	tl := t.Timeline
	commits := tl.Filter(func(in timeline.Instant) bool { return in.IsCompleted() && in.Action.IsDataAction() })
	p.MinToKeep, p.MaxToKeep = minMaxToKeepBy(commits, o, 2)
	cs, err := commitsToArchiveLSM(ctx, t, commits, p.MinToKeep, p.MaxToKeep, o)
	if err != nil {
		return nil, err
	}
	if len(cs) > 0 {
		last := cs[len(cs)-1].Time
		cs = append(cs, tl.Filter(func(in timeline.Instant) bool {
			return in.IsCompleted() && (in.Action == spec.ActionClean || in.Action == spec.ActionRollback) && in.Time.Less(last)
		})...)
		slices.SortStableFunc(cs, func(a, b timeline.Instant) int { return a.Time.Compare(b.Time) })
	}
	p.Instants = cs
	if len(p.Instants) == 0 {
		p.Message = "nothing to archive"
	}
	return p, nil
}

// commitsToArchiveLSM is TimelineArchiverV2.getCommitInstantsToArchive.
func commitsToArchiveLSM(ctx context.Context, t *table.Table, commits []timeline.Instant, minKeep, maxKeep int, o Options) ([]timeline.Instant, error) {
	if len(commits) <= maxKeep {
		return nil, nil
	}
	tl := t.Timeline
	var candidates []spec.InstantTime
	// 1. The latest completed commit before the oldest pending write, or that write.
	isWrite := func(a spec.Action) bool {
		switch a {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit, spec.ActionCompaction,
			spec.ActionLogCompaction, spec.ActionClustering:
			return true
		}
		return false
	}
	if pending := tl.Filter(func(in timeline.Instant) bool { return !in.IsCompleted() && isWrite(in.Action) }); len(pending) > 0 {
		oldest := pending[0].Time
		bound := oldest
		for i := len(commits) - 1; i >= 0; i-- {
			if commits[i].Time.Less(oldest) {
				bound = commits[i].Time
				break
			}
		}
		candidates = append(candidates, bound)
	}
	// 2. The delta commits a MOR table keeps to trigger its next compaction by count.
	if t.Type == spec.MergeOnRead {
		switch strings.ToUpper(o.CompactTriggerStrategy) {
		case "NUM_COMMITS", "NUM_AND_TIME":
			if in, ok := oldestToRetainForCompaction(tl, o.CompactDeltaCommitMax); ok {
				candidates = append(candidates, in)
			}
		}
	}
	// 3. Replacecommits and clusterings the cleaner has not passed.
	clustering, err := earliestToRetainForClusteringLSM(ctx, t, o)
	if err != nil {
		return nil, err
	}
	if clustering != "" {
		candidates = append(candidates, clustering)
	}
	var retain spec.InstantTime
	for _, c := range candidates {
		if retain == "" || c.Less(retain) {
			retain = c
		}
	}
	savepoints := map[spec.InstantTime]bool{}
	var firstSavepoint spec.InstantTime
	for _, in := range tl.Instants {
		if in.Action == spec.ActionSavepoint && in.IsCompleted() {
			savepoints[in.Time] = true
			if firstSavepoint == "" {
				firstSavepoint = in.Time
			}
		}
	}
	var out []timeline.Instant
	for _, c := range commits {
		if o.ArchiveBeyondSavepoint {
			if savepoints[c.Time] {
				continue
			}
		} else if firstSavepoint != "" && !c.Time.Less(firstSavepoint) {
			continue
		}
		if retain != "" && !c.Time.Less(retain) {
			continue
		}
		out = append(out, c)
	}
	if limit := len(commits) - minKeep; len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

// earliestToRetainForClusteringLSM is Hudi 1.x's
// ClusteringUtils.getEarliestInstantToRetainForClustering: with replacecommits or
// clusterings (any state) on the timeline, the first of them at or after the last
// completed clean's lower bound — the earliest savepoint for which that clean kept
// replaced files (getEarliestReplacedSavepointInClean), else the plan's
// earliestInstantToRetain, else the clean itself (KEEP_LATEST_FILE_VERSIONS) — or the
// first of them when there is no clean.
func earliestToRetainForClusteringLSM(ctx context.Context, t *table.Table, o Options) (spec.InstantTime, error) {
	tl := t.Timeline
	replaces := tl.Filter(func(in timeline.Instant) bool { return in.Action.CompletedAction() == spec.ActionReplaceCommit })
	if len(replaces) == 0 {
		return "", nil
	}
	cleans := tl.Filter(func(in timeline.Instant) bool { return in.Action == spec.ActionClean && in.IsCompleted() })
	if len(cleans) == 0 {
		return replaces[0].Time, nil
	}
	clean := cleans[len(cleans)-1]
	bound := clean.Time
	if _, ok := clean.File(spec.StateRequested); ok {
		b, err := tl.ReadRequested(ctx, t.Storage, clean)
		if err != nil {
			return "", err
		}
		plan, err := commitmeta.DecodeCleanerPlan(b)
		if err != nil {
			return "", fmt.Errorf("clean plan %s: %w", clean.Time, err)
		}
		ectr := ""
		if plan.EarliestInstantToRetain != nil {
			ectr = plan.EarliestInstantToRetain.Timestamp
		}
		switch sp := earliestReplacedSavepointInClean(tl, o, ectr, plan.ExtraMetadata); {
		case sp != "":
			bound = sp
		case ectr != "":
			bound = spec.InstantTime(ectr)
		}
	}
	for _, r := range replaces {
		if r.Time.Compare(bound) >= 0 {
			return r.Time, nil
		}
	}
	return "", nil
}

// earliestReplacedSavepointInClean: the earliest savepoint the clean plan names
// (savepointed_timestamps) when the clean retained files past it — the plan's earliest
// instant to retain is after it and a completed replacecommit lies between the two — so
// that a replacecommit whose replaced files a savepoint kept is not archived once the
// savepoint is deleted. Not for KEEP_LATEST_FILE_VERSIONS.
func earliestReplacedSavepointInClean(tl *timeline.Timeline, o Options, ectr string, extra map[string]string) spec.InstantTime {
	if strings.EqualFold(o.CleanerPolicy, "KEEP_LATEST_FILE_VERSIONS") || ectr == "" {
		return ""
	}
	var first string
	for _, s := range strings.Split(extra[commitmeta.SavepointedTimestampsKey], ",") {
		if s != "" && (first == "" || s < first) {
			first = s
		}
	}
	if first == "" || ectr <= first {
		return ""
	}
	for _, in := range tl.Instants {
		if in.IsCompleted() && in.Action == spec.ActionReplaceCommit && string(in.Time) >= first && string(in.Time) <= ectr {
			return spec.InstantTime(first)
		}
	}
	return ""
}

// lsmRow builds the LSM timeline row of an archived instant from its timeline files, as
// MetadataConversionUtils.createLSMTimelineInstant does: the completed file as metadata,
// and by the action it was requested as, the plan — a clean's plan, a compaction's or log
// compaction's plan, a replacecommit's or clustering's requested metadata overridden by
// its inflight metadata when that is not empty; none for the other actions. Empty files
// count as absent.
func lsmRow(ctx context.Context, st storage.Storage, in timeline.Instant) (timeline.LSMInstant, error) {
	read := func(s spec.State) ([]byte, error) {
		p, ok := in.File(s)
		if !ok {
			return nil, nil
		}
		b, err := st.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("archive instant %s: %w", in.Time, err)
		}
		if len(b) == 0 {
			return nil, nil
		}
		return b, nil
	}
	r := timeline.LSMInstant{Time: in.Time, Completion: in.Completion, Action: in.Action.CompletedAction()}
	var err error
	if r.Metadata, err = read(spec.StateCompleted); err != nil {
		return r, err
	}
	switch in.Requested {
	case spec.ActionClean, spec.ActionCompaction, spec.ActionLogCompaction:
		if r.Plan, err = read(spec.StateRequested); err == nil && r.Plan == nil && in.Requested == spec.ActionClean {
			r.Plan, err = read(spec.StateInflight)
		}
	case spec.ActionReplaceCommit, spec.ActionClustering:
		if r.Plan, err = read(spec.StateRequested); err != nil {
			return r, err
		}
		var inflight []byte
		if inflight, err = read(spec.StateInflight); inflight != nil {
			r.Plan = inflight
		}
	}
	return r, err
}

// executeLSM writes the plan's instants into the LSM timeline, removes them from the
// active timeline, then compacts and cleans the LSM timeline
// (TimelineArchiverV2.archiveIfRequired).
func executeLSM(ctx context.Context, t *table.Table, p *Plan, o Options, res *Result) error {
	rows := make([]timeline.LSMInstant, 0, len(p.Instants))
	for _, in := range p.Instants {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := lsmRow(ctx, t.Storage, in)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	dir := t.ArchiveDir()
	lo := timeline.LSMWriteOptions{Compression: o.Compression, Dictionary: o.Dictionary, CompactionBatch: o.TimelineCompactionBatch}
	path, size, written, err := timeline.WriteLSMFile(ctx, t.Storage, dir, rows, lo)
	if err != nil {
		return err
	}
	res.ArchiveFile = path
	if written {
		res.FilesWritten, res.Bytes = 1, size
	}
	ct := commit.NewTimeline(t.Storage, commit.TimelineOptions{Zone: o.TimelineZone, Logger: o.Logger})
	if err := ct.DeleteArchivedInstants(ctx, p.Instants); err != nil {
		return fmt.Errorf("instants archived to %s, but removing them from the active timeline failed: %w", path, err)
	}
	merged, err := timeline.CompactAndCleanLSM(ctx, t.Storage, dir, lo)
	res.FilesWritten += len(merged)
	if err != nil {
		return fmt.Errorf("instants archived to %s; compacting the archived timeline failed: %w", path, err)
	}
	return nil
}
