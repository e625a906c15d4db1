// Package timeline loads a table's timeline: the instants under .hoodie (layout 1, table
// version 6) or .hoodie/timeline (layout 2, table versions 8+), each with its action, its
// most advanced state and, for layout 2, its completion time; and the archived timeline
// (archived.go: the v1 archive logs in archived_v1.go, the LSM history in archived_lsm.go).
package timeline

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// MetaDir is the table's metadata folder.
const MetaDir = ".hoodie"

// Instant is one instant of the timeline, in its most advanced state.
type Instant struct {
	Time spec.InstantTime
	// Action is the action of the instant's most advanced state as named in its file: a
	// completed compaction is a "commit", a pending one a "compaction".
	Action spec.Action
	State  spec.State
	// Completion is the completion time (layout 2 completed instants only).
	Completion spec.InstantTime
	// Requested is the action this instant was requested as (compaction, clustering,
	// commit, …): it tells a completed compaction from a plain commit on layout 2, and on
	// layout 1 whenever the requested file is still there.
	Requested spec.Action
	// files of each state present, relative to the storage root
	files [3]string
}

// IsCompleted reports whether the instant is completed.
func (i Instant) IsCompleted() bool { return i.State == spec.StateCompleted }

// File returns the timeline file of the given state, if present.
func (i Instant) File(s spec.State) (string, bool) {
	f := i.files[s]
	return f, f != ""
}

// Timeline is the active timeline, sorted by instant time.
type Timeline struct {
	Layout   Layout
	Dir      string // directory of the timeline files, relative to the table root
	Instants []Instant
	index    map[spec.InstantTime][]int
	// archive answers the completion times of archived instants (layout 2; WithArchive).
	archive *archivedCompletions
}

// Load lists the active timeline of a table of the given version.
func Load(ctx context.Context, st storage.Storage, version spec.TableVersion, timelinePath string) (*Timeline, error) {
	layout := LayoutOf(version)
	dir := layout.Dir(timelinePath)
	// Only names are needed: a full List stats every file of .hoodie.
	entries, err := storage.ListNames(ctx, st, dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) && dir != MetaDir {
			entries = nil // a v8+ table before its first instant may lack its timeline folder
		} else {
			return nil, fmt.Errorf("list timeline %s: %w", dir, err)
		}
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir {
			names = append(names, e.Name)
		}
	}
	t := FromFileNames(layout, dir, names)
	return t, nil
}

type groupKey struct {
	time   spec.InstantTime
	action spec.Action // the completed action family
}

// FromFileNames builds a timeline from the names of files in its directory; names that
// are not instant files are ignored.
func FromFileNames(layout Layout, dir string, names []string) *Timeline {
	groups := map[groupKey]*Instant{}
	var order []groupKey
	for _, n := range names {
		f, ok := spec.ParseInstantFileName(n)
		if !ok {
			continue
		}
		k := groupKey{f.Instant, f.Action.CompletedAction()}
		in := groups[k]
		if in == nil {
			in = &Instant{Time: f.Instant, State: -1}
			groups[k] = in
			order = append(order, k)
		}
		in.files[f.State] = storage.Join(dir, n)
		if f.State == spec.StateRequested || in.Requested == "" || (f.State == spec.StateInflight && in.files[spec.StateRequested] == "") {
			in.Requested = f.Action
		}
		if f.State > in.State {
			in.State = f.State
			in.Action = f.Action
			in.Completion = f.Completion
		}
	}
	t := &Timeline{Layout: layout, Dir: dir}
	for _, k := range order {
		t.Instants = append(t.Instants, *groups[k])
	}
	sort.SliceStable(t.Instants, func(a, b int) bool {
		x, y := t.Instants[a], t.Instants[b]
		if c := x.Time.Compare(y.Time); c != 0 {
			return c < 0
		}
		return x.State < y.State
	})
	t.reindex()
	return t
}

func (t *Timeline) reindex() {
	t.index = make(map[spec.InstantTime][]int, len(t.Instants))
	for i, in := range t.Instants {
		t.index[in.Time] = append(t.index[in.Time], i)
	}
}

