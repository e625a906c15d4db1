package commit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// A killed process leaves the temp files of atomic writes behind. Rollback of failed
// writes removes those in the metadata folders once they are older than a heartbeat
// expiry, and nothing else: fresh temp files may belong to a running writer, and data
// files' temp files belong to the rollback of their instant.
func TestStaleTempFilesRemoved(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	now := time.Now()
	hb := HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}
	old := now.Add(-hb.Expiry() - time.Second)
	fresh := now.Add(-hb.Expiry() + 10*time.Second)
	for _, tc := range []struct {
		path    string
		mtime   time.Time
		removed bool
	}{
		{".hoodie/.20250101000000000.commit.tmp-123", old, true},
		{".hoodie/.20250101000000000.commit.tmp-124", fresh, false},
		{".hoodie/.hoodie.properties.tmp-9", old, true},
		{".hoodie/archived/..commits_.archive.1_1-0-1.tmp-77", old, true},
		{".hoodie/.heartbeat/.20250101000000000.tmp-5", old, true},
		{".hoodie/.heartbeat/.20250101000000001.tmp-6", fresh, false},
		// Not temp files, however old.
		{".hoodie/hoodie.properties", old, false},
		{".hoodie/.tmp-", old, false},
		{".hoodie/20240101000000000.commit", old, false},
		// Data files' temp files are the rollback's business, not this sweep's.
		{"p1/.f1-0_0-0-0_20250101000000000.parquet.tmp-3", old, false},
	} {
		p := filepath.Join(dir, filepath.FromSlash(tc.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tc.mtime, tc.mtime); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_, err := os.Stat(p)
			if gone := os.IsNotExist(err); gone != tc.removed {
				t.Errorf("%s: removed=%v, want %v", tc.path, gone, tc.removed)
			}
		}()
	}
	if _, err := handle(local.New(dir), func() time.Time { return now }, hb).RollbackFailedWrites(ctx, load(t, dir)); err != nil {
		t.Fatal(err)
	}
}

// deadPid is the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	return cmd.Process.Pid
}

// TestDeadWriterLeftoversRemoved (issue 25): what a writer killed at any point leaves is
// removed by the next write once its heartbeat is dead (its process gone on this host, or
// expired), and nothing of a live writer is touched:
//   - the heartbeat of a writer killed before its requested file existed (no instant names
//     it, so no rollback removes it);
//   - a timeline temp file of an instant whose heartbeat is dead, at once instead of after
//     the 2-minute expiry;
//   - files whose owner cannot be told (a plan's temp file) wait for the expiry.
//
// Java has no counterpart for the temp files (its storage does not leave them); removing
// a heartbeat no instant names is our choice (docs/design/faults.md).
func TestDeadWriterLeftoversRemoved(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	now := time.Now()
	hb := HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}
	host, _ := os.Hostname()
	if host == "" {
		host = "unknown-host"
	}
	dead := []byte(fmt.Sprintf("%s %d\n", host, deadPid(t)))
	live := currentOwner()
	old := now.Add(-hb.Expiry() - time.Second)
	for _, tc := range []struct {
		name    string
		path    string
		body    []byte
		mtime   time.Time
		removed bool
	}{
		{"heartbeat of a writer killed before its requested file", ".hoodie/.heartbeat/20250101000000001", dead, now, true},
		{"heartbeat of a live writer before its requested file", ".hoodie/.heartbeat/20250101000000002", live, now, false},
		{"expired heartbeat that no instant names", ".hoodie/.heartbeat/20250101000000003", []byte("otherhost 1\n"), old, true},
		{"fresh heartbeat of another host's writer", ".hoodie/.heartbeat/20250101000000004", []byte("otherhost 1\n"), now, false},
		{"heartbeat of a pending instant (its rollback's)", ".hoodie/.heartbeat/20250101000000005", live, now, false},
		{"completed-file temp of a dead writer", ".hoodie/.20250101000000006.commit.tmp-1", nil, now, true},
		{"heartbeat of that dead writer's pending instant", ".hoodie/.heartbeat/20250101000000006", dead, now, false},
		{"temp of a live writer", ".hoodie/.20250101000000005.inflight.tmp-1", nil, now, false},
		{"fresh plan temp: owner unknown", ".hoodie/.20250101000000007.compaction.requested.tmp-1", nil, now, false},
		{"old plan temp", ".hoodie/.20250101000000008.compaction.requested.tmp-1", nil, old, true},
		{"first-beat temp of a dead writer", ".hoodie/.heartbeat/.20250101000000009.tmp-1", dead, now, true},
		{"first-beat temp of a live writer", ".hoodie/.heartbeat/.20250101000000010.tmp-1", live, now, false},
		{"first-beat temp cut short", ".hoodie/.heartbeat/.20250101000000011.tmp-1", []byte("some"), now, false},
	} {
		p := filepath.Join(dir, filepath.FromSlash(tc.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, tc.body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tc.mtime, tc.mtime); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_, err := os.Stat(p)
			if gone := os.IsNotExist(err); gone != tc.removed {
				t.Errorf("%s (%s): removed=%v, want %v", tc.name, tc.path, gone, tc.removed)
			}
		}()
	}
	// Instants 5 (live) and 6 (dead writer) are pending; the sweep runs first, before
	// RollbackFailedWrites meets the live one and refuses.
	for _, n := range []string{"20250101000000005.commit.requested", "20250101000000005.inflight",
		"20250101000000006.commit.requested", "20250101000000006.inflight"} {
		os.WriteFile(filepath.Join(dir, ".hoodie", n), nil, 0o644)
	}
	handle(local.New(dir), func() time.Time { return now }, hb).RemoveLeftovers(ctx, load(t, dir))
}

