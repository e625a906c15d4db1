package commit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/services/compaction"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
)

// TestResolveConflicts pins the candidates and the outcome of the conflict check
// (SimpleConcurrentFileWritesConflictResolutionStrategy): commits completed since the write
// planned, and compaction plans scheduled since, conflict on a shared file group; a
// compaction pending when the write planned does not; disjoint file groups never do.
func TestResolveConflicts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hoodie := filepath.Join(dir, ".hoodie")
	os.MkdirAll(hoodie, 0o755)
	st := local.New(dir)
	put := func(name string, body []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(hoodie, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commitBody := func(fileID string) []byte {
		b, err := commitmeta.EncodeJSON(&commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{
			"p": {{FileID: fileID, PartitionPath: "p", Path: "p/x.parquet"}}}, ExtraMetadata: map[string]string{}, OperationType: "UPSERT"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plan := func(fileID string) []byte {
		b, err := compaction.EncodePlan(&commitmeta.CompactionPlan{Operations: []commitmeta.CompactionOperation{{PartitionPath: "p", FileID: fileID, BaseInstantTime: "20250101000000000"}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// What the write saw when it planned: one commit and a pending compaction of g-old.
	put("20250101000000000.commit", commitBody("g1"))
	put("20250101000000500.compaction.requested", plan("g-old"))
	load := func() *timeline.Timeline {
		tl, err := timeline.Load(ctx, st, 6, "")
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	start := commit.NewWriteStart(load())
	// Since then: a commit of g2 and a compaction plan of g3 (with an earlier instant
	// than the write's, which Java would not look at).
	put("20250101000001000.commit", commitBody("g2"))
	put("20250101000000700.compaction.requested", plan("g3"))
	tl := load()
	for _, tc := range []struct {
		name  string
		mine  string
		clash string // "" = no conflict
	}{
		{"disjoint", "g9", ""},
		{"seen_commit", "g1", ""},
		{"pending_compaction_seen_at_start", "g-old", ""},
		{"commit_since_start", "g2", "commit 20250101000001000"},
		{"compaction_scheduled_since_start", "g3", "pending compaction 20250101000000700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := commit.ResolveConflicts(ctx, st, tl, "20250101000002000", map[commit.FileGroup]bool{{Partition: "p", FileID: tc.mine}: true}, start)
			switch {
			case tc.clash == "" && err != nil:
				t.Fatalf("unexpected conflict: %v", err)
			case tc.clash != "" && (!errors.Is(err, commit.ErrWriteConflict) || !strings.Contains(err.Error(), tc.clash) ||
				!strings.Contains(err.Error(), "p/"+tc.mine)):
				t.Fatalf("error %v, want a write conflict naming %s and p/%s", err, tc.clash, tc.mine)
			}
		})
	}
}

// TestResolveConflictsAfterArchivalPastStart: a clustering scheduled, completed and
// archived while a write planned (before the write's own requested instant pinned the
// timeline) leaves no trace on the active timeline, and the write would append to the
// file group it replaced: the update lost, and once the clean removed that group's base
// file its log came back beside the clustered copy (the concurrency soak: "record key
// returned twice", "file group has log files but no base file"). Archival removes commits
// oldest first, so once the latest commit the write planned against has left the active
// timeline the check cannot see what completed since and fails the write as a conflict.
func TestResolveConflictsAfterArchivalPastStart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hoodie := filepath.Join(dir, ".hoodie")
	os.MkdirAll(hoodie, 0o755)
	st := local.New(dir)
	body := func(op, fileID string) []byte {
		b, err := commitmeta.EncodeJSON(&commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{
			"p": {{FileID: fileID, PartitionPath: "p", Path: "p/x.parquet"}}}, ExtraMetadata: map[string]string{}, OperationType: op})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	load := func() *timeline.Timeline {
		tl, err := timeline.Load(ctx, st, 6, "")
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	os.WriteFile(filepath.Join(hoodie, "20250101000000000.commit"), body("UPSERT", "g0"), 0o644)
	os.WriteFile(filepath.Join(hoodie, "20250101000000100.commit"), body("UPSERT", "g1"), 0o644)
	start := commit.NewWriteStart(load())
	mine := map[commit.FileGroup]bool{{Partition: "p", FileID: "g9"}: true}
	// Commits since the write planned, none of g9: no conflict while the start is there,
	// even after older commits were archived.
	os.WriteFile(filepath.Join(hoodie, "20250101000000200.commit"), body("UPSERT", "g2"), 0o644)
	os.Remove(filepath.Join(hoodie, "20250101000000000.commit"))
	if err := commit.ResolveConflicts(ctx, st, load(), "", mine, start); err != nil {
		t.Fatalf("archival of commits before the start: unexpected conflict: %v", err)
	}
	// Archival past the start: the clustering of g9 that completed meanwhile may be gone.
	os.Remove(filepath.Join(hoodie, "20250101000000100.commit"))
	for _, self := range []string{"", "20250101000000300"} {
		err := commit.ResolveConflicts(ctx, st, load(), spec.InstantTime(self), mine, start)
		if !errors.Is(err, commit.ErrWriteConflict) || !strings.Contains(err.Error(), "commit 20250101000000100") {
			t.Fatalf("self %q: error %v, want a write conflict naming the archived commit 20250101000000100", self, err)
		}
	}
}

// TestConcurrencyFromConfig pins the mode settings' validation: optimistic concurrency
// control needs LAZY failed-writes (Java's HoodieWriteConfig sets it when unset; an
// explicit EAGER or NEVER, which Java replaces silently, is refused) and a usable lock
// provider; single-writer mode locks with the file-system provider unless one is set.
func TestConcurrencyFromConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]string
		want string // "" = valid
		lazy bool
	}{
		{"single_default", map[string]string{}, "", false},
		{"occ_sets_lazy", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control",
			"hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider"}, "", true},
		{"occ_eager_refused", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control",
			"hoodie.cleaner.policy.failed.writes": "EAGER",
			"hoodie.write.lock.provider":          "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider"}, "set hoodie.cleaner.policy.failed.writes=LAZY", false},
		{"occ_default_zk_needs_url", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control"},
			"hoodie.write.lock.zookeeper.url is required", false},
		// Early conflict detection (HoodieWriteConfig 0.14): Java ignores it in single-writer
		// mode and falls back from a timeline-server strategy with direct markers, with a
		// warning; hudi-go refuses both.
		{"early_single_writer_refused", map[string]string{"hoodie.write.concurrency.early.conflict.detection.enable": "true"}, "needs hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL", false},
		{"early_occ", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control", "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "hoodie.write.concurrency.early.conflict.detection.enable": "true"}, "", true},
		{"early_occ_simple_direct", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control", "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "hoodie.write.concurrency.early.conflict.detection.enable": "true",
			"hoodie.write.concurrency.early.conflict.detection.strategy":    "org.apache.hudi.table.marker.SimpleDirectMarkerBasedDetectionStrategy",
			"hoodie.write.concurrency.early.conflict.check.commit.conflict": "true"}, "", true},
		{"early_timeline_server_refused", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control", "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "hoodie.write.concurrency.early.conflict.detection.enable": "true",
			"hoodie.write.concurrency.early.conflict.detection.strategy": "org.apache.hudi.timeline.service.handlers.marker.AsyncTimelineServerBasedDetectionStrategy"}, "hudi-go has no timeline server", true},
		{"early_transaction_refused", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control", "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "hoodie.write.concurrency.early.conflict.detection.enable": "true",
			"hoodie.write.concurrency.early.conflict.detection.strategy": "org.apache.hudi.table.marker.SimpleTransactionDirectMarkerBasedDetectionStrategy"}, "not supported by hudi-go", true},
		{"early_unknown_refused", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control", "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "hoodie.write.concurrency.early.conflict.detection.enable": "true", "hoodie.write.concurrency.early.conflict.detection.strategy": "com.example.Mine"}, "unknown strategy", true},
		{"early_async_detector_refused", map[string]string{"hoodie.write.concurrency.mode": "optimistic_concurrency_control", "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
			"hoodie.write.concurrency.async.conflict.detector.period_ms": "1000"}, "needs the timeline server", true},
		{"hive_refused", map[string]string{"hoodie.write.lock.provider": "org.apache.hudi.hive.transaction.lock.HiveMetastoreBasedLockProvider"}, "no metastore", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.New()
			if _, err := cfg.SetAll(tc.set); err != nil {
				t.Fatal(err)
			}
			c, err := commit.ConcurrencyFromConfig(cfg, local.New(t.TempDir()), "t")
			defer c.Close()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			case tc.want == "" && (c.FailedWrites == commit.FailedWritesLazy) != tc.lazy:
				t.Fatalf("failed-writes policy %s", c.FailedWrites)
			case tc.want == "" && c.Lock == nil:
				t.Fatal("no lock")
			case tc.want == "" && c.Early.Enabled != (tc.set["hoodie.write.concurrency.early.conflict.detection.enable"] == "true"):
				t.Fatalf("early conflict detection %+v", c.Early)
			case tc.want == "" && c.Early.CheckCommitConflict != (tc.set["hoodie.write.concurrency.early.conflict.check.commit.conflict"] == "true"):
				t.Fatalf("early conflict detection %+v", c.Early)
			}
		})
	}
}
