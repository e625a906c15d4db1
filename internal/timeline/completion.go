package timeline

// Completion times of instants older than the active timeline (layout 2). A layout-2 log
// file belongs to the file slice of the latest base instant at or before the completion
// time of the deltacommit that wrote it, so placing the logs of an archived deltacommit
// needs that deltacommit's completion time from the LSM history. Java's
// CompletionTimeQueryViewV2 (hudi-common .../timeline/versioning/v2) keeps the active
// timeline's completion times and loads archived ones on demand, from a cursor instant
// backwards (loadCompletionTimeIncrementally with a ClosedOpenTimeRangeFilter), reading
// only the instant and completion time of each LSM row; HoodieFileGroup.getBaseInstantTime
// asks it for every log file it places.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// archivedCompletions loads and caches the completion times of archived instants. One
// belongs to one listing of the active timeline: every instant older than that listing's
// first write was archived before the listing was taken (archival publishes the LSM
// snapshot before it deletes the active instant files), so a range once loaded answers
// every later question about it. A timeline listed again gets a fresh one (Relist).
type archivedCompletions struct {
	st  storage.Storage
	dir string // the LSM history folder, relative to the storage root

	mu     sync.Mutex
	loaded bool
	// from: every archived instant at or after it is in times (when loaded).
	from  spec.InstantTime
	times map[spec.InstantTime]spec.InstantTime
	// loads counts the history reads (tests).
	loads int
}

// WithArchive makes t answer the completion times of instants older than its first write
// from the LSM history in dir (the table's ArchiveDir), read on first need. It returns t.
// Layout 1 has no completion times and ignores it.
func (t *Timeline) WithArchive(st storage.Storage, dir string) *Timeline {
	if t.Layout.CompletionTimes() {
		t.archive = &archivedCompletions{st: st, dir: dir}
	}
	return t
}

// Relist builds the timeline of the given file names in t's folder (FromFileNames), with
// t's archive location and a cache of its own.
func (t *Timeline) Relist(names []string) *Timeline {
	nt := FromFileNames(t.Layout, t.Dir, names)
	if t.archive != nil {
		nt.WithArchive(t.archive.st, t.archive.dir)
	}
	return nt
}

// CompletionTime returns the completion time of the completed write (commit, deltacommit,
// replacecommit) requested at ts: from the active timeline, or — for an instant older than
// the active timeline's first write, on a timeline with an archive (WithArchive) — from the
// archived timeline, as Java's CompletionTimeQueryViewV2.getCompletionTime. ok is false
// when neither holds it: a pending or unknown instant, layout 1, or an archived instant the
// history does not list (Java then takes the log as pending; callers decide).
func (t *Timeline) CompletionTime(ctx context.Context, ts spec.InstantTime) (completion spec.InstantTime, ok bool, err error) {
	if in, found := t.CompletedDataInstant(ts); found {
		return in.Completion, in.Completion != "", nil
	}
	if t.archive == nil || !t.IsBeforeStart(ts) {
		return "", false, nil
	}
	return t.archive.lookup(ctx, ts)
}

func (a *archivedCompletions) lookup(ctx context.Context, ts spec.InstantTime) (spec.InstantTime, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.times[ts]; ok {
		return c, true, nil
	}
	if a.loaded && !ts.Less(a.from) {
		return "", false, nil
	}
	if err := a.load(ctx, ts); err != nil {
		return "", false, err
	}
	c, ok := a.times[ts]
	return c, ok, nil
}

