// Package clustering is the clustering table service for table version 6, after Java
// 0.14's SparkSizeBasedClusteringPlanStrategy and SparkSortAndSizeExecutionStrategy:
// scheduling packs small base files of each partition into groups and writes the plan as
// <C>.replacecommit.requested (Avro HoodieRequestedReplaceMetadata, operationType
// CLUSTER); executing rewrites each group's merged rows (base + logs), sorted by the sort
// columns if any, into new file groups and publishes <C>.replacecommit with
// partitionToReplaceFileIds naming the input groups. Rows keep their _hoodie_commit_time
// and _hoodie_commit_seqno by default (hoodie.clustering.preserve.commit.metadata), so a
// clustering adds no records to incremental queries.
//
// While a plan is pending, its input groups stay readable (the output files belong to an
// uncommitted instant) and writers must not update them (write's clustering guard).
package clustering

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/internal/write/index"
	"github.com/hudi-go/hudi/storage"
)

// Options configure planning and execution. OptionsFromConfig fills them from hoodie.*
// settings with Hudi 0.14.1's defaults; zero sizes and counts take those defaults too.
type Options struct {
	SmallFileLimit     int64 // hoodie.clustering.plan.strategy.small.file.limit (300 MB)
	MaxBytesPerGroup   int64 // hoodie.clustering.plan.strategy.max.bytes.per.group (2 GB)
	MaxNumGroups       int   // hoodie.clustering.plan.strategy.max.num.groups (30)
	TargetFileMaxBytes int64 // hoodie.clustering.plan.strategy.target.file.max.bytes (1 GB)
	SortColumns        []string
	// SingleGroup is hoodie.clustering.plan.strategy.single.group.clustering.enabled:
	// whether a group of one file slice is worth rewriting.
	SingleGroup bool
	// PartitionFilterMode is hoodie.clustering.plan.partition.filter.mode (NONE,
	// RECENT_DAYS, SELECTED_PARTITIONS) with its parameters.
	PartitionFilterMode          string
	LookbackPartitions           int
	SkipFromLatest               int
	BeginPartition, EndPartition string
	PartitionRegex               string
	PartitionSelected            string
	// PreserveCommitMetadata is hoodie.clustering.preserve.commit.metadata.
	PreserveCommitMetadata bool
	// ExecutionStrategyClass is recorded in the plan (hoodie.clustering.execution.strategy.class).
	ExecutionStrategyClass string
	// Write carries the Parquet and bloom settings of the new base files, the clock,
	// logger, allocator and timeline zone. Write.MaxFileSize is hoodie.parquet.max.file.size,
	// the size planning assumes for a slice without base file.
	Write write.Options
	// Heartbeat configures the executor's heartbeat.
	Heartbeat commit.HeartbeatOptions
	// Concurrency holds the table lock, taken while a plan is made and written, while a
	// killed run is rolled back and while the replacecommit is published; the rewrite
	// itself runs without it (zero value: no lock).
	Concurrency commit.Concurrency
}

// DefaultOptions are Hudi 0.14.1's clustering defaults. The zero Options differ in its
// booleans (SingleGroup and PreserveCommitMetadata are true by default).
func DefaultOptions() Options {
	o, _ := OptionsFromConfig(config.New())
	return o
}

