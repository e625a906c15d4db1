package write

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write/index"
	"github.com/hudi-go/hudi/storage"
)

// ErrUnsupported marks tables or settings the writer does not handle yet.
var ErrUnsupported = table.ErrUnsupportedWrite

// Write applies one operation with the given input batches (in the table's columns; any
// _hoodie_* columns are ignored) and commits it. On error nothing is committed: files
// already written belong to a pending instant that the next writer rolls back.
func Write(ctx context.Context, t *table.Table, batches []arrow.Record, o Options) (*Result, error) {
	t, o, res, release, err := openForWrite(ctx, t, o)
	if err != nil {
		return nil, err
	}
	defer release()
	// The timeline this write plans against: the conflict check at the commit looks at
	// what changed after it.
	start := commit.NewWriteStart(t.Timeline)
	// Footers the index lookup stashes for this write's merges are not kept beyond it.
	defer t.DropStashedFooters()
	var deletes [][]bool
	if o.DeleteMarker != "" {
		stripped, marks, err := splitDeleteMarker(batches, o.DeleteMarker)
		if err != nil {
			return nil, err
		}
		defer releaseRecords(stripped)
		batches, deletes = stripped, marks
	}
	input, err := batchesSchema(batches)
	if err != nil {
		return nil, err
	}
	writeSchema, avroSchema, rows, gen, sor, err := resolveInput(ctx, t, input, o)
	if err != nil {
		return nil, err
	}
	ordering := ""
	if f := t.Config.OrderingFields(); len(f) > 0 && schema.FieldIndex(writeSchema, f[0]) >= 0 {
		ordering = writeSchema.Field(schema.FieldIndex(writeSchema, f[0])).Name
	}
	// Generated record keys carry the write's instant: it is chosen before the keys are.
	keys := keyer{gen: gen}
	var pinned spec.InstantTime
	var pinnedClock func() time.Time
	if gen.AutoKeys() && o.Operation != Delete {
		pinned, pinnedClock = pinInstant(t, o)
		keys.instant = string(pinned)
	}
	in, err := collect(ctx, o.Mem, batches, rows, keys, ordering, needsOrdering(o), deletes, compactInput(o))
	if err != nil {
		return nil, err
	}
	defer in.release()
	in.project(writeSchema)
	o.progress(Progress{Phase: PhaseInput, Done: int64(in.numRecords())})
	switch {
	case o.Operation == Upsert && *o.CombineBeforeUpsert,
		o.Operation == Delete && *o.CombineBeforeDelete,
		(o.Operation == Insert || o.Operation == BulkInsert || o.Operation == InsertOverwrite || o.Operation == InsertOverwriteTable) && *o.CombineBeforeInsert:
		if isPartialUpdate(o.PayloadClass) {
			if err := in.precombinePartial(ctx, o.Mem, o.index.Global()); err != nil {
				return nil, err
			}
		} else {
			in.precombine(o.index.Global())
		}
	}

	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	view, err := t.View(ctx, listing, "")
	if err != nil {
		return nil, err
	}
	// Footer keys cached for the index are kept only for the latest base files: older
	// versions are never candidates again.
	latest := map[string]bool{}
	for _, g := range view.Groups {
		if sl := g.Latest(); sl != nil && sl.Base != nil {
			latest[sl.Base.Path] = true
		}
	}
	t.RetainFooterKeys(func(p string) bool { return latest[p] })
	rules, err := writeRules(t, o, ordering != "")
	if err != nil {
		return nil, err
	}
	w := &writer{t: t, o: o, in: in, view: view, rules: rules, ordering: ordering, mor: t.Type == spec.MergeOnRead,
		keys: newStoredKeys(t, gen), instantClock: pinnedClock, sor: sor}
	if sor != nil {
		w.evolution = sor.evolution(ctx, t)
	}
	if err := checkMORView(w); err != nil {
		return nil, err
	}
	if w.mor {
		// Java's writer sees a group planned by a pending compaction as the new, still
		// empty slice the compaction will produce: its logs are named after that instant
		// on layout 1 (layout 2 names them by their deltacommit), and small-file inserts
		// never go to it.
		if w.pendingCompaction, err = commit.PendingCompactionGroups(ctx, t.Storage, t.Timeline, true); err != nil {
			return nil, err
		}
	}
	o.progress(Progress{Phase: PhaseIndex})
	if err := w.applyDupPolicy(ctx); err != nil {
		return nil, err
	}
	pl, err := w.plan(ctx)
	if err != nil {
		return nil, err
	}
	if err := w.guardPendingClustering(ctx, pl); err != nil {
		return nil, err
	}

	action := spec.ActionCommit
	if w.mor {
		action = spec.ActionDeltaCommit
	}
	var requested []byte
	if o.Operation.isReplace() {
		action = spec.ActionReplaceCommit
		if requested, err = emptyRequestedReplace(t.Timeline.Layout); err != nil {
			return nil, err
		}
	}
	env, err := w.begin(ctx, action, requested, writeSchema, avroSchema, pl.profile(w, o.Operation), pl.groups(), start)
	if err != nil {
		return nil, err
	}
	defer env.txn.Close()
	if err := checkPinned(ctx, w, env.txn, pinned); err != nil {
		return nil, err
	}
	stats, err := w.execute(ctx, env, pl)
	if errors.Is(err, commit.ErrEarlyConflict) {
		return nil, w.abortEarlyConflict(ctx, env.txn, err)
	}
	if err != nil {
		return nil, err
	}
	if err := w.complete(ctx, env.txn, res, action, avroSchema, stats, pl.replaced, start); err != nil {
		return nil, err
	}
	return res, nil
}

