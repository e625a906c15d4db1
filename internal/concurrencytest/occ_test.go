//go:build unix

package concurrencytest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// lockSettings are the --set flags of one lock provider for table (the ZooKeeper one with
// a base path of its own, so that tests never share a lock).
func lockSettings(t *testing.T, provider string) []string {
	t.Helper()
	common := []string{"hoodie.write.lock.client.wait_time_ms_between_retry=200", "hoodie.write.lock.wait_time_ms=20000"}
	switch provider {
	case "fs":
		return append(common, "hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider")
	case "zk":
		addr := zkAddress(t)
		host, port, _ := strings.Cut(addr, ":")
		return append(common, "hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
			"hoodie.write.lock.zookeeper.url="+host, "hoodie.write.lock.zookeeper.port="+port,
			fmt.Sprintf("hoodie.write.lock.zookeeper.base_path=/hudi-go-test/%d-%d", os.Getpid(), time.Now().UnixNano()),
			"hoodie.write.lock.zookeeper.session_timeout_ms=6000")
	}
	t.Fatalf("unknown provider %s", provider)
	return nil
}

var occ = []string{"hoodie.write.concurrency.mode=optimistic_concurrency_control"}

// TestOCCDisjointFileGroupsAllCommit: four writers under optimistic concurrency control,
// each updating its own file group (a partition each), all commit, with the file-system
// lock and with ZooKeeper.
func TestOCCDisjointFileGroupsAllCommit(t *testing.T) {
	for _, provider := range []string{"fs", "zk"} {
		t.Run(provider, func(t *testing.T) {
			sets := append(lockSettings(t, provider), occ...)
			cities := []string{"sf", "ny", "chennai", "sao_paulo"}
			var initial []inputRow
			for i, c := range cities {
				initial = append(initial, keyRange(i*1000, (i+1)*1000, c, "init", 1)...)
			}
			table := newTable(t, "cow", initial)
			var ws []*writerRun
			for i, c := range cities {
				ws = append(ws, &writerRun{rider: "w" + c, rows: keyRange(i*1000, (i+1)*1000, c, "w"+c, 2)})
			}
			runWriters(t, table, ws, sets...)
			if c := checkWriters(t, table, ws); c != len(ws) {
				for _, w := range ws {
					t.Logf("writer %s: err=%v stderr=%s", w.rider, w.p.err, w.p.stderr.String())
				}
				t.Errorf("%d of %d writers on disjoint file groups committed; want all", c, len(ws))
			}
		})
	}
}

// TestConcurrentWritersOneFileGroup: four writers upsert their own keys of one file group
// at once. Under optimistic concurrency control at least one commits, and every loser
// fails with the conflict error, naming the file group, leaving none of its updates; in
// single-writer mode all four commit one after the other. No acknowledged update is lost
// in either mode, with the file-system lock and with ZooKeeper.
func TestConcurrentWritersOneFileGroup(t *testing.T) {
	for _, mode := range []string{"occ", "single"} {
		for _, typ := range []string{"cow", "mor"} {
			for _, provider := range []string{"fs", "zk"} {
				t.Run(mode+"_"+typ+"_"+provider, func(t *testing.T) {
					sets := lockSettings(t, provider)
					if mode == "occ" {
						sets = append(sets, occ...)
					}
					const n = 800
					table := newTable(t, typ, keyRange(0, 4*n, "sf", "init", 1))
					var ws []*writerRun
					for i := range 4 {
						ws = append(ws, &writerRun{rider: fmt.Sprint("w", i), rows: keyRange(i*n, (i+1)*n, "sf", fmt.Sprint("w", i), 2)})
					}
					runWriters(t, table, ws, sets...)
					c := checkWriters(t, table, ws)
					switch {
					case mode == "single" && c != 4:
						t.Errorf("single-writer mode: %d of 4 writers committed; each waits for the lock, all should", c)
					case c < 1:
						t.Errorf("no writer committed")
					}
					for _, w := range ws {
						if w.p.err == nil {
							continue
						}
						msg := w.p.stderr.String()
						if mode == "single" || !strings.Contains(msg, "write conflict") || !strings.Contains(msg, "file group sf/") {
							t.Errorf("writer %s failed without the conflict error: %s", w.rider, msg)
						}
					}
					t.Logf("%s %s %s: %d of 4 committed", mode, typ, provider, c)
				})
			}
		}
	}
}