// load reads the instant and completion time of every row of the latest snapshot's files
// that may hold instants in [ts, from) — all files whose name range reaches ts when nothing
// was loaded yet.
func (a *archivedCompletions) load(ctx context.Context, ts spec.InstantTime) error {
	a.loads++
	files, _, err := latestManifest(ctx, a.st, a.dir)
	if err != nil {
		return fmt.Errorf("load archived completion times: %w", err)
	}
	if a.times == nil {
		a.times = map[spec.InstantTime]spec.InstantTime{}
	}
	for _, f := range files {
		if m := lsmFileRE.FindStringSubmatch(f.Name); m != nil {
			min, max := spec.InstantTime(m[1]), spec.InstantTime(m[2])
			if max.Less(ts) || (a.loaded && !min.Less(a.from)) {
				continue
			}
		}
		p := storage.Join(a.dir, f.Name)
		if err := readLSMCompletions(ctx, a.st, p, a.times); err != nil {
			if errors.Is(err, storage.ErrNotExist) {
				return fmt.Errorf("load archived completion times: the manifest lists %s, which does not exist: %w", f.Name, err)
			}
			return fmt.Errorf("load archived completion times: %w", err)
		}
	}
	a.loaded, a.from = true, ts
	return nil
}

// readLSMCompletions adds the instant → completion time of each write row of one LSM file
// to times. A row without a completion time counts as completed at its instant time
// (CompletionTimeQueryViewV2.setCompletionTime); an instant already present keeps its first
// value (putIfAbsent).
func readLSMCompletions(ctx context.Context, st storage.Storage, p string, times map[spec.InstantTime]spec.InstantTime) error {
	return readLSMKeys(ctx, st, p, func(in Instant) {
		if !in.Action.IsDataAction() {
			return
		}
		if _, dup := times[in.Time]; !dup {
			times[in.Time] = in.Completion
		}
	})
}

// ArchivedSince returns the instants of the LSM history in dir (the table's ArchiveDir)
// whose instant time is at or after from, in file order, with Time, Action, State
// (completed) and Completion only. It reads the latest snapshot's files whose name range
// reaches from, and of them only those columns: when the history ends before from, which
// is the normal case for from = the active timeline's first instant, only the manifest.
func ArchivedSince(ctx context.Context, st storage.Storage, dir string, from spec.InstantTime) ([]Instant, error) {
	files, _, err := latestManifest(ctx, st, dir)
	if err != nil {
		return nil, err
	}
	var out []Instant
	for _, f := range files {
		if m := lsmFileRE.FindStringSubmatch(f.Name); m != nil && spec.InstantTime(m[2]).Less(from) {
			continue
		}
		err := readLSMKeys(ctx, st, storage.Join(dir, f.Name), func(in Instant) {
			if !in.Time.Less(from) {
				out = append(out, in)
			}
		})
		if err != nil {
			if errors.Is(err, storage.ErrNotExist) {
				return nil, fmt.Errorf("the archived timeline's manifest lists %s, which does not exist: %w", f.Name, err)
			}
			return nil, err
		}
	}
	return out, nil
}

// readLSMKeys calls fn with the instant time, action and completion time of each row of
// one LSM file, reading only those columns. A row without completion time gets its instant
// time.
func readLSMKeys(ctx context.Context, st storage.Storage, p string, fn func(Instant)) error {
	f, err := st.Open(ctx, p)
	if err != nil {
		return fmt.Errorf("open archived timeline file %s: %w", p, err)
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), p, memory.DefaultAllocator, 0)
	if err != nil {
		return err
	}
	defer pf.Close()
	leaves, _ := pf.LeafColumns([]string{lsmColInstantTime, lsmColCompletionTime, lsmColAction})
	rr, err := pf.RecordReader(ctx, leaves, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	row := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		cols, err := lsmColumns(rec)
		if err != nil {
			return fmt.Errorf("archived timeline file %s: %w", p, err)
		}
		for i := 0; i < int(rec.NumRows()); i, row = i+1, row+1 {
			ts, ok := cols.instantTime.value(i)
			if !ok || ts == "" {
				return fmt.Errorf("archived timeline file %s: row %d has no instantTime", p, row)
			}
			action, _ := cols.action.value(i)
			c, _ := cols.completionTime.value(i)
			if c == "" {
				c = ts
			}
			fn(Instant{Time: spec.InstantTime(ts), Action: spec.Action(action), State: spec.StateCompleted, Completion: spec.InstantTime(c)})
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("archived timeline file %s: %w", p, err)
	}
	return nil
}
