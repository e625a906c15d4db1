package hudi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/services/rollback"
	"github.com/hudi-go/hudi/internal/services/savepoint"
)

func TestSavepointCreateDelete(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "cow")
	c1 := write("insert", inserts(6))
	c2 := write("upsert", updates)
	res, err := tb.Savepoint(ctx, hudi.SavepointCreate, c1, hudi.SavepointOptions{User: "alice", Comment: "before updates"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Instant != c1 || res.Action != "savepoint" || res.Operation != "create" || res.Partitions != 3 || res.Files != 3 {
		t.Errorf("result %+v", res)
	}
	inflight, err := os.ReadFile(filepath.Join(dir, ".hoodie", c1+".savepoint.inflight"))
	if err != nil || len(inflight) != 0 {
		t.Errorf("savepoint inflight: %q %v", inflight, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".hoodie", c1+".savepoint"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := commitmeta.DecodeSavepointMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.SavepointedBy != "alice" || m.Comments != "before updates" || m.SavepointedAt <= 0 || m.Version != 1 || len(m.Partitions) != 3 {
		t.Errorf("savepoint metadata %+v", m)
	}
	for p, files := range m.Partitions {
		if len(files) != 1 || !strings.HasSuffix(files[0], "_"+c1+".parquet") {
			t.Errorf("partition %s pins %v, want the base file of %s", p, files, c1)
		}
		if _, err := os.Stat(filepath.Join(dir, p, files[0])); err != nil {
			t.Error(err)
		}
	}
	// Savepointed, and older than a savepoint, instants do not roll back; later ones do.
	if _, err := tb.Rollback(ctx, c1, hudi.RollbackOptions{IncludeLater: true}); !errors.Is(err, rollback.ErrSavepointed) {
		t.Errorf("rollback of a savepointed commit: %v", err)
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, c1, hudi.SavepointOptions{}); !errors.Is(err, savepoint.ErrInvalid) {
		t.Errorf("second savepoint of %s: %v", c1, err)
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, "20200101000000000", hudi.SavepointOptions{}); !errors.Is(err, savepoint.ErrInvalid) {
		t.Errorf("savepoint of a missing commit: %v", err)
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointOp("merge"), c1, hudi.SavepointOptions{}); err == nil {
		t.Error("unknown operation accepted")
	}
	res, err = tb.Savepoint(ctx, hudi.SavepointDelete, c1, hudi.SavepointOptions{})
	if err != nil || res.Operation != "delete" {
		t.Fatalf("delete: %+v %v", res, err)
	}
	for _, f := range []string{".savepoint", ".savepoint.inflight"} {
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", c1+f)); !os.IsNotExist(err) {
			t.Errorf("%s%s survived the delete", c1, f)
		}
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointDelete, c1, hudi.SavepointOptions{}); !errors.Is(err, savepoint.ErrNotFound) {
		t.Errorf("delete of a missing savepoint: %v", err)
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointRestore, c1, hudi.SavepointOptions{}); !errors.Is(err, savepoint.ErrNotFound) {
		t.Errorf("restore to a deleted savepoint: %v", err)
	}
	if _, err := tb.Rollback(ctx, c2, hudi.RollbackOptions{}); err != nil {
		t.Errorf("rollback after the savepoint was deleted: %v", err)
	}
}

func restoreMeta(t *testing.T, dir, rs string) *commit.RestoreMetadata {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".hoodie", rs+".restore"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := commit.DecodeRestoreMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Restore to a savepoint of a merge-on-read table rolls back deltacommits, a completed
// compaction and a pending one, newest first; reads equal the table at the savepoint.
func TestRestoreMOR(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "mor")
	write("insert", inserts(9))
	sp := write("upsert", updates)
	atSavepoint := scanAll(t, tb, hudi.ScanOptions{})
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, sp, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	d3 := write("upsert", []row{{"uuid": "kd", "ts": 3, "fare": 300.5, "city": "nyc"}, {"uuid": "new2", "ts": 3, "fare": 3.0, "city": "sf"}})
	cres, err := tb.Compact(ctx, hudi.CompactOptions{})
	if err != nil || !cres.Completed {
		t.Fatalf("compact: %+v %v", cres, err)
	}
	d5 := write("upsert", []row{{"uuid": "ka", "ts": 5, "fare": 5.5, "city": "sf"}})
	d6 := write("delete", []row{{"uuid": "kb", "city": "nyc"}})
	pending, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil || pending.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", pending, err)
	}
	r7 := write("upsert", []row{{"uuid": "kc", "ts": 7, "fare": 7.5, "city": "la"}})
	// A rollback after the savepoint leaves a completed .rollback: the restore removes it
	// too, as Java's finishRestore does.
	r8 := write("upsert", []row{{"uuid": "kc", "ts": 8, "fare": 8.5, "city": "la"}})
	if _, err := tb.Rollback(ctx, r8, hudi.RollbackOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := tb.Savepoint(ctx, hudi.SavepointRestore, sp, hudi.SavepointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{r7, pending.Scheduled, d6, d5, cres.Instant, d3}
	if strings.Join(res.InstantsRolledBack, ",") != strings.Join(want, ",") || res.Action != "restore" || res.Operation != "restore" ||
		res.Savepoint != sp || res.FilesDeleted == 0 || res.FilesWritten == 0 {
		t.Fatalf("result %+v, want rolled back %v", res, want)
	}
	sameSet(t, "snapshot after restore", scanAll(t, tb, hudi.ScanOptions{}), atSavepoint)
	// Only the savepoint's past, the savepoint and the restore are on the timeline.
	for _, f := range timelineFiles(t, dir) {
		ts := f[:17]
		if ts > sp && ts != res.Instant {
			t.Errorf("timeline file %s after the savepoint", f)
		}
	}
	for _, s := range []string{".restore.requested", ".restore.inflight", ".restore"} {
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", res.Instant+s)); err != nil {
			t.Errorf("restore file: %v", err)
		}
	}
	planBytes, _ := os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+".restore.requested"))
	plan, err := commit.DecodeRestorePlan(planBytes)
	if err != nil {
		t.Fatal(err)
	}
	wantActions := []string{"deltacommit", "compaction", "deltacommit", "deltacommit", "commit", "deltacommit"}
	if plan.Version != 1 || len(plan.InstantsToRollback) != len(want) {
		t.Fatalf("plan %+v", plan)
	}
	for i, info := range plan.InstantsToRollback {
		if info.CommitTime != want[i] || info.Action != wantActions[i] {
			t.Errorf("plan entry %d: %+v, want %s %s", i, info, want[i], wantActions[i])
		}
	}
	m := restoreMeta(t, dir, res.Instant)
	if m.StartRestoreTime != res.Instant || m.Version != 1 || strings.Join(m.InstantsToRollback, ",") != strings.Join(want, ",") ||
		len(m.RestoreInstantInfo) != len(want) || len(m.Rollbacks) != len(want) {
		t.Fatalf("restore metadata %+v", m)
	}
	for i, target := range want {
		if m.RestoreInstantInfo[i] != (commitmeta.InstantInfo{CommitTime: target, Action: wantActions[i]}) {
			t.Errorf("restoreInstantInfo %d: %+v", i, m.RestoreInstantInfo[i])
		}
		rms := m.Rollbacks[target]
		if len(rms) != 1 || rms[0].CommitsRollback[0] != target || rms[0].InstantsRollback[0].Action != wantActions[i] {
			t.Errorf("rollback metadata of %s: %+v", target, rms)
		}
	}
	// The table keeps working: writes and compaction after the restore.
	// ke lives in nyc: the upsert updates it (the index is not global, so another
	// partition would add a second ke row and scanAll, keyed by record key, would keep
	// either one).
	write("upsert", []row{{"uuid": "ke", "ts": 9, "fare": 9.5, "city": "nyc"}})
	after := scanAll(t, tb, hudi.ScanOptions{})
	if c, err := tb.Compact(ctx, hudi.CompactOptions{}); err != nil || !c.Completed {
		t.Fatalf("compact after restore: %+v %v", c, err)
	}
	sameSet(t, "snapshot after restore, write and compaction", scanAll(t, tb, hudi.ScanOptions{}), after)
}

