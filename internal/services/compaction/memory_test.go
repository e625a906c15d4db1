package compaction_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
)

// TestCompactionMemory is issue 4's memory test: compacting a file group whose log files
// are 5× and then 10× the memory budget (hoodie.memory.compaction.max.size) peaks at the
// budget plus a bounded overhead above a process that compacts a tiny group, and doubling
// the logs does not raise the peak.
//
// Each compaction runs in a child process (this test binary re-executed) whose peak RSS
// comes from wait4's rusage. Linux hands an exec'd child the parent's peak RSS too (Go
// forks with CLONE_VM, and exec records the shared address space's high-water mark), and
// the test process may have grown large in other tests; so the measurement runs in a fresh
// process of its own, which builds the tables in child processes as well and so stays
// small, and which checks that before trusting a number.
//
// Go's GC lets the heap grow to twice the live data (GOGC=100), so without a limit the
// peak measures that policy more than the compaction. The policy belongs to the program
// that embeds hudi-go (GOGC, GOMEMLIMIT); what the compaction owns is its live data. So the
// children run with GOMEMLIMIT at budget + overhead + 4 MiB (and the default GOGC): the GC
// collects before the heap passes it while the live data fits, and when the live data does
// not fit (no spilling, a row group of the default 120 MB) nothing can keep the process
// under the bound and the test fails.
func TestCompactionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~120 MB of log files")
	}
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read as Linux reports it (ru_maxrss in KiB, /proc/self/status)")
	}
	if instrumented() {
		t.Skip("built with -race, -msan or -asan: the instrumentation's shadow memory and slowness swamp the measurement")
	}
	if os.Getenv(childEnv) != "" {
		t.Skip("in a helper process")
	}
	if os.Getenv(measureEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompactionMemory$", "-test.v")
		cmd.Env = append(os.Environ(), measureEnv+"=1")
		out, err := cmd.CombinedOutput()
		relayed := false
		for _, l := range strings.Split(string(out), "\n") {
			// Its findings, once (a failing test prints them again at the end).
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "memory_test.go:") && !strings.Contains(l, "helper process") {
				t.Log("measured: " + l)
				relayed = true
			}
			if strings.HasPrefix(l, "--- ") {
				break
			}
		}
		switch {
		case err != nil && !relayed:
			t.Fatalf("measuring process: %v\n%s", err, out)
		case err != nil:
			t.Fatalf("measuring process: %v", err)
		}
		return
	}
	const (
		budget   = 8 << 20
		payload  = 4 << 10
		keys     = budget / payload // one deltacommit of all keys ≈ the budget
		commits  = 5                // 1×: logs ≈ 5 × budget; 2×: 10 × budget
		blockMax = budget / 4       // hoodie.logfile.data.block.max.size of the writes
		rowGroup = 1 << 20          // hoodie.parquet.block.size of the compaction
		pageSize = 1 << 20          // hoodie.parquet.page.size (the default)
	)
	// overhead is what a compaction holds beyond the budget's log records, by the settings
	// that bound each part: the output row group, buffered until it is flushed in a
	// buffer that grows by doubling (2 × block size); one row group of the base file,
	// whose column chunks the Parquet reader loads whole, as parquet-mr does (the base
	// file was written with the same block size); the page being encoded of the wide
	// column, its plain, uncompressed and compressed forms and the encoder's buffer
	// (4 × page size); one log block's bytes (blockMax); the batches in flight — decoded
	// from a log block, decoded ahead from the base file, being merged, queued for and in
	// the writer, read back from the spill file — each at most a sixteenth of the budget,
	// about eight of them (budget / 2); and 2 MiB for the key map (~150 bytes a key,
	// under 1 MiB here) and the GC's headroom under the limit.
	const overhead = 3*rowGroup + 4*pageSize + blockMax + budget/2 + 2<<20
	// growthSlack bounds how much more the 2× compaction may peak at: it reads 40 MB more
	// log data and writes 8 MB more output, so even a leak of a tenth of the added log
	// bytes shows.
	const growthSlack = 4 << 20

	root := t.TempDir()
	spill := filepath.Join(root, "spill")
	if err := os.Mkdir(spill, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{
		"hoodie.memory.compaction.max.size": strconv.Itoa(budget),
		"hoodie.memory.spillable.map.path":  spill,
		"hoodie.parquet.block.size":         strconv.Itoa(rowGroup),
		"hoodie.parquet.page.size":          strconv.Itoa(pageSize),
		"hoodie.parquet.compression.codec":  "snappy",
	}
	env := []string{"GOGC=100", fmt.Sprintf("GOMEMLIMIT=%d", budget+overhead+4<<20)}
	tables := []struct {
		name string
		keys int
	}{
		{"tiny", 10}, // the baseline: the same process, settings and code path, on 10 rows
		{"1x", keys},
		{"2x", 2 * keys},
	}
	// Each size is set up twice and compacted twice, and the lower peak counts: a
	// compaction changes its table, so it cannot be repeated on one copy, and noise (the
	// GC's timing on a loaded machine) can only add to a peak.
	copyDir := func(name string, i int) string { return filepath.Join(root, fmt.Sprintf("%s-%d", name, i)) }
	for _, tc := range tables {
		for i := range 2 {
			runChild(t, memJob{Do: "setup", Dir: copyDir(tc.name, i), Keys: tc.keys, DeltaCommits: commits,
				Payload: payload, BlockMax: blockMax, RowGroup: rowGroup}, nil)
		}
	}
	peak := map[string]int64{}
	for _, tc := range tables {
		for i := range 2 {
			p := runChild(t, memJob{Do: "compact", Dir: copyDir(tc.name, i), Settings: settings}, env)
			if i == 0 || p < peak[tc.name] {
				peak[tc.name] = p
			}
		}
	}
	if self := selfPeakRSS(t); self >= peak["tiny"] {
		t.Fatalf("this process peaked at %s, the baseline child at %s: a child's rusage may be this process's peak (see the doc comment)",
			mb(self), mb(peak["tiny"]))
	}
	bound := peak["tiny"] + budget + overhead
	for _, name := range []string{"1x", "2x"} {
		logs := logBytes(t, copyDir(name, 0))
		if logs < 4*budget {
			t.Fatalf("%s: %s of log files, want at least 4 × the %s budget", name, mb(logs), mb(budget))
		}
		t.Logf("%s: %s of log files (%.1f × budget), peak RSS %s; bound %s = baseline %s + budget %s + overhead %s",
			name, mb(logs), float64(logs)/budget, mb(peak[name]), mb(bound), mb(peak["tiny"]), mb(budget), mb(overhead))
		if peak[name] > bound {
			t.Errorf("compacting %s (%s of logs) peaked at %s RSS, over the %s bound", name, mb(logs), mb(peak[name]), mb(bound))
		}
	}
	if grew := peak["2x"] - peak["1x"]; grew > growthSlack {
		t.Errorf("doubling the logs raised the peak RSS by %s (%s → %s), more than %s: memory grows with the data",
			mb(grew), mb(peak["1x"]), mb(peak["2x"]), mb(growthSlack))
	}

	// The compacted tables read back whole: one base file per table (the file group), every
	// key once with the last deltacommit's payload.
	for _, tc := range tables[1:] {
		for i := range 2 {
			checkCompacted(t, copyDir(tc.name, i), tc.keys, commits, payload)
		}
	}
}

