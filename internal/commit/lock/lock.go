// Package lock is the table lock that writers and table services take around their
// timeline changes: the lock providers of Hudi 0.14 chosen by hoodie.write.lock.provider
// (Java's class names and keys), and Manager, which acquires a provider's lock with Java's
// client retries (LockManager) and can be re-entered by the operation that holds it.
package lock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/storage"
)

// Java class names accepted as hoodie.write.lock.provider.
const (
	FileSystemProvider    = "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider"
	InProcessProvider     = "org.apache.hudi.client.transaction.lock.InProcessLockProvider"
	ZookeeperProvider     = "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider"
	HiveMetastoreProvider = "org.apache.hudi.hive.transaction.lock.HiveMetastoreBasedLockProvider"
	DynamoDBProvider      = "org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider"
)

// ErrNotAcquired means the lock could not be taken within the configured waits.
var ErrNotAcquired = errors.New("could not acquire the table lock")

// Provider is one lock implementation (Java's LockProvider): a mutual exclusion lock on
// one table shared by every process that configures the same provider and location.
type Provider interface {
	// TryLock waits up to wait for the lock and reports whether it was acquired. An error
	// is a failure to talk to the lock's store, not a busy lock.
	TryLock(ctx context.Context, wait time.Duration) (bool, error)
	// Unlock releases a lock this provider holds; releasing a lock not held is a no-op.
	Unlock(ctx context.Context) error
	// Close releases the lock if held and any connection.
	Close() error
	// Name names the lock object for messages (a file path, a znode path).
	Name() string
	// Holder describes the current holder if the provider can tell ("" if not).
	Holder(ctx context.Context) string
}

// Options are the hoodie.write.lock.* settings (HoodieLockConfig, defaults of 0.14.1).
type Options struct {
	// Provider is hoodie.write.lock.provider (a Java class name); ProviderSet reports
	// whether it was given explicitly.
	Provider    string
	ProviderSet bool
	// WaitTimeout is hoodie.write.lock.wait_time_ms: how long one TryLock waits.
	WaitTimeout time.Duration
	// NumRetries, RetryWait and RetryMaxWait are hoodie.write.lock.num_retries,
	// wait_time_ms_between_retry and max_wait_time_ms_between_retry: the ZooKeeper
	// client's connection retries (Curator's BoundedExponentialBackoffRetry in Java).
	NumRetries   int
	RetryWait    time.Duration
	RetryMaxWait time.Duration
	// ClientNumRetries and ClientRetryWait are hoodie.write.lock.client.num_retries and
	// client.wait_time_ms_between_retry: how often Manager tries TryLock again (Java's
	// LockManager.lock).
	ClientNumRetries int
	ClientRetryWait  time.Duration
	// FilesystemPath is hoodie.write.lock.filesystem.path (the folder of the lock file;
	// "" = the table's .hoodie) and FilesystemExpire hoodie.write.lock.filesystem.expire
	// (0 = a lock never expires).
	FilesystemPath   string
	FilesystemExpire time.Duration
	ZK               ZKOptions
	// TableName is hoodie.table.name, the default ZooKeeper lock key.
	TableName string
	Logger    *slog.Logger
}

// ZKOptions are the hoodie.write.lock.zookeeper.* settings.
type ZKOptions struct {
	URL               string // comma-separated host[:port] list
	Port              int    // the port of hosts in URL that name none
	LockKey           string // znode name under BasePath (default: the table name)
	BasePath          string
	SessionTimeout    time.Duration
	ConnectionTimeout time.Duration
}

