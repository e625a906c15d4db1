// Package local is the storage backend for a local directory.
package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hudi-go/hudi/storage"
)

// FS is a storage.Storage rooted at a local directory.
type FS struct {
	root string
}

func init() {
	storage.Register(storage.Backend{Name: "local", Schemes: []string{"file"},
		Open: func(_ context.Context, loc storage.Location, _ map[string]string) (storage.Storage, error) {
			return New(loc.Path), nil
		}})
}

// New returns storage rooted at dir, made absolute: plans and rollback metadata name
// files by absolute path, as Java writes them, whatever path the table was opened by.
func New(dir string) *FS {
	if abs, err := filepath.Abs(dir); err == nil {
		return &FS{root: abs}
	}
	return &FS{root: filepath.Clean(dir)}
}

// Root returns the root directory (absolute).
func (l *FS) Root() string { return l.root }

// URI returns the root as Hadoop's Path.toString names a local path: "file:" and the
// absolute path ("file:/data/t"), the form Java writes into clustering and clean plans
// and rollback log-file maps.
func (l *FS) URI() string { return "file:" + filepath.ToSlash(l.root) }

func (l *FS) abs(p string) string { return filepath.Join(l.root, filepath.FromSlash(p)) }

func wrap(op, p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", op, p, storage.ErrNotExist)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %s: %w", op, p, storage.ErrExist)
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

type file struct {
	*os.File
	size int64
}

func (f file) Size() int64 { return f.size }

// Open opens a file for reading.
func (l *FS) Open(ctx context.Context, p string) (storage.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(l.abs(p))
	if err != nil {
		return nil, wrap("open", l.abs(p), err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, wrap("stat", l.abs(p), err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: is a directory", l.abs(p))
	}
	return file{File: f, size: st.Size()}, nil
}

// ReadFile reads a whole file.
func (l *FS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(l.abs(p))
	if err != nil {
		return nil, wrap("read", l.abs(p), err)
	}
	return b, nil
}

// readDir reads a directory's entries (List and ListNames).
func (l *FS) readDir(ctx context.Context, dir string) ([]os.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(l.abs(dir))
	if err != nil {
		return nil, wrap("list", l.abs(dir), err)
	}
	return entries, nil
}

// List lists a directory's children.
func (l *FS) List(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	entries, err := l.readDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := make([]storage.FileInfo, 0, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // removed while listing
				continue
			}
			return nil, wrap("stat", filepath.Join(l.abs(dir), e.Name()), err)
		}
		out = append(out, storage.FileInfo{Name: e.Name(), Size: info.Size(), IsDir: e.IsDir(), ModTime: info.ModTime()})
	}
	return out, nil
}

// ListNames lists a directory's children by name and kind, without a stat per entry
// (the directory entries carry the file type on Linux file systems).
func (l *FS) ListNames(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	entries, err := l.readDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := make([]storage.FileInfo, 0, len(entries))
	for _, e := range entries {
		out = append(out, storage.FileInfo{Name: e.Name(), IsDir: e.IsDir()})
	}
	return out, nil
}

// Stat describes one path.
func (l *FS) Stat(ctx context.Context, p string) (storage.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return storage.FileInfo{}, err
	}
	st, err := os.Stat(l.abs(p))
	if err != nil {
		return storage.FileInfo{}, wrap("stat", l.abs(p), err)
	}
	return storage.FileInfo{Name: st.Name(), Size: st.Size(), IsDir: st.IsDir(), ModTime: st.ModTime()}, nil
}

// Create writes a new file via a temp file that is fsynced and then hard-linked into
// place: link fails if the target exists, which gives create-if-absent atomically even
// across processes.
func (l *FS) Create(ctx context.Context, p string) (storage.Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	target := l.abs(p)
	if _, err := os.Lstat(target); err == nil {
		return nil, wrap("create", target, fs.ErrExist)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, wrap("mkdir", filepath.Dir(target), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, wrap("create", target, err)
	}
	return &atomicFile{f: tmp, target: target}, nil
}

type atomicFile struct {
	f       *os.File
	target  string
	written int64
	err     error // the first failed write: the file is never published after one
	closed  bool
}

// Write appends to the temp file. A failed write (ENOSPC on a full disk) is sticky: the
// writer has lost bytes, so every later Write and Close fails with the same error, which
// names the target file, and Close removes the temp file instead of publishing it.
func (a *atomicFile) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n, err := a.f.Write(p)
	a.written += int64(n)
	if err != nil {
		a.err = wrap("write", a.target, err)
		return n, a.err
	}
	return n, nil
}

// Abort closes and removes the temp file without publishing it.
func (a *atomicFile) Abort() error {
	if a.closed {
		return nil
	}
	a.closed = true
	a.f.Close()
	return os.Remove(a.f.Name())
}

func (a *atomicFile) Close() error {
	if a.closed {
		return a.err
	}
	if a.err != nil {
		_ = a.Abort()
		return a.err
	}
	a.closed = true
	tmp := a.f.Name()
	defer os.Remove(tmp)
	// CreateTemp makes 0600 files; tables are shared with readers running as other users.
	if err := a.f.Chmod(0o644); err != nil {
		a.f.Close()
		return wrap("chmod", tmp, err)
	}
	// An empty file (a marker) has no data to make durable, and its name is the hard link
	// made below, which no file fsync covers: syncing it bought nothing but a disk flush per
	// marker, half the fsyncs of a commit that writes many small log files.
	if a.written > 0 {
		// A file system that allocates on write-back reports a full disk here, not in Write.
		if err := a.f.Sync(); err != nil {
			a.f.Close()
			return wrap("sync", a.target, err)
		}
	}
	if err := a.f.Close(); err != nil {
		return wrap("close", a.target, err)
	}
	if err := os.Link(tmp, a.target); err != nil {
		return wrap("publish", a.target, err)
	}
	return nil
}

// Put writes a whole file through a temp file renamed over the target.
func (l *FS) Put(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	target := l.abs(p)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return wrap("mkdir", filepath.Dir(target), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return wrap("put", target, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return wrap("put", target, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return wrap("put", target, err)
	}
	if err := tmp.Close(); err != nil {
		return wrap("put", target, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return wrap("put", target, err)
	}
	return nil
}

// Delete removes a file; a missing file is not an error.
func (l *FS) Delete(ctx context.Context, p string) error {
	// No ctx check: error paths delete what they made with the context that was
	// cancelled.
	if err := os.Remove(l.abs(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return wrap("delete", l.abs(p), err)
	}
	return nil
}

// MkdirAll creates a directory and its parents.
func (l *FS) MkdirAll(ctx context.Context, dir string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(l.abs(dir), 0o755); err != nil {
		return wrap("mkdir", l.abs(dir), err)
	}
	return nil
}

var (
	_ storage.Storage    = (*FS)(nil)
	_ storage.NameLister = (*FS)(nil)
	_ storage.Writer     = (*atomicFile)(nil)
)

// SetModTime sets the modification time of the file at p (storage.ModTimeSetter).
func (l *FS) SetModTime(ctx context.Context, p string, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Chtimes(l.abs(p), t, t); err != nil {
		return wrap("set the modification time of", p, err)
	}
	return nil
}
