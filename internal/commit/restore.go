package commit

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// RestorePlan is HoodieRestorePlan, the content of <R>.restore.requested: the instants
// to roll back, in the order they are rolled back.
type RestorePlan struct {
	InstantsToRollback []commitmeta.InstantInfo
	Version            int32
	// SavepointToRestoreTimestamp is the savepoint restored to (plan version 2, Hudi 1.x;
	// "" in version 1 plans).
	SavepointToRestoreTimestamp string
}

// RestoreMetadata is HoodieRestoreMetadata, the content of a completed <R>.restore.
type RestoreMetadata struct {
	StartRestoreTime  string
	TimeTakenInMillis int64
	// InstantsToRollback are the rolled-back instant times, in rollback order.
	InstantsToRollback []string
	// Rollbacks maps each rolled-back instant to the metadata of its rollback (one entry,
	// as Java writes it).
	Rollbacks          map[string][]*commitmeta.RollbackMetadata
	Version            int32
	RestoreInstantInfo []commitmeta.InstantInfo
}

// Restore rolls back instants (given newest first, in the order to roll them back) so
// that the table is as it was at savepoint, under one restore instant: the plan goes to
// <R>.restore.requested, then <R>.restore.inflight; each instant is rolled back under its
// own rollback instant whose completion is not published (Java's skipTimelinePublish)
// because <R>.restore records every rollback's metadata; finally the rollback instants
// after the savepoint are removed, as Java does, so the timeline reads as of the savepoint
// plus one restore.
func (ct *Timeline) Restore(ctx context.Context, tl *timeline.Timeline, savepoint spec.InstantTime, instants []timeline.Instant) (spec.InstantTime, *RestoreMetadata, error) {
	st := ct.st
	var infos []any
	for _, in := range instants {
		infos = append(infos, map[string]any{"commitTime": string(in.Time), "action": string(in.Action)})
	}
	schema, version := tl.Layout.RestorePlan()
	body, err := encodeContainer(schema.JSON(), map[string]any{"instantsToRollback": nonNilAny(infos), "version": version,
		"savepointToRestoreTimestamp": string(savepoint)})
	if err != nil {
		return "", nil, fmt.Errorf("encode restore plan to %s: %w", savepoint, err)
	}
	rs, _, err := ct.request(ctx, tl, spec.ActionRestore, body, "request restore to "+string(savepoint)+" as", false)
	if err != nil {
		return "", nil, err
	}
	tl, err = Reload(ctx, st, tl)
	if err != nil {
		return rs, nil, err
	}
	in, ok := tl.Get(rs, spec.ActionRestore)
	if !ok {
		return rs, nil, fmt.Errorf("restore %s vanished from the timeline", rs)
	}
	meta, err := ct.ResumeRestore(ctx, tl, in, savepoint)
	return rs, meta, err
}

