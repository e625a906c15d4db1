// Package rollback is the user-driven rollback of a table-version-6 instant: a completed
// or pending commit, deltacommit, replacecommit or compaction is undone under a rollback
// instant, the way Java's BaseRollbackActionExecutor validates and
// ListingBasedRollbackStrategy plans it (a completed instant has no markers). COW: the
// base files the instant wrote go, so an older version of a rewritten file group is the
// latest again. MOR: base files and slices the instant opened go, logs it appended to get
// a rollback command block. replacecommit: its new files go and the replaced groups are
// visible again.
package rollback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Errors the caller can test for.
var (
	// ErrNotFound: no data instant at the given time.
	ErrNotFound = errors.New("no such instant")
	// ErrLaterInstants: instants after the target exist (Java: "Found commits after time").
	ErrLaterInstants = errors.New("later instants exist")
	// ErrSavepointed: the target is savepointed or older than a savepoint.
	ErrSavepointed = errors.New("savepoint in the way")
	// ErrUnsupported: the table is not one hudi-go writes.
	ErrUnsupported = table.ErrUnsupportedWrite
)

// Options configure a rollback.
type Options struct {
	// IncludeLater rolls back every later data instant first, newest first, instead of
	// refusing.
	IncludeLater bool
	// DryRun plans the rollback (the instants, in order) and changes nothing.
	DryRun bool
	// Now replaces the clock (tests); Location is the timeline time zone.
	Now      func() time.Time
	Location *time.Location
	Logger   *slog.Logger
	// Metadata keeps the table's metadata table current (hoodie.metadata.enable; nil: the
	// operation deletes the metadata table, as Java does with it disabled).
	Metadata table.MetadataWriter
}

// Result summarizes a rollback (the CLI's --format json object).
type Result struct {
	// Instant is the rollback instant of the requested target (the last one written).
	Instant   string `json:"instant"`
	Action    string `json:"action"`
	Operation string `json:"operation"`
	// FilesWritten counts the command-block log files appended (MOR).
	FilesWritten int `json:"files_written"`
	// InstantsRolledBack lists the rolled-back instants in rollback order.
	InstantsRolledBack []string `json:"instants_rolled_back"`
	FilesDeleted       int      `json:"files_deleted"`
	// Rollbacks holds one rollback instant per rolled-back instant.
	Rollbacks []Step `json:"rollbacks,omitempty"`
	// DryRun: InstantsRolledBack are the instants a rollback would undo; nothing changed.
	DryRun bool `json:"dry_run,omitempty"`
}

// Step is the rollback of one instant.
type Step struct {
	Rollback     string `json:"rollback"`
	Target       string `json:"target"`
	Action       string `json:"action"`
	FilesDeleted int    `json:"files_deleted"`
	FilesWritten int    `json:"files_written"`
}

// Run rolls back instant target of the table in st.
func Run(ctx context.Context, st storage.Storage, target spec.InstantTime, o Options) (*Result, error) {
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
	if err := t.CheckLayoutWrites(timeline.OpRollback); err != nil {
		return nil, err
	}
	if !o.DryRun {
		if t, err = t.PrepareChangeFor(ctx, o.Now(), o.Logger, o.Metadata); err != nil {
			return nil, err
		}
	}
	if o.Location == nil {
		o.Location = TimelineZone(t)
	}
	if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, "roll back "+string(target)); err != nil && !o.DryRun {
		return nil, err
	}
	ct := commit.NewTimeline(st, commit.TimelineOptions{Now: o.Now, Zone: o.Location, Logger: o.Logger, Metadata: o.Metadata})
	if o.DryRun {
		todo, err := Plan(ctx, st, t.Timeline, target, o.IncludeLater, o.Now())
		if err != nil {
			return nil, err
		}
		res := &Result{Action: string(spec.ActionRollback), Operation: "rollback", InstantsRolledBack: []string{}, DryRun: true}
		for _, in := range todo {
			res.InstantsRolledBack = append(res.InstantsRolledBack, string(in.Time))
			res.Rollbacks = append(res.Rollbacks, Step{Target: string(in.Time), Action: string(in.Action)})
		}
		return res, nil
	}
	// A rollback killed earlier is finished before anything is decided on the timeline.
	if _, err := ct.FinishPendingRollbacks(ctx, t.Timeline); err != nil {
		return nil, err
	}
	tl, err := commit.Reload(ctx, st, t.Timeline)
	if err != nil {
		return nil, err
	}
	todo, err := Plan(ctx, st, tl, target, o.IncludeLater, o.Now())
	if err != nil {
		return nil, err
	}
	res := &Result{Action: string(spec.ActionRollback), Operation: "rollback", InstantsRolledBack: []string{}}
	for _, in := range todo {
		if tl, err = commit.Reload(ctx, st, tl); err != nil {
			return res, err
		}
		cur, ok := findInstant(tl, in.Time)
		if !ok {
			continue
		}
		r, err := ct.RollbackInstant(ctx, tl, cur)
		if err != nil {
			return res, fmt.Errorf("roll back %s %s: %w", cur.Action, cur.Time, err)
		}
		step := Step{Rollback: string(r.Instant), Target: string(r.Target), Action: string(r.Action),
			FilesDeleted: int(r.Metadata.TotalFilesDeleted), FilesWritten: r.CommandBlockLogs()}
		res.Rollbacks = append(res.Rollbacks, step)
		res.InstantsRolledBack = append(res.InstantsRolledBack, step.Target)
		res.FilesDeleted += step.FilesDeleted
		res.FilesWritten += step.FilesWritten
		res.Instant = step.Rollback
		o.Logger.Info("rolled back", "instant", r.Target, "action", r.Action, "rollback", r.Instant)
	}
	return res, nil
}

