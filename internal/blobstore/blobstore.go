// Package blobstore adapts an object-store bucket (gocloud.dev/blob, with a driver for
// S3, GCS or Azure Blob) to storage.Storage: the part the three clouds share. Each cloud's
// package opens the bucket with its SDK and supplies the conditional writes that
// gocloud.dev does not expose (Conditional).
//
// Object stores have no directories and no rename. Here a folder is a key prefix; a
// folder made with MkdirAll is kept by an empty "folder/" object until it is deleted, as
// Hadoop's S3A client keeps directory markers. A file is published by one conditional
// PUT (create-if-absent) or an unconditional one (Put); a write that fails or is aborted
// leaves no object, and a multipart upload is aborted.
package blobstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/hudi-go/hudi/storage"
)

// Conditional is a cloud's compare-and-swap on one object, through its own SDK (the
// version a write creates is not exposed by gocloud.dev).
type Conditional interface {
	ReadVersion(ctx context.Context, key string) ([]byte, storage.Version, error)
	// PutIfMatch writes data if the object is at v ("" = absent) and returns the new
	// version. A mismatch is an error that IsPrecondition recognizes.
	PutIfMatch(ctx context.Context, key string, data []byte, v storage.Version) (storage.Version, error)
	// DeleteIfMatch deletes the object if it is at v: another version fails with
	// storage.ErrPrecondition, a missing object is no error.
	DeleteIfMatch(ctx context.Context, key string, v storage.Version) error
}

// Options describe the bucket to Store.
type Options struct {
	// Name names the backend in messages ("s3").
	Name string
	// URL is the table root as the user gave it ("s3a://bucket/warehouse/t"): Root, URI
	// and error messages name files under it.
	URL string
	// Prefix is the key prefix of the root, without slashes at either end ("" = the
	// bucket's root).
	Prefix string
	// PartSize is the size of a multipart upload's parts, and of the buffer in which a
	// new file is kept until it is known to be larger (default 5 MiB, S3's minimum).
	PartSize int
	// ReadAhead is the least a ranged GET fetches (default 1 MiB): a Parquet footer and
	// the small reads of a log block header are served from one request.
	ReadAhead int
	// Conditional supplies compare-and-swap; nil leaves the store without
	// ConditionalStorage.
	Conditional Conditional
	// IsConflict recognizes a cloud's "conflicting conditional write in progress" error
	// (S3's 409 ConditionalRequestConflict), after which a conditional create is retried.
	IsConflict func(error) bool
	// ForbiddenChars are characters the bucket's driver cannot store under their own name
	// (gocloud.dev's Azure driver escapes "%" as "__0x25__"): a path with one is refused,
	// naming the character, rather than stored where another client would not find it.
	ForbiddenChars string
	// Uploader, if set, uploads files larger than one part instead of gocloud.dev's
	// streaming writer (whose Azure driver panics when an upload fails after a write).
	Uploader Uploader
}

// Uploader uploads a large object in parts, published by one (conditional) commit.
type Uploader interface {
	// Begin starts the upload of key; ifNotExist makes its commit create-if-absent.
	Begin(ctx context.Context, key string, ifNotExist bool) (Upload, error)
}

// Upload is one object's upload in progress.
type Upload interface {
	// WritePart uploads the next part (parts are whole PartSize but the last).
	WritePart(b []byte) error
	// Commit publishes the parts as the object; a create-if-absent commit that finds the
	// object fails with an error wrapping storage.ErrExist.
	Commit() error
	// Abort drops the parts: no object appears.
	Abort()
}

// Store is a storage.Storage over a bucket.
type Store struct {
	b *blob.Bucket
	o Options
}

// New returns a Store over b.
func New(b *blob.Bucket, o Options) *Store {
	if o.PartSize <= 0 {
		o.PartSize = 5 << 20
	}
	if o.ReadAhead <= 0 {
		o.ReadAhead = 1 << 20
	}
	o.Prefix = strings.Trim(o.Prefix, "/")
	o.URL = strings.TrimSuffix(o.URL, "/")
	return &Store{b: b, o: o}
}

