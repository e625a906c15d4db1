package write

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
)

// WriteReader applies one operation with the input rows of rdr and commits it, like Write.
//
// A bulk_insert with hoodie.bulkinsert.sort.mode NONE (the default), no duplicate policy,
// no combining before insert and no delete marker streams: each batch's rows are routed,
// as they are read, to an open base file of their partition (rolling over to a new file
// group at hoodie.parquet.max.file.size), so the writer holds, however many rows rdr
// yields, a few batches and per partition one open file: its row group's compressed pages
// (up to hoodie.parquet.block.size) and a page of values per column (up to
// hoodie.parquet.page.size). Java's NONE mode keeps a handle per partition open too; a
// write into thousands of partitions holds thousands of open files either way. Its
// files, meta columns and commit are those of Write's bulk_insert but for one thing: a
// partition's write task (the <task> of _hoodie_commit_seqno "<instant>_<task>_<n>" and
// of the file names' write token) is numbered in the order partitions first appear in
// the input, not in path order, which a stream cannot know up front.
//
// Every other operation and sort mode reads rdr to the end and calls Write: they need the
// whole input at once — upserts, inserts and deletes look keys up in the index and
// precombine, the sort modes sort, insert_overwrite replaces the partitions the input
// names — as Java's do.
//
// A failure of rdr fails the write with nothing committed; files already written belong
// to a pending instant that the next writer rolls back.
func WriteReader(ctx context.Context, t *table.Table, rdr array.RecordReader, o Options) (*Result, error) {
	if !streams(o.withDefaults()) {
		batches, err := drainReader(ctx, rdr, o)
		if err != nil {
			return nil, err
		}
		defer releaseRecords(batches)
		return Write(ctx, t, batches, o)
	}
	return writeStream(ctx, t, rdr, o)
}

// streams reports whether a write with options o (defaults applied) can be streamed: a
// bulk_insert whose records go to new files in input order with no step that needs all
// of them (compactInput) and no delete marker.
func streams(o Options) bool {
	return o.Operation == BulkInsert && compactInput(o) && o.DeleteMarker == ""
}

// drainReader reads every batch of rdr (retained; the caller releases them), reporting
// the rows read as the input phase.
func drainReader(ctx context.Context, rdr array.RecordReader, o Options) ([]arrow.Record, error) {
	var out []arrow.Record
	var rows int64
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			releaseRecords(out)
			return nil, err
		}
		rec := rdr.RecordBatch()
		rec.Retain()
		out = append(out, rec)
		rows += rec.NumRows()
		o.progress(Progress{Phase: PhaseInput, Done: rows})
	}
	if err := rdr.Err(); err != nil {
		releaseRecords(out)
		return nil, fmt.Errorf("read input batch %d: %w", len(out)+1, err)
	}
	return out, nil
}

// streamQueue is the number of batch pieces a partition worker may have queued: enough
// to keep it busy while the reader conforms the next batch, few enough that the reader
// waits (and memory stays a few batches) when the workers fall behind.
const streamQueue = 2

