package lock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

func fsOptions(expire time.Duration) Options {
	return Options{Provider: FileSystemProvider, WaitTimeout: 50 * time.Millisecond, FilesystemExpire: expire}
}

func newTableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".hoodie"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFileSystemLockIsExclusive pins Java's FileSystemBasedLockProvider: the lock is the
// file <table>/.hoodie/lock, created only if absent, and held while it exists.
func TestFileSystemLockIsExclusive(t *testing.T) {
	ctx := context.Background()
	dir := newTableDir(t)
	a, err := New(fsOptions(0), local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(fsOptions(0), local.New(dir))
	if ok, err := a.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("first TryLock = %v, %v", ok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", "lock")); err != nil {
		t.Fatalf("Java's lock file .hoodie/lock: %v", err)
	}
	if ok, err := b.TryLock(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("second TryLock while held = %v, %v; want false", ok, err)
	}
	if h := b.Holder(ctx); !strings.Contains(h, fmt.Sprint(os.Getpid())) {
		t.Errorf("Holder = %q, want it to name this process", h)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock after release = %v, %v", ok, err)
	}
	_ = b.Close()
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", "lock")); !os.IsNotExist(err) {
		t.Errorf("Close left the lock file: %v", err)
	}
}

// TestFileSystemLockExpiry pins hoodie.write.lock.filesystem.expire: a lock file not
// modified for longer than N minutes is deleted by the next taker; with 0 (Java's default)
// it never expires. The stale lock here is Java-written (LockInfo JSON, no holder process).
func TestFileSystemLockExpiry(t *testing.T) {
	ctx := context.Background()
	javaLock := `{"lockCreateTime":"2024-01-01 00:00:00.000","lockThreadName":"main","lockStacksInfo":[]}`
	for _, tc := range []struct {
		name   string
		expire time.Duration
		age    time.Duration
		want   bool
	}{
		{"expire0_never", 0, 48 * time.Hour, false},
		{"expire1_old", time.Minute, 2 * time.Minute, true},
		{"expire1_fresh", time.Minute, 10 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newTableDir(t)
			p := filepath.Join(dir, ".hoodie", "lock")
			if err := os.WriteFile(p, []byte(javaLock), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-tc.age)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
			l, _ := New(fsOptions(tc.expire), local.New(dir))
			ok, err := l.TryLock(ctx, 100*time.Millisecond)
			if err != nil || ok != tc.want {
				t.Fatalf("TryLock = %v, %v; want %v", ok, err, tc.want)
			}
			_ = l.Close()
		})
	}
}

