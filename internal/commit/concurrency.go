package commit

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit/lock"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Mode is hoodie.write.concurrency.mode.
type Mode string

// Concurrency modes of Hudi 0.14 (WriteConcurrencyMode).
const (
	// SingleWriter: one writer at a time. Java takes no lock in this mode and leaves it to
	// the user to run one writer; hudi-go holds the table lock for the whole write instead
	// (a behaviour Java does not define), so a second writer waits for the first rather
	// than losing its updates or the first's.
	SingleWriter Mode = "SINGLE_WRITER"
	// OptimisticConcurrency: writers run at once, each takes the lock only to start its
	// instant and to commit, and the commit fails on a file group another instant wrote
	// since the write started (Java's SimpleConcurrentFileWritesConflictResolutionStrategy).
	OptimisticConcurrency Mode = "OPTIMISTIC_CONCURRENCY_CONTROL"
)

// FailedWritesPolicy is hoodie.cleaner.policy.failed.writes.
type FailedWritesPolicy string

// Failed-write policies (HoodieFailedWritesCleaningPolicy).
const (
	FailedWritesEager FailedWritesPolicy = "EAGER" // each write first rolls back the failed ones
	FailedWritesLazy  FailedWritesPolicy = "LAZY"  // the cleaner rolls back writes whose heartbeat expired
	FailedWritesNever FailedWritesPolicy = "NEVER"
)

// ErrWriteConflict marks a commit refused because another instant changed a file group
// this write changed since it started (Java's HoodieWriteConflictException).
var ErrWriteConflict = errors.New("write conflict")

// Concurrency is how one operation coordinates with other writers and table services of
// the table.
type Concurrency struct {
	Mode         Mode
	FailedWrites FailedWritesPolicy
	Heartbeat    HeartbeatOptions
	// Lock is the table lock (nil: none is taken; only tests that drive one writer leave
	// it unset).
	Lock *lock.Manager
	// Early is early conflict detection (optimistic concurrency control only).
	Early EarlyConflictDetection
}

// ConcurrencyFromConfig reads hoodie.write.concurrency.mode, the failed-writes policy, the
// heartbeat and the lock settings, validated as Java validates them, and opens the lock
// provider for the table rooted at st.
//
// As Java 0.14 (HoodieWriteConfig.autoAdjustConfigsForConcurrencyMode and validate),
// optimistic concurrency control sets hoodie.cleaner.policy.failed.writes to LAZY when it
// is unset; where Java silently replaces an explicit EAGER or NEVER, hudi-go refuses it
// (a setting is honoured or refused, never ignored). The lock provider of single-writer
// mode is the configured one, or the FileSystemBasedLockProvider (the .hoodie/lock file)
// when hoodie.write.lock.provider is not set; optimistic concurrency control uses the
// configured one, whose default is Java's ZookeeperBasedLockProvider.
func ConcurrencyFromConfig(cfg *config.Config, st storage.Storage, tableName string) (Concurrency, error) {
	c := Concurrency{
		Mode:         Mode(strings.ToUpper(cfg.String(config.WriteConcurrencyMode))),
		FailedWrites: FailedWritesPolicy(strings.ToUpper(cfg.String(config.FailedWritesCleanerPolicy))),
		Heartbeat: HeartbeatOptions{
			Interval:        time.Duration(cfg.Long(config.HeartbeatIntervalMs)) * time.Millisecond,
			TolerableMisses: cfg.Int(config.HeartbeatTolerableMisses),
		},
	}
	switch c.FailedWrites {
	case FailedWritesEager, FailedWritesLazy, FailedWritesNever:
	default:
		return c, fmt.Errorf("%s=%q: want EAGER, LAZY or NEVER", config.FailedWritesCleanerPolicy.Name, c.FailedWrites)
	}
	if c.Heartbeat.Interval <= 0 || c.Heartbeat.TolerableMisses <= 0 {
		return c, fmt.Errorf("%s=%d and %s=%d: want positive values", config.HeartbeatIntervalMs.Name, c.Heartbeat.Interval.Milliseconds(),
			config.HeartbeatTolerableMisses.Name, c.Heartbeat.TolerableMisses)
	}
	switch c.Mode {
	case SingleWriter:
	case OptimisticConcurrency:
		if !cfg.IsSet(config.FailedWritesCleanerPolicy) {
			c.FailedWrites = FailedWritesLazy
		} else if c.FailedWrites != FailedWritesLazy {
			return c, fmt.Errorf("%s=%s: to enable optimistic concurrency control, set %s=LAZY (a writer must not roll back another's running write)",
				config.FailedWritesCleanerPolicy.Name, c.FailedWrites, config.FailedWritesCleanerPolicy.Name)
		}
	default:
		return c, fmt.Errorf("%s=%s: want SINGLE_WRITER or OPTIMISTIC_CONCURRENCY_CONTROL", config.WriteConcurrencyMode.Name, c.Mode)
	}
	if s := cfg.String(config.WriteConflictResolutionStrategy); s != config.WriteConflictResolutionStrategy.Default {
		return c, fmt.Errorf("%s=%s is not supported: hudi-go checks conflicts as %s does", config.WriteConflictResolutionStrategy.Name, s,
			config.WriteConflictResolutionStrategy.Default)
	}
	var err error
	if c.Early, err = earlyFromConfig(cfg, c.Mode); err != nil {
		return c, err
	}
	if n := cfg.Int(config.NumRetriesOnConflictFailures); n != 0 {
		return c, fmt.Errorf("%s=%d is not supported by hudi-go: a write that loses a conflict fails and is rolled back; run it again", config.NumRetriesOnConflictFailures.Name, n)
	}
	lo, err := lock.OptionsFromConfig(cfg, tableName)
	if c.Mode == SingleWriter && !lo.ProviderSet {
		lo.Provider = lock.FileSystemProvider
		err = lo.Validate()
	}
	if err != nil {
		return c, err
	}
	if c.Lock, err = lock.NewManager(lo, st); err != nil {
		return c, err
	}
	return c, nil
}

