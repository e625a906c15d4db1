//go:build unix

package crashtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillLockHolder SIGKILLs a writer while it holds the table lock (single-writer mode
// holds it for the whole write) and checks that the next writer gets the lock and
// commits, rolling the killed write back, and that the table holds every committed row
// and none of the killed write's: with the file-system lock (the dead holder's lock file
// is broken at once, its process being gone) and with ZooKeeper (the lock node goes with
// the killed process's session).
func TestKillLockHolder(t *testing.T) {
	for _, provider := range []string{"fs", "zk"} {
		t.Run(provider, func(t *testing.T) {
			var sets []string
			switch provider {
			case "zk":
				addr := os.Getenv("HUDI_TEST_ZK")
				if addr == "" {
					if os.Getenv("CI") != "" {
						t.Fatal("HUDI_TEST_ZK is not set in CI: .ci/run must start ZooKeeper")
					}
					t.Skip("HUDI_TEST_ZK is not set (see .ci/run)")
				}
				host, port, _ := strings.Cut(addr, ":")
				sets = []string{"hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
					"hoodie.write.lock.zookeeper.url=" + host, "hoodie.write.lock.zookeeper.port=" + port,
					fmt.Sprintf("hoodie.write.lock.zookeeper.base_path=/hudi-go-crash/%d-%d", os.Getpid(), time.Now().UnixNano()),
					"hoodie.write.lock.zookeeper.session_timeout_ms=3000"}
			}
			dir := t.TempDir()
			table := filepath.Join(dir, "t")
			if _, err := hudi("create", table, "--name", "t", "--type", "cow", "--record-key", "uuid", "--precombine", "ts",
				"--partition-by", "city", "--schema", tableSchema); err != nil {
				t.Fatal(err)
			}
			mk := func(name, rider string, n int) string {
				var b strings.Builder
				for i := range n {
					fmt.Fprintf(&b, `{"ts":%d,"uuid":"u%07d","rider":%q,"fare":1.5,"city":"%s"}`+"\n", len(rider), i, rider, cities[i%len(cities)])
				}
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			args := func(op, in string) []string {
				a := []string{"write", table, "--op", op, "--input", in, "--format", "json"}
				for _, s := range sets {
					a = append(a, "--set", s)
				}
				return a
			}
			if _, err := hudi(args("bulk_insert", mk("base.jsonl", "base", 2000))...); err != nil {
				t.Fatal(err)
			}
			// A big upsert: it holds the lock long enough to be killed while holding it.
			big := mk("big.jsonl", "killed-upsert", 200000)
			killed := 0
			for attempt := 0; attempt < 5 && killed == 0; attempt++ {
				cmd := exec.Command(hudiBin, args("upsert", big)...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				held := false
				deadline := time.Now().Add(20 * time.Second)
				for time.Now().Before(deadline) {
					// A pending instant of a single-writer write exists only while its
					// writer holds the lock (from before planning to the commit); with the
					// file-system lock its file is there too.
					if pending(t, table) {
						_, err := os.Stat(filepath.Join(table, ".hoodie", "lock"))
						held = provider != "fs" || err == nil
					}
					if held {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
				_ = cmd.Process.Kill()
				err := cmd.Wait()
				if held && err != nil {
					killed++
				}
			}
			if killed == 0 {
				t.Fatal("never killed the writer while it held the lock")
			}
			start := time.Now()
			out, err := hudi(args("upsert", mk("next.jsonl", "next", 1000))...)
			if err != nil {
				t.Fatalf("the writer after a killed lock holder failed: %v", err)
			}
			t.Logf("%s: the next writer committed %.1fs after the kill: %s", provider, time.Since(start).Seconds(), strings.TrimSpace(out))
			if !strings.Contains(out, `"rolled_back"`) {
				t.Errorf("the next writer did not roll the killed write back: %s", out)
			}
			got, err := readTable(table)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2000 {
				t.Errorf("%d rows, want 2000", len(got))
			}
			for k, r := range got {
				want := "base"
				if k < "u0001000" {
					want = "next"
				}
				if r["rider"] != want {
					t.Fatalf("row %s has rider %v, want %s", k, r["rider"], want)
				}
			}
		})
	}
}

// pending reports whether the table has a pending commit instant.
func pending(t *testing.T, table string) bool {
	entries, _ := os.ReadDir(filepath.Join(table, ".hoodie"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".commit.requested") {
			done := strings.TrimSuffix(e.Name(), ".requested")
			if _, err := os.Stat(filepath.Join(table, ".hoodie", done)); os.IsNotExist(err) {
				return true
			}
		}
	}
	return false
}
