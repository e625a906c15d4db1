package lock

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkTestAddress is the ZooKeeper .ci/run starts (HUDI_TEST_ZK=host:port). Without it the
// test skips locally and fails in CI.
func zkTestAddress(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("HUDI_TEST_ZK")
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HUDI_TEST_ZK is not set in CI: .ci/run must start ZooKeeper and export its address")
		}
		t.Skip("HUDI_TEST_ZK is not set: run scripts/zookeeper DIR PORT and export HUDI_TEST_ZK=127.0.0.1:PORT to run this test")
	}
	return addr
}

func zkOptions(addr, base string) Options {
	return Options{Provider: ZookeeperProvider, WaitTimeout: 200 * time.Millisecond, TableName: "trips",
		ZK: ZKOptions{URL: addr, BasePath: base, SessionTimeout: 4 * time.Second, ConnectionTimeout: 5 * time.Second}}
}

// TestZookeeperLock pins ZookeeperBasedLockProvider on a real ZooKeeper: mutual exclusion
// on <base_path>/<lock_key> (the key defaulting to the table name), lock nodes in
// Curator's InterProcessMutex layout, and release on Unlock and when the holder's session
// ends.
func TestZookeeperLock(t *testing.T) {
	addr := zkTestAddress(t)
	ctx := context.Background()
	base := fmt.Sprintf("/hudi-go-test/%d-%d", os.Getpid(), time.Now().UnixNano())
	a, err := New(zkOptions(addr, base), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(zkOptions(addr, base), nil)
	defer a.Close()
	defer b.Close()
	if ok, err := a.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	// The node is where Curator's InterProcessMutex puts it.
	conn, _, err := zk.Connect([]string{addr}, 4*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	children, _, err := conn.Children(base + "/trips")
	if err != nil || len(children) != 1 || !strings.HasPrefix(children[0], "_c_") || !strings.Contains(children[0], "-lock-") {
		t.Fatalf("lock nodes under %s/trips = %v, %v; want one _c_<id>-lock-<seq>", base, children, err)
	}
	if ok, err := b.TryLock(ctx, 300*time.Millisecond); ok || err != nil {
		t.Fatalf("second TryLock while held = %v, %v", ok, err)
	}
	if h := b.Holder(ctx); !strings.Contains(h, fmt.Sprint(os.Getpid())) {
		t.Errorf("Holder = %q", h)
	}
	// The waiter's node is gone after it gave up.
	if children, _, _ := conn.Children(base + "/trips"); len(children) != 1 {
		t.Errorf("a waiter that gave up left its node: %v", children)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock after Unlock = %v, %v", ok, err)
	}
	// Closing the holder's session releases the lock (ephemeral node).
	_ = b.Close()
	if ok, err := a.TryLock(ctx, 2*time.Second); !ok || err != nil {
		t.Fatalf("TryLock after the holder closed = %v, %v", ok, err)
	}
	_ = a.Unlock(ctx)

	// A Curator-style node (UUID with dashes, as Java's InterProcessMutex names it) that
	// holds the lowest sequence holds the lock for us too.
	node, err := conn.Create(base+"/trips/_c_2f1c6f0e-8d7a-4b9b-9a51-0c3c1f6c2b11-lock-", []byte("10.0.0.1"),
		zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.TryLock(ctx, 300*time.Millisecond); ok {
		t.Fatal("TryLock succeeded while a Curator-style node held the lock")
	}
	_ = conn.Delete(node, -1)
	if ok, err := a.TryLock(ctx, time.Second); !ok || err != nil {
		t.Fatalf("TryLock after the Curator node went = %v, %v", ok, err)
	}
}

// TestZookeeperConnectTimeout pins hoodie.write.lock.zookeeper.connection_timeout_ms: a
// server that does not answer fails TryLock with an error naming the setting.
func TestZookeeperConnectTimeout(t *testing.T) {
	o := zkOptions("127.0.0.1:1", "/x")
	o.ZK.ConnectionTimeout = 300 * time.Millisecond
	p, _ := New(o, nil)
	defer p.Close()
	_, err := p.TryLock(context.Background(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "connection_timeout_ms") {
		t.Fatalf("TryLock against no server: %v", err)
	}
}