// Bucket is the underlying bucket.
func (s *Store) Bucket() *blob.Bucket { return s.b }

// Close closes the bucket.
func (s *Store) Close() error { return s.b.Close() }

// Root is the table URL.
func (s *Store) Root() string { return s.o.URL }

// URI is the table URL, the form Java writes into plans on object stores.
func (s *Store) URI() string { return s.o.URL }

func (s *Store) key(p string) string {
	p = strings.Trim(p, "/")
	switch {
	case s.o.Prefix == "":
		return p
	case p == "":
		return s.o.Prefix
	}
	return s.o.Prefix + "/" + p
}

// dirPrefix is the key prefix of the folder p's children.
func (s *Store) dirPrefix(p string) string {
	k := s.key(p)
	if k == "" {
		return ""
	}
	return k + "/"
}

// check refuses a path the bucket cannot address under its own name.
func (s *Store) check(op, p string) error {
	if i := strings.IndexAny(p, s.o.ForbiddenChars); s.o.ForbiddenChars != "" && i >= 0 {
		return fmt.Errorf("%s %s: the %s backend cannot store a name containing %q", op, s.name(p), s.o.Name, p[i])
	}
	return nil
}

func (s *Store) name(p string) string { return s.o.URL + "/" + strings.Trim(p, "/") }

// wrap names the file and maps the cloud's error to storage's sentinels.
func (s *Store) wrap(op, p string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", op, s.name(p), contextErr(err))
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s %s: %w", op, s.name(p), storage.ErrNotExist)
	case gcerrors.Canceled:
		return fmt.Errorf("%s %s: %w", op, s.name(p), context.Canceled)
	case gcerrors.DeadlineExceeded:
		return fmt.Errorf("%s %s: %w", op, s.name(p), context.DeadlineExceeded)
	}
	return fmt.Errorf("%s %s: %w", op, s.name(p), err)
}

func contextErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return context.Canceled
}

// exists reports whether err says the object exists (a failed create-if-absent).
func exists(err error) bool {
	c := gcerrors.Code(err)
	return c == gcerrors.FailedPrecondition || c == gcerrors.AlreadyExists
}

// --- reads

type file struct {
	s    *Store
	ctx  context.Context
	path string
	key  string
	size int64

	mu    sync.Mutex
	start int64 // the cached window [start, start+len(buf))
	buf   []byte
}

// Open opens p for ranged reads: one HEAD for its size, then a GET per ReadAt not served
// from the read-ahead window.
func (s *Store) Open(ctx context.Context, p string) (storage.File, error) {
	if err := s.check("open", p); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, s.wrap("open", p, err)
	}
	a, err := s.b.Attributes(ctx, s.key(p))
	if err != nil {
		return nil, s.wrap("open", p, err)
	}
	return &file{s: s, ctx: ctx, path: p, key: s.key(p), size: a.Size}, nil
}

// OpenSized opens p, whose size the caller knows from a listing: no HEAD. A missing
// object is reported by the first read.
func (s *Store) OpenSized(ctx context.Context, p string, size int64) (storage.File, error) {
	if err := s.check("open", p); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, s.wrap("open", p, err)
	}
	return &file{s: s, ctx: ctx, path: p, key: s.key(p), size: size}, nil
}

func (f *file) Size() int64  { return f.size }
func (f *file) Close() error { f.mu.Lock(); f.buf = nil; f.mu.Unlock(); return nil }

