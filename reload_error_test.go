package hudi_test

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// errTimelineGone is what failingAfterCommit's timeline reads fail with once armed.
var errTimelineGone = errors.New("injected: the timeline cannot be read")

// failingAfterCommit is a local storage whose reads of .hoodie fail from the moment a
// completed commit file has been written: the write commits, and the handle's re-read
// right after it fails.
type failingAfterCommit struct {
	storage.Storage
	armed atomic.Bool
}

func (s *failingAfterCommit) Create(ctx context.Context, p string) (storage.Writer, error) {
	w, err := s.Storage.Create(ctx, p)
	if err == nil && path.Dir(p) == ".hoodie" && strings.HasSuffix(p, ".commit") {
		return &armOnClose{Writer: w, s: s}, nil
	}
	return w, err
}

func (s *failingAfterCommit) timeline(p string) bool {
	return s.armed.Load() && (p == ".hoodie" || strings.HasPrefix(p, ".hoodie/"))
}

func (s *failingAfterCommit) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if s.timeline(p) {
		return nil, errTimelineGone
	}
	return s.Storage.ReadFile(ctx, p)
}

func (s *failingAfterCommit) List(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	if s.timeline(dir) {
		return nil, errTimelineGone
	}
	return s.Storage.List(ctx, dir)
}

// armOnClose arms the storage once the completed commit file is published.
type armOnClose struct {
	storage.Writer
	s *failingAfterCommit
}

func (w *armOnClose) Close() error {
	err := w.Writer.Close()
	if err == nil {
		w.s.armed.Store(true)
	}
	return err
}

// TestWriteCommittedButReloadFails pins the facade's reload-error path: when the handle
// cannot re-read the table right after a write committed, the write returns its result
// together with a *hudi.ServiceError naming the committed instant and wrapping the
// re-read's error — not a bare failure that would invite a retry writing the rows twice —
// and the commit is in the table.
func TestWriteCommittedButReloadFails(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "reload", Type: "cow", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"}); err != nil {
		t.Fatal(err)
	}
	st := &failingAfterCommit{Storage: local.New(dir)}
	tb, err := hudi.OpenStorage(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "k", "ts": json.Number("1"), "v": "x"}}),
		hudi.WriteOptions{Operation: "upsert", Settings: map[string]string{"hoodie.metadata.enable": "false"}})
	var se *hudi.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("write: %v (%T), want a *hudi.ServiceError", err, err)
	}
	if res == nil || res.Instant == "" || se.Instant != res.Instant {
		t.Fatalf("result %+v, ServiceError instant %q: want the committed instant in both", res, se.Instant)
	}
	if !errors.Is(err, errTimelineGone) || !strings.Contains(err.Error(), "committed") {
		t.Errorf("error %q: want the re-read's error, saying the write committed", err)
	}
	st.armed.Store(false)
	fresh, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, fresh, hudi.ScanOptions{})
	if len(got) != 1 || !strings.Contains(got["k"], `"v":"x"`) {
		t.Errorf("after the failed re-read the table reads %v, want the committed row", got)
	}
}
