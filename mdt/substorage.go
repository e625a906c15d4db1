package mdt

import (
	"context"
	"errors"

	"github.com/hudi-go/hudi/storage"
)

// errReadOnly: this package only reads the metadata table (hudi-go deletes it before its
// first write to a table that has one: table.PrepareChange).
var errReadOnly = errors.New("metadata table: read-only access")

// subStorage is the data table's storage rooted at the metadata table's folder, so the
// timeline and file-system view code reads the metadata table as the table it is.
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

// ListNames keeps the backend's cheaper name listing (storage.NameLister).
func (s subStorage) ListNames(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	return storage.ListNames(ctx, s.st, s.path(dir))
}

func (s subStorage) Stat(ctx context.Context, p string) (storage.FileInfo, error) {
	return s.st.Stat(ctx, s.path(p))
}

func (s subStorage) Create(context.Context, string) (storage.Writer, error) { return nil, errReadOnly }
func (s subStorage) Put(context.Context, string, []byte) error              { return errReadOnly }
func (s subStorage) Delete(context.Context, string) error                   { return errReadOnly }
func (s subStorage) MkdirAll(context.Context, string) error                 { return errReadOnly }
func (s subStorage) Root() string                                           { return storage.Join(s.st.Root(), s.dir) }
