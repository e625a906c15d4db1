package commit

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// Early conflict detection strategies (hoodie.write.concurrency.early.conflict.detection.strategy),
// Java 0.14's class names.
const (
	// SimpleDirectMarkerStrategy checks other writes' direct markers (one file per data
	// file under .hoodie/.temp/<instant>/<partition>/), without a lock. It is the only one
	// hudi-go runs, and what Java uses with direct markers.
	SimpleDirectMarkerStrategy = "org.apache.hudi.table.marker.SimpleDirectMarkerBasedDetectionStrategy"
	// The same check under a per-file-group lock (DirectMarkerTransactionManager): refused.
	simpleTransactionDirectMarkerStrategy = "org.apache.hudi.table.marker.SimpleTransactionDirectMarkerBasedDetectionStrategy"
	// Java's strategy for timeline-server-based markers, its default for that marker type
	// (ConflictDetectionUtils.getDefaultEarlyConflictDetectionStrategy): refused.
	asyncTimelineServerStrategy = "org.apache.hudi.timeline.service.handlers.marker.AsyncTimelineServerBasedDetectionStrategy"
)

// ErrEarlyConflict marks a write stopped by early conflict detection before it wrote a
// data file of a file group that an earlier, still running write is writing (Java's
// HoodieEarlyConflictDetectionException). It is also an ErrWriteConflict.
var ErrEarlyConflict = errors.New("early conflict detected")

// EarlyConflictDetection is hoodie.write.concurrency.early.conflict.* of a write under
// optimistic concurrency control.
type EarlyConflictDetection struct {
	Enabled bool
	// CheckCommitConflict (…early.conflict.check.commit.conflict) also fails a data file
	// whose file group a commit completed since the write started.
	CheckCommitConflict bool
}

// earlyFromConfig reads and validates the early conflict detection settings for mode.
// Where Java ignores them (single-writer mode) or falls back with a warning (a
// timeline-server strategy with direct markers), hudi-go refuses them.
func earlyFromConfig(cfg *config.Config, mode Mode) (EarlyConflictDetection, error) {
	e := EarlyConflictDetection{Enabled: cfg.Bool(config.EarlyConflictDetectionEnable),
		CheckCommitConflict: cfg.Bool(config.EarlyConflictCheckCommitConflict)}
	for _, k := range []config.Key{config.AsyncConflictDetectorInitialDelayMs, config.AsyncConflictDetectorPeriodMs} {
		if cfg.IsSet(k) {
			return e, fmt.Errorf("%s is not supported: it configures %s, which needs the timeline server a Java writer embeds; hudi-go writes direct markers and detects early conflicts with %s",
				k.Name, asyncTimelineServerStrategy, SimpleDirectMarkerStrategy)
		}
	}
	if !e.Enabled {
		return e, nil
	}
	if mode != OptimisticConcurrency {
		return e, fmt.Errorf("%s=true needs %s=OPTIMISTIC_CONCURRENCY_CONTROL (Java ignores it otherwise): in single-writer mode the table lock keeps other writers out for the whole write",
			config.EarlyConflictDetectionEnable.Name, config.WriteConcurrencyMode.Name)
	}
	// Unset, Java infers the strategy from hoodie.write.markers.type; hudi-go always writes
	// direct markers (Java's fallback without a timeline server), whose strategy this is.
	switch s := strings.TrimSpace(cfg.String(config.EarlyConflictDetectionStrategy)); s {
	case "", SimpleDirectMarkerStrategy:
	case asyncTimelineServerStrategy, "org.apache.hudi.timeline.service.handlers.marker.TimelineServerBasedDetectionStrategy":
		return e, fmt.Errorf("%s=%s is not supported: it checks the markers a Java writer's embedded timeline server batches (hoodie.write.markers.type=TIMELINE_SERVER_BASED); hudi-go has no timeline server and writes direct markers, use %s",
			config.EarlyConflictDetectionStrategy.Name, s, SimpleDirectMarkerStrategy)
	case simpleTransactionDirectMarkerStrategy:
		return e, fmt.Errorf("%s=%s is not supported by hudi-go (its per-file-group marker lock is not implemented); use %s",
			config.EarlyConflictDetectionStrategy.Name, s, SimpleDirectMarkerStrategy)
	default:
		return e, fmt.Errorf("%s=%s: unknown strategy; hudi-go supports %s", config.EarlyConflictDetectionStrategy.Name, s, SimpleDirectMarkerStrategy)
	}
	return e, nil
}

// DetectConflictsEarly makes every later Marker of this write first run the early
// conflict check of e (nothing when e is not enabled). Only data writes call it: as in
// Java (WriteMarkers.create), compaction and clustering create their markers unchecked.
func (t *Txn) DetectConflictsEarly(e EarlyConflictDetection) {
	if e.Enabled {
		t.early = &e
	}
}

