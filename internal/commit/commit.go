// Package commit is the only code that changes a table's timeline: it allocates instant
// times, writes the requested and inflight files, markers and heartbeats, publishes the
// completed instant, schedules and completes table-service instants, and rolls back,
// restores and archives. Every one of these transitions is a method of one handle,
// Timeline, which owns the storage, the clock, the time zone, the heartbeat settings and
// the table lock, and writes and deletes timeline files in one place each, so crash safety
// is reviewable there. The conflict check (ResolveConflicts) and the concurrency settings
// (Concurrency) live here too.
package commit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
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

// Txn is one instant being executed (a write, a compaction, a clustering): requested and
// inflight, with a live heartbeat, until Complete publishes it.
type Txn struct {
	ct        *Timeline
	tl        *timeline.Timeline // the snapshot it began on: its layout and folder
	Instant   spec.InstantTime
	Action    spec.Action
	heartbeat *Heartbeat
	done      bool
	// early is the early conflict check run before each marker (nil: none).
	early *EarlyConflictDetection
}

// Begin starts a write of the given action: it allocates an instant, creates the
// requested file (create-if-absent, so two writers can never share an instant), the
// inflight file with the write's profile, and starts the heartbeat.
func (ct *Timeline) Begin(ctx context.Context, tl *timeline.Timeline, action spec.Action, requested []byte,
	inflight *commitmeta.CommitMetadata) (*Txn, error) {
	if err := CheckNoPendingRestore(ctx, ct.st, tl, "start "+string(action)); err != nil {
		return nil, err
	}
	inst, hbt, err := ct.request(ctx, tl, action, requested, "request instant", true)
	if err != nil {
		return nil, err
	}
	txn := &Txn{ct: ct, tl: tl, Instant: inst, Action: action, heartbeat: hbt}
	// A nil profile is an empty inflight file, as Java's bulk_insert writes it.
	var body []byte
	if inflight != nil {
		var err error
		if body, err = tl.Layout.EncodeCommitMetadata(inflight); err != nil {
			txn.heartbeat.Stop()
			return nil, err
		}
	}
	if err := ct.put(ctx, tl, inst, action, spec.StateInflight, body); err != nil {
		txn.heartbeat.Stop()
		return nil, fmt.Errorf("mark instant %s inflight: %w", inst, err)
	}
	return txn, nil
}

// BeginAt starts a write of the given action at the given instant time instead of a new
// one, without a heartbeat: a metadata-table deltacommit, which takes the instant time of
// the data-table instant it records (Java's metadata writer calls startCommitWithTime
// with it). It runs under the data table's lock, which is what keeps two writers apart;
// a pending instant left by a dead one is rolled back by the next (RollbackFailedWrites,
// EAGER). The requested file is created only if absent: an instant already there is
// ErrExist (the caller rolls it back first).
func (ct *Timeline) BeginAt(ctx context.Context, tl *timeline.Timeline, inst spec.InstantTime, action spec.Action, requested []byte,
	inflight *commitmeta.CommitMetadata) (*Txn, error) {
	if err := ct.put(ctx, tl, inst, action, spec.StateRequested, requested); err != nil {
		return nil, fmt.Errorf("request instant %s: %w", inst, err)
	}
	var body []byte
	if inflight != nil {
		var err error
		// JSON on layout 1, an Avro container on layout 2 (the inflight files of the
		// metadata tables of the v9 fixtures, e.g. cow/v9_txns_simple_meta).
		if body, err = tl.Layout.EncodeCommitMetadata(inflight); err != nil {
			return nil, err
		}
	}
	if err := ct.put(ctx, tl, inst, action, spec.StateInflight, body); err != nil {
		return nil, fmt.Errorf("mark instant %s inflight: %w", inst, err)
	}
	return &Txn{ct: ct, tl: tl, Instant: inst, Action: action}, nil
}

// MarkerPath is the marker of a data file written by instant.
func MarkerPath(instant spec.InstantTime, partition, fileName string, ioType IOType) string {
	return storage.Join(TempDir, string(instant), partition, fileName+".marker."+string(ioType))
}

// Marker records, before the file is written, that this write produces partition/fileName,
// so a rollback can find and delete it even if the write dies before committing. With
// early conflict detection (DetectConflictsEarly) it first checks the file's file group
// against other running writes and fails with ErrEarlyConflict, creating no marker, as
// Java's WriteMarkers.create does before its data file is opened.
func (t *Txn) Marker(ctx context.Context, partition, fileName string, ioType IOType) error {
	if t.early != nil {
		if err := t.checkEarlyConflict(ctx, partition, markerFileID(fileName)); err != nil {
			return err
		}
	}
	if err := writeFile(ctx, t.ct.st, MarkerPath(t.Instant, partition, fileName, ioType), nil); err != nil && !errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("create marker for %s: %w", storage.Join(partition, fileName), err)
	}
	return nil
}

// Complete publishes the instant: writing the completed file is the atomic commit point.
// It holds the table lock while doing so (re-entered when the caller holds it already, as
// a write does around its conflict check), as Java's clients complete an instant inside a
// transaction, so a completed file never lands between another writer's conflict check
// and its commit. Markers and the heartbeat are removed afterwards; failing to remove
// them leaves a committed table that the next writer tidies.
func (t *Txn) Complete(ctx context.Context, meta *commitmeta.CommitMetadata) error {
	body, err := t.tl.Layout.EncodeCommitMetadata(meta)
	if err != nil {
		return err
	}
	release, err := t.ct.Lock(ctx, fmt.Sprintf("complete %s %s", t.Action, t.Instant))
	if err != nil {
		return err
	}
	defer release()
	// The metadata table learns of the instant first (Java's writeTableMetadata, inside the
	// commit's transaction): a reader that sees the completed file finds its files there.
	if err := t.ct.updateMetadata(ctx, table.MetadataUpdate{Instant: t.Instant, Commit: meta}); err != nil {
		return err
	}
	if err := t.ct.put(ctx, t.tl, t.Instant, t.Action, spec.StateCompleted, body); err != nil {
		return fmt.Errorf("complete instant %s: %w", t.Instant, err)
	}
	t.done = true
	_ = storage.DeleteTree(ctx, t.ct.st, storage.Join(TempDir, string(t.Instant)))
	if t.heartbeat != nil {
		t.heartbeat.Stop()
		_ = t.ct.st.Delete(ctx, HeartbeatPath(t.Instant))
	}
	return nil
}

// Close stops the heartbeat of a write that did not complete; its files stay for the
// next writer's rollback (the heartbeat file stays too, and expires).
func (t *Txn) Close() {
	if !t.done && t.heartbeat != nil {
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
