//go:build unix

// Package crashtest kills the hudi writer (SIGKILL) at random points of its writes and
// checks that the table survives every kill: it reads, it holds every committed row and
// none of the killed write's, and the next write rolls the killed one back and succeeds.
//
// The test drives the real binary (built once by TestMain) against a real table on local
// disk, so the kills land wherever the operating system happens to stop the process:
// before the instant is requested, between requested and inflight, while markers and
// base files are being written, or after the completed file was published.
//
// CI runs a short form with a fixed seed (40 kills, under a minute on two cores). A soak
// run is randomized and long:
//
//	HUDI_SOAK=1                 soak mode (random seed, bigger batches, a fresh table every 150 iterations)
//	HUDI_CRASH_SEED=n           seed (default: 1 in CI, the clock in soak mode)
//	HUDI_CRASH_ITERATIONS=n     iterations (default: until 40 kills in CI, 100000 in soak mode)
//	HUDI_CRASH_DURATION=10m     stop after this long (soak default: 45m)
//	HUDI_CRASH_STRICT=1         also fail on garbage left behind (see findings below)
//	HUDI_CRASH_KEEP=1           keep the table directories (their paths are logged)
//	HUDI_BIN=/path/to/hudi      use this binary instead of building one
//
// scripts/soak runs the soak mode and prints the summary line this test logs.
package crashtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
)

var hudiBin string

func TestMain(m *testing.M) {
	os.Exit(testutil.RunWithHudiBinary(m, "crashtest", &hudiBin))
}

var cities = []string{"san_francisco", "new_york", "chennai", "sao_paulo"}

const tableSchema = "ts BIGINT, uuid STRING, rider STRING, fare DOUBLE, city STRING"

// row is one record of the model; commit is the instant that last wrote it.
type row struct {
	TS     int64   `json:"ts"`
	UUID   string  `json:"uuid"`
	Rider  string  `json:"rider"`
	Fare   float64 `json:"fare"`
	City   string  `json:"city"`
	commit string
}

// model is what a snapshot read must return: record key → row.
type model map[string]row

