package rollback

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
)

func TestPlan(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := local.New(dir)
	names := []string{
		"20250101000000001.deltacommit.requested", "20250101000000001.deltacommit.inflight", "20250101000000001.deltacommit",
		"20250101000000002.deltacommit.requested", "20250101000000002.deltacommit.inflight", "20250101000000002.deltacommit",
		"20250101000000003.compaction.requested",
		"20250101000000004.deltacommit.requested", "20250101000000004.deltacommit.inflight",
		"20250101000000005.clean.requested",
	}
	tl := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", names)
	now := time.Now()
	if _, err := Plan(ctx, st, tl, "20250101000000002", false, now); !errors.Is(err, ErrLaterInstants) {
		t.Errorf("later pending compaction and deltacommit: %v", err)
	}
	todo, err := Plan(ctx, st, tl, "20250101000000002", true, now)
	if err != nil {
		t.Fatal(err)
	}
	var got []spec.InstantTime
	for _, in := range todo {
		got = append(got, in.Time)
	}
	if want := []spec.InstantTime{"20250101000000004", "20250101000000003", "20250101000000002"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("rollback order %v, want %v", got, want)
	}
	if _, err := Plan(ctx, st, tl, "20250101000000005", false, now); !errors.Is(err, ErrNotFound) {
		t.Errorf("a clean is not rolled back: %v", err)
	}
	// A pending write whose writer is alive is not touched.
	os.MkdirAll(filepath.Join(dir, ".hoodie", ".heartbeat"), 0o755)
	os.WriteFile(filepath.Join(dir, ".hoodie", ".heartbeat", "20250101000000004"), nil, 0o644)
	if _, err := Plan(ctx, st, tl, "20250101000000004", false, time.Now()); err == nil {
		t.Error("a pending write with a live heartbeat was planned for rollback")
	}
	sp := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", append(names, "20250101000000002.savepoint.inflight", "20250101000000002.savepoint"))
	for _, target := range []spec.InstantTime{"20250101000000001", "20250101000000002"} {
		if _, err := Plan(ctx, st, sp, target, true, now); !errors.Is(err, ErrSavepointed) {
			t.Errorf("rollback of %s under a savepoint: %v", target, err)
		}
	}
}
