package filegroup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/hudi-go/hudi/format/logfile"
	"github.com/hudi-go/hudi/format/parquet"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/merge"
	"github.com/hudi-go/hudi/schema"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
)

// logEntry is the merged state of one record key across the slice's log blocks.
type logEntry struct {
	batch, row int32 // the winning data record (when !deleteBlock)
	ordering   merge.Ordering
	// deleteBlock: the key was deleted by a delete block (unconditional against the base).
	deleteBlock bool
	// softDeleted: the winning data record has _hoodie_is_deleted=true.
	softDeleted bool
	// consumed: a base record with this key was merged (the log record is emitted at most
	// once and never again against a duplicate base row).
	consumed bool
	// baseWon: the base record was kept, so the log record is not emitted.
	baseWon bool
}

type logRecords struct {
	store   *batchStore // nil until the logs are scanned
	entries map[string]*logEntry
}

func (l *logRecords) init() { l.entries = map[string]*logEntry{} }

func (l *logRecords) release() {
	if l.store != nil {
		l.store.release()
		l.store = nil
	}
}

// pendingBlock is a log block kept for merging after rollbacks are applied. Its content
// is dropped after the scan and read again when the block is merged, so that only one
// block's bytes are in memory at a time.
type pendingBlock struct {
	file    string
	block   *logfile.Block
	instant spec.InstantTime
}

// scanLogs reads every log block of the slice in order, drops blocks of uncommitted or
// later instants and blocks undone by rollback command blocks, then merges the rest into
// the key map.
func (r *sliceReader) scanLogs(ctx context.Context) error {
	var blocks []pendingBlock
	for _, lf := range r.slice.Logs {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := r.st.Open(ctx, lf.Path)
		if err != nil {
			return fmt.Errorf("open log file: %w", err)
		}
		lr := logfile.NewReader(f, f.Size(), lf.Path)
		for {
			b, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("read log file %s: %w", lf.Path, err)
			}
			switch b.Type {
			case logfile.CorruptBlock:
				// Java skips corrupt blocks with a warning; so do we.
				r.opts.Logger.Warn("skipping corrupt log block", "file", lf.Path, "offset", b.Offset, "length", b.Length)
				continue
			case logfile.CommandBlock:
				if b.IsRollback() {
					target := spec.InstantTime(b.TargetInstantTime())
					kept := blocks[:0]
					for _, pb := range blocks {
						if pb.instant != target {
							kept = append(kept, pb)
						}
					}
					blocks = kept
				}
				continue
			}
			inst := spec.InstantTime(b.InstantTime())
			if !r.opts.Committed(inst) {
				continue // uncommitted, failed or after the query instant
			}
			if compacted := b.Header[logfile.CompactedBlockTimes]; compacted != "" {
				// A log-compaction block replaces the blocks of the instants it lists.
				drop := map[spec.InstantTime]bool{}
				for _, t := range strings.Split(compacted, ",") {
					drop[spec.InstantTime(strings.TrimSpace(t))] = true
				}
				kept := blocks[:0]
				for _, pb := range blocks {
					if !drop[pb.instant] {
						kept = append(kept, pb)
					}
				}
				blocks = kept
			}
			b.Content = nil // read again in applyBlock
			blocks = append(blocks, pendingBlock{file: lf.Path, block: b, instant: inst})
		}
		f.Close()
	}
	r.logs.store = newBatchStore(r.opts.MaxLogMemory, r.opts.SpillDir, r.mem, r.read)
	decoders := map[string]*avroDecoder{}
	var open storage.File
	var openPath string
	defer func() {
		if open != nil {
			open.Close()
		}
	}()
	for _, pb := range blocks {
		if pb.file != openPath {
			if open != nil {
				open.Close()
			}
			f, err := r.st.Open(ctx, pb.file)
			if err != nil {
				return fmt.Errorf("open log file: %w", err)
			}
			open, openPath = f, pb.file
		}
		full, err := logfile.ReadBlockAt(open, open.Size(), pb.file, pb.block.Offset)
		if err != nil {
			return err
		}
		if full.Offset != pb.block.Offset || full.Length != pb.block.Length || full.Type != pb.block.Type {
			return fmt.Errorf("log file %s changed while it was read: block at offset %d", pb.file, pb.block.Offset)
		}
		pb.block = full
		if err := r.applyBlock(ctx, pb, decoders); err != nil {
			return fmt.Errorf("log file %s, block at offset %d: %w", pb.file, pb.block.Offset, err)
		}
	}
	if n := r.logs.store.spilledBatches(); n > 0 {
		r.opts.Logger.Debug("log records spilled to disk", "slice", r.slice.FileID, "batches", n, "budget", r.logs.store.budget)
	}
	return nil
}

