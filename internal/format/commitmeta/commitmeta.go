// Package commitmeta decodes (and, for what hudi-go writes, encodes) the contents of Hudi
// timeline instant files — commit,
// deltacommit and replacecommit metadata, rollback metadata and plans, compaction and
// clustering plans, clean metadata — from both encodings Hudi uses: Jackson JSON (table
// version 6 commit metadata) and Avro object container files (every v8+ file, and v6
// rollbacks and plans). Each decoder detects the encoding by the Avro "Obj\x01" magic, so
// callers never need to know the table version. EncodeJSON writes v6 commit metadata the
// way Java Hudi does.
package commitmeta

import (
	"iter"
	"sort"
)

// NullCommit is the prevCommit value Java writes for a write that created its file group
// (the text "null", not a JSON null).
const NullCommit = "null"

// CommitMetadata is HoodieCommitMetadata, and HoodieReplaceCommitMetadata when
// PartitionToReplaceFileIDs is non-nil. It is the content of completed commit,
// deltacommit and replacecommit files and (as a "workload profile") of their inflight files.
type CommitMetadata struct {
	// PartitionToWriteStats maps a partition path ("" for a non-partitioned table) to
	// the stats of the files written in it.
	PartitionToWriteStats map[string][]WriteStat
	// Compacted is true for the commit that completes a compaction.
	Compacted bool
	// ExtraMetadata holds "schema" (the writer schema, without meta fields) and other
	// writer-specific keys.
	ExtraMetadata map[string]string
	// OperationType is the WriteOperationType name, e.g. "UPSERT", "INSERT_OVERWRITE",
	// "COMPACT", "CLUSTER"; "" when absent.
	OperationType string
	// PartitionToReplaceFileIDs lists, per partition, the file groups a replacecommit
	// replaced. Decoders set it (possibly empty) exactly when the field is present, and
	// EncodeJSON writes it exactly when it is non-nil.
	PartitionToReplaceFileIDs map[string][]string
	// Version is the Avro "version" field (0 when absent, as in all observed files).
	Version int32
	// Profile marks the workload profile of an inflight file
	// (BaseCommitActionExecutor.saveWorkloadProfileMetadataToInflight): EncodeJSON writes
	// its stats' partitionPath as null, as Java does there. Decoders leave it false.
	Profile bool
}

// RuntimeStats is HoodieRuntimeStats: milliseconds spent by the write handle.
type RuntimeStats struct {
	TotalScanTime   int64
	TotalUpsertTime int64
	TotalCreateTime int64
}

// WriteStat is HoodieWriteStat, including the HoodieDeltaWriteStat fields of log writes
// and the fields added in Hudi 1.x. Null or absent fields decode to the zero value, except
// where a pointer or nil map/slice keeps the distinction because Java writes null.
type WriteStat struct {
	FileID string
	// Path is relative to the table base path; "" when unknown (inflight profiles).
	Path string
	// CDCStats maps CDC log file paths to sizes; nil when null.
	CDCStats map[string]int64
	// PrevCommit is the instant of the file slice this write builds on, or NullCommit.
	PrevCommit       string
	NumWrites        int64
	NumDeletes       int64
	NumUpdateWrites  int64
	NumInserts       int64
	TotalWriteBytes  int64
	TotalWriteErrors int64
	TempPath         string
	PartitionPath    string

	// Compaction and log-read statistics.
	TotalLogRecords              int64
	TotalLogFilesCompacted       int64
	TotalLogSizeCompacted        int64
	TotalUpdatedRecordsCompacted int64
	TotalLogBlocks               int64
	TotalCorruptLogBlock         int64
	TotalRollbackBlocks          int64

	// FileSizeInBytes is the file size for a base file, but for a log write the bytes
	// appended by this write (see LogOffset).
	FileSizeInBytes int64
	MinEventTime    *int64
	MaxEventTime    *int64
	RuntimeStats    *RuntimeStats

	// Log write (HoodieDeltaWriteStat) fields. LogVersion is ≥ 1 for every log write
	// (log versions start at 1), which is how IsLogWrite tells the two kinds apart.
	LogVersion int32
	// LogOffset is the log file position where this write's blocks begin.
	LogOffset int64
	// BaseFile names the base file of the slice ("" when none or in v8+).
	BaseFile string
	// LogFiles names the slice's log files known to the writer.
	LogFiles []string

	// Fields present only in v8+ (Avro) metadata.
	TotalLogFiles      int64
	PrevBaseFile       string
	TotalLogReadTimeMs int64
	NumUpdates         int64
}

// IsLogWrite reports whether s describes a write to a log file (a HoodieDeltaWriteStat).
func (s *WriteStat) IsLogWrite() bool { return s.LogVersion > 0 }

// PrevCommitInstant returns PrevCommit, or "" when it is NullCommit or absent.
func (s *WriteStat) PrevCommitInstant() string {
	if s.PrevCommit == NullCommit {
		return ""
	}
	return s.PrevCommit
}

