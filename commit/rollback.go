package commit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/fsview"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// The writer schemas Java 0.14/0.15 embeds in rollback plans and rollback metadata,
// copied from the Spark-written fixture mor-parquet/v6_nonpartitioned_rollback so that
// Java reads what we write with the same field order and defaults.
const (
	rollbackPlanSchema     = `{"type":"record","name":"HoodieRollbackPlan","namespace":"org.apache.hudi.avro.model","fields":[{"name":"instantToRollback","type":["null",{"type":"record","name":"HoodieInstantInfo","fields":[{"name":"commitTime","type":{"type":"string","avro.java.string":"String"}},{"name":"action","type":{"type":"string","avro.java.string":"String"}}]}],"doc":"Hoodie instant that needs to be rolled back","default":null},{"name":"RollbackRequests","type":["null",{"type":"array","items":{"type":"record","name":"HoodieRollbackRequest","fields":[{"name":"partitionPath","type":{"type":"string","avro.java.string":"String"}},{"name":"fileId","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"latestBaseInstant","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"filesToBeDeleted","type":{"type":"array","items":{"type":"string","avro.java.string":"String"},"default":[]},"default":[]},{"name":"logBlocksToBeDeleted","type":["null",{"type":"map","values":"long","avro.java.string":"String"}],"default":null}]}}],"default":null},{"name":"version","type":["int","null"],"default":1}]}`
	rollbackMetadataSchema = `{"type":"record","name":"HoodieRollbackMetadata","namespace":"org.apache.hudi.avro.model","fields":[{"name":"startRollbackTime","type":{"type":"string","avro.java.string":"String"}},{"name":"timeTakenInMillis","type":"long"},{"name":"totalFilesDeleted","type":"int"},{"name":"commitsRollback","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}},{"name":"partitionMetadata","type":{"type":"map","values":{"type":"record","name":"HoodieRollbackPartitionMetadata","fields":[{"name":"partitionPath","type":{"type":"string","avro.java.string":"String"}},{"name":"successDeleteFiles","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}},{"name":"failedDeleteFiles","type":{"type":"array","items":{"type":"string","avro.java.string":"String"}}},{"name":"rollbackLogFiles","type":["null",{"type":"map","values":"long","avro.java.string":"String"}],"default":null},{"name":"logFilesFromFailedCommit","type":["null",{"type":"map","values":"long","avro.java.string":"String"}],"default":null}]},"avro.java.string":"String"}},{"name":"version","type":["int","null"],"default":1},{"name":"instantsRollback","type":{"type":"array","items":{"type":"record","name":"HoodieInstantInfo","fields":[{"name":"commitTime","type":{"type":"string","avro.java.string":"String"}},{"name":"action","type":{"type":"string","avro.java.string":"String"}}]},"default":[]},"default":[]}]}`
)

// ErrWriterAlive means a pending write still has a live heartbeat: another writer is
// running, and rolling its instant back would destroy its work.
var ErrWriterAlive = errors.New("another writer is running")

// RollbackOptions configure failed-write rollback.
type RollbackOptions struct {
	Now       Clock
	Location  *time.Location
	Heartbeat HeartbeatOptions
	Logger    *slog.Logger
}

// RollbackFailedWrites rolls back every pending data write whose writer is gone (Hudi's
// EAGER failed-writes policy), and finishes rollbacks that were interrupted. A pending
// write with a live heartbeat is left alone and reported as ErrWriterAlive. Pending
// compactions and clusterings are table-service plans, not failed writes, and stay.
func RollbackFailedWrites(ctx context.Context, st storage.Storage, tl *timeline.Timeline, o RollbackOptions) (rolledBack []spec.InstantTime, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	tidyCompleted(ctx, st, tl)
	// An interrupted rollback is finished first, with its own instant and plan.
	for _, in := range tl.Instants {
		if in.Action != spec.ActionRollback || in.IsCompleted() {
			continue
		}
		plan, err := tl.ReadRequested(ctx, st, in)
		if err != nil {
			return nil, err
		}
		p, err := commitmeta.DecodeRollbackPlan(plan)
		if err != nil {
			return nil, fmt.Errorf("rollback plan of %s: %w", in.Time, err)
		}
		target := spec.InstantTime(p.InstantToRollback.CommitTime)
		if err := executeRollback(ctx, st, tl, in.Time, target, spec.Action(p.InstantToRollback.Action), o, false); err != nil {
			return nil, err
		}
		rolledBack = append(rolledBack, target)
	}
	for _, in := range tl.Instants {
		if in.IsCompleted() || !isWriteAction(in) || contains(rolledBack, in.Time) {
			continue
		}
		if in.Action == spec.ActionReplaceCommit {
			if clustering, err := isClusteringPlan(ctx, st, tl, in); err != nil {
				return nil, err
			} else if clustering {
				continue
			}
		}
		alive, err := HeartbeatAlive(ctx, st, in.Time, o.Now(), o.Heartbeat)
		if err != nil {
			return nil, err
		}
		if alive {
			return rolledBack, fmt.Errorf("pending %s %s has a live heartbeat (%s): %w; wait for it to finish, or let its heartbeat expire (%s) before writing",
				in.Action, in.Time, HeartbeatPath(in.Time), ErrWriterAlive, o.Heartbeat.Expiry())
		}
		rb := NewInstantTime(tl, o.Now(), o.Location)
		if err := executeRollback(ctx, st, tl, rb, in.Time, in.Action.CompletedAction(), o, true); err != nil {
			return rolledBack, err
		}
		o.Logger.Warn("rolled back a failed write", "instant", in.Time, "action", in.Action, "rollback", rb)
		rolledBack = append(rolledBack, in.Time)
		// Later rollbacks need later instants.
		tl = timeline.FromFileNames(tl.Layout, tl.Dir, append(instantFileNames(tl), spec.InstantFileName{Instant: rb, Action: spec.ActionRollback, State: spec.StateCompleted}.FileName(tl.Layout)))
	}
	return rolledBack, nil
}

