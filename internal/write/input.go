package write

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
)

// incoming is one input record: where it lives and its Hudi key. It is kept small (one
// per input row, copied while planning); the ordering value is read from the batch when
// needed.
type incoming struct {
	batch, row int32
	key        string
	partition  string
	// softDelete: _hoodie_is_deleted is true, so the record deletes its key.
	softDelete bool
	// hardDelete: the delete applies whatever the ordering values (the delete operation and
	// a global index's delete of a moved key: Java's EmptyHoodieRecordPayload). A soft
	// delete alone goes through the payload, so DefaultHoodieRecordPayload keeps a stored
	// record with a greater ordering value.
	hardDelete bool
}

// inputSet holds the input conformed to the write schema, with every record's key.
type inputSet struct {
	schema  *arrow.Schema // write schema, no meta fields
	batches []arrow.Record
	records []incoming
	ordIdx  int // ordering column of the write schema, -1 if none

	// grouped replaces records for writes that only create files (compactInput,
	// bulk.go): rows by partition, whose records rowSource builds per chunk from full
	// (the batches before project dropped partition columns; starts[i] is batch i's
	// first global row) with keys.
	grouped *groupedRows
	full    []arrow.Record
	starts  []int64
	keys    keyer
}

// numRecords is the number of input records kept for the write.
func (in *inputSet) numRecords() int {
	if in.grouped != nil {
		return in.grouped.total
	}
	return len(in.records)
}

// ordering is the ordering (precombine) value of an input record.
func (in *inputSet) ordering(r incoming) merge.Ordering {
	if in.ordIdx < 0 {
		return merge.Ordering{}
	}
	return merge.OrderingAt(in.batches[r.batch].Column(in.ordIdx), int(r.row))
}

func (in *inputSet) release() {
	for _, b := range in.batches {
		b.Release()
	}
	in.batches = nil
	for _, b := range in.full {
		b.Release()
	}
	in.full = nil
}

// isDeletedField is Hudi's soft-delete column.
const isDeletedField = "_hoodie_is_deleted"

// collect conforms the input batches to the write schema and computes each record's key,
// partition path and ordering value. Meta columns in the input are ignored (the
// conformed schema has none). With compact (compactInput) it keeps no record per row but
// the rows grouped by partition (in.grouped), having checked every row's key.
func collect(ctx context.Context, mem memory.Allocator, batches []arrow.Record, writeSchema *arrow.Schema,
	keys keyer, orderingField string, requireOrdering bool, deletes [][]bool, compact bool) (*inputSet, error) {
	in := &inputSet{schema: writeSchema, ordIdx: -1}
	if orderingField != "" {
		in.ordIdx = schema.FieldIndex(writeSchema, orderingField)
	}
	if in.ordIdx < 0 {
		requireOrdering = false
	}
	delIdx := schema.FieldIndex(writeSchema, isDeletedField)
	var total int64
	for _, b := range batches {
		total += b.NumRows()
	}
	var grouper *rowGrouper
	if compact {
		grouper = &rowGrouper{pids: make([]uint32, 0, total)}
		in.keys = keys
		in.starts = make([]int64, 1, len(batches)+1)
	} else {
		in.records = make([]incoming, 0, total)
	}
	// Partition paths repeat across rows: keep one string per distinct path.
	paths := map[string]string{}
	row0 := 0
	for _, b := range batches {
		if err := ctx.Err(); err != nil {
			in.release()
			return nil, err
		}
		rec, err := schema.ConformRecord(mem, b, writeSchema)
		if err != nil {
			in.release()
			return nil, fmt.Errorf("input rows %d–%d: %w", row0+1, row0+int(b.NumRows()), err)
		}
		if err := schema.CheckListElements(rec, int64(row0)); err != nil {
			rec.Release()
			in.release()
			return nil, err
		}
		if v := schema.CheckNotNull(rec); v != nil {
			rec.Release()
			in.release()
			return nil, fmt.Errorf("input row %d: %w", row0+v.Row+1, v)
		}
		bi := int32(len(in.batches))
		in.batches = append(in.batches, rec)
		if compact {
			rec.Retain() // project may replace in.batches[bi]; keys come from the full batch
			in.full = append(in.full, rec)
			in.starts = append(in.starts, in.starts[bi]+rec.NumRows())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			key, err := keys.key(rec, i, int64(row0+i))
			if err != nil {
				in.release()
				return nil, fmt.Errorf("input row %d: %w", row0+i+1, err)
			}
			part, err := keys.gen.PartitionPath(rec, i)
			if err != nil {
				in.release()
				return nil, fmt.Errorf("input row %d: %w", row0+i+1, err)
			}
			if p, ok := paths[part]; ok {
				part = p
			} else if !compact { // the grouper numbers paths itself
				paths[part] = part
			}
			r := incoming{batch: bi, row: int32(i), key: key, partition: part}
			if delIdx >= 0 {
				if c, ok := rec.Column(delIdx).(*array.Boolean); ok && c.IsValid(i) && c.Value(i) {
					r.softDelete = true
				}
			}
			if deletes != nil && deletes[bi][i] {
				r.softDelete, r.hardDelete = true, true
			}
			if requireOrdering && !r.hardDelete && rec.Column(in.ordIdx).IsNull(i) {
				// Java reads the ordering value of every record it combines with
				// HoodieAvroUtils.getNestedFieldVal(..., returnNullIfNotFound=false), which
				// throws this HoodieException for a null value.
				in.release()
				return nil, fmt.Errorf("input row %d (record key %q): The value of %s can not be null (the ordering/precombine field needs a value)", row0+i+1, key, writeSchema.Field(in.ordIdx).Name)
			}
			if compact {
				grouper.add(part, r.softDelete)
				continue
			}
			in.records = append(in.records, r)
		}
		row0 += int(rec.NumRows())
	}
	if compact {
		in.grouped = grouper.group()
	}
	return in, nil
}