// needsOrdering reports whether the write reads every record's ordering value, so that a
// null one fails: Java 0.14's HoodieSparkSqlWriter combines (and reads the precombine
// field of) every record of an upsert, and of an insert when hoodie.combine.before.insert
// is set (HoodieCreateRecordUtils; shouldCombine).
func needsOrdering(o Options) bool {
	switch o.Operation {
	case Upsert:
		return true
	case Insert, BulkInsert, InsertOverwrite, InsertOverwriteTable:
		return *o.CombineBeforeInsert
	}
	return false
}

// openForWrite checks that the write can go ahead and returns the table as it is now,
// failed writes rolled back (their instants in the result), o with its defaults, and the
// release of the table lock. In single-writer mode the write holds the lock from here to
// its commit, so no other writer plans, starts or commits in between (see
// commit.SingleWriter); under optimistic concurrency control it takes the lock only to
// start its instant and to commit (begin, complete), and the lock is not held here.
func openForWrite(ctx context.Context, t *table.Table, o Options) (_ *table.Table, _ Options, _ *Result, release func(), err error) {
	o = o.withDefaults()
	o.timeline = o.Concurrency.Timeline(t.Storage, o.Now, o.TimelineZone, o.Logger).WithMetadata(o.Metadata)
	release = func() {}
	if err := checkWritable(t); err != nil {
		return nil, o, nil, release, err
	}
	if len(o.BucketHashFields) == 0 {
		o.BucketHashFields = t.Config.RecordKeyFields()
	}
	if o.index, err = index.New(o.IndexType, index.Settings{NumBuckets: o.BucketNumBuckets, HashFields: o.BucketHashFields}); err != nil {
		return nil, o, nil, release, err
	}
	if err := checkMetaFieldsSetting(t, o); err != nil {
		return nil, o, nil, release, err
	}
	if err := checkPartialUpdate(o); err != nil {
		return nil, o, nil, release, err
	}
	if o.Parallelism <= 0 {
		o.Parallelism = runtime.GOMAXPROCS(0)
	}
	if o.Concurrency.Mode == commit.SingleWriter {
		if release, err = o.timeline.Lock(ctx, "write"); err != nil {
			return nil, o, nil, func() {}, err
		}
		defer func() {
			if err != nil {
				release()
			}
		}()
	}
	// Always plan against the timeline as it is now: a handle opened before earlier
	// commits would otherwise miss their files (and duplicate updated keys). Reopen keeps
	// the handle's cache of decoded commit metadata and footers.
	t, err = t.Reopen(ctx)
	if err != nil {
		return nil, o, nil, release, err
	}
	res := &Result{Operation: string(o.Operation)}
	// EAGER: roll back failed writes before writing (each refused while its heartbeat
	// lives). LAZY leaves them to the cleaner, which rolls back those whose heartbeat
	// expired; NEVER leaves them.
	var rolled []spec.InstantTime
	if o.Concurrency.FailedWrites == commit.FailedWritesEager {
		rolled, err = o.timeline.RollbackFailedWrites(ctx, t.Timeline)
		for _, r := range rolled {
			res.RolledBack = append(res.RolledBack, string(r))
		}
		if err != nil {
			return nil, o, nil, release, err
		}
	}
	if err := checkRecordIndex(t, o); err != nil {
		return nil, o, nil, release, err
	}
	if t, err = t.PrepareChangeFor(ctx, o.Now(), o.Logger, o.Metadata); err != nil {
		return nil, o, nil, release, err
	}
	if len(rolled) > 0 {
		if t, err = t.Reopen(ctx); err != nil {
			return nil, o, nil, release, err
		}
	}
	if o.index.Type() == index.TypeRecordIndex && !hasRecordIndex(t) {
		o.recordIndexFallback = true
		o.Logger.Warn("the record index is not built yet (an instant is pending on the table): looking keys up as GLOBAL_SIMPLE, as Java falls back",
			"table", t.Config.Name())
	}
	return t, o, res, release, nil
}