// Filter returns the instants for which keep is true, in order.
func (t *Timeline) Filter(keep func(Instant) bool) []Instant {
	var out []Instant
	for _, in := range t.Instants {
		if keep(in) {
			out = append(out, in)
		}
	}
	return out
}

// Completed returns the completed instants.
func (t *Timeline) Completed() []Instant {
	return t.Filter(func(in Instant) bool { return in.IsCompleted() })
}

// DataInstants returns the completed instants that change data: commit (including
// compaction), deltacommit and replacecommit (including clustering), in time order.
func (t *Timeline) DataInstants() []Instant {
	return t.Filter(func(in Instant) bool { return in.IsCompleted() && in.Action.IsDataAction() })
}

// Get returns the instant at time ts whose completed action family is a, if any.
func (t *Timeline) Get(ts spec.InstantTime, a spec.Action) (Instant, bool) {
	for _, i := range t.index[ts] {
		if t.Instants[i].Action.CompletedAction() == a.CompletedAction() {
			return t.Instants[i], true
		}
	}
	return Instant{}, false
}

// At returns every instant with time ts (normally one).
func (t *Timeline) At(ts spec.InstantTime) []Instant {
	var out []Instant
	for _, i := range t.index[ts] {
		out = append(out, t.Instants[i])
	}
	return out
}

// CompletedDataInstant returns the completed data instant at ts, if there is one.
func (t *Timeline) CompletedDataInstant(ts spec.InstantTime) (Instant, bool) {
	for _, i := range t.index[ts] {
		in := t.Instants[i]
		if in.IsCompleted() && in.Action.IsDataAction() {
			return in, true
		}
	}
	return Instant{}, false
}

// First returns the earliest instant of the active timeline, whatever its state.
func (t *Timeline) First() (Instant, bool) {
	if len(t.Instants) == 0 {
		return Instant{}, false
	}
	return t.Instants[0], true
}

// IsBeforeStart reports whether ts is older than every write instant (commit, delta
// commit, replace commit, compaction; any state) of the active timeline. Java treats such
// instants as archived and therefore committed (containsOrBeforeTimelineStarts, asked of
// the file-system view's write timeline). Cleans, rollbacks and savepoints do not count:
// archival moves them by their own rules, so one can stay on the active timeline older than
// commits already archived, which must still count as committed. Pending writes do count
// (Java drops all but compactions): the files of a failed write are never committed.
func (t *Timeline) IsBeforeStart(ts spec.InstantTime) bool {
	for _, in := range t.Instants {
		if in.Action.IsDataAction() {
			return ts.Less(in.Time)
		}
	}
	return false
}

// PendingCompactions returns requested or inflight compactions (and log compactions).
func (t *Timeline) PendingCompactions() []Instant {
	return t.Filter(func(in Instant) bool {
		return !in.IsCompleted() && (in.Action == spec.ActionCompaction || in.Action == spec.ActionLogCompaction)
	})
}

// ReadCompleted reads the metadata file of a completed instant.
func (t *Timeline) ReadCompleted(ctx context.Context, st storage.Storage, in Instant) ([]byte, error) {
	return t.readState(ctx, st, in, spec.StateCompleted)
}

// ReadRequested reads the requested file of an instant (plans of compaction, clustering,
// replace, rollback, clean).
func (t *Timeline) ReadRequested(ctx context.Context, st storage.Storage, in Instant) ([]byte, error) {
	return t.readState(ctx, st, in, spec.StateRequested)
}

func (t *Timeline) readState(ctx context.Context, st storage.Storage, in Instant, s spec.State) ([]byte, error) {
	p, ok := in.File(s)
	if !ok {
		return nil, fmt.Errorf("instant %s %s has no %s file", in.Time, in.Action, s)
	}
	b, err := st.ReadFile(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, fmt.Errorf("read instant %s %s (%s): %w: %w", in.Time, in.Action, s, ErrInstantGone, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read instant %s %s (%s): %w", in.Time, in.Action, s, err)
	}
	return b, nil
}

// ErrInstantGone marks a read of an instant file that was on the listed timeline and is
// gone now: archival moved it, or a rollback or restore removed it, after the timeline was
// loaded. A reader reloads the timeline and tries again (read.Plan).
var ErrInstantGone = errors.New("the instant left the timeline after it was listed")
