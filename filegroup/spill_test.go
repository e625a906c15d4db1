package filegroup

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestBatchStoreSpillsBeyondBudget(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func(n int) arrow.Record {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for i := 0; i < 100; i++ {
			b.Field(0).(*array.StringBuilder).Append("key")
			b.Field(1).(*array.Int64Builder).Append(int64(n*1000 + i))
		}
		return b.NewRecord()
	}
	first := batch(0)
	budget := recordBytes(first) + 1 // the first batch fits, the next ones spill
	s := newBatchStore(budget, t.TempDir(), mem, sc)
	defer s.release()
	for n := 0; n < 4; n++ {
		rec := first
		if n > 0 {
			rec = batch(n)
		}
		i, err := s.add(rec)
		if err != nil || int(i) != n {
			t.Fatalf("add %d: index %d, %v", n, i, err)
		}
	}
	if s.spilledBatches() != 3 || s.len() != 4 {
		t.Fatalf("spilled %d of %d batches, want 3 of 4", s.spilledBatches(), s.len())
	}
	for n := 3; n >= 0; n-- { // any order
		rec, err := s.get(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Column(1).(*array.Int64).Value(99); got != int64(n*1000+99) {
			t.Errorf("batch %d: last value %d", n, got)
		}
		rec.Release()
	}
}