// TestFileSystemLockOfDeadProcessIsBroken: a lock whose holder (recorded in the file) was
// a process of this host that no longer exists is broken at once, whatever the expiry. Java
// does not define this; hudi-go adds it so that a killed writer does not block the table.
func TestFileSystemLockOfDeadProcessIsBroken(t *testing.T) {
	ctx := context.Background()
	dir := newTableDir(t)
	dead := deadPID(t)
	body := fmt.Sprintf(`{"lockCreateTime":"x","lockThreadName":"hudi-go pid %d","lockStacksInfo":[],"hudiGoHost":%q,"hudiGoPid":%d,"hudiGoToken":"t"}`,
		dead, hostname(), dead)
	if err := os.WriteFile(filepath.Join(dir, ".hoodie", "lock"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	l, _ := New(fsOptions(0), local.New(dir))
	if ok, err := l.TryLock(ctx, 100*time.Millisecond); !ok || err != nil {
		t.Fatalf("TryLock over a dead holder's lock = %v, %v; want true", ok, err)
	}
	_ = l.Close()
	// A live holder (this process, seen from another provider) is not broken.
	a, _ := New(fsOptions(0), local.New(dir))
	if ok, _ := a.TryLock(ctx, time.Second); !ok {
		t.Fatal("TryLock failed")
	}
	b, _ := New(fsOptions(0), local.New(dir))
	if ok, _ := b.TryLock(ctx, 100*time.Millisecond); ok {
		t.Fatal("a live holder's lock was broken")
	}
	_ = a.Close()
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skip("cannot start /bin/true:", err)
	}
	pid := p.Pid
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestFileSystemLockStaleBreakersNeverShare: many takers find the same expired lock at
// once; breaking it goes through a create-if-absent break file, so at no time do two of
// them hold the lock (without it, one taker could delete the lock another had just taken).
func TestFileSystemLockStaleBreakersNeverShare(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		dir := newTableDir(t)
		p := filepath.Join(dir, ".hoodie", "lock")
		if err := os.WriteFile(p, []byte(`{"lockCreateTime":"old"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		_ = os.Chtimes(p, old, old)
		var holders, most, acquired atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Slow deletes widen the window between judging the lock stale and
				// deleting it, where an unguarded breaker deletes a fresh lock.
				l, _ := New(fsOptions(time.Minute), slowDeletes{local.New(dir)})
				for range 3 {
					ok, err := l.TryLock(ctx, 5*time.Second)
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						continue
					}
					acquired.Add(1)
					n := holders.Add(1)
					for {
						m := most.Load()
						if n <= m || most.CompareAndSwap(m, n) {
							break
						}
					}
					time.Sleep(2 * time.Millisecond)
					holders.Add(-1)
					if err := l.Unlock(ctx); err != nil {
						t.Error(err)
					}
					return
				}
			}()
		}
		wg.Wait()
		if most.Load() != 1 || acquired.Load() != 8 {
			t.Fatalf("round %d: at most %d holders at once (want 1), %d of 8 acquired", round, most.Load(), acquired.Load())
		}
	}
}

// slowDeletes delays every delete.
type slowDeletes struct{ storage.Storage }

func (s slowDeletes) Delete(ctx context.Context, p string) error {
	time.Sleep(5 * time.Millisecond)
	return s.Storage.Delete(ctx, p)
}

// TestFileSystemLockPath pins hoodie.write.lock.filesystem.path: the lock file is "lock"
// in that folder.
func TestFileSystemLockPath(t *testing.T) {
	ctx := context.Background()
	dir := newTableDir(t)
	lockDir := filepath.Join(t.TempDir(), "locks")
	o := fsOptions(0)
	o.FilesystemPath = lockDir
	l, err := New(o, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	if _, err := os.Stat(filepath.Join(lockDir, "lock")); err != nil {
		t.Errorf("lock file in hoodie.write.lock.filesystem.path: %v", err)
	}
	_ = l.Close()
}

// TestInProcessLock pins InProcessLockProvider: one lock per table path within the process.
func TestInProcessLock(t *testing.T) {
	ctx := context.Background()
	dir := newTableDir(t)
	o := Options{Provider: InProcessProvider}
	a, _ := New(o, local.New(dir))
	b, _ := New(o, local.New(dir))
	other, _ := New(o, local.New(newTableDir(t)))
	if ok, _ := a.TryLock(ctx, time.Second); !ok {
		t.Fatal("first TryLock failed")
	}
	if ok, _ := b.TryLock(ctx, 50*time.Millisecond); ok {
		t.Fatal("second TryLock on the same table succeeded while held")
	}
	if ok, _ := other.TryLock(ctx, 50*time.Millisecond); !ok {
		t.Fatal("another table's lock is not independent")
	}
	_ = a.Unlock(ctx)
	if ok, _ := b.TryLock(ctx, time.Second); !ok {
		t.Fatal("TryLock after release failed")
	}
	_ = b.Close()
	_ = other.Close()
}

// TestManagerRetriesAndReenters pins LockManager.lock's retries (client.num_retries more
// attempts, client.wait_time_ms_between_retry apart) and the error when all fail, and
// that a holder re-entering the lock releases it only with its outermost release.
func TestManagerRetriesAndReenters(t *testing.T) {
	ctx := context.Background()
	dir := newTableDir(t)
	o := fsOptions(0)
	o.ClientNumRetries, o.ClientRetryWait = 2, 10*time.Millisecond
	m1, err := NewManager(o, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := NewManager(o, local.New(dir))
	rel, err := m1.Lock(ctx, "write")
	if err != nil {
		t.Fatal(err)
	}
	inner, err := m1.Lock(ctx, "inline clean")
	if err != nil {
		t.Fatal(err)
	}
	inner()
	if !m1.Held() {
		t.Fatal("an inner release released the lock")
	}
	start := time.Now()
	_, err = m2.Lock(ctx, "write")
	if !errors.Is(err, ErrNotAcquired) || !strings.Contains(err.Error(), "3 attempts") || !strings.Contains(err.Error(), "held by process") {
		t.Fatalf("Lock while held elsewhere: %v", err)
	}
	if d := time.Since(start); d < 3*o.WaitTimeout {
		t.Errorf("gave up after %s, before 3 attempts of %s", d, o.WaitTimeout)
	}
	rel()
	rel2, err := m2.Lock(ctx, "write")
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	rel2()
}

// failingProvider's TryLock fails with err and counts its calls.
type failingProvider struct {
	err   error
	calls int
}

func (p *failingProvider) TryLock(context.Context, time.Duration) (bool, error) {
	p.calls++
	return false, p.err
}
func (p *failingProvider) Unlock(context.Context) error  { return nil }
func (p *failingProvider) Close() error                  { return nil }
func (p *failingProvider) Name() string                  { return "/t/.hoodie/lock" }
func (p *failingProvider) Holder(context.Context) string { return "" }

// TestManagerStopsOnErrorsWaitingCannotCure pins a choice Java does not make (its
// LockManager retries every lock exception): a full disk, a read-only file system or a
// refused permission fails the lock at the first attempt, naming the cause, while other
// store errors are retried.
func TestManagerStopsOnErrorsWaitingCannotCure(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		err       error
		wantCalls int
	}{
		{"full disk", &fs.PathError{Op: "write", Path: "/t/.hoodie/lock", Err: syscall.ENOSPC}, 1},
		{"quota", &fs.PathError{Op: "write", Path: "/t/.hoodie/lock", Err: syscall.EDQUOT}, 1},
		{"read-only", &fs.PathError{Op: "open", Path: "/t/.hoodie/lock", Err: syscall.EROFS}, 1},
		{"permission", &fs.PathError{Op: "open", Path: "/t/.hoodie/lock", Err: syscall.EACCES}, 1},
		{"other", errors.New("connection reset"), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fsOptions(0)
			o.ClientNumRetries, o.ClientRetryWait = 3, time.Millisecond
			p := &failingProvider{err: tc.err}
			_, err := NewManagerWith(o, p).Lock(ctx, "write")
			if !errors.Is(err, tc.err) {
				t.Fatalf("Lock: %v, want %v", err, tc.err)
			}
			if p.calls != tc.wantCalls {
				t.Errorf("TryLock called %d times, want %d", p.calls, tc.wantCalls)
			}
		})
	}
}

// TestProviderValidation pins the providers' required settings and the refusals.
func TestProviderValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]string
		want string // "" = valid
	}{
		{"fs", map[string]string{"hoodie.write.lock.provider": FileSystemProvider}, ""},
		{"inprocess", map[string]string{"hoodie.write.lock.provider": InProcessProvider}, ""},
		{"zk_default_needs_url", map[string]string{}, "hoodie.write.lock.zookeeper.url is required"},
		{"zk_needs_base_path", map[string]string{"hoodie.write.lock.zookeeper.url": "127.0.0.1"}, "hoodie.write.lock.zookeeper.base_path is required"},
		{"zk_ok", map[string]string{"hoodie.write.lock.zookeeper.url": "127.0.0.1", "hoodie.write.lock.zookeeper.port": "2181",
			"hoodie.write.lock.zookeeper.base_path": "/hudi"}, ""},
		{"hive_refused", map[string]string{"hoodie.write.lock.provider": HiveMetastoreProvider}, "no metastore"},
		{"unknown", map[string]string{"hoodie.write.lock.provider": "com.example.MyLock"}, "not a lock provider hudi-go has"},
		{"negative_expire", map[string]string{"hoodie.write.lock.provider": FileSystemProvider, "hoodie.write.lock.filesystem.expire": "-1"}, "filesystem.expire=-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.New()
			if _, err := cfg.SetAll(tc.set); err != nil {
				t.Fatal(err)
			}
			_, err := OptionsFromConfig(cfg, "trips")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestZookeeperServers pins how url and port combine into the server list.
func TestZookeeperServers(t *testing.T) {
	got, err := ZKOptions{URL: "a, b:2182", Port: 2190}.servers()
	if err != nil || strings.Join(got, ",") != "a:2190,b:2182" {
		t.Fatalf("servers = %v, %v", got, err)
	}
	got, _ = ZKOptions{URL: "a"}.servers()
	if got[0] != "a:2181" {
		t.Fatalf("servers without port = %v", got)
	}
}

// casStorage gives a local folder the compare-and-swap of the object stores
// (storage.ConditionalStorage, versions are the content) and, once armed, lets another
// process take the lock file right after this one read it: the read returns the old
// content, and the file then holds the taker's lock.
type casStorage struct {
	storage.Storage
	mu     sync.Mutex
	armed  bool
	taker  []byte
	copied atomic.Int32
}

func (c *casStorage) takeOver(ctx context.Context, p string) {
	if c.armed && p == ".hoodie/lock" {
		c.armed = false
		_ = c.Storage.Put(ctx, p, c.taker)
		c.copied.Add(1)
	}
}

func (c *casStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.Storage.ReadFile(ctx, p)
	c.takeOver(ctx, p)
	return b, err
}

func (c *casStorage) ReadVersion(ctx context.Context, p string) ([]byte, storage.Version, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.Storage.ReadFile(ctx, p)
	c.takeOver(ctx, p)
	return b, storage.Version(b), err
}

func (c *casStorage) DeleteIfMatch(ctx context.Context, p string, v storage.Version) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, err := c.Storage.ReadFile(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return nil
	}
	if err != nil || storage.Version(cur) != v {
		return storage.ErrPrecondition
	}
	return c.Storage.Delete(ctx, p)
}

func (c *casStorage) PutIfMatch(ctx context.Context, p string, data []byte, v storage.Version) (storage.Version, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, err := c.Storage.ReadFile(ctx, p)
	if err != nil || storage.Version(cur) != v {
		return "", storage.ErrPrecondition
	}
	return storage.Version(data), c.Storage.Put(ctx, p, data)
}

// TestFileSystemLockRefreshNeverOverwritesATaker: a holder that re-writes its lock (every
// third of hoodie.write.lock.filesystem.expire) on a store with compare-and-swap (every
// object store) re-writes it only if the file is still the one it read. If another process
// broke the lock and took it between the read and the write, the taker keeps it; a plain
// re-write would put the old holder's lock back and let both hold the table lock.
func TestFileSystemLockRefreshNeverOverwritesATaker(t *testing.T) {
	ctx := context.Background()
	st := &casStorage{Storage: local.New(newTableDir(t)), taker: []byte(`{"lockCreateTime":"2024-01-01 00:00:00.000","lockThreadName":"taker","lockStacksInfo":[]}`)}
	l, err := New(fsOptions(3*time.Second), st) // refreshes every second
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	st.mu.Lock()
	st.armed = true
	st.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for st.copied.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // past the refresh that read before the take-over
	b, err := st.Storage.ReadFile(ctx, ".hoodie/lock")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(st.taker) {
		t.Fatalf("the lock file holds %s after another process took it: the refresh overwrote the taker's lock", b)
	}
	if err := l.Unlock(ctx); err == nil || !strings.Contains(err.Error(), "no longer ours") {
		t.Errorf("Unlock of a lock taken over = %v, want a 'no longer ours' error", err)
	}
	if b, _ := st.Storage.ReadFile(ctx, ".hoodie/lock"); string(b) != string(st.taker) {
		t.Errorf("Unlock removed the taker's lock")
	}
}

// TestFileSystemLockReleaseNeverDeletesATaker: Unlock reads the lock file, checks that it
// is still its own, and deletes it. On a store with a conditional delete (every object
// store) the delete is conditional on the version read, so a lock another process took
// between the read and the delete survives; an unconditional delete would remove it and
// leave the taker writing without a lock. (internal/objstoretest
// TestLockTakeOverOnObjectStores pins the same on S3, GCS and Azure servers.)
func TestFileSystemLockReleaseNeverDeletesATaker(t *testing.T) {
	ctx := context.Background()
	st := &casStorage{Storage: local.New(newTableDir(t)), taker: []byte(`{"lockCreateTime":"2024-01-01 00:00:00.000","lockThreadName":"taker","lockStacksInfo":[]}`)}
	l, err := New(fsOptions(0), st)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	st.mu.Lock()
	st.armed = true // the next read of the lock (Unlock's) is followed by a take-over
	st.mu.Unlock()
	if err := l.Unlock(ctx); err == nil || !strings.Contains(err.Error(), "no longer ours") {
		t.Errorf("Unlock of a lock taken over after its read = %v, want a 'no longer ours' error", err)
	}
	if b, err := st.Storage.ReadFile(ctx, ".hoodie/lock"); err != nil || string(b) != string(st.taker) {
		t.Fatalf("after Unlock the lock file is %q, %v: the old holder deleted the taker's lock", b, err)
	}
}

// TestFileSystemLockRefreshChangesTheVersion: each refresh re-writes the lock with its own
// content (a refresh time), so the version of the file changes on every store — on S3 the
// version is the ETag, the content's digest, and a refresh with the same bytes would keep
// it: a waiter that read the lock before the refresh and judged it stale could then still
// delete it with its conditional delete.
func TestFileSystemLockRefreshChangesTheVersion(t *testing.T) {
	ctx := context.Background()
	st := local.New(newTableDir(t))
	l, err := New(fsOptions(3*time.Second), st) // refreshes every second
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	before, _ := st.ReadFile(ctx, ".hoodie/lock")
	time.Sleep(1300 * time.Millisecond)
	after, _ := st.ReadFile(ctx, ".hoodie/lock")
	if string(before) == string(after) {
		t.Errorf("the refresh re-wrote the lock with the same content: %s", after)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after a refresh: %v", err)
	}
	if _, err := st.Stat(ctx, ".hoodie/lock"); err == nil {
		t.Error("the lock file is left after Unlock")
	}
}

// TestFileSystemLockRemovesDeadTemps: a process killed inside the atomic create of the
// lock (or of a break file) leaves its temp file in .hoodie; the next process to take the
// lock removes it once its creator is known dead (a process of this host that is gone) or,
// when the creator cannot be told, once it is older than breakAge. A live creator's temp
// file, another host's, and other files' temp files stay. The crash soak found these
// ".lock.tmp-<n>" files left for good.
func TestFileSystemLockRemovesDeadTemps(t *testing.T) {
	ctx := context.Background()
	dir := newTableDir(t)
	body := func(host string, pid int) []byte {
		return []byte(fmt.Sprintf(`{"lockCreateTime":"x","lockThreadName":"hudi-go pid %d","lockStacksInfo":[],"hudiGoHost":%q,"hudiGoPid":%d,"hudiGoToken":"t"}`, pid, host, pid))
	}
	dead, live := deadPID(t), os.Getppid()
	now, old := time.Now(), time.Now().Add(-breakAge-time.Minute)
	for _, tc := range []struct {
		name    string
		body    []byte
		mtime   time.Time
		removed bool
	}{
		{".lock.tmp-1", body(hostname(), dead), now, true},                      // killed creator of this host
		{".lock.tmp-2", body(hostname(), live), now, false},                     // a live creator
		{".lock.tmp-3", body("another-host", dead), now, false},                 // creator cannot be told
		{".lock.tmp-4", nil, now, false},                                        // cut short, fresh
		{".lock.tmp-5", []byte(`{"lockCreateTime"`), old, true},                 // cut short, old
		{".lock.0badc0de.break.tmp-6", nil, old, true},                          // a killed breaker's
		{".lock.0badc0de.break.tmp-7", nil, now, false},                         // a breaker at work
		{".20250101000000000.commit.tmp-8", body(hostname(), dead), old, false}, // not the lock's
		{"lock.tmp-9", body(hostname(), dead), old, false},                      // not a temp file name
	} {
		p := filepath.Join(dir, ".hoodie", tc.name)
		if err := os.WriteFile(p, tc.body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tc.mtime, tc.mtime); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_, err := os.Stat(p)
			if gone := errors.Is(err, fs.ErrNotExist); gone != tc.removed {
				t.Errorf("%s: removed=%v, want %v", tc.name, gone, tc.removed)
			}
		}()
	}
	l, err := New(fsOptions(0), local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
