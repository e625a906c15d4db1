package write

// Global indexes (GLOBAL_SIMPLE, GLOBAL_BLOOM) match an incoming key against every
// partition, as Hudi 0.14 does:
//
//   - The lookup reads base files only (HoodieGlobalSimpleIndex: latest base files of all
//     partitions; HoodieGlobalBloomIndex: the same, pruned by key range and bloom filter).
//     On merge-on-read a key can therefore be found in several base files: a partition
//     move leaves the key in the old base file, deleted only by a log block, until the
//     group is compacted.
//   - With hoodie.{bloom,simple}.index.update.partition.path=true (the default) on a
//     partitioned table, HoodieIndexUtils.tagGlobalLocationBackToRecords sends a found
//     record to the "merged lookup" (mergeForPartitionUpdatesIfNeeded) when the table is
//     merge-on-read (mayContainDuplicateLookup) or the record's partition differs from the
//     stored one; otherwise it is tagged to the stored location as it is. The merged
//     lookup reads each found file group merged (HoodieMergedReadHandle: base + committed
//     logs, as readers merge them) and joins the incoming record with the stored record of
//     its key there; the incoming record meets the stored one through the writer's payload:
//       - no stored record (deleted by a log): the incoming record is a new insert;
//       - the incoming record is a delete: it goes to the stored record's group and
//         partition, where the payload merges it;
//       - else the payload merges stored and incoming record (HUDI-5968). If the stored
//         one wins (DefaultHoodieRecordPayload, stored ordering value strictly greater),
//         the merged record — the stored one — is written to its group again as an
//         update: it stays in its partition, re-stamped with the new commit time. If the
//         incoming one wins it updates the stored group when the partition is the same,
//         else the stored record is deleted (EmptyHoodieRecordPayload, a delete block on
//         merge-on-read) and the incoming record inserted into its new partition.
//   - With update.partition.path=false, or on a non-partitioned table, a found record is
//     tagged to the stored location with the stored partition path
//     (createNewTaggedHoodieRecord): it updates the record in place, keeping its partition
//     path, while its data columns — the partition field too — are the incoming ones.
//
// Classes read: HoodieIndexUtils (0.14: tagGlobalLocationBackToRecords from HUDI-6431,
// mergeForPartitionUpdatesIfNeeded, getExistingRecords, mergeIncomingWithExistingRecord),
// HoodieGlobalSimpleIndex, HoodieGlobalBloomIndex, HoodieMergedReadHandle,
// HoodieDeleteHelper.createDeleteRecord, DefaultHoodieRecordPayload, HoodieMergeHandle.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/write/index"
)

// storedAt is where a stored record of a key lives, with its ordering value (set when the
// payload orders by event time).
type storedAt struct {
	slice    *fsview.FileSlice
	ordering merge.Ordering
}

// sliceChange is a record routed to a stored file group.
type sliceChange struct {
	slice *fsview.FileSlice
	rec   incoming
}

// globalRoutes is where a global index sends the input records.
type globalRoutes struct {
	changes []sliceChange // updates and deletes of stored groups
	inserts []incoming    // records for new file groups (or small files)
	// restamps are incoming records that lose to the stored record of their key: the
	// stored record is written again in its group (rec carries the group's partition).
	restamps []sliceChange
}

// updatePartitionPath is hoodie.bloom.index.update.partition.path (GLOBAL_BLOOM) or
// hoodie.simple.index.update.partition.path (GLOBAL_SIMPLE), true by default in 0.14.
func (w *writer) updatePartitionPath() bool {
	return w.o.UpdatePartitionPath == nil || *w.o.UpdatePartitionPath
}

// mergedLookup is Java's shouldUpdatePartitionPath: update.partition.path on a partitioned
// table (HUDI-6355 skips the merged lookup for non-partitioned tables).
// UNVERIFIED: we take "partitioned" to mean that the table has partition fields
// (HoodieTableConfig.isTablePartitioned); a non-partitioned table cannot move keys anyway.
func (w *writer) mergedLookup() bool {
	return w.updatePartitionPath() && len(w.t.Config.PartitionFields()) > 0
}

// planGlobal routes upserts and deletes through a global index: every stored group a
// record goes to gets a change in its job, and the records to insert are returned.
func (w *writer) planGlobal(ctx context.Context, recs []incoming, job func(*fsview.FileSlice) *mergeJob) ([]incoming, error) {
	merged := w.mergedLookup()
	hits, err := w.lookupGlobal(ctx, recs)
	if err != nil {
		return nil, err
	}
	cur, err := w.currentLocations(ctx, recs, hits, merged)
	if err != nil {
		return nil, err
	}
	routes := w.routeGlobal(recs, cur, merged)
	if len(routes.restamps) > 0 {
		restamped, err := w.restampRecords(ctx, routes.restamps)
		if err != nil {
			return nil, err
		}
		routes.changes = append(routes.changes, restamped...)
	}
	for _, c := range routes.changes {
		j := job(c.slice)
		j.changes = append(j.changes, c.rec)
	}
	return routes.inserts, nil
}

