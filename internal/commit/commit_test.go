package commit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// handle is the Timeline the tests change the timeline through: UTC, the clock now (nil:
// the wall clock) and heartbeat settings hb.
func handle(st storage.Storage, now Clock, hb HeartbeatOptions) *Timeline {
	return NewTimeline(st, TimelineOptions{Now: now, Zone: time.UTC, Heartbeat: hb})
}

func load(t *testing.T, dir string) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Load(context.Background(), local.New(dir), 6, "")
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func newTable(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".hoodie"), 0o755)
	os.WriteFile(filepath.Join(dir, ".hoodie_partition_metadata"), []byte("commitTime=0\npartitionDepth=0\n"), 0o644)
	return dir
}

func TestNewInstantTimeIsStrictlyIncreasing(t *testing.T) {
	tl := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", []string{"20300101000000000.commit"})
	got := newInstantTime(tl, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC)
	if got != "20300101000000001" {
		t.Errorf("instant after a future instant = %s", got)
	}
	got = newInstantTime(tl, time.Date(2031, 2, 3, 4, 5, 6, 789e6, time.UTC), time.UTC)
	if got != "20310203040506789" {
		t.Errorf("instant = %s", got)
	}
}

func TestBeginCompleteAndRollback(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	clock := time.Now().UTC() // heartbeat files carry real modification times
	now := func() time.Time { return clock }
	hb := HeartbeatOptions{Interval: time.Hour, TolerableMisses: 2}
	empty := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: map[string]string{}}

	// A write that commits.
	txn, err := handle(st, now, hb).Begin(ctx, load(t, dir), spec.ActionCommit, nil, empty)
	if err != nil {
		t.Fatal(err)
	}
	committed := "f1-0_0-0-0_" + string(txn.Instant) + ".parquet"
	txn.Marker(ctx, "", committed, IOCreate)
	os.WriteFile(filepath.Join(dir, committed), []byte("data"), 0o644)
	if err := txn.Complete(ctx, empty); err != nil {
		t.Fatal(err)
	}
	tl := load(t, dir)
	if len(tl.DataInstants()) != 1 {
		t.Fatalf("completed instants = %v", tl.Instants)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", ".temp", string(txn.Instant))); !os.IsNotExist(err) {
		t.Error("markers left after commit")
	}

	// A write that dies after writing a file.
	clock = clock.Add(time.Second)
	txn2, err := handle(st, now, hb).Begin(ctx, tl, spec.ActionCommit, nil, empty)
	if err != nil {
		t.Fatal(err)
	}
	failed := "f2-0_0-0-0_" + string(txn2.Instant) + ".parquet"
	txn2.Marker(ctx, "", failed, IOCreate)
	os.WriteFile(filepath.Join(dir, failed), []byte("partial"), 0o644)
	unmarked := "f3-0_0-0-1_" + string(txn2.Instant) + ".parquet" // written without a marker
	os.WriteFile(filepath.Join(dir, unmarked), []byte("partial"), 0o644)
	txn2.Close()

	// While its heartbeat is fresh, another writer must not roll it back.
	_, err = handle(st, now, hb).RollbackFailedWrites(ctx, load(t, dir))
	if !errors.Is(err, ErrWriterAlive) {
		t.Fatalf("rollback with a live heartbeat: err = %v", err)
	}
	// Once it expired, it is rolled back.
	clock = clock.Add(3 * time.Hour)
	rolled, err := handle(st, now, hb).RollbackFailedWrites(ctx, load(t, dir))
	if err != nil || len(rolled) != 1 || rolled[0] != txn2.Instant {
		t.Fatalf("rolled back %v, %v", rolled, err)
	}
	for _, f := range []string{failed, unmarked} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s survived the rollback", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, committed)); err != nil {
		t.Errorf("committed file lost: %v", err)
	}
	tl = load(t, dir)
	var rb timeline.Instant
	for _, in := range tl.Instants {
		if in.Time == txn2.Instant {
			t.Errorf("rolled-back instant still on the timeline: %+v", in)
		}
		if in.Action == spec.ActionRollback {
			rb = in
		}
	}
	if !rb.IsCompleted() {
		t.Fatalf("no completed rollback instant: %+v", tl.Instants)
	}
	b, err := tl.ReadCompleted(ctx, st, rb)
	if err != nil {
		t.Fatal(err)
	}
	md, err := commitmeta.DecodeRollback(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.CommitsRollback) != 1 || md.CommitsRollback[0] != string(txn2.Instant) || md.TotalFilesDeleted != 2 {
		t.Errorf("rollback metadata = %+v", md)
	}
	plan, _ := tl.ReadRequested(ctx, st, rb)
	if p, err := commitmeta.DecodeRollbackPlan(plan); err != nil || p.InstantToRollback.CommitTime != string(txn2.Instant) {
		t.Errorf("rollback plan = %+v, %v", p, err)
	}
	// Nothing left to roll back.
	if rolled, err := handle(st, now, hb).RollbackFailedWrites(ctx, tl); err != nil || len(rolled) != 0 {
		t.Errorf("second rollback pass: %v, %v", rolled, err)
	}
}

