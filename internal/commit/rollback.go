package commit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// ErrWriterAlive means a pending write still has a live heartbeat: another writer is
// running, and rolling its instant back would destroy its work.
var ErrWriterAlive = errors.New("another writer is running")

// RollbackFailedWrites rolls back every pending data write whose writer is gone (Hudi's
// EAGER failed-writes policy), and finishes rollbacks that were interrupted. A pending
// write with a live heartbeat is left alone and reported as ErrWriterAlive. Pending
// compactions and clusterings are table-service plans, not failed writes, and stay.
func (ct *Timeline) RollbackFailedWrites(ctx context.Context, tl *timeline.Timeline) (rolledBack []spec.InstantTime, err error) {
	st := ct.st
	// A pending restore's own rollbacks are its to finish (ResumeRestore), not a failed
	// write's: nothing else may touch the timeline before it completes.
	if err := CheckNoPendingRestore(ctx, st, tl, "roll back failed writes"); err != nil {
		return nil, err
	}
	tidyCompleted(ctx, st, tl)
	ct.RemoveLeftovers(ctx, tl)
	// An interrupted rollback is finished first, with its own instant and plan.
	if rolledBack, err = ct.resumeRollbacks(ctx, tl); err != nil {
		return nil, err
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
		alive, err := HeartbeatAlive(ctx, st, in.Time, ct.now(), ct.hb)
		if err != nil {
			return nil, err
		}
		if alive {
			return rolledBack, fmt.Errorf("pending %s %s has a live heartbeat (%s): %w; wait for it to finish, or let its heartbeat expire (%s) before writing",
				in.Action, in.Time, HeartbeatPath(in.Time), ErrWriterAlive, ct.hb.Expiry())
		}
		rb := ct.NewInstantTime(tl)
		if err := ct.executeRollback(ctx, tl, rb, in.Time, in.Action.CompletedAction(), true); err != nil {
			return rolledBack, err
		}
		ct.logger.Warn("rolled back a failed write", "instant", in.Time, "action", in.Action, "rollback", rb)
		rolledBack = append(rolledBack, in.Time)
		// Later rollbacks need later instants.
		tl = tl.Relist(append(instantFileNames(tl), tl.Layout.FileName(spec.InstantFileName{Instant: rb, Action: spec.ActionRollback, State: spec.StateCompleted})))
	}
	return rolledBack, nil
}

// resumeRollbacks finishes every pending rollback with its own instant: the files of its
// target found now (markers, instant in file names) together with those its plan names,
// which is all a rollback of a completed instant has to go by once its markers are gone.
func (ct *Timeline) resumeRollbacks(ctx context.Context, tl *timeline.Timeline) ([]spec.InstantTime, error) {
	st := ct.st
	var done []spec.InstantTime
	for _, in := range tl.Instants {
		if in.Action != spec.ActionRollback || in.IsCompleted() {
			continue
		}
		plan, err := tl.ReadRequested(ctx, st, in)
		if err != nil {
			return done, err
		}
		p, err := commitmeta.DecodeRollbackPlan(plan)
		if err != nil {
			return done, fmt.Errorf("rollback plan of %s: %w", in.Time, err)
		}
		if p.InstantToRollback == nil {
			return done, fmt.Errorf("rollback plan of %s names no instant", in.Time)
		}
		target := spec.InstantTime(p.InstantToRollback.CommitTime)
		w, err := filesWrittenBy(ctx, st, target, ct.idleBefore())
		if err != nil {
			return done, err
		}
		mergeRollbackPlan(st, w, p)
		if _, err := ct.runRollback(ctx, tl, in.Time, target, spec.Action(p.InstantToRollback.Action), w, false, true); err != nil {
			return done, err
		}
		done = append(done, target)
	}
	return done, nil
}

