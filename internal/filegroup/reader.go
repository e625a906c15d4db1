// Package filegroup reads one file slice — a base file and the log files on top of it —
// into Arrow record batches of the table schema, merging log records over base records by
// record key with the table's merge rules.
package filegroup

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// Options configure a slice read.
type Options struct {
	// Schema is the table schema with meta fields: the shape every file is conformed to.
	Schema *arrow.Schema
	// Columns are the output columns in order (nil = all of Schema).
	Columns []string
	// KeyFields are the record key fields (top-level columns) and RecordKey builds a row's
	// key from them — both used only when meta fields are not populated.
	KeyFields           []string
	RecordKey           func(rec arrow.Record, row int) (string, error)
	MetaFieldsPopulated bool
	// OrderingField is the ordering (precombine) field, "" if none.
	OrderingField string
	Rules         merge.Rules
	// Committed reports whether a log block's instant is committed and visible.
	Committed func(spec.InstantTime) bool
	// PartitionValues fills columns that the data files lack (drop.partition.columns).
	PartitionValues map[string]string
	// BaseOnly reads the base file alone (read-optimized queries).
	BaseOnly bool
	// SelectRowGroups, when set, picks the row groups of a base file worth reading (filter
	// pruning by column statistics). It is used only when no log records are merged, since
	// a log record can make a pruned base record match.
	SelectRowGroups RowGroupSelector
	BatchSize       int
	// MaxLogMemory bounds the bytes of decoded log records held in memory
	// (hoodie.memory.merge.max.size / hoodie.memory.compaction.max.size); beyond it they
	// spill to a file in SpillDir (hoodie.memory.spillable.map.path). 0 = 1 GB, < 0 = no limit.
	MaxLogMemory int64
	SpillDir     string
	Mem          memory.Allocator
	Logger       *slog.Logger
	// BasePrefetch is how many base-file batches are decoded ahead of the merge, on a
	// goroutine of their own that starts while the logs are scanned (0 = none: the base
	// file is read after the scan, on the caller's goroutine). The batches are memory
	// beyond MaxLogMemory, so fewer are decoded ahead when BasePrefetch of them would be
	// more than a sixteenth of it (never fewer than one).
	BasePrefetch int
	// Evolution, when set, reads every file by InternalSchema column ids (schema evolution
	// on read): see Evolution.
	Evolution *Evolution
	// LogStats, when set, receives the counts of the slice's log blocks, taken while the
	// logs are scanned (a compaction's write stat needs them; a second pass over the logs
	// would read and split every block again).
	LogStats *LogStats
	// OnBaseDropped, when set, is called with each base row a log record replaces or
	// deletes (rec in Schema's columns, before projection), in base-file order; and
	// OnBaseDone once the base rows are merged, before the log records (updates and
	// inserts) are emitted. A compaction logging its changes (CDC) needs both.
	OnBaseDropped func(key string, rec arrow.Record, row int) error
	OnBaseDone    func() error
}

// RowGroupSelector picks the row groups of a base file worth reading. fileColumn, when
// not nil, gives the file's name of a column of the read schema, false when the file's
// statistics do not describe it (schema evolution on read: the column was added, re-added
// or re-typed since the file was written); nil means the names are the same.
type RowGroupSelector func(pf *parquet.File, fileColumn func(string) (string, bool)) []int

// Evolution resolves the columns of each file by id (schema evolution on read): Query is
// the InternalSchema Schema was derived from, and FileSchema returns the InternalSchema
// the data of an instant (a base file's, or a log block's INSTANT_TIME) was written
// with, nil when it is unknown (the file is then read by column name), as Java's
// InternalSchemaCache.searchSchemaAndCache finds it.
type Evolution struct {
	Query      *internalschema.Schema
	FileSchema func(spec.InstantTime) (*internalschema.Schema, error)
}

// LogStats counts the log blocks of a slice read: every block (corrupt, command and
// uncommitted ones too), the corrupt ones, the rollback command blocks, and the records of
// committed Avro data blocks and delete blocks.
type LogStats struct {
	Blocks, CorruptBlocks, RollbackBlocks, Records int64
	// The merge's outcome, counted as Java 0.14's HoodieMergeHandle counts a compaction's
	// rows (set once the slice is merged): MergedKeys is the number of distinct keys in the
	// logs (HoodieMergedLogRecordScanner.getNumMergedRecordsInLog, which HoodieCompactor
	// records as totalUpdatedRecordsCompacted); Updated counts base rows replaced by their
	// log record (updatedRecordsWritten: not those whose base record won, nor deletes);
	// Deleted counts keys whose merged log record is a delete (recordsDeleted: a delete
	// block or _hoodie_is_deleted, whether or not the base had the key, unless the base
	// record won); Inserted counts log keys the base lacked that are written
	// (insertRecordsWritten).
	MergedKeys, Updated, Deleted, Inserted int64
}

