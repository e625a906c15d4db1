//go:build linux

package crashtest

// TestFullDiskSweep runs each kind of operation on a table that lives on a small tmpfs
// filled to leave N bytes free, for every N in page steps from 0 up to what the operation
// needs, so the disk fills inside every file the operation writes: heartbeats, markers,
// timeline files (requested, inflight, completed), plans, partition metadata, base files,
// log files, hoodie.properties. After each run:
//
//  1. a failed run says so with "no space left on device" and the file's path;
//  2. the table reads: the committed rows of before the run, or of after it when the run
//     committed (a failure after the commit, in a post-commit step, is counted apart);
//  3. once the disk is freed, the next operation succeeds and its rows are there.
//
// Java has no test of this; the rule it pins (a failed write publishes no file) is the
// atomic-create contract of our storage layer (storage.Storage.Create). The test mounts a
// tmpfs, so it needs root (CAP_SYS_ADMIN): elsewhere it skips and says why.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size bytes at a new directory, unmounted in t.Cleanup.
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	mnt := filepath.Join(dir, "disk")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root / CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var s syscall.Statfs_t
	if err := syscall.Statfs(dir, &s); err != nil {
		t.Fatal(err)
	}
	return int64(s.Bavail) * s.Bsize
}

// fillTo writes a filler file so that at most leave bytes stay free on dir's file system.
func fillTo(t *testing.T, dir string, leave int64) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := freeBytes(t, dir) - leave
	if n > 0 {
		if err := syscall.Fallocate(int(f.Fd()), 0, 0, n); err != nil {
			t.Fatalf("fill %s with %d bytes: %v", dir, n, err)
		}
	}
	return p
}

// copyTree copies a table directory (regular files and directories).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
}

// userRows reads a snapshot as sorted JSON lines of the user columns and record key
// (commit times and file names differ between runs of the same operation).
func userRows(table string) ([]string, error) {
	got, err := readTable(table)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range got {
		for _, k := range []string{"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_file_name"} {
			delete(r, k)
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out, nil
}

type diskOp struct {
	name string
	typ  string // cow or mor
	// setup builds the table (on ordinary disk) the operation starts from; nil: no table.
	setup func(t *testing.T, dir, table string)
	// run is the operation under test.
	run func(dir, table string) (string, error)
	// next is the operation that must succeed once the disk is freed.
	next func(dir, table string) (string, error)
}

// fdRows makes n rows with keys prefix-0..n-1 spread over the cities.
func fdRows(prefix string, n int, rider string) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = row{TS: int64(i + 1), UUID: fmt.Sprintf("%s-%04d", prefix, i), Rider: rider,
			Fare: float64(i) + 0.5, City: cities[i%len(cities)]}
	}
	return out
}

func fdWrite(dir, table, op string, rows []row, settings ...string) (string, error) {
	in := filepath.Join(dir, fmt.Sprintf("input-%s-%d.jsonl", op, len(rows)))
	if err := writeInput(in, writeOp{op: op, rows: rows}); err != nil {
		return "", err
	}
	args := []string{"write", table, "--op", op, "--input", in, "--set", "hoodie.index.bloom.num_entries=1000"}
	for _, s := range settings {
		args = append(args, "--set", s)
	}
	return hudi(args...)
}

func fdCreate(table, typ string) (string, error) {
	return hudi("create", table, "--type", typ, "--partition-by", "city", "--hive-style", "--precombine", "ts",
		"--record-key", "uuid", "--schema", tableSchema)
}

