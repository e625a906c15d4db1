package write

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The five _hoodie_* meta columns are built straight into their Arrow buffers (offsets
// and bytes computed here), not appended row by row through builders: builders grow and
// zero their buffers, which made meta-column construction a visible part of bulk_insert.
// Three of the five are one value repeated (commit time, partition path, file name); their
// buffers are built once per value and write and shared by every batch that needs them.

// newRows builds output-schema rows for input records: the data columns taken from the
// input batches, the meta columns filled for this write (commit time, sequence number
// "<instant>_<task>_<n>", key, partition, file name; with virtual keys only the file name,
// null when fileName is ""). Records are grouped by input batch
// (in order of first appearance, each group in record order); *seq numbers the rows in
// that order. With scratch the seqno and key columns are built in its buffers, reused
// by the next call: the rows must be written (and released) before it.
func (e *writeEnv) newRows(ctx context.Context, in *inputSet, recs []incoming, partition, fileName string, task int, seq *int64, scratch *metaScratch) ([]arrow.Record, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	groups := groupByBatch(recs)
	cctx := compute.WithAllocator(ctx, e.buffers())
	out := make([]arrow.Record, 0, len(groups))
	instant := string(e.txn.Instant)
	prefix := instant + "_" + strconv.Itoa(task) + "_"
	for gi, g := range groups {
		src := in.batches[g.batch]
		n := len(g.idx)
		// Rows that are a run of consecutive input rows (bulk inserts, unsorted inserts)
		// are sliced, not copied.
		first := recs[g.idx[0]].row
		contiguous := true
		for k, i := range g.idx {
			if recs[i].row != first+int32(k) {
				contiguous = false
				break
			}
		}
		cols := make([]arrow.Array, 0, e.outSchema.NumFields())
		if e.virtualKeys {
			cols = append(cols, e.virtualMetaColumns(fileName, n)...)
		} else {
			cols = append(cols,
				e.constant(instant, n),
				seqnoColumn(prefix, *seq, n, scratch.seqno(gi)),
				keyColumn(recs, g.idx, scratch.key(gi)),
				e.constant(partition, n),
				e.constant(fileName, n))
		}
		*seq += int64(n)
		var indices arrow.Array
		if !contiguous {
			ib := array.NewInt32Builder(e.buffers())
			ib.Reserve(n)
			for _, i := range g.idx {
				ib.UnsafeAppend(recs[i].row)
			}
			indices = ib.NewArray()
			ib.Release()
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
		out = append(out, array.NewRecord(e.outSchema, cols, int64(n)))
		releaseArrays(cols)
	}
	return out, nil
}

// batchGroup is the records (indexes into recs) of one input batch.
type batchGroup struct {
	batch int32
	idx   []int
}

// groupByBatch groups record indexes by input batch, batches in order of first
// appearance. Records in batch order (every write but an upsert's merges) need no map.
func groupByBatch(recs []incoming) []batchGroup {
	all := make([]int, len(recs))
	sorted := true
	for i := range recs {
		all[i] = i
		if i > 0 && recs[i].batch < recs[i-1].batch {
			sorted = false
		}
	}
	if sorted {
		var out []batchGroup
		for start := 0; start < len(recs); {
			end := start + 1
			for end < len(recs) && recs[end].batch == recs[start].batch {
				end++
			}
			out = append(out, batchGroup{batch: recs[start].batch, idx: all[start:end:end]})
			start = end
		}
		return out
	}
	pos := map[int32]int{}
	var out []batchGroup
	for i, r := range recs {
		g, ok := pos[r.batch]
		if !ok {
			g = len(out)
			pos[r.batch] = g
			out = append(out, batchGroup{batch: r.batch})
		}
		out[g].idx = append(out[g].idx, i)
	}
	return out
}

// metaScratch holds the buffers of the per-row meta columns (seqno, key) of one
// createFiles task, reused chunk after chunk: a file's rows are written before the next
// chunk is built, and the Parquet writer copies what it keeps (values into pages,
// statistics, samples), so a bulk_insert allocates these columns once per task instead
// of once per row. A nil *metaScratch allocates fresh buffers.
// One call's rows (one record per input batch) are written after it returns, so each
// record of a call has its own buffers.
type metaScratch struct {
	seq, keys []colBufs // per record of a newRows call
}

// colBufs are a string column's offsets and bytes.
type colBufs struct {
	offsets []int32
	data    []byte
}

// seqno is the seqno buffers of a call's record g.
func (s *metaScratch) seqno(g int) *colBufs {
	if s == nil {
		return nil
	}
	for len(s.seq) <= g {
		s.seq = append(s.seq, colBufs{})
	}
	return &s.seq[g]
}

// key is the key buffers of a call's record g.
func (s *metaScratch) key(g int) *colBufs {
	if s == nil {
		return nil
	}
	for len(s.keys) <= g {
		s.keys = append(s.keys, colBufs{})
	}
	return &s.keys[g]
}

// get returns buffers for n values and size bytes: b's when it has them (they are then
// kept for the next call), new ones otherwise.
func (b *colBufs) get(n, size int) ([]int32, []byte) {
	if b == nil {
		return make([]int32, n+1), make([]byte, 0, size)
	}
	if cap(b.offsets) < n+1 {
		b.offsets = make([]int32, n+1)
	}
	if cap(b.data) < size {
		b.data = make([]byte, 0, size)
	}
	return b.offsets[:n+1], b.data[:0]
}

// seqnoColumn is "<prefix><from>", "<prefix><from+1>", … (n values), in b's buffers
// when b is not nil.
func seqnoColumn(prefix string, from int64, n int, b *colBufs) arrow.Array {
	width := len(prefix) + len(strconv.FormatInt(from+int64(n), 10))
	offsets, data := b.get(n, n*width)
	offsets[0] = 0
	for i := 0; i < n; i++ {
		data = append(data, prefix...)
		data = strconv.AppendInt(data, from+int64(i), 10)
		offsets[i+1] = int32(len(data))
	}
	return stringArray(offsets, data)
}

// keyColumn is the record keys of recs[idx[0]], recs[idx[1]], …, in b's buffers when b
// is not nil.
func keyColumn(recs []incoming, idx []int, b *colBufs) arrow.Array {
	size := 0
	for _, i := range idx {
		size += len(recs[i].key)
	}
	offsets, data := b.get(len(idx), size)
	offsets[0] = 0
	for k, i := range idx {
		data = append(data, recs[i].key...)
		offsets[k+1] = int32(len(data))
	}
	return stringArray(offsets, data)
}

// constantStrings is a string array of n copies of v.
func constantStrings(v string, n int) arrow.Array {
	c := newConstCol(v, n)
	return c.array(n)
}

// constCol holds the buffers of a column of one repeated value, for up to len(offsets)-1
// rows; shorter columns use a prefix of them.
type constCol struct {
	offsets []int32
	data    []byte
}

func newConstCol(v string, n int) *constCol {
	c := &constCol{offsets: make([]int32, n+1), data: make([]byte, len(v)*n)}
	for i := range c.offsets {
		c.offsets[i] = int32(i * len(v))
	}
	if len(c.data) > 0 {
		copy(c.data, v)
		for k := len(v); k < len(c.data); k *= 2 {
			copy(c.data[k:], c.data[:k])
		}
	}
	return c
}

func (c *constCol) array(n int) arrow.Array {
	return stringArray(c.offsets[:n+1], c.data[:int(c.offsets[n])])
}

// constCache keeps the constant columns of a write (commit time, partition paths, the
// file names of files being written), a bounded number of them.
type constCache struct {
	mu sync.Mutex
	m  map[string]*constCol
}

// constCacheMax bounds the cached values: the commit time and, per file being written,
// its partition path and file name.
const constCacheMax = 64

// constant is a string array of n copies of v, sharing buffers with earlier calls for v.
func (e *writeEnv) constant(v string, n int) arrow.Array {
	c := &e.consts
	c.mu.Lock()
	col := c.m[v]
	if col == nil || len(col.offsets)-1 < n {
		col = newConstCol(v, max(n, constChunk))
		if c.m == nil || len(c.m) >= constCacheMax {
			c.m = map[string]*constCol{} // start over: older files are finished
		}
		c.m[v] = col
	}
	c.mu.Unlock()
	return col.array(n)
}

// constChunk is the least number of rows a cached constant column is built for (the
// writer assembles rows in chunks of this size).
const constChunk = 8192

// stringArray wraps offsets and data (Go memory, left to the garbage collector) as a
// string array without nulls.
func stringArray(offsets []int32, data []byte) arrow.Array {
	d := array.NewData(arrow.BinaryTypes.String, len(offsets)-1,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(data)}, nil, 0, 0)
	defer d.Release()
	return array.NewStringData(d)
}