// ResumeRestore executes the pending restore in (requested or inflight) to savepoint.
// Instants of its plan that are no longer on the timeline were rolled back by an earlier
// attempt and are skipped, as Java does; a rollback that attempt left pending is finished
// and recorded.
func (ct *Timeline) ResumeRestore(ctx context.Context, tl *timeline.Timeline, in timeline.Instant, savepoint spec.InstantTime) (*RestoreMetadata, error) {
	st := ct.st
	start := ct.now()
	if in.Action != spec.ActionRestore || in.IsCompleted() {
		return nil, fmt.Errorf("instant %s %s is not a pending restore", in.Time, in.Action)
	}
	body, err := tl.ReadRequested(ctx, st, in)
	if err != nil {
		return nil, err
	}
	plan, err := DecodeRestorePlan(body)
	if err != nil {
		return nil, fmt.Errorf("restore plan %s: %w", in.Time, err)
	}
	if _, ok := in.File(spec.StateInflight); !ok {
		if err := ct.putOnce(ctx, tl, in.Time, spec.ActionRestore, spec.StateInflight, nil); err != nil {
			return nil, fmt.Errorf("mark restore %s inflight: %w", in.Time, err)
		}
	}
	meta := &RestoreMetadata{StartRestoreTime: string(in.Time), Rollbacks: map[string][]*commitmeta.RollbackMetadata{}, Version: 1,
		InstantsToRollback: []string{}, RestoreInstantInfo: []commitmeta.InstantInfo{}}
	record := func(target spec.InstantTime, action spec.Action, m *commitmeta.RollbackMetadata) {
		meta.InstantsToRollback = append(meta.InstantsToRollback, string(target))
		meta.RestoreInstantInfo = append(meta.RestoreInstantInfo, commitmeta.InstantInfo{CommitTime: string(target), Action: string(action)})
		meta.Rollbacks[string(target)] = []*commitmeta.RollbackMetadata{m}
	}
	inPlan := map[string]bool{}
	for _, info := range plan.InstantsToRollback {
		inPlan[info.CommitTime] = true
	}
	// A rollback an earlier attempt started is finished first: its plan knows files that
	// listing may no longer show.
	for _, rb := range tl.Instants {
		if rb.Action != spec.ActionRollback || rb.IsCompleted() || !savepoint.Less(rb.Time) {
			continue
		}
		target, action, m, err := ct.resumeRollback(ctx, tl, rb, false)
		if err != nil {
			return nil, err
		}
		if inPlan[string(target)] {
			record(target, action, m)
		}
	}
	for _, info := range plan.InstantsToRollback {
		if tl, err = Reload(ctx, st, tl); err != nil {
			return nil, err
		}
		target, ok := findWriteInstant(tl, spec.InstantTime(info.CommitTime), spec.Action(info.Action))
		if !ok {
			continue // rolled back by an earlier attempt
		}
		r, err := ct.rollbackInstant(ctx, tl, target, false)
		if err != nil {
			return nil, fmt.Errorf("restore %s to %s: %w", in.Time, savepoint, err)
		}
		record(r.Target, r.Action, r.Metadata)
	}
	meta.TimeTakenInMillis = ct.now().Sub(start).Milliseconds()
	out, err := encodeContainer(avroschema.RestoreMetadata.JSON(), restoreMetadataValue(meta))
	if err != nil {
		return nil, fmt.Errorf("encode restore metadata %s: %w", in.Time, err)
	}
	// Java's finishRestore brings the metadata table in line before the completed file.
	if err := ct.updateMetadata(ctx, table.MetadataUpdate{Instant: in.Time, Restore: true, RestoreTo: savepoint}); err != nil {
		return nil, err
	}
	if err := ct.putOnce(ctx, tl, in.Time, spec.ActionRestore, spec.StateCompleted, out); err != nil {
		return nil, fmt.Errorf("complete restore %s: %w", in.Time, err)
	}
	// Rollbacks after the savepoint (the restore's own and earlier ones of instants that
	// the restore has now removed anyway) leave the timeline, as in Java's finishRestore.
	if tl, err = Reload(ctx, st, tl); err != nil {
		return meta, err
	}
	for _, rb := range tl.Instants {
		if rb.Action != spec.ActionRollback || !savepoint.Less(rb.Time) {
			continue
		}
		if err := ct.remove(ctx, rb, newestFirst...); err != nil {
			return meta, fmt.Errorf("remove rollback %s after restore %s: %w", rb.Time, in.Time, err)
		}
	}
	return meta, nil
}

// resumeRollback finishes the pending rollback instant rb from its plan.
func (ct *Timeline) resumeRollback(ctx context.Context, tl *timeline.Timeline, rb timeline.Instant, publish bool) (spec.InstantTime, spec.Action, *commitmeta.RollbackMetadata, error) {
	st := ct.st
	body, err := tl.ReadRequested(ctx, st, rb)
	if err != nil {
		return "", "", nil, err
	}
	p, err := commitmeta.DecodeRollbackPlan(body)
	if err != nil {
		return "", "", nil, fmt.Errorf("rollback plan of %s: %w", rb.Time, err)
	}
	if p.InstantToRollback == nil {
		return "", "", nil, fmt.Errorf("rollback plan of %s names no instant", rb.Time)
	}
	target, action := spec.InstantTime(p.InstantToRollback.CommitTime), spec.Action(p.InstantToRollback.Action)
	w, err := filesWrittenBy(ctx, st, target, ct.idleBefore())
	if err != nil {
		return "", "", nil, err
	}
	mergeRollbackPlan(st, w, p)
	m, err := ct.runRollback(ctx, tl, rb.Time, target, action, w, false, publish)
	return target, action, m, err
}

