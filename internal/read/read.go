// Package read plans and runs Hudi queries — snapshot, time travel, read-optimized,
// incremental and CDC — over a table, producing a stream of Arrow record batches in the table
// schema. Planning resolves the schema and the file slices; running reads one slice per
// worker with bounded memory.
package read

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
)

// Options select the query.
type Options struct {
	// AsOf is the time-travel instant ("" = latest).
	AsOf spec.InstantTime
	// ReadOptimized reads base files only (MOR); on COW it equals a snapshot.
	ReadOptimized bool
	// Incremental reads the latest state, as of End, of records written in (Begin, End].
	Incremental bool
	// CDC reads every change made in (Begin, End] instead: rows of CDCSchema (cdc.go).
	// Columns may name a subset of its columns; no other option applies.
	CDC        bool
	Begin, End spec.InstantTime
	// Columns to return, in order (nil = all, meta fields first).
	Columns []string
	// Filter keeps matching rows; it also prunes partitions and files.
	Filter expr.Expr
	// BatchSize is the maximum rows per batch (default 8192).
	BatchSize int
	// Parallelism is the number of slices read at once (default: number of CPUs).
	Parallelism int
	// KeyGenSettings are key generator settings (canonical hoodie.keygen.* names) for a
	// table without meta fields whose hoodie.properties lacks them: Spark 0.14 keeps
	// hoodie.keygen.timebased.* out of it, and the record keys of such a table are rebuilt
	// with its key generator (table.Config.KeyGen).
	KeyGenSettings map[string]string
	// NoMetadata plans from a listing of storage even when the table's metadata table
	// could be planned from (hoodie.metadata.enable=false on the read; table.Files).
	NoMetadata bool
	// DataSkipping prunes file slices with the metadata table's column_stats index when the
	// query has a filter (hoodie.enable.data.skipping=true; dataskip.go).
	DataSkipping bool
	// Pending is an instant still in flight whose log blocks are read as committed: the
	// metadata writer reads what a write leaves in a file group before the write
	// completes (ReadSlice on a slice with the write's new log file).
	Pending spec.InstantTime
	Mem     memory.Allocator
	Logger  *slog.Logger
}

// files is how the query lists the table's files.
func (o Options) files() table.FilesOptions {
	return table.FilesOptions{NoMetadata: o.NoMetadata, Logger: o.Logger}
}

// Scan is a planned query.
type Scan struct {
	t        *table.Table
	opts     Options
	schema   *arrow.Schema // output schema
	full     *arrow.Schema // table schema with meta fields
	slices   []fsview.FileSlice
	fgOpts   filegroup.Options
	readCols []string // columns read per slice: output ∪ filter ∪ commit time
	empty    bool

	// Key pruning (keyprune.go): the record keys the filter pins, if it does.
	keyPinned       bool
	pinnedKeys      []string // Java String order
	pinnedSet       map[string]struct{}
	pinnedValidUTF8 bool
	keyCounters     *keyPruneCounters

	cdc *cdcScan // a CDC query (cdc.go)

	dataSkipping DataSkipping // what data skipping did (dataskip.go)
}

// commitTimeField is the meta column incremental queries filter on.
var commitTimeField = schema.MetaFields[0]

// timelineRetries bounds how often Plan reloads a timeline that changed under it.
const timelineRetries = 3

// Plan resolves the query's schema and file slices. An instant file that was listed and
// is gone when read (timeline.ErrInstantGone: a concurrent writer's archival moved it, or
// a rollback removed it) means the timeline changed under the read: Plan reopens the
// table and plans again, up to timelineRetries times, then fails saying so. Java's
// readers fail in this race (they read a timeline snapshot); retrying is ours.
func Plan(ctx context.Context, t *table.Table, opts Options) (*Scan, error) {
	for attempt := 0; ; attempt++ {
		s, err := plan(ctx, t, opts)
		if err == nil || !errors.Is(err, timeline.ErrInstantGone) {
			return s, err
		}
		if attempt == timelineRetries {
			return nil, fmt.Errorf("the timeline of %s kept changing under the read (%d reloads): %w", t.Config.Name(), attempt, err)
		}
		if opts.Logger != nil {
			opts.Logger.Info("the timeline changed under the read: reloading it", "error", err)
		}
		if t, err = t.Reopen(ctx); err != nil {
			return nil, err
		}
	}
}

