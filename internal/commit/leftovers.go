package commit

import (
	"context"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// What a dead writer leaves behind and who removes it (docs/design/faults.md):
//
//   - the temp file of an atomic create (".<name>.tmp-<n>", storage/local) it was killed
//     inside: in .hoodie (timeline files, plans), .hoodie/archived, .hoodie/.heartbeat, and
//     in partitions (base and log files);
//   - its heartbeat file, when it was killed after starting the heartbeat and before its
//     requested file existed (no instant names it, so no rollback removes it).
//
// The rule is the one that lets a pending instant be rolled back: a writer is dead once
// its heartbeat is not alive (HeartbeatAlive: expired, or its process gone on this host).
// A temp file whose instant is known is removed as soon as that instant's heartbeat is
// dead; one whose owner cannot be told (a scheduler's plan, a rollback's log, which have no
// heartbeat) once nobody has written it for a heartbeat expiry, which no live writer's
// file reaches: those are written in one go. On an exclusive timeline (the metadata
// table's) every temp file is a dead writer's, removed at once.

// tempFileTarget returns the name a temp file of an atomic create was going to publish.
func tempFileTarget(name string) (string, bool) {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i <= 1 || i+len(".tmp-") >= len(name) {
		return "", false
	}
	return name[1:i], true
}

// isTempFileName reports the names storage backends give files being written atomically.
func isTempFileName(name string) bool {
	_, ok := tempFileTarget(name)
	return ok
}

// RemoveLeftovers removes what dead writers left in the metadata folders: temp files in
// .hoodie, .hoodie/archived and .hoodie/.heartbeat, and heartbeat files no instant on tl
// names. Every write (RollbackFailedWrites) and clean runs it. Errors are ignored: this is
// tidying, and a file another process removed first is fine.
func (ct *Timeline) RemoveLeftovers(ctx context.Context, tl *timeline.Timeline) {
	st, now, hb := ct.st, ct.now(), ct.hb
	dead := deadWriters{ctx: ctx, st: st, now: now, hb: hb, known: map[spec.InstantTime]bool{}}
	for _, dir := range []string{tl.Dir, storage.Join(tl.Dir, timeline.DefaultArchiveFolder), HeartbeatDir} {
		entries, err := st.List(ctx, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir {
				continue
			}
			target, ok := tempFileTarget(e.Name)
			if !ok {
				if dir == HeartbeatDir && dead.orphanHeartbeat(tl, spec.InstantTime(e.Name)) {
					_ = st.Delete(ctx, storage.Join(dir, e.Name))
				}
				continue
			}
			var owner spec.InstantTime
			if dir == HeartbeatDir {
				owner = spec.InstantTime(target)
			} else if f, ok := spec.ParseInstantFileName(target); ok {
				owner = f.Instant
			}
			// On an exclusive timeline (the metadata table's: every writer holds the data
			// table's lock, as the caller does now) no other writer is at work, so every
			// temp file is a dead one's; its instants have no heartbeats to tell.
			if ct.exclusive || now.Sub(e.ModTime) > hb.Expiry() || (owner != "" && dead.ownerDead(owner)) ||
				(dir == HeartbeatDir && dead.tempOwnerGone(storage.Join(dir, e.Name))) {
				_ = st.Delete(ctx, storage.Join(dir, e.Name))
			}
		}
	}
}

// DeadPartitionTempFile reports whether name, a file in a partition, is the temp file of
// an atomic create whose writer is dead: a base file's when its instant's heartbeat exists
// and is dead, or missing and the instant completed or gone (base files are written only
// by writers holding a heartbeat: writes, compactions, clusterings); anything else's (log
// files, which rollbacks write without a heartbeat) once untouched for a heartbeat expiry.
func DeadPartitionTempFile(ctx context.Context, st storage.Storage, tl *timeline.Timeline, name string, modTime, now time.Time, hb HeartbeatOptions) bool {
	target, ok := tempFileTarget(name)
	if !ok {
		return false
	}
	hb = hb.withDefaults()
	if now.Sub(modTime) > hb.Expiry() {
		return true
	}
	b, ok := spec.ParseBaseFileName(target)
	if !ok {
		return false
	}
	alive, err := HeartbeatAlive(ctx, st, b.Instant, now, hb)
	return err == nil && !alive
}

// deadWriters answers, once per instant, whether its writer is known to be dead.
type deadWriters struct {
	ctx   context.Context
	st    storage.Storage
	now   time.Time
	hb    HeartbeatOptions
	known map[spec.InstantTime]bool
}

// ownerDead: the instant's heartbeat file exists and is not alive. A missing heartbeat
// says nothing (the instant may have no heartbeat at all: cleans, rollbacks, plans).
func (d *deadWriters) ownerDead(in spec.InstantTime) bool {
	if v, ok := d.known[in]; ok {
		return v
	}
	dead := false
	if _, err := d.st.Stat(d.ctx, HeartbeatPath(in)); err == nil {
		alive, err := HeartbeatAlive(d.ctx, d.st, in, d.now, d.hb)
		dead = err == nil && !alive
	}
	d.known[in] = dead
	return dead
}

// tempOwnerGone: the temp file of a heartbeat holds its writer ("<host> <pid>", written in
// one go), which is a process of this host that no longer exists: killed while writing
// its first beat, before the heartbeat file existed.
func (d *deadWriters) tempOwnerGone(p string) bool {
	body, err := d.st.ReadFile(d.ctx, p)
	if err != nil {
		return false
	}
	host, pid, ok := parseOwner(body)
	return ok && host == hostname() && !processExists(pid)
}

// orphanHeartbeat: a heartbeat file of an instant that is not on the timeline in any
// state, whose writer is dead: it was killed before its requested file existed. (A
// heartbeat of a pending instant is removed by that instant's rollback; of a completed
// one by tidyCompleted.)
func (d *deadWriters) orphanHeartbeat(tl *timeline.Timeline, in spec.InstantTime) bool {
	if _, err := spec.ParseInstantTime(string(in)); err != nil {
		return false
	}
	for _, x := range tl.Instants {
		if x.Time == in {
			return false
		}
	}
	return d.ownerDead(in)
}