// lookupGlobal finds every latest base file of the table that holds each input key (key
// column read after key-range and, for GLOBAL_BLOOM, bloom filter pruning), with the
// stored ordering value when the payload orders by event time. Each key's hits are in view
// order (partition, file id).
func (w *writer) lookupGlobal(ctx context.Context, recs []incoming) (map[string][]storedAt, error) {
	want := newWantedKeys(len(recs))
	for i, r := range recs {
		want.add(r.key, i)
	}
	orderingCol := ""
	if w.ordering != "" && w.rules.Mode == merge.EventTimeOrdering {
		orderingCol = w.ordering
	}
	files := candidateFiles(w.view, recs, true)
	if w.o.index.Type() == index.TypeRecordIndex && !w.o.recordIndexFallback {
		var err error
		if files, err = w.recordIndexCandidates(ctx, recs); err != nil {
			return nil, err
		}
	}
	pos := make(map[*fsview.FileSlice]int, len(files))
	for i, sl := range files {
		pos[sl] = i
	}
	hits := map[string][]storedAt{}
	blooms, err := newBloomCheck(ctx, w.t, w.o.index, w.o.BloomIndexUseMetadata, files, w.o.Logger)
	if err != nil {
		return nil, err
	}
	err = scanBaseFiles(ctx, w.t, w.o.Mem, files, func(*fsview.FileSlice) *wantedKeys { return want },
		blooms, orderingCol, w.o.Parallelism, w.keys, func(sl *fsview.FileSlice, found []storedHit) {
			for _, h := range found {
				k := recs[h.recs[0]].key
				hits[k] = append(hits[k], storedAt{slice: sl, ordering: h.ordering})
			}
		})
	if err != nil {
		return nil, err
	}
	for _, hs := range hits {
		sort.Slice(hs, func(i, j int) bool { return pos[hs[i].slice] < pos[hs[j].slice] })
	}
	return hits, nil
}

// currentLocations picks, per found key, the stored record the write meets.
//
// Copy-on-write base files are the table, so a base hit is the stored record. On
// merge-on-read, when Java does the merged lookup (mergedLookup), the key is current only
// in a group whose merged view (base + committed logs) still holds it, with the merged
// ordering value; a key every found group deleted in its logs is not found. Without the
// merged lookup Java tags the record to the base file's group whatever its logs say.
// Deliberate deviation: when such a key is in several base files (moved earlier with
// update.partition.path=true, not compacted yet) Java tags the record to every one of
// them and duplicates it; we merge-read those groups and pick the one that holds the key.
//
// Only the found groups that have log files are merge-read, and only their key and
// ordering columns.
func (w *writer) currentLocations(ctx context.Context, recs []incoming, hits map[string][]storedAt, merged bool) (map[string]storedAt, error) {
	partitionOf := make(map[string]string, len(recs))
	for _, r := range recs {
		if _, ok := partitionOf[r.key]; !ok {
			partitionOf[r.key] = r.partition
		}
	}
	needsMerge := func(hs []storedAt) bool { return w.mor && (merged || len(hs) > 1) }
	wanted := map[*fsview.FileSlice]map[string]bool{}
	var slices []*fsview.FileSlice
	for k, hs := range hits {
		if !needsMerge(hs) {
			continue
		}
		for _, h := range hs {
			if len(h.slice.Logs) == 0 {
				continue // the base file is the merged view
			}
			if wanted[h.slice] == nil {
				wanted[h.slice] = map[string]bool{}
				slices = append(slices, h.slice)
			}
			wanted[h.slice][k] = true
		}
	}
	live, err := w.mergedKeys(ctx, slices, wanted)
	if err != nil {
		return nil, err
	}
	cur := make(map[string]storedAt, len(hits))
	for k, hs := range hits {
		if !needsMerge(hs) {
			cur[k] = pickStored(hs, partitionOf[k])
			continue
		}
		var alive []storedAt
		for _, h := range hs {
			if len(h.slice.Logs) == 0 {
				alive = append(alive, h)
			} else if o, ok := live[h.slice][k]; ok {
				alive = append(alive, storedAt{slice: h.slice, ordering: o})
			}
		}
		switch {
		case len(alive) > 0:
			cur[k] = pickStored(alive, partitionOf[k])
		case !merged:
			cur[k] = pickStored(hs, partitionOf[k])
		}
	}
	return cur, nil
}

