package clean

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage"
)

// Schedule plans a clean and, when it deletes anything, writes <T>.clean.requested (Java
// 0.14 writes no plan that deletes nothing). It returns "" when there is nothing to clean.
func Schedule(ctx context.Context, st storage.Storage, o Options) (spec.InstantTime, *Selection, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return "", nil, err
	}
	if err := check(t); err != nil {
		return "", nil, err
	}
	if t, err = prepare(ctx, t, o); err != nil {
		return "", nil, err
	}
	return schedule(ctx, t, o)
}

func schedule(ctx context.Context, t *table.Table, o Options) (spec.InstantTime, *Selection, error) {
	o = o.withDefaults(t)
	sel, err := Plan(ctx, t, o)
	if err != nil {
		return "", nil, err
	}
	for _, p := range sel.Leftovers {
		if err := t.Storage.Delete(ctx, p); err != nil {
			return "", nil, fmt.Errorf("remove a dead writer's temp file: %w", err)
		}
	}
	if len(sel.Files) == 0 {
		return "", sel, nil
	}
	planSchema, _ := t.Timeline.Layout.CleanSchemas()
	body, err := commitmeta.EncodeCleanerPlanAs(sel.CleanerPlan(storage.URI(t.Storage, ""), planSchema != avroschema.CleanerPlan), planSchema)
	if err != nil {
		return "", nil, err
	}
	if o.Instant != "" {
		if err := o.timeline(t.Storage).RequestCleanAt(ctx, t.Timeline, o.Instant, body); err != nil {
			return "", nil, err
		}
		return o.Instant, sel, nil
	}
	inst, err := o.timeline(t.Storage).RequestClean(ctx, t.Timeline, body)
	if err != nil {
		return "", nil, err
	}
	return inst, sel, nil
}
