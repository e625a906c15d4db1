package timeline

import (
	"context"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage/local"
)

func TestFromFileNamesLayout1(t *testing.T) {
	tl := FromFileNames(1, ".hoodie", []string{
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
