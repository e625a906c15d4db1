package write

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/schema"
)

// newRowsReference is newRows as it was before the meta columns were built straight
// into their buffers (string builders reserved from the batch and appended row by row),
// verbatim. The two must agree.
func (e *writeEnv) newRowsReference(ctx context.Context, in *inputSet, recs []incoming, partition, fileName string, task int, seq *int64) ([]arrow.Record, error) {
	byBatch := map[int32][]int{}
	var order []int32
	for i, r := range recs {
		if _, ok := byBatch[r.batch]; !ok {
			order = append(order, r.batch)
		}
		byBatch[r.batch] = append(byBatch[r.batch], i)
	}
	cctx := compute.WithAllocator(ctx, e.mem)
	var out []arrow.Record
	instant := string(e.txn.Instant)
	prefix := instant + "_" + strconv.Itoa(task) + "_"
	for _, bi := range order {
		idx := byBatch[bi]
		src := in.batches[bi]
		// Rows that are a run of consecutive input rows (bulk inserts, unsorted inserts)
		// are sliced, not copied.
		first := recs[idx[0]].row
		contiguous := true
		for k, i := range idx {
			if recs[i].row != first+int32(k) {
				contiguous = false
				break
			}
		}
		var indices arrow.Array
		if !contiguous {
			ib := array.NewInt32Builder(e.mem)
			ib.Reserve(len(idx))
			for _, i := range idx {
				ib.UnsafeAppend(recs[i].row)
			}
			indices = ib.NewArray()
			ib.Release()
		}
		cols := make([]arrow.Array, 0, e.outSchema.NumFields())
		meta := make([]*array.StringBuilder, 5)
		keyBytes := 0
		for _, i := range idx {
			keyBytes += len(recs[i].key)
		}
		n := len(idx)
		dataBytes := [5]int{n * len(instant), n * (len(prefix) + 8), keyBytes, n * len(partition), n * len(fileName)}
		for m := range meta {
			meta[m] = array.NewStringBuilder(e.mem)
			meta[m].Reserve(n)
			meta[m].ReserveData(dataBytes[m])
		}
		seqno := []byte(prefix)
		for _, i := range idx {
			meta[0].Append(instant)
			// "<instant>_<task>_<n>" built in a reused buffer: one per row would allocate.
			seqno = strconv.AppendInt(seqno[:len(prefix)], *seq, 10)
			meta[1].BinaryBuilder.Append(seqno)
			*seq++
			meta[2].Append(recs[i].key)
			meta[3].Append(partition)
			meta[4].Append(fileName)
		}
		for _, m := range meta {
			cols = append(cols, m.NewArray())
			m.Release()
		}
		var err error
		for c := 0; c < int(src.NumCols()); c++ {
			if contiguous {
				cols = append(cols, array.NewSlice(src.Column(c), int64(first), int64(first)+int64(n)))
				continue
			}
			var taken arrow.Array
			taken, err = compute.TakeArray(cctx, src.Column(c), indices)
			if err != nil {
				break
			}
			cols = append(cols, taken)
		}
		if indices != nil {
			indices.Release()
		}
		if err != nil {
			releaseArrays(cols)
			releaseRecords(out)
			return nil, fmt.Errorf("assemble rows: %w", err)
		}
		out = append(out, array.NewRecord(e.outSchema, cols, int64(len(idx))))
		releaseArrays(cols)
	}
	return out, nil
}