func (f *file) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.s.name(f.path), off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want := int64(len(b))
	if off+want > f.size {
		want = f.size - off
	}
	f.mu.Lock()
	if f.buf != nil && off >= f.start && off+want <= f.start+int64(len(f.buf)) {
		n := copy(b, f.buf[off-f.start:off-f.start+want])
		f.mu.Unlock()
		return n, eofIf(n < len(b))
	}
	f.mu.Unlock()
	if want >= int64(f.s.o.ReadAhead) {
		// A column chunk or a whole log block: read it straight into b.
		if err := f.get(b[:want], off); err != nil {
			return 0, err
		}
		return int(want), eofIf(int(want) < len(b))
	}
	// A small read: fetch a read-ahead window around it, moved back from the end of the
	// file so that the footer Parquet reads next is in it.
	wlen := min(int64(f.s.o.ReadAhead), f.size)
	start := off
	if start+wlen > f.size {
		start = f.size - wlen
	}
	win := make([]byte, wlen)
	if err := f.get(win, start); err != nil {
		return 0, err
	}
	n := copy(b, win[off-start:off-start+want])
	f.mu.Lock()
	f.start, f.buf = start, win
	f.mu.Unlock()
	return n, eofIf(n < len(b))
}

func eofIf(short bool) error {
	if short {
		return io.EOF
	}
	return nil
}

// get fills b from off with one ranged GET.
func (f *file) get(b []byte, off int64) error {
	r, err := f.s.b.NewRangeReader(f.ctx, f.key, off, int64(len(b)), nil)
	if err != nil {
		return f.s.wrap(fmt.Sprintf("read %d bytes at %d of", len(b), off), f.path, err)
	}
	defer r.Close()
	if _, err := io.ReadFull(r, b); err != nil {
		return f.s.wrap(fmt.Sprintf("read %d bytes at %d of", len(b), off), f.path, err)
	}
	return nil
}

// ReadFile reads a whole file with one GET.
func (s *Store) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := s.check("read", p); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, s.wrap("read", p, err)
	}
	b, err := s.b.ReadAll(ctx, s.key(p))
	if err != nil {
		return nil, s.wrap("read", p, err)
	}
	return b, nil
}

// Stat describes p: a HEAD, and for a folder a one-key listing.
func (s *Store) Stat(ctx context.Context, p string) (storage.FileInfo, error) {
	if err := s.check("stat", p); err != nil {
		return storage.FileInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return storage.FileInfo{}, s.wrap("stat", p, err)
	}
	base := p[strings.LastIndex(p, "/")+1:]
	if k := s.key(p); k != "" {
		a, err := s.b.Attributes(ctx, k)
		if err == nil {
			return storage.FileInfo{Name: base, Size: a.Size, ModTime: a.ModTime}, nil
		}
		if gcerrors.Code(err) != gcerrors.NotFound {
			return storage.FileInfo{}, s.wrap("stat", p, err)
		}
	}
	objs, _, err := s.b.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: s.dirPrefix(p)})
	if err != nil {
		return storage.FileInfo{}, s.wrap("stat", p, err)
	}
	if len(objs) == 0 {
		if ok, err := s.b.Exists(ctx, s.dirPrefix(p)); err != nil || !ok {
			return storage.FileInfo{}, s.wrap("stat", p, storage.ErrNotExist)
		}
	}
	return storage.FileInfo{Name: base, IsDir: true}, nil
}

// List lists the folder p: LIST requests with the delimiter "/", a page per 1000 keys.
func (s *Store) List(ctx context.Context, p string) ([]storage.FileInfo, error) {
	if err := s.check("list", p); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, s.wrap("list", p, err)
	}
	prefix := s.dirPrefix(p)
	it := s.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var out []storage.FileInfo
	seen := map[string]bool{}
	marker := false
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, s.wrap("list", p, err)
		}
		if obj.Key == prefix {
			marker = true // the folder's own marker
			continue
		}
		rest := strings.TrimPrefix(obj.Key, prefix)
		name := strings.TrimSuffix(rest, "/")
		if name == "" {
			continue
		}
		// A key ending in "/" is a folder: a common prefix, or the marker of an empty
		// child folder (Azure's driver stores a marker as an escaped name, listed as an
		// object beside its folder's common prefix).
		isDir := obj.IsDir || strings.HasSuffix(rest, "/")
		if isDir && seen[name] {
			continue
		}
		seen[name] = isDir
		out = append(out, storage.FileInfo{Name: name, Size: obj.Size, IsDir: isDir, ModTime: obj.ModTime})
	}
	if len(out) == 0 && !marker {
		// An empty folder made by MkdirAll has only its marker, which a listing under the
		// folder does not show on every cloud.
		if ok, err := s.b.Exists(ctx, prefix); err != nil || !ok || prefix == "" {
			return nil, s.wrap("list", p, storage.ErrNotExist)
		}
	}
	// Keys sort "a.x" before "a/"; storage lists by name, as a directory read does.
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// --- writes