// writeStream is WriteReader's streaming bulk_insert: Write's steps with the input
// read batch by batch (see streamFiles).
func writeStream(ctx context.Context, t *table.Table, rdr array.RecordReader, o Options) (*Result, error) {
	t, o, res, release, err := openForWrite(ctx, t, o)
	if err != nil {
		return nil, err
	}
	defer release()
	start := commit.NewWriteStart(t.Timeline)
	input := rdr.Schema()
	writeSchema, avroSchema, rows, gen, sor, err := resolveInput(ctx, t, input, o)
	if err != nil {
		return nil, err
	}
	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	view, err := t.View(ctx, listing, "")
	if err != nil {
		return nil, err
	}
	w := &writer{t: t, o: o, view: view, mor: t.Type == spec.MergeOnRead, keys: newStoredKeys(t, gen), sor: sor}
	if sor != nil {
		w.evolution = sor.evolution(ctx, t)
	}
	if err := checkMORView(w); err != nil {
		return nil, err
	}
	action := spec.ActionCommit
	if w.mor {
		action = spec.ActionDeltaCommit
	}
	// A streamed bulk_insert only creates file groups: Java starts it with an empty
	// inflight file, and it has no existing file group to conflict on.
	env, err := w.begin(ctx, action, nil, writeSchema, avroSchema, nil, nil, start)
	if err != nil {
		return nil, err
	}
	defer env.txn.Close()
	// A streamed write starts its instant first: generated keys carry it.
	s := &streamer{w: w, env: env, gen: gen, keys: keyer{gen: gen, instant: string(env.txn.Instant)}, rowSchema: rows, fileSchema: writeSchema, input: schema.WithoutMetaFields(input)}
	stats, err := s.run(ctx, rdr)
	if errors.Is(err, commit.ErrEarlyConflict) { // new file ids: only with a clashing one
		return nil, w.abortEarlyConflict(ctx, env.txn, err)
	}
	if err != nil {
		return nil, err
	}
	if err := w.complete(ctx, env.txn, res, action, avroSchema, stats, nil, start); err != nil {
		return nil, err
	}
	return res, nil
}

// streamer routes the rows of a stream of batches to partition workers.
type streamer struct {
	w          *writer
	env        *writeEnv
	gen        *keygen.Generator
	keys       keyer
	rowSchema  *arrow.Schema // input rows conformed and keyed: fileSchema + dropped partition columns
	fileSchema *arrow.Schema // the write schema, no meta fields
	input      *arrow.Schema // the reader's schema without meta fields, which every batch must have
}

// streamPiece is the rows of one partition in one input batch, in input order.
type streamPiece struct {
	part *streamPart
	full arrow.Record // the batch conformed to rowSchema (keys are computed from it)
	data arrow.Record // full's fileSchema columns (what the file gets)
	rows []int32
	row0 int64 // global number of the batch's first row (error messages)
}

func (p streamPiece) release() {
	p.full.Release()
	p.data.Release()
}

// streamPart is a partition of the stream: its write task and, owned by its worker, its
// open file.
type streamPart struct {
	path    string
	task    int
	worker  int
	fw      *fileWriter
	seq     int64 // next seqno number in fw
	written int64 // rows of the partition written so far
	created bool  // partition metadata written
}

// run reads rdr to the end, routing each batch's live rows by partition to
// Parallelism workers (a partition always to the same one, so its rows stay in input
// order) through bounded queues, and returns the stats of the files written.
//
// Why this shape: the reader goroutine does what must be serial (reading, conforming,
// partition paths) and the workers what is per partition (record keys, meta columns,
// Parquet encoding), so both cores work; the bounded queues make the reader wait for
// the workers, so no more than a few batches are held.
func (s *streamer) run(ctx context.Context, rdr array.RecordReader) ([]commitmeta.WriteStat, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	n := max(1, s.w.o.Parallelism)
	queues := make([]chan streamPiece, n)
	results := make([][]commitmeta.WriteStat, n)
	var wg sync.WaitGroup
	for i := range queues {
		queues[i] = make(chan streamPiece, streamQueue)
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s.work(ctx, queues[i])
			if err != nil {
				cancel(err)
				return
			}
			results[i] = st
		}()
	}
	readErr := s.read(ctx, rdr, queues)
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	if readErr != nil {
		cancel(readErr)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	var stats []commitmeta.WriteStat
	for _, st := range results {
		stats = append(stats, st...)
	}
	s.w.o.progress(Progress{Phase: PhaseWrite, Done: int64(len(stats)), Total: int64(len(stats))})
	sort.Slice(stats, func(i, j int) bool { return stats[i].Path < stats[j].Path })
	return stats, nil
}

