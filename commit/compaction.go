package commit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// RequestCompaction schedules a compaction: it allocates an instant strictly greater than
// every instant on tl and creates <C>.compaction.requested holding the Avro plan
// (create-if-absent, so two schedulers never share an instant).
func RequestCompaction(ctx context.Context, st storage.Storage, tl *timeline.Timeline, plan []byte, now Clock, loc *time.Location) (spec.InstantTime, error) {
	return requestInstant(ctx, st, tl, spec.ActionCompaction, plan, now, loc, "request compaction")
}

// BeginCompaction starts (or restarts) executing the pending compaction instant: it takes
// the instant's heartbeat (refusing with ErrWriterAlive while another compactor's is
// live), creates the empty <C>.compaction.inflight if absent, and returns a Txn whose
// Complete publishes <C>.commit.
func BeginCompaction(ctx context.Context, st storage.Storage, tl *timeline.Timeline, in timeline.Instant, now Clock, hb HeartbeatOptions) (*Txn, error) {
	if now == nil {
		now = time.Now
	}
	if in.IsCompleted() || in.Action != spec.ActionCompaction {
		return nil, fmt.Errorf("instant %s %s is not a pending compaction", in.Time, in.Action)
	}
	if err := CheckNoPendingRestore(ctx, st, tl, "run compaction "+string(in.Time)); err != nil {
		return nil, err
	}
	alive, err := HeartbeatAlive(ctx, st, in.Time, now(), hb.withDefaults())
	if err != nil {
		return nil, err
	}
	if alive {
		return nil, fmt.Errorf("compaction %s: %w", in.Time, ErrWriterAlive)
	}
	_ = st.Delete(ctx, HeartbeatPath(in.Time))
	hbt, err := StartHeartbeat(ctx, st, in.Time, hb)
	if err != nil {
		return nil, err
	}
	if _, ok := in.File(spec.StateInflight); !ok {
		name := spec.InstantFileName{Instant: in.Time, Action: spec.ActionCompaction, State: spec.StateInflight}.FileName(tl.Layout)
		if err := writeFile(ctx, st, storage.Join(tl.Dir, name), nil); err != nil && !errors.Is(err, storage.ErrExist) {
			hbt.Stop()
			return nil, fmt.Errorf("mark compaction %s inflight: %w", in.Time, err)
		}
	}
	return &Txn{st: st, layout: tl.Layout, dir: tl.Dir, Instant: in.Time, Action: spec.ActionCommit, heartbeat: hbt}, nil
}

// requestInstant allocates an instant strictly greater than every instant on tl and
// creates its requested file for action with body, create-if-absent: a scheduler that
// loses the race to another process moves on to a later instant, so two never share one.
func requestInstant(ctx context.Context, st storage.Storage, tl *timeline.Timeline, action spec.Action, body []byte,
	now Clock, loc *time.Location, what string) (spec.InstantTime, error) {
	if now == nil {
		now = time.Now
	}
	if loc == nil {
		loc = time.Local
	}
	if err := CheckNoPendingRestore(ctx, st, tl, what); err != nil {
		return "", err
	}
	for attempt := 0; ; attempt++ {
		inst := NewInstantTime(tl, now(), loc)
		if attempt > 0 {
			lt, _ := inst.Time(loc)
			inst = spec.InstantTimeOf(lt.Add(time.Duration(attempt)*time.Millisecond), loc)
		}
		name := spec.InstantFileName{Instant: inst, Action: action, State: spec.StateRequested}.FileName(tl.Layout)
		err := writeFile(ctx, st, storage.Join(tl.Dir, name), body)
		if err == nil {
			return inst, nil
		}
		if !errors.Is(err, storage.ErrExist) || attempt >= 20 {
			return "", fmt.Errorf("%s %s: %w", what, inst, err)
		}
	}
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
