package commit

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// RequestClustering schedules a clustering: it allocates an instant strictly greater than
// every instant on tl and creates <C>.replacecommit.requested holding the Avro
// HoodieRequestedReplaceMetadata (operationType CLUSTER), create-if-absent so that two
// schedulers never share an instant. Table version 6 has no clustering action: Java 0.14
// names the instant a replacecommit from request to completion.
func (ct *Timeline) RequestClustering(ctx context.Context, tl *timeline.Timeline, plan []byte) (spec.InstantTime, error) {
	return ct.requestPlan(ctx, tl, spec.ActionReplaceCommit, plan, "request clustering")
}

// PendingClustering reports the pending replacecommits of tl that are clustering plans
// (operationType CLUSTER), oldest first. Insert-overwrite replacecommits are not listed.
func PendingClustering(ctx context.Context, st storage.Storage, tl *timeline.Timeline) ([]timeline.Instant, error) {
	var out []timeline.Instant
	for _, in := range tl.Instants {
		if in.IsCompleted() || in.Action != spec.ActionReplaceCommit {
			continue
		}
		ok, err := isClusteringPlan(ctx, st, tl, in)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, in)
		}
	}
	return out, nil
}

// BeginClustering starts executing the pending clustering instant in: it takes the
// instant's heartbeat (refusing with ErrWriterAlive while another executor's is live),
// creates the inflight file — empty, as Java 0.14's executeClustering transitions the
// requested replacecommit with no content — and returns a Txn whose Complete publishes
// <C>.replacecommit. An inflight file left by a killed run must be rolled back first
// (RollbackInflightClustering).
func (ct *Timeline) BeginClustering(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (*Txn, error) {
	if in.IsCompleted() || in.Action != spec.ActionReplaceCommit {
		return nil, fmt.Errorf("instant %s %s is not a pending clustering", in.Time, in.Action)
	}
	if err := CheckNoPendingRestore(ctx, ct.st, tl, "run clustering "+string(in.Time)); err != nil {
		return nil, err
	}
	if _, ok := in.File(spec.StateInflight); ok {
		return nil, fmt.Errorf("clustering %s is inflight from an earlier run: roll it back first", in.Time)
	}
	hbt, err := ct.takeHeartbeat(ctx, in, "clustering")
	if err != nil {
		return nil, err
	}
	if err := ct.put(ctx, tl, in.Time, spec.ActionReplaceCommit, spec.StateInflight, nil); err != nil {
		hbt.Stop()
		return nil, fmt.Errorf("mark clustering %s inflight: %w", in.Time, err)
	}
	return &Txn{ct: ct, tl: tl, Instant: in.Time, Action: spec.ActionReplaceCommit, heartbeat: hbt}, nil
}

// RollbackInflightClustering undoes a clustering run that died after going inflight, the
// way Java 0.14 does before re-executing a pending clustering (HoodieTable's
// rollbackInflightClustering): a rollback instant deletes the files the run wrote (found
// by its markers and by the instant in file names) and records HoodieRollbackMetadata,
// then the inflight file is removed. The requested plan stays, so the clustering is
// executed again from the start. It refuses with ErrWriterAlive while the run's heartbeat
// is live. It returns the rollback instant ("" when in was not inflight).
func (ct *Timeline) RollbackInflightClustering(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (spec.InstantTime, error) {
	if _, ok := in.File(spec.StateInflight); !ok || in.IsCompleted() {
		return "", nil
	}
	alive, err := HeartbeatAlive(ctx, ct.st, in.Time, ct.now(), ct.hb)
	if err != nil {
		return "", err
	}
	if alive {
		return "", fmt.Errorf("clustering %s has a live heartbeat (%s): %w", in.Time, HeartbeatPath(in.Time), ErrWriterAlive)
	}
	// executeRollback removes the target's timeline files it is shown; showing it only
	// the inflight file keeps the requested plan, which is what Java's
	// revertInstantFromInflightToRequested leaves behind.
	var names []string
	for _, n := range instantFileNames(tl) {
		if n != requestedName(tl, in) {
			names = append(names, n)
		}
	}
	view := timeline.FromFileNames(tl.Layout, tl.Dir, names)
	rb := ct.NewInstantTime(tl)
	if err := ct.executeRollback(ctx, view, rb, in.Time, spec.ActionReplaceCommit, true); err != nil {
		return "", fmt.Errorf("roll back inflight clustering %s: %w", in.Time, err)
	}
	// executeRollback deleted the inflight file; make sure even when the view lost it.
	if err := ct.remove(ctx, in, spec.StateInflight); err != nil {
		return rb, fmt.Errorf("revert clustering %s to requested: %w", in.Time, err)
	}
	return rb, nil
}

func requestedName(tl *timeline.Timeline, in timeline.Instant) string {
	return tl.Layout.FileName(spec.InstantFileName{Instant: in.Time, Action: in.Action, State: spec.StateRequested})
}