func (s *Store) writerOptions(ifNotExist bool) *blob.WriterOptions {
	return &blob.WriterOptions{
		IfNotExist:  ifNotExist,
		ContentType: "application/octet-stream",
		BufferSize:  s.o.PartSize,
		// Two parts in flight: a write task's memory stays a few parts, whatever the
		// file's size.
		MaxConcurrency: 2,
	}
}

// Create returns a writer that keeps the file in memory until it outgrows one part, then
// streams it as a multipart upload. Close publishes it with one conditional PUT (or the
// conditional completion of the multipart upload).
func (s *Store) Create(ctx context.Context, p string) (storage.Writer, error) {
	if err := s.check("create", p); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, s.wrap("create", p, err)
	}
	return &writer{s: s, ctx: ctx, path: p}, nil
}

type writer struct {
	s    *Store
	ctx  context.Context
	path string

	buf  bytes.Buffer
	up   multipart // set once the file outgrew the buffer
	err  error     // sticky
	done bool
}

// multipart is a large file's upload in progress.
type multipart interface {
	Write(b []byte) error
	// Commit publishes the object: with ErrExist (wrapped) when create-if-absent lost.
	Commit() error
	// Abort drops the upload: no object appears and no part is kept.
	Abort()
}

// beginMultipart starts a large file's upload: through the cloud's Uploader where it has
// one, else through gocloud.dev's streaming writer.
func (s *Store) beginMultipart(ctx context.Context, p string, ifNotExist bool) (multipart, error) {
	if s.o.Uploader != nil {
		u, err := s.o.Uploader.Begin(ctx, s.key(p), ifNotExist)
		if err != nil {
			return nil, err
		}
		return &partUpload{u: u, size: s.o.PartSize}, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	sw, err := s.b.NewWriter(ctx, s.key(p), s.writerOptions(ifNotExist))
	if err != nil {
		cancel()
		return nil, err
	}
	return &stream{w: sw, cancel: cancel}, nil
}

// stream is gocloud.dev's writer: S3's multipart upload, GCS's resumable upload.
type stream struct {
	w      *blob.Writer
	cancel context.CancelFunc
}

func (m *stream) Write(b []byte) error { _, err := m.w.Write(b); return err }

func (m *stream) Commit() error {
	err := m.w.Close()
	m.cancel()
	if err != nil && exists(err) {
		return fmt.Errorf("%w (%v)", storage.ErrExist, err)
	}
	return err
}

func (m *stream) Abort() {
	m.cancel() // the upload fails: no object, the multipart upload is aborted
	_ = m.w.Close()
}

// partUpload cuts the bytes into parts of size for an Uploader.
type partUpload struct {
	u    Upload
	size int
	buf  []byte
}

func (m *partUpload) Write(b []byte) error {
	m.buf = append(m.buf, b...)
	for len(m.buf) >= m.size {
		if err := m.u.WritePart(m.buf[:m.size]); err != nil {
			return err
		}
		m.buf = append(m.buf[:0], m.buf[m.size:]...)
	}
	return nil
}

func (m *partUpload) Commit() error {
	if len(m.buf) > 0 {
		if err := m.u.WritePart(m.buf); err != nil {
			return err
		}
	}
	m.buf = nil
	return m.u.Commit()
}

func (m *partUpload) Abort() { m.buf = nil; m.u.Abort() }

func (w *writer) Write(b []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.done {
		return 0, fmt.Errorf("write %s: the writer is closed", w.s.name(w.path))
	}
	if err := w.ctx.Err(); err != nil {
		w.fail(w.s.wrap("write", w.path, err))
		return 0, w.err
	}
	if w.up == nil {
		if w.buf.Len()+len(b) <= w.s.o.PartSize {
			return w.buf.Write(b)
		}
		up, err := w.s.beginMultipart(w.ctx, w.path, true)
		if err != nil {
			w.fail(w.s.wrap("create", w.path, err))
			return 0, w.err
		}
		w.up = up
		if err := up.Write(w.buf.Bytes()); err != nil {
			w.fail(w.s.wrap("write", w.path, err))
			return 0, w.err
		}
		w.buf = bytes.Buffer{}
	}
	if err := w.up.Write(b); err != nil {
		w.fail(w.s.wrap("write", w.path, err))
		return 0, w.err
	}
	return len(b), nil
}

// fail records the first error and drops the upload.
func (w *writer) fail(err error) {
	w.err = err
	w.drop()
}

func (w *writer) drop() {
	if w.up != nil {
		w.up.Abort()
		w.up = nil
	}
	w.buf = bytes.Buffer{}
}

func (w *writer) Close() error {
	if w.done {
		return w.err
	}
	w.done = true
	if w.err != nil {
		return w.err
	}
	if err := w.ctx.Err(); err != nil {
		w.fail(w.s.wrap("create", w.path, err))
		return w.err
	}
	if w.up != nil {
		err := w.up.Commit()
		w.up = nil
		if err != nil {
			if errors.Is(err, storage.ErrExist) {
				w.err = fmt.Errorf("create %s: %w", w.s.name(w.path), storage.ErrExist)
			} else {
				w.err = w.s.wrap("create", w.path, err)
			}
		}
		return w.err
	}
	w.err = w.s.putSmall(w.ctx, w.path, w.buf.Bytes(), true)
	w.buf = bytes.Buffer{}
	return w.err
}

func (w *writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.drop()
	return nil
}

// putSmall uploads one part's worth of bytes from memory (a seekable body, so the SDK
// can retry it), create-if-absent or not.
func (s *Store) putSmall(ctx context.Context, p string, data []byte, ifNotExist bool) error {
	op := "put"
	if ifNotExist {
		op = "create"
	}
	for attempt := 0; ; attempt++ {
		err := s.b.Upload(ctx, s.key(p), bytes.NewReader(data), s.writerOptions(ifNotExist))
		if err == nil {
			return nil
		}
		if ifNotExist && exists(err) {
			return fmt.Errorf("%s %s: %w", op, s.name(p), storage.ErrExist)
		}
		if s.o.IsConflict != nil && s.o.IsConflict(err) && attempt < 10 {
			// Another conditional write of this key is in flight; once it is done ours
			// fails (it won) or succeeds (it failed).
			select {
			case <-ctx.Done():
				return s.wrap(op, p, ctx.Err())
			case <-time.After(time.Duration(10<<attempt) * time.Millisecond):
			}
			continue
		}
		if ifNotExist && ctx.Err() == nil {
			// A server may refuse a conditional PUT before it has read the body and close
			// the connection (versitygw under load): the client then sees a reset, not the
			// 412. What the key holds now decides: our bytes (this PUT did land; its answer
			// was lost) or another writer's (create-if-absent lost). Identical bytes from
			// another writer would count as ours; no two writers create one path with the
			// same content here (instant, marker and lock files name their writer).
			if got, rerr := s.b.ReadAll(ctx, s.key(p)); rerr == nil {
				if bytes.Equal(got, data) {
					return nil
				}
				return fmt.Errorf("%s %s: %w (%v)", op, s.name(p), storage.ErrExist, err)
			}
		}
		return s.wrap(op, p, err)
	}
}

// Put writes a whole file, replacing any (one PUT: atomic on object stores).
func (s *Store) Put(ctx context.Context, p string, data []byte) error {
	if err := s.check("put", p); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return s.wrap("put", p, err)
	}
	if len(data) <= s.o.PartSize {
		return s.putSmall(ctx, p, data, false)
	}
	up, err := s.beginMultipart(ctx, p, false)
	if err != nil {
		return s.wrap("put", p, err)
	}
	if err := up.Write(data); err != nil {
		up.Abort()
		return s.wrap("put", p, err)
	}
	if err := up.Commit(); err != nil {
		return s.wrap("put", p, err)
	}
	return nil
}