// TestCompactionMemoryChild is the helper process of TestCompactionMemory.
func TestCompactionMemoryChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("helper process of TestCompactionMemory")
	}
	var job memJob
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	switch job.Do {
	case "setup":
		if err := setupMemTable(ctx, job); err != nil {
			t.Fatal(err)
		}
	case "compact":
		tbl, err := hudi.Open(ctx, job.Dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tbl.Compact(ctx, hudi.CompactOptions{Settings: job.Settings})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Completed || res.FilesWritten != 1 {
			t.Fatalf("compaction: %+v, want one file group compacted", res)
		}
	default:
		t.Fatalf("unknown job %q", job.Do)
	}
}

// childEnv carries a JSON memJob to a re-executed test binary (TestCompactionMemoryChild);
// measureEnv marks the process that runs TestCompactionMemory's measurement.
const (
	childEnv   = "HUDI_COMPACTION_MEMORY_JOB"
	measureEnv = "HUDI_COMPACTION_MEMORY_MEASURE"
)

// memJob is what a child process does: "setup" builds a table, "compact" compacts it.
type memJob struct {
	Do  string
	Dir string
	// Table shape (setup): Keys records inserted, then DeltaCommits upserts of every key,
	// each record with Payload bytes, in log blocks of at most BlockMax bytes and a base
	// file of RowGroup-byte row groups.
	Keys, DeltaCommits, Payload int
	BlockMax, RowGroup          int64
	// Settings of the compaction.
	Settings map[string]string
}

