package timeline

import (
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
)

// The names each layout gives an instant's files are the ones Spark wrote in the fixtures:
// cow/v6_nonpartitioned (layout 1, HoodieInstant file names of 0.14) and
// cow/v8_nonpartitioned (layout 2: InstantFileNameGeneratorV2, completed files named
// "<requested>_<completion>.<action>", the commit inflight file without an action).
func TestLayoutFileNames(t *testing.T) {
	const ts, done = spec.InstantTime("20250713010535797"), spec.InstantTime("20250713010536200")
	cases := []struct {
		layout Layout
		f      spec.InstantFileName
		want   string
	}{
		{LayoutV1, spec.InstantFileName{Instant: ts, Action: spec.ActionCommit, State: spec.StateRequested}, "20250713010535797.commit.requested"},
		{LayoutV1, spec.InstantFileName{Instant: ts, Action: spec.ActionCommit, State: spec.StateInflight}, "20250713010535797.inflight"},
		{LayoutV1, spec.InstantFileName{Instant: ts, Action: spec.ActionCommit, State: spec.StateCompleted, Completion: done}, "20250713010535797.commit"},
		{LayoutV1, spec.InstantFileName{Instant: ts, Action: spec.ActionDeltaCommit, State: spec.StateInflight}, "20250713010535797.deltacommit.inflight"},
		{LayoutV2, spec.InstantFileName{Instant: ts, Action: spec.ActionCommit, State: spec.StateRequested}, "20250713010535797.commit.requested"},
		{LayoutV2, spec.InstantFileName{Instant: ts, Action: spec.ActionCommit, State: spec.StateInflight}, "20250713010535797.inflight"},
		{LayoutV2, spec.InstantFileName{Instant: ts, Action: spec.ActionCommit, State: spec.StateCompleted, Completion: done}, "20250713010535797_20250713010536200.commit"},
		{LayoutV2, spec.InstantFileName{Instant: ts, Action: spec.ActionCompaction, State: spec.StateCompleted, Completion: done}, "20250713010535797_20250713010536200.commit"},
		{LayoutV2, spec.InstantFileName{Instant: ts, Action: spec.ActionDeltaCommit, State: spec.StateInflight}, "20250713010535797.deltacommit.inflight"},
	}
	for _, c := range cases {
		if got := c.layout.FileName(c.f); got != c.want {
			t.Errorf("%s: FileName(%+v) = %s, want %s", c.layout, c.f, got, c.want)
		}
		back, ok := spec.ParseInstantFileName(c.want)
		if !ok || back.Instant != c.f.Instant || back.State != c.f.State {
			t.Errorf("%s does not parse back to %+v: %+v", c.want, c.f, back)
		}
	}
}

// Each table version gets its layout once (HoodieTableVersion.getTimelineLayoutVersion),
// and the layout decides the folders: Java's defaults for hoodie.timeline.path,
// hoodie.archivelog.folder and hoodie.timeline.history.path.
func TestLayoutOfVersion(t *testing.T) {
	cases := []struct {
		v                      spec.TableVersion
		version                int
		dir, customDir         string
		archive, customArchive string
		folderKey              string
		completion             bool
	}{
		{6, 1, ".hoodie", ".hoodie", ".hoodie/archived", ".hoodie/arch", "hoodie.archivelog.folder", false},
		{8, 2, ".hoodie/timeline", ".hoodie/tl", ".hoodie/timeline/history", ".hoodie/tl/arch", "hoodie.timeline.history.path", true},
		{9, 2, ".hoodie/timeline", ".hoodie/tl", ".hoodie/timeline/history", ".hoodie/tl/arch", "hoodie.timeline.history.path", true},
	}
	for _, c := range cases {
		l := LayoutOf(c.v)
		if l.Version() != c.version {
			t.Fatalf("version %d: layout %d, want %d", c.v, l.Version(), c.version)
		}
		if byNum, ok := LayoutByVersion(c.version); !ok || byNum != l {
			t.Errorf("LayoutByVersion(%d) = %v, %v", c.version, byNum, ok)
		}
		if got := l.Dir(""); got != c.dir {
			t.Errorf("%s: Dir = %s, want %s", l, got, c.dir)
		}
		if got := l.Dir("tl"); got != c.customDir {
			t.Errorf("%s: Dir(tl) = %s, want %s", l, got, c.customDir)
		}
		if got := l.ArchiveDir("", ""); got != c.archive {
			t.Errorf("%s: ArchiveDir = %s, want %s", l, got, c.archive)
		}
		if got := l.ArchiveDir("arch", "tl"); got != c.customArchive {
			t.Errorf("%s: ArchiveDir(arch, tl) = %s, want %s", l, got, c.customArchive)
		}
		if got := l.ArchiveFolderKey(); got != c.folderKey {
			t.Errorf("%s: ArchiveFolderKey = %s, want %s", l, got, c.folderKey)
		}
		if l.CompletionTimes() != c.completion {
			t.Errorf("%s: CompletionTimes = %v", l, !c.completion)
		}
	}
	if _, ok := LayoutByVersion(3); ok {
		t.Error("LayoutByVersion(3) found a layout")
	}
}
