package write_test

// Table services in the model test: a subset of configurations interleaves clean, archive,
// cluster, rollback of the last instant and savepoint + restore with the random writes.
//
// Model decisions:
//   - clean (KEEP_LATEST_COMMITS, hoodie.cleaner.commits.retained 2–4, inline after every
//     write and on demand) changes no row; the reader must refuse time travel and
//     incremental queries ending before the last clean's earliest retained instant
//     (read.ErrCleaned, naming that instant), see verify.
//   - archive (hoodie.keep.min/max.commits just above the retention, inline and on demand)
//     changes nothing readable. Some configurations turn cleaning off, so archived instants
//     whose files all still exist are time-travelled to as well.
//   - cluster (schedule + run together: writes to file groups under a pending clustering
//     are rejected) with the size-based plan's defaults: every file group is smaller than
//     the 300 MB small-file limit and packed into one group per partition, so every file
//     group is rewritten. Rows keep their commit times (preserve.commit.metadata); for
//     merge-on-read the new base files hold the merged rows, so base == rows, no logs.
//   - rollback of the last data instant (commit, deltacommit, replacecommit, compaction,
//     clustering): the table returns to the state of the instant before it.
//   - savepoint the last data instant, write on, restore: the table returns to the
//     savepoint's state and every later instant is gone; the savepoint is then deleted so
//     cleaning can move past it.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/spec"
)

// history is what the model remembers of the timeline: the surviving data instants in
// order with the model's state after each, and the instants rolled back or restored away.
type history struct {
	instants []string
	states   []map[string]mrow // rows after instants[i]
	bases    []map[string]mrow // merge-on-read: base records after instants[i]
	logs     []map[string]mlog // merge-on-read: log records after instants[i]
	services map[string]bool   // compaction and clustering instants: no row carries them
	gone     []string          // rolled back or restored away
	// deadLogs: a rollback left log files of a rolled-back deltacommit behind, which the
	// next compaction plan picks up although the model has no live log record.
	deadLogs bool
}

func newHistory() *history { return &history{services: map[string]bool{}} }

func (h *history) last() string {
	if len(h.instants) == 0 {
		return ""
	}
	return h.instants[len(h.instants)-1]
}

func (h *history) push(m *model, inst string) {
	h.instants = append(h.instants, inst)
	h.states = append(h.states, m.clone())
	h.bases = append(h.bases, maps.Clone(m.base))
	h.logs = append(h.logs, maps.Clone(m.logs))
}

// truncate keeps the first n instants, moves the rest to gone and puts the model back into
// the state after instant n-1 (empty for n == 0).
func (h *history) truncate(m *model, n int) {
	h.gone = append(h.gone, h.instants[n:]...)
	h.instants, h.states, h.bases, h.logs = h.instants[:n], h.states[:n], h.bases[:n], h.logs[:n]
	if n == 0 {
		m.rows, m.base, m.logs = map[string]mrow{}, map[string]mrow{}, map[string]mlog{}
		return
	}
	m.rows, m.base, m.logs = maps.Clone(h.states[n-1]), maps.Clone(h.bases[n-1]), maps.Clone(h.logs[n-1])
	if m.base == nil {
		m.base = map[string]mrow{}
	}
	if m.logs == nil {
		m.logs = map[string]mlog{}
	}
	if m.cfg.mor {
		h.deadLogs = true
	}
}

// stateAt is the table as of a point in time: the state after the last surviving instant
// at or before it.
func (h *history) stateAt(ts string) map[string]mrow {
	i, _ := slices.BinarySearch(h.instants, ts)
	if i < len(h.instants) && h.instants[i] == ts {
		return h.states[i]
	}
	if i == 0 {
		return nil
	}
	return h.states[i-1]
}

