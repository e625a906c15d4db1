package clustering

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/storage"
)

// Metric names of HoodieClusteringGroup.metrics (Java's FileSliceMetricUtils).
const (
	MetricTotalIOReadMB     = "TOTAL_IO_READ_MB"
	MetricTotalIOWriteMB    = "TOTAL_IO_WRITE_MB"
	MetricTotalIOMB         = "TOTAL_IO_MB"
	MetricTotalLogFilesSize = "TOTAL_LOG_FILES_SIZE"
	MetricTotalLogFiles     = "TOTAL_LOG_FILES"
)

// planVersion is ClusteringPlanStrategy's CLUSTERING_PLAN_VERSION_1; every nested record
// of the plan carries version 1 as well (the Avro defaults Java's builders keep).
const planVersion = 1

// Plan builds the clustering plan Java 0.14's SparkSizeBasedClusteringPlanStrategy would
// schedule now, without writing anything. It returns nil when there is nothing to cluster.
//
// Rules (PartitionAwareClusteringPlanStrategy, SparkSizeBasedClusteringPlanStrategy,
// ClusteringPlanStrategy, ClusteringPlanPartitionFilter):
//   - partitions: PartitionSelected (if set) or every partition, narrowed by
//     PartitionRegex, then by the filter mode (RECENT_DAYS: sort descending, skip
//     SkipFromLatest, keep LookbackPartitions; SELECTED_PARTITIONS: Begin ≤ p ≤ End);
//   - candidates: the latest slice of every file group not in a pending compaction or
//     clustering whose base file is smaller than SmallFileLimit (a slice without base
//     file counts as size 0 here);
//   - per partition, candidates sorted by size descending (a slice without base file
//     weighs hoodie.parquet.max.file.size) are packed into groups of at most
//     MaxBytesPerGroup (a slice that alone exceeds it still forms a group); a partition
//     stops at MaxNumGroups groups; the last group is kept when it has more than one slice,
//     or single-group clustering is on, or sort columns are set;
//   - each group produces ceil(bytes / TargetFileMaxBytes) output file groups;
//   - the plan holds at most MaxNumGroups groups, partitions in listing order.
func Plan(ctx context.Context, t *table.Table, o Options) (*commitmeta.RequestedReplaceMetadata, error) {
	m, _, err := plan(ctx, t, o.withDefaults())
	return m, err
}

// plan is Plan that also returns each group's input bytes (as packed).
func plan(ctx context.Context, t *table.Table, o Options) (*commitmeta.RequestedReplaceMetadata, []int64, error) {
	if err := check(t); err != nil {
		return nil, nil, err
	}
	if err := checkSortColumns(t, o.SortColumns); err != nil {
		return nil, nil, err
	}
	excluded, err := pendingFileGroups(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Write.Logger})
	if err != nil {
		return nil, nil, err
	}
	view, err := t.View(ctx, listing, "")
	if err != nil {
		return nil, nil, err
	}
	var partitions []string
	if o.PartitionSelected != "" {
		partitions = strings.Split(o.PartitionSelected, ",")
	} else {
		for _, p := range listing.Partitions {
			partitions = append(partitions, p.Path)
		}
		sort.Strings(partitions)
		if o.PartitionRegex != "" {
			// Java's Pattern.matches: the whole path must match.
			re, err := regexp.Compile(`^(?:` + o.PartitionRegex + `)$`)
			if err != nil {
				return nil, nil, fmt.Errorf("partition regex %q: %w", o.PartitionRegex, err)
			}
			kept := partitions[:0]
			for _, p := range partitions {
				if re.MatchString(p) {
					kept = append(kept, p)
				}
			}
			partitions = kept
		}
	}
	if partitions, err = filterPartitions(partitions, o); err != nil {
		return nil, nil, err
	}
	byPartition := map[string][]*fsview.FileSlice{}
	for _, g := range view.Groups {
		sl := g.Latest()
		if sl == nil || excluded[g.Partition+"/"+string(g.FileID)] {
			continue
		}
		var size int64
		if sl.Base != nil {
			size = sl.Base.Size
		}
		if size < o.SmallFileLimit {
			byPartition[g.Partition] = append(byPartition[g.Partition], sl)
		}
	}
	abs := absPath(t)
	var groups []commitmeta.ClusteringGroup
	var sizes []int64
	for _, p := range partitions {
		if len(groups) >= o.MaxNumGroups {
			break
		}
		for _, g := range buildGroups(byPartition[p], o) {
			if len(groups) >= o.MaxNumGroups {
				break
			}
			groups = append(groups, g.toAvro(abs, o))
			sizes = append(sizes, g.bytes)
		}
	}
	if len(groups) == 0 {
		return nil, nil, nil
	}
	params := map[string]string{}
	if len(o.SortColumns) > 0 {
		// The strategy parameter has the setting's name.
		params[config.ClusteringSortColumns.Name] = strings.Join(o.SortColumns, ",")
	}
	return &commitmeta.RequestedReplaceMetadata{
		OperationType: "CLUSTER",
		ClusteringPlan: &commitmeta.ClusteringPlan{
			InputGroups:            groups,
			Strategy:               &commitmeta.ClusteringStrategy{StrategyClassName: o.ExecutionStrategyClass, StrategyParams: params, Version: planVersion},
			ExtraMetadata:          map[string]string{},
			Version:                planVersion,
			PreserveHoodieMetadata: o.PreserveCommitMetadata,
		},
		ExtraMetadata: map[string]string{},
		Version:       planVersion,
	}, sizes, nil
}