func isWriteAction(in timeline.Instant) bool {
	switch in.Action {
	case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit:
		return true
	}
	return false
}

func isClusteringPlan(ctx context.Context, st storage.Storage, tl *timeline.Timeline, in timeline.Instant) (bool, error) {
	if _, ok := in.File(spec.StateRequested); !ok {
		return false, nil
	}
	b, err := tl.ReadRequested(ctx, st, in)
	if err != nil {
		return false, err
	}
	if len(b) == 0 {
		return false, nil
	}
	r, err := commitmeta.DecodeRequestedReplace(b)
	if err != nil {
		return false, fmt.Errorf("requested replace metadata of %s: %w", in.Time, err)
	}
	return strings.EqualFold(r.OperationType, "CLUSTER"), nil
}

func instantFileNames(tl *timeline.Timeline) []string {
	var names []string
	for _, in := range tl.Instants {
		for s := spec.StateRequested; s <= spec.StateCompleted; s++ {
			if p, ok := in.File(s); ok {
				names = append(names, p[strings.LastIndexByte(p, '/')+1:])
			}
		}
	}
	return names
}

func contains(list []spec.InstantTime, t spec.InstantTime) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

// filesWrittenBy finds the data files of instant: those named in its markers, and (for
// writes that died before or without markers) every base file whose name carries it.
func filesWrittenBy(ctx context.Context, st storage.Storage, instant spec.InstantTime) (map[string][]string, error) {
	out := map[string][]string{}
	seen := map[string]bool{}
	add := func(partition, name string) {
		p := storage.Join(partition, name)
		if !seen[p] {
			seen[p] = true
			out[partition] = append(out[partition], name)
		}
	}
	var walk func(dir, partition string) error
	walk = func(dir, partition string) error {
		entries, err := st.List(ctx, dir)
		if errors.Is(err, storage.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir {
				if err := walk(storage.Join(dir, e.Name), storage.Join(partition, e.Name)); err != nil {
					return err
				}
				continue
			}
			if i := strings.Index(e.Name, ".marker."); i > 0 {
				add(partition, e.Name[:i])
			}
		}
		return nil
	}
	if err := walk(storage.Join(TempDir, string(instant)), ""); err != nil {
		return nil, fmt.Errorf("read markers of %s: %w", instant, err)
	}
	listing, err := fsview.ListPartitions(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, p := range listing.Partitions {
		for _, f := range p.Files {
			name := f.Name
			// A write killed inside storage.Create leaves its temp file ".<name>.tmp-<n>".
			if i := strings.Index(name, ".tmp-"); strings.HasPrefix(name, ".") && i > 1 {
				name = name[1:i]
			}
			if b, ok := spec.ParseBaseFileName(name); ok && b.Instant == instant {
				add(p.Path, f.Name)
			}
		}
	}
	return out, nil
}

// executeRollback rolls back target with rollback instant rb: plan, inflight, delete the
// target's files, rollback metadata, then the target's timeline files. Every step can be
// repeated, so a rollback killed half way is finished by the next writer.
func executeRollback(ctx context.Context, st storage.Storage, tl *timeline.Timeline, rb, target spec.InstantTime,
	action spec.Action, o RollbackOptions, writePlan bool) error {
	start := o.Now()
	files, err := filesWrittenBy(ctx, st, target)
	if err != nil {
		return err
	}
	abs := func(partition, name string) string {
		return strings.TrimSuffix(st.Root(), "/") + "/" + storage.Join(partition, name)
	}
	if writePlan {
		var requests []any
		for partition, names := range files {
			var paths []any
			for _, n := range names {
				paths = append(paths, abs(partition, n))
			}
			requests = append(requests, map[string]any{"partitionPath": partition, "fileId": "", "latestBaseInstant": "",
				"filesToBeDeleted": paths, "logBlocksToBeDeleted": map[string]any{}})
		}
		plan := map[string]any{
			"instantToRollback": map[string]any{"commitTime": string(target), "action": string(action)},
			"RollbackRequests":  requests,
			"version":           int32(1),
		}
		body, err := encodeContainer(rollbackPlanSchema, plan)
		if err != nil {
			return fmt.Errorf("encode rollback plan for %s: %w", target, err)
		}
		for _, f := range []struct {
			state spec.State
			body  []byte
		}{{spec.StateRequested, body}, {spec.StateInflight, nil}} {
			name := spec.InstantFileName{Instant: rb, Action: spec.ActionRollback, State: f.state}.FileName(tl.Layout)
			if err := writeFile(ctx, st, storage.Join(tl.Dir, name), f.body); err != nil && !errors.Is(err, storage.ErrExist) {
				return fmt.Errorf("rollback %s of %s: %w", rb, target, err)
			}
		}
	}
	partitionMeta := map[string]any{}
	total := int32(0)
	for partition, names := range files {
		var deleted, failed []any
		for _, n := range names {
			if err := st.Delete(ctx, storage.Join(partition, n)); err != nil {
				failed = append(failed, abs(partition, n))
				continue
			}
			deleted = append(deleted, abs(partition, n))
			total++
		}
		partitionMeta[partition] = map[string]any{"partitionPath": partition, "successDeleteFiles": nonNil(deleted),
			"failedDeleteFiles": nonNil(failed), "rollbackLogFiles": map[string]any{}, "logFilesFromFailedCommit": map[string]any{}}
	}
	meta := map[string]any{
		"startRollbackTime": string(rb),
		"timeTakenInMillis": o.Now().Sub(start).Milliseconds(),
		"totalFilesDeleted": total,
		"commitsRollback":   []any{string(target)},
		"partitionMetadata": partitionMeta,
		"version":           int32(1),
		"instantsRollback":  []any{map[string]any{"commitTime": string(target), "action": string(action)}},
	}
	body, err := encodeContainer(rollbackMetadataSchema, meta)
	if err != nil {
		return fmt.Errorf("encode rollback metadata for %s: %w", target, err)
	}
	name := spec.InstantFileName{Instant: rb, Action: spec.ActionRollback, State: spec.StateCompleted}.FileName(tl.Layout)
	if err := writeFile(ctx, st, storage.Join(tl.Dir, name), body); err != nil && !errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("complete rollback %s of %s: %w", rb, target, err)
	}
	// Only now does the rolled-back instant disappear from the timeline: if we died
	// earlier, it is still pending and is rolled back again.
	for _, in := range tl.At(target) {
		for s := spec.StateCompleted; s >= spec.StateRequested; s-- {
			if p, ok := in.File(s); ok {
				if err := st.Delete(ctx, p); err != nil {
					return fmt.Errorf("remove rolled-back instant file %s: %w", p, err)
				}
			}
		}
	}
	_ = storage.DeleteTree(ctx, st, storage.Join(TempDir, string(target)))
	_ = st.Delete(ctx, HeartbeatPath(target))
	removeTempFiles(ctx, st, tl.Dir, string(target)+".")
	removeTempFiles(ctx, st, HeartbeatDir, string(target))
	return nil
}

