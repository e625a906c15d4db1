package lock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/hudi-go/hudi/config"
)

// zkLockName is the lock node name Curator's InterProcessMutex uses; its nodes are
// "<lock path>/_c_<uuid>-lock-<10-digit sequence>" (protected ephemeral-sequential), and
// the lowest sequence holds the lock. go-zookeeper's CreateProtectedEphemeralSequential
// makes "_c_<32 hex>-lock-<sequence>"; Curator orders nodes by what follows "lock-", so a
// Java writer using ZookeeperBasedLockProvider and hudi-go queue on the same lock.
const zkLockName = "lock-"

func (o ZKOptions) validate(tableName string) error {
	// ZookeeperBasedLockProvider.checkRequiredProps: url, base_path, lock_key (inferred
	// from the table name) and the two timeouts (which have defaults).
	switch {
	case o.URL == "":
		return fmt.Errorf("%s is required by ZookeeperBasedLockProvider (the lock provider, by %s or its default)", config.ZookeeperLockURL.Name, config.LockProviderClass.Name)
	case o.BasePath == "":
		return fmt.Errorf("%s is required by ZookeeperBasedLockProvider", config.ZookeeperLockBasePath.Name)
	case !strings.HasPrefix(o.BasePath, "/"):
		return fmt.Errorf("%s=%q: a ZooKeeper path starts with /", config.ZookeeperLockBasePath.Name, o.BasePath)
	case o.LockKey == "" && tableName == "":
		return fmt.Errorf("%s is required by ZookeeperBasedLockProvider (the table has no name to default to)", config.ZookeeperLockKey.Name)
	case strings.Contains(o.LockKey, "/"):
		return fmt.Errorf("%s=%q: want a znode name without /", config.ZookeeperLockKey.Name, o.LockKey)
	case o.SessionTimeout <= 0:
		return fmt.Errorf("%s=%d: want a positive number of milliseconds", config.ZookeeperLockSessionTimeoutMs.Name, o.SessionTimeout.Milliseconds())
	case o.ConnectionTimeout <= 0:
		return fmt.Errorf("%s=%d: want a positive number of milliseconds", config.ZookeeperLockConnectionTimeoutMs.Name, o.ConnectionTimeout.Milliseconds())
	}
	if _, err := o.servers(); err != nil {
		return err
	}
	return nil
}

