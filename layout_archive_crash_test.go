package hudi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// TestKillDuringArchivalLayoutTwo kills an archival of a version 9 table at each of a
// fixed set of points: before the LSM parquet file is published, before the manifest,
// before _version_, and at each deletion of an archived instant's active files (pending
// states of every instant first, then completed files oldest first). The kill is the
// in-process kind (the storage dies at its n-th change: that change and everything after
// fail, so the table holds exactly what a SIGKILL there leaves, every file being published
// atomically); the points are every change an uninterrupted archival makes, so the set
// is fixed and follows the code's order. After each kill:
//   - a read sees the timeline of before the archival — every instant once, from the active
//     timeline or the history — and the same rows;
//   - the next archival completes it: the timeline is still the same, no instant is both
//     active and archived, the history's files hold each archived instant once, and the
//     table reads the same rows.
func TestKillDuringArchivalLayoutTwo(t *testing.T) { testKillDuringArchival(t, 9) }

// TestKillDuringArchivalLayoutOne is the same on table version 6, whose archival writes a
// new .commits_.archive log: a kill after the log is published and before every archived
// instant left the active timeline must not make the next archival archive them again.
func TestKillDuringArchivalLayoutOne(t *testing.T) { testKillDuringArchival(t, 6) }

func testKillDuringArchival(t *testing.T, version int) {
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "base")
	tb, err := hudi.Create(ctx, base, hudi.CreateOptions{Name: "killarch", Type: "cow", TableVersion: version, RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]string{"hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false", "hoodie.metadata.enable": "false"}
	clock := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	for i := 0; i < 7; i++ {
		clock = clock.Add(time.Second)
		now := clock
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": fmt.Sprintf("k%d", i%4), "ts": json.Number(fmt.Sprint(i)), "v": fmt.Sprint("v", i)}}),
			hudi.WriteOptions{Operation: "upsert", Now: func() time.Time { return now }, Settings: off}); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if _, err := tb.Clean(ctx, hudi.CleanOptions{Now: func() time.Time { return now }, Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	settings := hudi.ArchiveOptions{Settings: map[string]string{"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "4",
		"hoodie.cleaner.commits.retained": "1"}}
	wantTimeline := mergedTimeline(t, base)
	wantRows := readRows(t, tb, "id")

	// The changes an uninterrupted archival makes are the kill points.
	counted := copyTable(t, base)
	full := &dyingStorage{Storage: local.New(counted), killAt: -1}
	if _, err := archiveOn(ctx, full, settings); err != nil {
		t.Fatal(err)
	}
	archivedWhole := archivedSet(t, counted)
	if len(archivedWhole) == 0 || len(full.changes) < 4 {
		t.Fatalf("the uninterrupted archival archived %v with changes %v", archivedWhole, full.changes)
	}
	for _, k := range killPoints(full.changes, version) {
		t.Run(fmt.Sprintf("kill at %d %s", k, filepath.Base(full.changes[k])), func(t *testing.T) {
			dir := copyTable(t, base)
			dying := &dyingStorage{Storage: local.New(dir), killAt: k}
			if _, err := archiveOn(ctx, dying, settings); !errors.Is(err, errKilled) {
				t.Fatalf("archival: %v, want the kill", err)
			}
			if got := mergedTimeline(t, dir); !slices.Equal(got, wantTimeline) {
				t.Errorf("after the kill the timeline reads\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantTimeline, "\n"))
			}
			after, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, "after the kill", readRows(t, after, "id"), wantRows)

			if _, err := after.Archive(ctx, settings); err != nil {
				t.Fatalf("the next archival: %v", err)
			}
			if got := mergedTimeline(t, dir); !slices.Equal(got, wantTimeline) {
				t.Errorf("after the next archival the timeline reads\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantTimeline, "\n"))
			}
			if got := archivedSet(t, dir); !slices.Equal(got, archivedWhole) {
				t.Errorf("archived %v, want %v (as without the kill)", got, archivedWhole)
			}
			if version == 6 {
				checkArchiveLogsOnce(t, dir)
			} else {
				checkHistoryOnce(t, dir)
			}
			after, err = hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, "after the next archival", readRows(t, after, "id"), wantRows)
		})
	}
}

// killPoints chooses the kills from the changes of an uninterrupted archival: before the
// history file, the manifest, _version_ (version 6: before the archive log), the first removal of a pending instant file, the
// second removal of a completed one (after the oldest archived instant left the active
// timeline) and the last change. HUDI_ARCHIVE_KILL_ALL=1 kills at every change.
func killPoints(changes []string, version int) []int {
	if os.Getenv("HUDI_ARCHIVE_KILL_ALL") != "" {
		out := make([]int, len(changes))
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	pick := func(i int) {
		if i >= 0 && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	completed := 0
	firstPending := -1
	for i, c := range changes {
		name := filepath.Base(c)
		switch {
		case strings.HasPrefix(c, "create ") && strings.HasSuffix(name, ".parquet"),
			strings.HasPrefix(c, "create ") && strings.HasPrefix(name, "manifest_"),
			strings.HasPrefix(c, "put ") && name == "_version_",
			strings.HasPrefix(c, "create ") && strings.HasPrefix(name, ".commits_.archive"):
			pick(i)
		case strings.HasPrefix(c, "delete ") && (strings.Contains(name, ".requested") || strings.HasSuffix(name, ".inflight")):
			if firstPending < 0 {
				firstPending = i
				pick(i)
			}
		case strings.HasPrefix(c, "delete ") && (strings.Contains(name, "_") || version == 6) && !strings.HasPrefix(name, "manifest_"):
			if completed++; completed == 2 {
				pick(i)
			}
		}
	}
	pick(len(changes) - 1)
	return out
}

func archiveOn(ctx context.Context, st storage.Storage, o hudi.ArchiveOptions) (*hudi.ArchiveResult, error) {
	tb, err := hudi.OpenStorage(ctx, st)
	if err != nil {
		return nil, err
	}
	return tb.Archive(ctx, o)
}

// mergedTimeline is the table's whole timeline, "<instant> <action> <state> <completion>"
// sorted: the active instants, and the archived ones not (still) on the active timeline —
// an archival killed before it removed an instant from the active timeline has it in
// both places, and a reader takes the active one (Java: the archived timeline ends where
// the active one starts).
func mergedTimeline(t *testing.T, dir string) []string {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	active := map[string]bool{}
	for _, in := range tb.Timeline().Instants {
		k := string(in.Time) + " " + string(in.Action.CompletedAction())
		if active[k] {
			t.Errorf("instant %s twice on the active timeline", k)
		}
		active[k] = true
		out = append(out, fmt.Sprintf("%s %s %s %s", in.Time, in.Action, in.State, in.Completion))
	}
	arch, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arch {
		if active[string(a.Instant.Time)+" "+string(a.Instant.Action.CompletedAction())] {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %s %s", a.Instant.Time, a.Instant.Action, a.Instant.State, a.Instant.Completion))
	}
	slices.Sort(out)
	return out
}

// archivedSet is the sorted instants of the archived timeline that are not on the active
// one; an instant in both fails the test.
func archivedSet(t *testing.T, dir string) []string {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	active := map[string]bool{}
	for _, in := range tb.Timeline().Instants {
		active[string(in.Time)] = true
	}
	arch, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range arch {
		if active[string(a.Instant.Time)] {
			t.Errorf("instant %s is both active and archived", a.Instant.Time)
		}
		out = append(out, string(a.Instant.Time))
	}
	slices.Sort(out)
	return out
}

// checkHistoryOnce fails when the files of the history's latest snapshot hold more rows
// than distinct archived instants (the reader hides a doubled row; storage must not hold one).
func checkHistoryOnce(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	history := filepath.Join(dir, ".hoodie", "timeline", "history")
	// The snapshot readers take (LSMTimeline.latestSnapshotVersion): _version_, else the
	// highest manifest — an archival killed before writing its first _version_ leaves none,
	// and its rerun finds the manifest.
	v, err := os.ReadFile(filepath.Join(history, "_version_"))
	if err != nil {
		manifests, _ := filepath.Glob(filepath.Join(history, "manifest_*"))
		best := -1
		for _, m := range manifests {
			if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "manifest_")); err == nil && n > best {
				best = n
			}
		}
		v = []byte(strconv.Itoa(best))
	}
	if _, err := strconv.Atoi(string(v)); err != nil {
		t.Fatalf("_version_ %q", v)
	}
	mb, err := os.ReadFile(filepath.Join(history, "manifest_"+string(v)))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Files []struct {
			FileName string `json:"fileName"`
		} `json:"files"`
	}
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	st := local.New(history)
	rows := int64(0)
	for _, f := range m.Files {
		r, err := st.Open(ctx, f.FileName)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.Open(r, r.Size(), f.FileName, memory.DefaultAllocator, 0)
		if err != nil {
			r.Close()
			t.Fatal(err)
		}
		rows += pf.NumRows()
		pf.Close()
		r.Close()
	}
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	arch, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rows != int64(len(arch)) {
		t.Errorf("the history's files (%v) hold %d rows for %d archived instants", m.Files, rows, len(arch))
	}
}

// checkArchiveLogsOnce fails when an instant is in more than one archive log of a version
// 6 table (readers drop the duplicate; storage must not hold one).
func checkArchiveLogsOnce(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	logs, err := filepath.Glob(filepath.Join(dir, ".hoodie", "archived", ".commits_.archive*"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("archive logs: %v %v", logs, err)
	}
	seen := map[string]string{}
	for _, l := range logs {
		one := t.TempDir()
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(one, filepath.Base(l)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		ins, err := timeline.LatestArchiveLogInstants(ctx, local.New(one), ".")
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range ins {
			k := string(in.Time) + " " + string(in.Action.CompletedAction())
			if prev, ok := seen[k]; ok {
				t.Errorf("instant %s archived in %s and again in %s", k, prev, filepath.Base(l))
			}
			seen[k] = filepath.Base(l)
		}
	}
}

// copyTable copies the table directory src into a new temporary directory.
func copyTable(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tbl")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, fi.Mode()); err != nil {
			return err
		}
		return os.Chtimes(target, fi.ModTime(), fi.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var errKilled = errors.New("killed (injected)")

// dyingStorage is a storage whose process dies at its killAt-th change (a published
// Create, a Put, a Delete; counted from 0; -1 never): that change and every operation
// after it fail with errKilled, so the files are what a SIGKILL at that point leaves.
// changes names the changes made. The table lock's file is exempt (isLock).
type dyingStorage struct {
	storage.Storage
	killAt int

	mu      sync.Mutex
	dead    bool
	changes []string
}

func (d *dyingStorage) change(op, p string) error {
	if isLock(p) {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead || (d.killAt >= 0 && len(d.changes) >= d.killAt) {
		d.dead = true
		return fmt.Errorf("%s %s: %w", op, p, errKilled)
	}
	d.changes = append(d.changes, op+" "+p)
	return nil
}

// isLock tells the table lock's file, which outlives the process: the test lets the dead
// process release it, as a lock provider that noticed the death at once would
// (TestKillLockHolder in internal/crashtest kills lock holders for real).
func isLock(p string) bool { return strings.HasPrefix(p, ".hoodie/lock") }

func (d *dyingStorage) alive(op, p string) error {
	if isLock(p) {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		return fmt.Errorf("%s %s: %w", op, p, errKilled)
	}
	return nil
}

func (d *dyingStorage) Open(ctx context.Context, p string) (storage.File, error) {
	if err := d.alive("open", p); err != nil {
		return nil, err
	}
	return d.Storage.Open(ctx, p)
}

func (d *dyingStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := d.alive("read", p); err != nil {
		return nil, err
	}
	return d.Storage.ReadFile(ctx, p)
}

func (d *dyingStorage) List(ctx context.Context, p string) ([]storage.FileInfo, error) {
	if err := d.alive("list", p); err != nil {
		return nil, err
	}
	return d.Storage.List(ctx, p)
}

func (d *dyingStorage) Stat(ctx context.Context, p string) (storage.FileInfo, error) {
	if err := d.alive("stat", p); err != nil {
		return storage.FileInfo{}, err
	}
	return d.Storage.Stat(ctx, p)
}

func (d *dyingStorage) MkdirAll(ctx context.Context, p string) error {
	if err := d.alive("mkdir", p); err != nil {
		return err
	}
	return d.Storage.MkdirAll(ctx, p)
}

func (d *dyingStorage) Put(ctx context.Context, p string, data []byte) error {
	if err := d.change("put", p); err != nil {
		return err
	}
	return d.Storage.Put(ctx, p, data)
}

func (d *dyingStorage) Delete(ctx context.Context, p string) error {
	if err := d.change("delete", p); err != nil {
		return err
	}
	return d.Storage.Delete(ctx, p)
}

func (d *dyingStorage) Create(ctx context.Context, p string) (storage.Writer, error) {
	if err := d.alive("create", p); err != nil {
		return nil, err
	}
	w, err := d.Storage.Create(ctx, p)
	if err != nil {
		return nil, err
	}
	return &dyingWriter{Writer: w, d: d, path: p}, nil
}

// dyingWriter publishes its file on Close only while the storage lives; a kill discards it
// (the local backend's temporary file would be left behind by a real kill: garbage no
// reader looks at).
type dyingWriter struct {
	storage.Writer
	d    *dyingStorage
	path string
}

func (w *dyingWriter) Write(b []byte) (int, error) {
	if err := w.d.alive("write", w.path); err != nil {
		return 0, err
	}
	return w.Writer.Write(b)
}

func (w *dyingWriter) Close() error {
	if err := w.d.change("create", w.path); err != nil {
		_ = w.Writer.Abort()
		return err
	}
	return w.Writer.Close()
}
