package commitmeta

import (
	"fmt"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// EncodeAvro encodes m as Hudi 1.x writes commit, deltacommit and replacecommit files of
// table versions 8 and 9 (inflight and completed): an Avro object container, null codec,
// with one HoodieCommitMetadata datum, or HoodieReplaceCommitMetadata when
// m.PartitionToReplaceFileIDs is non-nil (TimelineMetadataUtils.serializeCommitMetadata
// through MetadataConversionUtils.convertCommitMetadataToAvro). The writer schemas are the
// ones Spark embeds in the fixtures cow/v8_nonpartitioned and cow/v9_txns_simple_meta,
// byte for byte.
//
// Null conventions follow those files: version is null; a workload profile (m.Profile)
// has null path and partitionPath; the log-write fields (logVersion, logOffset, baseFile,
// logFiles) are null for base-file writes; totalLogFiles is null unless set; an empty
// string field other than fileId and prevCommit is null.
func EncodeAvro(m *CommitMetadata) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("encode commit metadata: nil metadata")
	}
	rec := avroschema.ArchivedCommitMetadata
	if m.PartitionToReplaceFileIDs != nil {
		rec = avroschema.ArchivedReplaceCommitMetadata
	}
	s, err := avro.Parse(rec.JSON())
	if err != nil {
		return nil, fmt.Errorf("encode commit metadata: %w", err)
	}
	partitions := make(map[string]any, len(m.PartitionToWriteStats))
	for p, stats := range m.PartitionToWriteStats {
		list := make([]any, 0, len(stats))
		for i := range stats {
			list = append(list, writeStatAvro(&stats[i], m.Profile))
		}
		partitions[p] = list
	}
	extra := make(map[string]any, len(m.ExtraMetadata))
	for k, v := range m.ExtraMetadata {
		extra[k] = v
	}
	v := map[string]any{
		"partitionToWriteStats": partitions,
		"compacted":             m.Compacted,
		"extraMetadata":         extra,
		"version":               nil,
		"operationType":         nullable(m.OperationType),
	}
	if m.PartitionToReplaceFileIDs != nil {
		replaced := make(map[string]any, len(m.PartitionToReplaceFileIDs))
		for p, ids := range m.PartitionToReplaceFileIDs {
			replaced[p] = anyStrings(ids)
		}
		v["partitionToReplaceFileIds"] = replaced
	}
	b, err := avro.WriteContainer(s, v)
	if err != nil {
		return nil, fmt.Errorf("encode commit metadata: %w", err)
	}
	return b, nil
}

func writeStatAvro(s *WriteStat, profile bool) map[string]any {
	prev := s.PrevCommit
	if prev == "" {
		prev = NullCommit
	}
	o := map[string]any{
		"fileId":                       s.FileID,
		"path":                         nullable(s.Path),
		"prevCommit":                   prev,
		"numWrites":                    s.NumWrites,
		"numDeletes":                   s.NumDeletes,
		"numUpdateWrites":              s.NumUpdateWrites,
		"totalWriteBytes":              s.TotalWriteBytes,
		"totalWriteErrors":             s.TotalWriteErrors,
		"partitionPath":                nullable(s.PartitionPath),
		"totalLogRecords":              s.TotalLogRecords,
		"totalLogFiles":                nil,
		"totalUpdatedRecordsCompacted": s.TotalUpdatedRecordsCompacted,
		"numInserts":                   s.NumInserts,
		"totalLogBlocks":               s.TotalLogBlocks,
		"totalCorruptLogBlock":         s.TotalCorruptLogBlock,
		"totalRollbackBlocks":          s.TotalRollbackBlocks,
		"fileSizeInBytes":              s.FileSizeInBytes,
		"logVersion":                   nil,
		"logOffset":                    nil,
		"baseFile":                     nil,
		"logFiles":                     nil,
		"cdcStats":                     nil,
		"prevBaseFile":                 nullable(s.PrevBaseFile),
		"minEventTime":                 nullableLong(s.MinEventTime),
		"maxEventTime":                 nullableLong(s.MaxEventTime),
		"runtimeStats":                 nil,
		"totalLogFilesCompacted":       s.TotalLogFilesCompacted,
		"totalLogReadTimeMs":           s.TotalLogReadTimeMs,
		"totalLogSizeCompacted":        s.TotalLogSizeCompacted,
		"tempPath":                     nullable(s.TempPath),
		"numUpdates":                   s.NumUpdates,
	}
	if profile {
		o["partitionPath"] = nil
	}
	if s.TotalLogFiles != 0 {
		o["totalLogFiles"] = s.TotalLogFiles
	}
	if s.CDCStats != nil {
		cdc := make(map[string]any, len(s.CDCStats))
		for k, v := range s.CDCStats {
			cdc[k] = v
		}
		o["cdcStats"] = cdc
	}
	if rs := s.RuntimeStats; rs != nil {
		o["runtimeStats"] = map[string]any{
			"totalScanTime":   rs.TotalScanTime,
			"totalCreateTime": rs.TotalCreateTime,
			"totalUpsertTime": rs.TotalUpsertTime,
		}
	}
	if s.IsLogWrite() {
		o["logVersion"] = s.LogVersion
		o["logOffset"] = s.LogOffset
		o["baseFile"] = s.BaseFile
		o["logFiles"] = anyStrings(s.LogFiles)
	}
	return o
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullableLong(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