// runChild runs job in a fresh process with extra environment env and returns its peak
// RSS in bytes.
func runChild(t *testing.T, job memJob, env []string) int64 {
	t.Helper()
	spec, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompactionMemoryChild$", "-test.v")
	cmd.Env = append(append(os.Environ(), childEnv+"="+string(spec)), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", job.Do, filepath.Base(job.Dir), err, out.String())
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("%s %s: peak RSS %s in %v", job.Do, filepath.Base(job.Dir), mb(peak), time.Since(start).Round(time.Millisecond))
	return peak
}

var memSchema = arrow.NewSchema([]arrow.Field{
	{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func keyOf(i int) string { return fmt.Sprintf("key-%06d", i) }

// payloadOf is the payload of key i written by deltacommit ts: n bytes of base64 of random
// bytes — cheap to make, and Snappy cannot shrink it, so the output's compressed row groups
// are as large as the data — and the same on every call, so the check can recompute what
// the compaction must have written.
func payloadOf(i, ts, n int) string {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(i))
	binary.LittleEndian.PutUint64(seed[8:], uint64(ts))
	raw := make([]byte, n*3/4)
	rand.NewChaCha8(seed).Read(raw)
	return base64.StdEncoding.EncodeToString(raw)
}

// memBatch is every key at commit ts (0: the insert).
func memBatch(keys, ts, payload int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, memSchema)
	defer b.Release()
	for i := 0; i < keys; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(ts))
		b.Field(1).(*array.StringBuilder).Append(keyOf(i))
		b.Field(2).(*array.StringBuilder).Append(payloadOf(i, ts, payload))
	}
	return b.NewRecord()
}

// setupMemTable creates a MOR table with ONE file group: a base file of job.Keys rows, then
// job.DeltaCommits upserts of all of them, which all land in that group's log files. The
// base rows are as wide as the log records: a merge reads the base file in batches too.
func setupMemTable(ctx context.Context, job memJob) error {
	tbl, err := hudi.Create(ctx, job.Dir, hudi.CreateOptions{Name: "mem", Type: "mor", RecordKeyFields: []string{"uuid"},
		PrecombineField: "ts", Schema: "ts BIGINT, uuid STRING, payload STRING"})
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	// Blocks of a quarter of the budget, as Hudi's defaults relate them (256 MB blocks,
	// 1 GB budget): a block is read whole, so its size is part of the overhead, and so is
	// a row group of the base file.
	settings := map[string]string{
		"hoodie.parquet.compression.codec":   "snappy",
		"hoodie.parquet.block.size":          strconv.FormatInt(job.RowGroup, 10),
		"hoodie.logfile.data.block.max.size": strconv.FormatInt(job.BlockMax, 10),
	}
	for ts := 0; ts <= job.DeltaCommits; ts++ {
		op := "upsert"
		if ts == 0 {
			op = "insert"
		}
		rec := memBatch(job.Keys, ts, job.Payload)
		_, err := tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: op, Settings: settings})
		rec.Release()
		if err != nil {
			return fmt.Errorf("%s %d: %w", op, ts, err)
		}
	}
	return nil
}

// checkCompacted reads the compacted table (read-optimized: the new base file alone) and
// compares row count and an order-independent checksum with what the last deltacommit
// wrote.
func checkCompacted(t *testing.T, dir string, keys, commits, payload int) {
	t.Helper()
	ctx := context.Background()
	bases, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var fileIDs = map[string]bool{}
	for _, b := range bases {
		fileIDs[strings.SplitN(filepath.Base(b), "_", 2)[0]] = true
	}
	if len(fileIDs) != 1 {
		t.Errorf("%s: base files of %d file groups, want 1: %v", dir, len(fileIDs), bases)
	}
	var want uint64
	for i := 0; i < keys; i++ {
		want += rowSum(keyOf(i), int64(commits), payloadOf(i, commits, payload))
	}
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	scan, err := tbl.Scan(ctx, hudi.ScanOptions{ReadOptimized: true, Columns: []string{"uuid", "ts", "payload"}})
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	var got uint64
	err = scan.Run(ctx, func(rec arrow.Record) error {
		uuid := rec.Column(0).(*array.String)
		ts := rec.Column(1).(*array.Int64)
		pl := rec.Column(2).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			got += rowSum(uuid.Value(i), ts.Value(i), pl.Value(i))
		}
		rows += int(rec.NumRows())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != keys || got != want {
		t.Errorf("%s after compaction: %d rows, checksum %x; want %d rows, checksum %x", filepath.Base(dir), rows, got, keys, want)
	}
}

// rowSum hashes one row; summing makes the checksum independent of row order.
func rowSum(uuid string, ts int64, payload string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(uuid))
	h.Write(binary.LittleEndian.AppendUint64(nil, uint64(ts)))
	h.Write([]byte(payload))
	return h.Sum64()
}

// logBytes is the size of a table's log files, compacted or not.
func logBytes(t *testing.T, dir string) int64 {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, ".*.log.*"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, l := range logs {
		fi, err := os.Stat(l)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// selfPeakRSS is this process's peak RSS (VmHWM) in bytes.
func selfPeakRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// instrumented reports a -race, -msan or -asan build.
func instrumented() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if (s.Key == "-race" || s.Key == "-msan" || s.Key == "-asan") && s.Value == "true" {
			return true
		}
	}
	return false
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
