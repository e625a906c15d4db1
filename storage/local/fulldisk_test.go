//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hudi-go/hudi/storage"
)

// TestCreateOnFullDiskPublishesNothing: a Create whose Write fails (ENOSPC on a full
// tmpfs) must not publish its file on Close, must fail Close with the write's error naming
// the target, and must leave no temp file. A truncated .commit used to appear here.
func TestCreateOnFullDiskPublishesNothing(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root / CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	ctx := context.Background()
	fsys := New(mnt)
	for _, size := range []int{1, 60 << 10, 200 << 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			filler := filepath.Join(mnt, "filler")
			// Leave 56 KiB: the 60 KiB and 200 KiB files do not fit.
			if err := os.WriteFile(filler, make([]byte, 8<<10), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(filler)
			name := fmt.Sprintf(".hoodie/%d.commit", size)
			w, err := fsys.Create(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, size)
			var werr error
			for off := 0; off < len(data) && werr == nil; off += 4096 {
				_, werr = w.Write(data[off:min(off+4096, len(data))])
			}
			cerr := w.Close()
			_, statErr := os.Stat(filepath.Join(mnt, name))
			if size < 56<<10 {
				if werr != nil || cerr != nil || statErr != nil {
					t.Fatalf("a file that fits: write %v, close %v, stat %v", werr, cerr, statErr)
				}
				return
			}
			if werr == nil || !errors.Is(werr, syscall.ENOSPC) {
				t.Fatalf("write on a full disk: %v, want ENOSPC", werr)
			}
			if cerr == nil || !strings.Contains(cerr.Error(), filepath.Join(mnt, name)) || !errors.Is(cerr, syscall.ENOSPC) {
				t.Fatalf("close after a failed write = %v, want ENOSPC naming %s", cerr, name)
			}
			if statErr == nil {
				t.Fatalf("%s was published after a failed write", name)
			}
			entries, _ := os.ReadDir(filepath.Join(mnt, ".hoodie"))
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Fatalf("temp file %s left behind", e.Name())
				}
			}
		})
	}
}

// TestAbortPublishesNothing: storage.Abort drops a file that was written in full.
func TestAbortPublishesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fsys := New(dir)
	w, err := fsys.Create(ctx, "p/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("PAR1 half a file")); err != nil {
		t.Fatal(err)
	}
	if err := storage.Abort(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // a later Close is a no-op
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "p"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("after Abort the directory holds %v (%v), want nothing", entries, err)
	}
}
