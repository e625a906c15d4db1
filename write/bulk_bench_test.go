package write_test

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/schema"
)

// BenchmarkBulkInsertW1 is bench W1 without DuckDB, for profiling: hudi-go's bulk_insert
// of the trips (or, with HUDI_BENCH_WIDE=1, the 40-column) rows against the bench's
// arrow-go+meta peers (the same rows plus the five _hoodie_* columns with Hudi's values,
// one file per partition, the bench's Parquet settings; one row group per file, or one
// per input batch and partition). Besides ns/op it
// reports the process CPU time (and its system part), minor page faults and the peak
// growth of the Go heap (sampled every 2 ms, as the bench does); HUDI_BENCH_HEAPPROF=file
// saves the heap profile (live objects at the last GC) taken at the latest new peak.
//
//	go test ./write -run '^$' -bench BulkInsertW1 -benchtime 3x -cpuprofile /tmp/w1.pprof
func BenchmarkBulkInsertW1(b *testing.B) {
	n := benchRows()
	var batches []arrow.Record
	ddl, key, part, keyCol, partCol := benchdata.TripsDDL, "uuid", "city", 1, 5
	if os.Getenv("HUDI_BENCH_WIDE") != "" {
		n /= 5
		batches = benchdata.Wide(n, 65536, 42)
		ddl, key, part, keyCol, partCol = benchdata.WideDDL, "id", "region", 0, 2
	} else {
		batches = benchdata.Trips(n, 65536, 42)
	}
	defer benchdata.Release(batches)
	ctx := context.Background()
	const instant = "20250101000000000"
	run := func(b *testing.B, fn func(dir string) error) {
		var cpu, sys time.Duration
		var peak uint64
		var flt int64
		for i := 0; i < b.N; i++ {
			dir := b.TempDir()
			runtime.GC()
			m := startHeapMonitor()
			c0, s0, f0 := processCPU()
			if err := fn(dir); err != nil {
				b.Fatal(err)
			}
			c1, s1, f1 := processCPU()
			cpu, sys, flt = cpu+c1-c0, sys+s1-s0, flt+f1-f0
			peak = max(peak, m.stop())
			os.RemoveAll(dir)
		}
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(sys.Milliseconds())/float64(b.N), "sys-ms/op")
		b.ReportMetric(float64(flt)/float64(b.N), "minflt/op")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
	b.Run("hudi-go", func(b *testing.B) {
		run(b, func(dir string) error {
			tb, err := hudi.Create(ctx, filepath.Join(dir, "t"), hudi.CreateOptions{Name: "t", RecordKeyFields: []string{key},
				PrecombineField: "ts", PartitionFields: []string{part}, HiveStyle: true, Schema: ddl})
			if err != nil {
				return err
			}
			res, err := tb.Write(ctx, batches, hudi.WriteOptions{Operation: "bulk_insert"})
			if err == nil && res.Records.Inserted != int64(n) {
				b.Fatalf("inserted %d rows, want %d", res.Records.Inserted, n)
			}
			return err
		})
	})
	b.Run("arrow-go+meta", func(b *testing.B) {
		run(b, func(dir string) error {
			return arrowWritePartitioned(ctx, dir, batches, keyCol, partCol, true, "gzip", instant, true)
		})
	})
	b.Run("arrow-go+meta-rg-per-batch", func(b *testing.B) {
		run(b, func(dir string) error {
			return arrowWritePartitioned(ctx, dir, batches, keyCol, partCol, true, "gzip", instant, false)
		})
	})
}

// processCPU returns the process's CPU time (user+system), system time and minor page
// faults so far.
func processCPU() (cpu, sys time.Duration, minflt int64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), time.Duration(ru.Stime.Nano()), ru.Minflt
}

type heapMonitor struct {
	base, peak atomic.Uint64
	done       chan struct{}
	wg         sync.WaitGroup
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapMonitor() *heapMonitor {
	m := &heapMonitor{done: make(chan struct{})}
	m.base.Store(heapObjects())
	m.peak.Store(m.base.Load())
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var last time.Time
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
				if v := heapObjects(); v > m.peak.Load() {
					m.peak.Store(v)
					if f := os.Getenv("HUDI_BENCH_HEAPPROF"); f != "" && time.Since(last) > 200*time.Millisecond {
						last = time.Now()
						var buf bytes.Buffer
						pprof.Lookup("heap").WriteTo(&buf, 0)
						os.WriteFile(f, buf.Bytes(), 0o644)
					}
				}
			}
		}
	}()
	return m
}

func (m *heapMonitor) stop() uint64 {
	close(m.done)
	m.wg.Wait()
	return m.peak.Load() - m.base.Load()
}