// OptionsFromConfig reads the lock settings. tableName is the table's name (the default
// ZooKeeper lock key, as Java infers hoodie.write.lock.zookeeper.lock_key from
// hoodie.table.name).
func OptionsFromConfig(cfg *config.Config, tableName string) (Options, error) {
	o := Options{
		Provider:         strings.TrimSpace(cfg.String(config.LockProviderClass)),
		ProviderSet:      cfg.IsSet(config.LockProviderClass),
		WaitTimeout:      time.Duration(cfg.Long(config.LockAcquireWaitTimeoutMs)) * time.Millisecond,
		NumRetries:       cfg.Int(config.LockAcquireNumRetries),
		RetryWait:        time.Duration(cfg.Long(config.LockAcquireRetryWaitMs)) * time.Millisecond,
		RetryMaxWait:     time.Duration(cfg.Long(config.LockAcquireRetryMaxWaitMs)) * time.Millisecond,
		ClientNumRetries: cfg.Int(config.LockAcquireClientNumRetries),
		ClientRetryWait:  time.Duration(cfg.Long(config.LockAcquireClientRetryWaitMs)) * time.Millisecond,
		FilesystemPath:   cfg.String(config.FilesystemLockPath),
		FilesystemExpire: time.Duration(cfg.Long(config.FilesystemLockExpire)) * time.Minute,
		TableName:        tableName,
		ZK: ZKOptions{
			URL:               strings.TrimSpace(cfg.String(config.ZookeeperLockURL)),
			Port:              cfg.Int(config.ZookeeperLockPort),
			LockKey:           strings.TrimSpace(cfg.String(config.ZookeeperLockKey)),
			BasePath:          strings.TrimSpace(cfg.String(config.ZookeeperLockBasePath)),
			SessionTimeout:    time.Duration(cfg.Long(config.ZookeeperLockSessionTimeoutMs)) * time.Millisecond,
			ConnectionTimeout: time.Duration(cfg.Long(config.ZookeeperLockConnectionTimeoutMs)) * time.Millisecond,
		},
	}
	return o, o.Validate()
}

// Validate checks the settings the chosen provider needs, as Java's providers do in their
// constructors (checkRequiredProps), so a write fails before it starts.
func (o Options) Validate() error {
	switch {
	case o.WaitTimeout < 0:
		return fmt.Errorf("%s=%d: want 0 or more", config.LockAcquireWaitTimeoutMs.Name, o.WaitTimeout.Milliseconds())
	case o.ClientNumRetries < 0:
		return fmt.Errorf("%s=%d: want 0 or more", config.LockAcquireClientNumRetries.Name, o.ClientNumRetries)
	case o.ClientRetryWait < 0:
		return fmt.Errorf("%s=%d: want 0 or more", config.LockAcquireClientRetryWaitMs.Name, o.ClientRetryWait.Milliseconds())
	case o.FilesystemExpire < 0:
		// FileSystemBasedLockProvider.checkRequiredProps: expire >= 0.
		return fmt.Errorf("%s=%d: want 0 (never) or more minutes", config.FilesystemLockExpire.Name, int64(o.FilesystemExpire/time.Minute))
	}
	switch o.Provider {
	case FileSystemProvider, InProcessProvider:
		return nil
	case ZookeeperProvider:
		return o.ZK.validate(o.TableName)
	case HiveMetastoreProvider:
		return fmt.Errorf("%s=%s is not supported: it locks through a Hive Metastore, and hudi-go has no metastore client to lock with; use %s or %s",
			config.LockProviderClass.Name, o.Provider, ZookeeperProvider, FileSystemProvider)
	case DynamoDBProvider:
		return fmt.Errorf("%s=%s is not supported by hudi-go; use %s or %s", config.LockProviderClass.Name, o.Provider, ZookeeperProvider, FileSystemProvider)
	case "":
		return fmt.Errorf("%s is empty: name a lock provider class", config.LockProviderClass.Name)
	}
	return fmt.Errorf("%s=%s is not a lock provider hudi-go has: want %s, %s or %s (on S3, GCS and Azure %s takes its lock file with a conditional write)",
		config.LockProviderClass.Name, o.Provider, FileSystemProvider, InProcessProvider, ZookeeperProvider, Short(FileSystemProvider))
}

// Short is the provider's simple class name, for messages.
func Short(class string) string { return class[strings.LastIndex(class, ".")+1:] }

// New makes the provider o names for the table rooted at st (tablePath is its path for
// the in-process lock's key).
func New(o Options, st storage.Storage) (Provider, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	switch o.Provider {
	case FileSystemProvider:
		return newFileSystem(o, st)
	case InProcessProvider:
		return newInProcess(st.Root()), nil
	case ZookeeperProvider:
		return newZookeeper(o)
	}
	return nil, fmt.Errorf("lock provider %s: not supported", o.Provider)
}