// TestDeadPartitionTempFile: a base file's temp file is dead once its instant's writer is
// (heartbeat dead or gone); a log file's (written by rollbacks too, which hold no
// heartbeat) once untouched for a heartbeat expiry.
func TestDeadPartitionTempFile(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	now := time.Now()
	hb := HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}
	host, _ := os.Hostname()
	os.MkdirAll(filepath.Join(dir, ".hoodie", ".heartbeat"), 0o755)
	os.WriteFile(filepath.Join(dir, ".hoodie", ".heartbeat", "20250101000000001"), []byte(fmt.Sprintf("%s %d\n", host, deadPid(t))), 0o644)
	os.WriteFile(filepath.Join(dir, ".hoodie", ".heartbeat", "20250101000000002"), currentOwner(), 0o644)
	tl := load(t, dir)
	old := now.Add(-hb.Expiry() - time.Second)
	for _, tc := range []struct {
		name  string
		mtime time.Time
		dead  bool
	}{
		{".f1-0_0-1-0_20250101000000001.parquet.tmp-1", now, true},  // killed compaction/write
		{".f1-0_0-1-0_20250101000000002.parquet.tmp-1", now, false}, // live writer
		{".f1-0_0-1-0_20250101000000003.parquet.tmp-1", now, true},  // no heartbeat: gone or done
		{"..f1-0_20250101000000001.log.2_1-0-1.tmp-1", now, false},  // a log: owner unknown
		{"..f1-0_20250101000000001.log.2_1-0-1.tmp-2", old, true},
		{"f1-0_0-1-0_20250101000000001.parquet", old, false}, // not a temp file
	} {
		if got := DeadPartitionTempFile(ctx, st, tl, tc.name, tc.mtime, now, hb); got != tc.dead {
			t.Errorf("%s: dead=%v, want %v", tc.name, got, tc.dead)
		}
	}
}

