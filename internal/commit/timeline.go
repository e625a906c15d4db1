package commit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hudi-go/hudi/internal/commit/lock"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Timeline is the one handle through which a table's timeline changes. Every transition
// hudi-go makes — the requested, inflight and completed files of writes; the plans and
// completions of compaction, clustering, clean, rollback, restore and savepoint; the
// removal of rolled-back, restored-away and archived instants; archive logs — is a method
// of it, and they all write and delete timeline files through two functions (put and
// remove), so the rules that keep the timeline crash-safe (create-if-absent, the order of
// deletions) are stated once. It owns what those transitions share: the storage, the
// clock and the time zone instants are allocated in, the heartbeat settings and the table
// lock.
//
// Reading the timeline needs no handle (package timeline); the snapshot a method is given
// (tl) is what it decides from, and the handle never caches one.
type Timeline struct {
	st     storage.Storage
	now    Clock
	zone   *time.Location
	hb     HeartbeatOptions
	lock   *lock.Manager
	logger *slog.Logger
	// meta keeps the metadata table current (nil: none is maintained): each data-table
	// instant is recorded in it before the instant's completed file is written.
	meta table.MetadataWriter
	// exclusive: see TimelineOptions.Exclusive.
	exclusive bool
}

// TimelineOptions configure a Timeline; the zero value takes the defaults.
type TimelineOptions struct {
	// Now is the clock (nil: time.Now; tests replace it).
	Now Clock
	// Zone is the timeline time zone, hoodie.table.timeline.timezone (nil: LOCAL, Hudi
	// 0.14's default).
	Zone *time.Location
	// Heartbeat is hoodie.client.heartbeat.* (zero fields: Java's defaults).
	Heartbeat HeartbeatOptions
	// Lock is the table lock (nil: none is taken; Lock and Txn.Complete then do not wait).
	Lock   *lock.Manager
	Logger *slog.Logger
	// Metadata keeps the table's metadata table current (nil: the operation maintains none).
	Metadata table.MetadataWriter
	// Exclusive says that every writer of this timeline holds one lock while it writes (the
	// metadata table's, whose writes all run under the data table's lock): a rollback may
	// then remove the temp files of a failed instant's log files at once, instead of after
	// a heartbeat expiry without writes (a live concurrent writer cannot own them).
	Exclusive bool
}