// filterPartitions applies hoodie.clustering.plan.partition.filter.mode.
func filterPartitions(partitions []string, o Options) ([]string, error) {
	switch strings.ToUpper(o.PartitionFilterMode) {
	case "", "NONE":
		return partitions, nil
	case "RECENT_DAYS":
		sorted := append([]string(nil), partitions...)
		sort.Sort(sort.Reverse(sort.StringSlice(sorted)))
		skip := min(max(o.SkipFromLatest, 0), len(sorted))
		sorted = sorted[skip:]
		if o.LookbackPartitions > 0 && o.LookbackPartitions < len(sorted) {
			sorted = sorted[:o.LookbackPartitions]
		}
		return sorted, nil
	case "SELECTED_PARTITIONS":
		var out []string
		for _, p := range partitions {
			if p >= o.BeginPartition && p <= o.EndPartition {
				out = append(out, p)
			}
		}
		return out, nil
	}
	// DAY_ROLLING came after 0.14's ClusteringPlanPartitionFilter (UNVERIFIED for 0.14.1).
	return nil, fmt.Errorf("clustering partition filter mode %s is not supported", o.PartitionFilterMode)
}

type sliceGroup struct {
	slices []*fsview.FileSlice
	bytes  int64
}

// sliceWeight is the size the packing assumes for a slice: its base file, or a full
// base file (hoodie.parquet.max.file.size) when it has none.
func sliceWeight(sl *fsview.FileSlice, o Options) int64 {
	if sl.Base != nil {
		return sl.Base.Size
	}
	return o.Write.MaxFileSize
}

func buildGroups(slices []*fsview.FileSlice, o Options) []sliceGroup {
	sorted := append([]*fsview.FileSlice(nil), slices...)
	sort.SliceStable(sorted, func(i, j int) bool { return sliceWeight(sorted[i], o) > sliceWeight(sorted[j], o) })
	var out []sliceGroup
	var cur sliceGroup
	for _, sl := range sorted {
		w := sliceWeight(sl, o)
		if cur.bytes+w > o.MaxBytesPerGroup && len(cur.slices) > 0 {
			out = append(out, cur)
			cur = sliceGroup{}
			if len(out) >= o.MaxNumGroups {
				// Java stops here and drops the remaining slices of the partition.
				return out
			}
		}
		cur.slices = append(cur.slices, sl)
		cur.bytes += w
	}
	if len(cur.slices) > 1 || (len(cur.slices) == 1 && (o.SingleGroup || len(o.SortColumns) > 0)) {
		out = append(out, cur)
	}
	return out
}

func (g sliceGroup) toAvro(abs func(string) string, o Options) commitmeta.ClusteringGroup {
	out := commitmeta.ClusteringGroup{
		NumOutputFileGroups: int32((g.bytes + o.TargetFileMaxBytes - 1) / o.TargetFileMaxBytes),
		Version:             planVersion,
	}
	var logFiles, logSize, read, write int64
	for _, sl := range g.slices {
		info := commitmeta.SliceInfo{FileID: string(sl.FileID), PartitionPath: sl.Partition, Version: planVersion, DeltaFilePaths: []string{}}
		var base int64
		if sl.Base != nil {
			info.DataFilePath = abs(sl.Base.Path)
			base = sl.Base.Size
		}
		for _, l := range sl.Logs {
			info.DeltaFilePaths = append(info.DeltaFilePaths, abs(l.Path))
			logFiles++
			logSize += max(l.Size, 0)
		}
		read += base
		if base > 0 {
			write += base
		} else {
			write += o.Write.MaxFileSize
		}
		out.Slices = append(out.Slices, info)
	}
	readMB, writeMB := (read+logSize)>>20, write>>20
	out.Metrics = map[string]float64{
		MetricTotalIOReadMB:     float64(readMB),
		MetricTotalIOWriteMB:    float64(writeMB),
		MetricTotalIOMB:         float64(readMB + writeMB),
		MetricTotalLogFilesSize: float64(logSize),
		MetricTotalLogFiles:     float64(logFiles),
	}
	return out
}

