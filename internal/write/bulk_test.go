package write

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/keygen"
)

// TestGroupByPartition: the grouping gives every partition its records in
// input order, partitions sorted, exactly as copying them into per-partition slices does.
func TestGroupByPartition(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	for _, tc := range []struct{ n, parts int }{{0, 1}, {1, 1}, {10, 3}, {1000, 1}, {5000, 4}, {20000, 37}, {300001, 5}, {200000, 40}} {
		t.Run(fmt.Sprintf("%d-%d", tc.n, tc.parts), func(t *testing.T) {
			paths := make([]string, tc.parts)
			for i := range paths {
				paths[i] = fmt.Sprintf("p=%03d", rnd.Intn(1000))
			}
			recs := make([]incoming, tc.n)
			for i := range recs {
				p := paths[rnd.Intn(tc.parts)]
				if rnd.Intn(3) > 0 && i > 0 {
					p = recs[i-1].partition // runs, as sorted or clustered input has
				}
				recs[i] = incoming{batch: int32(i / 100), row: int32(i % 100), key: fmt.Sprint("k", i), partition: p, softDelete: i%7 == 0}
			}
			want := map[string][]incoming{}
			for _, r := range recs {
				want[r.partition] = append(want[r.partition], r)
			}
			var wantOrder []string
			for p := range want {
				wantOrder = append(wantOrder, p)
			}
			sort.Strings(wantOrder)
			// The compact grouping (rowGrouper) keeps the same rows, soft deletes left out,
			// in the same order: row i of the input is record i here.
			var g rowGrouper
			for _, r := range recs {
				g.add(r.partition, r.softDelete)
			}
			compact := g.group()
			live := 0
			for pi, p := range compact.paths {
				var wantRows []uint32
				for i, r := range recs {
					if r.partition == p && !r.softDelete {
						wantRows = append(wantRows, uint32(i))
					}
				}
				if !slices.Equal(compact.rows[pi], wantRows) {
					t.Fatalf("compact partition %s: rows differ", p)
				}
				live += len(wantRows)
			}
			in := &inputSet{records: recs}
			m, order := in.groupByPartition()
			if !slices.Equal(compact.paths, order) || compact.total != live {
				t.Fatalf("compact paths %v, total %d; want %v, %d", compact.paths, compact.total, order, live)
			}
			if !slices.Equal(order, wantOrder) {
				t.Fatalf("order %v, want %v", order, wantOrder)
			}
			for _, p := range order {
				if !slices.Equal(m[p], want[p]) {
					t.Fatalf("partition %s: records differ", p)
				}
			}
			if len(m) != len(want) {
				t.Fatalf("%d partitions, want %d", len(m), len(want))
			}
			var concat []incoming
			for _, p := range order {
				concat = append(concat, m[p]...)
			}
			if !slices.Equal(in.records, concat) {
				t.Fatal("in.records is not the grouped records")
			}
		})
	}
}

// BenchmarkGroupByPartition: grouping into one slice against copying into per-partition
// slices (plan's byPartition), 1M records over 4 interleaved partitions.
func BenchmarkGroupByPartition(b *testing.B) {
	const n = 1_000_000
	paths := []string{"city=san_francisco", "city=sao_paulo", "city=chennai", "city=new_york"}
	src := make([]incoming, n)
	for i := range src {
		src[i] = incoming{row: int32(i), key: "k", partition: paths[i%4]}
	}
	recs := make([]incoming, n)
	b.Run("one-slice", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			copy(recs, src)
			in := &inputSet{records: recs}
			in.groupByPartition()
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			copy(recs, src)
			counts := map[string]int{}
			for _, r := range recs {
				counts[r.partition]++
			}
			m := map[string][]incoming{}
			for p, c := range counts {
				m[p] = make([]incoming, 0, c)
			}
			for _, r := range recs {
				m[r.partition] = append(m[r.partition], r)
			}
		}
	})
}

// TestCollectCompactBytesPerRow: the compact input of a bulk_insert costs 8 bytes per
// input row (partition number while grouping, row number for the write) where the
// records cost 48, and nothing else per row (the trips keys are the input's strings and
// partition paths are numbered, not kept per row). Counted with runtime.MemStats,
// for n and 2n rows, so per-write costs cancel out.
//
// It skips under -race (the detector's bookkeeping allocates too) and runs in the no-race
// memory phase of scripts/test.
func TestCollectCompactBytesPerRow(t *testing.T) {
	if underRace {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	perRow := func(compact bool) float64 {
		allocs := func(n int) uint64 {
			batches := benchdata.Trips(n, 65536, 42)
			defer benchdata.Release(batches)
			sc := batches[0].Schema()
			gen, err := keygen.New(keygen.Options{RecordKeyFields: []string{"uuid"}, PartitionFields: []string{"city"}, HiveStyle: true}, sc)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			in, err := collect(context.Background(), memory.DefaultAllocator, batches, sc, keyer{gen: gen}, "ts", false, nil, compact)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if in.numRecords() != n {
				t.Fatalf("%d records, want %d", in.numRecords(), n)
			}
			in.release()
			return after.TotalAlloc - before.TotalAlloc
		}
		// TotalAlloc counts the whole process, so a goroutine another test left behind
		// (or the race detector's own bookkeeping) can only add to a measurement: the
		// least of three runs of each size is the closest to collect's own cost.
		least := func(n int) uint64 {
			m := allocs(n)
			for i := 0; i < 2; i++ {
				m = min(m, allocs(n))
			}
			return m
		}
		const n = 200_000
		a, b := least(n), least(2*n)
		return float64(int64(b)-int64(a)) / n
	}
	compact, records := perRow(true), perRow(false)
	t.Logf("collect allocates %.1f bytes per input row compact, %.1f as records", compact, records)
	if compact > 12 {
		t.Fatalf("compact collect allocates %.1f bytes per input row, want ≤ 12 (8: partition and row numbers)", compact)
	}
}
