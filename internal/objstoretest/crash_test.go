//go:build unix

package objstoretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/storage"
)

type tlEntry struct{ Instant, Action, State string }

func timelineEntries(t *testing.T, env []string, table string) []tlEntry {
	t.Helper()
	var entries []tlEntry
	if err := json.Unmarshal([]byte(run(t, env, "timeline", table, "--format", "json")), &entries); err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestCrashDuringWritesOnS3 kills `hudi write` (SIGKILL) at random points of upserts
// into a table on S3, copy-on-write and merge-on-read, and after every kill checks: the
// table reads exactly the rows of the writes that completed (a killed write counts if its
// instant completed before the kill); the next write succeeds and rolls the killed instant
// back (no instant stays pending, no object of the killed instant stays). At the end the
// table, downloaded, reads the same on local disk. The CI form is short and seeded
// (HUDI_CRASH_SEED, default 1; HUDI_CRASH_KILLS kills per table type, default 2, more until
// one kill left its instant pending; the two table types run at once). internal/crashtest
// kills far more on local disk; what S3 adds is the store's own publishing and rollback of
// the killed instant's objects, which a few kills per type reach.
func TestCrashDuringWritesOnS3(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	env := []string{confDir(t, settings)}
	seed := uint64(1)
	if v, err := strconv.ParseUint(os.Getenv("HUDI_CRASH_SEED"), 10, 64); err == nil {
		seed = v
	}
	kills := 2
	if v, err := strconv.Atoi(os.Getenv("HUDI_CRASH_KILLS")); err == nil && v > 0 {
		kills = v
	}
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel() // the kills wait on processes and the server, not the CPU
			rng := rand.New(rand.NewPCG(seed, 0x73336372617368))
			url := fmt.Sprintf("s3a://%s/crash/%s", bucket, typ)
			run(t, env, "create", url, "--name", "crash", "--type", typ, "--record-key", "id", "--precombine", "ts",
				"--partition-by", "city", "--schema", "id STRING, ts BIGINT, city STRING, v STRING")
			model := map[string]string{}
			batch := 0
			// nextBatch upserts 30 of 60 keys in 3 partitions with this batch's value.
			nextBatch := func() (string, map[string]string) {
				batch++
				rows := map[string]string{}
				var lines []string
				for _, i := range rng.Perm(60)[:30] {
					k := fmt.Sprintf("k%02d", i)
					rows[k] = fmt.Sprintf("b%d", batch)
					lines = append(lines, fmt.Sprintf(`{"id":"%s","ts":%d,"city":"c%d","v":"b%d"}`, k, batch, i%3, batch))
				}
				return writeInput(t, lines...), rows
			}
			apply := func(rows map[string]string) {
				for k, v := range rows {
					model[k] = v
				}
			}
			check := func(when string) {
				t.Helper()
				got := map[string]string{}
				for _, l := range rows(t, env, url) {
					var r struct{ ID, V string }
					if err := json.Unmarshal([]byte(l), &r); err != nil {
						t.Fatal(err)
					}
					got[r.ID] = r.V
				}
				if fmt.Sprint(got) != fmt.Sprint(model) {
					t.Fatalf("%s: the table reads\n%v\nthe committed writes hold\n%v", when, got, model)
				}
			}
			// Calibration: complete writes give the time a write takes.
			var est time.Duration
			for range 2 {
				in, rows := nextBatch()
				start := time.Now()
				run(t, env, "write", url, "--op", "upsert", "--input", in)
				est = max(est, time.Since(start))
				apply(rows)
			}
			killed, committedAnyway, pending := 0, 0, 0
			// Until the kills are done and one of them left its instant pending (the state a
			// rollback is for), at most three times the kills.
			for (killed < kills || pending == 0) && killed < 3*kills {
				before := map[string]bool{}
				for _, e := range timelineEntries(t, env, url) {
					before[e.Instant] = true
				}
				in, rows := nextBatch()
				// Most of a write's first half is the process starting and reading the
				// timeline: the kills aim at the rest, where its instant is pending.
				delay := time.Duration((0.4 + rng.Float64()*0.7) * float64(est))
				cmd := exec.Command(hudiBin, "write", url, "--op", "upsert", "--input", in)
				cmd.Env = append(os.Environ(), env...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				began := time.Now()
				timer := time.AfterFunc(delay, func() { _ = cmd.Process.Kill() })
				err := cmd.Wait()
				took := time.Since(began)
				timer.Stop()
				ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				wasKilled := ws.Signaled() && ws.Signal() == syscall.SIGKILL
				if !wasKilled && err != nil {
					t.Fatalf("write failed without a kill: %v\n%s", err, stderr.String())
				}
				// The write's own instant: the one the timeline did not have before.
				var mine *tlEntry
				for _, e := range timelineEntries(t, env, url) {
					if !before[e.Instant] && (e.Action == "commit" || e.Action == "deltacommit") {
						e := e
						mine = &e
					}
				}
				if mine != nil && mine.State == "completed" {
					apply(rows) // it committed before the kill (or finished)
					if wasKilled {
						committedAnyway++
					}
				}
				if !wasKilled {
					// It finished before the kill: aim the next ones by this write's time
					// (the calibration's slower write made many MOR writes finish first).
					est = took
					continue
				}
				killed++
				if mine != nil && mine.State != "completed" {
					pending++
				}
				check(fmt.Sprintf("after kill %d (%v into the write, instant %+v)", killed, delay, mine))
				// The next write rolls the killed one back and succeeds.
				in2, rows2 := nextBatch()
				run(t, env, "write", url, "--op", "upsert", "--input", in2)
				apply(rows2)
				check(fmt.Sprintf("after the write following kill %d", killed))
				for _, e := range timelineEntries(t, env, url) {
					if e.State != "completed" {
						t.Fatalf("after kill %d and a write: %s %s is still %s", killed, e.Instant, e.Action, e.State)
					}
				}
				if mine != nil && mine.State != "completed" {
					if files := objectsOf(t, settings, url, mine.Instant); len(files) > 0 {
						t.Fatalf("kill %d: the rolled-back instant %s left %v", killed, mine.Instant, files)
					}
				}
			}
			t.Logf("%s: %d kills (%d left the instant pending, %d came after it completed, the rest before it was requested), %d batches, seed %d",
				typ, killed, pending, committedAnyway, batch, seed)
			// Downloaded, the table reads the same on local disk.
			st, err := storage.OpenURL(t.Context(), url, settings)
			if err != nil {
				t.Fatal(err)
			}
			local := filepath.Join(t.TempDir(), "copy")
			download(t, st, local)
			if l, s := rows(t, nil, local), rows(t, env, url); strings.Join(l, "\n") != strings.Join(s, "\n") {
				t.Fatalf("downloaded copy reads\n%s\nS3 reads\n%s", strings.Join(l, "\n"), strings.Join(s, "\n"))
			}
		})
	}
}

// objectsOf lists the data files (outside .hoodie) of the table whose names carry instant.
func objectsOf(t *testing.T, settings map[string]string, url, instant string) []string {
	t.Helper()
	st, err := storage.OpenURL(t.Context(), url, settings)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := st.List(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := storage.Join(dir, e.Name)
			switch {
			case e.IsDir && p != ".hoodie":
				walk(p)
			case !e.IsDir && strings.Contains(e.Name, instant):
				out = append(out, p)
			}
		}
	}
	walk("")
	sort.Strings(out)
	return out
}