// Manager takes a table's lock for one operation: Lock acquires it with Java's retries
// (LockManager.lock: up to client.num_retries more attempts of wait_time_ms each,
// client.wait_time_ms_between_retry apart) and returns its release. While held, Lock
// again (the same operation's nested steps: a write's inline table services) only counts
// up; the lock is released when the outermost holder releases it.
type Manager struct {
	o        Options
	provider Provider
	mu       sync.Mutex
	depth    int
}

// NewManager makes a Manager over the provider o names for the table rooted at st.
func NewManager(o Options, st storage.Storage) (*Manager, error) {
	p, err := New(o, st)
	if err != nil {
		return nil, err
	}
	return NewManagerWith(o, p), nil
}

// NewManagerWith makes a Manager over p (tests).
func NewManagerWith(o Options, p Provider) *Manager {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Manager{o: o, provider: p}
}

// SetLogger sets where the manager (and its provider, when it logs) reports waits and
// broken locks; nil keeps the default.
func (m *Manager) SetLogger(l *slog.Logger) {
	if l == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.o.Logger = l
	if f, ok := m.provider.(*fileSystem); ok {
		f.logger = l
	}
}

// Provider is the manager's provider.
func (m *Manager) Provider() Provider { return m.provider }

// Held reports whether this manager holds the lock.
func (m *Manager) Held() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.depth > 0
}

// Lock acquires the lock (or enters it again) and returns the function that releases it.
// what names the operation for messages.
func (m *Manager) Lock(ctx context.Context, what string) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.depth > 0 {
		m.depth++
		return m.releaser(), nil
	}
	start := time.Now()
	waited := false
	for attempt := 0; attempt <= m.o.ClientNumRetries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%s: waiting for the table lock %s: %w", what, m.provider.Name(), ctx.Err())
			case <-time.After(m.o.ClientRetryWait):
			}
		}
		ok, err := m.provider.TryLock(ctx, m.o.WaitTimeout)
		if err != nil {
			if ctx.Err() != nil || attempt == m.o.ClientNumRetries || notTransient(err) {
				return nil, fmt.Errorf("%s: acquire the table lock %s (%s): %w", what, m.provider.Name(), Short(m.o.Provider), err)
			}
			m.o.Logger.Warn("acquiring the table lock failed; retrying", "lock", m.provider.Name(), "err", err)
			continue
		}
		if ok {
			if waited {
				m.o.Logger.Info("acquired the table lock", "lock", m.provider.Name(), "waited", time.Since(start).Round(time.Millisecond))
			}
			m.depth = 1
			return m.releaser(), nil
		}
		if !waited {
			waited = true
			m.o.Logger.Info("waiting for the table lock", "lock", m.provider.Name(), "holder", m.provider.Holder(ctx), "operation", what)
		}
	}
	holder := m.provider.Holder(ctx)
	if holder != "" {
		holder = "; it is held by " + holder
	}
	return nil, fmt.Errorf("%s: %w %s (%s) within %s (%d attempts of %s=%d, %s=%d apart)%s; nothing was written",
		what, ErrNotAcquired, m.provider.Name(), Short(m.o.Provider), time.Since(start).Round(time.Millisecond),
		m.o.ClientNumRetries+1, config.LockAcquireWaitTimeoutMs.Name, m.o.WaitTimeout.Milliseconds(),
		config.LockAcquireClientRetryWaitMs.Name, m.o.ClientRetryWait.Milliseconds(), holder)
}

// notTransient reports whether a lock store error is one that waiting will not cure on its
// own: a full disk or quota, a read-only file system, a permission refused. Java's
// LockManager retries every HoodieLockException hoodie.write.lock.client.num_retries times
// (50 × 5 s by default), which on a full disk holds the writer for four minutes before it
// reports what an operator must fix; we fail at once with the store's error. A choice Java
// does not make: docs/concurrency.md.
func notTransient(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

func (m *Manager) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.depth--
			if m.depth > 0 {
				return
			}
			// A release that fails leaves a lock that expires (or whose holder is seen to
			// be gone); the operation's own outcome stands.
			if err := m.provider.Unlock(context.Background()); err != nil {
				m.o.Logger.Warn("releasing the table lock failed", "lock", m.provider.Name(), "err", err)
			}
		})
	}
}

// Close releases the lock if held and closes the provider.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.depth = 0
	return m.provider.Close()
}
