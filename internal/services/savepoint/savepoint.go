// Package savepoint creates and deletes savepoints of a table-version-6 table and
// restores the table to one, as Java's SavepointActionExecutor, SavepointHelpers and
// RestorePlanActionExecutor/BaseRestoreActionExecutor do. A savepoint pins the data files
// of the latest file slices as of a completed commit (the cleaner keeps them); a restore
// rolls back every data instant after the savepoint, newest first, under one restore
// instant.
package savepoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Op is a savepoint operation.
type Op string

// Savepoint operations.
const (
	Create  Op = "create"
	Delete  Op = "delete"
	Restore Op = "restore"
)

// ParseOp accepts create, delete and restore.
func ParseOp(s string) (Op, error) {
	switch op := Op(s); op {
	case Create, Delete, Restore:
		return op, nil
	}
	return "", fmt.Errorf("savepoint operation %q: want create, delete or restore", s)
}

// Errors the caller can test for.
var (
	ErrNotFound    = errors.New("not found")
	ErrInvalid     = errors.New("cannot savepoint")
	ErrUnsupported = table.ErrUnsupportedWrite
)

// Options configure a savepoint operation.
type Options struct {
	// User and Comment go to savepointedBy and comments ("default" when empty, like the
	// Hudi CLI's defaults).
	User, Comment string
	Now           func() time.Time
	Location      *time.Location
	Logger        *slog.Logger
	// Metadata keeps the table's metadata table current (hoodie.metadata.enable; nil: the
	// operation deletes the metadata table, as Java does with it disabled).
	Metadata table.MetadataWriter
	// DryRun (restore only) lists the instants the restore would roll back and changes
	// nothing; a pending restore is not resumed.
	DryRun bool
}

// Result summarizes an operation (the CLI's --format json object).
type Result struct {
	// Instant is the savepoint's instant (create, delete) or the restore instant.
	Instant   string `json:"instant"`
	Action    string `json:"action"`
	Operation string `json:"operation"`
	// Savepoint is the savepointed instant.
	Savepoint string `json:"savepoint"`
	// FilesWritten counts command-block log files appended by a restore (MOR).
	FilesWritten int `json:"files_written,omitempty"`
	// InstantsRolledBack lists the instants a restore rolled back, in rollback order.
	InstantsRolledBack []string `json:"instants_rolled_back,omitempty"`
	FilesDeleted       int      `json:"files_deleted,omitempty"`
	// Partitions and Files count what a new savepoint pins.
	Partitions int `json:"partitions,omitempty"`
	Files      int `json:"files,omitempty"`
	// DryRun: InstantsRolledBack are what a restore would roll back; nothing changed.
	DryRun bool `json:"dry_run,omitempty"`
}

// Run performs op on the savepoint at instant of the table in st.
func Run(ctx context.Context, st storage.Storage, op Op, instant spec.InstantTime, o Options) (*Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := t.CheckLayoutWrites(timeline.OpSavepoint); err != nil {
		return nil, err
	}
	if !(op == Restore && o.DryRun) {
		if t, err = t.PrepareChangeFor(ctx, o.Now(), o.Logger, o.Metadata); err != nil {
			return nil, err
		}
	}
	if o.Location == nil {
		o.Location = t.Config.TimelineZone()
	}
	switch op {
	case Create, Delete:
		// Only the restore itself may run before a pending restore completes.
		if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, string(op)+" savepoint "+string(instant)); err != nil {
			return nil, err
		}
	}
	ct := commit.NewTimeline(st, commit.TimelineOptions{Now: o.Now, Zone: o.Location, Logger: o.Logger, Metadata: o.Metadata})
	switch op {
	case Create:
		return create(ctx, ct, t, instant, o)
	case Delete:
		return remove(ctx, ct, t, instant)
	case Restore:
		return restore(ctx, ct, t, instant, o)
	}
	return nil, fmt.Errorf("savepoint operation %q: want create, delete or restore", op)
}

