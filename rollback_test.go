package hudi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/services/rollback"
	"github.com/hudi-go/hudi/internal/spec"
)

// newTable creates a partitioned table of the given type and returns it with a write helper
// that returns the instant of each commit.
func newTable(t *testing.T, typ string) (*hudi.Table, string, func(op string, rows []row) string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(op string, rows []row) string {
		t.Helper()
		res, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: op})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res.Instant
	}
	return tb, dir, write
}

func inserts(n int) []row {
	var out []row
	for i := 0; i < n; i++ {
		out = append(out, row{"uuid": "k" + string(rune('a'+i)), "ts": 1, "fare": float64(i), "city": []string{"sf", "nyc", "la"}[i%3]})
	}
	return out
}

var updates = []row{{"uuid": "ka", "ts": 2, "fare": 100.5, "city": "sf"}, {"uuid": "kb", "ts": 2, "fare": 101.5, "city": "nyc"},
	{"uuid": "new1", "ts": 2, "fare": 7.0, "city": "la"}}

func timelineFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".hoodie"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && e.Name() != "hoodie.properties" && !strings.HasPrefix(e.Name(), "hoodie.properties") {
			out = append(out, e.Name())
		}
	}
	return out
}

func hasInstantFiles(t *testing.T, dir, instant string) bool {
	for _, f := range timelineFiles(t, dir) {
		if strings.HasPrefix(f, instant+".") {
			return true
		}
	}
	return false
}

// rollbackMeta decodes the completed rollback file of the rollback instant rb.
func rollbackMeta(t *testing.T, dir, rb string) *commitmeta.RollbackMetadata {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".hoodie", rb+".rollback"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := commitmeta.DecodeRollback(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRollbackLastCommitCOW(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "cow")
	write("insert", inserts(9))
	before := scanAll(t, tb, hudi.ScanOptions{})
	c2 := write("upsert", updates)
	if sameRowsCount := len(scanAll(t, tb, hudi.ScanOptions{})); sameRowsCount != 10 {
		t.Fatalf("%d rows after upsert", sameRowsCount)
	}
	res, err := tb.Rollback(ctx, c2, hudi.RollbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "rollback" || res.Operation != "rollback" || res.Instant <= c2 || len(res.InstantsRolledBack) != 1 ||
		res.InstantsRolledBack[0] != c2 || res.FilesDeleted != 3 || res.FilesWritten != 0 {
		t.Fatalf("result %+v", res)
	}
	sameSet(t, "snapshot after rolling back the upsert", scanAll(t, tb, hudi.ScanOptions{}), before)
	if hasInstantFiles(t, dir, c2) {
		t.Errorf("timeline files of %s remain: %v", c2, timelineFiles(t, dir))
	}
	for _, s := range []string{".rollback.requested", ".rollback.inflight", ".rollback"} {
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", res.Instant+s)); err != nil {
			t.Errorf("rollback file: %v", err)
		}
	}
	m := rollbackMeta(t, dir, res.Instant)
	if m.StartRollbackTime != res.Instant || len(m.CommitsRollback) != 1 || m.CommitsRollback[0] != c2 || m.TotalFilesDeleted != 3 ||
		len(m.InstantsRollback) != 1 || m.InstantsRollback[0] != (commitmeta.InstantInfo{CommitTime: c2, Action: "commit"}) || m.Version != 1 {
		t.Errorf("rollback metadata %+v", m)
	}
	for p, pm := range m.PartitionMetadata {
		if pm.PartitionPath != p || len(pm.FailedDeleteFiles) != 0 {
			t.Errorf("partition %s: %+v", p, pm)
		}
		for _, f := range pm.SuccessDeleteFiles {
			if !strings.HasPrefix(f, dir) || !strings.HasSuffix(f, "_"+c2+".parquet") {
				t.Errorf("deleted file %s is not an absolute base file of %s", f, c2)
			}
		}
	}
	// The table takes writes again, and the rolled-back rows stay gone.
	write("upsert", []row{{"uuid": "kc", "ts": 5, "fare": 1.5, "city": "la"}})
	if got := scanAll(t, tb, hudi.ScanOptions{}); len(got) != 9 {
		t.Errorf("%d rows after a write following the rollback", len(got))
	}
}

func TestRollbackRefusesLaterCommits(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "cow")
	write("insert", inserts(6))
	after1 := scanAll(t, tb, hudi.ScanOptions{})
	c2 := write("upsert", updates)
	c3 := write("upsert", []row{{"uuid": "kd", "ts": 3, "fare": 300.5, "city": "nyc"}})
	files := timelineFiles(t, dir)
	_, err := tb.Rollback(ctx, c2, hudi.RollbackOptions{})
	if !errors.Is(err, rollback.ErrLaterInstants) || !strings.Contains(err.Error(), c3) {
		t.Fatalf("rollback with a later commit: %v", err)
	}
	if got := timelineFiles(t, dir); strings.Join(got, ",") != strings.Join(files, ",") {
		t.Errorf("a refused rollback changed the timeline: %v", got)
	}
	if _, err := tb.Rollback(ctx, "20200101000000000", hudi.RollbackOptions{}); !errors.Is(err, rollback.ErrNotFound) {
		t.Errorf("rollback of a missing instant: %v", err)
	}
	if _, err := tb.Rollback(ctx, "2024-01-01", hudi.RollbackOptions{}); err == nil {
		t.Error("a date was accepted as an instant")
	}
	res, err := tb.Rollback(ctx, c2, hudi.RollbackOptions{IncludeLater: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.InstantsRolledBack, ",") != c3+","+c2 || len(res.Rollbacks) != 2 || res.Rollbacks[0].Rollback >= res.Rollbacks[1].Rollback {
		t.Fatalf("result %+v", res)
	}
	sameSet(t, "snapshot after rolling back two commits", scanAll(t, tb, hudi.ScanOptions{}), after1)
	for _, c := range []string{c2, c3} {
		if hasInstantFiles(t, dir, c) {
			t.Errorf("timeline files of %s remain", c)
		}
	}
}

func TestRollbackMORDeltaCommitAndCompaction(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "mor")
	write("insert", inserts(9))
	before := scanAll(t, tb, hudi.ScanOptions{})
	d2 := write("upsert", updates)
	res, err := tb.Rollback(ctx, d2, hudi.RollbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "snapshot after rolling back the deltacommit", scanAll(t, tb, hudi.ScanOptions{}), before)
	sameSet(t, "read-optimized after rolling back the deltacommit", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), before)
	m := rollbackMeta(t, dir, res.Instant)
	var blocks, failed int
	for _, pm := range m.PartitionMetadata {
		for f := range pm.RollbackLogFiles {
			blocks++
			if !strings.HasSuffix(f, "_1-0-1") {
				t.Errorf("command-block log %s lacks Java's rollback token", f)
			}
			if _, err := os.Stat(strings.TrimPrefix(f, "file:")); err != nil || !strings.HasPrefix(f, "file:/") {
				t.Errorf("command-block log %s (want Java's file:/… form): %v", f, err)
			}
		}
		failed += len(pm.LogFilesFromFailedCommit)
	}
	if blocks == 0 || blocks != failed || res.FilesWritten != blocks || m.InstantsRollback[0].Action != "deltacommit" {
		t.Errorf("MOR rollback: %d command-block logs, %d logs of the deltacommit, result %+v", blocks, failed, res)
	}

	// A completed compaction rolls back to the slices it merged.
	write("upsert", updates)
	merged := scanAll(t, tb, hudi.ScanOptions{})
	cres, err := tb.Compact(ctx, hudi.CompactOptions{})
	if err != nil || !cres.Completed {
		t.Fatalf("compact: %+v %v", cres, err)
	}
	res, err = tb.Rollback(ctx, cres.Instant, hudi.RollbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hasInstantFiles(t, dir, cres.Instant) {
		t.Errorf("compaction %s left timeline files: %v", cres.Instant, timelineFiles(t, dir))
	}
	sameSet(t, "snapshot after rolling back the compaction", scanAll(t, tb, hudi.ScanOptions{}), merged)
	if m := rollbackMeta(t, dir, res.Instant); m.InstantsRollback[0].Action != "commit" || m.TotalFilesDeleted != int32(cres.FilesWritten) {
		t.Errorf("compaction rollback metadata %+v", m)
	}
	// The merged slices compact again.
	if cres, err = tb.Compact(ctx, hudi.CompactOptions{}); err != nil || !cres.Completed {
		t.Fatalf("compact after rollback: %+v %v", cres, err)
	}
	sameSet(t, "snapshot after compacting again", scanAll(t, tb, hudi.ScanOptions{}), merged)
}

