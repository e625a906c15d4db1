package commit

import (
	"context"
	"errors"
	"fmt"

	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// CreateSavepoint publishes a savepoint of the completed instant t with the encoded
// HoodieSavepointMetadata body: an empty <t>.savepoint.inflight, then <t>.savepoint,
// Java's two steps (a savepoint has no requested state). Callers validate t.
func CreateSavepoint(ctx context.Context, st storage.Storage, tl *timeline.Timeline, t spec.InstantTime, body []byte) error {
	inflight := spec.InstantFileName{Instant: t, Action: spec.ActionSavepoint, State: spec.StateInflight}.FileName(tl.Layout)
	if err := writeFile(ctx, st, storage.Join(tl.Dir, inflight), nil); err != nil && !errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("savepoint %s inflight: %w", t, err)
	}
	completed := spec.InstantFileName{Instant: t, Action: spec.ActionSavepoint, State: spec.StateCompleted}.FileName(tl.Layout)
	if err := writeFile(ctx, st, storage.Join(tl.Dir, completed), body); err != nil {
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
func DeleteSavepoint(ctx context.Context, st storage.Storage, tl *timeline.Timeline, t spec.InstantTime) (bool, error) {
	in, ok := tl.Get(t, spec.ActionSavepoint)
	if !ok {
		return false, nil
	}
	for s := spec.StateCompleted; s >= spec.StateRequested; s-- {
		if p, ok := in.File(s); ok {
			if err := st.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) {
				return true, fmt.Errorf("delete savepoint file %s: %w", p, err)
			}
		}
	}
	return true, nil
}