// avroDecoder decodes the records of Avro data blocks written with one writer schema.
type avroDecoder struct {
	writer   *avro.Schema
	appender *schema.RecordAppender
}

func (r *sliceReader) applyBlock(ctx context.Context, pb pendingBlock, decoders map[string]*avroDecoder) error {
	b := pb.block
	switch b.Type {
	case logfile.AvroDataBlock:
		writerSchema := b.Header[logfile.Schema]
		if writerSchema == "" {
			return errors.New("avro data block has no SCHEMA header")
		}
		dec, ok := decoders[writerSchema]
		if !ok {
			w, err := avro.Parse(writerSchema)
			if err != nil {
				return fmt.Errorf("block SCHEMA header: %w", err)
			}
			app, err := schema.NewRecordAppender(writerSchema, r.read)
			if err != nil {
				return err
			}
			dec = &avroDecoder{writer: w, appender: app}
			decoders[writerSchema] = dec
		}
		recs, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			return err
		}
		rb := array.NewRecordBuilder(r.mem, r.read)
		defer rb.Release()
		for i, raw := range recs {
			v, _, err := dec.writer.Decode(raw)
			if err != nil {
				return fmt.Errorf("decode avro record %d: %w", i, err)
			}
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("avro record %d is %T, not a record", i, v)
			}
			if err := dec.appender.Append(rb, m); err != nil {
				return fmt.Errorf("avro record %d: %w", i, err)
			}
		}
		rec := rb.NewRecord()
		if len(r.opts.PartitionValues) > 0 {
			filled, err := fillPartitionValues(r.mem, rec, r.opts.PartitionValues)
			rec.Release()
			if err != nil {
				return err
			}
			rec = filled
		}
		return r.addLogBatch(rec)
	case logfile.ParquetDataBlock:
		pf, err := parquet.OpenBytes(b.Content, pb.file, r.mem, int64(r.opts.BatchSize))
		if err != nil {
			return err
		}
		defer pf.Close()
		return pf.ReadBatches(ctx, nil, nil, func(batch arrow.Record) error {
			rec, err := r.conform(batch, pb.file)
			if err != nil {
				return err
			}
			return r.addLogBatch(rec)
		})
	case logfile.DeleteBlock:
		dels, err := logfile.DecodeDeleteBlock(b.Content)
		if err != nil {
			return err
		}
		for _, d := range dels {
			ord := merge.OrderingOf(deleteOrdering(d.OrderingValue))
			e := r.logs.entries[d.RecordKey]
			if e != nil && !e.deleteBlock && r.opts.Rules.DeleteIgnored(e.ordering, ord) {
				continue // a late delete with a smaller ordering value loses
			}
			r.logs.entries[d.RecordKey] = &logEntry{deleteBlock: true, ordering: ord}
		}
		return nil
	case logfile.HFileDataBlock:
		return errors.New("HFile data blocks are only used by the metadata table and are not supported in data tables")
	case logfile.CDCDataBlock:
		return nil // change-data blocks are not part of the table's data
	}
	return fmt.Errorf("unsupported log block type %v", b.Type)
}

// deleteOrdering maps the typed ordering values of delete records onto plain Go values.
func deleteOrdering(v any) any {
	switch x := v.(type) {
	case logfile.DateValue:
		return int32(x)
	case logfile.TimestampMicrosValue:
		return int64(x)
	case logfile.TimeMicrosValue:
		return int64(x)
	}
	return v
}

