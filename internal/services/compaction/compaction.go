// Package compaction is the merge-on-read compaction table service (table version 6):
// scheduling writes a HoodieCompactionPlan as <C>.compaction.requested; executing merges
// each planned file slice (base file + log files) into a new base file
// <fileId>_<token>_<C>.parquet and publishes <C>.commit with compacted=true and
// operationType COMPACT. Merged records keep their own _hoodie_commit_time, so a
// compaction adds no records to incremental queries.
package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/storage"
)

// Metric names of HoodieCompactionOperation.metrics (Java's CompactionStrategy).
const (
	MetricTotalIOReadMB     = "TOTAL_IO_READ_MB"
	MetricTotalIOWriteMB    = "TOTAL_IO_WRITE_MB"
	MetricTotalIOMB         = "TOTAL_IO_MB"
	MetricTotalLogFilesSize = "TOTAL_LOG_FILES_SIZE"
	MetricTotalLogFiles     = "TOTAL_LOG_FILES"
)

// Options configure scheduling and execution.
type Options struct {
	// TargetIOMB caps the plan's total TOTAL_IO_MB (hoodie.compaction.target.io); <= 0
	// takes the default (config.TargetIOPerCompactionInMB).
	TargetIOMB int64
	// Write carries the Parquet and bloom settings of the new base files; its
	// TimelineZone, Now, Logger and Mem are used too.
	Write write.Options
	// MaxLogMemory bounds the decoded log records held in memory
	// (hoodie.memory.compaction.max.size), shared by the file groups compacted at once;
	// beyond it they spill to SpillDir (hoodie.memory.spillable.map.path). 0 = filegroup's
	// default (1 GB). A compaction holds more than this: per group compacting, the open
	// row group of its new base file (hoodie.parquet.block.size) and of its base file, one
	// log block, a few batches of a sixteenth of the budget, and the record keys.
	MaxLogMemory int64
	SpillDir     string
	// Strategy is hoodie.compaction.strategy's simple class name (LogFileSizeBased by
	// default; LogFileNumBased, BoundedIO and UnBounded are supported too), and the two
	// thresholds are hoodie.compaction.logfile.size.threshold and
	// hoodie.compaction.logfile.num.threshold (0 = none).
	Strategy         string
	LogSizeThreshold int64
	LogNumThreshold  int
	// Concurrency holds the table lock, taken while a plan is made and written and while
	// the compaction commit is published; the merge itself runs without it (zero value: no
	// lock).
	Concurrency commit.Concurrency
}

// Compaction strategies (simple names of Java's org.apache.hudi.table.action.compact.strategy classes).
const (
	StrategyLogFileSize = "LogFileSizeBasedCompactionStrategy"
	StrategyLogFileNum  = "LogFileNumBasedCompactionStrategy"
	StrategyBoundedIO   = "BoundedIOCompactionStrategy"
	StrategyUnBounded   = "UnBoundedCompactionStrategy"
)

func (o Options) withDefaults() Options {
	var defaults *config.Config // nil: every key reads as its default
	if o.TargetIOMB <= 0 {
		o.TargetIOMB = defaults.Long(config.TargetIOPerCompactionInMB)
	}
	if o.Write.TimelineZone == nil {
		o.Write.TimelineZone = time.Local
	}
	if o.Write.Now == nil {
		o.Write.Now = time.Now
	}
	if o.Write.Logger == nil {
		o.Write.Logger = slog.Default()
	}
	if o.Write.Mem == nil {
		o.Write.Mem = memory.DefaultAllocator
	}
	if o.Write.MaxFileSize <= 0 {
		o.Write.MaxFileSize = defaults.Long(config.ParquetMaxFileSize)
	}
	return o
}

// timeline is the handle a compaction changes the timeline of the table rooted at st
// through: the write settings' clock, zone and logger, the concurrency settings' heartbeat
// and lock (o with its defaults).
func (o Options) timeline(st storage.Storage) *commit.Timeline {
	return o.Concurrency.Timeline(st, o.Write.Now, o.Write.TimelineZone, o.Write.Logger).WithMetadata(o.Write.Metadata)
}

