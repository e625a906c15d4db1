package lock

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// LockFileName is the FileSystemBasedLockProvider's lock file, in the table's .hoodie
// folder unless hoodie.write.lock.filesystem.path names another folder.
const LockFileName = "lock"

// breakAge is how long a half-finished break of a stale lock (see fileSystem.breakStale)
// may stand before another process may take it over: breaking is three small file
// operations, so one that old was killed.
const breakAge = 30 * time.Second

// fileSystem is Java's FileSystemBasedLockProvider: the lock is a file created only if
// absent; it is held while it exists. Java 0.14's semantics are kept: with
// hoodie.write.lock.filesystem.expire = N > 0 a lock file not modified for N minutes has
// expired and is deleted by the next process that wants the lock; with 0 (the default) it
// never expires.
//
// Beyond Java (behaviours Java does not define, documented in docs/concurrency.md):
//   - the body records the holder's host and process id besides Java's LockInfo fields, and
//     a waiter on the same host deletes the lock of a process that no longer exists, so a
//     killed writer does not block the table until someone deletes the file;
//   - a holder re-writes the file while it holds it (every third of the expiry), so a lock
//     held longer than the expiry — a whole single-writer write — does not expire under it;
//   - TryLock polls for the file to disappear for up to hoodie.write.lock.wait_time_ms
//     (Java's provider tries once and leaves the waiting to LockManager's retries);
//   - a stale lock is broken through a create-if-absent "<lock>.<id>.break" file, so two
//     waiters breaking the same stale lock never both end up holding a lock;
//   - the taker removes the temp files killed creators of the lock left (removeDeadTemps).
type fileSystem struct {
	st      storage.Storage
	path    string // the lock file in st
	display string // its full path, for messages
	expire  time.Duration
	logger  *slog.Logger

	mu      sync.Mutex
	body    []byte // what we wrote while we hold the lock
	stop    chan struct{}
	stopped sync.WaitGroup
	// refreshed is what the refresh goroutine last wrote (body re-written with a new
	// refresh time), set when it returns: Unlock reads it after waiting for that.
	refreshed []byte
}

// lockBody is the lock file's JSON: Java's LockInfo fields (lockCreateTime, lockThreadName,
// lockStacksInfo), which Java only prints, plus the holder's identity.
type lockBody struct {
	LockCreateTime string   `json:"lockCreateTime"`
	LockThreadName string   `json:"lockThreadName"`
	LockStacksInfo []string `json:"lockStacksInfo"`
	Host           string   `json:"hudiGoHost,omitempty"`
	PID            int      `json:"hudiGoPid,omitempty"`
	Token          string   `json:"hudiGoToken,omitempty"`
	// Refreshed is when the holder last re-wrote the file: each re-write has its own
	// content, so on S3, whose version (the ETag) is the content's digest, a refresh
	// changes the version a breaker read.
	Refreshed string `json:"hudiGoRefreshed,omitempty"`
}

func newFileSystem(o Options, st storage.Storage) (*fileSystem, error) {
	fs := &fileSystem{st: st, path: storage.Join(".hoodie", LockFileName), expire: o.FilesystemExpire, logger: o.Logger}
	if fs.logger == nil {
		fs.logger = slog.Default()
	}
	if dir := strings.TrimSpace(o.FilesystemPath); dir != "" {
		dir = strings.TrimPrefix(strings.TrimPrefix(dir, "file://"), "file:")
		if i := strings.Index(dir, "://"); i > 0 {
			return nil, fmt.Errorf("hoodie.write.lock.filesystem.path=%s: only local folders are supported by hudi-go's FileSystemBasedLockProvider", o.FilesystemPath)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("hoodie.write.lock.filesystem.path=%s: %w", o.FilesystemPath, err)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("hoodie.write.lock.filesystem.path=%s: %w", o.FilesystemPath, err)
		}
		fs.st, fs.path = local.New(abs), LockFileName
		fs.display = filepath.Join(abs, LockFileName)
	} else {
		fs.display = strings.TrimSuffix(st.Root(), "/") + "/" + fs.path
	}
	return fs, nil
}

