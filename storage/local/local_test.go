package local

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hudi-go/hudi/storage"
)

func TestCreateReadListDelete(t *testing.T) {
	ctx := context.Background()
	fsys := New(t.TempDir())
	w, err := fsys.Create(ctx, "a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "hello")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Create(ctx, "a/b/c.txt"); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("second create: want ErrExist, got %v", err)
	}
	b, err := fsys.ReadFile(ctx, "a/b/c.txt")
	if err != nil || string(b) != "hello" {
		t.Fatalf("read = %q, %v", b, err)
	}
	f, err := fsys.Open(ctx, "a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != 5 {
		t.Errorf("size = %d", f.Size())
	}
	f.Close()
	list, err := fsys.List(ctx, "a/b")
	if err != nil || len(list) != 1 || list[0].Name != "c.txt" {
		t.Fatalf("list = %+v, %v (temp files must not remain)", list, err)
	}
	if _, err := fsys.List(ctx, "nope"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("list missing: want ErrNotExist, got %v", err)
	}
	if err := fsys.Delete(ctx, "a/b/c.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.ReadFile(ctx, "a/b/c.txt"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after delete: %v", err)
	}
	if err := fsys.Delete(ctx, "a/b/c.txt"); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
}

// ListNames gives the same names and kinds as List, in the same order.
func TestListNamesMatchesList(t *testing.T) {
	ctx := context.Background()
	fsys := New(t.TempDir())
	for _, p := range []string{"d/x.commit", "d/a.inflight", "d/sub/f", "d/.temp/m"} {
		w, err := fsys.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "x")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	full, err := fsys.List(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	names, err := storage.ListNames(ctx, fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(full) {
		t.Fatalf("ListNames %+v, List %+v", names, full)
	}
	for i := range full {
		if names[i].Name != full[i].Name || names[i].IsDir != full[i].IsDir {
			t.Errorf("entry %d: ListNames %+v, List %+v", i, names[i], full[i])
		}
	}
	if _, err := storage.ListNames(ctx, fsys, "nope"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("missing dir: want ErrNotExist, got %v", err)
	}
}

// noStatList fails List, which stats every entry: DeleteTree must list by name.
type noStatList struct{ *FS }

func (noStatList) List(context.Context, string) ([]storage.FileInfo, error) {
	return nil, errors.New("List called")
}

// A commit removes its marker tree with DeleteTree; it needs names only.
func TestDeleteTreeListsNamesOnly(t *testing.T) {
	ctx := context.Background()
	fsys := New(t.TempDir())
	for _, p := range []string{"m/i/p1/a.marker.CREATE", "m/i/p2/b.marker.MERGE", "m/i/c.marker.CREATE"} {
		w, err := fsys.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := storage.DeleteTree(ctx, noStatList{fsys}, "m/i"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Stat(ctx, "m/i"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after DeleteTree: %v", err)
	}
}