// pickStored chooses among a key's stored locations (more than one only when the table
// holds duplicates): the one in the incoming record's partition, else the first.
func pickStored(hs []storedAt, partition string) storedAt {
	for _, h := range hs {
		if h.slice.Partition == partition {
			return h
		}
	}
	return hs[0]
}

// routeGlobal decides where each record goes, given the current stored location of its
// key (cur) and whether Java's merged lookup applies (see the file comment).
func (w *writer) routeGlobal(recs []incoming, cur map[string]storedAt, merged bool) globalRoutes {
	var out globalRoutes
	// The merged lookup takes one incoming record per key (distinctWithKey): only with
	// hoodie.combine.before.upsert=false can there be several; we keep the last, as the
	// merge handle does for records routed to one file.
	last := make(map[string]int, len(recs))
	for i, r := range recs {
		last[r.key] = i
	}
	for i, r := range recs {
		at, found := cur[r.key]
		if found && merged && (w.mor || at.slice.Partition != r.partition) && last[r.key] != i {
			continue
		}
		if !found {
			// A new key, or one deleted in the merged view: Java tags it as a new record.
			// Deletes of keys not stored are dropped (HoodieDeleteHelper keeps tagged
			// records only); a soft delete is routed like an insert, and the create handle
			// writes nothing for it but counts it in numDeletes.
			if w.o.Operation != Delete && !r.hardDelete {
				out.inserts = append(out.inserts, r)
			}
			continue
		}
		sl := at.slice
		routed := r
		routed.partition = sl.Partition // the record is tagged with the stored key
		switch {
		case w.o.Operation == Delete:
			routed.softDelete, routed.hardDelete = true, true
			out.changes = append(out.changes, sliceChange{sl, routed})
		case !merged || (!w.mor && sl.Partition == r.partition):
			// Tagged to the stored location as it is: the merge handle (copy-on-write)
			// or the reader (merge-on-read) merges it with the payload.
			out.changes = append(out.changes, sliceChange{sl, routed})
		case r.softDelete:
			// "incoming is a delete: force tag the incoming to the old partition"; the
			// payload decides there whether it deletes.
			out.changes = append(out.changes, sliceChange{sl, routed})
		case w.rules.KeepBase(at.ordering, w.in.ordering(r)):
			// The stored record wins the merge (DefaultHoodieRecordPayload with a greater
			// stored ordering value): it stays where it is, written again (HUDI-5968).
			out.restamps = append(out.restamps, sliceChange{sl, routed})
		case sl.Partition == r.partition:
			out.changes = append(out.changes, sliceChange{sl, r})
		default:
			// A partition move: delete the stored record (EmptyHoodieRecordPayload,
			// unconditional) and insert the incoming one into its partition.
			del := routed
			del.softDelete, del.hardDelete = true, true
			out.changes = append(out.changes, sliceChange{sl, del})
			out.inserts = append(out.inserts, r)
		}
	}
	return out
}

// sliceReadOptions reads file slices merged as readers merge them, conformed to the write
// schema. HoodieMergedReadHandle's log scanner merges log records with the table's payload
// class (AbstractHoodieLogRecordReader: tableConfig.getPayloadClass()), and the base record
// with the winning log record through that log record's payload (HoodieAvroRecordMerger:
// newer.combineAndGetUpdateValue(older)): the table's, so the merged view is the one
// queries see. The incoming record then meets the stored one through the writer's
// payload (w.rules).
func (w *writer) sliceReadOptions(columns []string) (filegroup.Options, error) {
	rules, err := merge.RulesFor(w.t.Config.MergeMode(), w.t.Config.PayloadClass(), w.ordering != "")
	if err != nil {
		return filegroup.Options{}, fmt.Errorf("global index: %w", err)
	}
	opts := filegroup.Options{
		Schema:              schema.WithMetaFields(w.in.schema),
		Columns:             columns,
		MetaFieldsPopulated: !w.keys.virtual(),
		OrderingField:       w.ordering,
		Rules:               rules,
		Committed:           fsview.NewVisibility(w.t.Timeline, "").Committed,
		Mem:                 w.o.Mem,
		Logger:              w.o.Logger,
		Evolution:           w.evolution,
	}
	if w.keys.virtual() {
		// Base and log rows are keyed by the key generator, as the table's readers do.
		opts.KeyFields, opts.RecordKey = w.keys.fields, w.keys.gen.RecordKey
	}
	return opts, nil
}

