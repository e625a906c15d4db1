package write_test

// The model test with the table on S3 (issue 19: "writes, model tests and the crash test
// on S3: COW and MOR, services included, with the table on S3. Downloaded afterwards, the
// tables pass the same checks as local ones"). The S3 server is the one .ci/run starts
// (versitygw, HUDI_TEST_S3); without it the test skips, in CI it fails.
//
// CI form: one copy-on-write and one merge-on-read configuration, fixed seeds, and a fixed
// script of table services (clean, archive, cluster, savepoint, restore, rollback, and
// compaction on merge-on-read) between the writes, each of which must change the table;
// the metadata table is on (the default for table version 6) and compacts every 2
// deltacommits so that archival is not held back by it. After every step the table read
// through S3 equals the model; at the end it is downloaded and checked again as a local
// table, its metadata table validated against a listing of the files.
//
// scripts/test runs it without -race (see the skip below).
//
// Soak form (HUDI_SOAK=1): four configurations (global and non-global indexes, both table
// types), random seed (HUDI_MODEL_SEED replays one), HUDI_MODEL_STEPS steps (default 30)
// and randomly chosen services.

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/s3/s3test"
)

func TestModelOnS3(t *testing.T) {
	if raceEnabled {
		// ~100 s under -race on a loaded 2-core machine, ~35 s without: scripts/test runs it
		// without the race detector, with the memory tests. The race detector covers the
		// same code through TestModel (local) and the S3 backend through its conformance
		// suite.
		t.Skip("run without -race (scripts/test does)")
	}
	bucket, settings := s3test.Bucket(t)
	soak := os.Getenv("HUDI_SOAK") == "1"
	type run struct {
		c      modelConfig
		script []string // nil: random services (soak)
	}
	// The metadata table compacts every 2 deltacommits: archival keeps every commit at or
	// after its latest compaction (as Java 0.14 does), so with the default 10 nothing
	// would be archived within the CI form's steps.
	mdt := map[string]string{"hoodie.metadata.compact.max.delta.commits": "2"}
	// c.steps bounds a scripted run; it ends with its script.
	runs := []run{
		{modelConfig{index: "SIMPLE", payload: payloadDefault, part: plainPartitioned, maxFile: 24 << 10, steps: 30, seed: 53, settings: mdt},
			[]string{"-", "-", "-", "-", "clean", "archive", "savepoint", "cluster", "restore", "rollback"}},
		{modelConfig{index: "BLOOM", payload: payloadOverwrite, part: hivePartitioned, mor: true, smallOff: true, steps: 30, seed: 5, settings: mdt},
			[]string{"-", "-", "-", "compact", "clean", "archive", "savepoint", "cluster", "restore", "rollback", "compact"}},
	}
	if soak {
		seed := envInt(t, "HUDI_MODEL_SEED", uint64(time.Now().UnixNano()))
		steps := int(envInt(t, "HUDI_MODEL_STEPS", 30))
		t.Logf("HUDI_MODEL_SEED=%d HUDI_MODEL_STEPS=%d", seed, steps)
		runs = nil
		for _, c := range []modelConfig{
			{index: "SIMPLE", payload: payloadDefault, part: plainPartitioned},
			{index: "GLOBAL_BLOOM", payload: payloadOverwrite, part: hivePartitioned, globalIdx: true},
			{index: "BLOOM", payload: payloadDefault, part: hivePartitioned, mor: true, smallOff: true},
			{index: "GLOBAL_SIMPLE", payload: payloadDefault, part: plainPartitioned, mor: true, smallOff: true, globalIdx: true},
		} {
			h := fnv.New64a()
			h.Write([]byte(c.name()))
			c.seed, c.steps, c.settings = seed^h.Sum64(), steps, mdt
			r := rand.New(rand.NewPCG(c.seed, 4))
			if r.IntN(2) == 0 {
				c.maxFile = 16<<10 + r.Int64N(32<<10)
			}
			runs = append(runs, run{c: c})
		}
	}
	for _, r := range runs {
		t.Run(r.c.name(), func(t *testing.T) {
			t.Parallel() // the requests' latency, not the CPU, bounds a run
			ctx := context.Background()
			mt := modelTable{path: fmt.Sprintf("s3a://%s/model/%s", bucket, strings.ReplaceAll(r.c.name(), "/", "_")), settings: settings, latestOnly: true}
			svc := newScriptedServices(r.script...)
			if r.script == nil {
				svc = newServices(r.c)
				if svc == nil { // the configuration's draw was "no services": run them anyway
					svc = &services{r: rand.New(rand.NewPCG(r.c.seed, 5)), retained: 3, keepMin: 4, keepMax: 5, percent: 40, savepoint: -1}
				}
			}
			start := time.Now()
			m, h := runModel(t, r.c, mt, svc)
			t.Logf("%d instants on S3 in %v", len(h.instants)+len(h.gone), time.Since(start).Round(time.Millisecond))
			for _, op := range r.script {
				if op != "-" && svc.worked[op] == 0 {
					t.Errorf("scripted service %s never changed the table (the CI form must exercise it: adjust the script)", op)
				}
			}
			if len(svc.script) > 0 {
				t.Errorf("script not used up (%v left): more steps needed", svc.script)
			}

			// Downloaded, the table passes the same checks as a local one.
			st, err := storage.OpenURL(ctx, mt.path, settings)
			if err != nil {
				t.Fatal(err)
			}
			local := filepath.Join(t.TempDir(), "model")
			n := downloadTable(t, ctx, st, local)
			t.Logf("downloaded %d files", n)
			verify(t, ctx, modelTable{path: local}, m, h, "downloaded")
			for _, at := range []modelTable{mt, {path: local}} {
				v, err := at.open(t, ctx).MetadataValidate(ctx)
				if err != nil {
					t.Fatalf("metadata validate %s: %v", at.path, err)
				}
				if !v.OK() {
					t.Errorf("metadata table of %s differs from a listing: %+v", at.path, v)
				}
			}
		})
	}
}

// downloadTable copies every object under st to the local folder dir and returns how
// many it copied.
func downloadTable(t *testing.T, ctx context.Context, st storage.Storage, dir string) int {
	t.Helper()
	n := 0
	var walk func(rel string)
	walk = func(rel string) {
		entries, err := st.List(ctx, rel)
		if err != nil {
			t.Fatalf("list %q: %v", rel, err)
		}
		for _, e := range entries {
			p := storage.Join(rel, e.Name)
			local := filepath.Join(dir, filepath.FromSlash(p))
			if e.IsDir {
				if err := os.MkdirAll(local, 0o755); err != nil {
					t.Fatal(err)
				}
				walk(p)
				continue
			}
			b, err := st.ReadFile(ctx, p)
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(local, b, 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	walk("")
	return n
}