// findWriteInstant finds the data instant at t whose action (as on the timeline, in its
// most advanced state) is a.
func findWriteInstant(tl *timeline.Timeline, t spec.InstantTime, a spec.Action) (timeline.Instant, bool) {
	for _, in := range tl.At(t) {
		if in.Action == a || (in.Action.IsDataAction() && in.Action.CompletedAction() == a.CompletedAction()) {
			return in, true
		}
	}
	return timeline.Instant{}, false
}

// DecodeRestorePlan decodes a restore.requested file.
func DecodeRestorePlan(data []byte) (*RestorePlan, error) {
	m, err := decodeRecord(data, "restore plan")
	if err != nil {
		return nil, err
	}
	p := &RestorePlan{Version: 1}
	if v, ok := m["version"].(int32); ok {
		p.Version = v
	}
	infos, err := instantInfos(m["instantsToRollback"])
	if err != nil {
		return nil, fmt.Errorf("decode restore plan: %w", err)
	}
	p.InstantsToRollback = infos
	if sp, ok := m["savepointToRestoreTimestamp"].(string); ok {
		p.SavepointToRestoreTimestamp = sp
	}
	return p, nil
}

// DecodeRestoreMetadata decodes a completed restore file.
func DecodeRestoreMetadata(data []byte) (*RestoreMetadata, error) {
	m, err := decodeRecord(data, "restore metadata")
	if err != nil {
		return nil, err
	}
	out := &RestoreMetadata{Rollbacks: map[string][]*commitmeta.RollbackMetadata{}, Version: 1}
	out.StartRestoreTime, _ = m["startRestoreTime"].(string)
	out.TimeTakenInMillis, _ = m["timeTakenInMillis"].(int64)
	if v, ok := m["version"].(int32); ok {
		out.Version = v
	}
	if a, ok := m["instantsToRollback"].([]any); ok {
		for _, e := range a {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("decode restore metadata: instantsToRollback holds %T", e)
			}
			out.InstantsToRollback = append(out.InstantsToRollback, s)
		}
	}
	if out.RestoreInstantInfo, err = instantInfos(m["restoreInstantInfo"]); err != nil {
		return nil, fmt.Errorf("decode restore metadata: %w", err)
	}
	rms, _ := m["hoodieRestoreMetadata"].(map[string]any)
	rollbackSchema, err := avro.Parse(avroschema.RollbackMetadata.JSON())
	if err != nil {
		return nil, err
	}
	for k, v := range rms {
		list, _ := v.([]any)
		for _, e := range list {
			if e == nil {
				continue
			}
			// One decoder for rollback metadata: re-wrap the nested record in a container
			// of its own schema and hand it to commitmeta.
			c, err := avro.WriteContainer(rollbackSchema, e)
			if err != nil {
				return nil, fmt.Errorf("decode restore metadata of %s: %w", k, err)
			}
			rm, err := commitmeta.DecodeRollback(c)
			if err != nil {
				return nil, fmt.Errorf("decode restore metadata of %s: %w", k, err)
			}
			out.Rollbacks[k] = append(out.Rollbacks[k], rm)
		}
	}
	return out, nil
}

func decodeRecord(data []byte, what string) (map[string]any, error) {
	_, values, err := avro.ReadContainer(data)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("decode %s: avro container holds no record", what)
	}
	m, ok := values[0].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decode %s: top-level value is %T, not a record", what, values[0])
	}
	return m, nil
}

func instantInfos(v any) ([]commitmeta.InstantInfo, error) {
	a, _ := v.([]any)
	out := []commitmeta.InstantInfo{}
	for i, e := range a {
		r, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("instant info %d is %T, not a record", i, e)
		}
		t, _ := r["commitTime"].(string)
		act, _ := r["action"].(string)
		out = append(out, commitmeta.InstantInfo{CommitTime: t, Action: act})
	}
	return out, nil
}