// mergeRollbackPlan adds the files a rollback plan names to w. Paths outside this table's
// root (a plan written where the table lived elsewhere) cannot be mapped and are skipped.
func mergeRollbackPlan(st storage.Storage, w *written, p *commitmeta.RollbackPlan) {
	root := strings.TrimSuffix(st.Root(), "/") + "/"
	rel := func(p string) (partition, name string, ok bool) {
		if i := strings.Index(p, ":"); i >= 0 && i < strings.Index(p, "/") {
			p = p[i+1:] // Java strips or keeps the scheme ("file:/...") depending on the path
		}
		if !strings.HasPrefix(p, root) {
			return "", "", false
		}
		p = strings.TrimPrefix(p, root)
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return "", p, true
		}
		return p[:i], p[i+1:], true
	}
	has := func(m map[string][]string, partition, name string) bool {
		for _, n := range m[partition] {
			if n == name {
				return true
			}
		}
		return false
	}
	for _, r := range p.RollbackRequests {
		for _, f := range r.FilesToBeDeleted {
			if partition, name, ok := rel(f); ok && !has(w.deletes, partition, name) {
				w.deletes[partition] = append(w.deletes[partition], name)
			}
		}
		for f := range r.LogBlocksToBeDeleted {
			if partition, name, ok := rel(f); ok && !has(w.logs, partition, name) {
				if _, isLog := spec.ParseLogFileName(name); isLog {
					w.logs[partition] = append(w.logs[partition], name)
				}
			}
		}
	}
}