func (f *fileSystem) Name() string { return f.display }

func (f *fileSystem) Holder(ctx context.Context) string {
	b, err := f.st.ReadFile(ctx, f.path)
	if err != nil {
		return ""
	}
	var lb lockBody
	if json.Unmarshal(b, &lb) != nil {
		return ""
	}
	if lb.Host != "" {
		return fmt.Sprintf("process %d on %s since %s", lb.PID, lb.Host, lb.LockCreateTime)
	}
	return fmt.Sprintf("%s since %s", lb.LockThreadName, lb.LockCreateTime)
}

func (f *fileSystem) TryLock(ctx context.Context, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	delay := 20 * time.Millisecond
	for {
		ok, err := f.tryOnce(ctx)
		if err != nil || ok {
			return ok, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(min(delay, left)):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// tryOnce creates the lock file if absent, first breaking a lock that expired or whose
// holder is gone.
func (f *fileSystem) tryOnce(ctx context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.body != nil {
		return false, fmt.Errorf("lock %s is already held by this process's provider", f.display)
	}
	if fi, err := f.st.Stat(ctx, f.path); err == nil {
		old, err := f.st.ReadFile(ctx, f.path)
		if errors.Is(err, storage.ErrNotExist) {
			return false, nil // released meanwhile: try again at once
		}
		if err != nil {
			return false, fmt.Errorf("read lock %s: %w", f.display, err)
		}
		reason := f.stale(old, fi.ModTime)
		if reason == "" {
			return false, nil
		}
		if broke, err := f.breakStale(ctx, old, reason); err != nil || !broke {
			return false, err
		}
	} else if !errors.Is(err, storage.ErrNotExist) {
		return false, fmt.Errorf("stat lock %s: %w", f.display, err)
	}
	body, err := newBody()
	if err != nil {
		return false, err
	}
	if err := writeNew(ctx, f.st, f.path, body); err != nil {
		if errors.Is(err, storage.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("create lock %s: %w", f.display, err)
	}
	f.body = body
	if f.expire > 0 {
		f.stop = make(chan struct{})
		f.stopped.Add(1)
		go f.refresh(f.stop, body)
	}
	f.removeDeadTemps(ctx)
	return true, nil
}

// removeDeadTemps deletes the temp files that processes killed while creating the lock
// or a break file left in the lock's folder (".lock.tmp-<n>", ".lock.<crc>.break.tmp-<n>":
// a local folder's atomic create writes a temp file and hard-links it into place). Java's
// provider leaves no such files. A lock temp file holds its creator's identity: it goes
// at once when that is a process of this host that no longer exists. One whose creator
// cannot be told (a break file's is empty; a lock's cut short) goes once older than
// breakAge: writing a few hundred bytes takes milliseconds, and a creator stalled that
// long only sees its create fail, never a lock held twice. Stores with compare-and-swap
// (the object stores) create without temp files and are not listed. Errors are ignored:
// this is tidying.
func (f *fileSystem) removeDeadTemps(ctx context.Context) {
	if _, ok := f.st.(storage.ConditionalStorage); ok {
		return
	}
	dir := path.Dir(f.path)
	if dir == "." {
		dir = ""
	}
	entries, err := f.st.List(ctx, dir)
	if err != nil {
		return
	}
	prefix := "." + path.Base(f.path) + "."
	for _, e := range entries {
		if e.IsDir || !strings.HasPrefix(e.Name, prefix) || !strings.Contains(e.Name, ".tmp-") {
			continue
		}
		p := storage.Join(dir, e.Name)
		dead := time.Since(e.ModTime) > breakAge
		if !dead {
			if b, err := f.st.ReadFile(ctx, p); err == nil {
				dead = holderGone(b)
			}
		}
		if dead {
			_ = f.st.Delete(ctx, p)
		}
	}
}

// holderGone reports whether lock body b names a holder process of this host that no
// longer exists.
func holderGone(b []byte) bool {
	var lb lockBody
	return json.Unmarshal(b, &lb) == nil && lb.Host != "" && lb.Host == hostname() && lb.PID > 0 &&
		lb.PID != os.Getpid() && !processExists(lb.PID)
}

// stale says why a lock file with body b, last modified at mod, may be broken ("" if it
// may not).
func (f *fileSystem) stale(b []byte, mod time.Time) string {
	if f.expire > 0 && time.Since(mod) > f.expire {
		return fmt.Sprintf("it was last modified %s ago, more than hoodie.write.lock.filesystem.expire (%s)", time.Since(mod).Round(time.Second), f.expire)
	}
	if holderGone(b) {
		var lb lockBody
		_ = json.Unmarshal(b, &lb)
		return fmt.Sprintf("its holder, process %d on this host, no longer exists", lb.PID)
	}
	return ""
}

// breakStale deletes the stale lock whose body is old. Only the process that creates
// "<lock>.<crc of old>.break" may: it checks that the lock still holds old before deleting
// it, so a waiter that judged the same lock stale never deletes the lock that the winner
// created next. It reports whether the stale lock is gone.
func (f *fileSystem) breakStale(ctx context.Context, old []byte, reason string) (bool, error) {
	brk := fmt.Sprintf("%s.%08x.break", f.path, crc32.ChecksumIEEE(old))
	if err := writeNew(ctx, f.st, brk, nil); err != nil {
		if !errors.Is(err, storage.ErrExist) {
			return false, fmt.Errorf("break stale lock %s: %w", f.display, err)
		}
		if fi, err := f.st.Stat(ctx, brk); err == nil && time.Since(fi.ModTime) > breakAge {
			_ = f.st.Delete(ctx, brk) // its breaker died: the next attempt may break
		}
		return false, nil
	}
	defer func() { _ = f.st.Delete(ctx, brk) }()
	cur, v, err := f.readVersion(ctx)
	if errors.Is(err, storage.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("read lock %s: %w", f.display, err)
	}
	if !bytes.Equal(cur, old) {
		return false, nil // someone else's lock now
	}
	if err := f.deleteIfMatch(ctx, v); err != nil {
		if errors.Is(err, storage.ErrPrecondition) {
			return false, nil // re-written (refreshed or taken) since the read: not stale
		}
		return false, fmt.Errorf("delete stale lock %s: %w", f.display, err)
	}
	f.logger.Warn("deleted a stale table lock", "lock", f.display, "reason", reason)
	return true, nil
}

// refresh re-writes the held lock every third of the expiry so that it never looks
// expired while held. If the file is no longer ours (we were stalled beyond the expiry
// and another process broke it), it stops: writing would destroy the new holder's lock.
// What it last wrote is left in f.refreshed when it returns.
func (f *fileSystem) refresh(stop chan struct{}, body []byte) {
	defer f.stopped.Done()
	defer func() { f.refreshed = body }()
	t := time.NewTicker(max(f.expire/3, time.Second))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			next, ok := f.refreshOnce(context.Background(), body)
			if !ok {
				f.logger.Error("the table lock was taken over while held (this process was stalled beyond hoodie.write.lock.filesystem.expire)", "lock", f.display)
				return
			}
			body = next
		}
	}
}

// refreshOnce re-writes the lock file, with a new refresh time, if it still holds body,
// and returns what it holds now; false: it is no longer ours. On a store with
// compare-and-swap (the object stores: S3 and Azure If-Match, GCS ifGenerationMatch) the
// re-write is conditional on the version read, so a process that broke the lock and took
// it between the read and the write keeps it; a plain Put there would overwrite its lock
// with ours and let both hold the lock. A local folder has no such primitive: there the
// window between read and write stays.
func (f *fileSystem) refreshOnce(ctx context.Context, body []byte) ([]byte, bool) {
	next := body
	var lb lockBody
	if json.Unmarshal(body, &lb) == nil {
		lb.Refreshed = time.Now().Format("2006-01-02 15:04:05.000")
		if b, err := json.MarshalIndent(lb, "", "  "); err == nil {
			next = b
		}
	}
	if cs, ok := f.st.(storage.ConditionalStorage); ok {
		cur, v, err := cs.ReadVersion(ctx, f.path)
		if err != nil || !bytes.Equal(cur, body) {
			return body, false
		}
		if _, err := cs.PutIfMatch(ctx, f.path, next, v); err != nil {
			// A transient failure keeps the lock and the old content: try again next tick.
			return body, !errors.Is(err, storage.ErrPrecondition) && !errors.Is(err, storage.ErrNotExist)
		}
		return next, true
	}
	cur, err := f.st.ReadFile(ctx, f.path)
	if err != nil || !bytes.Equal(cur, body) {
		return body, false
	}
	if err := f.st.Put(ctx, f.path, next); err != nil {
		return body, true
	}
	return next, true
}

// readVersion reads the lock file and, on a store with compare-and-swap, its version.
func (f *fileSystem) readVersion(ctx context.Context) ([]byte, storage.Version, error) {
	if cs, ok := f.st.(storage.ConditionalStorage); ok {
		return cs.ReadVersion(ctx, f.path)
	}
	b, err := f.st.ReadFile(ctx, f.path)
	return b, "", err
}

// deleteIfMatch deletes the lock file read at version v. On a store with compare-and-swap
// (the object stores) the delete is conditional on v (S3 and Azure If-Match, GCS's
// generation): a lock re-written since the read — taken over by another process, or
// refreshed by its holder — is not deleted (storage.ErrPrecondition). A local folder has
// no conditional delete: there the caller's read and this delete leave a window, as in
// Java's FileSystemBasedLockProvider.
func (f *fileSystem) deleteIfMatch(ctx context.Context, v storage.Version) error {
	if cs, ok := f.st.(storage.ConditionalStorage); ok && v != "" {
		return cs.DeleteIfMatch(ctx, f.path, v)
	}
	return f.st.Delete(ctx, f.path)
}

func (f *fileSystem) Unlock(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.body == nil {
		return nil
	}
	body := f.body
	if f.stop != nil {
		close(f.stop)
		f.stopped.Wait()
		f.stop = nil
		body, f.refreshed = f.refreshed, nil
	}
	f.body = nil
	cur, v, err := f.readVersion(ctx)
	if errors.Is(err, storage.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read lock %s: %w", f.display, err)
	}
	if !bytes.Equal(cur, body) {
		return fmt.Errorf("lock %s is no longer ours (it expired while held and was taken over): not deleting it", f.display)
	}
	if err := f.deleteIfMatch(ctx, v); err != nil {
		if errors.Is(err, storage.ErrPrecondition) {
			return fmt.Errorf("lock %s is no longer ours (it expired while held and was taken over while being released): not deleting it", f.display)
		}
		return fmt.Errorf("release lock %s: %w", f.display, err)
	}
	return nil
}

func (f *fileSystem) Close() error { return f.Unlock(context.Background()) }

func newBody() ([]byte, error) {
	var tok [8]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, err
	}
	lb := lockBody{
		LockCreateTime: time.Now().Format("2006-01-02 15:04:05.000"),
		LockThreadName: fmt.Sprintf("hudi-go pid %d", os.Getpid()),
		LockStacksInfo: []string{},
		Host:           hostname(),
		PID:            os.Getpid(),
		Token:          hex.EncodeToString(tok[:]),
	}
	return json.MarshalIndent(lb, "", "  ")
}

func writeNew(ctx context.Context, st storage.Storage, p string, body []byte) error {
	w, err := st.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return h
}