func TestFullDiskSweep(t *testing.T) {
	const diskSize = 32 << 20
	mnt := mountTmpfs(t, diskSize)
	must := func(t *testing.T) func(string, error) {
		return func(out string, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		}
	}
	base := func(typ string, writes int) func(t *testing.T, dir, table string) {
		return func(t *testing.T, dir, table string) {
			must(t)(fdCreate(table, typ))
			must(t)(fdWrite(dir, table, "insert", fdRows("a", 200, "first")))
			for i := 1; i < writes; i++ {
				must(t)(fdWrite(dir, table, "upsert", fdRows("a", 60*i, fmt.Sprintf("upd%d", i))))
			}
		}
	}
	upsert := func(dir, table string) (string, error) {
		return fdWrite(dir, table, "upsert", append(fdRows("a", 80, "sweep"), fdRows("b", 40, "sweep")...))
	}
	nextWrite := func(dir, table string) (string, error) {
		return fdWrite(dir, table, "upsert", fdRows("n", 8, "next"))
	}
	ops := []diskOp{
		{name: "create", typ: "cow", run: func(dir, table string) (string, error) { return fdCreate(table, "cow") },
			next: func(dir, table string) (string, error) {
				if out, err := fdCreate(table, "cow"); err != nil && !strings.Contains(err.Error(), "exists") {
					return out, err
				}
				return nextWrite(dir, table)
			}},
		{name: "cow_upsert", typ: "cow", setup: base("cow", 2), run: upsert, next: nextWrite},
		{name: "cow_insert_overwrite", typ: "cow", setup: base("cow", 1), run: func(dir, table string) (string, error) {
			return fdWrite(dir, table, "insert_overwrite", fdRows("o", 30, "overwrite"))
		}, next: nextWrite},
		{name: "mor_upsert_logs", typ: "mor", setup: base("mor", 2), run: upsert, next: nextWrite},
		{name: "mor_compaction", typ: "mor", setup: base("mor", 3), run: func(dir, table string) (string, error) {
			return hudi("compact", table, "--set", "hoodie.index.bloom.num_entries=1000")
		}, next: func(dir, table string) (string, error) {
			if out, err := nextWrite(dir, table); err != nil {
				return out, err
			}
			return hudi("compact", table, "--run", "--set", "hoodie.index.bloom.num_entries=1000")
		}},
		{name: "cow_clean", typ: "cow", setup: base("cow", 4), run: func(dir, table string) (string, error) {
			return hudi("clean", table, "--set", "hoodie.cleaner.commits.retained=1")
		}, next: func(dir, table string) (string, error) {
			if out, err := hudi("clean", table, "--set", "hoodie.cleaner.commits.retained=1"); err != nil {
				return out, err
			}
			return nextWrite(dir, table)
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			work := t.TempDir()
			pristine := filepath.Join(work, "pristine")
			if op.setup != nil {
				op.setup(t, work, pristine)
			}
			var before []string
			if op.setup != nil {
				var err error
				if before, err = userRows(pristine); err != nil {
					t.Fatal(err)
				}
			}
			// The operation's footprint with room to spare bounds the sweep.
			reset := func() string {
				entries, _ := os.ReadDir(mnt)
				for _, e := range entries {
					if err := os.RemoveAll(filepath.Join(mnt, e.Name())); err != nil {
						t.Fatal(err)
					}
				}
				table := filepath.Join(mnt, "trips")
				if op.setup != nil {
					copyTree(t, pristine, table)
				}
				return table
			}
			table := reset()
			free0 := freeBytes(t, mnt)
			must(t)(op.run(work, table))
			after, err := userRows(table)
			if err != nil {
				t.Fatal(err)
			}
			need := free0 - freeBytes(t, mnt)
			leaves := sweepPoints(need, os.Getenv("HUDI_SOAK") == "1")
			var failed, committedThenFailed, succeeded int
			for _, leave := range leaves {
				table := reset()
				filler := fillTo(t, mnt, leave)
				out, runErr := op.run(work, table)
				got, readErr := userRows(table)
				if op.setup == nil && runErr != nil && readErr != nil {
					got, readErr = nil, nil // the table was never created: nothing to read
				}
				if readErr != nil {
					t.Fatalf("%d bytes free: %s left a table that does not read: %v\nrun error: %v", leave, op.name, readErr, runErr)
				}
				switch {
				case runErr == nil:
					succeeded++
					if !slices.Equal(got, after) {
						t.Fatalf("%d bytes free: %s succeeded, but the table holds %d rows, want %d", leave, op.name, len(got), len(after))
					}
				default:
					msg := runErr.Error()
					if !strings.Contains(msg, "no space left on device") || !strings.Contains(msg, mnt) {
						t.Fatalf("%d bytes free: %s failed without naming the full disk and the file: %v", leave, op.name, runErr)
					}
					switch {
					case slices.Equal(got, before):
						failed++
					case slices.Equal(got, after):
						committedThenFailed++
					default:
						t.Fatalf("%d bytes free: failed %s left %d rows, want the %d of before (or the %d of after)\n%v",
							leave, op.name, len(got), len(before), len(after), runErr)
					}
				}
				_ = out
				if err := os.Remove(filler); err != nil {
					t.Fatal(err)
				}
				if out, err := op.next(work, table); err != nil {
					t.Fatalf("%d bytes free: with the disk freed, the next operation after %s (err %v) fails: %v\n%s", leave, op.name, runErr, err, out)
				}
				final, err := userRows(table)
				if err != nil {
					t.Fatalf("%d bytes free: after the next operation the table does not read: %v", leave, err)
				}
				if !containsAll(final, got) && op.name != "cow_insert_overwrite" {
					t.Fatalf("%d bytes free: the next operation after %s lost rows", leave, op.name)
				}
				if leftovers := tmpFiles(table); len(leftovers) > 0 && runErr == nil {
					t.Errorf("%d bytes free: a successful %s left temporary files: %v", leave, op.name, leftovers)
				}
			}
			t.Logf("FULLDISK %s: need=%d bytes, points=%d failed_cleanly=%d failed_after_commit=%d succeeded=%d",
				op.name, need, len(leaves), failed, committedThenFailed, succeeded)
			if failed == 0 {
				t.Errorf("%s never failed: the sweep missed the full disk", op.name)
			}
		})
	}
}

// sweepPoints are the free-space amounts to run an operation with that needs need bytes
// (its net growth of the disk; an operation that frees space, a clean, counts as 0). The
// soak form tries every page up to need; the CI form the first pages (heartbeat,
// requested and inflight files, markers, the first data file), the last five pages (the
// last data file's end, the completed file) and the middle page: ten runs per operation,
// as the CI time allows.
func sweepPoints(need int64, soak bool) []int64 {
	const page = 4096
	pages := max(need, 0)/page + 2
	var out []int64
	for p := int64(0); p <= pages; p++ {
		if soak || p < 4 || p >= pages-5 || p == pages/2 {
			out = append(out, p*page)
		}
	}
	return out
}

// containsAll reports whether every row of want (user columns; an updated row differs)
// keeps its key in got.
func containsAll(got, want []string) bool {
	keys := func(rows []string) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			var x map[string]any
			if err := json.NewDecoder(bytes.NewReader([]byte(r))).Decode(&x); err == nil {
				m[fmt.Sprint(x["uuid"])] = true
			}
		}
		return m
	}
	g := keys(got)
	for k := range keys(want) {
		if !g[k] {
			return false
		}
	}
	return true
}

// tmpFiles lists the temporary files of atomic creates under table.
func tmpFiles(table string) []string {
	var out []string
	_ = filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}