func TestRestoreCOW(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "cow")
	write("insert", inserts(9))
	sp := write("upsert", updates)
	atSavepoint := scanAll(t, tb, hudi.ScanOptions{})
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, sp, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	c3 := write("upsert", []row{{"uuid": "kd", "ts": 3, "fare": 300.5, "city": "nyc"}})
	c4 := write("insert_overwrite", []row{{"uuid": "z1", "ts": 4, "fare": 1.0, "city": "sf"}})
	c5 := write("delete", []row{{"uuid": "kb", "city": "nyc"}})
	if _, err := tb.Rollback(ctx, c3, hudi.RollbackOptions{}); !errors.Is(err, rollback.ErrLaterInstants) {
		t.Fatalf("rollback under later commits: %v", err)
	}
	res, err := tb.Savepoint(ctx, hudi.SavepointRestore, sp, hudi.SavepointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.InstantsRolledBack, ",") != strings.Join([]string{c5, c4, c3}, ",") || res.FilesWritten != 0 {
		t.Fatalf("result %+v", res)
	}
	sameSet(t, "snapshot after restore", scanAll(t, tb, hudi.ScanOptions{}), atSavepoint)
	if m := restoreMeta(t, dir, res.Instant); m.RestoreInstantInfo[1].Action != "replacecommit" {
		t.Errorf("restore metadata %+v", m)
	}
	// A second restore to the same savepoint has nothing to roll back.
	res, err = tb.Savepoint(ctx, hudi.SavepointRestore, sp, hudi.SavepointOptions{})
	if err != nil || len(res.InstantsRolledBack) != 0 {
		t.Fatalf("second restore: %+v %v", res, err)
	}
	sameSet(t, "snapshot after the second restore", scanAll(t, tb, hudi.ScanOptions{}), atSavepoint)
}
