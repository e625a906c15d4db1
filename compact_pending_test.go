package hudi_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
)

// TestWriteWhileCompactionPending: with a compaction planned but not run, an upsert of a
// planned group goes to a log file named after the compaction instant (the slice the
// compaction starts, as Java's writer sees it). Snapshot reads see it at once; after the
// compaction runs it sits on top of the new base file, so the snapshot keeps it while the
// read-optimized view has the compacted value.
func TestWriteWhileCompactionPending(t *testing.T) {
	ctx := context.Background()
	tb, dir := newMORTable(t)
	res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil || res.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	c := res.Scheduled
	wr, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ka", "ts": 9, "fare": 999.5, "city": "sf"}}), hudi.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The deltacommit's write stat names a log of slice c, without base file.
	body, err := os.ReadFile(filepath.Join(dir, ".hoodie", wr.Instant+".deltacommit"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		PartitionToWriteStats map[string][]struct {
			Path, PrevCommit, BaseFile string
			LogFiles                   []string
		}
	}
	if err := json.Unmarshal(body, &meta); err != nil {
		t.Fatal(err)
	}
	stats := meta.PartitionToWriteStats["sf"]
	if len(stats) != 1 {
		t.Fatalf("write stats %+v", meta.PartitionToWriteStats)
	}
	s := stats[0]
	logName := filepath.Base(s.Path)
	if !strings.Contains(logName, "_"+c+".log.1_") || s.PrevCommit != c || s.BaseFile != "" || len(s.LogFiles) != 1 || s.LogFiles[0] != logName {
		t.Fatalf("write stat %+v: want log version 1 of the slice starting at compaction %s", s, c)
	}
	fare := func(o hudi.ScanOptions) string {
		t.Helper()
		var r map[string]any
		_ = json.Unmarshal([]byte(scanAll(t, tb, o)["ka"]), &r)
		return string(mustJSON(r["fare"]))
	}
	if got := fare(hudi.ScanOptions{}); got != "999.5" {
		t.Fatalf("snapshot fare %s while compaction is pending, want 999.5", got)
	}
	if _, err := tb.Compact(ctx, hudi.CompactOptions{Run: true}); err != nil {
		t.Fatal(err)
	}
	if got := fare(hudi.ScanOptions{}); got != "999.5" {
		t.Errorf("snapshot fare %s after compaction, want 999.5 (the log on top of the new base)", got)
	}
	if got := fare(hudi.ScanOptions{ReadOptimized: true}); got != "200.5" {
		t.Errorf("read-optimized fare %s after compaction, want the compacted 200.5", got)
	}
	// The next log of the group continues slice c.
	wr, err = tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ka", "ts": 10, "fare": 1000.5, "city": "sf"}}), hudi.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body, _ = os.ReadFile(filepath.Join(dir, ".hoodie", wr.Instant+".deltacommit"))
	if err := json.Unmarshal(body, &meta); err != nil {
		t.Fatal(err)
	}
	s = meta.PartitionToWriteStats["sf"][0]
	if !strings.Contains(filepath.Base(s.Path), "_"+c+".log.2_") || s.BaseFile == "" || len(s.LogFiles) != 2 {
		t.Errorf("write stat after compaction %+v: want log version 2 of slice %s with its base file", s, c)
	}
	if got := fare(hudi.ScanOptions{}); got != "1000.5" {
		t.Errorf("snapshot fare %s, want 1000.5", got)
	}
}

// TestCompactionSkipsGroupsUnderPendingClustering: file groups a pending clustering plan
// rewrites are not planned for compaction (Java's planner excludes them).
func TestCompactionSkipsGroupsUnderPendingClustering(t *testing.T) {
	ctx := context.Background()
	tb, _ := newMORTable(t)
	cl, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clustering: %+v", cl)
	res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scheduled != "" {
		t.Errorf("compaction %s scheduled over file groups under pending clustering", res.Scheduled)
	}
}

// TestCompactionSpillsBeyondMemoryBudget: with hoodie.memory.compaction.max.size far below
// the log records' size, every decoded log batch spills to hoodie.memory.spillable.map.path
// and the compaction writes the same rows; no spill file stays behind.
func TestCompactionSpillsBeyondMemoryBudget(t *testing.T) {
	ctx := context.Background()
	tb, _ := newMORTable(t)
	before := scanAll(t, tb, hudi.ScanOptions{})
	spill := t.TempDir()
	res, err := tb.Compact(ctx, hudi.CompactOptions{Settings: map[string]string{
		"hoodie.memory.compaction.max.size": "1", "hoodie.memory.spillable.map.path": spill}})
	if err != nil || !res.Completed {
		t.Fatalf("compact: %+v %v", res, err)
	}
	sameSet(t, "snapshot after a spilling compaction", scanAll(t, tb, hudi.ScanOptions{}), before)
	sameSet(t, "read-optimized after a spilling compaction", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), before)
	if left, _ := os.ReadDir(spill); len(left) > 0 {
		t.Errorf("spill files left: %v", left)
	}
	if _, err := tb.Compact(ctx, hudi.CompactOptions{Settings: map[string]string{"hoodie.memory.compaction.max.size": "lots"}}); err == nil {
		t.Error("a malformed memory size was accepted")
	}
}