// TestNewRowsMatchesReference: meta columns built into their buffers (shared constant
// columns, seqnos and keys written directly) equal the row-by-row builder result, for
// records in batch order and out of it, contiguous runs and scattered rows, and chunks
// longer than the cached constant columns.
func TestNewRowsMatchesReference(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	in := &inputSet{schema: sc, ordIdx: -1}
	var all []incoming
	for b := 0; b < 3; b++ {
		rb := array.NewRecordBuilder(mem, sc)
		for i := 0; i < 10000; i++ {
			if i%11 == 0 {
				rb.Field(0).AppendNull()
			} else {
				rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("key-%d-%d-é", b, i))
			}
			rb.Field(1).(*array.Int64Builder).Append(int64(b*100000 + i))
			all = append(all, incoming{batch: int32(b), row: int32(i), key: fmt.Sprintf("k%d/%d", b, i), partition: "p=1"})
		}
		in.batches = append(in.batches, rb.NewRecord())
		rb.Release()
	}
	defer in.release()
	env := &writeEnv{txn: &commit.Txn{Instant: "20250101000000000"}, mem: mem, outSchema: schema.WithMetaFields(sc)}
	rnd := rand.New(rand.NewSource(1))
	shuffled := append([]incoming(nil), all...)
	rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	everyThird := []incoming{}
	for i := 0; i < len(all); i += 3 {
		everyThird = append(everyThird, all[i])
	}
	for _, tc := range []struct {
		name string
		recs []incoming
	}{
		{"contiguous-one-batch", all[100:5000]},
		{"contiguous-across-batches", all[9000:21000]},
		{"scattered-in-order", everyThird},
		{"shuffled", shuffled[:7000]},
		{"longer-than-cached", all},
		{"one", all[5:6]},
		{"none", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seqA, seqB := int64(7), int64(7)
			got, err := env.newRows(context.Background(), in, tc.recs, "city=sf", "f1-0_3-1-3_20250101000000000.parquet", 3, &seqA, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer releaseRecords(got)
			want, err := env.newRowsReference(context.Background(), in, tc.recs, "city=sf", "f1-0_3-1-3_20250101000000000.parquet", 3, &seqB)
			if err != nil {
				t.Fatal(err)
			}
			defer releaseRecords(want)
			if seqA != seqB || len(got) != len(want) {
				t.Fatalf("seq %d, %d records; want seq %d, %d records", seqA, len(got), seqB, len(want))
			}
			for i := range got {
				if !got[i].Schema().Equal(want[i].Schema()) {
					t.Fatalf("record %d schema %s, want %s", i, got[i].Schema(), want[i].Schema())
				}
				for c := 0; c < int(got[i].NumCols()); c++ {
					if !array.Equal(got[i].Column(c), want[i].Column(c)) {
						t.Fatalf("record %d column %s differs", i, got[i].Schema().Field(c).Name)
					}
				}
			}
		})
	}
	// withFileName's constant column
	rec := in.batches[0].NewSlice(3, 10)
	defer rec.Release()
	metaRows, err := env.newRows(context.Background(), in, all[3:10], "p", "old.parquet", 0, new(int64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseRecords(metaRows)
	named := withFileName(mem, metaRows[0], "new.parquet")
	defer named.Release()
	names := named.Column(4).(*array.String)
	for i := 0; i < names.Len(); i++ {
		if names.Value(i) != "new.parquet" || names.IsNull(i) {
			t.Fatalf("row %d file name %q", i, names.Value(i))
		}
	}
}

// BenchmarkNewRows assembles 8192-row chunks of scattered rows (a partition's share of
// interleaved input) as bulk_insert does.
func BenchmarkNewRows(b *testing.B) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	in := &inputSet{schema: sc, ordIdx: -1}
	rb := array.NewRecordBuilder(mem, sc)
	var recs []incoming
	for i := 0; i < 4*8192; i++ {
		k := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*7919)
		rb.Field(0).(*array.StringBuilder).Append(k)
		if i%4 == 0 {
			recs = append(recs, incoming{row: int32(i), key: k, partition: "city=sf"})
		}
	}
	in.batches = append(in.batches, rb.NewRecord())
	rb.Release()
	env := &writeEnv{txn: &commit.Txn{Instant: "20250101000000000"}, mem: mem, outSchema: schema.WithMetaFields(sc)}
	for _, impl := range []string{"direct", "builders"} {
		b.Run(impl, func(b *testing.B) {
			var seq int64
			for i := 0; i < b.N; i++ {
				var rows []arrow.Record
				var err error
				if impl == "direct" {
					rows, err = env.newRows(context.Background(), in, recs, "city=sf", "3f1de3a8-4b9e-4c53-9d0b-51ad5b8d4bd6-0_0-1-0_20250101000000000.parquet", 0, &seq, nil)
				} else {
					rows, err = env.newRowsReference(context.Background(), in, recs, "city=sf", "3f1de3a8-4b9e-4c53-9d0b-51ad5b8d4bd6-0_0-1-0_20250101000000000.parquet", 0, &seq)
				}
				if err != nil {
					b.Fatal(err)
				}
				releaseRecords(rows)
			}
		})
	}
}
