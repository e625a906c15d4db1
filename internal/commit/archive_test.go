package commit

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// recordingStorage records deletes in order.
type recordingStorage struct {
	storage.Storage
	deleted []string
}

func (r *recordingStorage) Delete(ctx context.Context, p string) error {
	r.deleted = append(r.deleted, p)
	return r.Storage.Delete(ctx, p)
}

func TestDeleteArchivedInstantsOrder(t *testing.T) {
	ctx := context.Background()
	st := &recordingStorage{Storage: local.New(t.TempDir())}
	names := []string{"002.commit.requested", "002.inflight", "002.commit", "001.clean.requested", "001.clean.inflight", "001.clean"}
	for i := range names {
		names[i] = "20240101000000" + names[i]
		if err := writeFile(ctx, st, ".hoodie/"+names[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	tl := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", names)
	// commits listed before cleans: completed files still go oldest first
	ins := []timeline.Instant{tl.Instants[1], tl.Instants[0]}
	if err := handle(st, nil, HeartbeatOptions{}).DeleteArchivedInstants(ctx, ins); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, d := range st.deleted {
		if len(d) > 8 && d[:8] == ".hoodie/" {
			files = append(files, d[8:])
		}
	}
	want := []string{"20240101000000002.commit.requested", "20240101000000002.inflight", "20240101000000001.clean.requested",
		"20240101000000001.clean.inflight", "20240101000000001.clean", "20240101000000002.commit"}
	if len(files) != len(want) {
		t.Fatalf("deleted %v", files)
	}
	for i := range want {
		if files[i] != want[i] {
			t.Fatalf("deleted %v, want %v", files, want)
		}
	}
}

func TestWriteArchiveLogVersions(t *testing.T) {
	ctx := context.Background()
	st := local.New(t.TempDir())
	for i, want := range []string{".hoodie/archived/.commits_.archive.1_1-0-1", ".hoodie/archived/.commits_.archive.2_1-0-1"} {
		p, err := handle(st, nil, HeartbeatOptions{}).WriteArchiveLog(ctx, ".hoodie/archived", []byte{byte(i)})
		if err != nil || p != want {
			t.Fatalf("write %d: %s %v", i, p, err)
		}
	}
	// A version written by another archiver is never reused.
	w, err := st.Create(ctx, ".hoodie/archived/.commits_.archive.3_1-0-1")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(w, "x")
	_ = w.Close()
	if p, err := handle(st, nil, HeartbeatOptions{}).WriteArchiveLog(ctx, ".hoodie/archived", nil); err != nil || p != ".hoodie/archived/.commits_.archive.4_1-0-1" {
		t.Fatalf("after clash: %s %v", p, err)
	}
	if _, err := st.Stat(ctx, ".hoodie/archived/nope"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatal(err)
	}
}