// create validates as Java's SavepointActionExecutor: the instant is a completed
// commit/deltacommit/replacecommit, and not older than what the latest clean retains (the
// earliest commit to retain of a completed clean, of a pending clean's plan, or else the
// first completed commit), since older file versions may be gone.
func create(ctx context.Context, ct *commit.Timeline, t *table.Table, instant spec.InstantTime, o Options) (*Result, error) {
	tl := t.Timeline
	in, ok := tl.CompletedDataInstant(instant)
	if !ok {
		return nil, fmt.Errorf("could not savepoint %s: no completed commit, deltacommit or replacecommit at that time: %w", instant, ErrInvalid)
	}
	if sp, ok := tl.Get(instant, spec.ActionSavepoint); ok && sp.IsCompleted() {
		return nil, fmt.Errorf("instant %s is already savepointed: %w", instant, ErrInvalid)
	}
	retained, err := lastCommitRetained(ctx, t)
	if err != nil {
		return nil, err
	}
	if retained != "" && instant.Less(retained) {
		return nil, fmt.Errorf("could not savepoint %s: it is before the cleaner's lookup window (earliest retained commit %s): %w", instant, retained, ErrInvalid)
	}
	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	view, err := t.View(ctx, listing, in.Time)
	if err != nil {
		return nil, err
	}
	meta := &commitmeta.SavepointMetadata{SavepointedBy: orDefault(o.User), SavepointedAt: o.Now().UnixMilli(),
		Comments: orDefault(o.Comment), Partitions: map[string][]string{}, Version: commitmeta.SavepointMetadataVersion}
	files := 0
	for _, sl := range view.LatestSlices() {
		names := meta.Partitions[sl.Partition]
		if sl.Base != nil {
			names = append(names, sl.Base.Name.String())
		}
		for _, l := range sl.Logs {
			names = append(names, l.Name.String())
		}
		files += len(names) - len(meta.Partitions[sl.Partition])
		meta.Partitions[sl.Partition] = names
	}
	for p := range meta.Partitions {
		sort.Strings(meta.Partitions[p])
	}
	body, err := commitmeta.EncodeSavepointMetadata(meta)
	if err != nil {
		return nil, fmt.Errorf("savepoint %s: %w", instant, err)
	}
	if err := ct.CreateSavepoint(ctx, tl, instant, body); err != nil {
		return nil, err
	}
	return &Result{Instant: string(instant), Action: string(spec.ActionSavepoint), Operation: string(Create), Savepoint: string(instant),
		Partitions: len(meta.Partitions), Files: files}, nil
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

func lastCommitRetained(ctx context.Context, t *table.Table) (spec.InstantTime, error) {
	tl := t.Timeline
	var clean *timeline.Instant
	for i := range tl.Instants {
		if tl.Instants[i].Action == spec.ActionClean {
			clean = &tl.Instants[i]
		}
	}
	if clean == nil {
		if first := tl.DataInstants(); len(first) > 0 {
			return first[0].Time, nil
		}
		return "", nil
	}
	if clean.IsCompleted() {
		b, err := tl.ReadCompleted(ctx, t.Storage, *clean)
		if err != nil {
			return "", err
		}
		m, err := commitmeta.DecodeClean(b)
		if err != nil {
			return "", fmt.Errorf("clean %s: %w", clean.Time, err)
		}
		return spec.InstantTime(m.EarliestCommitToRetain), nil
	}
	b, err := tl.ReadRequested(ctx, t.Storage, *clean)
	if err != nil {
		return "", err
	}
	_, values, err := avro.ReadContainer(b)
	if err != nil || len(values) == 0 {
		return "", fmt.Errorf("cleaner plan %s: %v", clean.Time, err)
	}
	plan, _ := values[0].(map[string]any)
	e, _ := plan["earliestInstantToRetain"].(map[string]any)
	ts, _ := e["timestamp"].(string)
	return spec.InstantTime(ts), nil
}

// remove deletes a savepoint; a missing one is an error (Java only logs a warning, but
// a script that deletes a savepoint it misspelled should hear about it).
func remove(ctx context.Context, ct *commit.Timeline, t *table.Table, instant spec.InstantTime) (*Result, error) {
	if sp, ok := t.Timeline.Get(instant, spec.ActionSavepoint); !ok || !sp.IsCompleted() && !hasInflight(sp) {
		return nil, fmt.Errorf("no savepoint at %s: %w", instant, ErrNotFound)
	}
	if _, err := ct.DeleteSavepoint(ctx, t.Timeline, instant); err != nil {
		return nil, err
	}
	return &Result{Instant: string(instant), Action: string(spec.ActionSavepoint), Operation: string(Delete), Savepoint: string(instant)}, nil
}

func hasInflight(in timeline.Instant) bool {
	_, ok := in.File(spec.StateInflight)
	return ok
}

// restore restores the table to the savepoint at instant: the instants to roll back are
// chosen as Java 0.14's RestorePlanActionExecutor chooses them (pending clusterings after
// the savepoint first, then every commit, deltacommit, replacecommit and compaction after
// it in any state, newest first), then commit.Timeline.Restore executes them. A restore an earlier
// attempt left pending is finished first. Afterwards the last data instant must be the
// savepoint (Java's validateSavepointRestore).
func restore(ctx context.Context, ct *commit.Timeline, t *table.Table, instant spec.InstantTime, o Options) (*Result, error) {
	st := t.Storage
	tl := t.Timeline
	if sp, ok := tl.Get(instant, spec.ActionSavepoint); !ok || !sp.IsCompleted() {
		return nil, fmt.Errorf("no savepoint for instant %s: %w", instant, ErrNotFound)
	}
	// Java would fail half way, when the rollback of the later savepoint's commit refuses.
	for _, sp := range tl.Instants {
		if sp.Action == spec.ActionSavepoint && sp.IsCompleted() && instant.Less(sp.Time) {
			return nil, fmt.Errorf("savepoint %s is later than %s and would be rolled back: delete it first: %w", sp.Time, instant, ErrInvalid)
		}
	}
	res := &Result{Action: string(spec.ActionRestore), Operation: string(Restore), Savepoint: string(instant), InstantsRolledBack: []string{}}
	add := func(rs spec.InstantTime, m *commit.RestoreMetadata) {
		res.Instant = string(rs)
		res.InstantsRolledBack = append(res.InstantsRolledBack, m.InstantsToRollback...)
		for _, list := range m.Rollbacks {
			for _, rm := range list {
				res.FilesDeleted += int(rm.TotalFilesDeleted)
				for _, pm := range rm.PartitionMetadata {
					res.FilesWritten += len(pm.RollbackLogFiles)
				}
			}
		}
	}
	for _, in := range tl.Instants {
		if in.Action != spec.ActionRestore || in.IsCompleted() || o.DryRun {
			continue
		}
		m, err := ct.ResumeRestore(ctx, tl, in, instant)
		if err != nil {
			return nil, fmt.Errorf("finish pending restore %s: %w", in.Time, err)
		}
		add(in.Time, m)
		var err2 error
		if tl, err2 = commit.Reload(ctx, st, tl); err2 != nil {
			return nil, err2
		}
	}
	after := restoreOrder(tl, instant, t.Type == spec.MergeOnRead)
	var clustering, rest []timeline.Instant
	for i := len(tl.Instants) - 1; i >= 0; i-- {
		in := tl.Instants[i]
		if !isWrite(in) || !after(in) {
			continue
		}
		pc, err := commit.IsPendingClustering(ctx, st, tl, in)
		if err != nil {
			return nil, err
		}
		if pc {
			clustering = append(clustering, in)
		} else {
			rest = append(rest, in)
		}
	}
	todo := append(clustering, rest...)
	if o.DryRun {
		res.DryRun = true
		for _, in := range todo {
			res.InstantsRolledBack = append(res.InstantsRolledBack, string(in.Time))
		}
		return res, nil
	}
	if len(todo) > 0 || res.Instant == "" {
		rs, m, err := ct.Restore(ctx, tl, instant, todo)
		if err != nil {
			return nil, fmt.Errorf("restore to %s: %w", instant, err)
		}
		add(rs, m)
	}
	tl, err := commit.Reload(ctx, st, tl)
	if err != nil {
		return nil, err
	}
	var last spec.InstantTime
	for _, in := range tl.Instants {
		if in.IsCompleted() && in.Action.IsDataAction() || in.Action == spec.ActionCompaction {
			last = in.Time
		}
	}
	if last != instant {
		return res, fmt.Errorf("restore to %s finished but the last commit is %s", instant, last)
	}
	return res, nil
}

// restoreOrder returns whether an instant comes after the savepointed instant sp, so that
// restoring to sp rolls it back. On layout 1 that is a later instant time (Java 0.14). On
// layout 2 it is Hudi 1.x's RestoreInstantComparator against sp's completion time: a
// later completion time, a pending instant always (no completion time sorts last); on
// merge-on-read tables a commit or compaction by instant time instead, because the log
// files of deltacommits that completed before it belong to its base files.
func restoreOrder(tl *timeline.Timeline, sp spec.InstantTime, mor bool) func(timeline.Instant) bool {
	byTime := func(in timeline.Instant) bool { return sp.Less(in.Time) }
	if !tl.Layout.RestoreByCompletion() {
		return byTime
	}
	var done spec.InstantTime
	for _, in := range tl.At(sp) {
		if in.IsCompleted() && in.Action.IsDataAction() {
			done = in.Completion
		}
	}
	if done == "" {
		return byTime // no completed instant to compare with: the savepoint check fails later
	}
	return func(in timeline.Instant) bool {
		if mor && (in.Action == spec.ActionCommit || in.Action == spec.ActionCompaction) {
			return byTime(in)
		}
		if !in.IsCompleted() {
			return true
		}
		if in.Completion == done {
			return byTime(in)
		}
		return done.Less(in.Completion)
	}
}

// isWrite is Java's write timeline: commit, deltacommit, replacecommit, compaction, log
// compaction (and v8+ clustering), in any state.
func isWrite(in timeline.Instant) bool {
	return in.Action.IsDataAction() || in.Action == spec.ActionCompaction || in.Action == spec.ActionLogCompaction || in.Action == spec.ActionClustering
}
