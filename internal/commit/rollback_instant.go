package commit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// InstantRollback is the outcome of rolling back one instant.
type InstantRollback struct {
	// Instant is the rollback instant.
	Instant spec.InstantTime
	// Target is the rolled-back instant and Action its action as it was on the timeline
	// (a completed compaction is a commit).
	Target   spec.InstantTime
	Action   spec.Action
	Metadata *commitmeta.RollbackMetadata
}

// CommandBlockLogs counts the log files that received a rollback command block.
func (r *InstantRollback) CommandBlockLogs() int {
	n := 0
	for _, pm := range r.Metadata.PartitionMetadata {
		n += len(pm.RollbackLogFiles)
	}
	return n
}

// RollbackInstant rolls back one data instant of tl — a completed or pending commit,
// deltacommit, replacecommit or compaction — under a new rollback instant, publishing
// <rb>.rollback. Callers check the preconditions (no later instants, no savepoint); this
// is the mechanism only.
//
// The files come from listing, as Java's ListingBasedRollbackStrategy finds them for a
// completed instant (its markers are gone): every base file named with the instant, every
// log file whose base instant is the instant (a slice the instant opened), plus, for a
// deltacommit, a rollback command block on each older slice whose log it appended to
// (from its write stats when completed, from its APPEND markers when pending).
func (ct *Timeline) RollbackInstant(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (*InstantRollback, error) {
	return ct.rollbackInstant(ctx, tl, in, true)
}

// RollbackInstantAt is RollbackInstant under the given rollback instant time instead of a
// new one: the metadata table rolls back its deltacommit of a data instant under the data
// rollback's instant plus Java's rollback suffix ("006").
func (ct *Timeline) RollbackInstantAt(ctx context.Context, tl *timeline.Timeline, in timeline.Instant, rb spec.InstantTime) (*InstantRollback, error) {
	return ct.rollbackInstantAt(ctx, tl, in, rb, true)
}

func (ct *Timeline) rollbackInstant(ctx context.Context, tl *timeline.Timeline, in timeline.Instant, publish bool) (*InstantRollback, error) {
	return ct.rollbackInstantAt(ctx, tl, in, "", publish)
}

func (ct *Timeline) rollbackInstantAt(ctx context.Context, tl *timeline.Timeline, in timeline.Instant, rb spec.InstantTime, publish bool) (*InstantRollback, error) {
	if !in.Action.IsDataAction() {
		return nil, fmt.Errorf("instant %s is a %s: only commit, deltacommit, replacecommit and compaction instants can be rolled back", in.Time, in.Action)
	}
	w, err := filesOfInstant(ctx, ct.st, tl, in, ct.idleBefore())
	if err != nil {
		return nil, err
	}
	if rb == "" {
		rb = ct.NewInstantTime(tl)
	}
	meta, err := ct.runRollback(ctx, tl, rb, in.Time, in.Action, w, true, publish)
	if err != nil {
		return nil, err
	}
	return &InstantRollback{Instant: rb, Target: in.Time, Action: in.Action, Metadata: meta}, nil
}

// filesOfInstant finds what in wrote: see RollbackInstant.
func filesOfInstant(ctx context.Context, st storage.Storage, tl *timeline.Timeline, in timeline.Instant, idleBefore time.Time) (*written, error) {
	w, err := filesWrittenBy(ctx, st, in.Time, idleBefore)
	if err != nil {
		return nil, err
	}
	has := func(m map[string][]string, partition, name string) bool {
		for _, n := range m[partition] {
			if n == name {
				return true
			}
		}
		return false
	}
	listing, err := fsview.ListPartitions(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("list files of %s: %w", in.Time, err)
	}
	for _, p := range listing.Partitions {
		for _, f := range p.Files {
			lf, ok := spec.ParseLogFileName(f.Name)
			if !ok || lf.Instant != in.Time {
				continue
			}
			// The whole slice is the instant's (a log-only file group a deltacommit
			// created, or the slice of a compaction): the file goes, no command block.
			if !has(w.deletes, p.Path, f.Name) {
				w.deletes[p.Path] = append(w.deletes[p.Path], f.Name)
			}
			w.logs[p.Path] = remove(w.logs[p.Path], f.Name)
		}
	}
	if in.IsCompleted() && in.Action == spec.ActionDeltaCommit {
		body, err := tl.ReadCompleted(ctx, st, in)
		if err != nil {
			return nil, err
		}
		cm, err := commitmeta.Decode(body)
		if err != nil {
			return nil, fmt.Errorf("commit metadata of %s: %w", in.Time, err)
		}
		for partition, stat := range cm.WriteStats() {
			name := stat.Path[strings.LastIndexByte(stat.Path, '/')+1:]
			lf, ok := spec.ParseLogFileName(name)
			if !ok || lf.Instant == in.Time || has(w.logs, partition, name) {
				continue
			}
			w.logs[partition] = append(w.logs[partition], name)
		}
	}
	return w, nil
}

func remove(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// IsPendingClustering reports whether in is a pending clustering: an instant of the
// clustering action (layout 2), or a pending replacecommit whose requested plan is a
// clustering (as opposed to an insert_overwrite).
func IsPendingClustering(ctx context.Context, st storage.Storage, tl *timeline.Timeline, in timeline.Instant) (bool, error) {
	if in.IsCompleted() {
		return false, nil
	}
	if in.Action == spec.ActionClustering {
		return true, nil
	}
	if in.Action != spec.ActionReplaceCommit {
		return false, nil
	}
	return isClusteringPlan(ctx, st, tl, in)
}

// Reload lists tl's directory again.
func Reload(ctx context.Context, st storage.Storage, tl *timeline.Timeline) (*timeline.Timeline, error) {
	entries, err := st.List(ctx, tl.Dir)
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		return nil, fmt.Errorf("list timeline %s: %w", tl.Dir, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir {
			names = append(names, e.Name)
		}
	}
	return tl.Relist(names), nil
}
