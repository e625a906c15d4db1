package write_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
)

// BenchmarkBulkInsertW1 is bench W1 without DuckDB, for profiling: hudi-go's bulk_insert
// of the trips (or, with HUDI_BENCH_WIDE=1, the 40-column) rows. The arrow-go peers it is
// judged against live in one place, the bench command (go run ./bench -only W1). Besides ns/op it
// reports the process CPU time (and its system part), minor page faults and the peak
// growth of the Go heap (sampled every 2 ms, as the bench does); HUDI_BENCH_HEAPPROF=file
// saves the heap profile (live objects at the last GC) taken at the latest new peak.
//
//	go test ./write -run '^$' -bench BulkInsertW1 -benchtime 3x -cpuprofile /tmp/w1.pprof
func BenchmarkBulkInsertW1(b *testing.B) {
	n := benchRows()
	wide := os.Getenv("HUDI_BENCH_WIDE") != ""
	ddl, key, part := benchdata.TripsDDL, "uuid", "city"
	if wide {
		n /= 5
		ddl, key, part = benchdata.WideDDL, "id", "region"
	}
	gen := func() []arrow.Record {
		if wide {
			return benchdata.Wide(n, 65536, 42)
		}
		return benchdata.Trips(n, 65536, 42)
	}
	ctx := context.Background()
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
		batches := gen()
		defer benchdata.Release(batches)
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
	// The same rows streamed (Table.WriteReader), each batch generated as it is read: the
	// peak heap is then the writer's own (the input above is held by the benchmark). The
	// generation is part of the time.
	b.Run("hudi-go-stream", func(b *testing.B) {
		run(b, func(dir string) error {
			tb, err := hudi.Create(ctx, filepath.Join(dir, "t"), hudi.CreateOptions{Name: "t", RecordKeyFields: []string{key},
				PrecombineField: "ts", PartitionFields: []string{part}, HiveStyle: true, Schema: ddl})
			if err != nil {
				return err
			}
			rdr := benchdata.TripsReader(n, 65536, 42)
			if wide {
				rdr.Release()
				rdr = benchdata.WideReader(n, 65536, 42)
			}
			defer rdr.Release()
			res, err := tb.WriteReader(ctx, rdr, hudi.WriteOptions{Operation: "bulk_insert"})
			if err == nil && res.Records.Inserted != int64(n) {
				b.Fatalf("inserted %d rows, want %d", res.Records.Inserted, n)
			}
			return err
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