// OptionsFromConfig reads the compaction plan's settings from cfg (defaults included):
// hoodie.compaction.strategy, its two thresholds hoodie.compaction.logfile.size.threshold
// and hoodie.compaction.logfile.num.threshold, and hoodie.compaction.target.io. A strategy
// hudi-go does not implement is refused, as are negative thresholds and a target of no IO.
func OptionsFromConfig(cfg *config.Config) (Options, error) {
	var o Options
	v := strings.TrimSpace(cfg.String(config.CompactionStrategy))
	switch name := v[strings.LastIndex(v, ".")+1:]; name {
	case "", StrategyLogFileSize, StrategyLogFileNum, StrategyBoundedIO, StrategyUnBounded:
		o.Strategy = name
	default:
		return o, fmt.Errorf("%s=%s: %w (supported: %s, %s, %s, %s)", config.CompactionStrategy.Name, v, write.ErrUnsupported,
			StrategyLogFileSize, StrategyLogFileNum, StrategyBoundedIO, StrategyUnBounded)
	}
	o.LogSizeThreshold = cfg.Long(config.CompactionLogFileSizeThreshold)
	o.LogNumThreshold = cfg.Int(config.CompactionLogFileNumThreshold)
	for _, th := range []struct {
		k config.Key
		n int64
	}{{config.CompactionLogFileSizeThreshold, o.LogSizeThreshold}, {config.CompactionLogFileNumThreshold, int64(o.LogNumThreshold)}} {
		if th.n < 0 {
			return o, fmt.Errorf("%s=%d: want a non-negative number", th.k.Name, th.n)
		}
	}
	if o.TargetIOMB = cfg.Long(config.TargetIOPerCompactionInMB); o.TargetIOMB <= 0 {
		return o, fmt.Errorf("%s=%d: want a positive number of MB", config.TargetIOPerCompactionInMB.Name, o.TargetIOMB)
	}
	return o, nil
}

// Result summarizes a compaction (the CLI's --format json object).
type Result struct {
	Instant      string `json:"instant"`
	Action       string `json:"action"`
	Operation    string `json:"operation"`
	FilesWritten int    `json:"files_written"`
	Bytes        int64  `json:"bytes"`
	// Scheduled is the instant of a plan written by this call ("" if none).
	Scheduled string `json:"scheduled,omitempty"`
	// Completed is true when a compaction commit was published.
	Completed bool `json:"completed"`
	// Message explains a no-op ("nothing to compact").
	Message string `json:"message,omitempty"`
}

// ErrNotMOR is returned for tables that are not merge-on-read.
var ErrNotMOR = errors.New("compaction needs a merge-on-read table")

func check(t *table.Table) error {
	switch {
	case t.Type != spec.MergeOnRead:
		return fmt.Errorf("table %s is %s: %w", t.Config.Name(), t.Type, ErrNotMOR)
	case !t.Timeline.Layout.Writes(timeline.OpCompaction):
		return t.CheckLayoutWrites(timeline.OpCompaction)
	case t.Config.BaseFileFormat() != "PARQUET":
		return fmt.Errorf("table %s has base file format %s: compaction is %w", t.Config.Name(), t.Config.BaseFileFormat(), write.ErrUnsupported)
	}
	if err := write.CheckVirtualKeyTable(t); err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	return nil
}