// OptionsFromConfig reads the clustering settings (defaults included) from cfg.
func OptionsFromConfig(cfg *config.Config) (Options, error) {
	o := Options{
		SmallFileLimit:         cfg.Long(config.ClusteringPlanSmallFileLimit),
		MaxBytesPerGroup:       cfg.Long(config.ClusteringMaxBytesPerGroup),
		MaxNumGroups:           cfg.Int(config.ClusteringMaxNumGroups),
		TargetFileMaxBytes:     cfg.Long(config.ClusteringTargetFileMaxBytes),
		SortColumns:            cfg.List(config.ClusteringSortColumns),
		SingleGroup:            cfg.Bool(config.ClusteringSingleGroupEnabled),
		PartitionFilterMode:    cfg.String(config.ClusteringPlanPartitionFilterMode),
		LookbackPartitions:     cfg.Int(config.ClusteringTargetPartitions),
		SkipFromLatest:         cfg.Int(config.ClusteringSkipPartitionsFromLatest),
		BeginPartition:         cfg.String(config.ClusteringBeginPartition),
		EndPartition:           cfg.String(config.ClusteringEndPartition),
		PartitionRegex:         cfg.String(config.ClusteringPartitionRegexPattern),
		PartitionSelected:      cfg.String(config.ClusteringPartitionSelected),
		PreserveCommitMetadata: cfg.Bool(config.ClusteringPreserveCommitMetadata),
		ExecutionStrategyClass: cfg.String(config.ClusteringExecutionStrategyClass),
	}
	if index.Type(cfg.String(config.IndexType)) == index.TypeBucket { // config spells enums in upper case
		// Clustering writes new file groups with fresh file ids; the bucket index finds a
		// bucket by the number its group's file id starts with, so it would then start a
		// second group for every clustered bucket. Java clusters bucket tables only with the
		// consistent-hashing engine (UNVERIFIED for 0.14's simple engine).
		return o, fmt.Errorf("clustering a table written with %s=BUCKET is %w: the new file groups would lose their bucket numbers",
			config.IndexType.Name, write.ErrUnsupported)
	}
	if c := cfg.String(config.ClusteringPlanStrategyClass); !strings.HasSuffix(c, ".SparkSizeBasedClusteringPlanStrategy") &&
		!strings.HasSuffix(c, ".JavaSizeBasedClusteringPlanStrategy") {
		return o, fmt.Errorf("%s=%s: only the size-based plan strategy is %w", config.ClusteringPlanStrategyClass.Name, c, write.ErrUnsupported)
	}
	if c := o.ExecutionStrategyClass; !strings.HasSuffix(c, "SortAndSizeExecutionStrategy") {
		return o, fmt.Errorf("%s=%s: only the sort-and-size execution strategy is %w", config.ClusteringExecutionStrategyClass.Name, c, write.ErrUnsupported)
	}
	if l := cfg.String(config.LayoutOptimizeStrategy); len(o.SortColumns) > 0 && !strings.EqualFold(l, "LINEAR") {
		return o, fmt.Errorf("%s=%s: only LINEAR ordering is %w", config.LayoutOptimizeStrategy.Name, l, write.ErrUnsupported)
	}
	return o, nil
}