// TimelineZone is the table's timeline time zone (hoodie.table.timeline.timezone).
func TimelineZone(t *table.Table) *time.Location {
	return t.Config.TimelineZone()
}

// Plan validates a rollback of target and returns the instants to roll back, newest
// first, ending with target. It refuses, as Java's rollback validation does, to roll back
// a savepointed instant, and when later data instants exist (completed ones: "Found
// commits after time"; pending ones too, which Java refuses for inflight commits and
// which for a pending compaction or clustering would otherwise fold the rolled-back data
// into a new base file) unless includeLater. It also refuses an instant older than the
// latest savepoint, which rolling back would have to remove, and pending instants whose
// writer is still running (live heartbeat).
func Plan(ctx context.Context, st storage.Storage, tl *timeline.Timeline, target spec.InstantTime, includeLater bool, now time.Time) ([]timeline.Instant, error) {
	in, ok := findInstant(tl, target)
	if !ok {
		return nil, fmt.Errorf("instant %s: no commit, deltacommit, replacecommit or compaction at that time on the active timeline: %w", target, ErrNotFound)
	}
	for _, sp := range tl.Instants {
		if sp.Action != spec.ActionSavepoint || !sp.IsCompleted() {
			continue
		}
		if sp.Time == target {
			return nil, fmt.Errorf("could not roll back savepointed instant %s; delete the savepoint first: %w", target, ErrSavepointed)
		}
		if target.Less(sp.Time) {
			return nil, fmt.Errorf("instant %s is older than savepoint %s; restore to the savepoint, or delete it first: %w", target, sp.Time, ErrSavepointed)
		}
	}
	var later []timeline.Instant
	for _, x := range tl.Instants {
		if isRollbackable(x) && target.Less(x.Time) {
			later = append(later, x)
		}
	}
	if len(later) > 0 && !includeLater {
		names := make([]string, 0, len(later))
		for _, x := range later {
			state := "completed"
			if !x.IsCompleted() {
				state = x.State.String()
			}
			names = append(names, fmt.Sprintf("%s %s (%s)", x.Time, x.Action, state))
		}
		return nil, fmt.Errorf("found instants after %s: %s; roll back the later instants first (or pass --include-later): %w",
			target, strings.Join(names, ", "), ErrLaterInstants)
	}
	todo := make([]timeline.Instant, 0, len(later)+1)
	for i := len(later) - 1; i >= 0; i-- {
		todo = append(todo, later[i])
	}
	todo = append(todo, in)
	for _, x := range todo {
		if x.IsCompleted() {
			continue
		}
		alive, err := commit.HeartbeatAlive(ctx, st, x.Time, now, commit.HeartbeatOptions{})
		if err != nil {
			return nil, err
		}
		if alive {
			return nil, fmt.Errorf("pending %s %s has a live heartbeat (%s): %w", x.Action, x.Time, commit.HeartbeatPath(x.Time), commit.ErrWriterAlive)
		}
	}
	return todo, nil
}

// isRollbackable: the write timeline of Java (commit, deltacommit, replacecommit,
// compaction, log compaction, clustering) in any state.
func isRollbackable(in timeline.Instant) bool {
	return in.Action.IsDataAction() || in.Action == spec.ActionCompaction || in.Action == spec.ActionLogCompaction || in.Action == spec.ActionClustering
}

func findInstant(tl *timeline.Timeline, t spec.InstantTime) (timeline.Instant, bool) {
	for _, in := range tl.At(t) {
		if isRollbackable(in) {
			return in, true
		}
	}
	return timeline.Instant{}, false
}