func plan(ctx context.Context, t *table.Table, opts Options) (*Scan, error) {
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 8192
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = runtime.GOMAXPROCS(0)
	}
	s := &Scan{t: t, opts: opts, keyCounters: &keyPruneCounters{}}
	if f := t.Config.BaseFileFormat(); f != "PARQUET" {
		return nil, fmt.Errorf("table %s: base file format %s is not supported (hudi-go reads Parquet base files): %w", t.Config.Name(), f, spec.ErrUnsupported)
	}
	if opts.CDC {
		if opts.Incremental {
			return nil, errors.New("a query is either incremental or CDC")
		}
		if err := planCDC(ctx, t, s); err != nil {
			return nil, err
		}
		return s, nil
	}
	asOf := opts.AsOf
	if opts.Incremental {
		if opts.AsOf != "" {
			return nil, errors.New("an incremental query cannot also be a time-travel query")
		}
		if !t.Config.PopulateMetaFields() {
			return nil, fmt.Errorf("table %s does not populate meta fields (%s=false): incremental queries need _hoodie_commit_time", t.Config.Name(), table.KeyPopulateMetaFields)
		}
		if opts.End == "" {
			if last := t.Timeline.DataInstants(); len(last) > 0 {
				opts.End = last[len(last)-1].Time
			}
		}
		if opts.Begin == "" {
			opts.Begin = spec.ZeroInstant
		}
		asOf = opts.End
		s.opts = opts
	}
	// A pending restore has rolled back some of its instants and not others: the latest
	// state is one no commit made. Only a time travel to before everything it rolls back
	// reads a committed state; the rest fail until the restore is finished. (Java's
	// readers do not check; its writers refuse the same state: BaseHoodieWriteClient.)
	if p := commit.PendingRestore(ctx, t.Storage, t.Timeline); p != nil && (asOf == "" || p.Earliest == "" || !asOf.Less(p.Earliest)) {
		return nil, p.Error("read " + t.Config.Name())
	}
	if asOf != "" {
		what := "time travel to"
		if opts.Incremental {
			what = "incremental query ending at"
		}
		if err := checkRetained(ctx, t, asOf, what); err != nil {
			return nil, err
		}
		if data := t.Timeline.DataInstants(); len(data) == 0 || asOf.Less(data[0].Time) {
			// Before the first commit the table is empty — unless archived commits are at or
			// before asOf: their files, older than the active timeline, are visible.
			archived, err := archivedDataAtOrBefore(ctx, t, asOf)
			if err != nil {
				return nil, err
			}
			s.empty = !archived
		}
	}

	query, err := t.InternalSchemaAt(ctx, asOf)
	if err != nil {
		return nil, err
	}
	if asOf != "" && query != nil && query.VersionID == 0 {
		// Time travel to before the first schema change on read: version 0 is the schema
		// the first change started from, not the schema of that instant (on-write
		// evolution may have added columns since). Java finds no latest_schema at or
		// before the instant then and reads with that instant's Avro schema, by name.
		query = nil
	}
	full, err := resolveSchema(ctx, t, asOf, query, opts.files())
	if err != nil {
		return nil, err
	}
	s.full = full
	outCols := opts.Columns
	if outCols == nil {
		for _, f := range full.Fields() {
			outCols = append(outCols, f.Name)
		}
	}
	var outFields []arrow.Field
	for _, c := range outCols {
		i := schema.FieldIndex(full, c)
		if i < 0 {
			return nil, fmt.Errorf("column %q is not in the table schema (columns: %s)", c, strings.Join(fieldNames(full), ", "))
		}
		outFields = append(outFields, full.Field(i))
	}
	s.schema = arrow.NewSchema(outFields, nil)
	s.readCols = fieldNames(s.schema)
	if opts.Filter != nil {
		for _, c := range opts.Filter.Columns() {
			root := strings.SplitN(c, ".", 2)[0]
			if schema.FieldIndex(full, root) < 0 {
				return nil, fmt.Errorf("filter column %q is not in the table schema", c)
			}
			s.readCols = appendUnique(s.readCols, full.Field(schema.FieldIndex(full, root)).Name)
		}
	}
	if opts.Incremental {
		s.readCols = appendUnique(s.readCols, commitTimeField)
	}
	if s.empty {
		return s, nil
	}

	listing, err := t.Files(ctx, opts.files())
	if err != nil {
		return nil, err
	}
	for _, d := range listing.NotPartitions {
		opts.Logger.Warn("directory has Hudi data files but no "+fsview.PartitionMetadataFile+"; it is not a partition and is not read (as in Java Hudi)", "dir", d)
	}
	view, err := t.View(ctx, listing, asOf)
	if err != nil {
		return nil, err
	}
	for _, sl := range view.LatestSlices() {
		if opts.Filter != nil && !expr.MayMatchPartition(opts.Filter, partitionValues(t.Config, sl.Partition)) {
			continue
		}
		if opts.Incremental && !mayHaveCommitsAfter(sl, opts.Begin) {
			continue
		}
		s.slices = append(s.slices, sl)
	}
	if opts.DataSkipping && opts.Filter != nil {
		if err := s.skipByColumnStats(ctx, t, full, query != nil); err != nil {
			return nil, err
		}
	}

	rules, err := t.Config.MergeRules()
	if err != nil {
		return nil, err
	}
	ordering := ""
	if of := t.Config.OrderingFields(); len(of) > 0 && schema.FieldIndex(full, of[0]) >= 0 {
		ordering = full.Field(schema.FieldIndex(full, of[0])).Name
	}
	vis := fsview.NewVisibility(t.Timeline, asOf)
	committed := vis.Committed
	if p := opts.Pending; p != "" {
		committed = func(ts spec.InstantTime) bool { return ts == p || vis.Committed(ts) }
	}
	s.fgOpts = filegroup.Options{
		Schema:              full,
		Columns:             s.readCols,
		KeyFields:           keyColumns(t.Config.RecordKeyFields()),
		MetaFieldsPopulated: t.Config.PopulateMetaFields(),
		OrderingField:       ordering,
		Rules:               rules,
		Committed:           committed,
		BaseOnly:            opts.ReadOptimized,
		BatchSize:           opts.BatchSize,
		Mem:                 opts.Mem,
		Logger:              opts.Logger,
	}
	if query != nil {
		// Schema evolution on read: every file is read by column id, under the
		// InternalSchema it was written with (Java: InternalSchemaCache).
		s.fgOpts.Evolution = &filegroup.Evolution{Query: query, FileSchema: func(in spec.InstantTime) (*internalschema.Schema, error) {
			return t.FileInternalSchema(ctx, in)
		}}
	}
	if !t.Config.PopulateMetaFields() {
		// Keys are rebuilt from the key fields exactly as Java's key generator wrote them.
		gen, err := t.Config.KeyGen(full, opts.KeyGenSettings)
		if err != nil {
			return nil, fmt.Errorf("table %s has no meta fields and its key generator cannot be built: %w", t.Config.Name(), err)
		}
		s.fgOpts.RecordKey = gen.RecordKey
	}
	if opts.Filter != nil {
		s.fgOpts.SelectRowGroups = rowGroupSelector(opts.Filter, full)
		// Footer keys are those of the meta column; without meta fields they are not
		// relied on.
		if t.Config.PopulateMetaFields() {
			s.pinnedKeys, s.keyPinned = pinKeys(opts.Filter, full, t.Config)
			s.pinnedValidUTF8 = allValidUTF8(s.pinnedKeys)
			s.pinnedSet = make(map[string]struct{}, len(s.pinnedKeys))
			for _, k := range s.pinnedKeys {
				s.pinnedSet[k] = struct{}{}
			}
		}
	}
	return s, nil
}