// Close closes the lock provider (releasing the lock if still held).
func (c Concurrency) Close() {
	if c.Lock != nil {
		_ = c.Lock.Close()
	}
}

// WriteStart is what a write saw of the timeline when it planned: the conflict check
// looks only at what changed after it.
type WriteStart struct {
	completed map[spec.InstantTime]bool
	pending   map[spec.InstantTime]spec.Action
	// latestWrite is the latest completed commit, deltacommit or replacecommit (by
	// instant time) the write planned against.
	latestWrite timeline.Instant
}

// NewWriteStart records the completed and pending instants of tl.
func NewWriteStart(tl *timeline.Timeline) WriteStart {
	s := WriteStart{completed: map[spec.InstantTime]bool{}, pending: map[spec.InstantTime]spec.Action{}}
	for _, in := range tl.Instants {
		if in.IsCompleted() {
			s.completed[in.Time] = true
			if in.Action.IsDataAction() && s.latestWrite.Time.Less(in.Time) {
				s.latestWrite = in
			}
		} else {
			s.pending[in.Time] = in.Action
		}
	}
	return s
}

// archivedPast reports whether the latest commit the write planned against has left the
// active timeline of tl (archived, or removed by a restore). Archival moves commits out
// oldest first, so then every commit that completed after the write planned and before
// that commit's archival may be gone too, and the conflict check cannot see what they
// changed: a clustering that replaced the write's file group, or a commit that rewrote
// it. Before the write's own requested instant exists nothing pins them on the timeline.
func (s WriteStart) archivedPast(tl *timeline.Timeline) bool {
	if s.latestWrite.Time == "" {
		return false
	}
	in, ok := tl.Get(s.latestWrite.Time, s.latestWrite.Action)
	return !ok || !in.IsCompleted()
}

// FileGroup names one file group of the table.
type FileGroup struct {
	Partition string
	FileID    string
}

func (g FileGroup) String() string {
	if g.Partition == "" {
		return g.FileID
	}
	return g.Partition + "/" + g.FileID
}

// MutatedFileGroups is the set of file groups a commit's metadata writes or replaces
// (Java's ConcurrentOperation.getMutatedPartitionAndFileIds): the file IDs of its write
// stats and, for a replacecommit, the replaced ones. Empty file IDs (the insert stat of
// an inflight profile) are left out.
func MutatedFileGroups(m *commitmeta.CommitMetadata) map[FileGroup]bool {
	out := map[FileGroup]bool{}
	for p, stats := range m.PartitionToWriteStats {
		for _, s := range stats {
			if s.FileID != "" {
				out[FileGroup{p, s.FileID}] = true
			}
		}
	}
	for p, ids := range m.PartitionToReplaceFileIDs {
		for _, id := range ids {
			out[FileGroup{p, id}] = true
		}
	}
	return out
}