// complete commits txn with the write's stats (and, for a replace operation, the file
// groups it replaces) and fills res from them. Under the table lock it re-reads the
// timeline, checks that the instant may still commit and that no instant changed the
// file groups it changed since start (commit.ResolveConflicts); on a conflict it rolls
// its instant back and fails.
func (w *writer) complete(ctx context.Context, txn *commit.Txn, res *Result, action spec.Action, avroSchema string,
	stats []commitmeta.WriteStat, replaced map[string][]spec.FileID, start commit.WriteStart) error {
	o := w.o
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{},
		ExtraMetadata: map[string]string{"schema": avroSchema}, OperationType: w.operationType(o.Operation)}
	for _, s := range stats {
		meta.PartitionToWriteStats[s.PartitionPath] = append(meta.PartitionToWriteStats[s.PartitionPath], s)
		res.FilesWritten++
		res.Records.Inserted += s.NumInserts
		res.Records.Updated += s.NumUpdateWrites
		res.Records.Deleted += s.NumDeletes
		res.Bytes += s.TotalWriteBytes
	}
	if o.Operation == DeletePartition {
		for p := range replaced {
			res.Partitions = append(res.Partitions, p)
		}
		sort.Strings(res.Partitions)
	}
	if o.Operation.isReplace() {
		meta.PartitionToReplaceFileIDs = map[string][]string{}
		for p, ids := range replaced {
			for _, id := range ids {
				meta.PartitionToReplaceFileIDs[p] = append(meta.PartitionToReplaceFileIDs[p], string(id))
			}
		}
	}
	if w.sor != nil {
		if err := w.sor.record(ctx, w.t, txn.Instant, meta); err != nil {
			return err
		}
	}
	o.progress(Progress{Phase: PhaseCommit})
	if err := w.commitUnderLock(ctx, txn, meta, start); err != nil {
		return err
	}
	res.Instant = string(txn.Instant)
	res.Action = string(action)
	return nil
}

// begin starts the write's instant (requested, then inflight holding the write's planned
// profile, Java's workload profile; nil writes an empty inflight file) and returns what its
// file writes share. The caller closes env.txn.
//
// Under optimistic concurrency control it takes the table lock to do so, and first checks
// the file groups the plan changes (planned) against what other writers and services did
// since start, so that a write that would lose at its commit fails before writing anything.
func (w *writer) begin(ctx context.Context, action spec.Action, requested []byte, writeSchema *arrow.Schema, avroSchema string,
	inflight *commitmeta.CommitMetadata, planned map[commit.FileGroup]bool, start commit.WriteStart) (*writeEnv, error) {
	avroWithMeta, err := schema.WithMetaFieldsAvro(avroSchema)
	if err != nil {
		return nil, err
	}
	outSchema := schema.WithMetaFields(writeSchema)
	// Settled before the instant starts: a table whose changes cannot be logged fails here.
	cdcs, err := tableCDCSettings(w.t, avroSchema, outSchema, w.o.LogDataBlockMaxSize)
	if err != nil {
		return nil, err
	}
	tl := w.t.Timeline
	if w.o.Concurrency.Mode == commit.OptimisticConcurrency {
		release, err := w.o.timeline.Lock(ctx, "start write")
		if err != nil {
			return nil, err
		}
		defer release()
		if tl, err = w.t.LoadTimeline(ctx); err != nil {
			return nil, err
		}
		if err := commit.ResolveConflicts(ctx, w.t.Storage, tl, "", planned, start); err != nil {
			return nil, fmt.Errorf("before starting the write: %w", err)
		}
	}
	handle := w.o.timeline
	if w.instantClock != nil {
		handle = handle.WithClock(w.instantClock)
	}
	txn, err := handle.Begin(ctx, tl, action, requested, inflight)
	if err != nil {
		return nil, err
	}
	txn.DetectConflictsEarly(w.o.Concurrency.Early)
	bufMem := w.o.Mem
	if bufMem == memory.DefaultAllocator {
		bufMem = &recycler{} // a caller's own allocator (e.g. a leak-checking one) is kept
	}
	return &writeEnv{st: w.t.Storage, txn: txn, opts: w.o, mem: w.o.Mem, bufMem: bufMem, outSchema: outSchema,
		avroWithMeta: avroWithMeta, virtualKeys: w.keys.virtual(), cdc: cdcs, evolution: w.evolution}, nil
}