// FinishPendingRollbacks finishes rollbacks that were interrupted (a rollback plan
// without a completed rollback) and returns their target instants.
func (ct *Timeline) FinishPendingRollbacks(ctx context.Context, tl *timeline.Timeline) ([]spec.InstantTime, error) {
	return ct.resumeRollbacks(ctx, tl)
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

// written is what a pending instant wrote: files to delete (base files, temp files) and
// log files it appended to, which are rolled back with a command block instead.
type written struct {
	deletes map[string][]string // partition → file names
	logs    map[string][]string // partition → log file names (APPEND markers)
}

// ownLogsDeleted is w with the log files named by target (their base instant) deleted
// rather than rolled back with command blocks. On layout 2 every deltacommit writes its own
// log files, named by its instant, and Hudi 1.x deletes them
// (MarkerBasedRollbackStrategy.getRollbackRequestForAppend: a log file whose base commit time
// is the instant rolled back is deleted; others get a rollback command block).
func (w *written) ownLogsDeleted(target spec.InstantTime) *written {
	out := &written{deletes: map[string][]string{}, logs: map[string][]string{}}
	for p, names := range w.deletes {
		out.deletes[p] = append(out.deletes[p], names...)
	}
	for p, names := range w.logs {
		for _, n := range names {
			if lf, ok := spec.ParseLogFileName(n); ok && lf.Instant == target {
				out.deletes[p] = append(out.deletes[p], n)
			} else {
				out.logs[p] = append(out.logs[p], n)
			}
		}
	}
	return out
}

// filesWrittenBy finds the data files of instant: those named in its markers, and (for
// writes that died before or without markers) every base file whose name carries it.
// Log files come from APPEND markers; they are never deleted (§6.8 of the format doc:
// Java appends a rollback command block). An APPEND marker named like a base file (Java
// before HUDI-1517) names no file to delete and is skipped.
//
// The temp file of a log file it appended to goes only when nobody has written it since
// idleBefore (a heartbeat expiry ago): a log file is named after its slice's base instant,
// not the writer's, so a live concurrent writer appending to the same slice (optimistic
// concurrency) may be writing a temp of the same name, and must not lose it.
func filesWrittenBy(ctx context.Context, st storage.Storage, instant spec.InstantTime, idleBefore time.Time) (*written, error) {
	out := &written{deletes: map[string][]string{}, logs: map[string][]string{}}
	seen := map[string]bool{}
	add := func(m map[string][]string, partition, name string) {
		p := storage.Join(partition, name)
		if !seen[p] {
			seen[p] = true
			m[partition] = append(m[partition], name)
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
			i := strings.Index(e.Name, ".marker.")
			if i <= 0 {
				continue
			}
			name := e.Name[:i]
			if IOType(e.Name[i+len(".marker."):]) == IOAppend {
				if _, ok := spec.ParseLogFileName(name); ok {
					add(out.logs, partition, name)
				}
				continue
			}
			add(out.deletes, partition, name)
		}
		return nil
	}
	if err := walk(storage.Join(TempDir, string(instant)), ""); err != nil {
		return nil, fmt.Errorf("read markers of %s: %w", instant, err)
	}
	logMarked := map[string]bool{}
	for partition, names := range out.logs {
		for _, n := range names {
			logMarked[storage.Join(partition, n)] = true
		}
	}
	// Log files under CREATE markers: CDC log files, which a write creates whole (Java's
	// CREATE and MERGE markers name files to delete, whatever their names).
	created := map[string]bool{}
	for partition, names := range out.deletes {
		for _, n := range names {
			if _, ok := spec.ParseLogFileName(n); ok {
				created[storage.Join(partition, n)] = true
			}
		}
	}
	listing, err := fsview.ListPartitions(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, p := range listing.Partitions {
		for _, f := range p.Files {
			name := f.Name
			// A write killed inside storage.Create leaves its temp file ".<name>.tmp-<n>".
			i := strings.Index(name, ".tmp-")
			if strings.HasPrefix(name, ".") && i > 1 {
				name = name[1:i]
				if (logMarked[storage.Join(p.Path, name)] && f.ModTime.Before(idleBefore)) || created[storage.Join(p.Path, name)] {
					add(out.deletes, p.Path, f.Name) // an unfinished log file
					continue
				}
			}
			if b, ok := spec.ParseBaseFileName(name); ok && b.Instant == instant {
				add(out.deletes, p.Path, f.Name)
			}
			// A CDC log file is named after the instant that wrote it, so it goes by its
			// name whether or not a marker names it (UNVERIFIED whether Java 0.14's
			// HoodieWriteHandle.createLogWriter marks it).
			if l, ok := spec.ParseLogFileName(name); ok && l.CDC() && l.Instant == instant {
				add(out.deletes, p.Path, f.Name)
			}
		}
	}
	return out, nil
}

// logRollback is the rollback of one file slice's log files: the failed instant's log
// files and the command-block log appended after them.
type logRollback struct {
	partition string
	fileID    spec.FileID
	base      spec.InstantTime
	failed    map[string]any // absolute path → size
	command   map[string]any // absolute path → size of the command-block log
}

// planLogRollbacks groups the failed instant's log files by file slice.
func planLogRollbacks(ctx context.Context, st storage.Storage, w *written, abs func(partition, name string) string) []*logRollback {
	var out []*logRollback
	index := map[string]*logRollback{}
	for partition, names := range w.logs {
		for _, n := range names {
			lf, _ := spec.ParseLogFileName(n)
			fi, err := st.Stat(ctx, storage.Join(partition, n))
			if err != nil {
				continue // never created: nothing to roll back
			}
			k := partition + "\x00" + string(lf.FileID) + "\x00" + string(lf.Instant)
			lr := index[k]
			if lr == nil {
				lr = &logRollback{partition: partition, fileID: lf.FileID, base: lf.Instant, failed: map[string]any{}, command: map[string]any{}}
				index[k] = lr
				out = append(out, lr)
			}
			lr.failed[abs(partition, n)] = fi.Size
		}
	}
	return out
}

// appendRollbackBlock appends (as a new log version of the slice, token 1-0-1, like Java)
// a ROLLBACK command block telling readers to discard target's blocks. It is idempotent: a
// command-block log of rb for target already in the slice is reused.
func appendRollbackBlock(ctx context.Context, st storage.Storage, lr *logRollback, rb, target spec.InstantTime,
	abs func(partition, name string) string) error {
	entries, err := st.List(ctx, lr.partition)
	if err != nil {
		return err
	}
	version := 0
	for _, e := range entries {
		// The temp file of a command-block log of this slice is what a killed rollback left
		// (a pending rollback is resumed, never run twice at once: its writer is gone).
		if inner, ok := tempFileTarget(e.Name); ok && !e.IsDir {
			if lf, ok := spec.ParseLogFileName(inner); ok && lf.FileID == lr.fileID && lf.Instant == lr.base && lf.WriteToken == rollbackToken {
				_ = st.Delete(ctx, storage.Join(lr.partition, e.Name))
			}
			continue
		}
		lf, ok := spec.ParseLogFileName(e.Name)
		if !ok || lf.FileID != lr.fileID || lf.Instant != lr.base {
			continue
		}
		version = max(version, lf.Version)
		if lf.WriteToken != rollbackToken {
			continue
		}
		f, err := st.Open(ctx, storage.Join(lr.partition, e.Name))
		if err != nil {
			return err
		}
		blocks, err := logfile.ReadAll(f, f.Size(), e.Name)
		f.Close()
		if err != nil {
			continue
		}
		for _, b := range blocks {
			if b.IsRollback() && b.InstantTime() == string(rb) && b.TargetInstantTime() == string(target) {
				lr.command[abs(lr.partition, e.Name)] = e.Size
				return nil
			}
		}
	}
	block := &logfile.Block{Type: logfile.CommandBlock, Header: map[logfile.HeaderKey]string{
		logfile.InstantTime: string(rb), logfile.TargetInstantTime: string(target), logfile.CommandBlockType: logfile.RollbackCommand}}
	body, err := logfile.AppendBlock(nil, block)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		version++
		name := spec.LogFileName{FileID: lr.fileID, Instant: lr.base, Extension: "log", Version: version, WriteToken: rollbackToken}.String()
		err := writeFile(ctx, st, storage.Join(lr.partition, name), body)
		if err == nil {
			lr.command[abs(lr.partition, name)] = int64(len(body))
			return nil
		}
		if !errors.Is(err, storage.ErrExist) || attempt >= 100 {
			return fmt.Errorf("rollback block for %s/%s: %w", lr.partition, lr.fileID, err)
		}
	}
}

// rollbackToken is the write token Java uses for rollback command-block log files.
const rollbackToken spec.WriteToken = "1-0-1"

// executeRollback rolls back target with rollback instant rb: plan, inflight, delete the
// target's files, rollback metadata, then the target's timeline files. Every step can be
// repeated, so a rollback killed half way is finished by the next writer.
func (ct *Timeline) executeRollback(ctx context.Context, tl *timeline.Timeline, rb, target spec.InstantTime,
	action spec.Action, writePlan bool) error {
	w, err := filesWrittenBy(ctx, ct.st, target, ct.idleBefore())
	if err != nil {
		return err
	}
	_, err = ct.runRollback(ctx, tl, rb, target, action, w, writePlan, true)
	return err
}

// absPath is how rollback plans and metadata name deleted files (filesToBeDeleted,
// successDeleteFiles): absolute, without a scheme, as Java writes them (the rollback of
// the fixture mor-parquet/v6_nonpartitioned_rollback: "/opt/data/…/f.parquet").
func absPath(st storage.Storage, partition, name string) string {
	return storage.AbsPath(st, storage.Join(partition, name))
}

// logURI is how rollback plans and metadata name log files (the keys of
// logBlocksToBeDeleted, rollbackLogFiles and logFilesFromFailedCommit): with the scheme,
// as Java writes them (same fixture: "file:/opt/data/…/.f_….log.1_0-33-43").
func logURI(st storage.Storage, partition, name string) string {
	return storage.URI(st, storage.Join(partition, name))
}

// runRollback executes the rollback of target by rb over the files w: it writes the plan
// (when writePlan), unpublishes a completed target (Java's revertToInflight, so no reader
// sees a committed instant whose files are going), appends command blocks, deletes files,
// publishes the completed rollback (when publish; a restore records the metadata in its
// own instant instead) and finally removes the target's timeline files.
func (ct *Timeline) runRollback(ctx context.Context, tl *timeline.Timeline, rb, target spec.InstantTime,
	action spec.Action, w *written, writePlan, publish bool) (*commitmeta.RollbackMetadata, error) {
	st := ct.st
	start := ct.now()
	if tl.Layout.LogFilesPerWrite() {
		w = w.ownLogsDeleted(target)
	}
	files := w.deletes
	abs := func(partition, name string) string { return absPath(st, partition, name) }
	uri := func(partition, name string) string { return logURI(st, partition, name) }
	logRollbacks := planLogRollbacks(ctx, st, w, uri)
	if writePlan {
		var requests []any
		for _, lr := range logRollbacks {
			requests = append(requests, map[string]any{"partitionPath": lr.partition, "fileId": string(lr.fileID),
				"latestBaseInstant": string(lr.base), "filesToBeDeleted": []any{}, "logBlocksToBeDeleted": lr.failed})
		}
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
		body, err := encodeContainer(avroschema.RollbackPlan.JSON(), plan)
		if err != nil {
			return nil, fmt.Errorf("encode rollback plan for %s: %w", target, err)
		}
		for _, f := range []struct {
			state spec.State
			body  []byte
		}{{spec.StateRequested, body}, {spec.StateInflight, nil}} {
			if err := ct.putOnce(ctx, tl, rb, spec.ActionRollback, f.state, f.body); err != nil {
				return nil, fmt.Errorf("rollback %s of %s: %w", rb, target, err)
			}
		}
	}
	// The plan is durable: from here on a crash leaves a pending rollback that the next
	// writer finishes, so the target may stop being committed.
	for _, in := range tl.At(target) {
		if in.Action.IsDataAction() {
			if err := ct.remove(ctx, in, spec.StateCompleted); err != nil {
				return nil, fmt.Errorf("unpublish %s before rolling it back: %w", target, err)
			}
		}
	}
	meta := &commitmeta.RollbackMetadata{
		StartRollbackTime: string(rb),
		CommitsRollback:   []string{string(target)},
		PartitionMetadata: map[string]commitmeta.RollbackPartitionMetadata{},
		Version:           1,
		InstantsRollback:  []commitmeta.InstantInfo{{CommitTime: string(target), Action: string(action)}},
	}
	rollbackLogs := map[string]map[string]int64{}
	failedLogs := map[string]map[string]int64{}
	for _, lr := range logRollbacks {
		if err := appendRollbackBlock(ctx, st, lr, rb, target, uri); err != nil {
			return nil, fmt.Errorf("rollback %s of %s: %w", rb, target, err)
		}
		if rollbackLogs[lr.partition] == nil {
			rollbackLogs[lr.partition], failedLogs[lr.partition] = map[string]int64{}, map[string]int64{}
		}
		for k, v := range lr.command {
			rollbackLogs[lr.partition][k] = v.(int64)
		}
		for k, v := range lr.failed {
			failedLogs[lr.partition][k] = v.(int64)
		}
		if _, ok := files[lr.partition]; !ok {
			files[lr.partition] = nil
		}
	}
	for partition, names := range files {
		pm := commitmeta.RollbackPartitionMetadata{PartitionPath: partition, SuccessDeleteFiles: []string{}, FailedDeleteFiles: []string{},
			RollbackLogFiles: rollbackLogs[partition], LogFilesFromFailedCommit: failedLogs[partition]}
		for _, n := range names {
			if err := st.Delete(ctx, storage.Join(partition, n)); err != nil {
				pm.FailedDeleteFiles = append(pm.FailedDeleteFiles, abs(partition, n))
				continue
			}
			pm.SuccessDeleteFiles = append(pm.SuccessDeleteFiles, abs(partition, n))
			meta.TotalFilesDeleted++
		}
		if pm.RollbackLogFiles == nil {
			pm.RollbackLogFiles, pm.LogFilesFromFailedCommit = map[string]int64{}, map[string]int64{}
		}
		meta.PartitionMetadata[partition] = pm
	}
	meta.TimeTakenInMillis = ct.now().Sub(start).Milliseconds()
	if publish {
		body, err := encodeContainer(avroschema.RollbackMetadata.JSON(), rollbackMetadataValue(meta))
		if err != nil {
			return nil, fmt.Errorf("encode rollback metadata for %s: %w", target, err)
		}
		// Java's finishRollback writes the metadata table before the completed rollback
		// (a restore's rollbacks do not: the restore reconciles it once, at its end).
		if err := ct.updateMetadata(ctx, table.MetadataUpdate{Instant: rb, Rollback: meta}); err != nil {
			return nil, err
		}
		if err := ct.putOnce(ctx, tl, rb, spec.ActionRollback, spec.StateCompleted, body); err != nil {
			return nil, fmt.Errorf("complete rollback %s of %s: %w", rb, target, err)
		}
	}
	// Only now does the rolled-back instant disappear from the timeline: if we died
	// earlier, it is still pending and is rolled back again.
	for _, in := range tl.At(target) {
		if in.Action == spec.ActionRollback || in.Action == spec.ActionSavepoint || in.Action == spec.ActionRestore || in.Action == spec.ActionClean {
			continue // another action that happens to share the time is not the target
		}
		if err := ct.remove(ctx, in, newestFirst...); err != nil {
			return nil, fmt.Errorf("remove rolled-back instant %s: %w", target, err)
		}
	}
	_ = storage.DeleteTree(ctx, st, storage.Join(TempDir, string(target)))
	_ = st.Delete(ctx, HeartbeatPath(target))
	removeTempFiles(ctx, st, tl.Dir, string(target)+".")
	removeTempFiles(ctx, st, HeartbeatDir, string(target))
	// A killed attempt of this rollback (resumed here: its process is gone) may have left
	// the temp file of one of its own timeline files.
	removeTempFiles(ctx, st, tl.Dir, string(rb)+".")
	return meta, nil
}

// rollbackMetadataValue is m as the generic value of the HoodieRollbackMetadata schema.
func rollbackMetadataValue(m *commitmeta.RollbackMetadata) map[string]any {
	strs := func(ss []string) []any {
		out := make([]any, 0, len(ss))
		for _, s := range ss {
			out = append(out, s)
		}
		return out
	}
	sizes := func(m map[string]int64) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	partitions := make(map[string]any, len(m.PartitionMetadata))
	for k, pm := range m.PartitionMetadata {
		partitions[k] = map[string]any{"partitionPath": pm.PartitionPath, "successDeleteFiles": strs(pm.SuccessDeleteFiles),
			"failedDeleteFiles": strs(pm.FailedDeleteFiles), "rollbackLogFiles": sizes(pm.RollbackLogFiles),
			"logFilesFromFailedCommit": sizes(pm.LogFilesFromFailedCommit)}
	}
	instants := make([]any, 0, len(m.InstantsRollback))
	for _, in := range m.InstantsRollback {
		instants = append(instants, map[string]any{"commitTime": in.CommitTime, "action": in.Action})
	}
	return map[string]any{
		"startRollbackTime": m.StartRollbackTime,
		"timeTakenInMillis": m.TimeTakenInMillis,
		"totalFilesDeleted": m.TotalFilesDeleted,
		"commitsRollback":   strs(m.CommitsRollback),
		"partitionMetadata": partitions,
		"version":           m.Version,
		"instantsRollback":  instants,
	}
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

// idleBefore is the time before which a file nobody writes any more was last written: a
// heartbeat expiry ago (see RemoveLeftovers).
func (ct *Timeline) idleBefore() time.Time {
	if ct.exclusive {
		return ct.now().Add(time.Hour) // no other writer: every temp file is idle
	}
	return ct.now().Add(-ct.hb.Expiry())
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

func encodeContainer(schemaJSON string, v any) ([]byte, error) {
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, err
	}
	return avro.WriteContainer(s, v)
}
