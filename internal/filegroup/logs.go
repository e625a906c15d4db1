package filegroup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
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
	// PartialUpdateAvroPayload (Rules.PartialUpdate): the rows whose fields make up the
	// merged record, in priority order for data columns (refs) and for meta columns
	// (metaRefs); nil while the record is the single row batch, row.
	refs, metaRefs []rowRef
}

// rowRef is a row of a stored batch.
type rowRef struct{ batch, row int32 }

// merged reports whether the entry's record is built from several rows.
func (e *logEntry) merged() bool { return e.refs != nil }

func (e *logEntry) dataRefs() []rowRef {
	if e.refs != nil {
		return e.refs
	}
	return []rowRef{{e.batch, e.row}}
}

func (e *logEntry) metaRefList() []rowRef {
	if e.metaRefs != nil {
		return e.metaRefs
	}
	return []rowRef{{e.batch, e.row}}
}

// logRecords is the key map of a slice's log records. Entries live in one slice indexed
// by the map, so that an update of a key already seen rewrites its entry in place: logs
// that update the same keys many times allocate per key, not per log record, and the
// garbage collector sees one slice instead of an object per key.
type logRecords struct {
	store   *batchStore // nil until the logs are scanned
	index   map[string]int32
	entries []logEntry
}

func (l *logRecords) init() { l.index = map[string]int32{} }

// entry returns the entry of key, or nil.
func (l *logRecords) entry(key string) *logEntry {
	if i, ok := l.index[key]; ok {
		return &l.entries[i]
	}
	return nil
}

// put sets the entry of key. A new key is copied: the caller's string usually points into
// an Arrow buffer (array.String.Value does not copy), which may be released — or, with the
// Go allocator, kept alive whole by this one key — once the batch spills.
func (l *logRecords) put(key string, e logEntry) {
	if i, ok := l.index[key]; ok {
		l.entries[i] = e
		return
	}
	l.index[strings.Clone(key)] = int32(len(l.entries))
	l.entries = append(l.entries, e)
}

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
			r.countBlock(b)
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

// countBlock adds a block to Options.LogStats, if set.
func (r *sliceReader) countBlock(b *logfile.Block) {
	st := r.opts.LogStats
	if st == nil {
		return
	}
	st.Blocks++
	switch {
	case b.Type == logfile.CorruptBlock:
		st.CorruptBlocks++
	case b.Type == logfile.CommandBlock:
		if b.IsRollback() {
			st.RollbackBlocks++
		}
	case !r.opts.Committed(spec.InstantTime(b.InstantTime())):
	case b.Type == logfile.AvroDataBlock:
		if recs, err := logfile.DecodeAvroDataBlock(b.Content); err == nil {
			st.Records += int64(len(recs))
		}
	case b.Type == logfile.DeleteBlock:
		if recs, err := logfile.DecodeDeleteBlock(b.Content); err == nil {
			st.Records += int64(len(recs))
		}
	}
}

// avroDecoder decodes the records of Avro data blocks written with one writer schema:
// straight from the binary into Arrow builders when the schema allows (direct), else
// through generic Go values (writer, appender).
type avroDecoder struct {
	writer   *avro.Schema
	appender *schema.RecordAppender
	direct   *schema.RecordDecoder // nil: the schema needs the generic path
	// target is the schema records decode into: the read schema, or with resolve the
	// file's columns, which resolve then turns into the read schema.
	target  *arrow.Schema
	resolve *schema.FileResolver
}

