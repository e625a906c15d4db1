package commit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

func TestCleanTransitions(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	now := func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }
	plan := []byte("plan bytes")
	inst, err := handle(st, now, HeartbeatOptions{}).RequestClean(ctx, load(t, dir), plan)
	if err != nil || inst != "20250101000000000" {
		t.Fatalf("request: %q %v", inst, err)
	}
	in := load(t, dir).At(inst)[0]
	if in.Action != spec.ActionClean || in.State != spec.StateRequested {
		t.Fatalf("instant %+v", in)
	}
	if err := handle(st, nil, HeartbeatOptions{}).BeginClean(ctx, load(t, dir), in, plan); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".hoodie", string(inst)+".clean.inflight")); string(b) != "plan bytes" {
		t.Errorf("inflight holds %q, want the plan", b)
	}
	// Idempotent: a rerun keeps the inflight file and may complete twice.
	in = load(t, dir).At(inst)[0]
	if err := handle(st, nil, HeartbeatOptions{}).BeginClean(ctx, load(t, dir), in, []byte("other")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := handle(st, nil, HeartbeatOptions{}).CompleteClean(ctx, load(t, dir), inst, []byte("meta")); err != nil {
			t.Fatal(err)
		}
	}
	if in := load(t, dir).At(inst)[0]; !in.IsCompleted() {
		t.Errorf("not completed: %+v", in)
	}
	if err := handle(st, nil, HeartbeatOptions{}).BeginClean(ctx, load(t, dir), load(t, dir).At(inst)[0], plan); err == nil {
		t.Error("BeginClean of a completed clean accepted")
	}
	// The next clean's instant is later even with the same clock.
	if next, err := handle(st, now, HeartbeatOptions{}).RequestClean(ctx, load(t, dir), nil); err != nil || next <= inst {
		t.Fatalf("second request: %q %v", next, err)
	} else if err := handle(st, nil, HeartbeatOptions{}).RemoveEmptyClean(ctx, load(t, dir).At(next)[0]); err != nil || len(load(t, dir).At(next)) != 0 {
		t.Errorf("empty clean not removed: %v", err)
	}
}

// TestRollbackExpiredWrites: the LAZY policy rolls back writes whose heartbeat expired and
// leaves a running writer alone, without failing.
func TestRollbackExpiredWrites(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	clock := time.Now().UTC()
	now := func() time.Time { return clock }
	hb := HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}
	empty := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: map[string]string{}}

	dead, err := handle(st, now, hb).Begin(ctx, load(t, dir), spec.ActionCommit, nil, empty)
	if err != nil {
		t.Fatal(err)
	}
	dead.Close()
	deadFile := "f1-0_0-0-0_" + string(dead.Instant) + ".parquet"
	os.WriteFile(filepath.Join(dir, deadFile), []byte("x"), 0o644)
	// The dead writer's heartbeat is from long ago; a live writer starts now.
	old := clock.Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, HeartbeatPath(dead.Instant)), old, old)
	clock = clock.Add(time.Second)
	live, err := handle(st, now, hb).Begin(ctx, load(t, dir), spec.ActionCommit, nil, empty)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	liveFile := "f2-0_0-0-0_" + string(live.Instant) + ".parquet"
	os.WriteFile(filepath.Join(dir, liveFile), []byte("x"), 0o644)

	rolled, err := handle(st, now, hb).RollbackExpiredWrites(ctx, load(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(rolled) != 1 || rolled[0] != dead.Instant {
		t.Fatalf("rolled back %v, want [%s]", rolled, dead.Instant)
	}
	if _, err := os.Stat(filepath.Join(dir, deadFile)); !os.IsNotExist(err) {
		t.Errorf("dead writer's file survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, liveFile)); err != nil {
		t.Errorf("live writer's file deleted: %v", err)
	}
	tl := load(t, dir)
	if len(tl.At(dead.Instant)) != 0 || len(tl.At(live.Instant)) != 1 {
		t.Errorf("timeline after lazy rollback: %+v", tl.Instants)
	}
	for _, in := range tl.Instants {
		if in.Action == spec.ActionRollback && in.Time.Less(live.Instant) {
			t.Errorf("rollback instant %s is not after every instant (live %s)", in.Time, live.Instant)
		}
	}
}

// TestLayoutTwoCompletesOnce: on layout 2 a completed file's name carries its completion
// time, so a resumed step that completes an instant again (CompleteClean twice, the clock
// moved on in between) must find the first completed file by instant and action, not by
// name: the timeline keeps exactly one completed file of the instant. Before put learned
// this, the second call wrote "<T>_<C2>.clean" next to "<T>_<C1>.clean". Another action of
// the same instant time does not count.
func TestLayoutTwoCompletesOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tlDir := filepath.Join(dir, ".hoodie", "timeline")
	if err := os.MkdirAll(tlDir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := local.New(dir)
	loadV8 := func() *timeline.Timeline {
		tl, err := timeline.Load(ctx, st, spec.TableVersion8, "")
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	ct := handle(st, now, HeartbeatOptions{})
	inst, err := ct.RequestClean(ctx, loadV8(), []byte("plan"))
	if err != nil {
		t.Fatal(err)
	}
	// A completed rollback at the same instant time is another instant's file.
	if err := os.WriteFile(filepath.Join(tlDir, string(inst)+"_20250101000000500.rollback"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ct.BeginClean(ctx, loadV8(), loadV8().At(inst)[0], []byte("plan")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := ct.CompleteClean(ctx, loadV8(), inst, []byte("meta")); err != nil {
			t.Fatal(err)
		}
	}
	var completed []string
	entries, _ := os.ReadDir(tlDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), string(inst)+"_") && strings.HasSuffix(e.Name(), ".clean") {
			completed = append(completed, e.Name())
		}
	}
	if len(completed) != 1 {
		t.Fatalf("completed clean files of %s: %v, want exactly one", inst, completed)
	}
	if err := ct.put(ctx, loadV8(), inst, spec.ActionClean, spec.StateCompleted, nil); !errors.Is(err, storage.ErrExist) {
		t.Errorf("put of a completed file already there = %v, want storage.ErrExist", err)
	}
}
