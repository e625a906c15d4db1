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

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// fileWriter writes one base file: the Parquet data plus Hudi's footer (bloom filter of
// every record key in row order, min/max record key) and the file's write stat.
type fileWriter struct {
	path   string
	noKeys bool // virtual keys: no bloom filter, no key range
	out    io.WriteCloser
	pw     *parquet.Writer
	filter bloom.Filter // nil until made (newFilter): keys wait in pendingKeys
	// A file's filter is as big as hoodie.index.bloom.num_entries makes it (Java sizes it
	// so too: ~323 KB at 60000 entries), however few rows the file gets. A write into
	// thousands of partitions holds that many open files, so each keeps its keys until
	// they would take as much memory as the filter, and the filter is made then or when
	// the file closes. The keys are added in row order either way: the same footer.
	bloomType    bloom.Type
	bloomOpts    bloom.Options
	pendingKeys  []string
	pendingBytes int
	pendingLimit int
	// The Parquet writer's column writers, statistics and encoders take ~150 KB from its
	// first row on: the first rows of a file (up to heldLimit bytes) are held as copies and
	// written when more come or the file closes, in the same record boundaries, so the
	// Parquet output is the same. A file of a few rows then costs its rows until it closes.
	held      []arrow.Record
	heldBytes int64
	heldLimit int64 // 0: write through
	pwFed     bool  // the Parquet writer has been given rows
	mem       memory.Allocator
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
	// prevBase is the name of the base file being rewritten, recorded as the write stat's
	// prevBaseFile (a Hudi 1.x field: layout 2 commit metadata carries it, 0.14's JSON not).
	prevBase string
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

	// cdc is set when the table logs changes (hoodie.table.cdc.enabled): merges write CDC
	// log files (cdc.go).
	cdc *cdcSettings
	// evolution resolves the columns of stored files by id (schema evolution on read);
	// nil when the table has no InternalSchema.
	evolution   *filegroup.Evolution
	resolversMu sync.Mutex
	resolvers   map[int64]*schema.FileResolver
}

// resolverFor returns how a base file written by instant is read as outSchema: by
// column id under schema evolution on read, nil (by name) otherwise.
func (e *writeEnv) resolverFor(instant spec.InstantTime) (*schema.FileResolver, error) {
	if e.evolution == nil {
		return nil, nil
	}
	fs, err := e.evolution.FileSchema(instant)
	if err != nil || fs == nil {
		return nil, err
	}
	e.resolversMu.Lock()
	defer e.resolversMu.Unlock()
	if r, ok := e.resolvers[fs.VersionID]; ok {
		return r, nil
	}
	r, err := schema.NewFileResolver(fs, e.evolution.Query, e.outSchema)
	if err != nil {
		return nil, fmt.Errorf("instant %s: %w", instant, err)
	}
	if e.resolvers == nil {
		e.resolvers = map[int64]*schema.FileResolver{}
	}
	e.resolvers[fs.VersionID] = r
	return r, nil
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
	limit := 0
	if !e.virtualKeys {
		// Java writes a bloom filter only when meta fields are populated
		// (HoodieFileWriterFactory.enableBloomFilter).
		if limit, err = bloom.VectorBytes(bloom.Type(e.opts.BloomType), e.bloomOptions()); err != nil {
			_ = storage.Abort(out)
			return nil, err
		}
	}
	prev := commitmeta.NullCommit
	if s.prev != "" {
		prev = string(s.prev)
	}
	return &fileWriter{path: p, noKeys: e.virtualKeys, out: out, pw: pw, start: time.Now(), maxSize: e.opts.MaxFileSize,
		bloomType: bloom.Type(e.opts.BloomType), bloomOpts: e.bloomOptions(), pendingLimit: limit,
		heldLimit: min(maxHeldBytes, e.opts.MaxFileSize/8), mem: e.mem,
		stat: commitmeta.WriteStat{FileID: string(s.fileID), Path: p, PrevCommit: prev, PrevBaseFile: s.prevBase, PartitionPath: s.partition}}, nil
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
	if !f.pwFed && f.heldLimit > 0 {
		// Measured on the copy: rec may be a view of a whole batch's buffers.
		c, err := copyRecord(rec, f.mem)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		if n := recordBytes(c); f.heldBytes+n < f.heldLimit {
			f.held = append(f.held, c)
			f.heldBytes += n
			return nil
		}
		c.Release()
		if err := f.writeHeld(); err != nil {
			return err
		}
	}
	f.pwFed = true
	if err := f.pw.Write(rec); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// maxHeldBytes bounds the rows a file holds before its Parquet writer starts.
const maxHeldBytes = 64 << 10

// writeHeld gives the held rows to the Parquet writer, in their records.
func (f *fileWriter) writeHeld() error {
	held := f.held
	f.held, f.heldBytes, f.pwFed = nil, 0, true
	defer releaseRecords(held)
	for _, r := range held {
		if err := f.pw.Write(r); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	return nil
}

// recordBytes is the size of rec's buffers (for a slice, of the whole buffers).
func recordBytes(rec arrow.Record) int64 {
	var n int64
	var data func(d arrow.ArrayData)
	data = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			data(c)
		}
	}
	for _, c := range rec.Columns() {
		data(c.Data())
	}
	return n
}