// arrowWritePartitioned is a copy of bench/peers.go's arrow-go peer of bulk_insert (the
// bench command's package cannot be imported): rows are grouped by the
// partition column into one Parquet file per partition; with meta it prepends the five
// _hoodie_* columns holding the values Hudi writes: the commit time, the sequence number
// "<instant>_<task>_<n>" (task = the partition's rank in path order, n = the row's
// position in its file), the key, the partition path and a file name of Hudi's form
// ("<file id>-0_<task>-1-<task>_<instant>.parquet"), so both sides encode and compress
// the same bytes. With oneRowGroup every file is one row group, as hudi-go's (and Hudi's)
// files of less than hoodie.parquet.block.size (120 MiB) are: pqarrow's WriteBuffered.
// Without it each batch's rows of a partition become a row group of their own
// (pqarrow's Write): smaller column chunks that each fit one page, a different layout.
func arrowWritePartitioned(ctx context.Context, dir string, batches []arrow.Record, keyCol, partCol int, withMeta bool, codec, instant string, oneRowGroup bool) error {
	sc := batches[0].Schema()
	partName := sc.Field(partCol).Name
	if withMeta {
		sc = schema.WithMetaFields(sc)
	}
	if codec != "gzip" {
		return fmt.Errorf("codec %s: this copy of the peer writes gzip only", codec)
	}
	// bench's writerProps("gzip")
	props := pq.NewWriterProperties(pq.WithCompression(compress.Codecs.Gzip), pq.WithDictionaryDefault(false), pq.WithStats(true),
		pq.WithDataPageSize(1<<20), pq.WithDataPageVersion(pq.DataPageV1), pq.WithMaxRowGroupLength(1<<40))
	// Tasks are numbered in partition path order, as hudi-go's write tasks are.
	var paths []string
	seen := map[string]bool{}
	for _, rec := range batches {
		part := rec.Column(partCol).(*array.String)
		for i := 0; i < part.Len(); i++ {
			if v := part.Value(i); !seen[v] {
				seen[v] = true
				paths = append(paths, strings.Clone(v))
			}
		}
	}
	sort.Strings(paths)
	task := map[string]int{}
	for i, p := range paths {
		task[p] = i
	}
	writers := map[string]*pqarrow.FileWriter{}
	fileNames := map[string]string{}
	rowsInFile := map[string]int{}
	mem := memory.DefaultAllocator
	for _, rec := range batches {
		part := rec.Column(partCol).(*array.String)
		idx := map[string][]int32{}
		var order []string
		for i := 0; i < int(rec.NumRows()); i++ {
			v := part.Value(i)
			if _, ok := idx[v]; !ok {
				order = append(order, v)
			}
			idx[v] = append(idx[v], int32(i))
		}
		for _, pv := range order {
			rows := idx[pv]
			w := writers[pv]
			if w == nil {
				t := task[pv]
				h := fnv.New64a()
				h.Write([]byte(pv))
				id := h.Sum64()
				fileNames[pv] = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x-0_%d-1-%d_%s.parquet",
					uint32(id), uint16(id>>32), (id>>48)&0xfff, t, id&0xffffffffffff, t, t, instant)
				pdir := filepath.Join(dir, partName+"="+pv)
				if err := os.MkdirAll(pdir, 0o755); err != nil {
					return err
				}
				f, err := os.Create(filepath.Join(pdir, fileNames[pv]))
				if err != nil {
					return err
				}
				if w, err = pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem))); err != nil {
					return err
				}
				writers[pv] = w
			}
			ib := array.NewInt32Builder(mem)
			ib.AppendValues(rows, nil)
			ia := ib.NewInt32Array()
			ib.Release()
			var cols []arrow.Array
			if withMeta {
				keys := rec.Column(keyCol).(*array.String)
				sbs := make([]*array.StringBuilder, 5)
				for k := range sbs {
					sbs[k] = array.NewStringBuilder(mem)
					sbs[k].Reserve(len(rows))
				}
				prefix := instant + "_" + strconv.Itoa(task[pv]) + "_"
				n := rowsInFile[pv]
				for _, row := range rows {
					sbs[0].Append(instant)
					sbs[1].Append(prefix + strconv.Itoa(n))
					sbs[2].Append(keys.Value(int(row)))
					sbs[3].Append(partName + "=" + pv)
					sbs[4].Append(fileNames[pv])
					n++
				}
				for _, b := range sbs {
					cols = append(cols, b.NewArray())
					b.Release()
				}
			}
			rowsInFile[pv] += len(rows)
			for c := 0; c < int(rec.NumCols()); c++ {
				taken, err := compute.TakeArray(ctx, rec.Column(c), ia)
				if err != nil {
					return err
				}
				cols = append(cols, taken)
			}
			ia.Release()
			out := array.NewRecord(sc, cols, int64(len(rows)))
			for _, c := range cols {
				c.Release()
			}
			var err error
			if oneRowGroup {
				err = w.WriteBuffered(out)
			} else {
				err = w.Write(out)
			}
			out.Release()
			if err != nil {
				return err
			}
		}
	}
	for _, w := range writers {
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}
