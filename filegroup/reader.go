// Package filegroup reads one file slice — a base file and the log files on top of it —
// into Arrow record batches of the table schema, merging log records over base records by
// record key with the table's merge rules.
package filegroup

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/format/parquet"
	"github.com/hudi-go/hudi/fsview"
	"github.com/hudi-go/hudi/merge"
	"github.com/hudi-go/hudi/schema"
	"github.com/hudi-go/hudi/spec"
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
	SelectRowGroups func(*parquet.File) []int
	BatchSize       int
	// MaxLogMemory bounds the bytes of decoded log records held in memory
	// (hoodie.memory.merge.max.size / hoodie.memory.compaction.max.size); beyond it they
	// spill to a file in SpillDir (hoodie.memory.spillable.map.path). 0 = 1 GB, < 0 = no limit.
	MaxLogMemory int64
	SpillDir     string
	Mem          memory.Allocator
	Logger       *slog.Logger
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
		return r.readBase(ctx, true, func(rec arrow.Record) error { return r.emitProjected(rec, emit) })
	}
	if err := r.scanLogs(ctx); err != nil {
		return err
	}
	if slice.Base != nil {
		if err := r.readBase(ctx, false, func(rec arrow.Record) error { return r.mergeBaseBatch(ctx, rec, emit) }); err != nil {
			return err
		}
	}
	return r.emitLogRecords(ctx, emit)
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

	logs logRecords
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

// readBase streams the base file's batches conformed to the read schema.
func (r *sliceReader) readBase(ctx context.Context, prunable bool, fn func(arrow.Record) error) error {
	base := r.slice.Base
	f, err := r.st.Open(ctx, base.Path)
	if err != nil {
		return fmt.Errorf("open base file: %w", err)
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), base.Path, r.mem, int64(r.opts.BatchSize))
	if err != nil {
		return err
	}
	defer pf.Close()
	names := make([]string, r.read.NumFields())
	for i, fld := range r.read.Fields() {
		names[i] = fld.Name
	}
	leaves, _ := pf.LeafColumns(names)
	if len(leaves) == 0 {
		// None of the wanted columns is stored (e.g. only dropped partition columns were
		// asked for): still produce one row per stored row.
		leaves = []int{0}
	}
	var rowGroups []int
	if prunable && r.opts.SelectRowGroups != nil {
		if rowGroups = r.opts.SelectRowGroups(pf); len(rowGroups) == 0 {
			return nil // no row group can match the filter
		}
	}
	return pf.ReadBatches(ctx, leaves, rowGroups, func(batch arrow.Record) error {
		rec, err := r.conform(batch, base.Path)
		if err != nil {
			return err
		}
		defer rec.Release()
		return fn(rec)
	})
}

// conform projects a batch onto the read schema and fills partition values.
func (r *sliceReader) conform(rec arrow.Record, file string) (arrow.Record, error) {
	out, err := schema.ConformRecord(r.mem, rec, r.read)
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

func (r *sliceReader) isDeleted(rec arrow.Record, i int) bool {
	if r.deletedIdx < 0 {
		return false
	}
	col, ok := rec.Column(r.deletedIdx).(*array.Boolean)
	return ok && col.IsValid(i) && col.Value(i)
}
