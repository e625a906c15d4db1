package filegroup

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/hudi-go/hudi/internal/schema"
)

// PartialUpdateAvroPayload (Java 0.14) merges the versions of a record field by field:
// the log scanner runs the later record's preCombine with the earlier one, the reader and
// compaction combineAndGetUpdateValue of the merged log record with the base record. Of
// two versions the one with the strictly greater ordering value is the base (against the
// base file: of the same class too, isRecordNewer), and each null field of the base takes
// the other version's value; meta fields come from the later log record
// (mergeDisorderRecordsWithMetadata). A soft delete as the later or newer record deletes.
// The entries record which rows make up a merged record (logEntry.refs/metaRefs); the rows
// are built when the log records are emitted.

// partialBase is a base row that joins a log entry's merged record.
type partialBase struct {
	key   string
	newer bool // the base row is the merge's base (greater ordering value)
}

// addPartialBase copies base rows rows of rec into a batch of the store and adds them to
// their keys' merged records.
func (r *sliceReader) addPartialBase(ctx context.Context, rec arrow.Record, rows []int32, bases []partialBase) error {
	ib := array.NewInt32Builder(r.mem)
	ib.AppendValues(rows, nil)
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	cctx := compute.WithAllocator(ctx, r.mem)
	cols := make([]arrow.Array, rec.NumCols())
	for j := range cols {
		c, err := compute.TakeArray(cctx, rec.Column(j), idx)
		if err != nil {
			releaseAll(cols[:j])
			return fmt.Errorf("partial update: keep base rows: %w", err)
		}
		cols[j] = c
	}
	side := array.NewRecord(rec.Schema(), cols, int64(len(rows)))
	releaseAll(cols)
	bi, err := r.logs.store.add(side)
	if err != nil {
		return err
	}
	for k, b := range bases {
		e := r.logs.entry(b.key)
		ref := rowRef{bi, int32(k)}
		data := e.dataRefs()
		if b.newer {
			data = append([]rowRef{ref}, data...)
		} else {
			data = append(append([]rowRef(nil), data...), ref)
		}
		e.metaRefs = append(append([]rowRef(nil), e.metaRefList()...), ref)
		e.refs = data
	}
	return nil
}

// emitPartialMerged builds and emits the merged records of PartialUpdateAvroPayload
// entries: column by column the first non-null value of their rows in priority order.
func (r *sliceReader) emitPartialMerged(ctx context.Context, emit Emit) error {
	var merged []*logEntry
	need := map[int32]int{} // store batch → position in srcs
	var srcs []arrow.Record
	defer func() {
		for _, s := range srcs {
			s.Release()
		}
	}()
	for i := range r.logs.entries {
		e := &r.logs.entries[i]
		if !e.merged() || e.deleteBlock || e.softDeleted || e.baseWon {
			continue
		}
		merged = append(merged, e)
		for _, ref := range append(e.dataRefs(), e.metaRefList()...) {
			if _, ok := need[ref.batch]; !ok {
				rec, err := r.logs.store.get(int(ref.batch))
				if err != nil {
					return err
				}
				need[ref.batch] = len(srcs)
				srcs = append(srcs, rec)
			}
		}
	}
	if len(merged) == 0 {
		return nil
	}
	offsets := make([]int, len(srcs)+1)
	for i, s := range srcs {
		offsets[i+1] = offsets[i] + int(s.NumRows())
	}
	cctx := compute.WithAllocator(ctx, r.mem)
	sc := r.read
	cols := make([]arrow.Array, sc.NumFields())
	for j, f := range sc.Fields() {
		parts := make([]arrow.Array, len(srcs))
		for i, s := range srcs {
			parts[i] = s.Column(j)
		}
		all, err := array.Concatenate(parts, r.mem)
		if err != nil {
			releaseAll(cols)
			return fmt.Errorf("partial update: column %s: %w", f.Name, err)
		}
		ib := array.NewInt32Builder(r.mem)
		for _, e := range merged {
			refs := e.dataRefs()
			if schema.IsMetaField(f.Name) {
				refs = e.metaRefList()
			}
			pick := refs[0]
			for _, ref := range refs {
				if srcs[need[ref.batch]].Column(j).IsValid(int(ref.row)) {
					pick = ref
					break
				}
			}
			ib.Append(int32(offsets[need[pick.batch]] + int(pick.row)))
		}
		idx := ib.NewArray()
		ib.Release()
		cols[j], err = compute.TakeArray(cctx, all, idx)
		idx.Release()
		all.Release()
		if err != nil {
			releaseAll(cols)
			return fmt.Errorf("partial update: column %s: %w", f.Name, err)
		}
	}
	out := array.NewRecord(sc, cols, int64(len(merged)))
	releaseAll(cols)
	defer out.Release()
	return r.emitProjected(out, emit)
}
