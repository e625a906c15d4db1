package clean

import (
	"context"
	"sort"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage"
)

// DryRun reports what Run would delete now — the files of pending clean plans and of a
// new plan — and changes nothing (no rollback, no timeline file, no deletion).
func DryRun(ctx context.Context, st storage.Storage, o Options) (*Result, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := check(t); err != nil {
		return nil, err
	}
	o = o.withDefaults(t)
	if err := o.validate(); err != nil {
		return nil, err
	}
	res := newResult()
	res.Policy, res.DryRun = string(o.Policy), true
	seen := map[string]bool{}
	addFile := func(rel string, size int64) {
		if !seen[rel] {
			seen[rel] = true
			res.Files = append(res.Files, rel)
			res.FilesDeleted++
			res.BytesDeleted += size
		}
	}
	for _, in := range t.Timeline.Instants {
		if in.Action != spec.ActionClean || in.IsCompleted() {
			continue
		}
		_, plan, err := readPlan(ctx, t, in)
		if err != nil || plan == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		for part, files := range plan.FilePathsToBeDeletedPerPartition {
			for _, f := range files {
				rel := planFile(part, f.FilePath)
				if fi, err := st.Stat(ctx, rel); err == nil {
					addFile(rel, fi.Size)
				}
			}
		}
	}
	need, err := needsCleaning(ctx, t, o)
	if err != nil {
		return nil, err
	}
	if need {
		sel, err := Plan(ctx, t, o)
		if err != nil {
			return nil, err
		}
		if sel.EarliestInstantToRetain != nil {
			res.EarliestInstantToRetain = sel.EarliestInstantToRetain.Timestamp
		}
		for _, f := range sel.Files {
			addFile(f.Path, f.Size)
		}
		if len(sel.Files) > 0 {
			res.PartitionsDeleted = sel.PartitionsToDelete
		}
	}
	sort.Strings(res.Files)
	if len(res.Files) == 0 {
		res.Message = "nothing to clean"
	}
	return res, nil
}
