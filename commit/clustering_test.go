package commit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage/local"
)

func TestClusteringInstantLifecycle(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	now := func() time.Time { return time.Now().UTC() }
	hb := HeartbeatOptions{Interval: time.Hour, TolerableMisses: 2}

	// An insert_overwrite's requested file (all nulls) is not a clustering plan.
	overwrite, err := encodeRequested(&commitmeta.RequestedReplaceMetadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handle(st, now, HeartbeatOptions{}).RequestClustering(ctx, load(t, dir), overwrite); err != nil {
		t.Fatal(err)
	}
	plan, err := encodeRequested(&commitmeta.RequestedReplaceMetadata{OperationType: "CLUSTER",
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
	pending, err := PendingClustering(ctx, st, load(t, dir))
	if err != nil || len(pending) != 1 || pending[0].Time != inst {
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
	if b, err := os.ReadFile(filepath.Join(dir, ".hoodie", string(inst)+".replacecommit.inflight")); err != nil || len(b) != 0 {
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
	if _, infl := in.File(spec.StateInflight); !ok || infl || in.State != spec.StateRequested {
		t.Errorf("clustering after rollback: %+v", in)
	}
	if r, ok := tl.Get(rb, spec.ActionRollback); !ok || !r.IsCompleted() {
		t.Errorf("rollback instant %s: %+v", rb, r)
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
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", string(inst)+".replacecommit")); err != nil {
		t.Error(err)
	}
}

// encodeRequested is the plan encoder the services use.
var encodeRequested = commitmeta.EncodeRequestedReplace
