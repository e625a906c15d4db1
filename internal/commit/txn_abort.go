package commit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// CheckAlive verifies, on tl read under the table lock just before the commit, that the
// write may still commit: its instant is still pending (a cleaner did not roll it back)
// and its heartbeat did not expire (Java's HeartbeatUtils.abortIfHeartbeatExpired: a
// writer that stalled beyond the expiry may have been taken for dead).
func (t *Txn) CheckAlive(ctx context.Context, tl *timeline.Timeline) error {
	in, ok := tl.Get(t.Instant, t.Action)
	if !ok || in.IsCompleted() {
		return fmt.Errorf("instant %s %s is no longer pending on the timeline (it was rolled back as a failed write): the write cannot commit", t.Instant, t.Action)
	}
	fi, err := t.ct.st.Stat(ctx, HeartbeatPath(t.Instant))
	if errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("heartbeat of instant %s is gone (%s): the write was taken for dead and cannot commit", t.Instant, HeartbeatPath(t.Instant))
	}
	if err != nil {
		return fmt.Errorf("heartbeat of instant %s: %w", t.Instant, err)
	}
	if hb, age := t.ct.hb, t.ct.now().Sub(fi.ModTime); age > hb.Expiry() {
		return fmt.Errorf("heartbeat of instant %s expired: last beat %s ago, more than %s (hoodie.client.heartbeat.interval_in_ms x tolerable.misses); the write cannot commit",
			t.Instant, age.Round(time.Millisecond), hb.Expiry())
	}
	return nil
}

// Abort rolls back the write's own instant now (it lost a conflict, or may not commit),
// under a new rollback instant allocated on tl, which the caller read under the table
// lock. It returns the rollback instant.
func (t *Txn) Abort(ctx context.Context, tl *timeline.Timeline) (spec.InstantTime, error) {
	if t.heartbeat != nil {
		t.heartbeat.Stop()
	}
	t.done = true
	rb := t.ct.NewInstantTime(tl)
	if err := t.ct.executeRollback(ctx, tl, rb, t.Instant, t.Action.CompletedAction(), true); err != nil {
		return "", fmt.Errorf("roll back instant %s: %w", t.Instant, err)
	}
	return rb, nil
}