// Delete removes the file p, or the marker of the folder p; a missing one is no error.
func (s *Store) Delete(ctx context.Context, p string) error {
	if err := s.check("delete", p); err != nil {
		return err
	}
	err := s.b.Delete(ctx, s.key(p))
	if err == nil {
		return nil
	}
	if gcerrors.Code(err) != gcerrors.NotFound {
		return s.wrap("delete", p, err)
	}
	if err := s.b.Delete(ctx, s.dirPrefix(p)); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return s.wrap("delete", p, err)
	}
	return nil
}

// MkdirAll writes the folder's marker ("dir/"), so that the empty folder lists.
func (s *Store) MkdirAll(ctx context.Context, dir string) error {
	if err := s.check("mkdir", dir); err != nil {
		return err
	}
	k := s.dirPrefix(dir)
	if k == "" {
		return nil
	}
	if err := s.b.Upload(ctx, k, bytes.NewReader(nil), s.writerOptions(false)); err != nil {
		return s.wrap("mkdir", dir, err)
	}
	return nil
}

// --- conditional writes

// ReadVersion reads p and its version.
func (s *Store) ReadVersion(ctx context.Context, p string) ([]byte, storage.Version, error) {
	if err := s.check("read", p); err != nil {
		return nil, "", err
	}
	if s.o.Conditional == nil {
		return nil, "", fmt.Errorf("read %s: the %s backend has no conditional writes", s.name(p), s.o.Name)
	}
	b, v, err := s.o.Conditional.ReadVersion(ctx, s.key(p))
	if err != nil {
		return nil, "", s.wrapCond("read", p, err)
	}
	return b, v, nil
}