// read routes rdr's batches to the workers' queues. It returns the reader's or the
// routing's error; when a worker fails it stops and returns nil (the worker's error is
// the context's cause).
func (s *streamer) read(ctx context.Context, rdr array.RecordReader, queues []chan streamPiece) error {
	parts := map[string]*streamPart{}
	delIdx := schema.FieldIndex(s.rowSchema, isDeletedField)
	var row0 int64
	batch := 0
	for rdr.Next() {
		batch++
		if ctx.Err() != nil {
			return nil
		}
		b := rdr.RecordBatch()
		if !schema.WithoutMetaFields(b.Schema()).Equal(s.input) {
			return fmt.Errorf("input batch %d has a different schema than the reader's", batch)
		}
		if queued, err := s.route(ctx, b, row0, delIdx, parts, queues); err != nil || !queued {
			return err
		}
		row0 += b.NumRows()
		s.w.o.progress(Progress{Phase: PhaseInput, Done: row0})
	}
	if err := rdr.Err(); err != nil {
		return fmt.Errorf("read input batch %d (after %d rows): %w", batch+1, row0, err)
	}
	return nil
}

// route conforms one batch and queues its live rows, a piece per partition, to the
// partitions' workers. A partition new to the stream gets the next task number and a
// worker (round robin). It reports false when it stopped because the context was
// cancelled (a worker failed: its error is the write's).
func (s *streamer) route(ctx context.Context, b arrow.Record, row0 int64, delIdx int,
	parts map[string]*streamPart, queues []chan streamPiece) (bool, error) {
	full, err := schema.ConformRecord(s.w.o.Mem, b, s.rowSchema)
	if err != nil {
		return false, fmt.Errorf("input rows %d–%d: %w", row0+1, row0+b.NumRows(), err)
	}
	defer full.Release()
	if err := schema.CheckListElements(full, row0); err != nil {
		return false, err
	}
	if v := schema.CheckNotNull(full); v != nil {
		// A streamed write cannot look ahead: the failed instant is rolled back by the
		// next writer, and nothing of it is committed.
		return false, fmt.Errorf("input row %d: %w", row0+int64(v.Row)+1, v)
	}
	data := full
	if s.fileSchema.NumFields() != s.rowSchema.NumFields() {
		data = array.NewRecordBatch(s.fileSchema, full.Columns()[:s.fileSchema.NumFields()], full.NumRows())
		defer data.Release()
	}
	var deleted *array.Boolean
	if delIdx >= 0 {
		deleted, _ = full.Column(delIdx).(*array.Boolean)
	}
	// The batch's rows by partition, partitions in order of first appearance.
	var order []*streamPart
	rows := map[*streamPart][]int32{}
	var last *streamPart
	for i := 0; i < int(full.NumRows()); i++ {
		path, err := s.gen.PartitionPath(full, i)
		if err != nil {
			return false, fmt.Errorf("input row %d: %w", row0+int64(i)+1, err)
		}
		// A soft delete of a new key writes nothing (Write's compact input drops it too).
		if deleted != nil && deleted.IsValid(i) && deleted.Value(i) {
			continue
		}
		p := last
		if p == nil || p.path != path {
			if p = parts[path]; p == nil {
				p = &streamPart{path: path, task: len(parts), worker: len(parts) % len(queues)}
				parts[path] = p
			}
			last = p
		}
		if _, ok := rows[p]; !ok {
			order = append(order, p)
		}
		rows[p] = append(rows[p], int32(i))
	}
	for _, p := range order {
		full.Retain()
		data.Retain()
		piece := streamPiece{part: p, full: full, data: data, rows: rows[p], row0: row0}
		select {
		case queues[p.worker] <- piece:
		case <-ctx.Done():
			piece.release()
			return false, nil
		}
	}
	return true, nil
}