// Schedule plans a compaction of every file group whose latest slice has log files,
// largest total log size first (Java's LogFileSizeBasedCompactionStrategy), bounded by
// TargetIOMB, and writes <C>.compaction.requested. It returns "" and no error when there is
// nothing to compact. Groups in a pending compaction are left out.
func Schedule(ctx context.Context, st storage.Storage, o Options) (spec.InstantTime, *commitmeta.CompactionPlan, error) {
	o = o.withDefaults()
	// Under the lock, the plan sees every write that started before it (single-writer
	// writes hold the lock throughout; optimistic ones fail their commit on a plan they
	// did not see), so no write's log blocks are left behind in a compacted slice.
	ct := o.timeline(st)
	release, err := ct.Lock(ctx, "schedule compaction")
	if err != nil {
		return "", nil, err
	}
	defer release()
	t, err := table.Open(ctx, st)
	if err != nil {
		return "", nil, err
	}
	if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, "schedule compaction"); err != nil {
		return "", nil, err
	}
	if err := check(t); err != nil {
		return "", nil, err
	}
	if t, err = t.PrepareChangeFor(ctx, o.Write.Now(), o.Write.Logger, o.Write.Metadata); err != nil {
		return "", nil, err
	}
	pending := map[string]bool{}
	compacting, err := commit.PendingCompactionGroups(ctx, st, t.Timeline, true)
	if err != nil {
		return "", nil, err
	}
	for g := range compacting {
		pending[g] = true
	}
	// File groups a pending clustering rewrites are left alone too, as Java's compaction
	// planner does: the clustering replaces them.
	clusterings, err := commit.PendingClustering(ctx, st, t.Timeline)
	if err != nil {
		return "", nil, err
	}
	for _, in := range clusterings {
		b, err := t.Timeline.ReadRequested(ctx, st, in)
		if err != nil {
			return "", nil, err
		}
		m, err := commitmeta.DecodeRequestedReplace(b)
		if err != nil {
			return "", nil, fmt.Errorf("clustering plan %s: %w", in.Time, err)
		}
		for p, ids := range m.InputFileIDs() {
			for _, id := range ids {
				pending[p+"/"+id] = true
			}
		}
	}
	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Write.Logger})
	if err != nil {
		return "", nil, err
	}
	view, err := t.View(ctx, listing, "")
	if err != nil {
		return "", nil, err
	}
	type cand struct {
		op      commitmeta.CompactionOperation
		logSize int64
	}
	var cands []cand
	for _, g := range view.Groups {
		sl := g.Latest()
		if sl == nil || len(sl.Logs) == 0 || pending[g.Partition+"/"+string(g.FileID)] {
			continue
		}
		op := commitmeta.CompactionOperation{BaseInstantTime: string(sl.BaseInstant), FileID: string(g.FileID), PartitionPath: g.Partition}
		var logSize, baseSize int64
		for _, l := range sl.Logs {
			op.DeltaFilePaths = append(op.DeltaFilePaths, l.Name.String())
			logSize += l.Size
		}
		writeSize := o.Write.MaxFileSize
		if sl.Base != nil {
			op.DataFilePath = sl.Base.Name.String()
			baseSize = sl.Base.Size
			writeSize = baseSize
		}
		readMB := (baseSize + logSize) >> 20
		writeMB := writeSize >> 20
		op.Metrics = map[string]float64{
			MetricTotalIOReadMB:     float64(readMB),
			MetricTotalIOWriteMB:    float64(writeMB),
			MetricTotalIOMB:         float64(readMB + writeMB),
			MetricTotalLogFilesSize: float64(logSize),
			MetricTotalLogFiles:     float64(len(sl.Logs)),
		}
		cands = append(cands, cand{op, logSize})
	}
	cands = slices.DeleteFunc(cands, func(c cand) bool {
		return c.logSize < o.LogSizeThreshold || len(c.op.DeltaFilePaths) < o.LogNumThreshold
	})
	switch o.Strategy {
	case "", StrategyLogFileSize:
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].logSize > cands[j].logSize })
	case StrategyLogFileNum:
		sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].op.DeltaFilePaths) > len(cands[j].op.DeltaFilePaths) })
	}
	plan := &commitmeta.CompactionPlan{Version: 2}
	remaining := o.TargetIOMB
	for _, c := range cands {
		// BoundedIOCompactionStrategy (the base of the log-file strategies): the operation
		// that crosses the budget is included. UnBounded takes every operation.
		plan.Operations = append(plan.Operations, c.op)
		remaining -= int64(c.op.Metrics[MetricTotalIOMB])
		if remaining <= 0 && o.Strategy != StrategyUnBounded {
			break
		}
	}
	if len(plan.Operations) == 0 {
		return "", nil, nil
	}
	body, err := EncodePlan(plan)
	if err != nil {
		return "", nil, err
	}
	inst, err := ct.RequestCompaction(ctx, t.Timeline, body)
	if err != nil {
		return "", nil, err
	}
	return inst, plan, nil
}

