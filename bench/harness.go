package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// Config sizes a run.
type Config struct {
	Short   bool
	Rows    int
	Pairs   int
	Scaling bool // run the 2×-data scaling comparisons
	// ForceScaling runs them with Short too (-scaling): a quick look at how a case scales.
	ForceScaling bool
	Commits      int // W7
	CommitRows   int // W7
	Seed         int
	// PlanSizes are W5's (commits, files) table sizes (default 100/1,000 and 10k/100k).
	PlanSizes [][2]int
	// Lookups is W6's number of point lookups per timed run (default 20).
	Lookups int
	Dir     string
	Only    map[string]bool

	CPUProfileDir string
	MemProfileDir string
	Log           io.Writer `json:"-"`
}

// Report is everything one run measured; it is also the JSON output.
type Report struct {
	Host      map[string]string `json:"host"`
	Config    Config            `json:"config"`
	Ratios    []*Result         `json:"ratios"`
	Absolute  []*Absolute       `json:"absolute"`
	Errors    []string          `json:"errors,omitempty"`
	Durations map[string]string `json:"workload_wall_time"`
}

// Result is one comparison: subject (usually hudi-go) against a peer, run alternately.
type Result struct {
	Workload string    `json:"workload"`
	Case     string    `json:"case"`
	Subject  string    `json:"subject"`
	Peer     string    `json:"peer"`
	Rows     int       `json:"rows"`
	Target   string    `json:"target,omitempty"`
	Check    string    `json:"check,omitempty"`
	Ratios   []float64 `json:"ratios"`
	Median   float64   `json:"median"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
	Subj     Side      `json:"subject_runs"`
	PeerRuns Side      `json:"peer_runs"`
}

// Side holds one side's raw figures.
type Side struct {
	Nanos []int64 `json:"ns"`
	// PeakHeap is the largest Go heap growth (live objects, sampled every 2 ms) above the
	// heap just before the run; PeakRSS the process's peak resident set during the run
	// (VmHWM after a reset; it includes DuckDB's memory and the generated input).
	PeakHeap uint64 `json:"peak_heap_bytes"`
	PeakRSS  uint64 `json:"peak_rss_bytes"`
	// CPUNanos is the process's CPU time (user + system, all threads, DuckDB's too) of
	// each run: on a shared machine it varies less than wall time, and it shows what a
	// side's parallelism costs.
	CPUNanos []int64 `json:"cpu_ns,omitempty"`
}

// Absolute is a figure with an absolute target (W5 planning, W7 throughput).
type Absolute struct {
	Workload string    `json:"workload"`
	Case     string    `json:"case"`
	Unit     string    `json:"unit"`
	Values   []float64 `json:"values"`
	Median   float64   `json:"median"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
	PeakHeap uint64    `json:"peak_heap_bytes,omitempty"`
	Target   string    `json:"target,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// runner carries a run's state.
type runner struct {
	cfg     Config
	ctx     context.Context
	rep     *Report
	dir     string
	db      *sql.DB
	seq     atomic.Int64
	current string // workload
}

type workload struct {
	id   string
	name string
	run  func(r *runner) error
}

// Run runs the selected workloads and returns their report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.CommitRows == 0 {
		cfg.CommitRows = 1000
	}
	r := &runner{cfg: cfg, ctx: ctx, rep: &Report{Host: hostInfo(), Config: cfg, Durations: map[string]string{}}}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "hudi-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	r.dir = dir
	db, err := openDuckDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	r.db = db
	for _, d := range []string{cfg.CPUProfileDir, cfg.MemProfileDir} {
		if d != "" {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, err
			}
		}
	}
	for _, w := range workloads() {
		if cfg.Only != nil && !cfg.Only[w.id] {
			continue
		}
		r.logf("== %s %s", w.id, w.name)
		start := time.Now()
		err := r.profiled(w)
		r.rep.Durations[w.id] = time.Since(start).Round(time.Millisecond).String()
		if err != nil {
			r.rep.Errors = append(r.rep.Errors, fmt.Sprintf("%s: %v", w.id, err))
			r.logf("%s failed: %v", w.id, err)
		}
		os.RemoveAll(filepath.Join(r.dir, w.id))
	}
	if len(r.rep.Errors) > 0 {
		return r.rep, fmt.Errorf("%d workload(s) failed: %s", len(r.rep.Errors), strings.Join(r.rep.Errors, "; "))
	}
	return r.rep, nil
}

func (r *runner) profiled(w workload) error {
	r.current = w.id
	if d := r.cfg.CPUProfileDir; d != "" {
		f, err := os.Create(filepath.Join(d, w.id+".cpu.pprof"))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	err := w.run(r)
	if d := r.cfg.MemProfileDir; d != "" {
		runtime.GC()
		f, ferr := os.Create(filepath.Join(d, w.id+".allocs.pprof"))
		if ferr == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	return err
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// scratch returns a new empty directory under the workload's scratch space.
func (r *runner) scratch(name string) string {
	d := filepath.Join(r.dir, r.current, fmt.Sprintf("%s-%d", name, r.seq.Add(1)))
	if err := os.MkdirAll(d, 0o755); err != nil {
		panic(err)
	}
	return d
}

// side is one contender of a comparison. prep runs untimed before every timed run (it
// may return a cleanup, run untimed after it).
type side struct {
	name string
	prep func() (cleanup func(), err error)
	run  func(ctx context.Context) error
}

// compare runs subject and peers alternately, pairs times, and records one Result per
// peer. Before timing, check (if any) verifies the sides agree; its message is recorded.
func (r *runner) compare(caseName string, rows int, target []string, check func() (string, error), subject side, peers ...side) error {
	return r.comparePairs(r.cfg.Pairs, false, caseName, rows, target, check, subject, peers...)
}

// compareCheckedByFirstPair is compare whose check judges the outputs of the first timed
// pair (recorded by the sides, see inspectedDirSide) instead of runs of its own: for sides
// that take tens of seconds (W1), an untimed extra pair was a tenth of the full run. The
// check runs after the first pair, before the second.
func (r *runner) compareCheckedByFirstPair(caseName string, rows int, target []string, check func() (string, error), subject side, peers ...side) error {
	return r.comparePairs(r.cfg.Pairs, true, caseName, rows, target, check, subject, peers...)
}

// compareScaling is compare for a scaling check (hudi-go on 2× data against hudi-go on
// 1×): no peer, so at most scalingPairs pairs, which keeps the full run within its
// 30 minutes; a doubling's ratio is far from the 1.25 and 2 it is read against.
func (r *runner) compareScaling(caseName string, rows int, target []string, big, small side) error {
	return r.comparePairs(min(r.cfg.Pairs, scalingPairs), false, caseName, rows, target, nil, big, small)
}

const scalingPairs = 3

func (r *runner) comparePairs(pairs int, checkAfterFirst bool, caseName string, rows int, target []string, check func() (string, error), subject side, peers ...side) error {
	msg := ""
	runCheck := func() error {
		if check == nil {
			return nil
		}
		var err error
		if msg, err = check(); err != nil {
			return fmt.Errorf("%s: correctness check: %w", caseName, err)
		}
		r.logf("  %s: check ok (%s)", caseName, msg)
		return nil
	}
	if !checkAfterFirst {
		if err := runCheck(); err != nil {
			return err
		}
	}
	all := append([]side{subject}, peers...)
	runs := make([]Side, len(all))
	for p := 0; p < pairs; p++ {
		if checkAfterFirst && p == 1 {
			if err := runCheck(); err != nil {
				return err
			}
		}
		for i, s := range all {
			ns, heap, rss, cpu, err := r.timed(s)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", caseName, s.name, err)
			}
			runs[i].Nanos = append(runs[i].Nanos, ns)
			runs[i].CPUNanos = append(runs[i].CPUNanos, cpu)
			runs[i].PeakHeap = max(runs[i].PeakHeap, heap)
			runs[i].PeakRSS = max(runs[i].PeakRSS, rss)
		}
		var parts []string
		for i, s := range all {
			parts = append(parts, fmt.Sprintf("%s %s", s.name, time.Duration(runs[i].Nanos[p]).Round(time.Millisecond)))
		}
		r.logf("  %s pair %d: %s", caseName, p+1, strings.Join(parts, ", "))
	}
	if checkAfterFirst && pairs == 1 {
		if err := runCheck(); err != nil {
			return err
		}
	}
	for i, pe := range peers {
		res := &Result{Workload: r.current, Case: caseName, Subject: subject.name, Peer: pe.name, Rows: rows, Check: msg,
			Subj: runs[0], PeerRuns: runs[i+1]}
		if i < len(target) {
			res.Target = target[i]
		}
		for p := range runs[0].Nanos {
			res.Ratios = append(res.Ratios, float64(runs[0].Nanos[p])/float64(runs[i+1].Nanos[p]))
		}
		res.Median, res.Min, res.Max = stats(res.Ratios)
		r.rep.Ratios = append(r.rep.Ratios, res)
	}
	return nil
}

// timed runs one side once and returns its wall time, peak Go heap growth, peak RSS and
// process CPU time.
func (r *runner) timed(s side) (int64, uint64, uint64, int64, error) {
	var cleanup func()
	if s.prep != nil {
		var err error
		if cleanup, err = s.prep(); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("prep: %w", err)
		}
	}
	if cleanup != nil {
		defer cleanup()
	}
	runtime.GC()
	mon := startMemMonitor()
	cpu0 := processCPU()
	start := time.Now()
	var err error
	pprof.Do(r.ctx, pprof.Labels("workload", r.current, "side", s.name), func(ctx context.Context) { err = s.run(ctx) })
	ns := time.Since(start).Nanoseconds()
	cpu := processCPU() - cpu0
	heap, rss := mon.stop()
	return ns, heap, rss, cpu, err
}

// absolute records figures with absolute targets.
func (r *runner) absolute(a *Absolute) {
	a.Workload = r.current
	a.Median, a.Min, a.Max = stats(a.Values)
	r.rep.Absolute = append(r.rep.Absolute, a)
}

func stats(v []float64) (med, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	med = s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return med, s[0], s[len(s)-1]
}

// memMonitor samples the live Go heap every 2 ms.
type memMonitor struct {
	base uint64
	peak atomic.Uint64
	done chan struct{}
	wg   sync.WaitGroup
}

var heapMetric = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapObjects() uint64 {
	s := make([]metrics.Sample, 1)
	s[0].Name = heapMetric[0].Name
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startMemMonitor() *memMonitor {
	resetPeakRSS()
	m := &memMonitor{base: heapObjects(), done: make(chan struct{})}
	m.peak.Store(m.base)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
				if v := heapObjects(); v > m.peak.Load() {
					m.peak.Store(v)
				}
			}
		}
	}()
	return m
}

func (m *memMonitor) stop() (heapGrowth, rss uint64) {
	if v := heapObjects(); v > m.peak.Load() {
		m.peak.Store(v)
	}
	close(m.done)
	m.wg.Wait()
	return m.peak.Load() - m.base, peakRSS()
}

// resetPeakRSS resets the kernel's VmHWM of this process (Linux; elsewhere a no-op).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func mib(b uint64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

// PrintTable writes the human-readable summary.
func (rep *Report) PrintTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "workload\tcase\tsubject / peer\tratio median\tmin–max\tsubject ms\tpeer ms\tCPU ms s/p\theap MiB s/p\tRSS MiB s/p\ttarget\n")
	for _, x := range rep.Ratios {
		sm, _, _ := stats(toF(x.Subj.Nanos))
		pm, _, _ := stats(toF(x.PeerRuns.Nanos))
		sc, _, _ := stats(toF(x.Subj.CPUNanos))
		pc, _, _ := stats(toF(x.PeerRuns.CPUNanos))
		fmt.Fprintf(tw, "%s\t%s\t%s / %s\t%.3f\t%.3f–%.3f\t%.0f\t%.0f\t%.0f/%.0f\t%s/%s\t%s/%s\t%s\n", x.Workload, x.Case, x.Subject, x.Peer,
			x.Median, x.Min, x.Max, sm/1e6, pm/1e6, sc/1e6, pc/1e6, mib(x.Subj.PeakHeap), mib(x.PeerRuns.PeakHeap),
			mib(x.Subj.PeakRSS), mib(x.PeerRuns.PeakRSS), x.Target)
	}
	tw.Flush()
	if len(rep.Absolute) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "workload\tcase\tmedian\tmin–max\tunit\theap MiB\ttarget\tnote\n")
		for _, a := range rep.Absolute {
			fmt.Fprintf(tw, "%s\t%s\t%.4g\t%.4g–%.4g\t%s\t%s\t%s\t%s\n", a.Workload, a.Case, a.Median, a.Min, a.Max, a.Unit,
				mib(a.PeakHeap), a.Target, a.Note)
		}
		tw.Flush()
	}
	for _, e := range rep.Errors {
		fmt.Fprintln(w, "ERROR", e)
	}
}

func toF(ns []int64) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = float64(v)
	}
	return out
}
