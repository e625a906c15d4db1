package timeline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// TestArchivedCompletionTime: Timeline.CompletionTime answers an instant older than the
// active timeline's first write from the LSM history, as Java's CompletionTimeQueryViewV2
// does, reading the history only when such an instant is asked about, and then only the
// files whose <min>_<max> range reaches it (ClosedOpenTimeRangeFilter from the instant to
// the cursor); a row without completion time counts as completed at its instant, and
// non-write rows (a clean) are no answer. An instant the history lacks is not found, and a
// history that cannot be read is an error naming the file.
func TestArchivedCompletionTime(t *testing.T) {
	ctx := context.Background()
	const (
		old = "20240101000000001_20240101000000002_0.parquet"
		mid = "20240101000000003_20240101000000005_0.parquet"
	)
	files := map[string][]byte{
		history + old: lsmParquet(t,
			lsmRow{ts: str("20240101000000001"), completion: str("20240101000000009"), action: str("deltacommit")},
			lsmRow{ts: str("20240101000000002"), action: str("commit")},
		),
		history + mid: lsmParquet(t,
			lsmRow{ts: str("20240101000000003"), completion: str("20240101000000004"), action: str("clean")},
			lsmRow{ts: str("20240101000000005"), completion: str("20240101000000008"), action: str("deltacommit")},
		),
		history + "_version_": []byte("1"),
	}
	files[history+"manifest_1"] = manifestJSON(files, old, mid)
	// The active timeline starts at 6, with a clean at 4 left behind by archival.
	active := []string{
		"20240101000000004.clean.requested", "20240101000000004_20240101000000007.clean",
		"20240101000000006.deltacommit.requested", "20240101000000006_20240101000000010.deltacommit",
	}
	root := writeTree(t, files)
	st := local.New(root)
	newTL := func() *Timeline {
		return FromFileNames(LayoutV2, ".hoodie/timeline", active).WithArchive(st, LayoutV2.ArchiveDir("", ""))
	}
	tl := newTL()
	for _, c := range []struct {
		ts, want string
		ok       bool
		loads    int // history reads so far
	}{
		{"20240101000000006", "20240101000000010", true, 0}, // active: no history read
		{"20240101000000007", "", false, 0},                 // after the start, not an instant
		{"20240101000000005", "20240101000000008", true, 1}, // archived: reads mid only
		{"20240101000000004", "", false, 2},                 // the clean is no write; reads [4, 5): mid
		{"20240101000000001", "20240101000000009", true, 3}, // reads [1, 4): old and mid
		{"20240101000000002", "20240101000000002", true, 3}, // no completion time: its instant; cached
		{"20240101000000003", "", false, 3},                 // a clean row, in the range read
		{"20240101000000000", "", false, 4},                 // before every file: [0, 1) reads none
		{"20240101000000000", "", false, 4},                 // cached miss
		{"20240101000000005", "20240101000000008", true, 4}, // cached
		{"20240101000000011", "", false, 4},                 // after the start
	} {
		got, ok, err := tl.CompletionTime(ctx, spec.InstantTime(c.ts))
		if err != nil || string(got) != c.want || ok != c.ok {
			t.Errorf("CompletionTime(%s) = %q %v %v, want %q %v", c.ts, got, ok, err, c.want, c.ok)
		}
		if tl.archive.loads != c.loads {
			t.Errorf("after CompletionTime(%s): %d history reads, want %d", c.ts, tl.archive.loads, c.loads)
		}
	}

	// A clone shares the cache; a relisted timeline starts its own.
	if cl := tl.Clone(); cl.archive != tl.archive {
		t.Error("Clone dropped the archive cache")
	}
	re := tl.Relist(active)
	if re.archive == nil || re.archive == tl.archive || re.archive.dir != tl.archive.dir {
		t.Errorf("Relist: archive %+v", re.archive)
	}
	// Without WithArchive, and on layout 1, archived instants are not looked up.
	plain := FromFileNames(LayoutV2, ".hoodie/timeline", active)
	if _, ok, err := plain.CompletionTime(ctx, "20240101000000005"); ok || err != nil {
		t.Errorf("timeline without archive: %v %v", ok, err)
	}
	if v1 := FromFileNames(LayoutV1, ".hoodie", nil).WithArchive(st, "x"); v1.archive != nil {
		t.Error("layout 1 took an archive")
	}

	// ArchivedSince lists the rows at or after an instant, every action.
	since, err := ArchivedSince(ctx, st, LayoutV2.ArchiveDir("", ""), "20240101000000003")
	var got []string
	for _, in := range since {
		got = append(got, string(in.Time)+" "+string(in.Action)+" "+string(in.Completion))
	}
	if want := []string{"20240101000000003 clean 20240101000000004", "20240101000000005 deltacommit 20240101000000008"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ArchivedSince(3) = %v %v, want %v", got, err, want)
	}

	// A manifest naming a missing file fails the lookup, naming the file; ArchivedSince
	// fails only when it needs that file.
	delete(files, history+old)
	if _, err := ArchivedSince(ctx, local.New(writeTree(t, files)), LayoutV2.ArchiveDir("", ""), "20240101000000003"); err != nil {
		t.Errorf("ArchivedSince(3) read a file ending before 3: %v", err)
	}
	if _, err := ArchivedSince(ctx, local.New(writeTree(t, files)), LayoutV2.ArchiveDir("", ""), "20240101000000001"); err == nil || !strings.Contains(err.Error(), old) {
		t.Errorf("ArchivedSince(1) without %s: %v", old, err)
	}
	delete(files, history+mid)
	st = local.New(writeTree(t, files))
	tl = newTL()
	if _, _, err := tl.CompletionTime(ctx, "20240101000000005"); err == nil || !strings.Contains(err.Error(), mid) {
		t.Errorf("missing history file: %v, want an error naming %s", err, mid)
	}
	// No history at all: nothing archived is known, and that is no error.
	st = local.New(t.TempDir())
	tl = newTL()
	if _, ok, err := tl.CompletionTime(ctx, "20240101000000005"); ok || err != nil {
		t.Errorf("no history: %v %v", ok, err)
	}
}