// NewTimeline returns the handle that changes the timeline of the table rooted at st.
func NewTimeline(st storage.Storage, o TimelineOptions) *Timeline {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Zone == nil {
		o.Zone = time.Local
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Timeline{st: st, now: o.Now, zone: o.Zone, hb: o.Heartbeat.withDefaults(), lock: o.Lock, logger: o.Logger, meta: o.Metadata,
		exclusive: o.Exclusive}
}

// Timeline returns the handle for an operation with these concurrency settings: their
// heartbeat and lock, with the given clock, zone and logger (nil: the defaults).
func (c Concurrency) Timeline(st storage.Storage, now Clock, zone *time.Location, logger *slog.Logger) *Timeline {
	return NewTimeline(st, TimelineOptions{Now: now, Zone: zone, Heartbeat: c.Heartbeat, Lock: c.Lock, Logger: logger})
}

// WithClock returns a copy of the handle that allocates instant times from now: a write
// whose generated record keys carry an instant time chosen before planning starts its
// instant at that time.
func (ct *Timeline) WithClock(now Clock) *Timeline {
	c := *ct
	c.now = now
	return &c
}

// WithMetadata returns a copy of the handle that records every instant it completes in
// the table's metadata table through mw (nil: none), as Java's write client does when
// hoodie.metadata.enable is true: a commit, deltacommit or replacecommit (Txn.Complete),
// a clean (CompleteClean), a rollback and a restore each write their metadata-table
// deltacommit before their completed file.
func (ct *Timeline) WithMetadata(mw table.MetadataWriter) *Timeline {
	c := *ct
	c.meta = mw
	return &c
}

// Metadata is the handle's metadata writer (nil: none).
func (ct *Timeline) Metadata() table.MetadataWriter { return ct.meta }

// updateMetadata records u in the metadata table, if one is maintained.
func (ct *Timeline) updateMetadata(ctx context.Context, u table.MetadataUpdate) error {
	if ct.meta == nil {
		return nil
	}
	if err := ct.meta.Update(ctx, u); err != nil {
		return fmt.Errorf("metadata table: record instant %s: %w", u.Instant, err)
	}
	return nil
}

// Storage is the table's storage.
func (ct *Timeline) Storage() storage.Storage { return ct.st }

// Now reads the handle's clock.
func (ct *Timeline) Now() time.Time { return ct.now() }

// Zone is the timeline time zone.
func (ct *Timeline) Zone() *time.Location { return ct.zone }

// Heartbeat is the heartbeat settings, defaults filled in.
func (ct *Timeline) Heartbeat() HeartbeatOptions { return ct.hb }

// Lock takes the table lock for what (re-entering it when this operation already holds
// it) and returns its release; without a lock it returns a no-op.
func (ct *Timeline) Lock(ctx context.Context, what string) (func(), error) {
	if ct.lock == nil {
		return func() {}, nil
	}
	return ct.lock.Lock(ctx, what)
}

// NewInstantTime allocates an instant time on tl with the handle's clock and zone (see
// newInstantTime). Nothing is written: the instant exists once a file of it does.
func (ct *Timeline) NewInstantTime(tl *timeline.Timeline) spec.InstantTime {
	return newInstantTime(tl, ct.now(), ct.zone)
}

// newInstantTime returns an instant strictly greater than every instant on the active
// timeline and than the wall clock's previous instants, formatted in loc (the timeline
// time zone: LOCAL by default in Hudi 0.14).
func newInstantTime(tl *timeline.Timeline, now time.Time, loc *time.Location) spec.InstantTime {
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

// put creates the timeline file of instant inst in state s of action with body. It is the
// only write of a timeline file. A completed file is stamped with the completion time
// (completionTime), which layout 2 puts in its name. Every one is created only if absent (storage.ErrExist
// otherwise), so two processes never both publish the same instant file; a step that
// resumes an interrupted run and finds its file there uses putOnce.
//
// On layout 2 the name of a completed file depends on when it is written, so "absent"
// cannot be decided by creating the name: the timeline folder is listed first, and any
// completed file of the same instant and action counts as there (storage.ErrExist). Two
// processes that complete the same instant at the same moment without the table lock
// could both pass the listing; under the table lock (every multi-writer setup) they
// cannot.
func (ct *Timeline) put(ctx context.Context, tl *timeline.Timeline, inst spec.InstantTime, action spec.Action, s spec.State, body []byte) error {
	f := spec.InstantFileName{Instant: inst, Action: action, State: s}
	if s == spec.StateCompleted {
		f.Completion = ct.completionTime(inst)
		if tl.Layout.CompletionTimes() {
			existing, latest, err := ct.completedFile(ctx, tl, inst, action)
			if err != nil {
				return err
			}
			if existing != "" {
				return fmt.Errorf("%s: %w", storage.Join(tl.Dir, existing), storage.ErrExist)
			}
			f.Completion = ct.after(f.Completion, latest)
		}
	}
	name := tl.Layout.FileName(f)
	return writeFile(ctx, ct.st, storage.Join(tl.Dir, name), body)
}

// completedFile names the completed timeline file of inst and action in tl's folder, ""
// if there is none. It lists the folder now: tl is a snapshot and may predate the file.
// It also returns the latest instant time the folder holds (17-digit instants only).
func (ct *Timeline) completedFile(ctx context.Context, tl *timeline.Timeline, inst spec.InstantTime, action spec.Action) (string, spec.InstantTime, error) {
	entries, err := storage.ListNames(ctx, ct.st, tl.Dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return "", "", nil
		}
		return "", "", fmt.Errorf("list timeline %s: %w", tl.Dir, err)
	}
	want := action.CompletedAction()
	var latest spec.InstantTime
	for _, e := range entries {
		f, ok := spec.ParseInstantFileName(e.Name)
		if !ok {
			continue
		}
		if f.State == spec.StateCompleted && f.Instant == inst && f.Action == want {
			return e.Name, "", nil
		}
		if len(f.Instant) <= 17 && f.Instant != inst && latest.Compare(f.Instant) < 0 {
			latest = f.Instant
		}
	}
	return "", latest, nil
}

// after returns c, or the instant one millisecond after latest when c is not after it. On
// layout 2 a completed instant's completion time is later than every instant requested
// before it: a log file is placed in the file slice of the latest base instant before its
// deltacommit's completion time, so a deltacommit completing after a compaction was
// requested must not get a completion time before the compaction's instant, whatever the
// clocks of the processes involved (Java takes both from one time generator that waits
// out clock skew under the table lock; hudi-go's writers may run with clocks set apart, and
// the metadata table's compaction takes a new instant time of its own).
func (ct *Timeline) after(c, latest spec.InstantTime) spec.InstantTime {
	if latest == "" || c.Compare(latest) > 0 {
		return c
	}
	lt, err := latest.Time(ct.zone)
	if err != nil {
		return c
	}
	return spec.InstantTimeOf(lt.Add(time.Millisecond), ct.zone)
}

// completionTime is the completion time of an instant completing now: the clock in the
// timeline zone, and never before the instant itself (a clock set back, or an instant
// allocated past the clock), as Java's completion times come from the same time
// generator as instant times (HoodieActiveTimeline.transitionStateToComplete).
func (ct *Timeline) completionTime(inst spec.InstantTime) spec.InstantTime {
	c := spec.InstantTimeOf(ct.now(), ct.zone)
	if c.Compare(inst) < 0 {
		return inst
	}
	return c
}

// putOnce is put where a file already there (left by an earlier attempt of the same
// step, or written by another process finishing the same plan) counts as done.
func (ct *Timeline) putOnce(ctx context.Context, tl *timeline.Timeline, inst spec.InstantTime, action spec.Action, s spec.State, body []byte) error {
	if err := ct.put(ctx, tl, inst, action, s, body); err != nil && !errors.Is(err, storage.ErrExist) {
		return err
	}
	return nil
}

// remove deletes the timeline files of in in the given states, in that order. It is the
// only deletion of a timeline file; the callers choose the order that keeps the timeline
// readable at every step (completed before pending when an instant is rolled back, so no
// reader sees a committed instant whose files are going; pending before completed when
// it is archived, so a completed instant never looks pending). A file already gone is
// not an error.
func (ct *Timeline) remove(ctx context.Context, in timeline.Instant, states ...spec.State) error {
	for _, s := range states {
		if p, ok := in.File(s); ok {
			if err := ct.st.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) {
				return fmt.Errorf("delete %s: %w", p, err)
			}
		}
	}
	return nil
}