// addLogBatch adds a batch of log data records (read schema), merging each into the key
// map, and hands the batch to the store (which may spill it to disk).
func (r *sliceReader) addLogBatch(rec arrow.Record) error {
	bi := int32(r.logs.store.len())
	for i := 0; i < int(rec.NumRows()); i++ {
		key, err := r.keyOf(rec, i)
		if err != nil {
			rec.Release()
			return fmt.Errorf("log record %d: %w", i, err)
		}
		ord := r.orderingOf(rec, i)
		if e := r.logs.entries[key]; e != nil {
			if !e.deleteBlock && r.opts.Rules.KeepOlderLog(e.ordering, ord) {
				continue
			}
			if e.deleteBlock && r.opts.Rules.KeepOlderLog(e.ordering, ord) && !e.ordering.IsDefaultZero() {
				continue // a delete with a greater real ordering value beats a late insert
			}
		}
		r.logs.entries[key] = &logEntry{batch: bi, row: int32(i), ordering: ord, softDeleted: r.isDeleted(rec, i)}
	}
	_, err := r.logs.store.add(rec)
	return err
}

// mergeBaseBatch emits the base rows that survive the merge with the log records.
func (r *sliceReader) mergeBaseBatch(ctx context.Context, rec arrow.Record, emit Emit) error {
	n := int(rec.NumRows())
	keep := array.NewBooleanBuilder(r.mem)
	defer keep.Release()
	keep.Reserve(n)
	dropped := 0
	for i := 0; i < n; i++ {
		key, err := r.keyOf(rec, i)
		if err != nil {
			return fmt.Errorf("base file %s: %w", r.slice.Base.Path, err)
		}
		e := r.logs.entries[key]
		if e == nil || e.consumed {
			keep.UnsafeAppend(true)
			continue
		}
		e.consumed = true
		if !e.deleteBlock && r.opts.Rules.KeepBase(r.orderingOf(rec, i), e.ordering) {
			e.baseWon = true
			keep.UnsafeAppend(true)
			continue
		}
		keep.UnsafeAppend(false)
		dropped++
	}
	if dropped == 0 {
		return r.emitProjected(rec, emit)
	}
	mask := keep.NewArray()
	defer mask.Release()
	filtered, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, r.mem), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return fmt.Errorf("filter base rows: %w", err)
	}
	defer filtered.Release()
	return r.emitProjected(filtered, emit)
}

// emitLogRecords emits the winning log records: updates that beat their base record and
// inserts that had none.
func (r *sliceReader) emitLogRecords(ctx context.Context, emit Emit) error {
	if r.logs.store == nil {
		return nil
	}
	rows := make([][]int32, r.logs.store.len())
	for _, e := range r.logs.entries {
		if e.deleteBlock || e.softDeleted || e.baseWon {
			continue
		}
		rows[e.batch] = append(rows[e.batch], e.row)
	}
	cctx := compute.WithAllocator(ctx, r.mem)
	for bi, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		slices.Sort(idx) // keep the log order of the batch
		rec, err := r.logs.store.get(bi)
		if err != nil {
			return err
		}
		err = r.emitRows(cctx, rec, idx, emit)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// emitRows emits rows idx (ascending) of a log batch, projected to the output columns.
func (r *sliceReader) emitRows(cctx context.Context, rec arrow.Record, idx []int32, emit Emit) error {
	{
		if len(idx) == int(rec.NumRows()) {
			return r.emitProjected(rec, emit)
		}
		ib := array.NewInt32Builder(r.mem)
		ib.AppendValues(idx, nil)
		indices := ib.NewArray()
		ib.Release()
		cols := make([]arrow.Array, len(r.outIdx))
		var err error
		for i, j := range r.outIdx {
			cols[i], err = compute.TakeArray(cctx, rec.Column(j), indices)
			if err != nil {
				break
			}
		}
		indices.Release()
		if err != nil {
			releaseAll(cols)
			return fmt.Errorf("select log records: %w", err)
		}
		out := array.NewRecord(r.out, cols, int64(len(idx)))
		releaseAll(cols)
		err = emit(out)
		out.Release()
		return err
	}
}

func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}
