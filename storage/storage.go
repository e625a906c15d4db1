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

// Sentinel errors that backends wrap, so callers can test with errors.Is. Every error a
// backend returns names the file (or object key) it was about.
var (
	ErrNotExist = errors.New("file does not exist")
	ErrExist    = errors.New("file already exists")
	// ErrPrecondition: a conditional write (ConditionalStorage.PutIfMatch) found another
	// version of the file than the one it was conditioned on.
	ErrPrecondition = errors.New("file changed since it was read (precondition failed)")
)

// FileInfo describes one listing entry.
type FileInfo struct {
	Name    string // base name
	Size    int64
	IsDir   bool
	ModTime time.Time
}

// File is an open file for random-access reads (Parquet footers, log block scans). On an
// object store each ReadAt is a ranged GET (backends may read ahead a little), bound to
// the context Open was given.
type File interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Writer is what Create returns: a new file that appears, whole, on Close, or never, on
// Abort.
type Writer interface {
	io.Writer
	// Close publishes the file. It fails with ErrExist if the file appeared meanwhile
	// (object stores check at Close: a conditional PUT), and after a failed Write it
	// publishes nothing and returns that error again.
	io.Closer
	// Abort discards what was written: the file does not appear, and on an object store
	// no partial object or multipart upload is left. Abort after Close does nothing.
	Abort() error
}

// Storage is implemented by each backend. Object stores have no rename: nothing may
// depend on one. A file appears atomically through Create (create-if-absent, the
// primitive that publishes timeline instants) or Put (replace).
type Storage interface {
	// Open opens path for reading.
	Open(ctx context.Context, path string) (File, error)
	// ReadFile reads a whole (small) file: timeline instants, properties.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// List lists the direct children of dir. A missing dir is ErrNotExist.
	List(ctx context.Context, dir string) ([]FileInfo, error)
	// Stat describes one path.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Create writes a new file, replacing nothing: it fails with ErrExist if path exists,
	// from Create or at the latest from the writer's Close (an object store's conditional
	// PUT: If-None-Match: * on S3 and Azure, ifGenerationMatch=0 on GCS). Of several
	// writers racing to create one path, exactly one succeeds. The file appears
	// atomically when the writer is closed, and only if every write succeeded: a writer
	// whose Write failed (a full disk) publishes nothing on Close and returns the write's
	// error again; Abort publishes nothing.
	Create(ctx context.Context, path string) (Writer, error)
	// Put writes a whole file, atomically replacing any existing one (heartbeats).
	Put(ctx context.Context, path string, data []byte) error
	// Delete removes a file (or an empty directory); a missing file is not an error. On an
	// object store a directory is a key prefix and goes with its last file.
	Delete(ctx context.Context, path string) error
	// MkdirAll creates a directory and its parents where directories exist (a no-op on
	// object stores, whose folders are implied by their files).
	MkdirAll(ctx context.Context, dir string) error
	// Root describes the storage root for messages (a directory or URL).
	Root() string
}

// Version names one content of a file, for conditional writes: an object store's ETag
// or generation, a digest of the content on a local file system. "" names no file.
type Version string

// ConditionalStorage is implemented by backends that replace or delete a file only if it
// still holds the version a caller read: the compare-and-swap the storage-based lock
// provider is built on (S3 and Azure If-Match, GCS ifGenerationMatch / generation).
type ConditionalStorage interface {
	// ReadVersion reads a whole file and the version read.
	ReadVersion(ctx context.Context, path string) ([]byte, Version, error)
	// PutIfMatch writes data to path if the file is at version v ("": if it does not
	// exist) and returns the new version; otherwise it fails with ErrPrecondition (or
	// ErrExist when v is "" and the file exists).
	PutIfMatch(ctx context.Context, path string, data []byte, v Version) (Version, error)
	// DeleteIfMatch deletes path if the file is at version v (not ""); if another version
	// is there it fails with ErrPrecondition and deletes nothing. A missing file is not an
	// error. A lock's holder releases it this way, so that a lock taken over since the
	// holder read it is never deleted by the old holder.
	DeleteIfMatch(ctx context.Context, path string, v Version) error
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

// Aborter is implemented by writers that can be dropped without publishing their file
// (every Writer is one): a write that fails half-way (a bad row, a full disk, a cancelled
// context) must leave no file a reader or the next writer could take for a whole one.
type Aborter interface {
	// Abort discards what was written; the file does not appear.
	Abort() error
}

// Abort drops w without publishing its file where it can be (Aborter: every Writer from
// Create); a writer that cannot be aborted (one wrapped by an encoder) is closed, and its
// file is removed by the next writer's rollback through its marker.
func Abort(w io.WriteCloser) error {
	if a, ok := w.(Aborter); ok {
		return a.Abort()
	}
	return w.Close()
}

// SizedOpener is implemented by backends for which Open costs a request to learn the
// size (an object store's HEAD): a caller that knows the size from a listing (a base
// file's, in the file-system view) opens without it. Only for files that are never
// rewritten in place: base files.
type SizedOpener interface {
	// OpenSized opens path, whose size is size, for reading. A missing file may be
	// reported only by the first read (ErrNotExist all the same).
	OpenSized(ctx context.Context, path string, size int64) (File, error)
}

// OpenSized opens path through st's SizedOpener when size is known (> 0), else Open.
func OpenSized(ctx context.Context, st Storage, path string, size int64) (File, error) {
	if so, ok := st.(SizedOpener); ok && size > 0 {
		return so.OpenSized(ctx, path, size)
	}
	return st.Open(ctx, path)
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

// ModTimeSetter is implemented by backends whose files' modification times can be set
// (a local file system; HDFS in Java). Hudi 1.x's downgrade to table version 6 sets each
// completed instant file's modification time to its completion time, which readers of a
// version-6 table take as the completion time; object stores cannot.
type ModTimeSetter interface {
	SetModTime(ctx context.Context, path string, t time.Time) error
}