// work writes the pieces of its queue into their partitions' files and, once the queue
// is closed, finishes the files. After a failure it only drains the queue (so the reader
// never blocks on it) and aborts its open files.
func (s *streamer) work(ctx context.Context, queue <-chan streamPiece) ([]commitmeta.WriteStat, error) {
	var open []*streamPart
	var stats []commitmeta.WriteStat
	var scratch metaScratch // one piece's rows are written before the next is built
	var buf []incoming
	var err error
	for piece := range queue {
		if err == nil {
			if err = ctx.Err(); err == nil {
				if piece.part.fw == nil && !piece.part.created {
					// The partition's first piece (a partition has one worker): its
					// files are this worker's to finish or abort.
					open = append(open, piece.part)
				}
				buf, err = s.writePiece(ctx, piece, &stats, &scratch, buf)
			}
		}
		piece.release()
	}
	for _, p := range open {
		if p.fw == nil {
			continue
		}
		if err != nil {
			p.fw.abort()
			p.fw = nil
			continue
		}
		var st commitmeta.WriteStat
		if st, err = s.finish(ctx, p); err == nil {
			stats = append(stats, st)
		}
	}
	if err != nil {
		return nil, err
	}
	return stats, nil
}

// writePiece writes a piece's rows into its partition's file, chunk by chunk as
// createFiles does: a chunk ends where the partition's row count reaches a multiple of
// the chunk size, and before each chunk the file rolls over to a new file group once it
// reached hoodie.parquet.max.file.size — the rows createFiles would check at.
func (s *streamer) writePiece(ctx context.Context, piece streamPiece, stats *[]commitmeta.WriteStat,
	scratch *metaScratch, buf []incoming) ([]incoming, error) {
	const chunk = createChunk
	p := piece.part
	in := &inputSet{batches: []arrow.Record{piece.data}}
	for rows := piece.rows; len(rows) > 0; {
		at := int(p.written % chunk)
		k := min(len(rows), chunk-at)
		if at == 0 && p.fw != nil && p.fw.size() >= s.w.o.MaxFileSize {
			st, err := s.finish(ctx, p)
			if err != nil {
				return buf, err
			}
			*stats = append(*stats, st)
		}
		if p.fw == nil {
			if err := s.open(ctx, p); err != nil {
				return buf, err
			}
		}
		buf = buf[:0]
		for _, r := range rows[:k] {
			key, err := s.keys.key(piece.full, int(r), piece.row0+int64(r))
			if err != nil {
				return buf, fmt.Errorf("input row %d: %w", piece.row0+int64(r)+1, err)
			}
			buf = append(buf, incoming{row: r, key: key, partition: p.path})
		}
		name := p.fw.fileName()
		recs, err := s.env.newRows(ctx, in, buf, p.path, name, p.task, &p.seq, scratch)
		if err != nil {
			return buf, err
		}
		for _, r := range recs {
			if err == nil {
				err = p.fw.write(r)
			}
			r.Release()
		}
		if err != nil {
			return buf, err
		}
		p.fw.stat.NumInserts += int64(k)
		p.written += int64(k)
		rows = rows[k:]
	}
	return buf, nil
}

// open starts a new file group in p's partition (its partition metadata first, once).
func (s *streamer) open(ctx context.Context, p *streamPart) error {
	if !p.created {
		if err := writePartitionMetadata(ctx, s.w.t.Storage, p.path, s.env.txn.Instant, s.w.o.Now()); err != nil {
			return err
		}
		p.created = true
	}
	fw, err := s.env.newFile(ctx, fileSpec{partition: p.path, fileID: newFileID(), token: token(p.task)}, commit.IOCreate)
	if err != nil {
		return fmt.Errorf("partition %q: %w", p.path, err)
	}
	p.fw, p.seq = fw, 0
	return nil
}

// finish closes p's open file and returns its stat.
func (s *streamer) finish(ctx context.Context, p *streamPart) (commitmeta.WriteStat, error) {
	fw := p.fw
	p.fw = nil
	return fw.close(s.env.st, ctx)
}