// services drives the table services of one configuration.
type services struct {
	r                          *rand.Rand
	retained, keepMin, keepMax int
	noClean                    bool // cleaning off: archived instants keep their files
	noCluster                  bool // virtual keys: clustering is refused
	percent                    int  // chance of a service after each step
	savepoint                  int  // index in history.instants of the pending savepoint, -1 if none
	// script, when set, replaces the random choice: after each write the next entry is
	// run ("-": none), until the script is used up. An entry that is not possible at that
	// point fails the test. Besides the random choice's services it may name "compact"
	// (merge-on-read).
	script []string
	// manual: clean and archival run only where the script says (hoodie.clean.automatic
	// and hoodie.archive.automatic false), so that each of them has work to do.
	manual bool
	op     string         // the scripted service due next
	worked map[string]int // services that changed the table (clean deleted, archive archived, …), by name
}

// newScriptedServices runs the services of script (see services.script) with small
// retention and archival bounds (commits retained 2, keep 3 to 4 commits), clean and
// archival only where the script has them.
func newScriptedServices(script ...string) *services {
	return &services{r: rand.New(rand.NewPCG(1, 2)), retained: 2, keepMin: 3, keepMax: 4, savepoint: -1,
		script: script, manual: true, worked: map[string]int{}}
}

// scripted reports whether the services follow a script.
func (s *services) scripted() bool { return s != nil && s.script != nil }

// newServices decides from the configuration's seed whether and how it runs services
// (nil: it does not, and keeps the original write-only sequence). Its own random stream
// keeps the generator's and the compaction points' streams unchanged.
func newServices(c modelConfig) *services {
	h := fnv.New64a()
	h.Write([]byte("services/" + c.name()))
	r := rand.New(rand.NewPCG(c.seed, h.Sum64()))
	// Version 8/9 configurations always run services: they are few, and the services are
	// what layout 2 changes most (the draw still happens, so the stream is unchanged).
	if r.IntN(3) == 0 && c.version == 0 {
		return nil
	}
	s := &services{r: r, retained: 2 + r.IntN(3), noClean: r.IntN(4) == 0, percent: 35 + r.IntN(20), savepoint: -1}
	s.noCluster = c.virtual // clustering of virtual-key tables is refused
	s.keepMin = s.retained + 1 + r.IntN(2)
	s.keepMax = s.keepMin + 1 + r.IntN(2)
	return s
}

// apply puts the services' retention into a write's settings (the inline clean and
// archival run with them).
func (s *services) apply(settings map[string]string) {
	if s == nil {
		return
	}
	settings["hoodie.cleaner.commits.retained"] = strconv.Itoa(s.retained)
	settings["hoodie.keep.min.commits"] = strconv.Itoa(s.keepMin)
	settings["hoodie.keep.max.commits"] = strconv.Itoa(s.keepMax)
	if s.noClean || s.manual {
		settings["hoodie.clean.automatic"] = "false"
	}
	if s.manual {
		settings["hoodie.archive.automatic"] = "false"
	}
}

func (s *services) due() bool {
	switch {
	case s == nil:
		return false
	case s.script != nil:
		if len(s.script) == 0 {
			return false
		}
		s.op, s.script = s.script[0], s.script[1:]
		return s.op != "-"
	}
	return s.r.IntN(100) < s.percent
}