// Schema returns the writer schema recorded in extraMetadata["schema"], or "".
func (m *CommitMetadata) Schema() string { return m.ExtraMetadata["schema"] }

// Partitions returns the partition paths with write stats, sorted.
func (m *CommitMetadata) Partitions() []string { return sortedKeys(m.PartitionToWriteStats) }

// WriteStats yields every write stat with its partition key, partitions in sorted order
// and stats in file order. The yielded pointer refers into m.
func (m *CommitMetadata) WriteStats() iter.Seq2[string, *WriteStat] {
	return func(yield func(string, *WriteStat) bool) {
		for _, p := range m.Partitions() {
			stats := m.PartitionToWriteStats[p]
			for i := range stats {
				if !yield(p, &stats[i]) {
					return
				}
			}
		}
	}
}

// FileIDs returns the distinct non-empty file IDs of all write stats, sorted. (Inflight
// workload profiles carry stats with an empty file ID for new inserts.)
func (m *CommitMetadata) FileIDs() []string {
	seen := map[string]bool{}
	for _, s := range m.WriteStats() {
		if s.FileID != "" {
			seen[s.FileID] = true
		}
	}
	return sortedKeys(seen)
}

// ReplacedFileIDs returns the file IDs replaced in partition (nil when none).
func (m *CommitMetadata) ReplacedFileIDs(partition string) []string {
	return m.PartitionToReplaceFileIDs[partition]
}

// IsReplace reports whether m is replacecommit metadata.
func (m *CommitMetadata) IsReplace() bool { return m.PartitionToReplaceFileIDs != nil }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Decode decodes commit, deltacommit or replacecommit metadata (completed or inflight) in
// either encoding. Empty input gives empty metadata, as in Java, where an empty commit
// file deserializes to a fresh HoodieCommitMetadata.
func Decode(data []byte) (*CommitMetadata, error) {
	const what = "commit metadata"
	m := &CommitMetadata{}
	err := decodeInto(data, what, true, func(r rec) {
		if sm, ok := r.genericMap("partitionToWriteStats"); ok {
			m.PartitionToWriteStats = make(map[string][]WriteStat, len(sm))
			stats := r.child(sm, "partitionToWriteStats")
			for partition := range sm {
				var list []WriteStat
				stats.records(partition, func(e rec) { list = append(list, decodeWriteStat(e)) })
				m.PartitionToWriteStats[partition] = list
			}
		}
		m.Compacted = r.boolean("compacted")
		m.ExtraMetadata = r.strMap("extraMetadata")
		m.OperationType = r.str("operationType")
		m.PartitionToReplaceFileIDs = r.strListMap("partitionToReplaceFileIds")
		m.Version = r.i32("version")
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func decodeWriteStat(r rec) WriteStat {
	s := WriteStat{
		FileID:                       r.str("fileId"),
		Path:                         r.str("path"),
		CDCStats:                     r.i64Map("cdcStats"),
		PrevCommit:                   r.str("prevCommit"),
		NumWrites:                    r.i64("numWrites"),
		NumDeletes:                   r.i64("numDeletes"),
		NumUpdateWrites:              r.i64("numUpdateWrites"),
		NumInserts:                   r.i64("numInserts"),
		TotalWriteBytes:              r.i64("totalWriteBytes"),
		TotalWriteErrors:             r.i64("totalWriteErrors"),
		TempPath:                     r.str("tempPath"),
		PartitionPath:                r.str("partitionPath"),
		TotalLogRecords:              r.i64("totalLogRecords"),
		TotalLogFilesCompacted:       r.i64("totalLogFilesCompacted"),
		TotalLogSizeCompacted:        r.i64("totalLogSizeCompacted"),
		TotalUpdatedRecordsCompacted: r.i64("totalUpdatedRecordsCompacted"),
		TotalLogBlocks:               r.i64("totalLogBlocks"),
		TotalCorruptLogBlock:         r.i64("totalCorruptLogBlock"),
		TotalRollbackBlocks:          r.i64("totalRollbackBlocks"),
		FileSizeInBytes:              r.i64("fileSizeInBytes"),
		MinEventTime:                 r.optI64("minEventTime"),
		MaxEventTime:                 r.optI64("maxEventTime"),
		LogVersion:                   r.i32("logVersion"),
		LogOffset:                    r.i64("logOffset"),
		BaseFile:                     r.str("baseFile"),
		LogFiles:                     r.strList("logFiles"),
		TotalLogFiles:                r.i64("totalLogFiles"),
		PrevBaseFile:                 r.str("prevBaseFile"),
		TotalLogReadTimeMs:           r.i64("totalLogReadTimeMs"),
		NumUpdates:                   r.i64("numUpdates"),
	}
	if rs, ok := r.record("runtimeStats"); ok {
		s.RuntimeStats = &RuntimeStats{
			TotalScanTime:   rs.i64("totalScanTime"),
			TotalUpsertTime: rs.i64("totalUpsertTime"),
			TotalCreateTime: rs.i64("totalCreateTime"),
		}
	}
	return s
}
