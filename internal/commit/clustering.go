package commit

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// RequestClustering schedules a clustering: it allocates an instant strictly greater than
// every instant on tl and creates its requested file holding the Avro
// HoodieRequestedReplaceMetadata (operationType CLUSTER), create-if-absent so that two
// schedulers never share an instant. The action is the layout's (ClusteringAction):
// <C>.replacecommit.requested on table version 6, which has no clustering action (Java
// 0.14 names the instant a replacecommit from request to completion), and
// <C>.clustering.requested on versions 8 and 9 (Hudi 1.x, as in the fixture
// cow/v9_txns_simple_nometa).
func (ct *Timeline) RequestClustering(ctx context.Context, tl *timeline.Timeline, plan []byte) (spec.InstantTime, error) {
	return ct.requestPlan(ctx, tl, tl.Layout.ClusteringAction(), plan, "request clustering")
}

// PendingReplaceOrClustering reports whether in is a pending replacecommit (a clustering
// of table version 6, or an insert_overwrite) or a pending clustering (versions 8 and 9):
// Java's filterPendingReplaceOrClusteringTimeline.
func PendingReplaceOrClustering(in timeline.Instant) bool {
	return !in.IsCompleted() && (in.Action == spec.ActionReplaceCommit || in.Action == spec.ActionClustering)
}

// PendingClustering reports the pending clusterings of tl, oldest first: the instants of
// the clustering action (layout 2) and the pending replacecommits whose plan is a
// clustering (operationType CLUSTER; layout 1, or a table upgraded from it).
// Insert-overwrite replacecommits are not listed.
func PendingClustering(ctx context.Context, st storage.Storage, tl *timeline.Timeline) ([]timeline.Instant, error) {
	var out []timeline.Instant
	for _, in := range tl.Instants {
		ok, err := IsPendingClustering(ctx, st, tl, in)
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
// creates the inflight file of the instant's action — empty, as Java's executeClustering
// transitions the requested replacecommit (0.14) or clustering (1.x, the fixture
// cow/v9_txns_simple_nometa) with no content — and returns a Txn whose Complete publishes
// <C>.replacecommit (layout 2: <C>_<completion>.replacecommit). An inflight file left by
// a killed run must be rolled back first (RollbackInflightClustering).
func (ct *Timeline) BeginClustering(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (*Txn, error) {
	if !PendingReplaceOrClustering(in) {
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
	if err := ct.put(ctx, tl, in.Time, in.Action, spec.StateInflight, nil); err != nil {
		hbt.Stop()
		return nil, fmt.Errorf("mark clustering %s inflight: %w", in.Time, err)
	}
	return &Txn{ct: ct, tl: tl, Instant: in.Time, Action: in.Action, heartbeat: hbt}, nil
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
	view := tl.Relist(names)
	rb := ct.NewInstantTime(tl)
	// The plan names the instant by its pending action (replacecommit on layout 1,
	// clustering on layout 2), as Java's rollback of the inflight instant does.
	if err := ct.executeRollback(ctx, view, rb, in.Time, in.Action, true); err != nil {
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