// servers is the url's host:port list; a host without a port gets
// hoodie.write.lock.zookeeper.port (2181, ZooKeeper's own default, when that is unset).
func (o ZKOptions) servers() ([]string, error) {
	var out []string
	for _, s := range strings.Split(o.URL, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(s); err != nil {
			port := o.Port
			if port == 0 {
				port = 2181
			}
			if port < 0 || port > 65535 {
				return nil, fmt.Errorf("%s=%d: not a port", config.ZookeeperLockPort.Name, port)
			}
			s = net.JoinHostPort(s, strconv.Itoa(port))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s=%q names no server", config.ZookeeperLockURL.Name, o.URL)
	}
	return out, nil
}

// zookeeper is Java's ZookeeperBasedLockProvider: Curator's InterProcessMutex recipe on
// <base_path>/<lock_key>. Lock nodes are ephemeral, so the lock of a holder that dies is
// released when its ZooKeeper session expires (hoodie.write.lock.zookeeper.session_timeout_ms).
type zookeeper struct {
	o      ZKOptions
	path   string
	mu     sync.Mutex
	conn   *zk.Conn
	events <-chan zk.Event
	node   string // our lock node while held
}

func newZookeeper(o Options) (*zookeeper, error) {
	key := o.ZK.LockKey
	if key == "" {
		key = o.TableName
	}
	return &zookeeper{o: o.ZK, path: strings.TrimSuffix(o.ZK.BasePath, "/") + "/" + key}, nil
}

func (z *zookeeper) Name() string { return "znode " + z.path + " on " + z.o.URL }

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// connect opens the session, waiting up to the connection timeout for it.
func (z *zookeeper) connect(ctx context.Context) error {
	if z.conn != nil {
		if z.conn.State() == zk.StateHasSession {
			return nil
		}
		if z.node == "" { // nothing of ours lives in the old session: start afresh
			z.conn.Close()
			z.conn = nil
		}
	}
	if z.conn == nil {
		servers, err := z.o.servers()
		if err != nil {
			return err
		}
		conn, events, err := zk.Connect(servers, z.o.SessionTimeout, zk.WithLogger(quietLogger{}))
		if err != nil {
			return fmt.Errorf("connect to ZooKeeper %s: %w", z.o.URL, err)
		}
		z.conn, z.events = conn, events
	}
	t := time.NewTimer(z.o.ConnectionTimeout)
	defer t.Stop()
	for z.conn.State() != zk.StateHasSession {
		select {
		case <-z.events:
		case <-t.C:
			z.conn.Close()
			z.conn = nil
			return fmt.Errorf("connect to ZooKeeper %s: no session within %s (%s)", z.o.URL, z.o.ConnectionTimeout, config.ZookeeperLockConnectionTimeoutMs.Name)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (z *zookeeper) TryLock(ctx context.Context, wait time.Duration) (bool, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.node != "" {
		return false, fmt.Errorf("lock %s is already held by this provider", z.path)
	}
	deadline := time.Now().Add(wait)
	if err := z.connect(ctx); err != nil {
		return false, err
	}
	node, err := z.create()
	if err != nil {
		return false, err
	}
	seq, _ := lockSeq(node)
	for {
		children, _, err := z.conn.Children(z.path)
		if err != nil {
			z.drop(node)
			return false, fmt.Errorf("list lock %s: %w", z.path, err)
		}
		sort.Slice(children, func(i, j int) bool {
			a, _ := lockSeq(children[i])
			b, _ := lockSeq(children[j])
			return a < b
		})
		prev := ""
		for _, c := range children {
			if s, ok := lockSeq(c); ok && s < seq {
				prev = c
			}
		}
		if prev == "" {
			z.node = node
			return true, nil
		}
		exists, _, ch, err := z.conn.ExistsW(z.path + "/" + prev)
		if err != nil {
			z.drop(node)
			return false, fmt.Errorf("watch lock %s: %w", z.path, err)
		}
		if !exists {
			continue
		}
		left := time.Until(deadline)
		if left <= 0 {
			z.drop(node)
			return false, nil
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
			z.drop(node)
			return false, nil
		case <-ctx.Done():
			t.Stop()
			z.drop(node)
			return false, ctx.Err()
		}
	}
}

// create makes our ephemeral-sequential lock node, creating the lock path's parents.
func (z *zookeeper) create() (string, error) {
	data := []byte(fmt.Sprintf("hudi-go pid %d on %s", os.Getpid(), hostname()))
	acl := zk.WorldACL(zk.PermAll)
	for attempt := 0; ; attempt++ {
		node, err := z.conn.CreateProtectedEphemeralSequential(z.path+"/"+zkLockName, data, acl)
		if err == nil {
			return node, nil
		}
		if !errors.Is(err, zk.ErrNoNode) || attempt > 0 {
			return "", fmt.Errorf("create lock node under %s: %w", z.path, err)
		}
		p := ""
		for _, part := range strings.Split(strings.Trim(z.path, "/"), "/") {
			p += "/" + part
			if _, err := z.conn.Create(p, nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return "", fmt.Errorf("create lock path %s: %w", p, err)
			}
		}
	}
}

func (z *zookeeper) drop(node string) { _ = z.conn.Delete(node, -1) }

// lockSeq is the sequence number after "lock-" in a lock node's name.
func lockSeq(name string) (int64, bool) {
	i := strings.LastIndex(name, zkLockName)
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[i+len(zkLockName):], 10, 64)
	return n, err == nil
}

func (z *zookeeper) Holder(ctx context.Context) string {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.conn == nil || z.conn.State() != zk.StateHasSession {
		return ""
	}
	children, _, err := z.conn.Children(z.path)
	if err != nil || len(children) == 0 {
		return ""
	}
	sort.Slice(children, func(i, j int) bool {
		a, _ := lockSeq(children[i])
		b, _ := lockSeq(children[j])
		return a < b
	})
	data, _, err := z.conn.Get(z.path + "/" + children[0])
	if err != nil {
		return ""
	}
	return string(data) // Curator's default node data is the holder's IP address as text
}

func (z *zookeeper) Unlock(ctx context.Context) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.node == "" {
		return nil
	}
	node := z.node
	z.node = ""
	if err := z.conn.Delete(node, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		// The node goes with the session: closing it releases the lock anyway.
		z.conn.Close()
		z.conn = nil
		return fmt.Errorf("release lock %s: %w", node, err)
	}
	return nil
}

func (z *zookeeper) Close() error {
	err := z.Unlock(context.Background())
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.conn != nil {
		z.conn.Close()
		z.conn = nil
	}
	return err
}
