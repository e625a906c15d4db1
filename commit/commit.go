// Package commit is the only code that moves data-table instants forward: it allocates
// instant times, writes the requested and inflight files, markers and heartbeats, publishes
// the completed instant, and rolls back writes that failed or were killed. Keeping every
// timeline transition here makes crash safety reviewable in one place.
package commit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// TempDir holds the markers of inflight writes, relative to the table root.
const TempDir = ".hoodie/.temp"

// IOType says how a data file was produced; it ends every marker name.
type IOType string

// Marker IO types (Java's IOType).
const (
	IOCreate IOType = "CREATE" // a new base file
	IOMerge  IOType = "MERGE"  // a base file rewritten from an older one
	IOAppend IOType = "APPEND" // a log file appended to
)

// Clock gives the current time; tests replace it.
type Clock func() time.Time

// Txn is one write in progress: an instant that is requested and inflight.
type Txn struct {
	st        storage.Storage
	layout    int
	dir       string
	Instant   spec.InstantTime
	Action    spec.Action
	heartbeat *Heartbeat
	done      bool
}

// NewInstantTime returns an instant strictly greater than every instant on the active
// timeline and than the wall clock's previous instants, formatted in loc (the timeline
// time zone: LOCAL by default in Hudi 0.14).
func NewInstantTime(tl *timeline.Timeline, now time.Time, loc *time.Location) spec.InstantTime {
	t := spec.InstantTimeOf(now, loc)
	if n := len(tl.Instants); n > 0 {
		last := tl.Instants[n-1].Time
		if t.Compare(last) <= 0 {
			lt, err := last.Time(loc)
			if err == nil {
				t = spec.InstantTimeOf(lt.Add(time.Millisecond), loc)
			}
		}
	}
	return t
}

// Begin starts a write of the given action: it allocates an instant, creates the
// requested file (create-if-absent, so two writers can never share an instant), the
// inflight file with the write's profile, and starts the heartbeat.
func Begin(ctx context.Context, st storage.Storage, tl *timeline.Timeline, action spec.Action, requested []byte,
	inflight *commitmeta.CommitMetadata, now Clock, loc *time.Location, hb HeartbeatOptions) (*Txn, error) {
	if now == nil {
		now = time.Now
	}
	if err := CheckNoPendingRestore(ctx, st, tl, "start "+string(action)); err != nil {
		return nil, err
	}
	var inst spec.InstantTime
	var hbt *Heartbeat
	for attempt := 0; ; attempt++ {
		inst = NewInstantTime(tl, now(), loc)
		if attempt > 0 {
			// Another writer took our instant: move past it.
			lt, _ := inst.Time(loc)
			inst = spec.InstantTimeOf(lt.Add(time.Duration(attempt)*time.Millisecond), loc)
		}
		// The heartbeat exists before the instant does, so no other writer ever sees a
		// pending instant of ours without a live heartbeat.
		var err error
		if hbt, err = StartHeartbeat(ctx, st, inst, hb); err == nil {
			name := spec.InstantFileName{Instant: inst, Action: action, State: spec.StateRequested}.FileName(tl.Layout)
			if err = writeFile(ctx, st, storage.Join(tl.Dir, name), requested); err == nil {
				break
			}
			hbt.Stop()
			_ = st.Delete(ctx, HeartbeatPath(inst))
		}
		if !errors.Is(err, storage.ErrExist) || attempt >= 20 {
			return nil, fmt.Errorf("request instant %s: %w", inst, err)
		}
	}
	txn := &Txn{st: st, layout: tl.Layout, dir: tl.Dir, Instant: inst, Action: action, heartbeat: hbt}
	// A nil profile is an empty inflight file, as Java's bulk_insert writes it.
	var body []byte
	if inflight != nil {
		var err error
		if body, err = commitmeta.EncodeJSON(inflight); err != nil {
			txn.heartbeat.Stop()
			return nil, err
		}
	}
	name := spec.InstantFileName{Instant: inst, Action: action, State: spec.StateInflight}.FileName(tl.Layout)
	if err := writeFile(ctx, st, storage.Join(tl.Dir, name), body); err != nil {
		txn.heartbeat.Stop()
		return nil, fmt.Errorf("mark instant %s inflight: %w", inst, err)
	}
	return txn, nil
}

// MarkerPath is the marker of a data file written by instant.
func MarkerPath(instant spec.InstantTime, partition, fileName string, ioType IOType) string {
	return storage.Join(TempDir, string(instant), partition, fileName+".marker."+string(ioType))
}

// Marker records, before the file is written, that this write produces partition/fileName,
// so a rollback can find and delete it even if the write dies before committing.
func (t *Txn) Marker(ctx context.Context, partition, fileName string, ioType IOType) error {
	if err := writeFile(ctx, t.st, MarkerPath(t.Instant, partition, fileName, ioType), nil); err != nil && !errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("create marker for %s: %w", storage.Join(partition, fileName), err)
	}
	return nil
}

// Complete publishes the instant: writing the completed file is the atomic commit point.
// Markers and the heartbeat are removed afterwards; failing to remove them leaves a
// committed table that the next writer tidies.
func (t *Txn) Complete(ctx context.Context, meta *commitmeta.CommitMetadata) error {
	body, err := commitmeta.EncodeJSON(meta)
	if err != nil {
		return err
	}
	name := spec.InstantFileName{Instant: t.Instant, Action: t.Action, State: spec.StateCompleted}.FileName(t.layout)
	if err := writeFile(ctx, t.st, storage.Join(t.dir, name), body); err != nil {
		return fmt.Errorf("complete instant %s: %w", t.Instant, err)
	}
	t.done = true
	t.heartbeat.Stop()
	_ = storage.DeleteTree(ctx, t.st, storage.Join(TempDir, string(t.Instant)))
	_ = t.st.Delete(ctx, HeartbeatPath(t.Instant))
	return nil
}

// Close stops the heartbeat of a write that did not complete; its files stay for the
// next writer's rollback (the heartbeat file stays too, and expires).
func (t *Txn) Close() {
	if !t.done {
		t.heartbeat.Stop()
	}
}

func writeFile(ctx context.Context, st storage.Storage, p string, body []byte) error {
	w, err := st.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, bytes.NewReader(body)); err != nil {
		_ = storage.Abort(w) // publish no truncated timeline file
		return err
	}
	return w.Close()
}
