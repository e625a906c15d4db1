package timeline

import (
	"context"
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

func TestFromFileNamesLayout1(t *testing.T) {
	tl := FromFileNames(LayoutV1, ".hoodie", []string{
		"20240418173550988.commit.requested", "20240418173550988.inflight", "20240418173550988.commit",
		"20240418173551906.commit.requested", "20240418173551906.inflight",
		"20240418173552000.compaction.requested", "20240418173552000.compaction.inflight", "20240418173552000.commit",
		"20240418173553000.compaction.requested",
		"hoodie.properties", "archived",
	})
	want := []struct {
		ts        spec.InstantTime
		action    spec.Action
		requested spec.Action
		state     spec.State
	}{
		{"20240418173550988", spec.ActionCommit, spec.ActionCommit, spec.StateCompleted},
		{"20240418173551906", spec.ActionCommit, spec.ActionCommit, spec.StateInflight},
		{"20240418173552000", spec.ActionCommit, spec.ActionCompaction, spec.StateCompleted},
		{"20240418173553000", spec.ActionCompaction, spec.ActionCompaction, spec.StateRequested},
	}
	if len(tl.Instants) != len(want) {
		t.Fatalf("got %d instants: %+v", len(tl.Instants), tl.Instants)
	}
	for i, w := range want {
		got := tl.Instants[i]
		if got.Time != w.ts || got.Action != w.action || got.State != w.state || got.Requested != w.requested {
			t.Errorf("instant %d = %+v, want %+v", i, got, w)
		}
	}
	if n := len(tl.DataInstants()); n != 2 {
		t.Errorf("data instants = %d, want 2", n)
	}
	if n := len(tl.PendingCompactions()); n != 1 {
		t.Errorf("pending compactions = %d, want 1", n)
	}
	if !tl.IsBeforeStart("20230101000000000") || tl.IsBeforeStart("20240418173550988") {
		t.Error("IsBeforeStart wrong")
	}
}

func TestLoadFixtures(t *testing.T) {
	tests := []struct {
		id        string
		version   spec.TableVersion
		data      int
		completed int
	}{
		{"mor-parquet/v6_nonpartitioned_rollback", 6, 2, 3},
		{"cow/v9_txns_simple_meta", 9, 12, 14},
		{"trips-mor-avro/v8_trips_8i3u1d", 8, 7, 8},
		{"cow/v6_empty", 6, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			base := testutil.Table(t, tc.id)
			tl, err := Load(context.Background(), local.New(base), tc.version, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := len(tl.DataInstants()); got != tc.data {
				t.Errorf("data instants = %d, want %d", got, tc.data)
			}
			if got := len(tl.Completed()); got != tc.completed {
				t.Errorf("completed instants = %d, want %d", got, tc.completed)
			}
			for _, in := range tl.Completed() {
				if tc.version >= 8 && in.Completion == "" {
					t.Errorf("v%d instant %s has no completion time", tc.version, in.Time)
				}
				if _, err := tl.ReadCompleted(context.Background(), local.New(base), in); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestIsBeforeStartIgnoresNonWriteInstants: Java's file-system view asks the write
// timeline (commits, delta commits, replace commits, compactions) whether an instant is
// older than its start. A rollback or clean older than the first active commit stays on
// the active timeline when archival moved the commits around it to the archive (cleans
// and rollbacks are archived by their own rules); it must not make those archived commits
// look uncommitted — time travel to them would drop their files for older ones.
func TestIsBeforeStartIgnoresNonWriteInstants(t *testing.T) {
	tl := FromFileNames(LayoutV1, ".hoodie", []string{
		"20240418173550000.rollback.requested", "20240418173550000.rollback.inflight", "20240418173550000.rollback",
		"20240418173550500.clean.requested", "20240418173550500.clean.inflight", "20240418173550500.clean",
		"20240418173551000.commit.requested", "20240418173551000.inflight", "20240418173551000.commit",
	})
	for _, c := range []struct {
		ts   spec.InstantTime
		want bool
	}{
		{"20240418173549000", true},
		{"20240418173550200", true}, // an archived commit between the rollback and the first commit
		{"20240418173550700", true},
		{"20240418173551000", false},
	} {
		if got := tl.IsBeforeStart(c.ts); got != c.want {
			t.Errorf("IsBeforeStart(%s) = %v, want %v", c.ts, got, c.want)
		}
	}
	// A pending write still starts the timeline: its files are not committed, and neither
	// are those of later failed writes (the reader must not take them for archived ones).
	tl = FromFileNames(LayoutV1, ".hoodie", []string{
		"20240418173550000.rollback", "20240418173550500.commit.requested", "20240418173551000.commit",
	})
	if tl.IsBeforeStart("20240418173550500") || !tl.IsBeforeStart("20240418173550200") {
		t.Error("IsBeforeStart with a pending first write: wrong")
	}
}