func restoreMetadataValue(m *RestoreMetadata) map[string]any {
	instants := make([]any, 0, len(m.InstantsToRollback))
	for _, t := range m.InstantsToRollback {
		instants = append(instants, t)
	}
	infos := make([]any, 0, len(m.RestoreInstantInfo))
	for _, in := range m.RestoreInstantInfo {
		infos = append(infos, map[string]any{"commitTime": in.CommitTime, "action": in.Action})
	}
	keys := make([]string, 0, len(m.Rollbacks))
	for k := range m.Rollbacks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rollbacks := make(map[string]any, len(keys))
	for _, k := range keys {
		list := make([]any, 0, len(m.Rollbacks[k]))
		for _, rm := range m.Rollbacks[k] {
			list = append(list, rollbackMetadataValue(rm))
		}
		rollbacks[k] = list
	}
	return map[string]any{
		"startRestoreTime":      m.StartRestoreTime,
		"timeTakenInMillis":     m.TimeTakenInMillis,
		"instantsToRollback":    instants,
		"hoodieRestoreMetadata": rollbacks,
		"version":               m.Version,
		"restoreInstantInfo":    infos,
	}
}

func nonNilAny(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// ErrPendingRestore is returned by every write, table service and snapshot read while a
// restore is pending: the table then holds some of the restore's rollbacks and not others,
// a state no commit made. Java 0.14 refuses a new commit the same way
// (BaseHoodieWriteClient.startCommit: "Found pending restore in active timeline. Please
// complete the restore fully before proceeding").
var ErrPendingRestore = errors.New("a restore is pending")

// PendingRestoreInfo describes a restore that was started and not completed.
type PendingRestoreInfo struct {
	Instant spec.InstantTime
	// Savepoint is the savepoint the restore goes back to: the latest completed savepoint
	// before the earliest instant of its plan ("" when none is on the timeline). Plans of
	// version 1 (0.14) do not record it; this is how it is inferred, not a Java rule.
	Savepoint spec.InstantTime
	// Earliest is the earliest instant the plan rolls back ("" for an empty plan): the
	// table as of any instant before it is the savepoint's, whatever the restore did.
	Earliest spec.InstantTime
}

// PendingRestore returns the earliest pending restore on tl, or nil. Its plan is read to
// name the savepoint; an unreadable plan leaves Savepoint and Earliest empty.
func PendingRestore(ctx context.Context, st storage.Storage, tl *timeline.Timeline) *PendingRestoreInfo {
	for _, in := range tl.Instants {
		if in.Action != spec.ActionRestore || in.IsCompleted() {
			continue
		}
		info := &PendingRestoreInfo{Instant: in.Time}
		before := in.Time
		if body, err := tl.ReadRequested(ctx, st, in); err == nil {
			if plan, err := DecodeRestorePlan(body); err == nil {
				for _, x := range plan.InstantsToRollback {
					if t := spec.InstantTime(x.CommitTime); info.Earliest == "" || t.Less(info.Earliest) {
						info.Earliest = t
					}
				}
			}
		}
		if info.Earliest != "" {
			before = info.Earliest
		}
		for _, sp := range tl.Instants {
			if sp.Action == spec.ActionSavepoint && sp.IsCompleted() && sp.Time.Less(before) {
				info.Savepoint = sp.Time
			}
		}
		return info
	}
	return nil
}

// Error is the refusal of what while the restore is pending, with how to finish it.
func (p *PendingRestoreInfo) Error(what string) error {
	how := "finish it with `hudi savepoint TABLE restore SAVEPOINT`"
	if p.Savepoint != "" {
		how = fmt.Sprintf("finish it with `hudi savepoint TABLE restore %s`", p.Savepoint)
	}
	return fmt.Errorf("%s: restore %s is pending (started and not completed), so the table is in a state no commit made; %s: %w",
		what, p.Instant, how, ErrPendingRestore)
}

// CheckNoPendingRestore refuses what (a write, a table service) while tl has a pending
// restore, as Java's startCommit does.
func CheckNoPendingRestore(ctx context.Context, st storage.Storage, tl *timeline.Timeline, what string) error {
	if p := PendingRestore(ctx, st, tl); p != nil {
		return p.Error(what)
	}
	return nil
}
