//go:build unix

package concurrencytest

// Writers racing on a table on an object store (issue 19: "the conditional-write storage
// lock works here. Without one, a second writer on an object store must still never cause
// a lost update"): S3 (versitygw), GCS (fake-gcs-server) and Azure Blob (Azurite), the
// servers .ci/run starts (HUDI_TEST_S3, HUDI_TEST_GCS, HUDI_TEST_AZURE); a store whose
// server is not given is skipped, in CI it fails. S3 runs every case; GCS and Azure a
// short form (fewer rows, one trial, the one-file-group case), the long form with
// HUDI_SOAK=1.
//
// The storage lock is FileSystemBasedLockProvider's lock file, .hoodie/lock, which on an
// object store is created with a conditional PUT (If-None-Match: *, ifGenerationMatch=0):
// of two processes creating it at once exactly one succeeds, with no rename and no
// listing involved.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/azuretest"
	"github.com/hudi-go/hudi/internal/objstore/gcstest"
	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/storage"
)

// objectStores are the stores the tests below run on; short: the CI form is short there.
var objectStores = []struct {
	name, env string
	short     bool
}{{"s3", "HUDI_TEST_S3", false}, {"gcs", "HUDI_TEST_GCS", true}, {"azure", "HUDI_TEST_AZURE", true}}

// forEachStore runs f on each object store whose server is given (every one in CI), the
// stores in parallel (their servers' latency, not the CPU, bounds a run), with short set
// where the CI form is short (never with HUDI_SOAK=1). Every hudi process the tests start
// reaches every server: HUDI_CONF_DIR names a hudi-defaults.conf with the S3 and Azure
// settings (each backend takes only its own keys), and STORAGE_EMULATOR_HOST names the GCS
// emulator.
func forEachStore(t *testing.T, f func(t *testing.T, store string, short bool)) {
	soak := os.Getenv("HUDI_SOAK") == "1"
	given := func(env string) bool { return os.Getenv(env) != "" || os.Getenv("CI") != "" }
	all := map[string]string{}
	if given("HUDI_TEST_S3") {
		maps.Copy(all, s3test.Settings(t))
	}
	if given("HUDI_TEST_AZURE") {
		maps.Copy(all, azuretest.KeySettings(azuretest.Addr(t)))
	}
	if given("HUDI_TEST_GCS") {
		t.Setenv("STORAGE_EMULATOR_HOST", gcstest.Addr(t))
	}
	dir := t.TempDir()
	var b strings.Builder
	for k, v := range all {
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	if err := os.WriteFile(filepath.Join(dir, "hudi-defaults.conf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HUDI_CONF_DIR", dir)
	for _, s := range objectStores {
		t.Run(s.name, func(t *testing.T) {
			if !given(s.env) {
				t.Skipf("%s (the %s server) is not set", s.env, s.name)
			}
			t.Parallel()
			f(t, s.name, s.short && !soak)
		})
	}
}

// storeTable returns the URL of a table location in a new bucket (container) of the
// store's test server (reached as forEachStore set up), and the table's storage.
func storeTable(t *testing.T, store, name string) (string, storage.Storage) {
	t.Helper()
	var url string
	var settings map[string]string
	switch store {
	case "s3":
		var bucket string
		bucket, settings = s3test.Bucket(t)
		url = fmt.Sprintf("s3a://%s/%s", bucket, name)
	case "gcs":
		url = fmt.Sprintf("gs://%s/%s", gcstest.NewBucket(t), name)
	case "azure":
		var c string
		c, settings = azuretest.Container(t)
		url = fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/%s", c, azuretest.Account, name)
	default:
		t.Fatalf("unknown store %s", store)
	}
	st, err := storage.OpenURL(context.Background(), url, settings)
	if err != nil {
		t.Fatal(err)
	}
	return url, st
}

// noLockLeft fails t if the storage lock file is still there after every process ended.
func noLockLeft(t *testing.T, st storage.Storage) {
	t.Helper()
	if _, err := st.Stat(context.Background(), ".hoodie/lock"); !errors.Is(err, storage.ErrNotExist) {
		t.Errorf("the lock file .hoodie/lock is still there after every writer ended (stat: %v)", err)
	}
}

// TestOCCOnObjectStoresWithStorageLock: two writers at once on a table on an object store
// under optimistic concurrency control with the storage lock (FileSystemBasedLockProvider).
// In one file group at least one commits, and a loser fails with the conflict error
// leaving none of its updates; in two file groups (partitions) both commit. No
// acknowledged update is lost, and no lock is left behind. Short form (GCS, Azure): the
// copy-on-write one-file-group case with 300 keys a writer.
func TestOCCOnObjectStoresWithStorageLock(t *testing.T) {
	forEachStore(t, func(t *testing.T, store string, short bool) { occOnStore(t, store, short) })
}

func occOnStore(t *testing.T, store string, short bool) {
	n := 1000
	cases := []struct {
		name     string
		typ      string
		disjoint bool
	}{
		{"one_file_group_cow", "cow", false},
		{"one_file_group_mor", "mor", false},
		{"disjoint_cow", "cow", true},
	}
	if short {
		n, cases = 300, cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, st := storeTable(t, store, "occ_"+c.name)
			sets := append(lockSettings(t, "fs"), occ...)
			cities := []string{"sf", "sf"}
			if c.disjoint {
				cities = []string{"sf", "ny"}
			}
			initial := append(keyRange(0, n, cities[0], "init", 1), keyRange(n, 2*n, cities[1], "init", 1)...)
			newTableAt(t, url, c.typ, initial, sets...)
			ws := []*writerRun{
				{rider: "a", rows: keyRange(0, n, cities[0], "a", 2)},
				{rider: "b", rows: keyRange(n, 2*n, cities[1], "b", 2)},
			}
			runWriters(t, url, ws, sets...)
			committed := checkWriters(t, url, ws)
			for _, w := range ws {
				if w.p.err == nil {
					continue
				}
				msg := w.p.stderr.String()
				if c.disjoint || !strings.Contains(msg, "write conflict") || !strings.Contains(msg, "file group sf/") {
					t.Errorf("writer %s failed without the conflict error: %s", w.rider, msg)
				}
			}
			switch {
			case c.disjoint && committed != 2:
				t.Errorf("%d of 2 writers on disjoint file groups committed; want both", committed)
			case committed < 1:
				t.Errorf("no writer committed")
			}
			t.Logf("%s: %d of 2 committed", c.name, committed)
			noLockLeft(t, st)
		})
	}
}