// newAvroDecoder compiles the decoders of one writer schema into the read schema. The
// generic appender is compiled even when the direct decoder is used, so that a pairing
// neither path can read fails the same way.
func newAvroDecoder(writerSchema string, read *arrow.Schema) (*avroDecoder, error) {
	w, err := avro.Parse(writerSchema)
	if err != nil {
		return nil, fmt.Errorf("block SCHEMA header: %w", err)
	}
	app, err := schema.NewRecordAppender(writerSchema, read)
	if err != nil {
		return nil, err
	}
	direct, err := schema.NewRecordDecoder(writerSchema, read)
	if errors.Is(err, schema.ErrNotDirect) {
		direct, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &avroDecoder{writer: w, appender: app, direct: direct, target: read}, nil
}

// appendRecord decodes one binary record as a row of rb.
func (d *avroDecoder) appendRecord(rb *array.RecordBuilder, raw []byte, i int) error {
	if d.direct != nil {
		if err := d.direct.Append(rb, raw); err != nil {
			return fmt.Errorf("decode avro record %d: %w", i, err)
		}
		return nil
	}
	v, _, err := d.writer.Decode(raw)
	if err != nil {
		return fmt.Errorf("decode avro record %d: %w", i, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("avro record %d is %T, not a record", i, v)
	}
	if err := d.appender.Append(rb, m); err != nil {
		return fmt.Errorf("avro record %d: %w", i, err)
	}
	return nil
}

func (r *sliceReader) applyBlock(ctx context.Context, pb pendingBlock, decoders map[string]*avroDecoder) error {
	b := pb.block
	if strings.EqualFold(b.Header[logfile.IsPartial], "true") {
		// Hudi 1.x's partial updates (MERGE INTO with a partial SET on a merge-on-read
		// table of version 8+) write blocks holding only the updated columns: merged as
		// whole records they would null out the others.
		return fmt.Errorf("log block at offset %d has IS_PARTIAL=true: Hudi 1.x's partial-update log blocks are %w", b.Offset, spec.ErrUnsupported)
	}
	switch b.Type {
	case logfile.AvroDataBlock:
		writerSchema := b.Header[logfile.Schema]
		if writerSchema == "" {
			return errors.New("avro data block has no SCHEMA header")
		}
		res, err := r.resolverFor(pb.instant)
		if err != nil {
			return err
		}
		key := writerSchema
		target := r.read
		if res != nil {
			target = res.FileSchema()
			key = fmt.Sprintf("%s\x00%p", writerSchema, res)
		}
		dec, ok := decoders[key]
		if !ok {
			if dec, err = newAvroDecoder(writerSchema, target); err != nil {
				return err
			}
			dec.resolve = res
			decoders[key] = dec
		}
		recs, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			return err
		}
		return r.decodeAvroRecords(recs, dec)
	case logfile.ParquetDataBlock:
		pf, err := parquet.OpenBytes(b.Content, pb.file, r.mem, int64(r.opts.BatchSize))
		if err != nil {
			return err
		}
		if rows := r.parquetBatchRows(pf); rows < r.opts.BatchSize {
			// Wide rows: read smaller batches, for the reason Avro blocks are cut.
			pf.Close()
			if pf, err = parquet.OpenBytes(b.Content, pb.file, r.mem, int64(rows)); err != nil {
				return err
			}
		}
		defer pf.Close()
		res, err := r.resolverFor(pb.instant)
		if err != nil {
			return err
		}
		return pf.ReadBatches(ctx, nil, nil, func(batch arrow.Record) error {
			rec, err := r.conform(batch, pb.file, res)
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
			e := r.logs.entry(d.RecordKey)
			// A late delete with a smaller real ordering value loses to an earlier data
			// record — and, under PayloadPreCombine or event-time ordering, to an earlier
			// delete, whose (greater) ordering value then stays to meet later data records.
			// Event-time ordering (1.x merge mode) keeps the greater delete as 0.14's
			// preCombine does (UNVERIFIED against 1.x's record buffer; the v9 model test
			// expects it): otherwise a soft delete at ts 20, then one at ts 9, let a record
			// at ts 16 reappear.
			if e != nil && (!e.deleteBlock || r.opts.Rules.PayloadPreCombine || r.opts.Rules.Mode == merge.EventTimeOrdering) &&
				r.opts.Rules.DeleteIgnored(e.ordering, ord) {
				continue
			}
			r.logs.put(d.RecordKey, logEntry{deleteBlock: true, ordering: ord})
		}
		return nil
	case logfile.HFileDataBlock:
		return errors.New("HFile data blocks are only used by the metadata table and are not supported in data tables")
	case logfile.CDCDataBlock:
		return nil // change-data blocks are not part of the table's data
	}
	return fmt.Errorf("unsupported log block type %v", b.Type)
}

// decodeAvroRecords decodes the records of one Avro data block into log batches, in
// order. A block may be as large as hoodie.logfile.data.block.max.size (256 MB by
// default), and a batch is the unit that is held in memory or spilled and read back, so
// the records are cut into chunks of at most BatchSize rows and logBatchBytes bytes. Up
// to GOMAXPROCS chunks are decoded at once, since decoding (Avro to Go values to Arrow)
// is most of a log scan; only that window of chunks is in memory before the batches go
// to the store.
func (r *sliceReader) decodeAvroRecords(recs [][]byte, dec *avroDecoder) error {
	chunks := r.avroChunks(recs)
	workers := runtime.GOMAXPROCS(0)
	out := make([]arrow.Record, workers)
	errs := make([]error, workers)
	for len(chunks) > 0 {
		window := chunks[:min(workers, len(chunks))]
		chunks = chunks[len(window):]
		if len(window) == 1 {
			out[0], errs[0] = r.decodeAvroChunk(recs, window[0], dec)
		} else {
			var wg sync.WaitGroup
			for i, c := range window {
				wg.Go(func() { out[i], errs[i] = r.decodeAvroChunk(recs, c, dec) })
			}
			wg.Wait()
		}
		var err error
		for i := range window {
			if err == nil {
				err = errs[i]
			}
			if err == nil {
				err = r.addLogBatch(out[i]) // takes out[i]
			} else if out[i] != nil {
				out[i].Release()
			}
			out[i], errs[i] = nil, nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// avroChunk is a run of records [from, to) of a block.
type avroChunk struct{ from, to int }

// avroChunks cuts a block's records into chunks of at most BatchSize rows and about
// logBatchBytes (the encoded size, near enough to the decoded one: strings and bytes
// dominate). A block too small to need several chunks but worth decoding in parallel is
// cut into GOMAXPROCS chunks of equal bytes.
func (r *sliceReader) avroChunks(recs [][]byte) []avroChunk {
	var total int
	for _, raw := range recs {
		total += len(raw)
	}
	n := max((len(recs)+r.opts.BatchSize-1)/r.opts.BatchSize, (total+r.logBatchBytes()-1)/r.logBatchBytes())
	if w := runtime.GOMAXPROCS(0); n < w && len(recs) >= w*minParallelChunkRows {
		n = w
	}
	target := max(1, (total+n-1)/max(1, n))
	var chunks []avroChunk
	from, size := 0, 0
	for i, raw := range recs {
		size += len(raw)
		if i+1-from >= r.opts.BatchSize || size >= target {
			chunks = append(chunks, avroChunk{from, i + 1})
			from, size = i+1, 0
		}
	}
	if from < len(recs) {
		chunks = append(chunks, avroChunk{from, len(recs)})
	}
	return chunks
}

// minParallelChunkRows: smaller blocks are decoded on one goroutine.
const minParallelChunkRows = 1024

// decodeAvroChunk decodes records c of a block into one batch of the read schema.
func (r *sliceReader) decodeAvroChunk(recs [][]byte, c avroChunk, dec *avroDecoder) (arrow.Record, error) {
	rb := array.NewRecordBuilder(r.mem, dec.target)
	defer rb.Release()
	rb.Reserve(c.to - c.from)
	for i := c.from; i < c.to; i++ {
		if err := dec.appendRecord(rb, recs[i], i); err != nil {
			return nil, err
		}
	}
	rec := rb.NewRecord()
	if dec.resolve != nil {
		resolved, err := dec.resolve.Resolve(r.mem, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = resolved
	}
	if len(r.opts.PartitionValues) > 0 {
		filled, err := fillPartitionValues(r.mem, rec, r.opts.PartitionValues)
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = filled
	}
	return rec, nil
}

// logBatchBytes is the size a batch of decoded log records is cut at: a sixteenth of
// the memory budget, between 64 KB and 4 MB. A batch being built and the spilled batches
// read back while the winners are written are memory on top of the budget, so they are
// kept a small part of it; below 64 KB per batch the per-batch costs (spill file
// messages, output writes) start to show.
func (r *sliceReader) logBatchBytes() int {
	budget := r.opts.MaxLogMemory
	if budget == 0 {
		budget = DefaultMaxLogMemory
	}
	if budget < 0 {
		return maxLogBatchBytes
	}
	return int(min(max(budget/16, minLogBatchBytes), maxLogBatchBytes))
}

const (
	minLogBatchBytes = 64 << 10
	maxLogBatchBytes = 4 << 20
)

// parquetBatchRows is how many rows of a Parquet file — a log block, or a base file being
// merged — make about logBatchBytes, judged by its uncompressed size per row; at most
// BatchSize.
func (r *sliceReader) parquetBatchRows(pf *parquet.File) int {
	var size, rows int64
	for i := 0; i < pf.NumRowGroups(); i++ {
		rg := pf.RowGroupMetadata(i)
		size += rg.TotalByteSize()
		rows += rg.NumRows()
	}
	if rows == 0 || size <= 0 {
		return r.opts.BatchSize
	}
	perRow := max(1, size/rows)
	return int(min(int64(r.opts.BatchSize), max(1, int64(r.logBatchBytes())/perRow)))
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
		if r.opts.Rules.PartialUpdate {
			if e := r.logs.entry(key); e != nil && !e.deleteBlock && !r.isDeleted(rec, i) {
				// PartialUpdateAvroPayload.preCombine of the later record with the earlier
				// one (a delete, or a later soft delete, wins whole: natural order).
				this := rowRef{bi, int32(i)}
				c, ok := e.ordering.Compare(ord)
				pickOld := ok && c > 0
				if !(pickOld && e.softDeleted) {
					ne := logEntry{batch: bi, row: int32(i), ordering: ord,
						metaRefs: append([]rowRef{this}, e.metaRefList()...)}
					if pickOld {
						ne.ordering = e.ordering
						ne.refs = append(slices.Clone(e.dataRefs()), this)
					} else {
						if r.orderingAliases {
							ne.ordering = r.detachedOrderingOf(rec, i)
						}
						ne.refs = append([]rowRef{this}, e.dataRefs()...)
					}
					r.logs.put(key, ne)
					continue
				}
			}
			if r.orderingAliases {
				ord = r.detachedOrderingOf(rec, i)
			}
			r.logs.put(key, logEntry{batch: bi, row: int32(i), ordering: ord, softDeleted: r.isDeleted(rec, i)})
			continue
		}
		if e := r.logs.entry(key); e != nil {
			if !e.deleteBlock && r.opts.Rules.KeepOlderLog(e.ordering, ord) {
				continue
			}
			if e.deleteBlock && r.opts.Rules.DeleteBeatsLaterData(e.ordering, ord) {
				continue
			}
		}
		if r.orderingAliases {
			ord = r.detachedOrderingOf(rec, i)
		}
		r.logs.put(key, logEntry{batch: bi, row: int32(i), ordering: ord, softDeleted: r.isDeleted(rec, i)})
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
	var partialRows []int32
	var partialEntries []partialBase
	for i := 0; i < n; i++ {
		key, err := r.keyOf(rec, i)
		if err != nil {
			return fmt.Errorf("base file %s: %w", r.slice.Base.Path, err)
		}
		e := r.logs.entry(key)
		if e == nil || e.consumed {
			keep.UnsafeAppend(true)
			continue
		}
		e.consumed = true
		if r.opts.Rules.PartialUpdate && !e.deleteBlock && !e.softDeleted {
			// combineAndGetUpdateValue: the base row joins the merged record, as its base
			// when its ordering value is strictly greater (isRecordNewer); a soft-deleted
			// base as the base deletes the record.
			baseNewer := r.orderingOf(rec, i).NewerSameClass(e.ordering)
			if baseNewer && r.isDeleted(rec, i) {
				e.softDeleted = true
			} else {
				partialRows = append(partialRows, int32(i))
				partialEntries = append(partialEntries, partialBase{key: key, newer: baseNewer})
			}
			keep.UnsafeAppend(false)
			dropped++
			if err := r.baseDropped(key, rec, i); err != nil {
				return err
			}
			continue
		}
		if !e.deleteBlock && r.opts.Rules.KeepBase(r.orderingOf(rec, i), e.ordering) {
			e.baseWon = true
			keep.UnsafeAppend(true)
			continue
		}
		keep.UnsafeAppend(false)
		dropped++
		if err := r.baseDropped(key, rec, i); err != nil {
			return err
		}
	}
	if len(partialRows) > 0 {
		if err := r.addPartialBase(ctx, rec, partialRows, partialEntries); err != nil {
			return err
		}
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

// baseDropped reports a base row a log record replaced or deleted (Options.OnBaseDropped).
func (r *sliceReader) baseDropped(key string, rec arrow.Record, i int) error {
	if r.opts.OnBaseDropped == nil {
		return nil
	}
	return r.opts.OnBaseDropped(key, rec, i)
}

// countMerge fills Options.LogStats' merge counts, once the base records are merged.
func (r *sliceReader) countMerge() {
	st := r.opts.LogStats
	if st == nil {
		return
	}
	st.MergedKeys = int64(len(r.logs.entries))
	for i := range r.logs.entries {
		switch e := &r.logs.entries[i]; {
		case e.baseWon:
			// The incoming record is dropped and the base row copied (HoodieMergeHandle's
			// writeUpdateRecord returns false): neither an update nor a delete.
		case e.deleteBlock || e.softDeleted:
			st.Deleted++
		case e.consumed:
			st.Updated++
		default:
			st.Inserted++
		}
	}
}

// emitLogRecords emits the winning log records: updates that beat their base record and
// inserts that had none.
func (r *sliceReader) emitLogRecords(ctx context.Context, emit Emit) error {
	if r.logs.store == nil {
		return nil
	}
	if err := r.emitPartialMerged(ctx, emit); err != nil {
		return err
	}
	rows := make([][]int32, r.logs.store.len())
	for i := range r.logs.entries {
		e := &r.logs.entries[i]
		if e.deleteBlock || e.softDeleted || e.baseWon || e.merged() {
			continue
		}
		rows[e.batch] = append(rows[e.batch], e.row)
	}
	// In-memory batches are freed as soon as they are done with — at once for batches
	// with no winning record (superseded updates), after their rows are emitted for the
	// others — so that the budget's worth of log records does not stay live on top of the
	// spilled batches being read back and the output file's row group.
	for bi, idx := range rows {
		if len(idx) == 0 {
			r.logs.store.drop(bi)
		}
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
		r.logs.store.drop(bi)
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