// run runs one randomly chosen service, applies it to the model and verifies.
func (s *services) run(t *testing.T, ctx context.Context, mt modelTable, m *model, h *history, settings map[string]string, desc string) {
	t.Helper()
	tbl := mt.open(t, ctx)
	n := len(h.instants)
	var ops []string
	ops = append(ops, "archive")
	if !s.noCluster {
		ops = append(ops, "cluster")
	}
	if !s.noClean {
		ops = append(ops, "clean", "clean")
	}
	if n > 0 && (s.savepoint < 0 || s.savepoint < n-1) {
		ops = append(ops, "rollback", "rollback")
	}
	switch {
	case s.savepoint < 0 && n > 0:
		ops = append(ops, "savepoint", "savepoint")
	case s.savepoint >= 0 && s.savepoint < n-1:
		ops = append(ops, "restore", "restore", "restore")
	}
	op := ""
	if s.script != nil {
		op = s.op
		if !slices.Contains(ops, op) && !(op == "compact" && m.cfg.mor) {
			t.Fatalf("%s: scripted service %q is not possible here (possible: %v)", desc, op, ops)
		}
	} else {
		if len(ops) == 0 {
			t.Logf("%s: no service applies (layout 2, cleaning off, savepoint on the last instant)", desc)
			return
		}
		op = ops[s.r.IntN(len(ops))]
	}
	desc = fmt.Sprintf("%s: %s", desc, op)
	worked := true
	switch op {
	case "compact":
		cs := map[string]string{}
		for _, k := range []string{"hoodie.parquet.max.file.size", "hoodie.index.bloom.num_entries",
			"hoodie.index.bloom.fpp", "hoodie.parquet.compression.codec"} {
			if v, ok := settings[k]; ok {
				cs[k] = v
			}
		}
		inst := compact(t, ctx, mt, m, h, cs, desc)
		if worked = inst != ""; worked {
			if inst <= h.last() {
				t.Fatalf("%s: compaction instant %s not after %s", desc, inst, h.last())
			}
			h.services[inst] = true
			h.push(m, inst)
		}
	case "clean":
		res, err := tbl.Clean(ctx, hudi.CleanOptions{Settings: settings})
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		t.Logf("%s -> %q: %d files deleted, earliest retained %s %s", desc, res.Instant, res.FilesDeleted, res.EarliestInstantToRetain, res.Message)
		worked = res.FilesDeleted > 0
	case "archive":
		res, err := tbl.Archive(ctx, hudi.ArchiveOptions{Settings: settings})
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		t.Logf("%s -> %d instants archived %s", desc, len(res.InstantsArchived), res.Message)
		worked = len(res.InstantsArchived) > 0
	case "cluster":
		cs := map[string]string{
			"hoodie.clustering.plan.strategy.single.group.clustering.enabled": "true",
			"hoodie.clustering.preserve.commit.metadata":                      "true",
		}
		for _, k := range []string{"hoodie.parquet.max.file.size", "hoodie.index.bloom.num_entries",
			"hoodie.index.bloom.fpp", "hoodie.parquet.compression.codec"} {
			if v, ok := settings[k]; ok {
				cs[k] = v
			}
		}
		res, err := tbl.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true, Settings: cs})
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		t.Logf("%s -> %s %s completed=%v: %d files %s", desc, res.Action, res.Instant, res.Completed, res.FilesWritten, res.Message)
		if len(m.rows) > 0 && !res.Completed {
			t.Fatalf("%s: nothing clustered, but the table has %d rows", desc, len(m.rows))
		}
		if worked = res.Completed; !worked {
			break
		}
		if res.Action != "replacecommit" || res.Instant <= h.last() {
			t.Fatalf("%s: %s %s, want a replacecommit after %s", desc, res.Action, res.Instant, h.last())
		}
		m.base, m.logs, h.deadLogs = m.clone(), map[string]mlog{}, false
		h.services[res.Instant] = true
		h.push(m, res.Instant)
	case "rollback":
		target := h.last()
		res, err := tbl.Rollback(ctx, target, hudi.RollbackOptions{})
		if err != nil {
			t.Fatalf("%s of %s: %v", desc, target, err)
		}
		t.Logf("%s of %s -> %s: rolled back %v, %d files deleted, %d written", desc, target, res.Instant, res.InstantsRolledBack, res.FilesDeleted, res.FilesWritten)
		if !slices.Equal(res.InstantsRolledBack, []string{target}) {
			t.Errorf("%s: rolled back %v, want [%s]", desc, res.InstantsRolledBack, target)
		}
		h.truncate(m, n-1)
	case "savepoint":
		s.savepoint = n - 1
		res, err := tbl.Savepoint(ctx, hudi.SavepointCreate, h.last(), hudi.SavepointOptions{})
		if err != nil {
			t.Fatalf("%s of %s: %v", desc, h.last(), err)
		}
		t.Logf("%s of %s -> %s: %d partitions, %d files", desc, h.last(), res.Instant, res.Partitions, res.Files)
	case "restore":
		sp := h.instants[s.savepoint]
		res, err := tbl.Savepoint(ctx, hudi.SavepointRestore, sp, hudi.SavepointOptions{})
		if err != nil {
			t.Fatalf("%s to %s: %v", desc, sp, err)
		}
		t.Logf("%s to %s -> %s: rolled back %v, %d files deleted, %d written", desc, sp, res.Instant, res.InstantsRolledBack, res.FilesDeleted, res.FilesWritten)
		want := slices.Clone(h.instants[s.savepoint+1:])
		got := slices.Clone(res.InstantsRolledBack)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: restore rolled back %v, want %v", desc, got, want)
		}
		h.truncate(m, s.savepoint+1)
		// Delete the savepoint so that the cleaner (which keeps savepointed files) and the
		// archiver (which stops at a savepoint) can move on.
		if _, err := tbl.Savepoint(ctx, hudi.SavepointDelete, sp, hudi.SavepointOptions{}); err != nil {
			t.Fatalf("%s: delete savepoint %s: %v", desc, sp, err)
		}
		s.savepoint = -1
	}
	if worked && s.worked != nil {
		s.worked[op]++
	}
	verify(t, ctx, mt, m, h, desc)
}

