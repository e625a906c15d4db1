package write

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write/index"
)

type writer struct {
	t        *table.Table
	o        Options
	in       *inputSet
	view     *fsview.View
	rules    merge.Rules
	ordering string
	mor      bool       // merge-on-read: updates and deletes go to log files
	keys     storedKeys // where stored rows' record keys come from (virtualkeys.go)
	// pendingCompaction: groups planned by a pending compaction → its instant (MOR).
	pendingCompaction map[string]spec.InstantTime
	// instantClock, if set, is the clock the write's instant is started with: a write
	// whose generated record keys carry an instant chosen before planning (autokeys.go).
	instantClock func() time.Time
	// evolution reads stored files by column id (schema evolution on read; nil: by name).
	evolution *filegroup.Evolution
	// sor: the write under schema evolution on read (nil: the table has no InternalSchema).
	sor *schemaOnRead
}

// mergeJob rewrites one file group: updates, deletes and inserts routed into it.
type mergeJob struct {
	slice   *fsview.FileSlice
	changes []incoming // updates and deletes of stored keys
	inserts []incoming // new keys routed into this (small) file
	// rewrite (merge-on-read): the slice is a small file that inserts were routed into, so
	// its changes and inserts are merged into a new base file version rather than appended
	// to a log (BaseSparkDeltaCommitActionExecutor.handleUpdate for the partitioner's
	// small file ids, Hudi 0.14).
	rewrite bool
}

// createJob writes new file groups in a partition.
type createJob struct {
	partition string
	records   []incoming
	rows      []uint32 // instead of records: compact input rows (bulk.go)
	perFile   int      // records per file (0 = until the size limit)
	// fileID fixes the file group (bucket index); the file then never rolls over.
	fileID spec.FileID
}

// size is the number of records the job writes.
func (j createJob) size() int { return len(j.records) + len(j.rows) }

// source is records [start, end) of the job.
func (j createJob) source(in *inputSet, start, end int) recordSource {
	if j.rows != nil {
		return rowSource{in: in, partition: j.partition, rows: j.rows[start:end:end]}
	}
	return recordSlice(j.records[start:end:end])
}

type plan struct {
	merges     []*mergeJob
	creates    []createJob
	replaced   map[string][]spec.FileID
	partitions map[string]bool // partitions written (need partition metadata)
}