// TestKilledRollbackLogTempRemoved: a rollback killed inside writing its command-block log
// leaves ".<fileID>_<base>.log.<v>_1-0-1.tmp-<n>"; the next rollback of that slice (the
// resumed one) removes it as it appends its block. It used to stay for good.
func TestKilledRollbackLogTempRemoved(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	p := filepath.Join(dir, "p")
	os.MkdirAll(p, 0o755)
	os.WriteFile(filepath.Join(p, ".hoodie_partition_metadata"), []byte("commitTime=0\npartitionDepth=1\n"), 0o644)
	base := spec.InstantTime("20250101000000001")
	for _, n := range []string{
		".f1-0_20250101000000001.log.1_0-1-0",        // the failed write's log
		"..f1-0_20250101000000001.log.2_1-0-1.tmp-7", // the killed rollback's block
		"..f1-0_20250101000000001.log.2_0-1-0.tmp-8", // a writer's temp: not this sweep's
		"..f2-0_20250101000000001.log.1_1-0-1.tmp-9", // another slice's
	} {
		os.WriteFile(filepath.Join(p, n), []byte("x"), 0o644)
	}
	lr := &logRollback{partition: "p", fileID: "f1-0", base: base, failed: map[string]any{}, command: map[string]any{}}
	abs := func(partition, name string) string { return absPath(st, partition, name) }
	if err := appendRollbackBlock(ctx, st, lr, "20250101000000009", "20250101000000002", abs); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{
		"..f1-0_20250101000000001.log.2_1-0-1.tmp-7": false,
		"..f1-0_20250101000000001.log.2_0-1-0.tmp-8": true,
		"..f2-0_20250101000000001.log.1_1-0-1.tmp-9": true,
	} {
		if _, err := os.Stat(filepath.Join(p, n)); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", n, err == nil, want)
		}
	}
}

// Rolling back an instant that appended to a log file removes that log file's unfinished
// temp only once nobody has written it for a heartbeat expiry: log files are named after
// the slice's base instant, so under optimistic concurrency a live writer appending to the
// same slice writes a temp of the same name, which a loser's rollback must leave alone.
func TestRollbackKeepsLiveLogTemps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := local.New(dir)
	const instant = spec.InstantTime("20250101000000005")
	logName := ".f1-0_20250101000000000.log.2_0-1-0"
	mustWrite := func(rel string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	idleBefore := now.Add(-3 * time.Minute)
	mustWrite("p1/.hoodie_partition_metadata", now)
	mustWrite(TempDir+"/"+string(instant)+"/p1/"+logName+".marker.APPEND", now)
	mustWrite("p1/."+logName+".tmp-live", now)                          // a live writer's
	mustWrite("p1/."+logName+".tmp-dead", idleBefore.Add(-time.Minute)) // nobody's any more
	w, err := filesWrittenBy(ctx, st, instant, idleBefore)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(w.deletes["p1"])
	if want := fmt.Sprint([]string{"." + logName + ".tmp-dead"}); got != want {
		t.Errorf("files to delete = %s, want %s (the live writer's temp kept)", got, want)
	}
}

// TestExclusiveTimelineRemovesTempFilesAtOnce: on an exclusive timeline (the metadata
// table's, whose writers all hold the data table's lock) a temp file in the timeline
// folders is a dead writer's however fresh, and the next write removes it at once. Its
// instants have no heartbeats, so without this the crash soak found
// ".hoodie/metadata/.hoodie/.<instant>.commit.tmp-<n>" left for a heartbeat expiry. A
// shared timeline keeps the same fresh files.
func TestExclusiveTimelineRemovesTempFilesAtOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	hb := HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}
	files := []string{
		".hoodie/.20250101000000000001.commit.tmp-1",
		".hoodie/.20250101000000001.deltacommit.requested.tmp-2",
		".hoodie/archived/..commits_.archive.3_1-0-1.tmp-3",
	}
	for _, exclusive := range []bool{true, false} {
		dir := newTable(t)
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ct := NewTimeline(local.New(dir), TimelineOptions{Now: func() time.Time { return now }, Zone: time.UTC, Heartbeat: hb, Exclusive: exclusive})
		ct.RemoveLeftovers(ctx, load(t, dir))
		for _, f := range files {
			_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
			if gone := os.IsNotExist(err); gone != exclusive {
				t.Errorf("exclusive=%v: %s removed=%v, want %v", exclusive, f, gone, exclusive)
			}
		}
	}
}
