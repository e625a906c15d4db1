package write

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"
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
			in := &inputSet{records: recs}
			m, order := in.groupByPartition()
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