// resolveInput settles what a write of rows shaped like input writes: the write schema
// and its Avro form (resolveWriteSchema), the row schema that keys and partition paths
// are computed from (the full row, dropped partition columns included), and the table's
// key generator over it. Write and WriteReader start with it.
//
// On a table under schema evolution on read, sor says how the write reconciles with the
// table's InternalSchema (see schemaOnRead); nil otherwise.
func resolveInput(ctx context.Context, t *table.Table, input *arrow.Schema, o Options) (writeSchema *arrow.Schema, avroSchema string,
	rows *arrow.Schema, gen *keygen.Generator, sor *schemaOnRead, err error) {
	if err := checkDeleteHasPartitionColumns(t, input, o); err != nil {
		return nil, "", nil, nil, nil, err
	}
	cur, history, err := currentSchemaOnRead(ctx, t, o)
	if err != nil {
		return nil, "", nil, nil, nil, err
	}
	if writeSchema, avroSchema, err = resolveWriteSchema(ctx, t, input, o, cur != nil); err != nil {
		return nil, "", nil, nil, nil, err
	}
	if cur != nil {
		in := input
		if o.Operation == Delete || o.Operation == DeletePartition {
			in = nil // a delete's rows carry keys, not the table's columns
		}
		if sor, err = reconcileWrite(t, cur, history, in, writeSchema); err != nil {
			return nil, "", nil, nil, nil, err
		}
	}
	if err := checkVirtualLogKeyType(t, writeSchema); err != nil {
		return nil, "", nil, nil, nil, err
	}
	if err := checkDropPartitionColumns(t); err != nil {
		return nil, "", nil, nil, nil, err
	}
	if rows, err = rowSchema(t.Config, writeSchema, input); err != nil {
		return nil, "", nil, nil, nil, err
	}
	if gen, err = tableKeyGen(t, rows, o.WriterProps); err != nil {
		return nil, "", nil, nil, nil, err
	}
	if err := checkAutoKeys(gen, input, o); err != nil {
		return nil, "", nil, nil, nil, err
	}
	rows = withStoredKey(rows, o)
	return writeSchema, avroSchema, rows, gen, sor, nil
}