// Emit receives each output batch; the batch is released after Emit returns, so Emit
// must Retain it to keep it.
type Emit func(arrow.Record) error

// Read reads one file slice.
func Read(ctx context.Context, st storage.Storage, slice fsview.FileSlice, opts Options, emit Emit) error {
	r, err := newSliceReader(st, slice, opts)
	if err != nil {
		return err
	}
	defer r.release()
	if opts.BaseOnly || len(slice.Logs) == 0 {
		if slice.Base == nil {
			return nil
		}
		return r.readBase(ctx, false, func(rec arrow.Record) error { return r.emitProjected(rec, emit) })
	}
	merge := func(rec arrow.Record) error { return r.mergeBaseBatch(ctx, rec, emit) }
	var base *basePrefetch
	if slice.Base != nil && opts.BasePrefetch > 0 {
		// The base file's decoding does not depend on the logs, only the merge does.
		base = r.prefetchBase(ctx, r.prefetchDepth())
		defer base.stop()
	}
	if err := r.scanLogs(ctx); err != nil {
		return err
	}
	switch {
	case base != nil:
		if err := base.each(merge); err != nil {
			return err
		}
	case slice.Base != nil:
		if err := r.readBase(ctx, true, merge); err != nil {
			return err
		}
	}
	r.countMerge()
	if opts.OnBaseDone != nil {
		if err := opts.OnBaseDone(); err != nil {
			return err
		}
	}
	return r.emitLogRecords(ctx, emit)
}

// basePrefetch decodes a base file's batches on a goroutine of its own, a few batches
// ahead of their consumer.
type basePrefetch struct {
	batches chan arrow.Record // closed after the last batch
	done    chan error        // the decoder's result, sent once
	cancel  context.CancelFunc
	err     error
	waited  bool
}

// prefetchDepth is Options.BasePrefetch, capped so that the batches decoded ahead (each
// about logBatchBytes at most) are within a sixteenth of the memory budget.
func (r *sliceReader) prefetchDepth() int {
	budget := r.opts.MaxLogMemory
	if budget == 0 {
		budget = DefaultMaxLogMemory
	}
	if budget < 0 {
		return r.opts.BasePrefetch
	}
	return max(1, min(r.opts.BasePrefetch, int(budget/16/int64(r.logBatchBytes()))))
}

// prefetchBase starts decoding the base file for a merge, up to depth batches ahead.
func (r *sliceReader) prefetchBase(ctx context.Context, depth int) *basePrefetch {
	ctx, cancel := context.WithCancel(ctx)
	p := &basePrefetch{batches: make(chan arrow.Record, depth), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := r.readBase(ctx, true, func(rec arrow.Record) error {
			rec.Retain() // readBase releases its batch when this returns
			select {
			case p.batches <- rec:
				return nil
			case <-ctx.Done():
				rec.Release()
				return ctx.Err()
			}
		})
		close(p.batches)
		p.done <- err
	}()
	return p
}

