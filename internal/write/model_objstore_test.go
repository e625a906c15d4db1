package write_test

// The model test with the table on an object store (issue 19: "writes, model tests and
// the crash test on S3: COW and MOR, services included, with the table on S3. Downloaded
// afterwards, the tables pass the same checks as local ones"), on S3 (versitygw), GCS
// (fake-gcs-server) and Azure Blob (Azurite). The servers are the ones .ci/run starts
// (HUDI_TEST_S3, HUDI_TEST_GCS, HUDI_TEST_AZURE); a store whose server is not given is
// skipped, in CI it fails.
//
// CI form on S3: one copy-on-write and one merge-on-read configuration, fixed seeds, and
// a fixed script of table services (clean, archive, cluster, savepoint, restore,
// rollback, and compaction on merge-on-read) between the writes, each of which must
// change the table; the metadata table is on (the default for table version 6) and
// compacts every 2 deltacommits so that archival is not held back by it. After every step
// the table read through the store equals the model; at the end it is downloaded and
// checked again as a local table, its metadata table validated against a listing of the
// files. On GCS and Azure the CI form is short (the three stores share everything above
// the storage interface, which the conformance suite covers per store): a copy-on-write
// table on GCS, 6 writes with a clean and a rollback; a merge-on-read table on Azure, 5
// writes with a compaction and a rollback. All runs go in parallel.
//
// scripts/test runs it without -race (see the skip below).
//
// Soak form (HUDI_SOAK=1): on each store four configurations (global and non-global
// indexes, both table types), random seed (HUDI_MODEL_SEED replays one),
// HUDI_MODEL_STEPS steps (default 30) and randomly chosen services.

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

	"github.com/hudi-go/hudi/internal/objstore/azuretest"
	"github.com/hudi-go/hudi/internal/objstore/gcstest"
	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/storage"
)

func TestModelOnObjectStores(t *testing.T) {
	if raceEnabled {
		// ~100 s under -race on a loaded 2-core machine, ~35 s without: scripts/test runs it
		// without the race detector, with the memory tests. The race detector covers the
		// same code through TestModel (local) and the backends through their conformance
		// suites.
		t.Skip("run without -race (scripts/test does)")
	}
	// given: run a store's configurations if its server is given (always in CI, where
	// the helpers fail without it).
	given := func(env string) bool { return os.Getenv(env) != "" || os.Getenv("CI") != "" }
	type store struct {
		name, base string
		settings   map[string]string
		runs       []modelRun // the CI form
	}
	var stores []store
	if given("HUDI_TEST_S3") {
		bucket, settings := s3test.Bucket(t)
		stores = append(stores, store{"s3", fmt.Sprintf("s3a://%s/model", bucket), settings, []modelRun{
			{modelConfig{index: "SIMPLE", payload: payloadDefault, part: plainPartitioned, maxFile: 24 << 10, steps: 30, seed: 53, settings: modelStoreMDT},
				[]string{"-", "-", "-", "-", "clean", "archive", "savepoint", "cluster", "restore", "rollback"}},
			{modelConfig{index: "BLOOM", payload: payloadOverwrite, part: hivePartitioned, mor: true, smallOff: true, steps: 30, seed: 5, settings: modelStoreMDT},
				[]string{"-", "-", "-", "compact", "clean", "archive", "savepoint", "cluster", "restore", "rollback", "compact"}},
		}})
	}
	if given("HUDI_TEST_GCS") {
		bucket := gcstest.Bucket(t) // sets STORAGE_EMULATOR_HOST (here: the subtests run in parallel)
		stores = append(stores, store{"gcs", fmt.Sprintf("gs://%s/model", bucket), nil, []modelRun{
			{modelConfig{index: "SIMPLE", payload: payloadDefault, part: plainPartitioned, maxFile: 24 << 10, steps: 30, seed: 53, settings: modelStoreMDT},
				[]string{"-", "-", "-", "-", "clean", "rollback"}},
		}})
	}
	if given("HUDI_TEST_AZURE") {
		container, settings := azuretest.Container(t)
		stores = append(stores, store{"azure", fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/model", container, azuretest.Account), settings, []modelRun{
			{modelConfig{index: "BLOOM", payload: payloadOverwrite, part: hivePartitioned, mor: true, smallOff: true, steps: 30, seed: 5, settings: modelStoreMDT},
				[]string{"-", "-", "-", "compact", "rollback"}},
		}})
	}
	if len(stores) == 0 {
		t.Skip("no object-store server given (HUDI_TEST_S3, HUDI_TEST_GCS, HUDI_TEST_AZURE)")
	}
	soak := os.Getenv("HUDI_SOAK") == "1"
	for _, s := range stores {
		runs := s.runs
		if soak {
			runs = soakRuns(t)
		}
		for _, r := range runs {
			t.Run(s.name+"/"+r.c.name(), func(t *testing.T) {
				t.Parallel() // the requests' latency, not the CPU, bounds a run
				modelOnStore(t, r, s.base, s.settings)
			})
		}
	}
}

