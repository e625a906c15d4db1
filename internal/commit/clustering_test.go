package commit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
)

// TestClusteringInstantLifecycle: schedule, a run that dies, its rollback, a new run and
// its completion, on both layouts. Layout 1 (Hudi 0.14) names the instant a replacecommit
// throughout; layout 2 (Hudi 1.x, the fixture cow/v9_txns_simple_nometa) writes
// <T>.clustering.requested and an empty <T>.clustering.inflight and completes as
// <T>_<C>.replacecommit; the rollback of the dead run names the clustering action.
func TestClusteringInstantLifecycle(t *testing.T) {
	for _, tc := range []struct {
		version  spec.TableVersion
		dir      string // timeline folder
		pending  spec.Action
		schema   avroschema.Record
		complete string // completed file name pattern after the instant
	}{
		{6, ".hoodie", spec.ActionReplaceCommit, avroschema.RequestedReplaceMetadata, `^\.replacecommit$`},
		{8, ".hoodie/timeline", spec.ActionClustering, avroschema.ArchivedRequestedReplaceMetadata, `^_\d{17}\.replacecommit$`},
	} {
		t.Run(fmt.Sprint("version", tc.version), func(t *testing.T) {
			testClusteringInstantLifecycle(t, tc.version, tc.dir, tc.pending, tc.schema, regexp.MustCompile(tc.complete))
		})
	}
}

func testClusteringInstantLifecycle(t *testing.T, version spec.TableVersion, tlDir string, pendingAction spec.Action,
	schema avroschema.Record, completed *regexp.Regexp) {
	ctx := context.Background()
	dir := newTable(t)
	os.MkdirAll(filepath.Join(dir, tlDir), 0o755)
	st := local.New(dir)
	now := func() time.Time { return time.Now().UTC() }
	hb := HeartbeatOptions{Interval: time.Hour, TolerableMisses: 2}
	load := func(t *testing.T, _ string) *timeline.Timeline {
		t.Helper()
		tl, err := timeline.Load(ctx, st, version, "")
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	timelineFile := func(name string) string { return filepath.Join(dir, tlDir, name) }

	// An insert_overwrite's requested file (all nulls) is not a clustering plan. It is
	// a replacecommit on both layouts.
	overwrite, err := encodeRequested(schema, &commitmeta.RequestedReplaceMetadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handle(st, now, HeartbeatOptions{}).requestPlan(ctx, load(t, dir), spec.ActionReplaceCommit, overwrite, "overwrite"); err != nil {
		t.Fatal(err)
	}
	plan, err := encodeRequested(schema, &commitmeta.RequestedReplaceMetadata{OperationType: "CLUSTER",
		ClusteringPlan: &commitmeta.ClusteringPlan{Version: 1, PreserveHoodieMetadata: true,
			InputGroups: []commitmeta.ClusteringGroup{{NumOutputFileGroups: 1, Version: 1,
				Slices: []commitmeta.SliceInfo{{FileID: "f1-0", PartitionPath: "", Version: 1}}}}}, Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := handle(st, now, HeartbeatOptions{}).RequestClustering(ctx, load(t, dir), plan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(timelineFile(string(inst) + "." + string(pendingAction) + ".requested")); err != nil {
		t.Fatalf("requested file: %v", err)
	}
	pending, err := PendingClustering(ctx, st, load(t, dir))
	if err != nil || len(pending) != 1 || pending[0].Time != inst || pending[0].Action != pendingAction {
		t.Fatalf("pending clustering %v %v", pending, err)
	}
	// A failed-write rollback leaves the plan alone.
	if rolled, err := handle(st, now, hb).RollbackFailedWrites(ctx, load(t, dir)); err != nil || len(rolled) != 1 {
		t.Fatalf("rollback failed writes: %v %v (want only the overwrite)", rolled, err)
	}

	// A run that dies after writing a file.
	txn, err := handle(st, now, hb).BeginClustering(ctx, load(t, dir), pending[0])
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(timelineFile(string(inst) + "." + string(pendingAction) + ".inflight")); err != nil || len(b) != 0 {
		t.Fatalf("inflight: %q %v", b, err)
	}
	out := "new-0_0-1-0_" + string(inst) + ".parquet"
	if err := txn.Marker(ctx, "", out, IOCreate); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, out), []byte("partial"), 0o644)
	// While the run's heartbeat is live, nobody rolls it back.
	in, _ := load(t, dir).Get(inst, spec.ActionReplaceCommit)
	if _, err := handle(st, now, hb).RollbackInflightClustering(ctx, load(t, dir), in); !errors.Is(err, ErrWriterAlive) {
		t.Fatalf("rollback of a live run: %v", err)
	}
	txn.Close()
	os.Remove(filepath.Join(dir, HeartbeatPath(inst)))
	if _, err := handle(st, now, hb).BeginClustering(ctx, load(t, dir), in); err == nil {
		t.Fatal("begin on an inflight clustering accepted")
	}
	rb, err := handle(st, now, hb).RollbackInflightClustering(ctx, load(t, dir), in)
	if err != nil || rb == "" {
		t.Fatal(rb, err)
	}
	if _, err := os.Stat(filepath.Join(dir, out)); !os.IsNotExist(err) {
		t.Errorf("partial output survived: %v", err)
	}
	tl := load(t, dir)
	in, ok := tl.Get(inst, spec.ActionReplaceCommit)
	if _, infl := in.File(spec.StateInflight); !ok || infl || in.State != spec.StateRequested || in.Action != pendingAction {
		t.Errorf("clustering after rollback: %+v", in)
	}
	r, ok := tl.Get(rb, spec.ActionRollback)
	if !ok || !r.IsCompleted() {
		t.Errorf("rollback instant %s: %+v", rb, r)
	}
	b, err := tl.ReadRequested(ctx, st, r)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := commitmeta.DecodeRollbackPlan(b); err != nil || p.InstantToRollback.Action != string(pendingAction) {
		t.Errorf("rollback plan %+v (%v): want it to name the %s action", p, err, pendingAction)
	}
	// And it can be executed again.
	txn, err = handle(st, now, hb).BeginClustering(ctx, tl, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Complete(ctx, &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{},
		PartitionToReplaceFileIDs: map[string][]string{"": {"f1-0"}}, ExtraMetadata: map[string]string{}, OperationType: "CLUSTER"}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, tlDir))
	var done []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, string(inst)) && completed.MatchString(n[len(inst):]) {
			done = append(done, n)
		}
	}
	if len(done) != 1 {
		t.Errorf("completed clustering files %v, want one matching %s%s", done, inst, completed)
	}
	if in, ok := load(t, dir).Get(inst, spec.ActionReplaceCommit); !ok || !in.IsCompleted() || in.Requested != pendingAction {
		t.Errorf("completed clustering %+v", in)
	}
}

// encodeRequested is the plan encoder the services use.
var encodeRequested = commitmeta.EncodeRequestedReplace