// precombine keeps one record per key (per partition unless global): the one with the
// larger ordering value, ties going to the later record — OverwriteWithLatestAvroPayload's
// and DefaultHoodieRecordPayload's preCombine.
func (in *inputSet) precombine(global bool) {
	type hk struct{ key, partition string }
	pos := make(map[hk]int, len(in.records))
	out := in.records[:0]
	for _, r := range in.records {
		k := hk{key: r.key}
		if !global {
			k.partition = r.partition
		}
		if i, ok := pos[k]; ok {
			if c, comparable := in.ordering(out[i]).Compare(in.ordering(r)); comparable && c > 0 {
				continue // the earlier record has the larger ordering value
			}
			out[i] = r
			continue
		}
		pos[k] = len(out)
		out = append(out, r)
	}
	in.records = out
}

// splitDeleteMarker removes the boolean column marker from every batch and returns the
// stripped batches (to release) and, per batch, which rows it marks for deletion.
func splitDeleteMarker(batches []arrow.Record, marker string) ([]arrow.Record, [][]bool, error) {
	out := make([]arrow.Record, 0, len(batches))
	deletes := make([][]bool, 0, len(batches))
	release := func() {
		for _, b := range out {
			b.Release()
		}
	}
	for bi, b := range batches {
		idx := b.Schema().FieldIndices(marker)
		if len(idx) != 1 {
			release()
			return nil, nil, fmt.Errorf("input batch %d has no delete-marker column %q", bi+1, marker)
		}
		col, ok := b.Column(idx[0]).(*array.Boolean)
		if !ok {
			release()
			return nil, nil, fmt.Errorf("delete-marker column %q is %s, not boolean", marker, b.Column(idx[0]).DataType())
		}
		marks := make([]bool, b.NumRows())
		for i := range marks {
			marks[i] = col.IsValid(i) && col.Value(i)
		}
		fields := make([]arrow.Field, 0, b.NumCols()-1)
		cols := make([]arrow.Array, 0, b.NumCols()-1)
		for c, f := range b.Schema().Fields() {
			if c != idx[0] {
				fields = append(fields, f)
				cols = append(cols, b.Column(c))
			}
		}
		md := b.Schema().Metadata()
		out = append(out, array.NewRecord(arrow.NewSchema(fields, &md), cols, b.NumRows()))
		deletes = append(deletes, marks)
	}
	return out, deletes, nil
}

// estimatedRecordBytes estimates the bytes of one record as written to a log block: the
// input's buffer bytes per row plus the five meta fields (Java sizes its blocks from a
// sampled estimate too).
func (in *inputSet) estimatedRecordBytes() int64 {
	var bytes, rows int64
	for _, b := range in.batches {
		rows += b.NumRows()
		for _, c := range b.Columns() {
			for _, buf := range c.Data().Buffers() {
				if buf != nil {
					bytes += int64(buf.Len())
				}
			}
		}
	}
	const metaBytes = 120 // commit time, seqno, key, partition path, file id
	if rows == 0 {
		return metaBytes
	}
	return bytes/rows + metaBytes
}
