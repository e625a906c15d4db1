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
	"github.com/hudi-go/hudi/storage/local"
)

// TestEarlyConflictCandidates pins Java 0.14's SimpleDirectMarkerBasedDetectionStrategy
// (DirectMarkerBasedDetectionStrategy.checkMarkerConflict, MarkerUtils.getCandidateInstants,
// hasCommitConflict): a data file's marker is refused when an earlier instant with a live
// heartbeat, not a pending compaction or replacecommit, has a marker naming the file id in
// the same partition's marker folder; with check.commit.conflict also when a commit
// completed since the write began wrote the file group. A refused marker is not created.
func TestEarlyConflictCandidates(t *testing.T) {
	const (
		fid     = "1b7e3d52-0f7b-4f6e-9a43-6b1e0b2a7c11-0"
		earlier = spec.InstantTime("20200101000000000")
		later   = spec.InstantTime("29990101000000000")
	)
	baseMarker := func(in spec.InstantTime, id string) string {
		return id + "_0-1-0_" + string(in) + ".parquet.marker.MERGE"
	}
	logMarker := "." + fid + "_20190101000000000.log.1_0-1-0.marker.APPEND"
	type setup struct {
		other       spec.InstantTime
		partition   string // of the other write's marker
		marker      string // "" = none
		heartbeat   time.Duration
		noHeartbeat bool
		timeline    []string // extra timeline files present when the write begins
	}
	for _, tc := range []struct {
		name      string
		s         setup
		partition string // of this write's file
		file      string
		commit    bool // a commit writing fid completes after the write began
		check     bool // check.commit.conflict
		conflict  string
	}{
		{name: "earlier_running_write", s: setup{other: earlier, partition: "sf", marker: baseMarker(earlier, fid)},
			partition: "sf", file: fid + "_0-1-0_X.parquet", conflict: "the running write of instant 20200101000000000"},
		{name: "log_marker", s: setup{other: earlier, partition: "sf", marker: logMarker},
			partition: "sf", file: "." + fid + "_20190101000000000.log.2_0-1-0", conflict: "file group sf/" + fid},
		{name: "non_partitioned", s: setup{other: earlier, partition: "", marker: baseMarker(earlier, fid)},
			partition: "", file: fid + "_0-1-0_X.parquet", conflict: "file group " + fid + ","},
		{name: "later_instant", s: setup{other: later, partition: "sf", marker: baseMarker(later, fid)},
			partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "expired_heartbeat", s: setup{other: earlier, partition: "sf", marker: baseMarker(earlier, fid), heartbeat: -3 * time.Minute},
			partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "no_heartbeat", s: setup{other: earlier, partition: "sf", marker: baseMarker(earlier, fid), noHeartbeat: true},
			partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "other_partition", s: setup{other: earlier, partition: "ny", marker: baseMarker(earlier, fid)},
			partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "other_file_group", s: setup{other: earlier, partition: "sf", marker: baseMarker(earlier, "99999999-0f7b-4f6e-9a43-6b1e0b2a7c11-0")},
			partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "pending_compaction", s: setup{other: earlier, partition: "sf", marker: baseMarker(earlier, fid),
			timeline: []string{string(earlier) + ".compaction.requested"}}, partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "pending_replacecommit", s: setup{other: earlier, partition: "sf", marker: baseMarker(earlier, fid),
			timeline: []string{string(earlier) + ".replacecommit.requested"}}, partition: "sf", file: fid + "_0-1-0_X.parquet"},
		{name: "commit_since_start_checked", partition: "sf", file: fid + "_0-1-0_X.parquet", commit: true, check: true,
			conflict: "wrote and committed since this write started"},
		{name: "commit_since_start_unchecked", partition: "sf", file: fid + "_0-1-0_X.parquet", commit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := newTable(t)
			st := local.New(dir)
			for _, f := range tc.s.timeline {
				if err := os.WriteFile(filepath.Join(dir, ".hoodie", f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.s.marker != "" {
				md := filepath.Join(dir, ".hoodie", ".temp", string(tc.s.other), tc.s.partition)
				if err := os.MkdirAll(md, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(md, tc.s.marker), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if !tc.s.noHeartbeat {
					hb := filepath.Join(dir, filepath.FromSlash(HeartbeatPath(tc.s.other)))
					if err := os.MkdirAll(filepath.Dir(hb), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(hb, nil, 0o644); err != nil {
						t.Fatal(err)
					}
					at := time.Now().Add(tc.s.heartbeat)
					if err := os.Chtimes(hb, at, at); err != nil {
						t.Fatal(err)
					}
				}
			}
			ct := NewTimeline(st, TimelineOptions{Zone: time.UTC, Heartbeat: HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}})
			txn, err := ct.Begin(ctx, load(t, dir), spec.ActionCommit, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer txn.Close()
			txn.DetectConflictsEarly(EarlyConflictDetection{Enabled: true, CheckCommitConflict: tc.check})
			if tc.commit {
				// Another writer commits fid after this write began (it had started earlier).
				other := NewTimeline(st, TimelineOptions{Zone: time.UTC, Now: func() time.Time { return time.Now().Add(time.Hour) }})
				otx, err := other.Begin(ctx, load(t, dir), spec.ActionCommit, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{
					"sf": {{FileID: fid, Path: "sf/" + fid + "_0-1-0_" + string(otx.Instant) + ".parquet", PrevCommit: "null"}}},
					ExtraMetadata: map[string]string{}}
				if err := otx.Complete(ctx, meta); err != nil {
					t.Fatal(err)
				}
			}
			err = txn.Marker(ctx, tc.partition, tc.file, IOMerge)
			_, statErr := os.Stat(filepath.Join(dir, filepath.FromSlash(MarkerPath(txn.Instant, tc.partition, tc.file, IOMerge))))
			if tc.conflict == "" {
				if err != nil {
					t.Fatalf("Marker: %v, want no conflict", err)
				}
				if statErr != nil {
					t.Fatalf("marker not created: %v", statErr)
				}
				return
			}
			if !errors.Is(err, ErrEarlyConflict) || !errors.Is(err, ErrWriteConflict) || !strings.Contains(err.Error(), tc.conflict) {
				t.Fatalf("Marker: %v, want an early conflict containing %q", err, tc.conflict)
			}
			if !strings.Contains(err.Error(), "instant "+string(txn.Instant)) {
				t.Errorf("the error does not name this write's instant %s: %v", txn.Instant, err)
			}
			if !os.IsNotExist(statErr) {
				t.Errorf("a refused marker was created (%v)", statErr)
			}
		})
	}
}

// TestEarlyConflictOffByDefault: without DetectConflictsEarly a marker is created beside
// an earlier running write's marker for the same file group (the conflict is found at
// commit instead).
func TestEarlyConflictOffByDefault(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	md := filepath.Join(dir, ".hoodie", ".temp", "20200101000000000", "sf")
	if err := os.MkdirAll(md, 0o755); err != nil {
		t.Fatal(err)
	}
	const fid = "1b7e3d52-0f7b-4f6e-9a43-6b1e0b2a7c11-0"
	if err := os.WriteFile(filepath.Join(md, fid+"_0-1-0_20200101000000000.parquet.marker.MERGE"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ct := NewTimeline(local.New(dir), TimelineOptions{Zone: time.UTC})
	txn, err := ct.Begin(ctx, load(t, dir), spec.ActionCommit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	txn.DetectConflictsEarly(EarlyConflictDetection{})
	if err := txn.Marker(ctx, "sf", fid+"_0-1-0_"+string(txn.Instant)+".parquet", IOMerge); err != nil {
		t.Fatal(err)
	}
}
