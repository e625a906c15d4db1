package commitmeta

import "sort"

// CompactionPlan is HoodieCompactionPlan, the content of compaction.requested (and of
// logcompaction.requested).
type CompactionPlan struct {
	Operations    []CompactionOperation
	ExtraMetadata map[string]string
	Version       int32
	// Strategy is nil when null (as in all observed plans).
	Strategy                  *CompactionStrategy
	PreserveHoodieMetadata    bool
	MissingSchedulePartitions []string
}

// CompactionOperation is HoodieCompactionOperation: one file slice to compact.
type CompactionOperation struct {
	BaseInstantTime string
	// DeltaFilePaths are log file names (without directory) of the slice.
	DeltaFilePaths []string
	// DataFilePath is the base file name, "" for a slice without base file.
	DataFilePath      string
	FileID            string
	PartitionPath     string
	Metrics           map[string]float64
	BootstrapFilePath string
}

// CompactionStrategy is HoodieCompactionStrategy.
type CompactionStrategy struct {
	CompactorClassName string
	StrategyParams     map[string]string
	Version            int32
}

// DecodeCompactionPlan decodes a compaction.requested file. Empty input is an error
// (ErrEmpty).
func DecodeCompactionPlan(data []byte) (*CompactionPlan, error) {
	p := &CompactionPlan{}
	err := decodeInto(data, "compaction plan", false, func(r rec) {
		r.records("operations", func(e rec) {
			p.Operations = append(p.Operations, CompactionOperation{
				BaseInstantTime:   e.str("baseInstantTime"),
				DeltaFilePaths:    e.strList("deltaFilePaths"),
				DataFilePath:      e.str("dataFilePath"),
				FileID:            e.str("fileId"),
				PartitionPath:     e.str("partitionPath"),
				Metrics:           e.f64Map("metrics"),
				BootstrapFilePath: e.str("bootstrapFilePath"),
			})
		})
		p.ExtraMetadata = r.strMap("extraMetadata")
		p.Version = r.i32("version")
		if s, ok := r.record("strategy"); ok {
			p.Strategy = &CompactionStrategy{
				CompactorClassName: s.str("compactorClassName"),
				StrategyParams:     s.strMap("strategyParams"),
				Version:            s.i32("version"),
			}
		}
		p.PreserveHoodieMetadata = r.boolean("preserveHoodieMetadata")
		p.MissingSchedulePartitions = r.strList("missingSchedulePartitions")
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// RequestedReplaceMetadata is HoodieRequestedReplaceMetadata, the content of
// replacecommit.requested and (v8+) clustering.requested. For insert_overwrite all fields
// are null; for clustering OperationType is "CLUSTER" and ClusteringPlan is set.
type RequestedReplaceMetadata struct {
	OperationType  string
	ClusteringPlan *ClusteringPlan
	ExtraMetadata  map[string]string
	Version        int32
}

// ClusteringPlan is HoodieClusteringPlan.
type ClusteringPlan struct {
	InputGroups               []ClusteringGroup
	Strategy                  *ClusteringStrategy
	ExtraMetadata             map[string]string
	Version                   int32
	PreserveHoodieMetadata    bool
	MissingSchedulePartitions []string
}

// ClusteringGroup is HoodieClusteringGroup: slices rewritten together.
type ClusteringGroup struct {
	Slices              []SliceInfo
	Metrics             map[string]float64
	NumOutputFileGroups int32
	ExtraMetadata       map[string]string
	Version             int32
}

// SliceInfo is HoodieSliceInfo. Paths are absolute URIs as Java wrote them.
type SliceInfo struct {
	DataFilePath      string
	DeltaFilePaths    []string
	FileID            string
	PartitionPath     string
	BootstrapFilePath string
	Version           int32
}

// ClusteringStrategy is HoodieClusteringStrategy.
type ClusteringStrategy struct {
	StrategyClassName string
	StrategyParams    map[string]string
	Version           int32
}

// InputFileIDs returns, per partition, the sorted file IDs of the file groups the
// clustering plan rewrites (nil when there is no plan). A file-system view treats them
// as pending clustering.
func (m *RequestedReplaceMetadata) InputFileIDs() map[string][]string {
	if m.ClusteringPlan == nil {
		return nil
	}
	out := map[string][]string{}
	for _, g := range m.ClusteringPlan.InputGroups {
		for _, s := range g.Slices {
			out[s.PartitionPath] = append(out[s.PartitionPath], s.FileID)
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

// DecodeRequestedReplace decodes replacecommit.requested or clustering.requested. Empty
// input gives empty metadata: some writers (insert_overwrite in older releases) leave the
// requested file empty, and Java treats that as "not clustering".
func DecodeRequestedReplace(data []byte) (*RequestedReplaceMetadata, error) {
	m := &RequestedReplaceMetadata{}
	err := decodeInto(data, "requested replace metadata", true, func(r rec) {
		m.OperationType = r.str("operationType")
		if pr, ok := r.record("clusteringPlan"); ok {
			m.ClusteringPlan = decodeClusteringPlan(pr)
		}
		m.ExtraMetadata = r.strMap("extraMetadata")
		m.Version = r.i32("version")
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func decodeClusteringPlan(r rec) *ClusteringPlan {
	p := &ClusteringPlan{}
	r.records("inputGroups", func(g rec) {
		group := ClusteringGroup{
			Metrics:             g.f64Map("metrics"),
			NumOutputFileGroups: g.i32("numOutputFileGroups"),
			ExtraMetadata:       g.strMap("extraMetadata"),
			Version:             g.i32("version"),
		}
		g.records("slices", func(s rec) {
			group.Slices = append(group.Slices, SliceInfo{
				DataFilePath:      s.str("dataFilePath"),
				DeltaFilePaths:    s.strList("deltaFilePaths"),
				FileID:            s.str("fileId"),
				PartitionPath:     s.str("partitionPath"),
				BootstrapFilePath: s.str("bootstrapFilePath"),
				Version:           s.i32("version"),
			})
		})
		p.InputGroups = append(p.InputGroups, group)
	})
	if s, ok := r.record("strategy"); ok {
		p.Strategy = &ClusteringStrategy{
			StrategyClassName: s.str("strategyClassName"),
			StrategyParams:    s.strMap("strategyParams"),
			Version:           s.i32("version"),
		}
	}
	p.ExtraMetadata = r.strMap("extraMetadata")
	p.Version = r.i32("version")
	p.PreserveHoodieMetadata = r.boolean("preserveHoodieMetadata")
	p.MissingSchedulePartitions = r.strList("missingSchedulePartitions")
	return p
}

// CleanMetadata is HoodieCleanMetadata, the content of a completed clean.
//
// UNVERIFIED: no fixture table contains a clean; the field names come from the
// HoodieCleanMetadata / HoodieCleanPartitionMetadata schemas as described in the format
// document (§3.7), whose per-partition field list is itself marked unverified. Because
// mapping is by name and unknown fields are ignored, a differing schema degrades to
// missing values rather than errors.
type CleanMetadata struct {
	Policy                       string
	StartCleanTime               string
	TimeTakenInMillis            int64
	TotalFilesDeleted            int32
	EarliestCommitToRetain       string
	LastCompletedCommitTimestamp string
	// PartitionMetadata is keyed by partition path.
	PartitionMetadata          map[string]CleanPartitionMetadata
	Version                    int32
	BootstrapPartitionMetadata map[string]CleanPartitionMetadata
	// ExtraMetadata is Hudi 1.x's extraMetadata (layout 2 only; nil when absent).
	ExtraMetadata map[string]string
}

// CleanPartitionMetadata is HoodieCleanPartitionMetadata (UNVERIFIED, see CleanMetadata).
type CleanPartitionMetadata struct {
	PartitionPath      string
	Policy             string
	DeletePathPatterns []string
	SuccessDeleteFiles []string
	FailedDeleteFiles  []string
	IsPartitionDeleted bool
}

// DecodeClean decodes a completed clean file. Empty input is an error (ErrEmpty).
func DecodeClean(data []byte) (*CleanMetadata, error) {
	m := &CleanMetadata{}
	err := decodeInto(data, "clean metadata", false, func(r rec) {
		m.Policy = r.str("policy")
		m.StartCleanTime = r.str("startCleanTime")
		m.TimeTakenInMillis = r.i64("timeTakenInMillis")
		m.TotalFilesDeleted = r.i32("totalFilesDeleted")
		m.EarliestCommitToRetain = r.str("earliestCommitToRetain")
		m.LastCompletedCommitTimestamp = r.str("lastCompletedCommitTimestamp")
		m.PartitionMetadata = decodeCleanPartitions(r, "partitionMetadata")
		m.Version = r.i32("version")
		m.BootstrapPartitionMetadata = decodeCleanPartitions(r, "bootstrapPartitionMetadata")
		if r.has("extraMetadata") {
			m.ExtraMetadata = r.strMap("extraMetadata")
		}
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func decodeCleanPartitions(r rec, field string) map[string]CleanPartitionMetadata {
	out := map[string]CleanPartitionMetadata{}
	if !r.recordMap(field, func(k string, e rec) {
		out[k] = CleanPartitionMetadata{
			PartitionPath:      e.str("partitionPath"),
			Policy:             e.str("policy"),
			DeletePathPatterns: e.strList("deletePathPatterns"),
			SuccessDeleteFiles: e.strList("successDeleteFiles"),
			FailedDeleteFiles:  e.strList("failedDeleteFiles"),
			IsPartitionDeleted: e.boolean("isPartitionDeleted"),
		}
	}) {
		return nil
	}
	return out
}