// PutIfMatch writes p if it is at version v.
func (s *Store) PutIfMatch(ctx context.Context, p string, data []byte, v storage.Version) (storage.Version, error) {
	if err := s.check("conditional put", p); err != nil {
		return "", err
	}
	if s.o.Conditional == nil {
		return "", fmt.Errorf("put %s: the %s backend has no conditional writes", s.name(p), s.o.Name)
	}
	nv, err := s.o.Conditional.PutIfMatch(ctx, s.key(p), data, v)
	if err != nil {
		return "", s.wrapCond("conditional put", p, err)
	}
	return nv, nil
}

// DeleteIfMatch deletes p if it is at version v.
func (s *Store) DeleteIfMatch(ctx context.Context, p string, v storage.Version) error {
	if err := s.check("conditional delete", p); err != nil {
		return err
	}
	if s.o.Conditional == nil {
		return fmt.Errorf("delete %s: the %s backend has no conditional writes", s.name(p), s.o.Name)
	}
	if v == "" {
		return fmt.Errorf("conditional delete %s: no version to match", s.name(p))
	}
	if err := s.o.Conditional.DeleteIfMatch(ctx, s.key(p), v); err != nil {
		return s.wrapCond("conditional delete", p, err)
	}
	return nil
}

func (s *Store) wrapCond(op, p string, err error) error {
	switch {
	case errors.Is(err, storage.ErrNotExist), errors.Is(err, storage.ErrExist), errors.Is(err, storage.ErrPrecondition):
		return fmt.Errorf("%s %s: %w", op, s.name(p), err)
	}
	return s.wrap(op, p, err)
}

var (
	_ storage.Storage            = (*Store)(nil)
	_ storage.ConditionalStorage = (*Store)(nil)
	_ storage.URIer              = (*Store)(nil)
	_ storage.SizedOpener        = (*Store)(nil)
)