// keyColumns are the top-level columns that record key fields (dot notation) live in.
func keyColumns(fields []string) []string {
	var out []string
	for _, f := range fields {
		out = appendUnique(out, strings.SplitN(f, ".", 2)[0])
	}
	return out
}

// mayHaveCommitsAfter reports whether a slice can hold records committed after begin:
// every record in a file was written at or before the instant that wrote the file.
func mayHaveCommitsAfter(sl fsview.FileSlice, begin spec.InstantTime) bool {
	if len(sl.Logs) > 0 {
		return true
	}
	return sl.Base != nil && begin.Less(sl.Base.Name.Instant)
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func fieldNames(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

// resolveSchema returns the table schema with meta fields as of an instant. For time
// travel this is the schema of the latest commit at or before the instant, as Java's
// Spark relation does (TableSchemaResolver.getTableAvroSchema(timestamp) when a query
// instant is given). With schema evolution on read it is the InternalSchema of that
// instant (query), as Java's relation reads with the internal schema of the query instant.
func resolveSchema(ctx context.Context, t *table.Table, asOf spec.InstantTime, query *internalschema.Schema, fo table.FilesOptions) (*arrow.Schema, error) {
	if query != nil {
		sc, err := schema.ArrowFromInternal(query)
		if err != nil {
			return nil, fmt.Errorf("table %s schema (version %d): %w", t.Config.Name(), query.VersionID, err)
		}
		return schema.WithMetaFields(sc), nil
	}
	avroSchema, err := t.SchemaAt(ctx, asOf)
	if err != nil {
		return nil, err
	}
	if avroSchema != "" {
		sc, err := schema.FromAvro(avroSchema)
		if err != nil {
			return nil, fmt.Errorf("table %s schema: %w", t.Config.Name(), err)
		}
		// drop.partition.columns: the partition columns are read back as the partition
		// path's text (strings), as Java's schema resolver and Spark 0.14 give them.
		if sc, err = t.Config.WithPartitionColumns(sc, nil); err != nil {
			return nil, err
		}
		return schema.WithMetaFields(sc), nil
	}
	// No schema recorded anywhere: take a base file's.
	listing, err := t.Files(ctx, fo)
	if err != nil {
		return nil, err
	}
	view, err := t.View(ctx, listing, asOf)
	if err != nil {
		return nil, err
	}
	for _, sl := range view.LatestSlices() {
		if sl.Base == nil {
			continue
		}
		f, err := t.Storage.Open(ctx, sl.Base.Path)
		if err != nil {
			return nil, err
		}
		pf, err := parquet.Open(f, f.Size(), sl.Base.Path, memory.DefaultAllocator, 1)
		if err != nil {
			f.Close()
			return nil, err
		}
		sc := pf.Schema()
		pf.Close()
		f.Close()
		// drop.partition.columns: the partition columns are read back as the partition
		// path's text (strings), as Java's schema resolver and Spark 0.14 give them.
		if sc, err = t.Config.WithPartitionColumns(sc, nil); err != nil {
			return nil, err
		}
		return schema.WithMetaFields(sc), nil
	}
	return nil, fmt.Errorf("table %s records no schema (no commit schema, no %s, no base file)", t.Config.Name(), table.KeyCreateSchema)
}

// partitionValues parses a partition path into field values: hive-style "f=v" segments,
// or positional segments matched to the partition fields.
func partitionValues(cfg *table.Config, partition string) map[string]string {
	if partition == "" {
		return nil
	}
	fields := cfg.PartitionFields()
	segs := strings.Split(partition, "/")
	out := map[string]string{}
	decode := func(v string) string {
		if cfg.URLEncodePartitioning() {
			if d, err := url.PathUnescape(v); err == nil {
				return d
			}
		}
		return v
	}
	for i, seg := range segs {
		if k, v, ok := strings.Cut(seg, "="); ok && cfg.HiveStylePartitioning() {
			out[k] = decode(v)
			continue
		}
		if len(segs) == len(fields) && !isTimestampKeyGen(cfg) {
			out[fields[i]] = decode(seg)
		}
	}
	return out
}

// isTimestampKeyGen reports key generators whose partition path is a formatted time, not
// the column value.
func isTimestampKeyGen(cfg *table.Config) bool {
	k := strings.ToUpper(cfg.KeyGenerator())
	return strings.Contains(k, "TIMESTAMP") || strings.Contains(k, "CUSTOM")
}

// Schema is the output schema.
func (s *Scan) Schema() *arrow.Schema { return s.schema }

// Slices are the file slices the scan reads.
func (s *Scan) Slices() []fsview.FileSlice { return s.slices }

// Run reads the slices, Parallelism at a time, and calls emit for each output batch from
// the calling goroutine. A batch is released after emit returns.
func (s *Scan) Run(ctx context.Context, emit func(arrow.Record) error) error {
	if s.cdc != nil {
		return s.runCDC(ctx, emit)
	}
	if s.empty || len(s.slices) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(s.opts.Parallelism, len(s.slices))
	jobs := make(chan fsview.FileSlice)
	results := make(chan arrow.Record, workers)
	errc := make(chan error, workers+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sl := range jobs {
				if err := s.readSlice(ctx, sl, results); err != nil {
					errc <- err
					cancel()
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, sl := range s.slices {
			select {
			case jobs <- sl:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	var emitErr error
	for rec := range results {
		if emitErr == nil {
			if emitErr = emit(rec); emitErr != nil {
				cancel()
			}
		}
		rec.Release()
	}
	if emitErr != nil {
		return emitErr
	}
	select {
	case err := <-errc:
		return err
	default:
	}
	return ctx.Err()
}

// readSlice reads one slice, filters and projects its batches, and sends them on.
func (s *Scan) readSlice(ctx context.Context, sl fsview.FileSlice, out chan<- arrow.Record) error {
	return s.eachSliceBatch(ctx, sl, func(res arrow.Record) error {
		select {
		case out <- res:
			return nil
		case <-ctx.Done():
			res.Release()
			return ctx.Err()
		}
	})
}

// ReadSlice reads one of the scan's slices on the calling goroutine, filtered and
// projected as Run reads it, and calls emit with each batch (released after emit
// returns). A caller that needs to know which slice a row comes from — the metadata
// table's record index, keyed by file group — reads slice by slice.
func (s *Scan) ReadSlice(ctx context.Context, sl fsview.FileSlice, emit func(arrow.Record) error) error {
	if s.empty {
		return nil
	}
	return s.eachSliceBatch(ctx, sl, func(res arrow.Record) error {
		defer res.Release()
		return emit(res)
	})
}

// eachSliceBatch reads one slice and hands each finished batch to send, which owns it.
func (s *Scan) eachSliceBatch(ctx context.Context, sl fsview.FileSlice, send func(arrow.Record) error) error {
	if s.skipByKey(ctx, sl) {
		return nil
	}
	if s.logsOnly(ctx, sl) {
		sl.Base = nil
	}
	opts := s.fgOpts
	if s.keyPinned && opts.SelectRowGroups != nil {
		opts.SelectRowGroups = s.keyRowGroups(ctx, opts.SelectRowGroups)
	}
	if s.t.Config.DropPartitionColumns() {
		opts.PartitionValues = partitionValues(s.t.Config, sl.Partition)
	}
	err := filegroup.Read(ctx, s.t.Storage, sl, opts, func(rec arrow.Record) error {
		res, err := s.finish(ctx, rec)
		if err != nil {
			return err
		}
		if res == nil {
			return nil
		}
		return send(res)
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("read file group %s/%s: %w", sl.Partition, sl.FileID, table.MissingFile(err))
	}
	return err
}

// finish applies the incremental range and the filter, then projects to the output
// schema. It returns a new record (or nil for no rows).
func (s *Scan) finish(ctx context.Context, rec arrow.Record) (arrow.Record, error) {
	rec.Retain()
	if s.opts.Incremental {
		idx := schema.FieldIndex(rec.Schema(), commitTimeField)
		col, ok := rec.Column(idx).(*array.String)
		if !ok {
			rec.Release()
			return nil, fmt.Errorf("%s is not a string column", commitTimeField)
		}
		b := array.NewBooleanBuilder(s.opts.Mem)
		for i := 0; i < col.Len(); i++ {
			ts := spec.InstantTime(col.Value(i))
			b.Append(col.IsValid(i) && s.opts.Begin.Less(ts) && ts.Compare(s.opts.End) <= 0)
		}
		mask := b.NewBooleanArray()
		b.Release()
		filtered, err := filterRecord(ctx, s.opts.Mem, rec, mask)
		mask.Release()
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = filtered
	}
	if s.opts.Filter != nil && rec.NumRows() > 0 {
		filtered, err := expr.Filter(ctx, s.opts.Filter, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = filtered
	}
	if rec.NumRows() == 0 {
		rec.Release()
		return nil, nil
	}
	if rec.Schema().Equal(s.schema) {
		return rec, nil
	}
	cols := make([]arrow.Array, s.schema.NumFields())
	for i, f := range s.schema.Fields() {
		cols[i] = rec.Column(schema.FieldIndex(rec.Schema(), f.Name))
	}
	out := array.NewRecord(s.schema, cols, rec.NumRows())
	rec.Release()
	return out, nil
}

// archivedDataAtOrBefore reports whether the archived timeline holds a completed data
// instant at or before asOf.
func archivedDataAtOrBefore(ctx context.Context, t *table.Table, asOf spec.InstantTime) (bool, error) {
	archived, err := t.Archived(ctx)
	if err != nil {
		return false, fmt.Errorf("time travel to %s: archived timeline: %w", asOf, err)
	}
	for _, a := range archived {
		in := a.Instant
		if in.IsCompleted() && in.Action.IsDataAction() && !asOf.Less(in.Time) {
			return true, nil
		}
	}
	return false, nil
}