// Deletion orders of an instant's files: all of them newest state first (a rollback), and
// the pending ones (an archival, before the completed files).
var (
	newestFirst   = []spec.State{spec.StateCompleted, spec.StateInflight, spec.StateRequested}
	pendingStates = []spec.State{spec.StateRequested, spec.StateInflight}
)

// request allocates a new instant of action on tl and creates its requested file with
// body. The file is created only if absent: a process that loses the race for an instant
// time to another moves on to a later one, so two never share an instant. With beat, the
// instant's heartbeat is started before the requested file exists, so no other writer
// ever sees a pending write of ours without a live heartbeat; it is returned running.
func (ct *Timeline) request(ctx context.Context, tl *timeline.Timeline, action spec.Action, body []byte, what string, beat bool) (spec.InstantTime, *Heartbeat, error) {
	for attempt := 0; ; attempt++ {
		inst := ct.NewInstantTime(tl)
		if attempt > 0 {
			// Another process took our instant: move past it.
			lt, _ := inst.Time(ct.zone)
			inst = spec.InstantTimeOf(lt.Add(time.Duration(attempt)*time.Millisecond), ct.zone)
		}
		var hb *Heartbeat
		var err error
		if beat {
			hb, err = startHeartbeat(ctx, ct.st, inst, ct.hb)
		}
		if err == nil {
			if err = ct.put(ctx, tl, inst, action, spec.StateRequested, body); err == nil {
				return inst, hb, nil
			}
			if beat {
				hb.Stop()
				_ = ct.st.Delete(ctx, HeartbeatPath(inst))
			}
		}
		if !errors.Is(err, storage.ErrExist) || attempt >= 20 {
			return "", nil, fmt.Errorf("%s %s: %w", what, inst, err)
		}
	}
}