// TestCompactionStrategies: hoodie.compaction.strategy and the log thresholds choose the
// plan's file groups as Java's strategies do; an unsupported strategy is refused.
func TestCompactionStrategies(t *testing.T) {
	ctx := context.Background()
	planned := func(settings map[string]string) (int, error) {
		tb, _ := newMORTable(t)
		res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Settings: settings})
		if err != nil {
			return 0, err
		}
		if res.Scheduled == "" {
			return 0, nil
		}
		ins := tb.Timeline().PendingCompactions()
		b, err := tb.Timeline().ReadRequested(ctx, tb.Storage(), ins[len(ins)-1])
		if err != nil {
			return 0, err
		}
		p, err := commitmeta.DecodeCompactionPlan(b)
		if err != nil {
			return 0, err
		}
		return len(p.Operations), nil
	}
	all, err := planned(nil)
	if err != nil || all < 2 {
		t.Fatalf("default plan: %d operations, %v", all, err)
	}
	const strat = "hoodie.compaction.strategy"
	const pkg = "org.apache.hudi.table.action.compact.strategy."
	for _, c := range []struct {
		name     string
		settings map[string]string
		want     int // -1: fewer than all, but at least one
	}{
		// IO is counted in whole MB as Java's getSizeInMB does, so these KB-sized groups
		// cost 0 MB each and a 1 MB budget never runs out (in Java neither).
		{"bounded by 1 MB, groups of 0 MB", map[string]string{"hoodie.compaction.target.io": "1"}, all},
		{"unbounded", map[string]string{strat: pkg + "UnBoundedCompactionStrategy"}, all},
		{"log-count based", map[string]string{strat: pkg + "LogFileNumBasedCompactionStrategy"}, all},
		{"log size threshold above every group", map[string]string{"hoodie.compaction.logfile.size.threshold": "1000000000"}, 0},
		{"log count threshold of 2", map[string]string{"hoodie.compaction.logfile.num.threshold": "2"}, -1},
	} {
		got, err := planned(c.settings)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.want >= 0 && got != c.want || c.want < 0 && (got < 1 || got >= all) {
			t.Errorf("%s: %d operations (all: %d), want %d", c.name, got, all, c.want)
		}
	}
	if _, err := planned(map[string]string{strat: pkg + "DayBasedCompactionStrategy"}); err == nil || !strings.Contains(err.Error(), "DayBased") {
		t.Errorf("unsupported strategy: %v", err)
	}
}

// TestCompactionAfterInsertOverwriteOfPlannedPartition: a compaction is planned over every
// partition with logs, then insert_overwrite replaces the file groups of one of them. The
// compaction must still complete (it used to fail for good with "file group … of the plan
// is not in the table"), skipping the replaced groups: they are retired and invisible
// (Java's file-system view drops replaced groups, AbstractTableFileSystemView), and the
// snapshot is unchanged by the compaction.
func TestCompactionAfterInsertOverwriteOfPlannedPartition(t *testing.T) {
	ctx := context.Background()
	tb, dir := newMORTable(t)
	res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil || res.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	c := res.Scheduled
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ow1", "ts": 5, "fare": 1.5, "city": "sf"}}),
		hudi.WriteOptions{Operation: "insert_overwrite"}); err != nil {
		t.Fatal(err)
	}
	before := scanAll(t, tb, hudi.ScanOptions{})
	for k := range before {
		var r map[string]any
		_ = json.Unmarshal([]byte(before[k]), &r)
		if r["city"] == "sf" && k != "ow1" {
			t.Fatalf("row %s of the overwritten partition is still read", k)
		}
	}
	if _, err := tb.Compact(ctx, hudi.CompactOptions{Run: true}); err != nil {
		t.Fatalf("compaction after insert_overwrite of a planned partition: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", c+".commit")); err != nil {
		t.Fatalf("compaction %s did not complete: %v", c, err)
	}
	after := scanAll(t, tb, hudi.ScanOptions{})
	if len(after) != len(before) {
		t.Fatalf("compaction changed the snapshot: %d rows, had %d", len(after), len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("row %s = %s after compaction, was %s", k, after[k], v)
		}
	}
	// No plan is left, and the next compaction has nothing stuck in front of it.
	entries, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".compaction.requested") && !strings.HasPrefix(e.Name(), c) {
			t.Errorf("another plan is pending: %s", e.Name())
		}
	}
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "kb", "ts": 9, "fare": 9.5, "city": "nyc"}}), hudi.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Compact(ctx, hudi.CompactOptions{}); err != nil {
		t.Fatalf("the next compaction: %v", err)
	}
}

// TestDeadWritersPartitionTempFilesRemoved (issue 25): the partial base file a killed
// compaction was writing (".<name>.parquet.tmp-<n>") goes when the compaction is run again
// (it holds the instant's heartbeat). It used to survive re-runs, cleans and the
// heartbeat expiry. (The killed rollback's log: commit TestKilledRollbackLogTempRemoved.)
func TestKilledCompactionTempFileRemovedOnRerun(t *testing.T) {
	ctx := context.Background()
	tb, dir := newMORTable(t)
	sf := filepath.Join(dir, "sf")
	entries, err := os.ReadDir(sf)
	if err != nil {
		t.Fatal(err)
	}
	var logName string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".log.") {
			logName = e.Name()
		}
	}
	if logName == "" {
		t.Fatal("no log file in sf")
	}
	slice := strings.SplitN(logName, ".log.", 2)[0]

	res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil || res.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	fileID := strings.TrimPrefix(strings.SplitN(slice, "_", 2)[0], ".")
	partial := filepath.Join(sf, "."+fileID+"_0-1-0_"+res.Scheduled+".parquet.tmp-42")
	os.WriteFile(partial, []byte("PAR1 partial"), 0o644)
	if _, err := tb.Compact(ctx, hudi.CompactOptions{Run: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Errorf("the killed compaction's partial base file %s survived the re-run", filepath.Base(partial))
	}
}