// plan decides which file groups each record goes to.
func (w *writer) plan(ctx context.Context) (*plan, error) {
	pl := &plan{replaced: map[string][]spec.FileID{}, partitions: map[string]bool{}}
	recs := w.in.records
	byPartition := func(rs []incoming) (map[string][]incoming, []string) {
		// Count first so that each partition's slice is allocated once (a multi-million
		// row bulk insert otherwise spends its time growing these slices).
		counts := map[string]int{}
		for _, r := range rs {
			counts[r.partition]++
		}
		m := make(map[string][]incoming, len(counts))
		order := make([]string, 0, len(counts))
		for p, n := range counts {
			m[p] = make([]incoming, 0, n)
			order = append(order, p)
		}
		for _, r := range rs {
			m[r.partition] = append(m[r.partition], r)
		}
		sort.Strings(order)
		return m, order
	}
	switch w.o.Operation {
	case DeletePartition:
		parts := w.o.PartitionsToDelete
		if len(parts) == 0 {
			_, parts = byPartition(recs)
		}
		matched := matchPartitions(parts, w.view.Partitions())
		if w.o.RequireExistingPartitions {
			for _, pat := range parts {
				if len(matchPartitions([]string{pat}, w.view.Partitions())) == 0 {
					return nil, fmt.Errorf("delete_partition: %q names no partition of the table (partitions: %s); nothing was written",
						pat, strings.Join(w.view.Partitions(), ", "))
				}
			}
		}
		w.replaceGroups(pl, func(p string) bool { return contains(matched, p) })
		return pl, nil
	case InsertOverwrite, InsertOverwriteTable, BulkInsert:
		if g := w.in.grouped; g != nil {
			w.planGrouped(pl, g)
			return pl, nil
		}
		if w.o.Operation == BulkInsert {
			sortRecords(recs, w.o.BulkInsertSortMode)
		}
		m, order := w.in.groupByPartition() // bulk.go: recs is not used after this
		for _, p := range order {
			live := m[p][:0] // filtered in place: the partition's slice is ours
			for _, r := range m[p] {
				if !r.softDelete {
					live = append(live, r)
				}
			}
			if bucket, ok := w.o.index.(*index.Bucket); ok && w.o.Operation != BulkInsert {
				// The new file groups are buckets, so that later writes find the records'
				// buckets: Java 0.14 partitions an overwrite of a bucket-indexed table with
				// SparkInsertOverwriteSimpleBucketIndexPartitioner, one new file group (a
				// new id with the bucket's prefix) per bucket written (HUDI-5857).
				w.planBucketCreates(pl, bucket, p, live)
				continue
			}
			pl.creates = append(pl.creates, createJob{partition: p, records: live})
		}
		switch w.o.Operation {
		case InsertOverwrite:
			w.replaceGroups(pl, func(p string) bool { _, ok := m[p]; return ok })
		case InsertOverwriteTable:
			w.replaceGroups(pl, func(string) bool { return true })
		}
		return pl, nil
	}

	if bucket, ok := w.o.index.(*index.Bucket); ok {
		w.planBuckets(pl, bucket, recs)
		return pl, nil
	}

	// upsert, insert, delete
	jobs := map[*fsview.FileSlice]*mergeJob{}
	job := func(sl *fsview.FileSlice) *mergeJob {
		j := jobs[sl]
		if j == nil {
			j = &mergeJob{slice: sl}
			jobs[sl] = j
			pl.merges = append(pl.merges, j)
		}
		return j
	}
	var inserts []incoming
	if w.o.index.Global() && w.o.Operation != Insert {
		// Keys are matched across partitions, partition moves included (global.go).
		var err error
		if inserts, err = w.planGlobal(ctx, recs, job); err != nil {
			return nil, err
		}
	} else {
		var locs map[int]location
		if w.o.Operation != Insert {
			var err error
			locs, err = tagLocations(ctx, w.t, w.o.Mem, w.view, recs, w.o.index, w.o.BloomIndexUseMetadata, w.o.Parallelism, w.keys, w.o.Logger)
			if err != nil {
				return nil, err
			}
		}
		// Each touched file's changes are sized once: a batch updating all 50k rows of a
		// file otherwise regrows that slice of 48-byte records a dozen times (~10% of bench
		// W2's clustered upsert).
		perSlice := map[*fsview.FileSlice]int{}
		for _, loc := range locs {
			perSlice[loc.slice]++
		}
		for i, r := range recs {
			loc, found := locs[i]
			if found && jobs[loc.slice] == nil {
				job(loc.slice).changes = make([]incoming, 0, perSlice[loc.slice])
			}
			switch {
			case w.o.Operation == Delete:
				if found {
					r.softDelete, r.hardDelete = true, true
					job(loc.slice).changes = append(job(loc.slice).changes, r)
				}
			case found:
				job(loc.slice).changes = append(job(loc.slice).changes, r)
			case !r.hardDelete:
				// A new key. A soft delete of it is routed like an insert too: Java's
				// upsert partitioner assigns every untagged record a file group, whose
				// handle writes nothing for it but counts it in numDeletes. Rows of
				// WriteOptions.DeleteMarker are the delete operation's deletes and, like
				// them, drop keys not found.
				inserts = append(inserts, r)
			}
		}
	}
	if len(inserts) > 0 {
		if err := w.assignInserts(ctx, pl, inserts, job, byPartition); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// planGrouped is plan's file creation for compact input (bulk.go): a create job per
// partition over its rows, the same jobs as for records.
func (w *writer) planGrouped(pl *plan, g *groupedRows) {
	has := map[string]bool{}
	for i, p := range g.paths {
		has[p] = true
		pl.creates = append(pl.creates, createJob{partition: p, rows: g.rows[i]})
	}
	switch w.o.Operation {
	case InsertOverwrite:
		w.replaceGroups(pl, func(p string) bool { return has[p] })
	case InsertOverwriteTable:
		w.replaceGroups(pl, func(string) bool { return true })
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// planBuckets routes every record to its bucket's file group: an existing group with the
// bucket's number as file-id prefix, or a new one. Whether a record updates or inserts is
// settled when the group's file is merged (copy-on-write). On merge-on-read every record
// of an existing bucket — new keys too — is appended to the group's log, as Java's bucket
// index (which can index log files) routes them; a new bucket starts with a base file.
func (w *writer) planBuckets(pl *plan, bucket *index.Bucket, recs []incoming) {
	existing := map[string]map[int]*fsview.FileSlice{}
	for _, g := range w.view.Groups {
		if b := index.Of(g.FileID); b >= 0 {
			if existing[g.Partition] == nil {
				existing[g.Partition] = map[int]*fsview.FileSlice{}
			}
			existing[g.Partition][b] = g.Latest()
		}
	}
	jobs := map[*fsview.FileSlice]*mergeJob{}
	type pb struct {
		partition string
		bucket    int
	}
	creates := map[pb]int{}
	for _, r := range recs {
		b := bucket.ID(r.key)
		if sl := existing[r.partition][b]; sl != nil && (sl.Base != nil || w.mor) {
			if w.o.Operation == Delete {
				r.softDelete = true
				r.hardDelete = w.mor // a delete block, unconditional as the delete operation is
			}
			j := jobs[sl]
			if j == nil {
				j = &mergeJob{slice: sl}
				jobs[sl] = j
				pl.merges = append(pl.merges, j)
			}
			j.changes = append(j.changes, r)
			continue
		}
		if w.o.Operation == Delete || r.hardDelete {
			continue // HoodieDeleteHelper drops deletes of keys it did not find
		}
		// A soft delete of a new key goes to its bucket's new file group like an insert:
		// the create handle counts it in numDeletes and writes nothing for it.
		k := pb{r.partition, b}
		i, ok := creates[k]
		if !ok {
			i = len(pl.creates)
			creates[k] = i
			pl.creates = append(pl.creates, createJob{partition: r.partition, fileID: newBucketFileID(b)})
		}
		pl.creates[i].records = append(pl.creates[i].records, r)
	}
}

// planBucketCreates writes a partition's records into a new file group per bucket.
func (w *writer) planBucketCreates(pl *plan, bucket *index.Bucket, partition string, recs []incoming) {
	job := map[int]int{}
	for _, r := range recs {
		b := bucket.ID(r.key)
		i, ok := job[b]
		if !ok {
			i = len(pl.creates)
			job[b] = i
			pl.creates = append(pl.creates, createJob{partition: partition, fileID: newBucketFileID(b)})
		}
		pl.creates[i].records = append(pl.creates[i].records, r)
	}
}

// replaceGroups marks the latest file groups of matching partitions as replaced.
func (w *writer) replaceGroups(pl *plan, match func(partition string) bool) {
	for _, g := range w.view.Groups {
		if match(g.Partition) {
			pl.replaced[g.Partition] = append(pl.replaced[g.Partition], g.FileID)
		}
	}
}

// assignInserts routes inserts into small files first (hoodie.parquet.small.file.limit),
// then into new file groups of at most the insert split size, the way Hudi's upsert
// partitioner does.
func (w *writer) assignInserts(ctx context.Context, pl *plan, inserts []incoming, job func(*fsview.FileSlice) *mergeJob,
	byPartition func([]incoming) (map[string][]incoming, []string)) error {
	avg := w.averageRecordSize(ctx)
	perFile := w.o.InsertSplitSize
	if *w.o.AutoSplitInserts {
		perFile = int(max(1, w.o.MaxFileSize/avg))
	}
	m, order := byPartition(inserts)
	for _, p := range order {
		rs := m[p]
		small := w.smallFiles(p)
		for _, sl := range small {
			if len(rs) == 0 {
				break
			}
			room := int((w.o.MaxFileSize - sl.Base.Size) / avg)
			if room <= 0 {
				continue
			}
			n := min(room, len(rs))
			job(sl).inserts = append(job(sl).inserts, rs[:n]...)
			job(sl).rewrite = w.mor
			rs = rs[n:]
		}
		if len(rs) > 0 {
			pl.creates = append(pl.creates, createJob{partition: p, records: rs, perFile: perFile})
		}
	}
	return nil
}

// smallFiles returns the file slices of partition p that inserts are routed into, smallest
// first: on copy-on-write tables every latest base file smaller than
// hoodie.parquet.small.file.limit (UpsertPartitioner.getSmallFiles); on merge-on-read
// tables, as Java 0.14's SparkUpsertDeltaCommitPartitioner.getSmallFileCandidates does for
// indexes that cannot index log files, only latest slices with a base file and no log
// files, outside pending compactions, at most hoodie.merge.small.file.group.candidates.limit
// of them (a slice with log files cannot be padded without compacting it). Its inserts
// then rewrite the base file (mergeJob.rewrite). With an index that can index log files
// (INMEMORY; index.Index.IndexesLogFiles), Java appends inserts to small slices' logs
// instead; hudi-go writes them to new file groups (not yet matched).
func (w *writer) smallFiles(p string) []*fsview.FileSlice {
	if w.mor && (w.o.index.IndexesLogFiles() || len(w.t.Timeline.DataInstants()) == 0) {
		return nil
	}
	var small []*fsview.FileSlice
	for _, g := range w.view.Groups {
		if g.Partition != p {
			continue
		}
		sl := g.Latest()
		if sl == nil || sl.Base == nil || sl.Base.Size >= w.o.SmallFileLimit {
			continue
		}
		if w.mor {
			if _, compacting := w.pendingCompaction[sl.Partition+"/"+string(sl.FileID)]; compacting || len(sl.Logs) > 0 {
				continue
			}
		}
		small = append(small, sl)
	}
	sort.SliceStable(small, func(i, j int) bool { return small[i].Base.Size < small[j].Base.Size })
	if w.mor && len(small) > *w.o.SmallFileGroupCandidates {
		small = small[:max(0, *w.o.SmallFileGroupCandidates)]
	}
	return small
}

// averageRecordSize is the bytes per record (rounded up) of the latest commit that wrote
// more than hoodie.parquet.small.file.limit × hoodie.record.size.estimation.threshold (1.0)
// bytes, or hoodie.copyonwrite.record.size.estimate — Java's
// AverageRecordSizeUtils.averageBytesPerRecord. Small commits are skipped: their footers
// (bloom filter, schema) dwarf the rows and would make every insert its own file.
func (w *writer) averageRecordSize(ctx context.Context) int64 {
	threshold := w.o.SmallFileLimit
	data := w.t.Timeline.DataInstants()
	for i := len(data) - 1; i >= 0; i-- {
		cm, err := w.t.CommitMetadata(ctx, data[i])
		if err != nil {
			continue
		}
		var bytes, recs int64
		for _, stats := range cm.PartitionToWriteStats {
			for _, s := range stats {
				bytes += s.TotalWriteBytes
				recs += s.NumWrites
			}
		}
		if recs > 0 && bytes > threshold {
			return max(1, (bytes+recs-1)/recs)
		}
	}
	return w.o.RecordSizeEstimate
}

// execute runs the plan's file writes, Parallelism at a time, and returns their stats.
func (w *writer) execute(ctx context.Context, env *writeEnv, pl *plan) ([]commitmeta.WriteStat, error) {
	now := w.o.Now()
	written := map[string]bool{}
	for _, j := range pl.creates {
		if j.size() > 0 {
			written[j.partition] = true
		}
	}
	for p := range written {
		if err := writePartitionMetadata(ctx, w.t.Storage, p, env.txn.Instant, now); err != nil {
			return nil, err
		}
	}
	type task struct {
		run func(ctx context.Context, taskID int) ([]commitmeta.WriteStat, error)
		// ioBound tasks (log appends) mostly wait for their marker's and log file's fsync:
		// twice as many of them run at once as file-writing tasks, so the waits overlap.
		ioBound bool
	}
	var tasks []task
	for _, j := range pl.merges {
		tasks = append(tasks, task{ioBound: w.mor && !j.rewrite, run: func(ctx context.Context, id int) ([]commitmeta.WriteStat, error) {
			if w.mor && !j.rewrite {
				return w.appendLog(ctx, env, j, id)
			}
			s, err := w.mergeFile(ctx, env, j, id)
			return []commitmeta.WriteStat{s}, err
		}})
	}
	for _, j := range pl.creates {
		n := j.size()
		if n == 0 {
			continue
		}
		per := j.perFile
		if per <= 0 {
			per = n
		}
		for start := 0; start < n; start += per {
			chunk := j.source(w.in, start, min(start+per, n))
			part, fixed := j.partition, j.fileID
			tasks = append(tasks, task{run: func(ctx context.Context, id int) ([]commitmeta.WriteStat, error) {
				return w.createFiles(ctx, env, part, chunk, fixed, id)
			}})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var stats []commitmeta.WriteStat
	var firstErr error
	// Parallelism file-writing tasks at a time, each holding two slots; an I/O-bound task
	// holds one. Only this loop acquires slots, so taking two in a row cannot deadlock.
	sem := make(chan struct{}, 2*max(1, w.o.Parallelism))
	var wg sync.WaitGroup
	done := int64(0)
	w.o.progress(Progress{Phase: PhaseWrite, Total: int64(len(tasks))})
	for id, tk := range tasks {
		slots := 2
		if tk.ioBound {
			slots = 1
		}
		wg.Add(1)
		for range slots {
			sem <- struct{}{}
		}
		go func() {
			defer wg.Done()
			defer func() {
				for range slots {
					<-sem
				}
			}()
			s, err := tk.run(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			stats = append(stats, s...)
			done++
			w.o.progress(Progress{Phase: PhaseWrite, Done: done, Total: int64(len(tasks))})
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	sort.Slice(stats, func(i, j int) bool { return stats[i].Path < stats[j].Path })
	return stats, nil
}

// createChunk is the number of records createFiles (and the streaming bulk_insert)
// assembles and writes at a time; a file may roll over to a new file group between chunks.
const createChunk = 8192

func token(task int) spec.WriteToken { return spec.WriteToken(fmt.Sprintf("%d-1-%d", task, task)) }

// createFiles writes records into new file groups, rolling over to another group when a
// file reaches hoodie.parquet.max.file.size.
func (w *writer) createFiles(ctx context.Context, env *writeEnv, partition string, recs recordSource, fixedID spec.FileID, task int) ([]commitmeta.WriteStat, error) {
	var stats []commitmeta.WriteStat
	const chunk = createChunk
	var buf []incoming // a chunk's records when recs builds them
	var scratch metaScratch
	var fw *fileWriter
	var seq int64
	var inserted, deleted int64
	finish := func() error {
		if fw == nil {
			return nil
		}
		fw.stat.NumInserts = inserted
		fw.stat.NumDeletes = deleted
		s, err := fw.close(env.st, ctx)
		fw = nil
		if err != nil {
			return err
		}
		stats = append(stats, s)
		return nil
	}
	for start := 0; start < recs.len(); start += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if fw != nil && fixedID == "" && fw.size() >= w.o.MaxFileSize {
			if err := finish(); err != nil {
				return nil, err
			}
		}
		if fw == nil {
			var err error
			id := fixedID
			if id == "" {
				id = newFileID()
			}
			fw, err = env.newFile(ctx, fileSpec{partition: partition, fileID: id, token: token(task)}, commit.IOCreate)
			if err != nil {
				return nil, err
			}
			seq, inserted, deleted = 0, 0, 0
		}
		part, err := recs.chunk(buf, start, min(start+chunk, recs.len()))
		if err != nil {
			fw.abort()
			return nil, err
		}
		buf = part
		// Soft deletes of new keys: HoodieCreateHandle writes nothing for a record whose
		// payload is a delete and counts it in numDeletes. Its file is opened when the
		// first record arrives, so a file group that gets only such records is still
		// written, empty.
		if live := liveRecords(part); len(live) < len(part) {
			deleted += int64(len(part) - len(live))
			part = live
		}
		name := fw.fileName()
		rows, err := env.newRows(ctx, w.in, part, partition, name, task, &seq, &scratch)
		if err != nil {
			fw.abort()
			return nil, err
		}
		for _, r := range rows {
			if err == nil {
				err = fw.write(r)
			}
			r.Release()
		}
		if err != nil {
			fw.abort()
			return nil, err
		}
		inserted += int64(len(part))
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return stats, nil
}

// mergeFile rewrites a file group's latest base file: stored records keep their commit
// time and sequence number unless an incoming record replaces or deletes them; new keys
// routed here are appended.
func (w *writer) mergeFile(ctx context.Context, env *writeEnv, j *mergeJob, task int) (commitmeta.WriteStat, error) {
	sl := j.slice
	// Every record routed here is keyed by its record key, a later one replacing an earlier
	// one (Java's HoodieMergeHandle.keyToNewRecords), so inserts routed into a small file —
	// insert does no index lookup — merge with a stored record of their key instead of
	// duplicating it (hoodie.merge.allow.duplicate.on.inserts=false).
	all := append(j.changes[:len(j.changes):len(j.changes)], j.inserts...)
	changes := make(map[string]int, len(all))
	for i, r := range all {
		changes[r.key] = i
	}
	fs := fileSpec{partition: sl.Partition, fileID: sl.FileID, token: token(task), prev: sl.BaseInstant}
	if sl.Base != nil {
		fs.prevBase = sl.Base.Name.String()
	}
	fw, err := env.newFile(ctx, fs, commit.IOMerge)
	if err != nil {
		return commitmeta.WriteStat{}, err
	}
	name := fw.fileName()
	cl := env.cdc.logger() // nil unless the table logs changes
	var seq, updated, deleted int64
	replacing := make([]incoming, 0, len(j.changes))
	consumed := make([]bool, len(all))
	// PartialUpdateAvroPayload: a stored record an incoming one updates is merged with it
	// field by field (partial.go); the stored rows are kept for that, data columns only.
	partial := isPartialUpdate(w.o.PayloadClass)
	var partialStored []arrow.Record
	var partialPicks [][2]rowRef // (incoming, stored) as (batch, row)
	var partialRecs []incoming
	var partialStoredNewer []bool
	defer func() {
		for _, r := range partialStored {
			r.Release()
		}
	}()
	ordIdx := -1
	if w.ordering != "" {
		ordIdx = schema.FieldIndex(env.outSchema, w.ordering)
	}
	// Without deletes the rewritten file holds exactly the base file's keys plus the
	// inserts; when the filter cannot depend on their order (bloom.OrderFree: updated
	// keys move to the end) the base file's own filter, resumed, already holds the
	// stored keys and only the inserts are hashed — byte-identical to hashing every key
	// again, which was ~6% of a small-file upsert commit (bench W7).
	deletes := false
	for _, c := range all {
		deletes = deletes || c.softDelete || c.hardDelete
	}
	onOpen := func(pf *parquet.File) {
		if deletes {
			return
		}
		s, typ, ok := pf.BloomFilter()
		// A non-empty footer min key means no stored key is empty or null (those would
		// be the minimum, and are not in the filter), so the n rows are n filter keys.
		minKey, _, hasRange := pf.MinMaxRecordKeys()
		if !ok || !hasRange || minKey == "" {
			return
		}
		n := pf.NumRows()
		f, ok := bloom.Resume(bloom.Type(env.opts.BloomType), env.bloomOptions(), s, typ, n)
		if ok && bloom.OrderFree(f, n, int64(len(all))) {
			fw.resumeFilter(f)
		}
	}
	err = readBase(ctx, w.t, env, sl, onOpen, func(rec arrow.Record) error {
		// A stored row's key: _hoodie_record_key, or with virtual keys the key generator
		// over its data columns (Java's merge handle: oldRecord.getRecordKey(keyGenerator)).
		keyOf, err := w.keys.keyer(rec, sl.Base.Path)
		if err != nil {
			return err
		}
		n := int(rec.NumRows())
		// The mask is built only once a row is dropped: most batches of a small-file
		// rewrite keep every row, and filtering them (a copy of every column) cost ~6% of
		// a small upsert commit.
		var keep *array.BooleanBuilder
		drop := func(i int) {
			if keep == nil {
				keep = array.NewBooleanBuilder(env.mem)
				keep.Reserve(n)
				for j := 0; j < i; j++ {
					keep.UnsafeAppend(true)
				}
			}
			keep.Append(false)
		}
		defer func() {
			if keep != nil {
				keep.Release()
			}
		}()
		var storedRows []int32 // rows of rec kept for partial-update merges
		for i := 0; i < n; i++ {
			key, valid, err := keyOf(i)
			if err != nil {
				return err
			}
			ci, ok := changes[key]
			if !valid || !ok || consumed[ci] {
				if keep != nil {
					keep.Append(true)
				}
				continue
			}
			consumed[ci] = true
			c := all[ci]
			if partial && !c.softDelete && !c.hardDelete {
				newer := false
				if ordIdx >= 0 {
					cmp, ok := merge.OrderingAt(rec.Column(ordIdx), i).Compare(w.in.ordering(c))
					newer = ok && cmp > 0
				}
				drop(i)
				if err := cl.before(key, rec, i); err != nil {
					return err
				}
				updated++
				partialPicks = append(partialPicks, [2]rowRef{{int(c.batch), int(c.row)}, {len(partialStored), len(storedRows)}})
				partialRecs = append(partialRecs, c)
				partialStoredNewer = append(partialStoredNewer, newer)
				storedRows = append(storedRows, int32(i))
				continue
			}
			if !c.hardDelete && ordIdx >= 0 && w.rules.KeepBase(merge.OrderingAt(rec.Column(ordIdx), i), w.in.ordering(c)) {
				if keep != nil {
					keep.Append(true) // the stored record is newer by event time
				}
				continue
			}
			drop(i)
			if err := cl.before(key, rec, i); err != nil {
				return err
			}
			if c.softDelete {
				deleted++
			} else {
				updated++
				replacing = append(replacing, c)
			}
		}
		if len(storedRows) > 0 {
			data, err := takeDataRows(ctx, env.mem, rec, w.in.schema, storedRows)
			if err != nil {
				return fmt.Errorf("merge %s: %w", sl.Base.Path, err)
			}
			partialStored = append(partialStored, data)
		}
		kept := rec
		if keep != nil {
			mask := keep.NewBooleanArray()
			defer mask.Release()
			if kept, err = compute.FilterRecordBatch(compute.WithAllocator(ctx, env.mem), rec, mask, compute.DefaultFilterOptions()); err != nil {
				return fmt.Errorf("merge %s: drop replaced records: %w", sl.Base.Path, err)
			}
			defer kept.Release()
		}
		named := withFileName(env.mem, kept, name)
		defer named.Release()
		return fw.write(named)
	})
	if err != nil {
		fw.abort()
		return commitmeta.WriteStat{}, err
	}
	// Records whose key the file did not hold are inserts (for changes: the index and the
	// file disagree); of several with one key only the last is written.
	var inserts []incoming
	for _, i := range append(seqInts(len(j.changes), len(all)), seqInts(0, len(j.changes))...) {
		c := all[i]
		switch {
		case consumed[i] || changes[c.key] != i:
		case c.softDelete:
			deleted++ // a delete of a key the file does not hold: counted, nothing written
		default:
			inserts = append(inserts, c)
		}
	}
	if len(partialRecs) > 0 {
		rows, err := w.partialMerged(ctx, env, partialPicks, partialStored, partialStoredNewer, partialRecs, sl.Partition, name, task, &seq)
		if err == nil {
			err = cl.after(rows)
		}
		if err != nil {
			releaseRecords(rows)
			fw.abort()
			return commitmeta.WriteStat{}, err
		}
		for _, r := range rows {
			if err == nil {
				err = fw.write(r) // stored keys: a resumed filter holds them already
			}
			r.Release()
		}
		if err != nil {
			fw.abort()
			return commitmeta.WriteStat{}, err
		}
	}
	for bi, batch := range [][]incoming{replacing, inserts} {
		// Replacing records carry stored keys (already in a resumed filter); inserts are new.
		fw.knownKeys = fw.knownKeys && bi == 0
		if len(batch) == 0 {
			continue
		}
		rows, err := env.newRows(ctx, w.in, batch, sl.Partition, name, task, &seq, nil)
		if err == nil {
			err = cl.after(rows)
		}
		if err != nil {
			releaseRecords(rows)
			fw.abort()
			return commitmeta.WriteStat{}, err
		}
		for _, r := range rows {
			if err == nil {
				err = fw.write(r)
			}
			r.Release()
		}
		if err != nil {
			fw.abort()
			return commitmeta.WriteStat{}, err
		}
	}
	fw.stat.NumUpdateWrites = updated
	fw.stat.NumDeletes = deleted
	fw.stat.NumInserts = int64(len(inserts))
	logCDC := cdcWritten(fw.rows, int64(len(inserts)))
	stat, err := fw.close(env.st, ctx)
	if err != nil || !logCDC {
		return stat, err
	}
	// After the base file, as Java's HoodieMergeHandleWithChangeLog.close writes it.
	if stat.CDCStats, err = cl.write(ctx, env, sl.Partition, sl.FileID, task); err != nil {
		return stat, fmt.Errorf("merge %s: %w", sl.Base.Path, err)
	}
	return stat, nil
}

// readBase streams a base file conformed to the output schema (older files may lack
// columns added since; they read as null). onOpen, if set, sees the opened file first.
func readBase(ctx context.Context, t *table.Table, env *writeEnv, sl *fsview.FileSlice, onOpen func(*parquet.File), fn func(arrow.Record) error) error {
	f, err := env.st.Open(ctx, sl.Base.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The index lookup that routed the updates here decoded this file's footer already.
	ft, _ := t.TakeFooter(sl.Base.Path, f.Size())
	pf, err := parquet.OpenWithFooter(f, f.Size(), sl.Base.Path, env.buffers(), 8192, ft)
	if err != nil {
		return err
	}
	defer pf.Close()
	if onOpen != nil {
		onOpen(pf)
	}
	res, err := env.resolverFor(sl.Base.Name.Instant)
	if err != nil {
		return fmt.Errorf("%s: %w", sl.Base.Path, err)
	}
	return pf.ReadBatches(ctx, nil, nil, func(batch arrow.Record) error {
		var rec arrow.Record
		var err error
		if res != nil {
			// Schema evolution on read: the file's columns, matched by id.
			fr, ferr := schema.ConformRecord(env.mem, batch, res.FileSchema())
			if ferr != nil {
				return fmt.Errorf("%s: %w", sl.Base.Path, ferr)
			}
			rec, err = res.Resolve(env.mem, fr)
			fr.Release()
		} else {
			rec, err = schema.ConformRecord(env.mem, batch, env.outSchema)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", sl.Base.Path, err)
		}
		defer rec.Release()
		return fn(rec)
	})
}

// seqInts returns from, from+1, …, to-1.
func seqInts(from, to int) []int {
	out := make([]int, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// liveRecords returns recs without soft deletes (recs itself when there are none).
func liveRecords(recs []incoming) []incoming {
	n := 0
	for _, r := range recs {
		if !r.softDelete {
			n++
		}
	}
	if n == len(recs) {
		return recs
	}
	live := make([]incoming, 0, n)
	for _, r := range recs {
		if !r.softDelete {
			live = append(live, r)
		}
	}
	return live
}
