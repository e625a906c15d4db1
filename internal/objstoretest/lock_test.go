//go:build unix

package objstoretest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/commit/lock"
	"github.com/hudi-go/hudi/internal/objstore/azuretest"
	"github.com/hudi-go/hudi/internal/objstore/gcstest"
	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/storage"
)

// takeOver is a real object store on which, once armed, another process takes the lock
// file right after this process's n-th read of it: the read returns what was there, and
// the file then holds the taker's lock (written with a plain PUT, a new version).
type takeOver struct {
	storage.Storage
	cs storage.ConditionalStorage

	mu    sync.Mutex
	after int // take over after this many more reads of the lock (0: off)
	taker []byte
	took  bool
}

const lockPath = ".hoodie/" + lock.LockFileName

func (s *takeOver) arm(after int) { s.mu.Lock(); s.after = after; s.mu.Unlock() }

func (s *takeOver) hook(ctx context.Context, p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p != lockPath || s.after == 0 {
		return
	}
	if s.after--; s.after == 0 {
		if err := s.Storage.Put(ctx, p, s.taker); err != nil {
			panic(err)
		}
		s.took = true
	}
}

func (s *takeOver) ReadFile(ctx context.Context, p string) ([]byte, error) {
	b, err := s.Storage.ReadFile(ctx, p)
	s.hook(ctx, p)
	return b, err
}

func (s *takeOver) ReadVersion(ctx context.Context, p string) ([]byte, storage.Version, error) {
	b, v, err := s.cs.ReadVersion(ctx, p)
	s.hook(ctx, p)
	return b, v, err
}

func (s *takeOver) PutIfMatch(ctx context.Context, p string, data []byte, v storage.Version) (storage.Version, error) {
	return s.cs.PutIfMatch(ctx, p, data, v)
}

func (s *takeOver) DeleteIfMatch(ctx context.Context, p string, v storage.Version) error {
	return s.cs.DeleteIfMatch(ctx, p, v)
}

// TestLockTakeOverOnObjectStores: the storage lock (FileSystemBasedLockProvider's
// .hoodie/lock) on S3 (versitygw), GCS (fake-gcs-server) and Azure (Azurite). Releasing
// the lock and breaking a stale one each read the lock file, check it, and delete it; the
// delete is conditional on the version read (S3 and Azure If-Match, GCS's generation), so
// a lock another process took between the read and the delete survives:
//   - release: a holder whose lock was taken over after Unlock's read gets "no longer
//     ours", and the taker's lock stays;
//   - break: a waiter that found a dead process's lock (this host, a pid that exited) and
//     is about to delete it, when another process takes the lock first, deletes nothing
//     and does not get the lock.
//
// An unconditional delete (before this was fixed) removed the taker's lock in both.
func TestLockTakeOverOnObjectStores(t *testing.T) {
	host, _ := os.Hostname()
	if host == "" {
		host = "unknown-host"
	}
	body := func(name string, pid int) []byte {
		return fmt.Appendf(nil, `{"lockCreateTime":"2024-01-01 00:00:00.000","lockThreadName":%q,"lockStacksInfo":[],"hudiGoHost":%q,"hudiGoPid":%d,"hudiGoToken":%q}`,
			name, host, pid, name)
	}
	// The taker is alive (this process's pid, as another provider sees it): never stale.
	taker := body("taker", os.Getpid())
	stores := map[string]func(t *testing.T) (string, map[string]string){
		"s3": func(t *testing.T) (string, map[string]string) {
			b, settings := s3test.Bucket(t)
			return "s3a://" + b + "/t", settings
		},
		"gcs": func(t *testing.T) (string, map[string]string) {
			return "gs://" + gcstest.Bucket(t) + "/t", nil
		},
		"azure": func(t *testing.T) (string, map[string]string) {
			c, settings := azuretest.Container(t)
			return fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/t", c, azuretest.Account), settings
		},
	}
	for _, name := range []string{"s3", "gcs", "azure"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			url, settings := stores[name](t)
			open := func(t *testing.T, sub string) *takeOver {
				st, err := storage.OpenURL(ctx, url+"/"+sub, settings)
				if err != nil {
					t.Fatal(err)
				}
				cs, ok := st.(storage.ConditionalStorage)
				if !ok {
					t.Fatalf("%s: no conditional writes", name)
				}
				return &takeOver{Storage: st, cs: cs, taker: taker}
			}
			opts := lock.Options{Provider: lock.FileSystemProvider, WaitTimeout: 50 * time.Millisecond}

			t.Run("release", func(t *testing.T) {
				st := open(t, "release")
				l, err := lock.New(opts, st)
				if err != nil {
					t.Fatal(err)
				}
				if ok, err := l.TryLock(ctx, time.Second); !ok || err != nil {
					t.Fatalf("TryLock = %v, %v", ok, err)
				}
				st.arm(1) // Unlock's read
				err = l.Unlock(ctx)
				if !st.took {
					t.Fatal("Unlock did not read the lock file")
				}
				if err == nil || !strings.Contains(err.Error(), "no longer ours") {
					t.Errorf("Unlock of a lock taken over after its read = %v, want a 'no longer ours' error", err)
				}
				if b, err := st.Storage.ReadFile(ctx, lockPath); err != nil || string(b) != string(taker) {
					t.Fatalf("after the old holder's Unlock the lock is %q, %v: it deleted the taker's lock", b, err)
				}
			})

			t.Run("break", func(t *testing.T) {
				st := open(t, "break")
				dead := deadPID(t)
				if err := st.Storage.Put(ctx, lockPath, body("dead holder", dead)); err != nil {
					t.Fatal(err)
				}
				l, err := lock.New(opts, st)
				if err != nil {
					t.Fatal(err)
				}
				st.arm(2) // the waiter's first read finds the dead holder; the second checks before deleting
				ok, err := l.TryLock(ctx, 300*time.Millisecond)
				if !st.took {
					t.Fatal("the waiter did not re-read the lock before breaking it")
				}
				if ok {
					_ = l.Unlock(ctx)
					t.Fatal("the waiter got the lock after another process had taken it: its break deleted the taker's lock")
				}
				if err != nil {
					t.Fatal(err)
				}
				if b, err := st.Storage.ReadFile(ctx, lockPath); err != nil || string(b) != string(taker) {
					t.Fatalf("the lock is %q, %v, want the taker's", b, err)
				}
			})
		})
	}
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
