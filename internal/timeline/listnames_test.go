package timeline

import (
	"context"
	"io"
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// listCounter records which listing a caller used.
type listCounter struct {
	*local.FS
	lists, names int
}

func (l *listCounter) List(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	l.lists++
	return l.FS.List(ctx, dir)
}

func (l *listCounter) ListNames(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	l.names++
	return l.FS.ListNames(ctx, dir)
}

// Loading the timeline needs only file names: it must not use List, which stats every
// file of .hoodie (a writer loads the timeline several times per commit).
func TestLoadListsNamesOnly(t *testing.T) {
	ctx := context.Background()
	st := &listCounter{FS: local.New(t.TempDir())}
	for _, n := range []string{"20240418173550988.commit.requested", "20240418173550988.inflight", "20240418173550988.commit", "hoodie.properties"} {
		w, err := st.Create(ctx, storage.Join(MetaDir, n))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "{}")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tl, err := Load(ctx, st, spec.TableVersion6, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Instants) != 1 || tl.Instants[0].State != spec.StateCompleted {
		t.Fatalf("instants %+v", tl.Instants)
	}
	if st.lists != 0 || st.names != 1 {
		t.Fatalf("Load called List %d and ListNames %d times, want 0 and 1", st.lists, st.names)
	}
}
