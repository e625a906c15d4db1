package savepoint

import (
	"slices"
	"testing"

	"github.com/hudi-go/hudi/internal/timeline"
)

// TestRestoreOrder: restoring to savepoint S (instant 20, completed at 25) rolls back what
// comes after S. Layout 1 (Java 0.14) goes by instant time. Layout 2 goes by Hudi 1.x's
// RestoreInstantComparator: completion time (instant 15, requested before S but completed
// at 30, after S's completion, is rolled back; a pending instant always is), except commits
// and compactions of merge-on-read tables, which go by instant time (compaction 18,
// completed at 40, stays: the logs of later deltacommits sit on its base files).
func TestRestoreOrder(t *testing.T) {
	v1 := []string{"00000000000000010.commit", "00000000000000015.commit", "00000000000000020.commit",
		"00000000000000030.commit", "00000000000000035.inflight"}
	v2 := []string{
		"00000000000000010_00000000000000012.deltacommit",
		"00000000000000015_00000000000000030.deltacommit",
		"00000000000000018.compaction.requested", "00000000000000018_00000000000000040.commit",
		"00000000000000020_00000000000000025.deltacommit",
		"00000000000000022_00000000000000023.deltacommit", // completed before S did: stays
		"00000000000000030_00000000000000031.deltacommit",
		"00000000000000011.deltacommit.requested", // pending, requested long before S
	}
	for _, tc := range []struct {
		name string
		tl   *timeline.Timeline
		mor  bool
		want []string
	}{
		{"layout 1 by instant time", timeline.FromFileNames(timeline.LayoutV1, ".hoodie", v1), false,
			[]string{"00000000000000030", "00000000000000035"}},
		{"layout 2 merge-on-read by completion, compaction by instant time", timeline.FromFileNames(timeline.LayoutV2, ".hoodie/timeline", v2), true,
			[]string{"00000000000000011", "00000000000000015", "00000000000000030"}},
		{"layout 2 copy-on-write by completion", timeline.FromFileNames(timeline.LayoutV2, ".hoodie/timeline", v2), false,
			[]string{"00000000000000011", "00000000000000015", "00000000000000018", "00000000000000030"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := restoreOrder(tc.tl, "00000000000000020", tc.mor)
			var got []string
			for _, in := range tc.tl.Instants {
				if isWrite(in) && after(in) {
					got = append(got, string(in.Time))
				}
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("rolled back %v, want %v", got, tc.want)
			}
		})
	}
}