func (m model) clone() model {
	c := make(model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m model) sortedKeys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeOp is one generated write.
type writeOp struct {
	op       string
	rows     []row // input rows (for delete only uuid and city are sent)
	settings []string
}

// apply returns the model after op committed as instant.
func apply(m model, w writeOp, instant string) model {
	out := m.clone()
	switch w.op {
	case "delete":
		for _, r := range w.rows {
			delete(out, r.UUID)
		}
	case "insert_overwrite":
		parts := map[string]bool{}
		for _, r := range w.rows {
			parts[r.City] = true
		}
		for k, r := range out {
			if parts[r.City] {
				delete(out, k)
			}
		}
		fallthrough
	default: // upsert, insert, bulk_insert
		for _, r := range w.rows {
			// Input rows are pre-combined on ts: a key keeps its highest-ts row.
			if old, ok := out[r.UUID]; ok && old.commit == instant && old.TS > r.TS {
				continue
			}
			r.commit = instant
			out[r.UUID] = r
		}
	}
	return out
}

// generator makes random writes from a seeded source.
type generator struct {
	rng     *rand.Rand
	nextID  int
	ts      int64
	seq     int
	minRows int
	maxRows int
	maxSize int // table size above which writes shrink the table
	fileMax int // hoodie.parquet.max.file.size
	// cdc creates the table with change-data capture on (hoodie.table.cdc.enabled) in
	// this supplemental logging mode ("" = off).
	cdc string
	// version is the table version created ("" for the default, 6).
	version string
}

func (g *generator) newRow(city string) row {
	g.nextID++
	g.ts++
	if city == "" {
		city = cities[g.rng.IntN(len(cities))]
	}
	return row{TS: g.ts, UUID: fmt.Sprintf("u%08d", g.nextID), Rider: fmt.Sprintf("w%d-new", g.seq),
		Fare: float64(g.rng.IntN(10_000_000)) / 100, City: city}
}

func (g *generator) update(r row) row {
	g.ts++
	return row{TS: g.ts, UUID: r.UUID, Rider: fmt.Sprintf("w%d-upd", g.seq), Fare: float64(g.rng.IntN(10_000_000)) / 100, City: r.City}
}

// sample returns up to n distinct random keys of m, in a deterministic order.
func (g *generator) sample(keys []string, n int) []string {
	if n > len(keys) {
		n = len(keys)
	}
	idx := g.rng.Perm(len(keys))[:n]
	out := make([]string, n)
	for i, j := range idx {
		out[i] = keys[j]
	}
	return out
}

// next returns a random write of minRows..maxRows rows (at most limit when limit > 0).
func (g *generator) next(m model, limit int) writeOp {
	g.seq++
	n := g.minRows + g.rng.IntN(g.maxRows-g.minRows+1)
	if limit > 0 {
		n = min(n, limit)
	}
	keys := m.sortedKeys()
	var op string
	switch {
	case len(keys) == 0:
		op = []string{"upsert", "insert", "bulk_insert"}[g.rng.IntN(3)]
	case len(keys) > g.maxSize:
		op = []string{"delete", "insert_overwrite"}[g.rng.IntN(2)]
	default:
		x := g.rng.IntN(100)
		switch {
		case x < 30:
			op = "upsert"
		case x < 45:
			op = "insert"
		case x < 60:
			op = "bulk_insert"
		case x < 80:
			op = "delete"
		default:
			op = "insert_overwrite"
		}
	}
	w := writeOp{op: op}
	switch op {
	case "upsert":
		for _, k := range g.sample(keys, n/2) {
			u := g.update(m[k])
			if g.rng.IntN(10) == 0 {
				// A duplicate with a lower ordering value: pre-combining must drop it.
				d := u
				d.TS -= int64(n)
				d.Rider += "-stale"
				w.rows = append(w.rows, d)
			}
			w.rows = append(w.rows, u)
		}
		for len(w.rows) < n {
			w.rows = append(w.rows, g.newRow(""))
		}
		g.rng.Shuffle(len(w.rows), func(i, j int) { w.rows[i], w.rows[j] = w.rows[j], w.rows[i] })
	case "insert", "bulk_insert":
		for range n {
			w.rows = append(w.rows, g.newRow(""))
		}
	case "delete":
		for _, k := range g.sample(keys, min(n/2, len(keys)/3+1)) {
			w.rows = append(w.rows, m[k])
		}
		for range 3 { // keys that do not exist
			g.nextID++
			w.rows = append(w.rows, row{UUID: fmt.Sprintf("u%08d", g.nextID), City: cities[g.rng.IntN(len(cities))]})
		}
	case "insert_overwrite":
		city := cities[g.rng.IntN(len(cities))]
		var inCity []string
		for _, k := range keys {
			if m[k].City == city {
				inCity = append(inCity, k)
			}
		}
		for _, k := range g.sample(inCity, len(inCity)/2) {
			w.rows = append(w.rows, g.update(m[k]))
		}
		for range n/4 + 1 {
			w.rows = append(w.rows, g.newRow(city))
		}
	}
	w.settings = []string{
		"hoodie.parquet.max.file.size=" + strconv.Itoa(g.fileMax),
		"hoodie.parquet.small.file.limit=" + strconv.Itoa(g.fileMax/2),
		"hoodie.index.bloom.num_entries=1000",
		"hoodie.index.type=" + []string{"SIMPLE", "BLOOM"}[g.rng.IntN(2)],
	}
	return w
}

// writeInput writes the op's input as JSON Lines.
func writeInput(path string, w writeOp) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range w.rows {
		var err error
		if w.op == "delete" {
			err = enc.Encode(map[string]any{"uuid": r.UUID, "city": r.City})
		} else {
			err = enc.Encode(r)
		}
		if err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// runResult is how one `hudi write` ended.
type runResult struct {
	killed  bool // ended by our SIGKILL
	err     error
	started time.Time
	stdout  string
	stderr  string
	dur     time.Duration
	res     writeResult
}

type writeResult struct {
	Instant    string   `json:"instant"`
	Action     string   `json:"action"`
	Operation  string   `json:"operation"`
	RolledBack []string `json:"rolled_back"`
}

// runWrite runs `hudi write`; with killAfter >= 0 it SIGKILLs the process after that long.
func runWrite(table, input string, w writeOp, killAfter time.Duration) runResult {
	args := []string{"write", table, "--op", w.op, "--input", input, "--format", "json"}
	for _, s := range w.settings {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(hudiBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return runResult{err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	if killAfter >= 0 {
		timer := time.NewTimer(killAfter)
		select {
		case err = <-done:
			timer.Stop()
		case <-timer.C:
			_ = cmd.Process.Kill() // SIGKILL
			err = <-done
		}
	} else {
		err = <-done
	}
	r := runResult{err: err, stdout: stdout.String(), stderr: stderr.String(), dur: time.Since(start), started: start}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		r.killed = true
		r.err = nil
	}
	if r.err == nil && !r.killed {
		if jerr := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &r.res); jerr != nil {
			r.err = fmt.Errorf("write result %q: %w", r.stdout, jerr)
		}
	}
	return r
}

// hangAfter is how long a hudi command of the crash tests may run before it is taken for hung.
const hangAfter = 5 * time.Minute

func hudi(args ...string) (string, error) {
	cmd := exec.Command(hudiBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A command that hangs (a deadlock on an error path) fails its test with the goroutine
	// dump SIGQUIT makes the Go runtime print, instead of timing the whole package out.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("hudi %s: %w", strings.Join(args, " "), err)
	}
	watchdog := time.AfterFunc(hangAfter, func() { _ = cmd.Process.Signal(syscall.SIGQUIT) })
	err := cmd.Wait()
	watchdog.Stop()
	if err != nil {
		return stdout.String(), fmt.Errorf("hudi %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// validateMetadata runs `hudi metadata TABLE validate`, which exits non-zero when the
// metadata table's files partition (and record index, when built) differs from a listing
// of the table's latest file slices: after a kill and the write that rolls it back, the
// metadata table must be as current as the data table (readers plan from it).
func validateMetadata(t *testing.T, table string, iter int) {
	t.Helper()
	if out, err := hudi("metadata", table, "validate"); err != nil {
		t.Fatalf("iteration %d: the metadata table differs from the table after the write following the kill: %v\n%s", iter, err, out)
	}
}

// readTable reads a snapshot with `hudi read --format jsonl`.
func readTable(table string) (map[string]map[string]any, error) {
	out, err := hudi("read", table, "--format", "jsonl")
	if err != nil {
		return nil, err
	}
	return parseRows(out)
}

// parseRows parses `hudi read --format jsonl` output: record key → row.
func parseRows(out string) (map[string]map[string]any, error) {
	rows := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("read output line %q: %w", sc.Text(), err)
		}
		k, _ := r["uuid"].(string)
		if _, dup := rows[k]; dup {
			return nil, fmt.Errorf("record key %q is returned twice", k)
		}
		rows[k] = r
	}
	return rows, sc.Err()
}

// diff compares a read with the model; it returns up to 10 differences.
func diff(got map[string]map[string]any, want model) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < 10 {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	for _, k := range want.sortedKeys() {
		w := want[k]
		g, ok := got[k]
		if !ok {
			add("missing committed row %s (commit %s)", k, w.commit)
			continue
		}
		ts, _ := g["ts"].(json.Number).Int64()
		fare, _ := g["fare"].(json.Number).Float64()
		if ts != w.TS || g["rider"] != w.Rider || fare != w.Fare || g["city"] != w.City ||
			g["_hoodie_commit_time"] != w.commit || g["_hoodie_record_key"] != k ||
			g["_hoodie_partition_path"] != "city="+w.City {
			add("row %s = {ts %v rider %v fare %v city %v commit %v key %v partition %v}, want {ts %d rider %s fare %v city %s commit %s}",
				k, g["ts"], g["rider"], g["fare"], g["city"], g["_hoodie_commit_time"], g["_hoodie_record_key"], g["_hoodie_partition_path"],
				w.TS, w.Rider, w.Fare, w.City, w.commit)
		}
	}
	var extra []string
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		add("unexpected row %s (rider %v, commit %v)", k, got[k]["rider"], got[k]["_hoodie_commit_time"])
	}
	if n := len(got) - len(want); n != 0 && len(out) < 10 {
		out = append(out, fmt.Sprintf("%d rows read, %d committed", len(got), len(want)))
	}
	return out
}

// instant is one instant on the active timeline.
type instant struct {
	time   string
	action spec.Action
	states map[spec.State]bool
	files  map[spec.State]string // the timeline file of each state, relative to the table
}

func (i *instant) completed() bool { return i.states[spec.StateCompleted] }

func (i *instant) isData() bool {
	return i.action == spec.ActionCommit || i.action == spec.ActionReplaceCommit
}

// timelineDir is the folder of a table's active timeline: .hoodie/timeline on table
// versions 8 and 9 (timeline layout 2), .hoodie before.
func timelineDir(table string) string {
	if d := filepath.Join(".hoodie", "timeline"); exists(filepath.Join(table, d)) {
		return d
	}
	return ".hoodie"
}

// timelineOf lists the active timeline: instant time → instant.
func timelineOf(table string) (map[string]*instant, error) {
	dir := timelineDir(table)
	entries, err := os.ReadDir(filepath.Join(table, dir))
	if err != nil {
		return nil, err
	}
	tl := map[string]*instant{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		f, ok := spec.ParseInstantFileName(e.Name())
		if !ok {
			continue
		}
		in := tl[string(f.Instant)]
		if in == nil {
			in = &instant{time: string(f.Instant), action: f.Action.CompletedAction(), states: map[spec.State]bool{},
				files: map[spec.State]string{}}
			tl[string(f.Instant)] = in
		}
		in.states[f.State] = true
		in.files[f.State] = filepath.Join(dir, e.Name())
	}
	return tl, nil
}

func pendingData(tl map[string]*instant) []string {
	var out []string
	for t, in := range tl {
		if in.isData() && !in.completed() {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// filesOf lists the files in partitions whose names carry inst: base files (which readers
// would see) and others (temporary files of interrupted atomic creates).
func filesOf(table, inst string) (base, other []string, err error) {
	err = filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".hoodie" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(d.Name(), inst) {
			return nil
		}
		rel, _ := filepath.Rel(table, p)
		if b, ok := spec.ParseBaseFileName(d.Name()); ok && string(b.Instant) == inst {
			base = append(base, rel)
		} else {
			other = append(other, rel)
		}
		return nil
	})
	return base, other, err
}

// fileTime is the modification time of an instant's timeline file in state s.
func fileTime(table string, in *instant, s spec.State) time.Time {
	name := in.files[s]
	if name == "" {
		name = filepath.Join(".hoodie", spec.InstantFileName{Instant: spec.InstantTime(in.time), Action: in.action, State: s}.FileName(1))
	}
	fi, err := os.Stat(filepath.Join(table, name))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// rolledBackBy reads every completed rollback: rolled-back instant → rollback instant.
func rolledBackBy(table string, tl map[string]*instant) (map[string]string, error) {
	out := map[string]string{}
	for t, in := range tl {
		if in.action != spec.ActionRollback || !in.completed() {
			continue
		}
		name := in.files[spec.StateCompleted]
		if name == "" {
			name = filepath.Join(".hoodie", t+".rollback")
		}
		b, err := os.ReadFile(filepath.Join(table, name))
		if err != nil {
			return nil, err
		}
		md, err := commitmeta.DecodeRollback(b)
		if err != nil {
			return nil, fmt.Errorf("rollback %s: %w", t, err)
		}
		for _, p := range md.PartitionMetadata {
			if len(p.FailedDeleteFiles) > 0 {
				return nil, fmt.Errorf("rollback %s failed to delete %v", t, p.FailedDeleteFiles)
			}
		}
		for _, c := range md.CommitsRollback {
			out[c] = t
		}
	}
	return out, nil
}

// Kill points, classified from what the killed writer left behind.
const (
	ptExited          = "exited_before_kill" // not killed: the write finished first
	ptBeforeRequested = "before_requested"   // no instant yet (startup, input, planning)
	ptInRollback      = "during_rollback"    // rolling back an earlier killed write
	ptRequested       = "after_requested"    // requested, not inflight
	ptInflight        = "after_inflight"     // inflight, no markers or files yet
	ptFiles           = "during_files"       // markers and/or data files written
	ptCompleted       = "after_completed"    // the completed file exists: committed
)

var allPoints = []string{ptExited, ptBeforeRequested, ptInRollback, ptRequested, ptInflight, ptFiles, ptCompleted}

type stats struct {
	iterations, kills, writes, chained int
	points                             map[string]int
	ops                                map[string]int // killed writes by operation
	tmpLeft                            int            // temp files of killed instants left in partitions after rollback
	markersLeft                        int            // .temp/<instant> of instants killed after completing, left after the next write
	heartbeatsLeft                     int
	garbagePartitions, garbageMeta     int // *.tmp-* files left at the end of each table, in partitions and under .hoodie
	findings                           []string
	findingKinds                       map[string]int
}

// finding records garbage that does not break the table; the first three of each kind
// are kept for the log.
func (s *stats) finding(kind, format string, args ...any) {
	if s.findingKinds == nil {
		s.findingKinds = map[string]int{}
	}
	if s.findingKinds[kind]++; s.findingKinds[kind] <= 3 {
		s.findings = append(s.findings, fmt.Sprintf(format, args...))
	}
}

func (s *stats) summary(seed uint64, elapsed time.Duration) string {
	var pts []string
	for _, p := range allPoints {
		pts = append(pts, fmt.Sprintf("%s=%d", p, s.points[p]))
	}
	var ops []string
	for _, o := range []string{"upsert", "insert", "bulk_insert", "delete", "insert_overwrite"} {
		ops = append(ops, fmt.Sprintf("%s=%d", o, s.ops[o]))
	}
	return fmt.Sprintf("CRASHTEST seed=%d iterations=%d kill_attempts=%d kills=%d chained_kills=%d writes=%d elapsed=%s points[%s] killed_ops[%s] leftovers[tmp_files=%d completed_markers=%d completed_heartbeats=%d] garbage_at_end[partitions=%d hoodie=%d]",
		seed, s.iterations, s.points[ptExited]+s.kills, s.kills, s.chained, s.writes, elapsed.Round(time.Millisecond),
		strings.Join(pts, " "), strings.Join(ops, " "), s.tmpLeft, s.markersLeft, s.heartbeatsLeft, s.garbagePartitions, s.garbageMeta)
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil {
			return n
		}
	}
	return def
}

// TestCrashDuringWrites is the crash test; see the package comment.
func TestCrashDuringWrites(t *testing.T) {
	strict := os.Getenv("HUDI_CRASH_STRICT") == "1"
	cfg := loadRunConfig(t, runConfig{seed: 1, minKills: 40, maxIters: 400, duration: 5 * time.Minute,
		tableIters: 1 << 30, minRows: 50, maxRows: 300, maxSize: 2000}) // one table
	soak, seed, minKills, maxIters, duration := cfg.soak, cfg.seed, cfg.minKills, cfg.maxIters, cfg.duration
	tableIters, minRows, maxRows, maxSize := cfg.tableIters, cfg.minRows, cfg.maxRows, cfg.maxSize
	rng := rand.New(rand.NewPCG(seed, 0x6875646963726173))
	st := &stats{points: map[string]int{}, ops: map[string]int{}}
	start := time.Now()
	t.Logf("seed %d (rerun with HUDI_CRASH_SEED=%d%s; HUDI_CRASH_KEEP=1 keeps the tables)", seed, seed, map[bool]string{true: " HUDI_SOAK=1"}[soak])
	defer func() {
		sum := st.summary(seed, time.Since(start))
		t.Log(sum)
		for _, f := range st.findings {
			t.Log("finding: " + f)
		}
		if p := os.Getenv("HUDI_CRASH_SUMMARY"); p != "" {
			_ = os.WriteFile(p, []byte(sum+"\n"+strings.Join(prefixAll("finding: ", st.findings), "")), 0o644)
		}
	}()

	ciForm := !soak && os.Getenv("HUDI_CRASH_ITERATIONS") == ""
	done := func(iter int) bool {
		switch {
		case iter >= maxIters:
			return true
		case st.kills < minKills:
			return false
		case ciForm:
			return true
		}
		return time.Since(start) > duration
	}
	for iter := 0; !done(iter) && !t.Failed(); {
		runTable(t, rng, st, &iter, iter+tableIters, done,
			generator{minRows: minRows, maxRows: maxRows, maxSize: maxSize})
	}
	if st.kills < minKills && !t.Failed() {
		t.Errorf("only %d kills (want at least %d): the kill delays miss the writes", st.kills, minKills)
	}
	if strict && !t.Failed() && st.tmpLeft+st.markersLeft+st.heartbeatsLeft+st.garbageMeta+st.garbagePartitions > 0 {
		t.Errorf("garbage left behind (HUDI_CRASH_STRICT=1): %s", st.summary(seed, time.Since(start)))
	}
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s + "\n"
	}
	return out
}

// runTable creates a table and runs iterations on it until *iter reaches stop or done.
func runTable(t *testing.T, rng *rand.Rand, st *stats, iter *int, stop int, done func(int) bool, g generator) {
	t.Helper()
	var dir string
	keep := os.Getenv("HUDI_CRASH_KEEP") == "1"
	if keep {
		d, err := os.MkdirTemp("", "hudi-crashtest-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
		t.Logf("table directory %s", dir)
	} else {
		dir = t.TempDir()
	}
	table := filepath.Join(dir, "trips")
	g.rng = rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	g.fileMax = []int{20_000, 40_000, 80_000}[rng.IntN(3)]
	create := []string{"create", table, "--partition-by", "city", "--hive-style", "--precombine", "ts",
		"--record-key", "uuid", "--schema", tableSchema}
	if g.cdc != "" {
		create = append(create, "--set", "hoodie.table.cdc.enabled=true", "--set", "hoodie.table.cdc.supplemental.logging.mode="+g.cdc)
	}
	if g.version != "" {
		create = append(create, "--table-version", g.version)
	}
	if _, err := hudi(create...); err != nil {
		t.Fatal(err)
	}
	m := model{}
	inputN := 0
	nextInput := func(w writeOp) string {
		inputN++
		p := filepath.Join(dir, fmt.Sprintf("input-%d.jsonl", inputN))
		if err := writeInput(p, w); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Kill delays come from the writes that completed: est is the typical duration of a
	// whole write process (exec to exit) and [reqAt, doneAt] the span from its requested
	// file to its completed file (their modification times), per operation. A third of the
	// kills land anywhere in [0, 1.2*est], the rest inside the commit span, where the
	// interesting states are.
	type timing struct{ est, reqAt, doneAt time.Duration }
	timings := map[string]timing{}
	ewma := func(old, d time.Duration) time.Duration { return (old*7 + d*3) / 10 }
	observe := func(op string, r runResult) {
		tm := timing{est: r.dur}
		tl, err := timelineOf(table)
		if err != nil {
			t.Fatal(err)
		}
		if in := tl[r.res.Instant]; in != nil {
			tm.reqAt = fileTime(table, in, spec.StateRequested).Sub(r.started)
			tm.doneAt = fileTime(table, in, spec.StateCompleted).Sub(r.started)
		}
		if tm.reqAt <= 0 || tm.doneAt < tm.reqAt || tm.doneAt > tm.est {
			tm.reqAt, tm.doneAt = 0, tm.est
		}
		if old, ok := timings[op]; ok {
			tm = timing{est: ewma(old.est, tm.est), reqAt: ewma(old.reqAt, tm.reqAt), doneAt: ewma(old.doneAt, tm.doneAt)}
		}
		timings[op] = tm
	}
	killDelay := func(op string) time.Duration {
		tm, ok := timings[op]
		if !ok {
			for _, x := range timings { // any operation's
				tm = x
				break
			}
		}
		if rng.IntN(3) == 0 {
			return time.Duration(rng.Float64() * 1.2 * float64(tm.est))
		}
		lo, hi := tm.reqAt-2*time.Millisecond, tm.doneAt+2*time.Millisecond
		return max(0, lo+time.Duration(rng.Float64()*float64(hi-lo)))
	}
	// commitWrite runs a write that must succeed and applies it to the model.
	commitWrite := func(what string, limit int) (writeOp, runResult) {
		w := g.next(m, limit)
		r := runWrite(table, nextInput(w), w, -1)
		if r.err != nil || r.killed {
			t.Fatalf("%s %s: %v (killed=%v)\nstderr: %s", what, w.op, r.err, r.killed, r.stderr)
		}
		st.writes++
		observe(w.op, r)
		m = apply(m, w, r.res.Instant)
		return w, r
	}
	// Calibration: a few complete writes give the first duration estimates.
	for range 4 {
		commitWrite("calibration write", 0)
	}
	check := func(when string) {
		t.Helper()
		got, err := readTable(table)
		if err != nil {
			t.Fatalf("iteration %d: %s: the table does not read: %v", *iter, when, err)
		}
		if d := diff(got, m); len(d) > 0 {
			t.Fatalf("iteration %d: %s: the table differs from the committed writes:\n  %s", *iter, when, strings.Join(d, "\n  "))
		}
		if g.cdc != "" {
			if err := checkCDCFiles(table); err != nil {
				t.Fatalf("iteration %d: %s: %v", *iter, when, err)
			}
		}
	}
	check("after calibration")
	// The metadata table is on by default (hoodie.metadata.enable): every write below
	// updates it (a metadata deltacommit before the data instant completes, a rollback of
	// both after a kill), so the kills land in its steps too, on version 9 as Hudi 1.x lays
	// it out.
	mdt := true
	if mdt && !exists(filepath.Join(table, ".hoodie", "metadata", ".hoodie", "hoodie.properties")) {
		t.Fatalf("the table has no metadata table after %d writes", st.writes)
	}
	if !keep { // soak runs make many tables: drop each when done (failed ones too: rerun with HUDI_CRASH_KEEP=1)
		defer os.RemoveAll(dir)
	}
	defer func() {
		// Survey the temporary files of interrupted atomic creates that nothing removed.
		_ = filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".tmp-") {
				return nil
			}
			rel, _ := filepath.Rel(table, p)
			if strings.HasPrefix(rel, ".hoodie") {
				st.garbageMeta++
				kind := "hoodie " + strings.TrimPrefix(filepath.Ext(strings.Split(d.Name(), ".tmp-")[0]), ".")
				if strings.HasPrefix(rel, ".hoodie/.heartbeat/") {
					kind = "hoodie heartbeat"
				}
				st.finding(kind, "temporary file left under .hoodie at the end: %s", rel)
			} else {
				st.garbagePartitions++
			}
			return nil
		})
	}()

	for ; *iter < stop && !done(*iter); *iter++ {
		st.iterations++
		var killed []string // instants of killed writes that did not commit
		var killedCompleted []string
		// One killed write, sometimes followed by more killed writes (which may die while
		// rolling back the earlier ones).
		for chain := 0; ; chain++ {
			before, err := timelineOf(table)
			if err != nil {
				t.Fatal(err)
			}
			pendingBefore := pendingData(before)
			w := g.next(m, 0)
			input := nextInput(w)
			delay := killDelay(w.op)
			r := runWrite(table, input, w, delay)
			if r.err != nil {
				t.Fatalf("iteration %d: write %s (kill after %s) failed on its own: %v\nstderr: %s", *iter, w.op, delay, r.err, r.stderr)
			}
			after, err := timelineOf(table)
			if err != nil {
				t.Fatal(err)
			}
			var newData []*instant
			newRollback := false
			for ts, in := range after {
				if before[ts] == nil && in.isData() {
					newData = append(newData, in)
				}
				if in.action == spec.ActionRollback && (before[ts] == nil || len(before[ts].states) != len(in.states)) {
					newRollback = true
				}
			}
			if len(newData) > 1 {
				t.Fatalf("iteration %d: one write created %d data instants", *iter, len(newData))
			}
			point := ptBeforeRequested
			if !r.killed {
				point = ptExited
				observe(w.op, r)
				st.writes++
				if len(newData) != 1 || newData[0].time != r.res.Instant || !newData[0].completed() {
					t.Fatalf("iteration %d: write %s finished as %s, but the timeline shows %v", *iter, w.op, r.res.Instant, newData)
				}
				if !equalSets(r.res.RolledBack, pendingBefore) {
					t.Fatalf("iteration %d: write rolled back %v; pending writes were %v", *iter, r.res.RolledBack, pendingBefore)
				}
				m = apply(m, w, r.res.Instant)
			} else {
				st.kills++
				st.ops[w.op]++
				if chain > 0 {
					st.chained++
				}
				if len(newData) == 1 {
					in := newData[0]
					switch {
					case in.completed():
						point = ptCompleted
						m = apply(m, w, in.time)
						killedCompleted = append(killedCompleted, in.time)
					case in.states[spec.StateInflight]:
						point = ptInflight
						base, other, err := filesOf(table, in.time)
						if err != nil {
							t.Fatal(err)
						}
						if len(base)+len(other) > 0 || exists(filepath.Join(table, ".hoodie", ".temp", in.time)) {
							point = ptFiles
						}
						killed = append(killed, in.time)
					default:
						point = ptRequested
						killed = append(killed, in.time)
					}
				} else if newRollback || !slices.Equal(pendingBefore, pendingData(after)) {
					point = ptInRollback
				}
			}
			st.points[point]++
			// (1), (2): the table reads, and holds exactly the committed rows.
			check(fmt.Sprintf("after %s write killed at %s (delay %s)", w.op, point, delay))
			if chain >= 2 || rng.IntN(5) >= 2 {
				break
			}
		}

		// (3): the next write succeeds and rolls back every killed write.
		before, err := timelineOf(table)
		if err != nil {
			t.Fatal(err)
		}
		pending := pendingData(before)
		for _, k := range killed {
			if before[k] != nil && !slices.Contains(pending, k) {
				t.Fatalf("iteration %d: killed instant %s is on the timeline but not pending", *iter, k)
			}
		}
		w, r := commitWrite("write after a kill", 100) // small: it is not what is tested
		if !equalSets(r.res.RolledBack, pending) {
			t.Fatalf("iteration %d: the write after the kill (%s %s) rolled back %v; pending writes were %v",
				*iter, w.op, r.res.Instant, r.res.RolledBack, pending)
		}
		check("after the write following the kill")
		if mdt {
			validateMetadata(t, table, *iter)
		}

		// (4): nothing of the killed writes is left, and each has a completed rollback.
		tl, err := timelineOf(table)
		if err != nil {
			t.Fatal(err)
		}
		for ts, in := range tl {
			if !in.completed() {
				t.Fatalf("iteration %d: instant %s %s is still pending after a successful write", *iter, ts, in.action)
			}
		}
		rb, err := rolledBackBy(table, tl)
		if err != nil {
			t.Fatalf("iteration %d: %v", *iter, err)
		}
		for _, k := range pending {
			if tl[k] != nil {
				t.Fatalf("iteration %d: rolled-back instant %s is still on the timeline", *iter, k)
			}
			if rb[k] == "" {
				t.Fatalf("iteration %d: no completed rollback names killed instant %s", *iter, k)
			}
			base, other, err := filesOf(table, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(base) > 0 {
				t.Fatalf("iteration %d: base files of rolled-back instant %s remain: %v", *iter, k, base)
			}
			for _, f := range other {
				if l, ok := spec.ParseLogFileName(filepath.Base(f)); ok && l.CDC() {
					t.Fatalf("iteration %d: CDC log file of rolled-back instant %s remains: %s", *iter, k, f)
				}
			}
			if len(other) > 0 {
				st.tmpLeft += len(other)
				st.finding("tmp", "iteration %d: rollback of %s left %d temporary file(s) in partitions, e.g. %s", *iter, k, len(other), other[0])
			}
			if exists(filepath.Join(table, ".hoodie", ".temp", k)) {
				t.Fatalf("iteration %d: markers of rolled-back instant %s remain", *iter, k)
			}
			if exists(filepath.Join(table, ".hoodie", ".heartbeat", k)) {
				t.Fatalf("iteration %d: heartbeat of rolled-back instant %s remains", *iter, k)
			}
		}
		// (5): no heartbeat is left that no instant names: a writer killed between starting
		// its heartbeat and requesting its instant is dead, and the write after it removes
		// its heartbeat (issue 25).
		if orphans := orphanHeartbeats(t, table, tl); len(orphans) > 0 {
			t.Fatalf("iteration %d: heartbeats of killed writers that no instant names survive the next write: %v", *iter, orphans)
		}
		for _, k := range killedCompleted {
			if exists(filepath.Join(table, ".hoodie", ".temp", k)) {
				st.markersLeft++
				st.finding("markers", "iteration %d: instant %s, killed after its completed file was written, keeps .hoodie/.temp/%s after the next write", *iter, k, k)
			}
			if exists(filepath.Join(table, ".hoodie", ".heartbeat", k)) {
				st.heartbeatsLeft++
				st.finding("heartbeat", "iteration %d: instant %s, killed after its completed file was written, keeps .hoodie/.heartbeat/%s after the next write", *iter, k, k)
			}
		}
	}
}

// equalSets compares two lists of instants as sets (a listed twice is a difference).
func equalSets(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// runConfig is a crash test's run shape: the fixed-seed CI form by default, the long
// randomized soak with HUDI_SOAK=1, and the HUDI_CRASH_SEED / _ITERATIONS / _DURATION
// overrides either way.
type runConfig struct {
	soak                      bool
	seed                      uint64
	minKills, maxIters        int
	duration                  time.Duration
	tableIters                int
	minRows, maxRows, maxSize int
}

// loadRunConfig applies the soak settings and the environment overrides to the CI form
// given, and caps the duration by the test deadline.
func loadRunConfig(t *testing.T, ci runConfig) runConfig {
	t.Helper()
	c := ci
	c.soak = os.Getenv("HUDI_SOAK") == "1"
	if c.soak {
		c.seed = uint64(time.Now().UnixNano())
		c.minKills, c.maxIters = 0, 100000
		c.duration = 45 * time.Minute
		c.tableIters = 150
		c.minRows, c.maxRows, c.maxSize = 100, 2000, 8000
	}
	if v := os.Getenv("HUDI_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HUDI_CRASH_SEED=%q: %v", v, err)
		}
		c.seed = n
	}
	if v := envInt("HUDI_CRASH_ITERATIONS", -1); v >= 0 {
		c.maxIters, c.minKills = v, 0
	}
	if v := os.Getenv("HUDI_CRASH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("HUDI_CRASH_DURATION=%q: %v", v, err)
		}
		c.duration = d
	}
	if dl, ok := t.Deadline(); ok && time.Until(dl)-30*time.Second < c.duration {
		c.duration = max(time.Until(dl)-30*time.Second, time.Second)
	}
	return c
}

// runKills is the loop of a crash test on tables of one kind: it runs tables (nextTable
// runs one, as runTable does, from iter up to its end) until the run is done — the CI
// form once cfg.minKills kills happened, the soak when cfg.duration is over, never beyond
// cfg.maxIters — and fails when fewer than cfg.minKills kills happened. stream seeds the
// test's own random stream beside cfg.seed.
func runKills(t *testing.T, cfg runConfig, stream uint64, nextTable func(rng *rand.Rand, st *stats, iter *int, done func(int) bool)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(cfg.seed, stream))
	st := &stats{points: map[string]int{}, ops: map[string]int{}}
	start := time.Now()
	t.Logf("seed %d (rerun with HUDI_CRASH_SEED=%d)", cfg.seed, cfg.seed)
	defer func() { t.Log(st.summary(cfg.seed, time.Since(start))) }()
	ciForm := !cfg.soak && os.Getenv("HUDI_CRASH_ITERATIONS") == ""
	done := func(iter int) bool {
		switch {
		case iter >= cfg.maxIters:
			return true
		case st.kills < cfg.minKills:
			return false
		case ciForm:
			return true
		}
		return time.Since(start) > cfg.duration
	}
	for iter := 0; !done(iter) && !t.Failed(); {
		nextTable(rng, st, &iter, done)
	}
	if st.kills < cfg.minKills && !t.Failed() {
		t.Errorf("only %d kills (want at least %d)", st.kills, cfg.minKills)
	}
}

// orphanHeartbeats lists the heartbeat files whose instant is not on the timeline.
func orphanHeartbeats(t *testing.T, table string, tl map[string]*instant) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(table, ".hoodie", ".heartbeat"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := spec.ParseInstantTime(e.Name()); err == nil && tl[e.Name()] == nil {
			out = append(out, e.Name())
		}
	}
	return out
}
