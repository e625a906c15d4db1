package write

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/merge"
)

// PartialUpdateAvroPayload (Java 0.14, org.apache.hudi.common.model) merges two versions of
// a record field by field: the version with the strictly greater ordering value is the
// base (ties: the incoming/later one), and each field of the base that is null takes the
// other version's value (OverwriteNonDefaultsWithLatestAvroPayload.mergeRecords with
// overwriteField = value == null). An incoming soft delete deletes whatever the ordering
// (getInsertValue is empty, "natural order for delete record"); a stored/earlier base that
// is a soft delete gives way to the later record whole (preCombine returns this when the
// merge is empty). The merged record is a new write: it gets the commit's meta fields.
//
// Copy-on-write merges here (the merge handle); merge-on-read writes the incoming rows to
// the logs and its readers and compaction merge them (filegroup). Global indexes, whose
// cross-partition merges are not implemented for it, are refused (checkPartialUpdate).

func isPartialUpdate(payload string) bool { return payload == merge.PartialUpdatePayload }

// checkPartialUpdate refuses the cases the partial-update merge is not implemented for.
func checkPartialUpdate(o Options) error {
	if !isPartialUpdate(o.PayloadClass) {
		return nil
	}
	if o.index.Global() {
		return fmt.Errorf("%s with the %s index: %w", merge.PartialUpdatePayload, o.index.Type(), merge.ErrUnsupportedPayload)
	}
	return nil
}

// rowRef is one source row of a merged record: srcs[src] row row.
type rowRef struct{ src, row int }

// coalesceRows builds a batch of schema sc with one row per entry of picks: column by
// column, the value of the first listed source row whose value is not null there (the
// first source row's null when all are null). Every source has sc's columns by position.
func coalesceRows(ctx context.Context, mem memory.Allocator, sc *arrow.Schema, srcs []arrow.Record, picks [][]rowRef) (arrow.Record, error) {
	offsets := make([]int, len(srcs)+1)
	for i, s := range srcs {
		offsets[i+1] = offsets[i] + int(s.NumRows())
	}
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, sc.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for j := range cols {
		parts := make([]arrow.Array, len(srcs))
		for i, s := range srcs {
			parts[i] = s.Column(j)
		}
		all, err := array.Concatenate(parts, mem)
		if err != nil {
			release()
			return nil, fmt.Errorf("partial update: column %s: %w", sc.Field(j).Name, err)
		}
		ib := array.NewInt32Builder(mem)
		for _, refs := range picks {
			pick := refs[0]
			for _, r := range refs {
				if srcs[r.src].Column(j).IsValid(r.row) {
					pick = r
					break
				}
			}
			ib.Append(int32(offsets[pick.src] + pick.row))
		}
		idx := ib.NewArray()
		ib.Release()
		cols[j], err = compute.TakeArray(cctx, all, idx)
		idx.Release()
		all.Release()
		if err != nil {
			release()
			return nil, fmt.Errorf("partial update: column %s: %w", sc.Field(j).Name, err)
		}
	}
	out := array.NewRecord(sc, cols, int64(len(picks)))
	release()
	return out, nil
}

