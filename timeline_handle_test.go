package hudi_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// Frames of the commit.Timeline handle, as runtime reports them.
const (
	timelinePut    = "github.com/hudi-go/hudi/internal/commit.(*Timeline).put"
	timelineRemove = "github.com/hudi-go/hudi/internal/commit.(*Timeline).remove"
	timelineMethod = "github.com/hudi-go/hudi/internal/commit.(*Timeline)."
)

// timelineWatch is a storage that checks, on every change of a file of the timeline, that
// the change comes from the commit.Timeline handle: an instant file (.hoodie/<instant>.<action>[.<state>])
// is created only by its put and deleted only by its remove; any other file of .hoodie
// that is no table config, lock or folder (temp files of dead writers) and every file of
// .hoodie/archived are changed only from one of its methods. It counts what it saw per
// action and state, so the test can require that every kind of transition ran.
type timelineWatch struct {
	storage.Storage
	t    *testing.T
	mu   sync.Mutex
	seen map[string]int
}

func (w *timelineWatch) URI() string { return w.Storage.(storage.URIer).URI() }

func (w *timelineWatch) ListNames(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	return storage.ListNames(ctx, w.Storage, dir)
}

func (w *timelineWatch) Create(ctx context.Context, p string) (storage.Writer, error) {
	w.check("create", p)
	return w.Storage.Create(ctx, p)
}

func (w *timelineWatch) Put(ctx context.Context, p string, data []byte) error {
	w.check("put", p)
	return w.Storage.Put(ctx, p, data)
}

func (w *timelineWatch) Delete(ctx context.Context, p string) error {
	w.check("delete", p)
	return w.Storage.Delete(ctx, p)
}

// check fails the test when the change op of p is one of the timeline's and the handle is
// not on the stack.
func (w *timelineWatch) check(op, p string) {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	var want, kind string
	switch {
	case dir == ".hoodie/"+timeline.DefaultArchiveFolder:
		want, kind = timelineMethod, "archived "+op
	case dir != ".hoodie":
		return
	default:
		if f, ok := spec.ParseInstantFileName(name); ok {
			want, kind = timelinePut, fmt.Sprintf("%s %s.%s", op, f.Action, f.State)
			if op == "delete" {
				want = timelineRemove
			}
		} else if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") {
			want, kind = timelineMethod, "temp "+op
		} else {
			return // hoodie.properties, the file-system lock, folders
		}
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var stack []string
	for {
		fr, more := frames.Next()
		if strings.HasPrefix(fr.Function, want) {
			w.mu.Lock()
			w.seen[kind]++
			w.mu.Unlock()
			return
		}
		stack = append(stack, fr.Function)
		if !more {
			break
		}
	}
	w.t.Errorf("%s of timeline file %s outside the commit.Timeline handle (want %s on the stack):\n\t%s", op, p, want, strings.Join(stack, "\n\t"))
}

