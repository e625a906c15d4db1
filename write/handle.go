package write

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/commit"
	"github.com/hudi-go/hudi/format/bloom"
	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/format/parquet"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
)

// fileWriter writes one base file: the Parquet data plus Hudi's footer (bloom filter of
// every record key in row order, min/max record key) and the file's write stat.
type fileWriter struct {
	path    string
	out     io.WriteCloser
	pw      *parquet.Writer
	filter  bloom.Filter
	minKey  string
	maxKey  string
	hasKeys bool
	rows    int64
	start   time.Time
	stat    commitmeta.WriteStat
}

// fileSpec names a base file to write.
type fileSpec struct {
	partition string
	fileID    spec.FileID
	token     spec.WriteToken
	prev      spec.InstantTime // base instant of the slice being rewritten; "" for a new group
}

func (s fileSpec) name(instant spec.InstantTime) string {
	return spec.BaseFileName{FileID: s.fileID, WriteToken: s.token, Instant: instant, Extension: "parquet"}.String()
}

// writeEnv is what every file write shares.
type writeEnv struct {
	st           storage.Storage
	txn          *commit.Txn
	opts         Options
	mem          memory.Allocator
	outSchema    *arrow.Schema // meta fields + write schema
	avroWithMeta string        // parquet.avro.schema; SCHEMA header of log blocks

	encOnce sync.Once // log writes: the Avro row encoder, built on first use
	enc     *avroRowEncoder
	encErr  error
}

func (e *writeEnv) newFile(ctx context.Context, s fileSpec, ioType commit.IOType) (*fileWriter, error) {
	name := s.name(e.txn.Instant)
	if err := e.txn.Marker(ctx, s.partition, name, ioType); err != nil {
		return nil, err
	}
	p := storage.Join(s.partition, name)
	out, err := e.st.Create(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("create base file: %w", err)
	}
	pw, err := parquet.NewWriter(out, e.outSchema, parquet.WriterOptions{
		Compression: e.opts.Compression,
		PageSize:    e.opts.PageSize,
		BlockSize:   e.opts.BlockSize,
		KeyValue:    map[string]string{parquet.KeyAvroSchema: e.avroWithMeta, "writer.model.name": "avro"},
	})
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("base file %s: %w", p, err)
	}
	filter, err := bloom.New(bloom.Type(e.opts.BloomType), bloom.Options{NumEntries: e.opts.BloomNumEntries, FPP: e.opts.BloomFPP, MaxEntries: e.opts.BloomMaxEntries})
	if err != nil {
		out.Close()
		return nil, err
	}
	prev := commitmeta.NullCommit
	if s.prev != "" {
		prev = string(s.prev)
	}
	return &fileWriter{path: p, out: out, pw: pw, filter: filter, start: time.Now(),
		stat: commitmeta.WriteStat{FileID: string(s.fileID), Path: p, PrevCommit: prev, PartitionPath: s.partition}}, nil
}

// write appends a batch of the output schema; its record keys feed the bloom filter and
// key range in row order, as Java's write support does.
func (f *fileWriter) write(rec arrow.Record) error {
	if rec.NumRows() == 0 {
		return nil
	}
	keys := rec.Column(2).(*array.String)
	for i := 0; i < keys.Len(); i++ {
		k := keys.Value(i)
		f.filter.Add(k)
		// Java's String order (UTF-16 units), as Hudi's footer min/max keys are.
		if !f.hasKeys || javastr.Compare(k, f.minKey) < 0 {
			f.minKey = k
		}
		if !f.hasKeys || javastr.Compare(k, f.maxKey) > 0 {
			f.maxKey = k
		}
		f.hasKeys = true
	}
	f.rows += rec.NumRows()
	if err := f.pw.Write(rec); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

func (f *fileWriter) size() int64 { return f.pw.BytesWritten() }

// close finishes the file and its write stat.
func (f *fileWriter) close(st storage.Storage, ctx context.Context) (commitmeta.WriteStat, error) {
	f.pw.AddKeyValue(parquet.KeyBloomFilter, f.filter.Serialize())
	if f.filter.Type() == "DYNAMIC_V0" {
		f.pw.AddKeyValue(parquet.KeyBloomFilterType, string(f.filter.Type()))
	}
	if f.hasKeys {
		f.pw.AddKeyValue(parquet.KeyMinRecordKey, f.minKey)
		f.pw.AddKeyValue(parquet.KeyMaxRecordKey, f.maxKey)
	}
	if err := f.pw.Close(); err != nil {
		f.out.Close()
		return f.stat, fmt.Errorf("close %s: %w", f.path, err)
	}
	if err := f.out.Close(); err != nil {
		return f.stat, fmt.Errorf("close %s: %w", f.path, err)
	}
	fi, err := st.Stat(ctx, f.path)
	if err != nil {
		return f.stat, err
	}
	f.stat.NumWrites = f.rows
	f.stat.FileSizeInBytes = fi.Size
	f.stat.TotalWriteBytes = fi.Size
	ms := time.Since(f.start).Milliseconds()
	if f.stat.PrevCommit == commitmeta.NullCommit {
		f.stat.RuntimeStats = &commitmeta.RuntimeStats{TotalCreateTime: ms}
	} else {
		f.stat.RuntimeStats = &commitmeta.RuntimeStats{TotalUpsertTime: ms}
	}
	return f.stat, nil
}

// abort closes a file that will not be committed; the rollback deletes it.
func (f *fileWriter) abort() {
	f.pw.Close()
	f.out.Close()
}

// newRows builds output-schema rows for input records: the data columns taken from the
// input batches, the meta columns filled for this write (commit time, sequence number
// "<instant>_<task>_<n>", key, partition, file name).
func (e *writeEnv) newRows(ctx context.Context, in *inputSet, recs []incoming, partition, fileName string, task int, seq *int64) ([]arrow.Record, error) {
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

func releaseArrays(a []arrow.Array) {
	for _, x := range a {
		if x != nil {
			x.Release()
		}
	}
}

func releaseRecords(rs []arrow.Record) {
	for _, r := range rs {
		r.Release()
	}
}

// withFileName returns rec with _hoodie_file_name set to name on every row: rows copied
// into a rewritten file keep their commit time and sequence number but name their new
// file, as Java's merge handle does.
func withFileName(mem memory.Allocator, rec arrow.Record, name string) arrow.Record {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(int(rec.NumRows()))
	for i := 0; i < int(rec.NumRows()); i++ {
		b.Append(name)
	}
	col := b.NewArray()
	defer col.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = rec.Column(i)
	}
	cols[4] = col
	return array.NewRecord(rec.Schema(), cols, rec.NumRows())
}