// precombinePartial is precombine for PartialUpdateAvroPayload (its preCombine): records
// of one key (and partition unless global) merge in input order into one, whose row is
// built into a batch appended to in.batches.
func (in *inputSet) precombinePartial(ctx context.Context, mem memory.Allocator, global bool) error {
	type hk struct{ key, partition string }
	type state struct {
		rec  incoming
		refs []rowRef // priority order, into in.batches
	}
	pos := make(map[hk]int, len(in.records))
	var states []state
	for _, r := range in.records {
		k := hk{key: r.key}
		if !global {
			k.partition = r.partition
		}
		this := rowRef{int(r.batch), int(r.row)}
		i, ok := pos[k]
		if !ok {
			pos[k] = len(states)
			states = append(states, state{rec: r, refs: []rowRef{this}})
			continue
		}
		old := &states[i]
		if r.softDelete || r.hardDelete || old.rec.hardDelete {
			*old = state{rec: r, refs: []rowRef{this}} // a delete, or after one: natural order
			continue
		}
		c, comparable := in.ordering(old.rec).Compare(in.ordering(r))
		if comparable && c > 0 {
			// The earlier record has the greater ordering value: it is the base, unless it
			// is a soft delete (the merge is empty and the later record wins whole).
			if old.rec.softDelete {
				*old = state{rec: r, refs: []rowRef{this}}
				continue
			}
			old.refs = append(old.refs, this)
			continue
		}
		// The later record is the base; its nulls take the earlier record's values (a soft
		// delete too: mergeRecords only checks the base for the delete flag).
		*old = state{rec: r, refs: append([]rowRef{this}, old.refs...)}
	}
	var picks [][]rowRef
	for _, s := range states {
		if len(s.refs) > 1 {
			picks = append(picks, s.refs)
		}
	}
	out := in.records[:0]
	if len(picks) == 0 {
		for _, s := range states {
			out = append(out, s.rec)
		}
		in.records = out
		return nil
	}
	merged, err := coalesceRows(ctx, mem, in.schema, in.batches, picks)
	if err != nil {
		return err
	}
	bi := int32(len(in.batches))
	in.batches = append(in.batches, merged)
	row := int32(0)
	for _, s := range states {
		r := s.rec
		if len(s.refs) > 1 {
			r.batch, r.row = bi, row
			row++
		}
		out = append(out, r)
	}
	in.records = out
	return nil
}

// takeDataRows copies rows of a stored batch (meta and data columns) as a batch of the
// data schema sc, whose columns are the batch's last sc.NumFields() columns.
func takeDataRows(ctx context.Context, mem memory.Allocator, rec arrow.Record, sc *arrow.Schema, rows []int32) (arrow.Record, error) {
	first := int(rec.NumCols()) - sc.NumFields()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(rows, nil)
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, sc.NumFields())
	for j := range cols {
		c, err := compute.TakeArray(cctx, rec.Column(first+j), idx)
		if err != nil {
			for _, c := range cols[:j] {
				c.Release()
			}
			return nil, fmt.Errorf("partial update: keep stored rows: %w", err)
		}
		cols[j] = c
	}
	out := array.NewRecord(sc, cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// partialMerged builds the merged records of a merge handle's partial updates (incoming
// row picks[i][0] into w.in.batches, stored row picks[i][1] into stored) with their meta
// columns: the stored record is the base when its ordering value is strictly greater
// (storedNewer; Java's isRecordNewer), the incoming one otherwise.
func (w *writer) partialMerged(ctx context.Context, env *writeEnv, picks [][2]rowRef, stored []arrow.Record, storedNewer []bool,
	recs []incoming, partition, fileName string, task int, seq *int64) ([]arrow.Record, error) {
	// Sources: the incoming batches the picks use, then the stored batches.
	srcOf := map[int]int{}
	var srcs []arrow.Record
	for _, p := range picks {
		if _, ok := srcOf[p[0].src]; !ok {
			srcOf[p[0].src] = len(srcs)
			srcs = append(srcs, w.in.batches[p[0].src])
		}
	}
	base := len(srcs)
	srcs = append(srcs, stored...)
	order := make([][]rowRef, len(picks))
	for i, p := range picks {
		in := rowRef{srcOf[p[0].src], p[0].row}
		st := rowRef{base + p[1].src, p[1].row}
		if storedNewer[i] {
			order[i] = []rowRef{st, in}
		} else {
			order[i] = []rowRef{in, st}
		}
	}
	merged, err := coalesceRows(ctx, env.mem, w.in.schema, srcs, order)
	if err != nil {
		return nil, err
	}
	local := &inputSet{schema: w.in.schema, batches: []arrow.Record{merged}, ordIdx: w.in.ordIdx}
	defer local.release()
	mrecs := make([]incoming, len(recs))
	for i, r := range recs {
		r.batch, r.row = 0, int32(i)
		mrecs[i] = r
	}
	return env.newRows(ctx, local, mrecs, partition, fileName, task, seq, nil)
}