// each hands the batches to fn in order and returns the first error, fn's or the
// decoder's.
func (p *basePrefetch) each(fn func(arrow.Record) error) error {
	for rec := range p.batches {
		err := fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return p.wait()
}

func (p *basePrefetch) wait() error {
	if !p.waited {
		p.err, p.waited = <-p.done, true
	}
	return p.err
}

// stop ends the decoding early (or finds it done) and frees the batches not consumed.
func (p *basePrefetch) stop() {
	p.cancel()
	for rec := range p.batches {
		rec.Release()
	}
	p.wait()
}

type sliceReader struct {
	st     storage.Storage
	slice  fsview.FileSlice
	opts   Options
	mem    memory.Allocator
	read   *arrow.Schema // columns read from files: output ∪ key ∪ ordering fields
	out    *arrow.Schema
	outIdx []int // output column i = read column outIdx[i]

	keyIdx      []int // columns of read that make the record key
	orderingIdx int   // -1 if none
	deletedIdx  int   // _hoodie_is_deleted, -1 if absent
	// orderingAliases: an ordering value of this column points into its Arrow buffer
	// (strings, bytes), so one kept in the key map is copied first.
	orderingAliases bool

	logs logRecords

	resolversMu sync.Mutex
	resolvers   map[int64]*schema.FileResolver // by file schema version (Options.Evolution)
}

func newSliceReader(st storage.Storage, slice fsview.FileSlice, opts Options) (*sliceReader, error) {
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 8192
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &sliceReader{st: st, slice: slice, opts: opts, mem: opts.Mem, orderingIdx: -1, deletedIdx: -1}
	want := opts.Columns
	if want == nil {
		for _, f := range opts.Schema.Fields() {
			want = append(want, f.Name)
		}
	}
	needed := append([]string{}, want...)
	merging := !opts.BaseOnly && len(slice.Logs) > 0
	if merging {
		if opts.MetaFieldsPopulated {
			needed = append(needed, schema.MetaFields[2]) // _hoodie_record_key
		} else {
			needed = append(needed, opts.KeyFields...)
		}
		if opts.OrderingField != "" {
			needed = append(needed, opts.OrderingField)
		}
		needed = append(needed, isDeletedField)
	}
	var fields []arrow.Field
	seen := map[string]int{}
	for _, n := range needed {
		if _, dup := seen[n]; dup {
			continue
		}
		i := schema.FieldIndex(opts.Schema, n)
		if i < 0 {
			if n == isDeletedField { // optional soft-delete column
				continue
			}
			return nil, fmt.Errorf("column %q is not in the table schema", n)
		}
		seen[n] = len(fields)
		fields = append(fields, opts.Schema.Field(i))
	}
	r.read = arrow.NewSchema(fields, nil)
	for _, n := range want {
		r.outIdx = append(r.outIdx, seen[n])
	}
	outFields := make([]arrow.Field, len(r.outIdx))
	for i, j := range r.outIdx {
		outFields[i] = fields[j]
	}
	r.out = arrow.NewSchema(outFields, nil)
	if merging {
		if opts.MetaFieldsPopulated {
			r.keyIdx = []int{seen[schema.MetaFields[2]]}
		} else {
			for _, f := range opts.KeyFields {
				r.keyIdx = append(r.keyIdx, seen[f])
			}
		}
		if opts.OrderingField != "" {
			r.orderingIdx = seen[opts.OrderingField]
			switch fields[r.orderingIdx].Type.ID() {
			case arrow.STRING, arrow.BINARY:
				r.orderingAliases = true
			}
		}
		if i, ok := seen[isDeletedField]; ok {
			r.deletedIdx = i
		}
	}
	r.logs.init()
	return r, nil
}

// isDeletedField marks a record as a delete when true (Hudi's soft-delete column).
const isDeletedField = "_hoodie_is_deleted"

func (r *sliceReader) release() { r.logs.release() }

// readBase streams the base file's batches conformed to the read schema; merging says
// whether log records are merged into them.
func (r *sliceReader) readBase(ctx context.Context, merging bool, fn func(arrow.Record) error) error {
	base := r.slice.Base
	// The view's size (from the listing) spares an object store's HEAD per file.
	f, err := storage.OpenSized(ctx, r.st, base.Path, base.Size)
	if err != nil {
		return fmt.Errorf("open base file: %w", err)
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), base.Path, r.mem, int64(r.opts.BatchSize))
	if err != nil {
		return err
	}
	if merging {
		if rows := r.parquetBatchRows(pf); rows < r.opts.BatchSize {
			// A merge reads wide rows in smaller batches, for the reason log blocks are
			// cut (see logBatchBytes): BatchSize rows of 4 KB would be 32 MB a batch.
			pf.Close()
			if pf, err = parquet.Open(f, f.Size(), base.Path, r.mem, int64(rows)); err != nil {
				return err
			}
		}
	}
	defer pf.Close()
	res, err := r.resolverFor(base.Name.Instant)
	if err != nil {
		return fmt.Errorf("%s: %w", base.Path, err)
	}
	fileRead := r.read
	if res != nil {
		fileRead = res.FileSchema()
	}
	names := make([]string, fileRead.NumFields())
	for i, fld := range fileRead.Fields() {
		names[i] = fld.Name
	}
	leaves, _ := pf.LeafColumns(names)
	if len(leaves) == 0 {
		// None of the wanted columns is stored (e.g. only dropped partition columns were
		// asked for): still produce one row per stored row.
		leaves = []int{0}
	}
	var rowGroups []int
	if !merging && r.opts.SelectRowGroups != nil { // see Options.SelectRowGroups
		var fileColumn func(string) (string, bool)
		if res != nil {
			fileColumn = res.StatsColumn
		}
		if rowGroups = r.opts.SelectRowGroups(pf, fileColumn); len(rowGroups) == 0 {
			return nil // no row group can match the filter
		}
	}
	return pf.ReadBatches(ctx, leaves, rowGroups, func(batch arrow.Record) error {
		rec, err := r.conform(batch, base.Path, res)
		if err != nil {
			return err
		}
		defer rec.Release()
		return fn(rec)
	})
}