func TestRollbackReplaceCommit(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			tb, dir, write := newTable(t, typ)
			write("insert", inserts(9))
			write("upsert", updates)
			before := scanAll(t, tb, hudi.ScanOptions{})
			r := write("insert_overwrite", []row{{"uuid": "z1", "ts": 9, "fare": 1.0, "city": "sf"}})
			if got := scanAll(t, tb, hudi.ScanOptions{}); len(got) == len(before) {
				t.Fatal("insert_overwrite changed nothing")
			}
			res, err := tb.Rollback(ctx, r, hudi.RollbackOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rollbacks[0].Action != "replacecommit" || res.FilesDeleted == 0 || hasInstantFiles(t, dir, r) {
				t.Errorf("result %+v", res)
			}
			sameSet(t, "snapshot after rolling back insert_overwrite", scanAll(t, tb, hudi.ScanOptions{}), before)
		})
	}
}

func TestRollbackPendingInstants(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "mor")
	write("insert", inserts(9))
	d2 := write("upsert", updates)
	before := scanAll(t, tb, hudi.ScanOptions{})
	// A scheduled compaction after the target blocks its rollback unless included.
	cres, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil || cres.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", cres, err)
	}
	d1 := string(tb.Timeline().DataInstants()[0].Time)
	if _, err := tb.Rollback(ctx, d2, hudi.RollbackOptions{}); !errors.Is(err, rollback.ErrLaterInstants) {
		t.Fatalf("rollback below a pending compaction: %v", err)
	}
	// Rolling back the pending compaction itself removes its plan.
	res, err := tb.Rollback(ctx, cres.Scheduled, hudi.RollbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rollbacks[0].Action != string(spec.ActionCompaction) || hasInstantFiles(t, dir, cres.Scheduled) {
		t.Errorf("pending compaction rollback %+v: %v", res, timelineFiles(t, dir))
	}
	sameSet(t, "snapshot after rolling back the plan", scanAll(t, tb, hudi.ScanOptions{}), before)
	if _, err := tb.Rollback(ctx, d1, hudi.RollbackOptions{IncludeLater: true}); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, tb, hudi.ScanOptions{}); len(got) != 0 {
		t.Errorf("%d rows after rolling back every commit", len(got))
	}
}