// EncodePlan encodes a plan as Java writes compaction.requested (an Avro container with
// the HoodieCompactionPlan schema).
func EncodePlan(p *commitmeta.CompactionPlan) ([]byte, error) {
	s, err := avro.Parse(avroschema.CompactionPlan.JSON())
	if err != nil {
		return nil, err
	}
	ops := []any{}
	for _, op := range p.Operations {
		deltas := []any{}
		for _, d := range op.DeltaFilePaths {
			deltas = append(deltas, d)
		}
		metrics := map[string]any{}
		for k, v := range op.Metrics {
			metrics[k] = v
		}
		var data, boot any
		if op.DataFilePath != "" {
			data = op.DataFilePath
		}
		if op.BootstrapFilePath != "" {
			boot = op.BootstrapFilePath
		}
		ops = append(ops, map[string]any{"baseInstantTime": op.BaseInstantTime, "deltaFilePaths": deltas,
			"dataFilePath": data, "fileId": op.FileID, "partitionPath": op.PartitionPath,
			"metrics": metrics, "bootstrapFilePath": boot})
	}
	var extra any
	if p.ExtraMetadata != nil {
		m := map[string]any{}
		for k, v := range p.ExtraMetadata {
			m[k] = v
		}
		extra = m
	}
	missing := []any{}
	for _, m := range p.MissingSchedulePartitions {
		missing = append(missing, m)
	}
	return avro.WriteContainer(s, map[string]any{"operations": ops, "extraMetadata": extra, "version": p.Version,
		"strategy": nil, "preserveHoodieMetadata": p.PreserveHoodieMetadata, "missingSchedulePartitions": missing})
}

func readPlan(ctx context.Context, t *table.Table, in timeline.Instant) (*commitmeta.CompactionPlan, error) {
	b, err := t.Timeline.ReadRequested(ctx, t.Storage, in)
	if err != nil {
		return nil, err
	}
	p, err := commitmeta.DecodeCompactionPlan(b)
	if err != nil {
		return nil, fmt.Errorf("compaction plan %s: %w", in.Time, err)
	}
	return p, nil
}