// mergedKeys merge-reads the key (and ordering) column of each slice and returns, per
// slice, the wanted keys its merged view holds with their merged ordering values. Slices
// are read Parallelism at a time.
func (w *writer) mergedKeys(ctx context.Context, slices []*fsview.FileSlice, wanted map[*fsview.FileSlice]map[string]bool) (map[*fsview.FileSlice]map[string]merge.Ordering, error) {
	out := make(map[*fsview.FileSlice]map[string]merge.Ordering, len(slices))
	if len(slices) == 0 {
		return out, nil
	}
	cols := append([]string(nil), w.keys.columns()...)
	if w.ordering != "" && !contains(cols, w.ordering) {
		cols = append(cols, w.ordering)
	}
	opts, err := w.sliceReadOptions(cols)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, max(1, w.o.Parallelism))
	var wg sync.WaitGroup
	for _, sl := range slices {
		wg.Add(1)
		sem <- struct{}{}
		go func(sl *fsview.FileSlice) {
			defer wg.Done()
			defer func() { <-sem }()
			want := wanted[sl]
			found := map[string]merge.Ordering{}
			err := filegroup.Read(ctx, w.t.Storage, *sl, opts, func(rec arrow.Record) error {
				keyOf, err := w.keys.keyer(rec, sl.Partition+"/"+string(sl.FileID))
				if err != nil {
					return err
				}
				ordIdx := -1
				if w.ordering != "" {
					ordIdx = schema.FieldIndex(rec.Schema(), w.ordering)
				}
				for i := 0; i < int(rec.NumRows()); i++ {
					key, valid, err := keyOf(i)
					if err != nil {
						return err
					}
					if !valid || !want[key] {
						continue
					}
					var o merge.Ordering
					if ordIdx >= 0 {
						o = detachedOrdering(rec.Column(ordIdx), i)
					}
					found[strings.Clone(key)] = o
				}
				return nil
			})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("global index: merged lookup in file group %s/%s: %w", sl.Partition, sl.FileID, err)
				}
				return
			}
			out[sl] = found
		}(sl)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// restampRecords turns records that lost to their stored record into updates carrying the
// stored record itself: its current (merged) row is read from its group and added to the
// input, so the group writes it again with this write's commit time, as Java's merged
// record goes through the merge or append handle. Only the rows of these keys are kept.
func (w *writer) restampRecords(ctx context.Context, restamps []sliceChange) ([]sliceChange, error) {
	bySlice := map[*fsview.FileSlice]map[string]incoming{}
	var order []*fsview.FileSlice
	for _, c := range restamps {
		if bySlice[c.slice] == nil {
			bySlice[c.slice] = map[string]incoming{}
			order = append(order, c.slice)
		}
		bySlice[c.slice][c.rec.key] = c.rec
	}
	opts, err := w.sliceReadOptions(nil)
	if err != nil {
		return nil, err
	}
	cctx := compute.WithAllocator(ctx, w.o.Mem)
	var out []sliceChange
	for _, sl := range order {
		want := bySlice[sl]
		err := filegroup.Read(ctx, w.t.Storage, *sl, opts, func(rec arrow.Record) error {
			keyOf, err := w.keys.keyer(rec, sl.Partition+"/"+string(sl.FileID))
			if err != nil {
				return err
			}
			mask := array.NewBooleanBuilder(w.o.Mem)
			defer mask.Release()
			var picked []incoming
			for i := 0; i < int(rec.NumRows()); i++ {
				key, valid, err := keyOf(i)
				if err != nil {
					return err
				}
				r, ok := want[key]
				ok = ok && valid
				if ok {
					delete(want, r.key) // one row per key, should the group hold duplicates
					picked = append(picked, r)
				}
				mask.Append(ok)
			}
			if len(picked) == 0 {
				return nil
			}
			m := mask.NewBooleanArray()
			defer m.Release()
			rows, err := compute.FilterRecordBatch(cctx, rec, m, compute.DefaultFilterOptions())
			if err != nil {
				return err
			}
			defer rows.Release()
			data, err := schema.ConformRecord(w.o.Mem, rows, w.in.schema)
			if err != nil {
				return err
			}
			bi := int32(len(w.in.batches))
			w.in.batches = append(w.in.batches, data) // released with the input
			for i, r := range picked {
				out = append(out, sliceChange{sl, incoming{batch: bi, row: int32(i), key: r.key, partition: sl.Partition}})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("global index: read stored records of file group %s/%s: %w", sl.Partition, sl.FileID, err)
		}
		for k := range want {
			return nil, fmt.Errorf("global index: stored record of key %q is no longer in file group %s/%s", k, sl.Partition, sl.FileID)
		}
	}
	return out, nil
}