// modelRun is one configuration of the model test on an object store.
type modelRun struct {
	c      modelConfig
	script []string // nil: random services (soak)
}

// The metadata table compacts every 2 deltacommits: archival keeps every commit at or
// after its latest compaction (as Java 0.14 does), so with the default 10 nothing would be
// archived within the CI form's steps.
var modelStoreMDT = map[string]string{"hoodie.metadata.compact.max.delta.commits": "2"}

// soakRuns are the soak form's configurations: global and non-global indexes, both table
// types, a random seed (HUDI_MODEL_SEED replays one), HUDI_MODEL_STEPS steps, random
// services.
func soakRuns(t *testing.T) []modelRun {
	var runs []modelRun
	seed := envInt(t, "HUDI_MODEL_SEED", uint64(time.Now().UnixNano()))
	steps := int(envInt(t, "HUDI_MODEL_STEPS", 30))
	t.Logf("HUDI_MODEL_SEED=%d HUDI_MODEL_STEPS=%d", seed, steps)
	for _, c := range []modelConfig{
		{index: "SIMPLE", payload: payloadDefault, part: plainPartitioned},
		{index: "GLOBAL_BLOOM", payload: payloadOverwrite, part: hivePartitioned, globalIdx: true},
		{index: "BLOOM", payload: payloadDefault, part: hivePartitioned, mor: true, smallOff: true},
		{index: "GLOBAL_SIMPLE", payload: payloadDefault, part: plainPartitioned, mor: true, smallOff: true, globalIdx: true},
	} {
		h := fnv.New64a()
		h.Write([]byte(c.name()))
		c.seed, c.steps, c.settings = seed^h.Sum64(), steps, modelStoreMDT
		r := rand.New(rand.NewPCG(c.seed, 4))
		if r.IntN(2) == 0 {
			c.maxFile = 16<<10 + r.Int64N(32<<10)
		}
		runs = append(runs, modelRun{c: c})
	}
	return runs
}

// modelOnStore runs r with the table under base (an object-store URL reached with
// settings), then downloads the table and checks it again as a local one, and validates
// its metadata table against a listing in both places.
func modelOnStore(t *testing.T, r modelRun, base string, settings map[string]string) {
	ctx := context.Background()
	mt := modelTable{path: fmt.Sprintf("%s/%s", base, strings.ReplaceAll(r.c.name(), "/", "_")), settings: settings, latestOnly: true}
	svc := newScriptedServices(r.script...)
	if r.script == nil {
		svc = newServices(r.c)
		if svc == nil { // the configuration's draw was "no services": run them anyway
			svc = &services{r: rand.New(rand.NewPCG(r.c.seed, 5)), retained: 3, keepMin: 4, keepMax: 5, percent: 40, savepoint: -1}
		}
	}
	start := time.Now()
	m, h := runModel(t, r.c, mt, svc)
	t.Logf("%d instants on %s in %v", len(h.instants)+len(h.gone), base, time.Since(start).Round(time.Millisecond))
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
