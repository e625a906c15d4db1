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