// earliestRetained is the earliest instant the last completed clean retains ("" if none).
func earliestRetained(t *testing.T, ctx context.Context, tbl *hudi.Table) string {
	t.Helper()
	meta := openMeta(t, tbl)
	ins := meta.Timeline.Instants
	for i := len(ins) - 1; i >= 0; i-- {
		in := ins[i]
		if in.Action != spec.ActionClean || !in.IsCompleted() {
			continue
		}
		b, err := meta.Timeline.ReadCompleted(ctx, meta.Storage, in)
		if err != nil {
			t.Fatalf("clean %s: %v", in.Time, err)
		}
		if len(b) == 0 {
			continue
		}
		cm, err := commitmeta.DecodeClean(b)
		if err != nil {
			t.Fatalf("clean %s: %v", in.Time, err)
		}
		return cm.EarliestCommitToRetain
	}
	// No clean on the active timeline: the newest archived one still bounds time travel.
	archived, err := meta.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(archived) - 1; i >= 0; i-- {
		a := archived[i]
		if a.Instant.Action != spec.ActionClean || len(a.Metadata) == 0 {
			continue
		}
		cm, err := commitmeta.DecodeClean(a.Metadata)
		if err != nil {
			t.Fatalf("archived clean %s: %v", a.Instant.Time, err)
		}
		return cm.EarliestCommitToRetain
	}
	return ""
}

// wantCleaned asserts that a query fails with read.ErrCleaned naming the earliest instant
// that can be queried.
func wantCleaned(t *testing.T, ctx context.Context, tbl *hudi.Table, o hudi.ScanOptions, earliest, desc string) {
	t.Helper()
	s, err := tbl.Scan(ctx, o)
	if err == nil {
		n := 0
		err = s.Run(ctx, func(rec arrow.Record) error { n += int(rec.NumRows()); return nil })
		t.Errorf("%s: older than the earliest retained instant %s, but the query returned %d rows (err %v), want read.ErrCleaned", desc, earliest, n, err)
		return
	}
	if !errors.Is(err, read.ErrCleaned) || !strings.Contains(err.Error(), "earliest instant that can be queried is "+earliest) {
		t.Errorf("%s: error %v, want read.ErrCleaned naming %s", desc, err, earliest)
	}
}
