package clean

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Execute runs every pending clean, oldest first (including one a killed run left
// inflight), and returns one result per clean completed.
func Execute(ctx context.Context, st storage.Storage, o Options) ([]*Result, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := check(t); err != nil {
		return nil, err
	}
	if t, err = prepare(ctx, t, o); err != nil {
		return nil, err
	}
	out, _, err := executePending(ctx, t, o.withDefaults(t))
	return out, err
}

// executePending completes the pending cleans of t's timeline, as Execute does, on a
// table the caller has just opened (Run after a commit: one listing of .hoodie instead
// of one per step). touched reports whether there was any pending clean (completed or,
// when it had no plan, removed): then t's timeline is stale.
func executePending(ctx context.Context, t *table.Table, o Options) (out []*Result, touched bool, err error) {
	for _, in := range t.Timeline.Instants {
		if in.Action != spec.ActionClean || in.IsCompleted() {
			continue
		}
		touched = true
		r, err := execute(ctx, t, in, o)
		if err != nil {
			return out, touched, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, touched, nil
}

// readPlan reads a pending clean's plan: the requested file, else (a requested file
// already removed by hand) the inflight one. nil means the instant has no plan content.
func readPlan(ctx context.Context, t *table.Table, in timeline.Instant) ([]byte, *commitmeta.CleanerPlan, error) {
	state := spec.StateRequested
	if _, ok := in.File(state); !ok {
		state = spec.StateInflight
	}
	p, _ := in.File(state)
	b, err := t.Storage.ReadFile(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("read clean plan %s: %w", p, err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, nil, nil
	}
	plan, err := commitmeta.DecodeCleanerPlan(b)
	if err != nil {
		return nil, nil, fmt.Errorf("clean plan %s: %w", p, err)
	}
	return b, plan, nil
}

// planFile turns a plan entry (a full path or URI as Java writes it) into a path relative
// to the table root: the plan's partition plus the file name.
func planFile(partition, filePath string) string {
	return storage.Join(partition, path.Base(filePath))
}

func execute(ctx context.Context, t *table.Table, in timeline.Instant, o Options) (*Result, error) {
	st := t.Storage
	start := o.Now()
	body, plan, err := readPlan(ctx, t, in)
	if err != nil {
		return nil, err
	}
	ct := o.timeline(st)
	if plan == nil {
		return nil, ct.RemoveEmptyClean(ctx, in)
	}
	if err := ct.BeginClean(ctx, t.Timeline, in, body); err != nil {
		return nil, err
	}
	res := newResult()
	res.Instant, res.Policy = string(in.Time), plan.Policy
	meta := &commitmeta.CleanMetadata{
		StartCleanTime:               string(in.Time),
		LastCompletedCommitTimestamp: plan.LastCompletedCommitTimestamp,
		PartitionMetadata:            map[string]commitmeta.CleanPartitionMetadata{},
		Version:                      commitmeta.CleanMetadataVersion,
		BootstrapPartitionMetadata:   map[string]commitmeta.CleanPartitionMetadata{},
		// Hudi 1.x copies the plan's extraMetadata (CleanerUtils.convertCleanMetadata).
		ExtraMetadata: plan.ExtraMetadata,
	}
	if e := plan.EarliestInstantToRetain; e != nil {
		meta.EarliestCommitToRetain = e.Timestamp
		res.EarliestInstantToRetain = e.Timestamp
	}
	files := plan.FilePathsToBeDeletedPerPartition
	if files == nil && len(plan.FilesToBeDeletedPerPartition) > 0 {
		// A version-1 plan (Java before 0.8) lists file names only.
		files = map[string][]commitmeta.CleanFileInfo{}
		for p, names := range plan.FilesToBeDeletedPerPartition {
			for _, n := range names {
				files[p] = append(files[p], commitmeta.CleanFileInfo{FilePath: n})
			}
		}
	}
	toDelete := map[string]bool{}
	for _, p := range plan.PartitionsToBeDeleted {
		toDelete[p] = true
	}
	partitions := make([]string, 0, len(files))
	for p := range files {
		partitions = append(partitions, p)
	}
	sort.Strings(partitions)
	for _, part := range partitions {
		pm := commitmeta.CleanPartitionMetadata{PartitionPath: part, Policy: plan.Policy, DeletePathPatterns: []string{},
			SuccessDeleteFiles: []string{}, FailedDeleteFiles: []string{}, IsPartitionDeleted: toDelete[part]}
		for _, f := range files[part] {
			if f.IsBootstrapBaseFile {
				o.Logger.Warn("clean plan names a bootstrap base file; bootstrap tables are not supported, leaving it", "instant", in.Time, "file", f.FilePath)
				continue
			}
			rel := planFile(part, f.FilePath)
			name := path.Base(rel)
			pm.DeletePathPatterns = append(pm.DeletePathPatterns, name)
			// Like Java, a file already gone (a retried clean) is reported as failed.
			fi, err := st.Stat(ctx, rel)
			if err == nil {
				err = st.Delete(ctx, rel)
			}
			if err != nil {
				if !errors.Is(err, storage.ErrNotExist) {
					o.Logger.Warn("clean could not delete a file", "instant", in.Time, "file", rel, "error", err)
				}
				pm.FailedDeleteFiles = append(pm.FailedDeleteFiles, name)
				res.FailedDeletes++
				continue
			}
			pm.SuccessDeleteFiles = append(pm.SuccessDeleteFiles, name)
			res.FilesDeleted++
			res.BytesDeleted += fi.Size
		}
		meta.PartitionMetadata[part] = pm
	}
	for _, part := range plan.PartitionsToBeDeleted {
		if part == "" {
			continue // never the table root
		}
		if err := storage.DeleteTree(ctx, st, part); err != nil {
			o.Logger.Warn("clean could not delete a partition", "instant", in.Time, "partition", part, "error", err)
			continue
		}
		res.PartitionsDeleted = append(res.PartitionsDeleted, part)
	}
	meta.TotalFilesDeleted = int32(res.FilesDeleted)
	meta.TimeTakenInMillis = o.Now().Sub(start).Milliseconds()
	_, metaSchema := t.Timeline.Layout.CleanSchemas()
	mb, err := commitmeta.EncodeCleanMetadataAs(meta, metaSchema)
	if err != nil {
		return nil, err
	}
	if err := ct.CompleteClean(ctx, t.Timeline, in.Time, mb); err != nil {
		return nil, err
	}
	return res, nil
}