// absPath names a table-relative path as Java's clustering plan does (HoodieSliceInfo's
// dataFilePath and deltaFilePaths: the file's Path.toString, with the scheme, e.g.
// "file:/tmp/…/region=apac/….parquet" in the fixture cow/v9_txns_simple_meta; the same
// BaseFile.getPath in 0.14, UNVERIFIED against a 0.14 plan: no v6 fixture has one).
func absPath(t *table.Table) func(string) string {
	return func(rel string) string { return storage.URI(t.Storage, rel) }
}

// pendingFileGroups returns "partition/fileID" of every file group in a pending
// compaction, log compaction or clustering: Java's ClusteringPlanStrategy leaves them out.
func pendingFileGroups(ctx context.Context, t *table.Table) (map[string]bool, error) {
	out := map[string]bool{}
	compacting, err := commit.PendingCompactionGroups(ctx, t.Storage, t.Timeline, false)
	if err != nil {
		return nil, err
	}
	for g := range compacting {
		out[g] = true
	}
	pending, err := commit.PendingClustering(ctx, t.Storage, t.Timeline)
	if err != nil {
		return nil, err
	}
	for _, in := range pending {
		m, err := readPlan(ctx, t, in)
		if err != nil {
			return nil, err
		}
		for p, ids := range m.InputFileIDs() {
			for _, id := range ids {
				out[p+"/"+id] = true
			}
		}
	}
	return out, nil
}

// CommitsSinceLastClustering counts the completed commits, deltacommits and
// replacecommits after the last clustering of the active timeline, as Java's
// ClusteringPlanActionExecutor does to decide whether inline clustering is due. What
// counts as the last clustering depends on the layout:
//
//   - layout 1 (Hudi 0.14): the last replacecommit in any state, insert_overwrite ones
//     included, as in Java 0.14;
//   - layout 2 (Hudi 1.x's getLastClusteringInstant): the last instant of the
//     replacecommit action that is a clustering (ClusteringUtils.isClusteringInstant) —
//     a completed clustering, or a pending replacecommit holding a clustering plan (a
//     table upgraded from version 6). A pending clustering (action "clustering") and an
//     insert_overwrite do not count.
func CommitsSinceLastClustering(ctx context.Context, t *table.Table) (int, error) {
	var last spec.InstantTime
	for _, in := range t.Timeline.Instants {
		if in.Action != spec.ActionReplaceCommit {
			continue
		}
		if t.Timeline.Layout.ClusteringAction() == spec.ActionClustering {
			clustering := in.Requested == spec.ActionClustering
			if !clustering && !in.IsCompleted() {
				var err error
				if clustering, err = commit.IsPendingClustering(ctx, t.Storage, t.Timeline, in); err != nil {
					return 0, err
				}
			}
			if !clustering {
				continue
			}
		}
		last = in.Time
	}
	n := 0
	for _, in := range t.Timeline.Instants {
		if !in.IsCompleted() || (last != "" && in.Time.Compare(last) <= 0) {
			continue
		}
		switch in.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit:
			n++
		}
	}
	return n, nil
}

// checkSortColumns refuses sorting by a partition column that the table leaves out of its
// data files (drop.partition.columns): the rows being clustered do not hold it, and within
// a partition it is one value anyway.
func checkSortColumns(t *table.Table, cols []string) error {
	for _, c := range cols {
		for _, d := range t.Config.DroppedPartitionFields() {
			if strings.EqualFold(strings.TrimSpace(c), d) {
				return fmt.Errorf("table %s: sort column %s is a partition column left out of data files (%s=true): clustering by it is %w",
					t.Config.Name(), d, table.KeyDropPartitionColumns, write.ErrUnsupported)
			}
		}
	}
	return nil
}