func (o Options) withDefaults() Options {
	var defaults *config.Config // nil: every key reads as its default
	if o.SmallFileLimit <= 0 {
		o.SmallFileLimit = defaults.Long(config.ClusteringPlanSmallFileLimit)
	}
	if o.MaxBytesPerGroup <= 0 {
		o.MaxBytesPerGroup = defaults.Long(config.ClusteringMaxBytesPerGroup)
	}
	if o.MaxNumGroups <= 0 {
		o.MaxNumGroups = defaults.Int(config.ClusteringMaxNumGroups)
	}
	if o.TargetFileMaxBytes <= 0 {
		o.TargetFileMaxBytes = defaults.Long(config.ClusteringTargetFileMaxBytes)
	}
	if o.ExecutionStrategyClass == "" {
		o.ExecutionStrategyClass = defaults.String(config.ClusteringExecutionStrategyClass)
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

// timeline is the handle a clustering changes the timeline of the table rooted at st
// through: the write settings' clock, zone and logger, the executor's heartbeat (Heartbeat)
// and the concurrency settings' lock (o with its defaults).
func (o Options) timeline(st storage.Storage) *commit.Timeline {
	return commit.NewTimeline(st, commit.TimelineOptions{Now: o.Write.Now, Zone: o.Write.TimelineZone, Heartbeat: o.Heartbeat,
		Lock: o.Concurrency.Lock, Logger: o.Write.Logger, Metadata: o.Write.Metadata})
}

// Result summarizes a clustering (the CLI's --format json object).
type Result struct {
	Instant      string `json:"instant"`
	Action       string `json:"action"`
	Operation    string `json:"operation"`
	FilesWritten int    `json:"files_written"`
	Bytes        int64  `json:"bytes"`
	// Scheduled is the instant of a plan written by this call ("" if none).
	Scheduled string `json:"scheduled,omitempty"`
	// Completed is true when a clustering replacecommit was published.
	Completed bool `json:"completed"`
	// RolledBack lists rollback instants that undid killed clustering runs before
	// re-executing them.
	RolledBack []string `json:"rolled_back,omitempty"`
	// Plan describes the plan scheduled (or, with a dry run, the one that would be).
	Plan *PlanSummary `json:"plan,omitempty"`
	// Message explains a no-op ("nothing to cluster").
	Message string `json:"message,omitempty"`
}

// PlanSummary is a readable form of a clustering plan.
type PlanSummary struct {
	Groups []GroupSummary `json:"groups"`
}

// GroupSummary is one clustering group.
type GroupSummary struct {
	Partition           string   `json:"partition"`
	FileIDs             []string `json:"file_ids"`
	InputBytes          int64    `json:"input_bytes"`
	NumOutputFileGroups int      `json:"num_output_file_groups"`
}

// Summarize describes plan m. Group input sizes come from inputBytes when given, else
// from the TOTAL_IO_READ_MB metric (whole megabytes).
func Summarize(m *commitmeta.RequestedReplaceMetadata, inputBytes []int64) *PlanSummary {
	if m == nil || m.ClusteringPlan == nil {
		return nil
	}
	s := &PlanSummary{Groups: []GroupSummary{}}
	for i, g := range m.ClusteringPlan.InputGroups {
		gs := GroupSummary{NumOutputFileGroups: int(g.NumOutputFileGroups)}
		for _, sl := range g.Slices {
			gs.Partition = sl.PartitionPath
			gs.FileIDs = append(gs.FileIDs, sl.FileID)
		}
		if i < len(inputBytes) {
			gs.InputBytes = inputBytes[i]
		} else {
			gs.InputBytes = int64(g.Metrics[MetricTotalIOReadMB]) << 20
		}
		s.Groups = append(s.Groups, gs)
	}
	return s
}

func check(t *table.Table) error {
	switch {
	case !t.Timeline.Layout.Writes(timeline.OpClustering):
		return t.CheckLayoutWrites(timeline.OpClustering)
	case t.Type != spec.CopyOnWrite && t.Type != spec.MergeOnRead:
		return fmt.Errorf("table %s is %s: clustering is %w", t.Config.Name(), t.Type, write.ErrUnsupported)
	case !t.Config.PopulateMetaFields():
		return fmt.Errorf("table %s does not populate meta fields: clustering is %w", t.Config.Name(), write.ErrUnsupported)
	case t.Config.BaseFileFormat() != "PARQUET":
		return fmt.Errorf("table %s has base file format %s: clustering is %w", t.Config.Name(), t.Config.BaseFileFormat(), write.ErrUnsupported)
	}
	return nil
}

// Schedule plans a clustering (see Plan) and writes it as <C>.replacecommit.requested
// (table version 6) or <C>.clustering.requested (8, 9).
// It returns "" and a nil plan when there is nothing to cluster.
func Schedule(ctx context.Context, st storage.Storage, o Options) (spec.InstantTime, *commitmeta.RequestedReplaceMetadata, error) {
	o = o.withDefaults()
	// Under the lock the plan sees every write that committed before it; a write still
	// running fails its commit on this plan (commit.ResolveConflicts).
	ct := o.timeline(st)
	release, err := ct.Lock(ctx, "schedule clustering")
	if err != nil {
		return "", nil, err
	}
	defer release()
	t, err := table.Open(ctx, st)
	if err != nil {
		return "", nil, err
	}
	if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, "schedule clustering"); err != nil {
		return "", nil, err
	}
	if err := check(t); err != nil {
		return "", nil, err
	}
	if t, err = t.PrepareChangeFor(ctx, o.Write.Now(), o.Write.Logger, o.Write.Metadata); err != nil {
		return "", nil, err
	}
	m, _, err := plan(ctx, t, o)
	if err != nil || m == nil {
		return "", nil, err
	}
	body, err := commitmeta.EncodeRequestedReplace(t.Timeline.Layout.RequestedReplaceSchema(), m)
	if err != nil {
		return "", nil, err
	}
	inst, err := ct.RequestClustering(ctx, t.Timeline, body)
	if err != nil {
		return "", nil, err
	}
	return inst, m, nil
}

func readPlan(ctx context.Context, t *table.Table, in timeline.Instant) (*commitmeta.RequestedReplaceMetadata, error) {
	b, err := t.Timeline.ReadRequested(ctx, t.Storage, in)
	if err != nil {
		return nil, err
	}
	m, err := commitmeta.DecodeRequestedReplace(b)
	if err != nil {
		return nil, fmt.Errorf("clustering plan %s: %w", in.Time, err)
	}
	if m.ClusteringPlan == nil {
		return nil, fmt.Errorf("clustering plan %s: requested replace metadata holds no clustering plan", in.Time)
	}
	return m, nil
}

// Execute runs pending clusterings, oldest first, and returns one result per clustering
// committed. only, when not empty, restricts it to that instant (inline clustering runs
// just the plan it scheduled, as Java does). A run killed earlier is first rolled back
// with a rollback instant (its output files deleted, the plan kept) and then re-executed,
// as Java's table service client does before executing an inflight clustering.
func Execute(ctx context.Context, st storage.Storage, only spec.InstantTime, o Options) ([]*Result, error) {
	o = o.withDefaults()
	var out []*Result
	done := map[spec.InstantTime]bool{}
	for {
		t, err := table.Open(ctx, st)
		if err != nil {
			return out, err
		}
		if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, "run clustering"); err != nil {
			return out, err
		}
		if err := check(t); err != nil {
			return out, err
		}
		if t, err = t.PrepareChangeFor(ctx, o.Write.Now(), o.Write.Logger, o.Write.Metadata); err != nil {
			return out, err
		}
		pending, err := commit.PendingClustering(ctx, st, t.Timeline)
		if err != nil {
			return out, err
		}
		var next *timeline.Instant
		for _, in := range pending {
			if (only == "" || in.Time == only) && !done[in.Time] {
				in := in
				next = &in
				break
			}
		}
		if next == nil {
			return out, nil
		}
		done[next.Time] = true
		r := &Result{Instant: string(next.Time), Action: string(spec.ActionReplaceCommit), Operation: "cluster"}
		if _, inflight := next.File(spec.StateInflight); inflight {
			ct := o.timeline(st)
			release, err := ct.Lock(ctx, "roll back a killed clustering run")
			if err != nil {
				return out, err
			}
			rb, err := ct.RollbackInflightClustering(ctx, t.Timeline, *next)
			release()
			if err != nil {
				return out, err
			}
			o.Write.Logger.Warn("rolled back a killed clustering run before re-executing it", "instant", next.Time, "rollback", rb)
			r.RolledBack = append(r.RolledBack, string(rb))
			if t, err = table.Open(ctx, st); err != nil {
				return out, err
			}
			in, ok := t.Timeline.Get(next.Time, spec.ActionReplaceCommit)
			if !ok {
				return out, fmt.Errorf("clustering %s: the plan is gone after rolling back its killed run", next.Time)
			}
			next = &in
		}
		if err := execute(ctx, t, *next, o, r); err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// Run schedules and/or executes: with schedule it plans a new clustering (if any group
// qualifies), with run it executes every pending clustering (including the one just
// planned). The result describes the last clustering committed, or the plan.
func Run(ctx context.Context, st storage.Storage, doSchedule, doRun bool, o Options) (*Result, error) {
	res := &Result{Action: string(spec.ActionReplaceCommit), Operation: "cluster"}
	if doSchedule {
		inst, m, err := Schedule(ctx, st, o)
		if err != nil {
			return nil, err
		}
		res.Scheduled, res.Instant = string(inst), string(inst)
		res.Plan = Summarize(m, nil)
		if inst == "" {
			res.Message = "nothing to cluster: no partition has small file groups to rewrite"
		}
	}
	if doRun {
		done, err := Execute(ctx, st, "", o)
		if err != nil {
			return nil, err
		}
		for _, r := range done {
			res.Instant = r.Instant
			res.FilesWritten += r.FilesWritten
			res.Bytes += r.Bytes
			res.RolledBack = append(res.RolledBack, r.RolledBack...)
			res.Completed = true
		}
		if len(done) > 0 {
			res.Message = ""
		} else if res.Message == "" {
			res.Message = "no pending clustering to run"
		}
	}
	return res, nil
}

// DryRun returns the plan Schedule would write, without writing it.
func DryRun(ctx context.Context, st storage.Storage, o Options) (*Result, error) {
	o = o.withDefaults()
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	m, sizes, err := plan(ctx, t, o)
	if err != nil {
		return nil, err
	}
	res := &Result{Action: string(spec.ActionReplaceCommit), Operation: "cluster", Plan: Summarize(m, sizes)}
	if m == nil {
		res.Message = "nothing to cluster: no partition has small file groups to rewrite"
	}
	return res, nil
}
