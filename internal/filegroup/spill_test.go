package filegroup

import (
	"runtime"
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

// TestBatchStoreDrop: a dropped in-memory batch is freed at once (its bytes leave the
// budget) while references taken before stay valid, and asking for it again is an error.
func TestBatchStoreDrop(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	s := newBatchStore(-1, t.TempDir(), mem, sc)
	defer s.release()
	for n := 0; n < 2; n++ {
		b := array.NewRecordBuilder(mem, sc)
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{int64(n), int64(n)}, nil)
		if _, err := s.add(b.NewRecord()); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	before := s.used
	held, err := s.get(0)
	if err != nil {
		t.Fatal(err)
	}
	s.drop(0)
	s.drop(0) // twice is harmless
	if s.used >= before {
		t.Errorf("used %d after the drop, %d before", s.used, before)
	}
	if got := held.Column(0).(*array.Int64).Value(1); got != 0 {
		t.Errorf("held batch reads %d after the drop", got)
	}
	held.Release()
	if _, err := s.get(0); err == nil {
		t.Error("get of a dropped batch succeeded")
	}
	rec, err := s.get(1)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
}

// TestAvroChunks: a log block's records are cut into chunks of at most BatchSize rows and
// about logBatchBytes bytes (one record over at most), in order and covering every record;
// a block of many small records is cut into one chunk per core.
func TestAvroChunks(t *testing.T) {
	recs := func(n, size int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = make([]byte, size)
		}
		return out
	}
	for _, c := range []struct {
		name       string
		recs       [][]byte
		batchSize  int
		budget     int64
		wantChunks int // 0: not checked
	}{
		{"rows", recs(10, 100), 4, 0, 3},
		{"bytes", recs(8, 300<<10), 8192, 8 << 20, 4}, // 512 KB batches of 300 KB records
		{"one record over the limit", recs(3, 5<<20), 8192, 0, 3},
		{"small block", recs(100, 10), 8192, 0, 1},
		{"empty block", nil, 8192, 0, 0},
		{"parallel", recs(runtime.GOMAXPROCS(0)*minParallelChunkRows, 10), 1 << 20, 0, runtime.GOMAXPROCS(0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &sliceReader{opts: Options{BatchSize: c.batchSize, MaxLogMemory: c.budget}}
			chunks := r.avroChunks(c.recs)
			if c.wantChunks > 0 && len(chunks) != c.wantChunks {
				t.Errorf("%d chunks %v, want %d", len(chunks), chunks, c.wantChunks)
			}
			next := 0
			for _, ch := range chunks {
				if ch.from != next || ch.to <= ch.from {
					t.Fatalf("chunks %v are not consecutive runs", chunks)
				}
				var bytes, largest int
				for _, raw := range c.recs[ch.from:ch.to] {
					bytes += len(raw)
					largest = max(largest, len(raw))
				}
				if ch.to-ch.from > c.batchSize || bytes > r.logBatchBytes()+largest {
					t.Errorf("chunk %v: %d rows, %d bytes (batch size %d, limit %d)", ch, ch.to-ch.from, bytes, c.batchSize, r.logBatchBytes())
				}
				next = ch.to
			}
			if next != len(c.recs) {
				t.Errorf("chunks %v cover %d of %d records", chunks, next, len(c.recs))
			}
		})
	}
}
