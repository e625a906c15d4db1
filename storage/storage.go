// Package storage is the file-system abstraction every layer above does its I/O through.
// Paths are slash-separated and relative to the storage root (the table base path), so a
// backend can be a local directory or an object-store prefix.
package storage

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
)

// Sentinel errors that backends wrap, so callers can test with errors.Is.
var (
	ErrNotExist = errors.New("file does not exist")
	ErrExist    = errors.New("file already exists")
)

// FileInfo describes one listing entry.
type FileInfo struct {
	Name    string // base name
	Size    int64
	IsDir   bool
	ModTime time.Time
}

// File is an open file for random-access reads (Parquet footers, log block scans).
type File interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Storage is implemented by each backend.
type Storage interface {
	// Open opens path for reading.
	Open(ctx context.Context, path string) (File, error)
	// ReadFile reads a whole (small) file: timeline instants, properties.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// List lists the direct children of dir. A missing dir is ErrNotExist.
	List(ctx context.Context, dir string) ([]FileInfo, error)
	// Stat describes one path.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Create writes a new file, replacing nothing: it fails with ErrExist if path exists.
	// The file appears atomically when the writer is closed, and only if every write
	// succeeded: a writer whose Write failed (a full disk) publishes nothing on Close and
	// returns the write's error again. A writer may also implement Aborter.
	Create(ctx context.Context, path string) (io.WriteCloser, error)
	// Put writes a whole file, atomically replacing any existing one (heartbeats).
	Put(ctx context.Context, path string, data []byte) error
	// Delete removes a file (or an empty directory); a missing file is not an error.
	Delete(ctx context.Context, path string) error
	// MkdirAll creates a directory and its parents where directories exist (a no-op on
	// object stores, whose folders are implied by their files).
	MkdirAll(ctx context.Context, dir string) error
	// Root describes the storage root for messages (a directory or URL).
	Root() string
}

// URIer is implemented by backends whose root Java names with a scheme ("file:/data/t"
// for a local directory).
type URIer interface {
	URI() string
}

// AbsPath names the table-relative path rel the way Java names a file by its path
// without the scheme: the root joined with rel ("/data/t/p/f.parquet"). Java writes this
// form into rollback plans (filesToBeDeleted) and metadata (successDeleteFiles).
func AbsPath(st Storage, rel string) string {
	return strings.TrimSuffix(st.Root(), "/") + "/" + rel
}

// URI names the table-relative path rel the way Java's Path.toString does: with the
// storage's scheme ("file:/data/t/p/f.parquet"). Java writes this form into clustering
// plans (dataFilePath, deltaFilePaths), clean plans (filePath) and the log-file maps of
// rollback plans and metadata. Backends without a URI give AbsPath.
func URI(st Storage, rel string) string {
	if u, ok := st.(URIer); ok {
		return strings.TrimSuffix(u.URI(), "/") + "/" + rel
	}
	return AbsPath(st, rel)
}

// Aborter is implemented by the writers Create returns that can be dropped without
// publishing their file: a write that fails half-way (a bad row, a full disk, a cancelled
// context) must leave no file a reader or the next writer could take for a whole one.
type Aborter interface {
	// Abort discards what was written; the file does not appear.
	Abort() error
}

// Abort drops w, a writer from Create, without publishing its file where the backend
// allows it (Aborter); otherwise it closes w, whose file the next writer's rollback
// removes through its marker.
func Abort(w io.WriteCloser) error {
	if a, ok := w.(Aborter); ok {
		return a.Abort()
	}
	return w.Close()
}

// NameLister is implemented by backends that list a directory's entry names and kinds
// more cheaply than List, which describes every entry (a stat per file on a local file
// system). The timeline needs only the names of .hoodie's files, and a writer lists them
// several times per commit (bench W7: ~150 files, 5 timeline loads a commit).
type NameLister interface {
	// ListNames lists the direct children of dir with only Name and IsDir set. A missing
	// dir is ErrNotExist.
	ListNames(ctx context.Context, dir string) ([]FileInfo, error)
}

// ListNames lists dir's children with at least Name and IsDir set: through st's
// NameLister when it has one, else List.
func ListNames(ctx context.Context, st Storage, dir string) ([]FileInfo, error) {
	if nl, ok := st.(NameLister); ok {
		return nl.ListNames(ctx, dir)
	}
	return st.List(ctx, dir)
}

// Join joins slash-separated path elements, skipping empty ones (a non-partitioned
// table's partition path is "").
func Join(elems ...string) string {
	out := ""
	for _, e := range elems {
		if e == "" {
			continue
		}
		if out == "" {
			out = e
		} else {
			out += "/" + e
		}
	}
	return out
}

// DeleteTree removes a directory and everything below it through st. A missing
// directory is not an error. It lists by name (ListNames): sizes are not needed, and a
// commit removes its marker tree this way.
func DeleteTree(ctx context.Context, st Storage, dir string) error {
	entries, err := ListNames(ctx, st, dir)
	if err != nil {
		if errors.Is(err, ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		p := Join(dir, e.Name)
		if e.IsDir {
			if err := DeleteTree(ctx, st, p); err != nil {
				return err
			}
			continue
		}
		if err := st.Delete(ctx, p); err != nil {
			return err
		}
	}
	return st.Delete(ctx, dir)
}
