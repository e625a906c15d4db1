package write

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
)

// commitUnderLock publishes txn with meta: under the table lock (taken here under
// optimistic concurrency control; held since openForWrite in single-writer mode) it reads
// the timeline again, checks that the instant may still commit and resolves conflicts with
// what completed or was scheduled since start. A write that loses a conflict rolls its own
// instant back, so none of its rows stay, and fails with commit.ErrWriteConflict.
//
// The conflict check runs in single-writer mode too: there the lock keeps other writers
// out, so it only finds what a process not taking the same lock did (a Java writer, or an
// InProcessLockProvider across processes), and refusing is better than losing its rows.
func (w *writer) commitUnderLock(ctx context.Context, txn *commit.Txn, meta *commitmeta.CommitMetadata, start commit.WriteStart) error {
	release, err := w.o.timeline.Lock(ctx, "commit")
	if err != nil {
		return fmt.Errorf("commit instant %s: %w", txn.Instant, err)
	}
	defer release()
	tl, err := w.t.LoadTimeline(ctx)
	if err != nil {
		return err
	}
	if err := txn.CheckAlive(ctx, tl); err != nil {
		return err
	}
	conflict := commit.ResolveConflicts(ctx, w.t.Storage, tl, txn.Instant, commit.MutatedFileGroups(meta), start)
	if conflict == nil {
		return txn.Complete(ctx, meta)
	}
	if !errors.Is(conflict, commit.ErrWriteConflict) {
		return conflict
	}
	return abortConflict(ctx, txn, tl, conflict)
}

// abortConflict rolls back txn, which lost conflict, on tl read under the table lock.
func abortConflict(ctx context.Context, txn *commit.Txn, tl *timeline.Timeline, conflict error) error {
	rb, err := txn.Abort(ctx, tl)
	if err != nil {
		return fmt.Errorf("%w (and rolling it back failed: %v; the next writer or cleaner rolls it back)", conflict, err)
	}
	return fmt.Errorf("%w (rolled back by %s)", conflict, rb)
}

// abortEarlyConflict rolls back a write that early conflict detection stopped (conflict
// is commit.ErrEarlyConflict) before it wrote the conflicting file group: under the table
// lock, at once. Java leaves such an instant inflight for the cleaner to roll back once its
// heartbeat expires (LAZY); hudi-go rolls its own loser back now, as it does after a
// conflict at commit, so the write leaves none of its rows and no files behind.
func (w *writer) abortEarlyConflict(ctx context.Context, txn *commit.Txn, conflict error) error {
	release, err := w.o.timeline.Lock(ctx, "roll back after an early conflict")
	if err != nil {
		return fmt.Errorf("%w (and rolling it back failed: %v; the cleaner rolls it back)", conflict, err)
	}
	defer release()
	tl, err := w.t.LoadTimeline(ctx)
	if err != nil {
		return fmt.Errorf("%w (and rolling it back failed: %v; the cleaner rolls it back)", conflict, err)
	}
	return abortConflict(ctx, txn, tl, conflict)
}

// groups is the set of existing file groups the plan changes: those it merges into or
// appends to, writes with a fixed file id (bucket index), or replaces. New file groups
// have fresh ids and conflict with nothing.
func (pl *plan) groups() map[commit.FileGroup]bool {
	out := map[commit.FileGroup]bool{}
	for _, m := range pl.merges {
		out[commit.FileGroup{Partition: m.slice.Partition, FileID: string(m.slice.FileID)}] = true
	}
	for _, c := range pl.creates {
		if c.fileID != "" {
			out[commit.FileGroup{Partition: c.partition, FileID: string(c.fileID)}] = true
		}
	}
	for p, ids := range pl.replaced {
		for _, id := range ids {
			out[commit.FileGroup{Partition: p, FileID: string(id)}] = true
		}
	}
	return out
}

// profile is the write's workload profile as Java 0.14 saves it in the inflight file
// before writing (BaseCommitActionExecutor.saveWorkloadProfileMetadataToInflight), or nil
// for operations Java starts with an empty inflight file (bulk_insert). Per partition:
// first a stat with file id "" and prevCommit "null" counting the partition's inserts,
// then one stat per file group that receives updates or deletes, with the slice's base
// instant as prevCommit and their count as numUpdateWrites. This is Java's input profile
// (the one written for the SIMPLE, BLOOM and other indexes that cannot index log files):
// inserts routed into small files are not listed per file group.
func (pl *plan) profile(w *writer, op Operation) *commitmeta.CommitMetadata {
	if op == BulkInsert {
		return nil
	}
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{},
		ExtraMetadata: map[string]string{}, OperationType: w.operationType(op), Profile: true}
	if op == DeletePartition {
		return meta // Java profiles no records for delete_partition
	}
	inserts := map[string]int64{}
	type upd struct {
		id   spec.FileID
		prev spec.InstantTime
		n    int64
	}
	updates := map[string][]upd{}
	for _, m := range pl.merges {
		p := m.slice.Partition
		inserts[p] += int64(len(m.inserts))
		if n := len(m.changes); n > 0 {
			updates[p] = append(updates[p], upd{m.slice.FileID, m.slice.BaseInstant, int64(n)})
		}
		if _, ok := inserts[p]; !ok {
			inserts[p] = 0
		}
	}
	for _, c := range pl.creates {
		inserts[c.partition] += int64(c.size())
	}
	for p, n := range inserts {
		if n == 0 && len(updates[p]) == 0 {
			continue
		}
		stats := []commitmeta.WriteStat{{FileID: "", PrevCommit: commitmeta.NullCommit, NumInserts: n}}
		us := updates[p]
		sort.Slice(us, func(i, j int) bool { return us[i].id < us[j].id })
		for _, u := range us {
			stats = append(stats, commitmeta.WriteStat{FileID: string(u.id), PrevCommit: string(u.prev), NumUpdateWrites: u.n})
		}
		meta.PartitionToWriteStats[p] = stats
	}
	return meta
}