// TestSingleWriterOnObjectStoresLosesNoUpdate is TestSingleWriterModeLosesNoUpdate with
// the table on an object store and no lock provider configured (the default single-writer
// mode, which Java runs without a lock): two upserts at once on one file group, each
// updating its own keys. Both end with every update they acknowledged visible — the
// second waits for the first (hudi-go's single-writer mode holds the storage lock for the
// whole write) — or fail leaving none. Short form (GCS, Azure): one trial, 500 keys a
// writer.
func TestSingleWriterOnObjectStoresLosesNoUpdate(t *testing.T) {
	forEachStore(t, func(t *testing.T, store string, short bool) {
		n, trials := 1500, 2
		if short {
			n, trials = 500, 1
		}
		singleWriterOnStore(t, store, n, trials)
	})
}

func singleWriterOnStore(t *testing.T, store string, n, trials int) {
	for trial := range trials {
		t.Run(fmt.Sprint("trial", trial), func(t *testing.T) {
			url, st := storeTable(t, store, "single")
			newTableAt(t, url, "cow", keyRange(0, 2*n, "sf", "init", 1))
			ws := []*writerRun{
				{rider: "a", rows: keyRange(0, n, "sf", "a", 2)},
				{rider: "b", rows: keyRange(n, 2*n, "sf", "b", 2)},
			}
			runWriters(t, url, ws)
			if c := checkWriters(t, url, ws); c != 2 {
				for _, w := range ws {
					t.Logf("writer %s: err=%v stderr=%s", w.rider, w.p.err, w.p.stderr.String())
				}
				t.Errorf("%d of 2 writers committed; in single-writer mode the second waits for the first's lock", c)
			}
			noLockLeft(t, st)
		})
	}
}