// Execute runs every pending compaction, oldest first, and returns one result per
// compaction committed. A compaction killed earlier is re-run: the partial files of its
// instant are deleted first.
func Execute(ctx context.Context, st storage.Storage, o Options) ([]*Result, error) {
	o = o.withDefaults()
	var out []*Result
	for {
		t, err := table.Open(ctx, st)
		if err != nil {
			return out, err
		}
		if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, "run compaction"); err != nil {
			return out, err
		}
		if err := check(t); err != nil {
			return out, err
		}
		if t, err = t.PrepareChangeFor(ctx, o.Write.Now(), o.Write.Logger, o.Write.Metadata); err != nil {
			return out, err
		}
		var next *timeline.Instant
		for _, in := range t.Timeline.PendingCompactions() {
			if in.Action == spec.ActionCompaction {
				in := in
				next = &in
				break
			}
		}
		if next == nil {
			return out, nil
		}
		r, err := execute(ctx, t, *next, o)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func execute(ctx context.Context, t *table.Table, in timeline.Instant, o Options) (*Result, error) {
	st := t.Storage
	plan, err := readPlan(ctx, t, in)
	if err != nil {
		return nil, err
	}
	txn, err := o.timeline(st).BeginCompaction(ctx, t.Timeline, in)
	if err != nil {
		return nil, err
	}
	defer txn.Close()
	// A killed run left files of this instant: delete them and their markers.
	partitions := map[string]bool{}
	for _, op := range plan.Operations {
		partitions[op.PartitionPath] = true
	}
	for p := range partitions {
		if err := deletePartial(ctx, st, p, in.Time); err != nil {
			return nil, err
		}
	}
	_ = storage.DeleteTree(ctx, st, storage.Join(commit.TempDir, string(in.Time)))

	svc, err := write.ServiceSchemaFor(ctx, t, in.Time)
	if err != nil {
		return nil, err
	}
	avroSchema, data := svc.AvroSchema, svc.Data
	full := schema.WithMetaFields(data)
	avroWithMeta, err := schema.WithMetaFieldsAvro(avroSchema)
	if err != nil {
		return nil, err
	}
	rules, err := t.Config.MergeRules()
	if err != nil {
		return nil, err
	}
	ordering := ""
	if of := t.Config.OrderingFields(); len(of) > 0 && schema.FieldIndex(full, of[0]) >= 0 {
		ordering = full.Field(schema.FieldIndex(full, of[0])).Name
	}
	vis := fsview.NewVisibility(t.Timeline, "")
	fgOpts := filegroup.Options{
		Schema:              full,
		MetaFieldsPopulated: true,
		OrderingField:       ordering,
		Rules:               rules,
		Committed:           vis.Committed,
		Mem:                 o.Write.Mem,
		Logger:              o.Write.Logger,
		MaxLogMemory:        o.MaxLogMemory,
		SpillDir:            o.SpillDir,
		// The base file is decoded while the logs are scanned, a few batches ahead (within
		// a sixteenth of the budget; see filegroup.Options.BasePrefetch).
		BasePrefetch: 4,
		Evolution:    svc.Evolution,
	}
	if err := virtualKeyOptions(t, full, &fgOpts, o.Write.WriterProps); err != nil {
		return nil, err
	}
	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Write.Logger})
	if err != nil {
		return nil, err
	}
	replaced, err := t.ReplacedFileGroups(ctx, "")
	if err != nil {
		return nil, err
	}
	view, err := fsview.Build(ctx, listing, t.Timeline, fsview.Options{Replaced: replaced})
	if err != nil {
		return nil, err
	}
	groups := map[string]*fsview.FileGroup{}
	for _, g := range view.Groups {
		groups[g.Partition+"/"+string(g.FileID)] = g
	}
	// A file group an insert_overwrite (or insert_overwrite_table, delete_partition)
	// replaced after the plan was made is retired: no reader sees it, and the cleaner
	// removes it. Its operation is skipped, so the plan completes instead of failing for
	// good; its compacted slice would be as invisible as the group (Java's file-system
	// view drops replaced groups: AbstractTableFileSystemView.isFileGroupReplaced).
	ops := plan.Operations[:0:0]
	for _, op := range plan.Operations {
		if replaced[op.PartitionPath][spec.FileID(op.FileID)] {
			o.Write.Logger.Info("compaction skips a replaced file group", "instant", in.Time, "partition", op.PartitionPath, "file_id", op.FileID)
			continue
		}
		ops = append(ops, op)
	}
	plan.Operations = ops
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, Compacted: true,
		ExtraMetadata: svc.ExtraMetadata(), OperationType: "COMPACT"}
	res := &Result{Instant: string(in.Time), Action: string(spec.ActionCommit), Operation: "compact"}
	// Every slice is resolved before any is written: a plan that no longer matches the
	// table fails without leaving files behind.
	planned := make([]fsview.FileSlice, len(plan.Operations))
	for i, op := range plan.Operations {
		if planned[i], err = sliceFor(groups, op); err != nil {
			return nil, fmt.Errorf("compaction %s: %w", in.Time, err)
		}
	}
	// A table with CDC on whose writes yield pure log files logs the changes here.
	changeLog := func(sl fsview.FileSlice, task int) (*write.ChangeLog, error) {
		return write.NewChangeLog(t, o.Write.IndexType, avroSchema, full, o.Write.LogDataBlockMaxSize, st, txn, sl.Partition, sl.FileID, task)
	}
	stats, err := compactAll(ctx, st, txn, planned, plan.Operations, full, avroWithMeta, fgOpts, o, changeLog)
	if err != nil {
		return nil, fmt.Errorf("compaction %s: %w", in.Time, err)
	}
	for i, op := range plan.Operations {
		meta.PartitionToWriteStats[op.PartitionPath] = append(meta.PartitionToWriteStats[op.PartitionPath], stats[i])
		res.FilesWritten++
		res.Bytes += stats[i].TotalWriteBytes
	}
	// Complete holds the table lock while it publishes.
	if err := txn.Complete(ctx, meta); err != nil {
		return nil, err
	}
	res.Completed = true
	return res, nil
}

