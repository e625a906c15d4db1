package commit

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// RequestCompaction schedules a compaction: it allocates an instant strictly greater than
// every instant on tl and creates <C>.compaction.requested holding the Avro plan
// (create-if-absent, so two schedulers never share an instant).
func (ct *Timeline) RequestCompaction(ctx context.Context, tl *timeline.Timeline, plan []byte) (spec.InstantTime, error) {
	return ct.requestPlan(ctx, tl, spec.ActionCompaction, plan, "request compaction")
}

// RequestCompactionAt schedules a compaction at the given instant time (create-if-absent:
// ErrExist if the instant exists): the metadata table's compactions take its latest
// deltacommit's instant plus Java's compaction suffix "001".
func (ct *Timeline) RequestCompactionAt(ctx context.Context, tl *timeline.Timeline, inst spec.InstantTime, plan []byte) error {
	if err := ct.put(ctx, tl, inst, spec.ActionCompaction, spec.StateRequested, plan); err != nil {
		return fmt.Errorf("request compaction %s: %w", inst, err)
	}
	return nil
}

// BeginCompaction starts (or restarts) executing the pending compaction instant: it takes
// the instant's heartbeat (refusing with ErrWriterAlive while another compactor's is
// live), creates the empty <C>.compaction.inflight if absent, and returns a Txn whose
// Complete publishes <C>.commit.
func (ct *Timeline) BeginCompaction(ctx context.Context, tl *timeline.Timeline, in timeline.Instant) (*Txn, error) {
	if in.IsCompleted() || in.Action != spec.ActionCompaction {
		return nil, fmt.Errorf("instant %s %s is not a pending compaction", in.Time, in.Action)
	}
	if err := CheckNoPendingRestore(ctx, ct.st, tl, "run compaction "+string(in.Time)); err != nil {
		return nil, err
	}
	hbt, err := ct.takeHeartbeat(ctx, in, "compaction")
	if err != nil {
		return nil, err
	}
	if _, ok := in.File(spec.StateInflight); !ok {
		if err := ct.putOnce(ctx, tl, in.Time, spec.ActionCompaction, spec.StateInflight, nil); err != nil {
			hbt.Stop()
			return nil, fmt.Errorf("mark compaction %s inflight: %w", in.Time, err)
		}
	}
	return &Txn{ct: ct, tl: tl, Instant: in.Time, Action: spec.ActionCommit, heartbeat: hbt}, nil
}

// takeHeartbeat takes over the heartbeat of the pending table-service instant in (what
// names it), refusing with ErrWriterAlive while another executor's heartbeat is live: the
// stale file of a dead executor is replaced by a running one of this process.
func (ct *Timeline) takeHeartbeat(ctx context.Context, in timeline.Instant, what string) (*Heartbeat, error) {
	alive, err := HeartbeatAlive(ctx, ct.st, in.Time, ct.now(), ct.hb)
	if err != nil {
		return nil, err
	}
	if alive {
		return nil, fmt.Errorf("%s %s: %w", what, in.Time, ErrWriterAlive)
	}
	_ = ct.st.Delete(ctx, HeartbeatPath(in.Time))
	return startHeartbeat(ctx, ct.st, in.Time, ct.hb)
}

// requestPlan allocates an instant strictly greater than every instant on tl and creates
// its requested file for action with the plan in body (see request), unless a restore is
// pending.
func (ct *Timeline) requestPlan(ctx context.Context, tl *timeline.Timeline, action spec.Action, body []byte, what string) (spec.InstantTime, error) {
	if err := CheckNoPendingRestore(ctx, ct.st, tl, what); err != nil {
		return "", err
	}
	inst, _, err := ct.request(ctx, tl, action, body, what, false)
	return inst, err
}

// PendingCompactionGroups maps "partition/fileID" of every file group planned by a pending
// compaction (requested or inflight; log compactions included unless plainOnly) to the
// compaction's instant. Writers name new logs of such groups after it; compaction and
// clustering planners leave the groups out.
func PendingCompactionGroups(ctx context.Context, st storage.Storage, tl *timeline.Timeline, plainOnly bool) (map[string]spec.InstantTime, error) {
	out := map[string]spec.InstantTime{}
	for _, in := range tl.PendingCompactions() {
		if plainOnly && in.Action != spec.ActionCompaction {
			continue
		}
		b, err := tl.ReadRequested(ctx, st, in)
		if err != nil {
			return nil, fmt.Errorf("pending compaction %s: %w", in.Time, err)
		}
		plan, err := commitmeta.DecodeCompactionPlan(b)
		if err != nil {
			return nil, fmt.Errorf("compaction plan %s: %w", in.Time, err)
		}
		for _, op := range plan.Operations {
			out[op.PartitionPath+"/"+op.FileID] = in.Time
		}
	}
	return out, nil
}