// checkEarlyConflict is Java 0.14's SimpleDirectMarkerBasedDetectionStrategy for a data
// file of file group fileID in partition, run before its marker is created
// (DirectMarkerBasedDetectionStrategy.checkMarkerConflict, MarkerUtils.getCandidateInstants
// and hasCommitConflict):
//
//   - the candidates are the marker folders .hoodie/.temp/<instant> of instants earlier
//     than this write's, that are not a compaction or replacecommit pending on the
//     timeline the write began on, and whose heartbeat is alive (a dead writer's markers
//     block nobody);
//   - a candidate conflicts when a marker in its folder for partition names fileID;
//   - with CheckCommitConflict, so does a commit, deltacommit or replacecommit completed
//     since the write began whose write stats name fileID.
//
// Writes with later instants are not checked: the later of two overlapping writes is the
// one that fails, the earlier goes on (and the commit-time check still guards it).
func (t *Txn) checkEarlyConflict(ctx context.Context, partition string, fileID string) error {
	st := t.ct.st
	group := FileGroup{Partition: partition, FileID: fileID}
	dirs, err := storage.ListNames(ctx, st, TempDir)
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("early conflict check: list %s: %w", TempDir, err)
	}
	for _, d := range dirs {
		other := spec.InstantTime(d.Name)
		if !d.IsDir || other.Compare(t.Instant) >= 0 || t.pendingService(other) {
			continue
		}
		alive, err := HeartbeatAlive(ctx, st, other, t.ct.now(), t.ct.hb)
		if err != nil {
			return fmt.Errorf("early conflict check: heartbeat of %s: %w", other, err)
		}
		if !alive {
			continue
		}
		dir := storage.Join(TempDir, d.Name, partition)
		markers, err := storage.ListNames(ctx, st, dir)
		if errors.Is(err, storage.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("early conflict check: list %s: %w", dir, err)
		}
		for _, m := range markers {
			if strings.Contains(m.Name, fileID) {
				return fmt.Errorf("%w: %w: instant %s would write file group %s, which the running write of instant %s is writing (marker %s); nothing was written to it, this write is rolled back, run it again",
					ErrWriteConflict, ErrEarlyConflict, t.Instant, group, other, storage.Join(dir, m.Name))
			}
		}
	}
	if !t.early.CheckCommitConflict {
		return nil
	}
	tl, err := Reload(ctx, st, t.tl)
	if err != nil {
		return fmt.Errorf("early conflict check: %w", err)
	}
	for _, in := range tl.Instants {
		if !in.IsCompleted() || !isCommitAction(in.Action) {
			continue
		}
		if was, ok := t.tl.Get(in.Time, in.Action); ok && was.IsCompleted() {
			continue
		}
		b, err := tl.ReadCompleted(ctx, st, in)
		if err != nil {
			return fmt.Errorf("early conflict check: %w", err)
		}
		m, err := commitmeta.Decode(b)
		if err != nil {
			return fmt.Errorf("early conflict check: commit metadata of %s: %w", in.Time, err)
		}
		for _, s := range m.PartitionToWriteStats[partition] {
			if s.FileID == fileID {
				return fmt.Errorf("%w: %w: instant %s would write file group %s, which %s %s wrote and committed since this write started; nothing was written to it, this write is rolled back, run it again",
					ErrWriteConflict, ErrEarlyConflict, t.Instant, group, in.Action, in.Time)
			}
		}
	}
	return nil
}

// pendingService reports whether other is a compaction, replacecommit or clustering
// pending on the timeline the write began on: Java leaves table services out of early
// detection.
func (t *Txn) pendingService(other spec.InstantTime) bool {
	for _, in := range t.tl.At(other) {
		if !in.IsCompleted() && (in.Action == spec.ActionCompaction || PendingReplaceOrClustering(in)) {
			return true
		}
	}
	return false
}

// isCommitAction is Java's commits timeline: commit, deltacommit and replacecommit.
func isCommitAction(a spec.Action) bool {
	return a == spec.ActionCommit || a == spec.ActionDeltaCommit || a == spec.ActionReplaceCommit
}

// markerFileID is the file group a data file name belongs to: the part before the first
// "_" of a base file name, or of a log file name without its leading dot.
func markerFileID(fileName string) string {
	if lf, ok := spec.ParseLogFileName(fileName); ok {
		return string(lf.FileID)
	}
	if b, ok := spec.ParseBaseFileName(fileName); ok {
		return string(b.FileID)
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(fileName, "."), "_")
	return id
}
