package hudi_test

import (
	"context"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
)

// TestInlineCompaction: with hoodie.compact.inline and max.delta.commits=3, the third
// delta commit is followed by a compaction (plan, execution, commit) and the snapshot is
// unchanged by it; with hoodie.compact.schedule.inline only the plan is written.
func TestInlineCompaction(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     spec.State
	}{
		{"inline", map[string]string{"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "3"}, spec.StateCompleted},
		{"schedule only", map[string]string{"hoodie.compact.schedule.inline": "true", "hoodie.compact.inline.max.delta.commits": "3"}, spec.StateRequested},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tb, _ := newMORTable(t) // four delta commits, no compaction
			before := scanAll(t, tb, hudi.ScanOptions{})
			if n := len(tb.Timeline().Instants); n != 4 {
				t.Fatalf("%d instants before, want 4", n)
			}
			// The fifth write: 5 delta commits since the start ≥ 3 → compaction.
			if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ke", "ts": 9, "fare": 1.5, "city": "nyc"}}),
				hudi.WriteOptions{Settings: tc.settings}); err != nil {
				t.Fatal(err)
			}
			ins := tb.Timeline().Instants
			last := ins[len(ins)-1]
			if last.Requested != spec.ActionCompaction && last.Action != spec.ActionCompaction || last.State != tc.want {
				t.Fatalf("last instant %+v, want a compaction in state %v", last, tc.want)
			}
			after := scanAll(t, tb, hudi.ScanOptions{})
			before["ke"] = after["ke"]
			sameSet(t, "snapshot after inline compaction", after, before)
			if tc.want != spec.StateCompleted {
				return
			}
			// The next write counts delta commits from that compaction: one is not enough.
			if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ke", "ts": 10, "fare": 2.5, "city": "nyc"}}),
				hudi.WriteOptions{Settings: tc.settings}); err != nil {
				t.Fatal(err)
			}
			ins = tb.Timeline().Instants
			if a := ins[len(ins)-1].Action; a != spec.ActionDeltaCommit {
				t.Fatalf("after one more delta commit the last instant is a %s, want deltacommit", a)
			}
		})
	}
}

func TestCompactionTrigger(t *testing.T) {
	at := func(s string) spec.InstantTime { return spec.InstantTime(s) }
	in := func(ts string, a spec.Action, st spec.State) timeline.Instant {
		return timeline.Instant{Time: at(ts), Action: a, State: st}
	}
	done := spec.StateCompleted
	// Two delta commits after a compaction at 10:00:00; the first delta commit at 09:00:00.
	tl := &timeline.Timeline{Instants: []timeline.Instant{
		in("20240101090000000", spec.ActionDeltaCommit, done),
		in("20240101100000000", spec.ActionCommit, done),
		in("20240101100500000", spec.ActionDeltaCommit, done),
		in("20240101101000000", spec.ActionDeltaCommit, spec.StateInflight), // pending ones count, as in Java
	}}
	now := at("20240101103000000") // 30 minutes after the compaction
	for _, c := range []struct {
		strategy string
		commits  int
		seconds  int64
		want     bool
	}{
		{"NUM_COMMITS", 2, 3600, true},
		{"NUM_COMMITS", 3, 3600, false},
		{"TIME_ELAPSED", 99, 1800, true},
		{"TIME_ELAPSED", 1, 1801, false},
		{"NUM_OR_TIME", 3, 1800, true},
		{"NUM_OR_TIME", 3, 1801, false},
		{"NUM_AND_TIME", 2, 1800, true},
		{"NUM_AND_TIME", 2, 1801, false},
		{"NUM_COMMITS_AFTER_LAST_REQUEST", 3, 0, true}, // no compaction request on this timeline: all 3 count
	} {
		got, err := hudi.CompactionTrigger{Strategy: c.strategy, MaxDeltaCommits: c.commits, MaxDeltaSeconds: c.seconds}.Due(tl, now, time.UTC)
		if err != nil || got != c.want {
			t.Errorf("%s commits %d seconds %d: %v %v, want %v", c.strategy, c.commits, c.seconds, got, err, c.want)
		}
	}
	if _, err := (hudi.CompactionTrigger{Strategy: "SOMETIMES"}).Due(tl, now, time.UTC); err == nil {
		t.Error("unknown strategy accepted")
	}
	empty := &timeline.Timeline{}
	if got, _ := (hudi.CompactionTrigger{Strategy: "NUM_COMMITS", MaxDeltaCommits: 0}).Due(empty, now, time.UTC); got {
		t.Error("compaction due on a table without delta commits")
	}
}