// ResolveConflicts checks, on tl read under the table lock, that no instant changed a file
// group in mine since the write started, Java's
// SimpleConcurrentFileWritesConflictResolutionStrategy (TransactionUtils.
// resolveWriteConflictIfAny): the candidates are the commits, deltacommits and
// replacecommits completed since the start, and the compaction and clustering plans
// scheduled since; a compaction that was already pending at the start is no conflict (the
// write named its log files after it, as Java resolves a COMPACT with a lower instant).
//
// hudi-go takes "since the start" from the timeline the write planned against rather than
// from instant times (Java takes plans after its own instant and commits after the last
// completed one): a plan scheduled with an earlier instant time that the write did not see
// is a conflict too, so a compaction that raced the write's planning cannot leave the
// write's log blocks behind in the old file slice.
func ResolveConflicts(ctx context.Context, st storage.Storage, tl *timeline.Timeline, self spec.InstantTime,
	mine map[FileGroup]bool, start WriteStart) error {
	if len(mine) == 0 {
		return nil
	}
	if start.archivedPast(tl) {
		gone := fmt.Sprintf("%s %s, the latest commit this write planned against, has left the active timeline (archived or restored) since: what completed after it cannot be checked",
			start.latestWrite.Action.CompletedAction(), start.latestWrite.Time)
		if self == "" {
			return fmt.Errorf("%w: %s; nothing was written, run it again", ErrWriteConflict, gone)
		}
		return fmt.Errorf("%w: instant %s: %s; this write is rolled back, run it again", ErrWriteConflict, self, gone)
	}
	for _, in := range tl.Instants {
		if in.Time == self {
			continue
		}
		var groups map[FileGroup]bool
		var what string
		switch {
		case in.IsCompleted() && (in.Action == spec.ActionCommit || in.Action == spec.ActionDeltaCommit || in.Action == spec.ActionReplaceCommit):
			if start.completed[in.Time] || start.pending[in.Time] == spec.ActionCompaction {
				continue
			}
			b, err := tl.ReadCompleted(ctx, st, in)
			if err != nil {
				return fmt.Errorf("conflict check: %w", err)
			}
			m, err := commitmeta.Decode(b)
			if err != nil {
				return fmt.Errorf("conflict check: commit metadata of %s: %w", in.Time, err)
			}
			groups, what = MutatedFileGroups(m), fmt.Sprintf("%s %s (completed since this write started)", in.Action, in.Time)
			if m.OperationType == "COMPACT" {
				what = fmt.Sprintf("compaction %s (scheduled and completed after this write planned)", in.Time)
			}
		case !in.IsCompleted() && in.Action == spec.ActionCompaction:
			if _, seen := start.pending[in.Time]; seen {
				continue
			}
			b, err := tl.ReadRequested(ctx, st, in)
			if err != nil {
				return fmt.Errorf("conflict check: %w", err)
			}
			plan, err := commitmeta.DecodeCompactionPlan(b)
			if err != nil {
				return fmt.Errorf("conflict check: compaction plan %s: %w", in.Time, err)
			}
			groups = map[FileGroup]bool{}
			for _, op := range plan.Operations {
				groups[FileGroup{op.PartitionPath, op.FileID}] = true
			}
			what = fmt.Sprintf("pending compaction %s (scheduled after this write planned)", in.Time)
		case PendingReplaceOrClustering(in):
			if _, seen := start.pending[in.Time]; seen {
				continue
			}
			var err error
			if groups, err = pendingReplaceGroups(ctx, st, tl, in); err != nil {
				return err
			}
			what = fmt.Sprintf("pending %s %s (scheduled after this write planned)", in.Action, in.Time)
		default:
			continue
		}
		var clash []string
		for g := range mine {
			if groups[g] {
				clash = append(clash, g.String())
			}
		}
		if len(clash) > 0 {
			sort.Strings(clash)
			more := ""
			if len(clash) > 3 {
				more = fmt.Sprintf(" and %d more", len(clash)-3)
				clash = clash[:3]
			}
			if self == "" {
				return fmt.Errorf("%w: this write would change file group %s%s, which %s also changes; nothing was written, run it again",
					ErrWriteConflict, strings.Join(clash, ", "), more, what)
			}
			return fmt.Errorf("%w: instant %s changes file group %s%s, which %s also changes; this write is rolled back, run it again",
				ErrWriteConflict, self, strings.Join(clash, ", "), more, what)
		}
	}
	return nil
}

// pendingReplaceGroups is what a pending replacecommit will change (ConcurrentOperation):
// a clustering plan's input file groups, or the profile an insert_overwrite's inflight
// file holds.
func pendingReplaceGroups(ctx context.Context, st storage.Storage, tl *timeline.Timeline, in timeline.Instant) (map[FileGroup]bool, error) {
	groups := map[FileGroup]bool{}
	if b, err := tl.ReadRequested(ctx, st, in); err == nil && len(b) > 0 {
		r, err := commitmeta.DecodeRequestedReplace(b)
		if err != nil {
			return nil, fmt.Errorf("conflict check: requested replace metadata of %s: %w", in.Time, err)
		}
		for p, ids := range r.InputFileIDs() {
			for _, id := range ids {
				groups[FileGroup{p, id}] = true
			}
		}
	}
	if p, ok := in.File(spec.StateInflight); ok {
		b, err := st.ReadFile(ctx, p)
		if err != nil && !errors.Is(err, storage.ErrNotExist) {
			return nil, fmt.Errorf("conflict check: %w", err)
		}
		if len(b) > 0 {
			m, err := commitmeta.Decode(b)
			if err != nil {
				return nil, fmt.Errorf("conflict check: inflight metadata of %s: %w", in.Time, err)
			}
			for g := range MutatedFileGroups(m) {
				groups[g] = true
			}
		}
	}
	return groups, nil
}