// A rollback killed after its plan was written is finished by the next writer.
func TestInterruptedRollbackIsFinished(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	clock := time.Now().UTC() // heartbeat files carry real modification times
	now := func() time.Time { return clock }
	hb := HeartbeatOptions{Interval: time.Millisecond, TolerableMisses: 1}
	empty := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: map[string]string{}}
	txn, err := handle(st, now, hb).Begin(ctx, load(t, dir), spec.ActionCommit, nil, empty)
	if err != nil {
		t.Fatal(err)
	}
	txn.Close()
	failed := "f2-0_0-0-0_" + string(txn.Instant) + ".parquet"
	os.WriteFile(filepath.Join(dir, failed), []byte("partial"), 0o644)
	// Simulate a rollback that wrote its plan and died.
	rb := spec.InstantTimeOf(clock.Add(10*time.Second), time.UTC)
	tl := load(t, dir)
	if err := executeRollbackPlanOnly(ctx, st, rb, txn.Instant); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	rolled, err := handle(st, now, hb).RollbackFailedWrites(ctx, load(t, dir))
	if err != nil || len(rolled) != 1 {
		t.Fatalf("rolled %v, %v", rolled, err)
	}
	tl = load(t, dir)
	if len(tl.Instants) != 1 || tl.Instants[0].Time != rb || !tl.Instants[0].IsCompleted() {
		t.Errorf("timeline after finishing the rollback: %+v", tl.Instants)
	}
	if _, err := os.Stat(filepath.Join(dir, failed)); !os.IsNotExist(err) {
		t.Error("failed write's file survived")
	}
}

// executeRollbackPlanOnly writes a rollback's requested and inflight files only.
func executeRollbackPlanOnly(ctx context.Context, st *local.FS, rb, target spec.InstantTime) error {
	body, err := encodeContainer(avroschema.RollbackPlan.JSON(), map[string]any{
		"instantToRollback": map[string]any{"commitTime": string(target), "action": "commit"},
		"RollbackRequests":  []any{}, "version": int32(1)})
	if err != nil {
		return err
	}
	if err := writeFile(ctx, st, ".hoodie/"+string(rb)+".rollback.requested", body); err != nil {
		return err
	}
	return writeFile(ctx, st, ".hoodie/"+string(rb)+".rollback.inflight", nil)
}

// A fresh heartbeat written by a process of this host that no longer exists is dead at
// once: a killed writer does not block the next one for the expiry period.
func TestHeartbeatOfDeadProcess(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	hb := HeartbeatOptions{Interval: time.Hour, TolerableMisses: 2}
	inst := spec.InstantTime("20250101000000000")
	os.MkdirAll(filepath.Join(dir, ".hoodie", ".heartbeat"), 0o755)
	cases := []struct {
		body  string
		alive bool
	}{
		{hostname() + " " + strconv.Itoa(os.Getpid()) + "\n", true}, // this process
		{hostname() + " 999999999\n", false},                        // no such process
		{"other-host 999999999\n", true},                            // cannot check: trust the time
		{"", true},                                                  // Java's empty heartbeat
	}
	for _, c := range cases {
		os.WriteFile(filepath.Join(dir, ".hoodie", ".heartbeat", string(inst)), []byte(c.body), 0o644)
		alive, err := HeartbeatAlive(ctx, st, inst, time.Now(), hb)
		if err != nil || alive != c.alive {
			t.Errorf("heartbeat %q: alive=%v, %v; want %v", c.body, alive, err, c.alive)
		}
	}
}