// TestTimelineFilesChangeOnlyThroughTheHandle runs every operation that changes a
// timeline — writes (and the rollback of a failed one, with the removal of a dead
// writer's temp file), compaction, clustering, clean, an explicit rollback, savepoint
// create/restore/delete and archival — on a merge-on-read table whose storage checks
// that each timeline file is created and deleted by commit.Timeline's put and remove (or,
// for archive logs and temp files, by one of its methods). A direct write of an instant
// file anywhere in the code base (the ~19 scattered writes the handle replaced) fails
// it; so does a transition this run stops exercising.
func TestTimelineFilesChangeOnlyThroughTheHandle(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"}); err != nil {
		t.Fatal(err)
	}
	watch := &timelineWatch{Storage: local.New(dir), t: t, seen: map[string]int{}}
	tb, err := hudi.OpenStorage(ctx, watch)
	if err != nil {
		t.Fatal(err)
	}
	// A fixed clock a second apart per call keeps the instants ordered and the run fast.
	clock := time.Date(2024, 5, 6, 7, 8, 9, 0, time.Local)
	var clockMu sync.Mutex
	now := func() time.Time {
		clockMu.Lock()
		defer clockMu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	// The metadata table compacts at every write, so that archival (bounded by its latest
	// compaction) has commits to archive at the end.
	quiet := map[string]string{"hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false", "hoodie.parquet.small.file.limit": "0",
		"hoodie.metadata.compact.max.delta.commits": "1"}
	write := func(op string, rows []row) string {
		t.Helper()
		res, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: op, Now: now, Settings: quiet})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res.Instant
	}
	first := write("insert", inserts(9))
	write("upsert", updates)

	// A writer killed after marking its instant inflight, leaving a temp file of a
	// timeline write: the next write rolls it back and removes the temp file.
	ct := commit.NewTimeline(watch, commit.TimelineOptions{Now: now, Zone: time.Local})
	tl, err := timeline.Load(ctx, watch, 6, "")
	if err != nil {
		t.Fatal(err)
	}
	txn, err := ct.Begin(ctx, tl, spec.ActionDeltaCommit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	txn.Close()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(commit.HeartbeatPath(txn.Instant)))); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".hoodie", "."+string(txn.Instant)+".deltacommit.tmp-1")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	write("upsert", []row{{"uuid": "ka", "ts": 3, "fare": 200.5, "city": "sf"}})
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("dead writer's temp file %s not removed (%v)", tmp, err)
	}

	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, first, hudi.SavepointOptions{Now: now}); err != nil {
		t.Fatalf("savepoint: %v", err)
	}
	write("upsert", []row{{"uuid": "kc", "ts": 5, "fare": 2.5, "city": "la"}})
	if _, err := tb.Savepoint(ctx, hudi.SavepointRestore, first, hudi.SavepointOptions{Now: now}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointDelete, first, hudi.SavepointOptions{Now: now}); err != nil {
		t.Fatalf("delete savepoint: %v", err)
	}
	if _, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Now: now}); err != nil {
		t.Fatalf("compact: %v", err)
	}
	if _, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true, Now: now,
		Settings: map[string]string{"hoodie.clustering.plan.strategy.small.file.limit": "10485760"}}); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	last := write("upsert", []row{{"uuid": "kb", "ts": 4, "fare": 1.5, "city": "nyc"}})
	if _, err := tb.Rollback(ctx, last, hudi.RollbackOptions{Now: now}); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	for i := 0; i < 6; i++ {
		write("upsert", []row{{"uuid": "kd", "ts": int64(10 + i), "fare": float64(i), "city": "sf"}})
	}
	if _, err := tb.Clean(ctx, hudi.CleanOptions{Now: now, Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}}); err != nil {
		t.Fatalf("clean: %v", err)
	}
	small := map[string]string{"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3", "hoodie.cleaner.commits.retained": "1",
		"hoodie.commits.archival.batch": "2", "hoodie.compact.inline.max.delta.commits": "1"}
	res, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: small})
	if err != nil {
		t.Fatalf("archive: %v", err)
	}
	if len(res.InstantsArchived) == 0 {
		t.Fatalf("archival archived nothing: %+v", res)
	}

	// Every kind of transition ran through the watch (the test would pass vacuously if the
	// storage were bypassed or an operation stopped running).
	var kinds []string
	for k := range watch.seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	t.Logf("timeline changes seen: %v", kinds)
	for _, k := range []string{
		"create deltacommit.requested", "create deltacommit.inflight", "create deltacommit.completed",
		"create compaction.requested", "create compaction.inflight", "create commit.completed",
		"create replacecommit.requested", "create replacecommit.inflight", "create replacecommit.completed",
		"create clean.requested", "create clean.inflight", "create clean.completed",
		"create rollback.requested", "create rollback.inflight", "create rollback.completed",
		"create savepoint.inflight", "create savepoint.completed",
		"create restore.requested", "create restore.inflight", "create restore.completed",
		"delete deltacommit.completed", "delete deltacommit.inflight", "delete deltacommit.requested",
		"delete savepoint.completed",
		"archived create", "temp delete",
	} {
		if watch.seen[k] == 0 {
			t.Errorf("no %q through the handle: the run no longer exercises it", k)
		}
	}
}