// sliceFor finds the slice a plan operation compacts: the group's slice with the
// operation's base instant, restricted to the planned log files.
func sliceFor(groups map[string]*fsview.FileGroup, op commitmeta.CompactionOperation) (fsview.FileSlice, error) {
	g := groups[op.PartitionPath+"/"+op.FileID]
	if g == nil {
		return fsview.FileSlice{}, fmt.Errorf("file group %s/%s of the plan is not in the table", op.PartitionPath, op.FileID)
	}
	var found *fsview.FileSlice
	for i := range g.Slices {
		if string(g.Slices[i].BaseInstant) == op.BaseInstantTime {
			found = &g.Slices[i]
		}
	}
	if found == nil {
		return fsview.FileSlice{}, fmt.Errorf("file group %s/%s has no slice with base instant %s", op.PartitionPath, op.FileID, op.BaseInstantTime)
	}
	sl := *found
	if op.DataFilePath != "" && (sl.Base == nil || sl.Base.Name.String() != op.DataFilePath) {
		return fsview.FileSlice{}, fmt.Errorf("base file %s of the plan is not the slice's committed base file", op.DataFilePath)
	}
	want := map[string]bool{}
	for _, d := range op.DeltaFilePaths {
		want[d] = true
	}
	sl.Logs = nil
	for _, l := range found.Logs {
		if want[l.Name.String()] {
			sl.Logs = append(sl.Logs, l)
			delete(want, l.Name.String())
		}
	}
	if len(want) > 0 {
		var missing []string
		for d := range want {
			missing = append(missing, d)
		}
		sort.Strings(missing)
		return fsview.FileSlice{}, fmt.Errorf("log files of the plan are missing: %s", strings.Join(missing, ", "))
	}
	return sl, nil
}

// compactAll compacts the slices of ops (ops[i] is planned[i]) into their new base files,
// Options.Write.Parallelism file groups at a time (default GOMAXPROCS), and returns their
// write stats in plan order. The first failure stops the rest.
//
// The log memory budget is shared by the groups compacted at once: it bounds what the
// compaction holds, as a user sizing hoodie.memory.compaction.max.size for the machine
// expects, rather than what each group holds (Java's, per Spark task, multiplies with the
// executor's cores). Each group also holds its output's open row group
// (hoodie.parquet.block.size) and one log block.
func compactAll(ctx context.Context, st storage.Storage, txn *commit.Txn, planned []fsview.FileSlice, ops []commitmeta.CompactionOperation,
	full *arrow.Schema, avroWithMeta string, fgOpts filegroup.Options, o Options,
	changeLog func(fsview.FileSlice, int) (*write.ChangeLog, error)) ([]commitmeta.WriteStat, error) {
	workers := o.Write.Parallelism
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(ops)))
	if workers > 1 && fgOpts.MaxLogMemory >= 0 {
		budget := fgOpts.MaxLogMemory
		if budget == 0 {
			budget = filegroup.DefaultMaxLogMemory
		}
		fgOpts.MaxLogMemory = max(1, budget/int64(workers))
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stats := make([]commitmeta.WriteStat, len(ops))
	errs := make([]error, len(ops))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				op := ops[i]
				stats[i], errs[i] = compactSlice(wctx, st, txn, planned[i], op, i, full, avroWithMeta, fgOpts, o, changeLog)
				if errs[i] != nil {
					errs[i] = fmt.Errorf("file group %s/%s: %w", op.PartitionPath, op.FileID, errs[i])
					cancel()
				}
			}
		})
	}
