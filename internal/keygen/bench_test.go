package keygen

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var benchCities = []string{"san_francisco", "sao_paulo", "chennai", "new_york"}

// tripsRecord is a trips-like batch: string uuid key, string city partition.
func tripsRecord(n int) arrow.Record {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "rider", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(1700000000000 + int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*7919))
		b.Field(2).(*array.StringBuilder).Append("rider-" + strconv.Itoa(i%100))
		b.Field(3).(*array.Float64Builder).Append(float64(i%1000) / 10)
		b.Field(4).(*array.StringBuilder).Append(benchCities[i%len(benchCities)])
	}
	return b.NewRecord()
}

// BenchmarkRecordKeyPartitionPath is the writer's per-row key work on 1M trips rows
// (SIMPLE key on uuid, hive-style partition on city); ns/op and allocs/op are per row.
func BenchmarkRecordKeyPartitionPath(b *testing.B) {
	const rows = 1_000_000
	rec := tripsRecord(rows)
	defer rec.Release()
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"simple-hive", Options{RecordKeyFields: []string{"uuid"}, PartitionFields: []string{"city"}, HiveStyle: true}},
		{"simple", Options{RecordKeyFields: []string{"uuid"}, PartitionFields: []string{"city"}}},
		{"complex-urlencode", Options{KeyGenerator: TypeComplex, RecordKeyFields: []string{"uuid", "ts"}, PartitionFields: []string{"city", "rider"}, HiveStyle: true, URLEncode: true}},
	} {
		g, err := New(tc.o, rec.Schema())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := i % rows
				if _, err := g.RecordKey(rec, r); err != nil {
					b.Fatal(err)
				}
				if _, err := g.PartitionPath(rec, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPartitionCacheMatchesUncached checks the cached partition path against the uncached
// computation over many distinct values (colliding cache slots), nulls, empty values,
// values needing escapes and a ".." value, for every style.
func TestPartitionCacheMatchesUncached(t *testing.T) {
	var vals []string
	for i := 0; i < 2000; i++ {
		vals = append(vals, "v"+strconv.Itoa(i%700), "<null>", "", "a/b", "x=y%", "..", "ü:"+strconv.Itoa(i%3))
	}
	keys := make([]string, len(vals))
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	q := append(append([]string{}, vals[7:]...), vals[:7]...)
	rec := testRecord(t, []arrow.Field{str("id"), str("p"), str("q")}, keys, vals, q)
	for _, o := range []Options{
		{RecordKeyFields: []string{"id"}, PartitionFields: []string{"p"}},
		{RecordKeyFields: []string{"id"}, PartitionFields: []string{"p"}, HiveStyle: true},
		{RecordKeyFields: []string{"id"}, PartitionFields: []string{"p"}, URLEncode: true},
		{RecordKeyFields: []string{"id", "p"}, PartitionFields: []string{"p", "q"}, HiveStyle: true, URLEncode: true},
		{RecordKeyFields: []string{"id"}, PartitionFields: []string{"p", "q"}},
	} {
		cached := mustNew(t, o, rec.Schema())
		plain := mustNew(t, o, rec.Schema())
		for i := range plain.parts {
			plain.parts[i].cache = nil
		}
		for pass := 0; pass < 2; pass++ {
			for r := 0; r < int(rec.NumRows()); r++ {
				got, gerr := cached.PartitionPath(rec, r)
				want, werr := plain.PartitionPath(rec, r)
				if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
					t.Fatalf("%+v row %d: cached %q, %v; uncached %q, %v", o, r, got, gerr, want, werr)
				}
			}
		}
	}
}
