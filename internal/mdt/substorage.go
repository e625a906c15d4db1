package mdt

import (
	"context"

	"github.com/hudi-go/hudi/storage"
)

// Storage returns the data table's storage st rooted at its metadata table's folder, so
// that the timeline, file-system view and commit code work on the metadata table as the
// table it is (its plans and rollback metadata name files under .hoodie/metadata, as
// Java's do).
func Storage(st storage.Storage) storage.Storage { return subStorage{st: st, dir: Dir} }

// subStorage is the data table's storage rooted at the metadata table's folder.
type subStorage struct {
	st  storage.Storage
	dir string
}

func (s subStorage) path(p string) string { return storage.Join(s.dir, p) }

func (s subStorage) Open(ctx context.Context, p string) (storage.File, error) {
	return s.st.Open(ctx, s.path(p))
}

func (s subStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return s.st.ReadFile(ctx, s.path(p))
}

func (s subStorage) List(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	return s.st.List(ctx, s.path(dir))
}

// OpenSized keeps the backend's open without a size lookup (storage.SizedOpener).
func (s subStorage) OpenSized(ctx context.Context, p string, size int64) (storage.File, error) {
	return storage.OpenSized(ctx, s.st, s.path(p), size)
}

// ListNames keeps the backend's cheaper name listing (storage.NameLister).
func (s subStorage) ListNames(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	return storage.ListNames(ctx, s.st, s.path(dir))
}

func (s subStorage) Stat(ctx context.Context, p string) (storage.FileInfo, error) {
	return s.st.Stat(ctx, s.path(p))
}

func (s subStorage) Create(ctx context.Context, p string) (storage.Writer, error) {
	return s.st.Create(ctx, s.path(p))
}

func (s subStorage) Put(ctx context.Context, p string, data []byte) error {
	return s.st.Put(ctx, s.path(p), data)
}

func (s subStorage) Delete(ctx context.Context, p string) error { return s.st.Delete(ctx, s.path(p)) }

func (s subStorage) MkdirAll(ctx context.Context, dir string) error {
	return s.st.MkdirAll(ctx, s.path(dir))
}

func (s subStorage) Root() string { return storage.Join(s.st.Root(), s.dir) }

// URI keeps the backend's scheme (storage.URIer) for paths Java writes with one.
func (s subStorage) URI() string { return storage.URI(s.st, s.dir) }