// checkDeleteHasPartitionColumns refuses a delete whose rows lack the partition columns
// under a non-global index: the index looks a key up only in the partition the row names,
// so such a delete would find nothing and report 0 deleted. Java computes the
// default partition for the missing value and deletes nothing without an error; refusing
// is hudi-go's choice (docs/writing.md).
func checkDeleteHasPartitionColumns(t *table.Table, input *arrow.Schema, o Options) error {
	if o.Operation != Delete || input == nil || o.index.Global() {
		return nil
	}
	var missing []string
	for _, f := range t.Config.PartitionFields() {
		if schema.FieldIndex(input, f) < 0 {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("delete: the input rows lack the partition column(s) %s, which the %s index needs to find their records (add them, or use a GLOBAL_SIMPLE or GLOBAL_BLOOM index)",
			strings.Join(missing, ", "), o.index.Type())
	}
	return nil
}

func tableKeyGen(t *table.Table, rows *arrow.Schema, writerProps map[string]string) (*keygen.Generator, error) {
	return t.Config.KeyGen(rows, writerProps)
}

func checkWritable(t *table.Table) error {
	if err := t.CheckWritableFeatures(); err != nil {
		return err
	}
	op := timeline.OpWriteCOW
	if t.Type == spec.MergeOnRead {
		op = timeline.OpWriteMOR
	}
	switch {
	case t.Type != spec.CopyOnWrite && t.Type != spec.MergeOnRead:
		return fmt.Errorf("table %s is %s: %w", t.Config.Name(), t.Type, ErrUnsupported)
	case !t.Timeline.Layout.Writes(op):
		return t.CheckLayoutWrites(op)
	case t.Config.BaseFileFormat() != "PARQUET":
		return fmt.Errorf("table %s has base file format %s: %w", t.Config.Name(), t.Config.BaseFileFormat(), ErrUnsupported)
	}
	return nil
}

// resolveWriteSchema returns the schema rows are written with — the table schema evolved
// by the input's (new nullable columns, promotions), checked before anything is written —
// and its Avro form for commit metadata. input is the input rows' schema (nil without
// input rows); its _hoodie_* columns are ignored.
//
// Under schema evolution on read (onRead) new columns may come anywhere, and type changes
// are checked by the InternalSchema's rules (reconcileWrite), not against the files by
// name: files are read by column id.
func resolveWriteSchema(ctx context.Context, t *table.Table, input *arrow.Schema, o Options, onRead bool) (*arrow.Schema, string, error) {
	tableAvro, err := t.SchemaAt(ctx, "")
	if err != nil {
		return nil, "", err
	}
	var tableSchema *arrow.Schema
	if tableAvro != "" {
		if tableSchema, err = schema.FromAvro(tableAvro); err != nil {
			return nil, "", fmt.Errorf("table schema: %w", err)
		}
		tableSchema = schema.WithoutMetaFields(tableSchema)
	}
	// With drop.partition.columns the files and the commit schema lack the partition
	// columns (a create schema may still list them), and so does the schema written: the
	// input's partition columns only key the rows.
	tableSchema, stripped := DataFileSchema(t.Config, tableSchema)
	var inputSchema *arrow.Schema
	if input != nil {
		inputSchema, _ = DataFileSchema(t.Config, schema.WithoutMetaFields(input))
	}
	switch {
	case tableSchema == nil && inputSchema == nil:
		return nil, "", fmt.Errorf("table %s records no schema and the write has no input rows", t.Config.Name())
	case tableSchema == nil:
		s, err := schema.ToAvro(inputSchema, t.Config.Name())
		return inputSchema, s, err
	case inputSchema == nil || o.Operation == Delete || o.Operation == DeletePartition:
		if tableAvro == t.Config.CreateSchema() || stripped {
			s, err := schema.ToAvro(tableSchema, t.Config.Name())
			return tableSchema, s, err
		}
		return tableSchema, tableAvro, nil
	}
	if o.AddColumns {
		if err := schema.CheckAddedColumns(tableSchema, inputSchema); err != nil {
			return nil, "", fmt.Errorf("add columns to table %s: %w", t.Config.Name(), err)
		}
		s, err := schema.ToAvro(inputSchema, t.Config.Name())
		return inputSchema, s, err
	}
	// A partial-update payload takes a missing column as nulls, which keep stored values.
	evolve := schema.Evolve
	if onRead {
		evolve = schema.EvolveOnRead
	}
	evolved, err := evolve(tableSchema, inputSchema, o.SetNullForMissingColumns || isPartialUpdate(o.PayloadClass))
	if err != nil {
		return nil, "", fmt.Errorf("input schema is not compatible with table %s: %w", t.Config.Name(), err)
	}
	if !onRead {
		if err := checkFilesReadable(ctx, t, tableSchema, evolved); err != nil {
			return nil, "", fmt.Errorf("input schema is not compatible with table %s: %w", t.Config.Name(), err)
		}
	}
	// Reuse the commit schema text when nothing changed, so the Avro stays byte-identical
	// to what Java wrote; the create schema has another form (no defaults) and is not reused.
	if evolved.Equal(tableSchema) && tableAvro != t.Config.CreateSchema() && !stripped {
		return tableSchema, tableAvro, nil
	}
	s, err := schema.ToAvro(evolved, t.Config.Name())
	return evolved, s, err
}

// batchesSchema is the schema of the input batches (nil for none), all of which must
// have the first one's columns (_hoodie_* columns aside).
func batchesSchema(batches []arrow.Record) (*arrow.Schema, error) {
	if len(batches) == 0 {
		return nil, nil
	}
	first := schema.WithoutMetaFields(batches[0].Schema())
	for i, b := range batches[1:] {
		if !schema.WithoutMetaFields(b.Schema()).Equal(first) {
			return nil, fmt.Errorf("input batch %d has a different schema than the first", i+2)
		}
	}
	return batches[0].Schema(), nil
}

// emptyRequestedReplace is the replacecommit.requested of an insert_overwrite: the layout's
// HoodieRequestedReplaceMetadata with every field null.
func emptyRequestedReplace(layout timeline.Layout) ([]byte, error) {
	s, err := avroParse(layout.RequestedReplaceSchema().JSON())
	if err != nil {
		return nil, err
	}
	return avroContainer(s, map[string]any{"operationType": nil, "clusteringPlan": nil, "extraMetadata": nil, "version": nil})
}

// newFileID returns a new file group id: a random UUID with Spark's "-0" suffix.
func newFileID() spec.FileID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return spec.FileID(fmt.Sprintf("%x-%x-%x-%x-%x-0", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// writePartitionMetadata creates a partition's .hoodie_partition_metadata unless present;
// Java's listing treats a directory as a partition only once it exists.
func writePartitionMetadata(ctx context.Context, st storage.Storage, partition string, instant spec.InstantTime, now time.Time) error {
	p := storage.Join(partition, fsview.PartitionMetadataFile)
	if _, err := st.Stat(ctx, p); err == nil {
		return nil
	}
	depth := 0
	if partition != "" {
		depth = strings.Count(partition, "/") + 1
	}
	m := props.New()
	m.Set("commitTime", string(instant))
	m.Set("partitionDepth", fmt.Sprint(depth))
	var sb strings.Builder
	if err := props.Store(&sb, m, "partition metadata", now); err != nil {
		return err
	}
	w, err := st.Create(ctx, p)
	if errors.Is(err, storage.ErrExist) {
		return nil // another task wrote it
	}
	if err != nil {
		return fmt.Errorf("partition metadata: %w", err)
	}
	if _, err := w.Write([]byte(sb.String())); err != nil {
		_ = storage.Abort(w)
		return err
	}
	if err := w.Close(); err != nil && !errors.Is(err, storage.ErrExist) {
		return err // an object store reports a racing task's file at Close
	}
	return nil
}

// matchPartitions expands delete_partition patterns ("*" wildcards as in Hudi 0.14)
// against the table's partitions.
func matchPartitions(patterns []string, partitions []string) []string {
	var out []string
	for _, p := range partitions {
		for _, pat := range patterns {
			if ok, _ := path.Match(pat, p); ok || pat == p {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// sortRecords orders records for bulk_insert's sort modes.
func sortRecords(recs []incoming, mode string) {
	switch strings.ToUpper(mode) {
	case "GLOBAL_SORT":
		sort.SliceStable(recs, func(i, j int) bool {
			if recs[i].partition != recs[j].partition {
				return recs[i].partition < recs[j].partition
			}
			return recs[i].key < recs[j].key
		})
	case "PARTITION_SORT":
		// Records are grouped per partition anyway; sorting by partition first keeps the
		// comparison a strict order.
		sort.SliceStable(recs, func(i, j int) bool {
			if recs[i].partition != recs[j].partition {
				return recs[i].partition < recs[j].partition
			}
			return recs[i].key < recs[j].key
		})
	}
}

// WritePartitionMetadata creates partition's .hoodie_partition_metadata, naming instant,
// unless it is present (SQL's repair_add_partition_meta).
func WritePartitionMetadata(ctx context.Context, st storage.Storage, partition string, instant spec.InstantTime, now time.Time) error {
	return writePartitionMetadata(ctx, st, partition, instant, now)
}

// writeRules are the rules an incoming record merges with the stored one by: a version 8/9
// table's merge mode (hoodie.record.merge.mode, as Hudi 1.x's writers take it from the
// table config), else the write's payload class (Hudi 0.14).
func writeRules(t *table.Table, o Options, hasOrdering bool) (merge.Rules, error) {
	if m := t.Config.MergeMode(); m != "" {
		if strings.EqualFold(m, table.MergeModeCustom) {
			return merge.Rules{}, fmt.Errorf("table %s has %s=CUSTOM: record merger classes are %w", t.Config.Name(), table.KeyMergeMode, ErrUnsupported)
		}
		if _, err := t.Config.MergeRules(); err != nil { // refuses 1.x's partial updates
			return merge.Rules{}, err
		}
		return merge.RulesFor(m, t.Config.PayloadClass(), hasOrdering)
	}
	return merge.RulesFor("", o.PayloadClass, hasOrdering)
}
