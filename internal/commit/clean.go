package commit

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
)

// Clean instants move requested → inflight → completed like Java's CleanActionExecutor:
// <T>.clean.requested holds the plan, <T>.clean.inflight holds the same plan again (Java's
// transitionCleanRequestedToInflight is given the serialized plan), and <T>.clean holds
// the clean metadata. A clean takes no heartbeat: deleting the planned files is
// idempotent, so two cleaners finishing the same plan do no harm, and the first completed
// file wins.

// RequestClean schedules a clean: it allocates an instant strictly greater than every
// instant on tl and creates <T>.clean.requested holding the Avro plan (create-if-absent, so
// two schedulers never share an instant).
func (ct *Timeline) RequestClean(ctx context.Context, tl *timeline.Timeline, plan []byte) (spec.InstantTime, error) {
	return ct.requestPlan(ctx, tl, spec.ActionClean, plan, "request clean")
}

// RequestCleanAt schedules a clean at the given instant time (create-if-absent: ErrExist
// if the instant exists): the metadata table's cleans take its latest deltacommit's
// instant plus Java's clean suffix "002".
func (ct *Timeline) RequestCleanAt(ctx context.Context, tl *timeline.Timeline, inst spec.InstantTime, plan []byte) error {
	if err := ct.put(ctx, tl, inst, spec.ActionClean, spec.StateRequested, plan); err != nil {
		return fmt.Errorf("request clean %s: %w", inst, err)
	}
	return nil
}

// BeginClean marks the pending clean instant inflight, writing the plan into
// <T>.clean.inflight. An inflight file left by an interrupted run is kept as it is.
func (ct *Timeline) BeginClean(ctx context.Context, tl *timeline.Timeline, in timeline.Instant, plan []byte) error {
	if in.Action != spec.ActionClean || in.IsCompleted() {
		return fmt.Errorf("instant %s %s is not a pending clean", in.Time, in.Action)
	}
	if err := CheckNoPendingRestore(ctx, ct.st, tl, "run clean "+string(in.Time)); err != nil {
		return err
	}
	if _, ok := in.File(spec.StateInflight); ok {
		return nil
	}
	if err := ct.putOnce(ctx, tl, in.Time, spec.ActionClean, spec.StateInflight, plan); err != nil {
		return fmt.Errorf("mark clean %s inflight: %w", in.Time, err)
	}
	return nil
}

// CompleteClean publishes the clean: writing <T>.clean with the Avro clean metadata is its
// commit point. A completed file already there (another cleaner finished the same plan)
// is not an error.
func (ct *Timeline) CompleteClean(ctx context.Context, tl *timeline.Timeline, instant spec.InstantTime, meta []byte) error {
	if ct.meta != nil {
		// Java's CleanActionExecutor writes the metadata table before the completed clean.
		cm, err := commitmeta.DecodeClean(meta)
		if err != nil {
			return fmt.Errorf("complete clean %s: %w", instant, err)
		}
		if err := ct.updateMetadata(ctx, table.MetadataUpdate{Instant: instant, Clean: cm}); err != nil {
			return err
		}
	}
	if err := ct.putOnce(ctx, tl, instant, spec.ActionClean, spec.StateCompleted, meta); err != nil {
		return fmt.Errorf("complete clean %s: %w", instant, err)
	}
	// The clean is complete: a temp file of its requested/inflight/completed file is what
	// a killed attempt of it left.
	removeTempFiles(ctx, ct.st, tl.Dir, string(instant)+".")
	return nil
}

// RemoveEmptyClean deletes the files of a pending clean whose plan file is empty: Java
// does the same (deleteEmptyInstantIfExists) because such an instant has nothing to run.
func (ct *Timeline) RemoveEmptyClean(ctx context.Context, in timeline.Instant) error {
	if err := ct.remove(ctx, in, spec.StateInflight, spec.StateRequested); err != nil {
		return fmt.Errorf("remove empty clean instant %s: %w", in.Time, err)
	}
	return nil
}

// RollbackExpiredWrites is the cleaner's half of Hudi's LAZY failed-writes policy: it rolls
// back every pending data write whose heartbeat has expired, and leaves pending writes
// with a live heartbeat alone (their writers are running). Unlike RollbackFailedWrites
// (EAGER) a live writer is not an error. Pending compactions and clusterings are plans of
// table services, not failed writes, and stay. Interrupted rollbacks are finished first.
func (ct *Timeline) RollbackExpiredWrites(ctx context.Context, tl *timeline.Timeline) ([]spec.InstantTime, error) {
	var expired []timeline.Instant
	for _, in := range tl.Instants {
		if in.IsCompleted() || !isWriteAction(in) {
			continue
		}
		if in.Action == spec.ActionReplaceCommit {
			clustering, err := isClusteringPlan(ctx, ct.st, tl, in)
			if err != nil {
				return nil, err
			}
			if clustering {
				continue
			}
		}
		alive, err := HeartbeatAlive(ctx, ct.st, in.Time, ct.now(), ct.hb)
		if err != nil {
			return nil, err
		}
		if !alive {
			expired = append(expired, in)
		}
	}
	// Only expired writes are handed to the EAGER routine, through a timeline that holds
	// no other pending write, so a live writer is never reached.
	names := []string{}
	skip := map[spec.InstantTime]bool{}
	for _, in := range tl.Instants {
		if !in.IsCompleted() && isWriteAction(in) {
			skip[in.Time] = true
		}
	}
	for _, in := range expired {
		skip[in.Time] = false
	}
	for _, in := range tl.Instants {
		if skip[in.Time] && !in.IsCompleted() && isWriteAction(in) {
			continue
		}
		for s := spec.StateRequested; s <= spec.StateCompleted; s++ {
			if p, ok := in.File(s); ok {
				names = append(names, p[len(tl.Dir)+1:])
			}
		}
	}
	// NewInstantTime must still exceed every instant, live ones included.
	if n := len(tl.Instants); n > 0 {
		last := tl.Instants[n-1]
		if skip[last.Time] {
			names = append(names, tl.Layout.FileName(spec.InstantFileName{Instant: last.Time, Action: spec.ActionClean, State: spec.StateCompleted}))
		}
	}
	filtered := tl.Relist(names)
	return ct.RollbackFailedWrites(ctx, filtered)
}