feed:
	for i := range ops {
		select {
		case next <- i:
		case <-wctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The failure that stopped the others, not the cancellations it caused.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return stats, nil
}

// compactSlice writes one file slice's merged records into its new base file. The merge
// (reading the base file, looking up keys, emitting log records) runs on this goroutine
// and the Parquet encoding of the output on another, a batch or two behind: the two take
// about the same time, and overlapping them is what a second core can do for one file
// group.
func compactSlice(ctx context.Context, st storage.Storage, txn *commit.Txn, sl fsview.FileSlice, op commitmeta.CompactionOperation, task int,
	full *arrow.Schema, avroWithMeta string, fgOpts filegroup.Options, o Options,
	changeLog func(fsview.FileSlice, int) (*write.ChangeLog, error)) (commitmeta.WriteStat, error) {
	start := time.Now()
	cl, err := changeLog(sl, task)
	if err != nil {
		return commitmeta.WriteStat{}, err
	}
	var changes *sliceChanges
	if cl != nil {
		changes = newSliceChanges(cl, &fgOpts)
	}
	bw, err := write.NewBaseFileWriter(ctx, st, txn, write.BaseFileSpec{Partition: sl.Partition, FileID: sl.FileID, Task: task,
		Prev: spec.InstantTime(op.BaseInstantTime), Schema: full, AvroSchema: avroWithMeta, VirtualKeys: !fgOpts.MetaFieldsPopulated}, o.Write)
	if err != nil {
		return commitmeta.WriteStat{}, err
	}
	var ls filegroup.LogStats
	fgOpts.LogStats = &ls
	rctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	batches := make(chan arrow.Record, 1)
	written := make(chan error, 1)
	go func() {
		var err error
		for rec := range batches {
			if err == nil {
				if err = writeConformed(o.Write.Mem, bw, rec, full); err != nil {
					stop(err) // the merge stops at its next batch
				}
			}
			rec.Release()
		}
		written <- err
	}()
	err = filegroup.Read(rctx, st, sl, fgOpts, func(rec arrow.Record) error {
		if err := changes.merged(rec); err != nil {
			return err
		}
		rec.Retain()
		select {
		case batches <- rec:
			return nil
		case <-rctx.Done():
			rec.Release()
			return context.Cause(rctx)
		}
	})
	close(batches)
	if werr := <-written; werr != nil {
		err = werr // the cause of the merge's error, if it has one
	}
	if err != nil {
		bw.Abort()
		return commitmeta.WriteStat{}, err
	}
	stat, err := bw.Close(ctx)
	if err != nil {
		return stat, err
	}
	var logSize int64
	for _, l := range sl.Logs {
		logSize += l.Size
	}
	stat.PrevCommit = op.BaseInstantTime
	// The compacted base file (Hudi 1.x records it; 0.14's JSON has no such field).
	stat.PrevBaseFile = op.DataFilePath
	stat.TotalLogFilesCompacted = int64(len(sl.Logs))
	stat.TotalLogSizeCompacted = logSize
	stat.TotalLogRecords = ls.Records
	stat.TotalLogBlocks = ls.Blocks
	stat.TotalCorruptLogBlock = ls.CorruptBlocks
	stat.TotalRollbackBlocks = ls.RollbackBlocks
	// As Java 0.14's HoodieMergeHandle and HoodieCompactor count them (LogStats).
	stat.TotalUpdatedRecordsCompacted = ls.MergedKeys
	stat.NumUpdateWrites = ls.Updated
	stat.NumDeletes = ls.Deleted
	stat.NumInserts = ls.Inserted
	stat.RuntimeStats = &commitmeta.RuntimeStats{TotalUpsertTime: time.Since(start).Milliseconds()}
	if changes != nil {
		changes.log()
		if stat.CDCStats, err = cl.Write(ctx, stat.NumWrites, ls.Inserted); err != nil {
			return stat, err
		}
	}
	return stat, nil
}

// sliceChanges collects a compaction's changes to a file group, as Java's
// HoodieMergeHandleWithChangeLog sees them: a stored record replaced by a log record is an
// update, one a log record deletes a delete, a log record of a new key an insert; a stored
// record whose log record lost the merge, or that has none, is no change. The merge reports
// the stored records it drops (filegroup.Options.OnBaseDropped) and then emits the log
// records that won, after the stored ones (OnBaseDone).
type sliceChanges struct {
	cl       *write.ChangeLog
	dropped  map[string]int // key → index in order
	order    []droppedRecord
	baseDone bool
	inserts  []insertedRecord
}

type droppedRecord struct {
	key           string
	before, after []byte
	updated       bool
}

type insertedRecord struct {
	key   string
	after []byte
}

// newSliceChanges hooks a change collector into the merge options.
func newSliceChanges(cl *write.ChangeLog, fgOpts *filegroup.Options) *sliceChanges {
	c := &sliceChanges{cl: cl, dropped: map[string]int{}}
	fgOpts.OnBaseDropped = func(key string, rec arrow.Record, i int) error {
		img, err := cl.BeforeImage(rec, i)
		if err != nil {
			return err
		}
		key = strings.Clone(key)
		c.dropped[key] = len(c.order)
		c.order = append(c.order, droppedRecord{key: key, before: img})
		return nil
	}
	fgOpts.OnBaseDone = func() error {
		c.baseDone = true
		return nil
	}
	return c
}

// merged takes a batch of the compaction's output: once the stored records are merged, the
// log records that won.
func (c *sliceChanges) merged(rec arrow.Record) error {
	if c == nil || !c.baseDone {
		return nil
	}
	keys := rec.Column(2).(*array.String)
	for i := 0; i < int(rec.NumRows()); i++ {
		img, err := c.cl.AfterImage(rec, i)
		if err != nil {
			return err
		}
		if d, ok := c.dropped[keys.Value(i)]; ok {
			c.order[d].updated, c.order[d].after = true, img
			continue
		}
		c.inserts = append(c.inserts, insertedRecord{key: strings.Clone(keys.Value(i)), after: img})
	}
	return nil
}

// log hands the changes to the change log in Java's order: the stored records' changes in
// base-file order, then the inserts.
func (c *sliceChanges) log() {
	for _, d := range c.order {
		if d.updated {
			c.cl.Add(cdc.Update, d.key, d.before, d.after)
		} else {
			c.cl.Add(cdc.Delete, d.key, d.before, nil)
		}
	}
	for _, in := range c.inserts {
		c.cl.Add(cdc.Insert, in.key, nil, in.after)
	}
}

// virtualKeyOptions keys a virtual-key table's base and log records with its key
// generator (hoodie.populate.meta.fields=false): Java's compactor merges them by the
// record-key field and copies their null meta values into the compacted file, whose
// _hoodie_file_name is its own name and whose footer has no bloom filter. The
// compaction's explicit settings fill the key generator settings hoodie.properties lacks
// (table.Config.KeyGen), as a write's do.
func virtualKeyOptions(t *table.Table, full *arrow.Schema, fgOpts *filegroup.Options, writerProps map[string]string) error {
	if t.Config.PopulateMetaFields() {
		return nil
	}
	gen, err := t.Config.KeyGen(full, writerProps)
	if err != nil {
		return fmt.Errorf("table %s has no meta fields and its key generator cannot be built: %w", t.Config.Name(), err)
	}
	fgOpts.MetaFieldsPopulated = false
	for _, f := range t.Config.RecordKeyFields() {
		top, _, _ := strings.Cut(f, ".")
		fgOpts.KeyFields = append(fgOpts.KeyFields, top)
	}
	fgOpts.RecordKey = gen.RecordKey
	return nil
}

// writeConformed writes a merged batch in the output schema.
func writeConformed(mem memory.Allocator, bw *write.BaseFileWriter, rec arrow.Record, full *arrow.Schema) error {
	conformed, err := schema.ConformRecord(mem, rec, full)
	if err != nil {
		return err
	}
	defer conformed.Release()
	return bw.Write(conformed)
}

// deletePartial removes the base files a killed run of instant wrote in partition.
func deletePartial(ctx context.Context, st storage.Storage, partition string, instant spec.InstantTime) error {
	entries, err := st.List(ctx, partition)
	if errors.Is(err, storage.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		name := e.Name
		// The temp file of a base file the killed run was writing (".<name>.tmp-<n>",
		// storage/local) is its output too: this run holds the instant's heartbeat.
		if i := strings.LastIndex(name, ".tmp-"); strings.HasPrefix(name, ".") && i > 1 {
			name = name[1:i]
		}
		if b, ok := spec.ParseBaseFileName(name); ok && b.Instant == instant {
			if err := st.Delete(ctx, storage.Join(partition, e.Name)); err != nil && !errors.Is(err, storage.ErrNotExist) {
				return fmt.Errorf("delete partial compaction output %s: %w", storage.Join(partition, e.Name), err)
			}
		}
	}
	return nil
}

// Run schedules and/or executes: with schedule it plans a new compaction (if any group
// has log files), with run it executes every pending compaction (including the one just
// planned). The result describes the last compaction committed, or the plan.
func Run(ctx context.Context, st storage.Storage, doSchedule, doRun bool, o Options) (*Result, error) {
	res := &Result{Action: string(spec.ActionCommit), Operation: "compact"}
	if doSchedule {
		inst, _, err := Schedule(ctx, st, o)
		if err != nil {
			return nil, err
		}
		res.Scheduled = string(inst)
		res.Instant = string(inst)
		if inst == "" {
			res.Message = "nothing to compact: no file group has log files"
		}
	}
	if doRun {
		done, err := Execute(ctx, st, o)
		if err != nil {
			return nil, err
		}
		for _, r := range done {
			res.Instant = r.Instant
			res.FilesWritten += r.FilesWritten
			res.Bytes += r.Bytes
			res.Completed = true
		}
		if len(done) > 0 {
			res.Message = ""
		} else if res.Message == "" {
			res.Message = "no pending compaction to run"
		}
	}
	return res, nil
}