// tidyCompleted removes what a writer killed right after publishing its instant left
// behind: the markers and heartbeat of completed instants. Only completed instants are
// touched; a pending one may belong to a writer that is still running.
func tidyCompleted(ctx context.Context, st storage.Storage, tl *timeline.Timeline) {
	for _, dir := range []string{TempDir, HeartbeatDir} {
		entries, err := st.List(ctx, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			in, ok := tl.CompletedDataInstant(spec.InstantTime(e.Name))
			if !ok || !in.IsCompleted() {
				continue
			}
			if e.IsDir {
				_ = storage.DeleteTree(ctx, st, storage.Join(dir, e.Name))
			} else {
				_ = st.Delete(ctx, storage.Join(dir, e.Name))
			}
		}
	}
}

// removeTempFiles deletes the temp files (".<prefix>….tmp-<n>") a killed writer left in dir.
func removeTempFiles(ctx context.Context, st storage.Storage, dir, prefix string) {
	entries, err := st.List(ctx, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir && strings.HasPrefix(e.Name, "."+prefix) && strings.Contains(e.Name, ".tmp-") {
			_ = st.Delete(ctx, storage.Join(dir, e.Name))
		}
	}
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func encodeContainer(schemaJSON string, v any) ([]byte, error) {
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, err
	}
	return avro.WriteContainer(s, v)
}
