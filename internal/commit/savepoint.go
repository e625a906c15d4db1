package commit

import (
	"context"
	"errors"
	"fmt"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// CreateSavepoint publishes a savepoint of the completed instant t with the encoded
// HoodieSavepointMetadata body: an empty <t>.savepoint.inflight, then <t>.savepoint,
// Java's two steps (a savepoint has no requested state). Callers validate t.
func (ct *Timeline) CreateSavepoint(ctx context.Context, tl *timeline.Timeline, t spec.InstantTime, body []byte) error {
	if err := ct.putOnce(ctx, tl, t, spec.ActionSavepoint, spec.StateInflight, nil); err != nil {
		return fmt.Errorf("savepoint %s inflight: %w", t, err)
	}
	if err := ct.put(ctx, tl, t, spec.ActionSavepoint, spec.StateCompleted, body); err != nil {
		if errors.Is(err, storage.ErrExist) {
			return fmt.Errorf("savepoint %s already exists: %w", t, err)
		}
		return fmt.Errorf("complete savepoint %s: %w", t, err)
	}
	return nil
}

// DeleteSavepoint removes the savepoint at t in Java's order (revert the completed file
// to inflight, then delete the inflight), so a crash in between leaves a pending
// savepoint, which protects nothing and is deleted by the next attempt. It reports
// whether a savepoint was there.
func (ct *Timeline) DeleteSavepoint(ctx context.Context, tl *timeline.Timeline, t spec.InstantTime) (bool, error) {
	in, ok := tl.Get(t, spec.ActionSavepoint)
	if !ok {
		return false, nil
	}
	if err := ct.remove(ctx, in, newestFirst...); err != nil {
		return true, fmt.Errorf("delete savepoint %s: %w", t, err)
	}
	return true, nil
}
