package write

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
	path   string
	noKeys bool // virtual keys: no bloom filter, no key range
	out    io.WriteCloser
	pw     *parquet.Writer
	filter bloom.Filter
	// knownKeys is set while the keys written are already in filter (a merge resumed the
	// base file's filter, mergeFile): they feed only the key range.
	knownKeys bool
	minKey    string
	maxKey    string
	hasKeys   bool
	rows      int64
	start     time.Time
	stat      commitmeta.WriteStat
	maxSize   int64 // hoodie.parquet.max.file.size: size() is exact only from here on
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
	st   storage.Storage
	txn  *commit.Txn
	opts Options
	mem  memory.Allocator
	// bufMem allocates the buffers a file write allocates and frees chunk after chunk:
	// gathered data columns (newRows) and the Parquet writer's (recycle.go).
	bufMem       memory.Allocator
	outSchema    *arrow.Schema // meta fields + write schema
	avroWithMeta string        // parquet.avro.schema; SCHEMA header of log blocks
	// virtualKeys: hoodie.populate.meta.fields=false — four null meta columns, no bloom
	// filter or key range in base files (virtualkeys.go).
	virtualKeys bool

	encOnce sync.Once // log writes: the Avro row encoder, built on first use
	enc     *avroRowEncoder
	encErr  error

	consts constCache // constant meta columns (meta.go)
}

// buffers is bufMem, or mem when the env has none.
func (e *writeEnv) buffers() memory.Allocator {
	if e.bufMem != nil {
		return e.bufMem
	}
	return e.mem
}

func (e *writeEnv) bloomOptions() bloom.Options {
	return bloom.Options{NumEntries: e.opts.BloomNumEntries, FPP: e.opts.BloomFPP, MaxEntries: e.opts.BloomMaxEntries}
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
		Dictionary:  *e.opts.Dictionary,
		Mem:         e.buffers(),
		KeyValue:    map[string]string{parquet.KeyAvroSchema: e.avroWithMeta, "writer.model.name": "avro"},
	})
	if err != nil {
		_ = storage.Abort(out)
		return nil, fmt.Errorf("base file %s: %w", p, err)
	}
	var filter bloom.Filter
	if !e.virtualKeys {
		// Java writes a bloom filter only when meta fields are populated
		// (HoodieFileWriterFactory.enableBloomFilter).
		if filter, err = bloom.New(bloom.Type(e.opts.BloomType), e.bloomOptions()); err != nil {
			_ = storage.Abort(out)
			return nil, err
		}
	}
	prev := commitmeta.NullCommit
	if s.prev != "" {
		prev = string(s.prev)
	}
	return &fileWriter{path: p, noKeys: e.virtualKeys, out: out, pw: pw, filter: filter, start: time.Now(), maxSize: e.opts.MaxFileSize,
		stat: commitmeta.WriteStat{FileID: string(s.fileID), Path: p, PrevCommit: prev, PartitionPath: s.partition}}, nil
}

// write appends a batch of the output schema; its record keys feed the bloom filter and
// key range in row order, as Java's write support does.
func (f *fileWriter) write(rec arrow.Record) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if !f.noKeys {
		f.addKeys(rec.Column(2).(*array.String))
	}
	f.rows += rec.NumRows()
	if err := f.pw.Write(rec); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// addKeys adds keys to the bloom filter and the key range.
func (f *fileWriter) addKeys(keys *array.String) {
	minKey, maxKey, has := f.minKey, f.maxKey, f.hasKeys
	for i := 0; i < keys.Len(); i++ {
		k := keys.Value(i)
		if !f.knownKeys {
			f.filter.Add(k)
		}
		// Java's String order (UTF-16 units), as Hudi's footer min/max keys are.
		if !has || javastr.Compare(k, minKey) < 0 {
			minKey = k
		}
		if !has || javastr.Compare(k, maxKey) > 0 {
			maxKey = k
		}
		has = true
	}
	// The keys point into the batch's buffers: keep copies, not the buffers.
	if minKey != f.minKey || !f.hasKeys {
		f.minKey = strings.Clone(minKey)
	}
	if maxKey != f.maxKey || !f.hasKeys {
		f.maxKey = strings.Clone(maxKey)
	}
	f.hasKeys = has
}

// size is the file's estimated size (parquet.Writer.BytesWritten) for the rollover
// check against hoodie.parquet.max.file.size. Below the limit a cheaper bound is enough
// (BytesWrittenBound: it does not learn compression ratios), since the check's outcome
// is the same.
// fileName is the file's name without its partition path (_hoodie_file_name).
func (f *fileWriter) fileName() string { return path.Base(f.path) }

func (f *fileWriter) size() int64 {
	if b := f.pw.BytesWrittenBound(); b < f.maxSize {
		return b
	}
	return f.pw.BytesWritten()
}

// close finishes the file and its write stat.
func (f *fileWriter) close(st storage.Storage, ctx context.Context) (commitmeta.WriteStat, error) {
	if !f.noKeys {
		f.pw.AddKeyValue(parquet.KeyBloomFilter, f.filter.Serialize())
		if f.filter.Type() == "DYNAMIC_V0" {
			f.pw.AddKeyValue(parquet.KeyBloomFilterType, string(f.filter.Type()))
		}
	}
	if f.hasKeys {
		f.pw.AddKeyValue(parquet.KeyMinRecordKey, f.minKey)
		f.pw.AddKeyValue(parquet.KeyMaxRecordKey, f.maxKey)
	}
	if err := f.pw.Close(); err != nil {
		_ = storage.Abort(f.out) // a base file without its footer must not appear
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

// abort drops a file that will not be committed: it does not appear (its marker stays
// for the rollback, which finds nothing to delete).
func (f *fileWriter) abort() {
	f.pw.Close()
	_ = storage.Abort(f.out)
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
	col := constantStrings(name, int(rec.NumRows()))
	defer col.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = rec.Column(i)
	}
	cols[4] = col
	return array.NewRecord(rec.Schema(), cols, rec.NumRows())
}