// conform projects a batch onto the read schema and fills partition values; res, when
// set, resolves the file's columns by id (schema evolution on read).
func (r *sliceReader) conform(rec arrow.Record, file string, res *schema.FileResolver) (arrow.Record, error) {
	var out arrow.Record
	var err error
	if res != nil {
		fr, ferr := schema.ConformRecord(r.mem, rec, res.FileSchema())
		if ferr != nil {
			return nil, fmt.Errorf("%s: %w", file, ferr)
		}
		out, err = res.Resolve(r.mem, fr)
		fr.Release()
	} else {
		out, err = schema.ConformRecord(r.mem, rec, r.read)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(r.opts.PartitionValues) > 0 {
		filled, err := fillPartitionValues(r.mem, out, r.opts.PartitionValues)
		out.Release()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out = filled
	}
	return out, nil
}

// resolverFor returns the resolver of the data an instant wrote, nil when the slice is
// read by column name (no Options.Evolution, or no InternalSchema known for the instant).
func (r *sliceReader) resolverFor(instant spec.InstantTime) (*schema.FileResolver, error) {
	ev := r.opts.Evolution
	if ev == nil || ev.Query == nil {
		return nil, nil
	}
	fs, err := ev.FileSchema(instant)
	if err != nil || fs == nil {
		return nil, err
	}
	r.resolversMu.Lock()
	defer r.resolversMu.Unlock()
	if res, ok := r.resolvers[fs.VersionID]; ok {
		return res, nil
	}
	res, err := schema.NewFileResolver(fs, ev.Query, r.read)
	if err != nil {
		return nil, fmt.Errorf("instant %s: %w", instant, err)
	}
	if r.resolvers == nil {
		r.resolvers = map[int64]*schema.FileResolver{}
	}
	r.resolvers[fs.VersionID] = res
	return res, nil
}

// emitProjected emits rec's output columns.
func (r *sliceReader) emitProjected(rec arrow.Record, emit Emit) error {
	if rec.NumRows() == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(r.outIdx))
	for i, j := range r.outIdx {
		cols[i] = rec.Column(j)
	}
	out := array.NewRecord(r.out, cols, rec.NumRows())
	defer out.Release()
	return emit(out)
}

// keyOf returns the record key of row i of a read-schema batch.
func (r *sliceReader) keyOf(rec arrow.Record, i int) (string, error) {
	if r.opts.MetaFieldsPopulated {
		col := rec.Column(r.keyIdx[0])
		if col.IsNull(i) {
			return "", fmt.Errorf("row %d has a null %s", i, schema.MetaFields[2])
		}
		s, ok := col.(*array.String)
		if !ok {
			return "", fmt.Errorf("%s is %s, not a string", schema.MetaFields[2], col.DataType())
		}
		return s.Value(i), nil
	}
	if r.opts.RecordKey == nil {
		return "", fmt.Errorf("meta fields are not populated and no key generator was given")
	}
	return r.opts.RecordKey(rec, i)
}

func (r *sliceReader) orderingOf(rec arrow.Record, i int) merge.Ordering {
	if r.orderingIdx < 0 {
		return merge.Ordering{}
	}
	return merge.OrderingAt(rec.Column(r.orderingIdx), i)
}

// detachedOrderingOf is orderingOf with string and bytes values copied out of the batch.
func (r *sliceReader) detachedOrderingOf(rec arrow.Record, i int) merge.Ordering {
	switch col := rec.Column(r.orderingIdx).(type) {
	case *array.String:
		if col.IsValid(i) {
			return merge.OrderingOf(strings.Clone(col.Value(i)))
		}
	case *array.Binary:
		if col.IsValid(i) {
			return merge.OrderingOf(bytes.Clone(col.Value(i)))
		}
	}
	return r.orderingOf(rec, i)
}

func (r *sliceReader) isDeleted(rec arrow.Record, i int) bool {
	if r.deletedIdx < 0 {
		return false
	}
	col, ok := rec.Column(r.deletedIdx).(*array.Boolean)
	return ok && col.IsValid(i) && col.Value(i)
}