// copyRecord copies rec into new buffers: the caller's may be reused scratch memory.
func copyRecord(rec arrow.Record, mem memory.Allocator) (arrow.Record, error) {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		cp, err := array.Concatenate([]arrow.Array{c}, mem)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols[i] = cp
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	releaseArrays(cols)
	return out, nil
}

// addKeys adds keys to the bloom filter and the key range.
func (f *fileWriter) addKeys(keys *array.String) {
	minKey, maxKey, has := f.minKey, f.maxKey, f.hasKeys
	for i := 0; i < keys.Len(); i++ {
		k := keys.Value(i)
		if !f.knownKeys {
			f.addToFilter(k)
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

// addToFilter adds k to the filter, or keeps it for the filter while the kept keys take
// less memory than the filter would.
func (f *fileWriter) addToFilter(k string) {
	if f.filter != nil {
		f.filter.Add(k)
		return
	}
	f.pendingKeys = append(f.pendingKeys, strings.Clone(k))
	f.pendingBytes += len(k) + 16 // the string header
	if f.pendingBytes >= f.pendingLimit {
		f.makeFilter()
	}
}

// makeFilter makes the filter and adds the kept keys in their order.
func (f *fileWriter) makeFilter() {
	if f.filter != nil {
		return
	}
	flt, err := bloom.New(f.bloomType, f.bloomOpts)
	if err != nil {
		panic(err) // validated by bloom.VectorBytes in newFile
	}
	for _, k := range f.pendingKeys {
		flt.Add(k)
	}
	f.filter, f.pendingKeys, f.pendingBytes = flt, nil, 0
}

// resumeFilter takes flt, the filter of the base file being rewritten, which already
// holds the keys the file will get first (mergeFile); only before any key was added.
func (f *fileWriter) resumeFilter(flt bloom.Filter) bool {
	if f.filter != nil || len(f.pendingKeys) > 0 {
		return false
	}
	f.filter, f.knownKeys = flt, true
	return true
}

// size is the file's estimated size (parquet.Writer.BytesWritten) for the rollover
// check against hoodie.parquet.max.file.size. Below the limit a cheaper bound is enough
// (BytesWrittenBound: it does not learn compression ratios), since the check's outcome
// is the same.
// fileName is the file's name without its partition path (_hoodie_file_name).
func (f *fileWriter) fileName() string { return path.Base(f.path) }

func (f *fileWriter) size() int64 {
	if !f.pwFed {
		return f.heldBytes // below MaxFileSize/8: the same rollover decision as the writer's bound
	}
	if b := f.pw.BytesWrittenBound(); b < f.maxSize {
		return b
	}
	return f.pw.BytesWritten()
}

// close finishes the file and its write stat.
func (f *fileWriter) close(st storage.Storage, ctx context.Context) (commitmeta.WriteStat, error) {
	if err := f.writeHeld(); err != nil {
		_ = storage.Abort(f.out)
		return f.stat, err
	}
	if !f.noKeys {
		f.makeFilter()
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
	releaseRecords(f.held)
	f.held = nil
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
