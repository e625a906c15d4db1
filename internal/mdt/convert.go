package mdt

import (
	"path"
	"sort"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
)

// The files-partition records a data-table instant makes, as Java 0.14's
// HoodieTableMetadataUtil converts an instant's metadata (convertMetadataToFilesPartitionRecords,
// convertMetadataToRollbackRecords). Each function returns the records to upsert into the
// files partition: per partition a type-2 record of the files added (with sizes) or deleted
// (tombstones), and a type-1 __all_partitions__ record of partitions added or deleted.

// PartitionListRecord is the __all_partitions__ record naming partitions (data-table
// relative paths) as added, or as deleted (HoodieMetadataPayload.createPartitionListRecord).
func PartitionListRecord(partitions []string, deleted bool) *Record {
	r := &Record{Key: AllPartitionsKey, Type: TypePartitionList, Files: make(map[string]FileInfo, len(partitions))}
	for _, p := range partitions {
		r.Files[PartitionKey(p)] = FileInfo{IsDeleted: deleted}
	}
	return r
}

// PartitionFilesRecord is the record of one partition's changed files: added ones with
// their sizes, deleted ones as tombstones (HoodieMetadataPayload.createPartitionFilesRecord).
// A file both added and deleted is added (Java puts the added files first, then the
// deleted ones only where absent: UNVERIFIED which wins; callers never pass both).
func PartitionFilesRecord(partition string, added map[string]int64, deleted []string) *Record {
	r := &Record{Key: PartitionKey(partition), Type: TypeFileList, Files: make(map[string]FileInfo, len(added)+len(deleted))}
	for name, size := range added {
		r.Files[name] = FileInfo{Size: size}
	}
	for _, name := range deleted {
		if _, ok := r.Files[name]; !ok {
			r.Files[name] = FileInfo{IsDeleted: true}
		}
	}
	return r
}

// CommitRecords are the files-partition records of a commit, deltacommit or
// replacecommit (writes, compaction, clustering): every partition with write stats is
// (re)added to __all_partitions__, and each partition's record adds the files its write
// stats name, with the largest size reported for a file, and the CDC log files. Files
// that a replacecommit replaces stay listed: the cleaner deletes them later, and its
// clean records remove them.
func CommitRecords(m *commitmeta.CommitMetadata) []*Record {
	partitions := m.Partitions()
	out := []*Record{PartitionListRecord(partitions, false)}
	for _, p := range partitions {
		files := map[string]int64{}
		for _, s := range m.PartitionToWriteStats[p] {
			if s.Path == "" {
				continue // an empty partition's stat (Java logs and skips it)
			}
			name := path.Base(s.Path)
			if size, ok := files[name]; !ok || s.FileSizeInBytes > size {
				files[name] = s.FileSizeInBytes
			}
			for cdc, size := range s.CDCStats {
				files[path.Base(cdc)] = size
			}
		}
		out = append(out, PartitionFilesRecord(p, files, nil))
	}
	return out
}

// CleanRecords are the files-partition records of a clean: each cleaned partition's
// record deletes the files the clean deleted (its deletePathPatterns, file names), and
// partitions the clean deleted are deleted from __all_partitions__.
func CleanRecords(m *commitmeta.CleanMetadata) []*Record {
	partitions := make([]string, 0, len(m.PartitionMetadata))
	for p := range m.PartitionMetadata {
		partitions = append(partitions, p)
	}
	sort.Strings(partitions)
	var out []*Record
	var deleted []string
	for _, p := range partitions {
		pm := m.PartitionMetadata[p]
		names := make([]string, 0, len(pm.DeletePathPatterns))
		for _, f := range pm.DeletePathPatterns {
			names = append(names, path.Base(f))
		}
		out = append(out, PartitionFilesRecord(p, nil, names))
		if pm.IsPartitionDeleted {
			deleted = append(deleted, p)
		}
	}
	if len(deleted) > 0 {
		out = append(out, PartitionListRecord(deleted, true))
	}
	return out
}

// RollbackRecords are the files-partition records of a rollback: the log files that
// received its command blocks and the failed instant's own log files (which a rollback
// keeps), added with the larger of their recorded sizes. The files the rolled-back instant
// added are removed from the metadata table by rolling back its metadata deltacommit, not
// by these records (Java 0.14's processRollbackMetadata). Files are named by URI in the
// rollback metadata; records hold their names.
func RollbackRecords(m *commitmeta.RollbackMetadata) []*Record {
	byPartition := map[string]map[string]int64{}
	for _, pm := range m.PartitionMetadata {
		if len(pm.RollbackLogFiles) == 0 {
			continue // Java adds a partition's files only when its rollback wrote command blocks
		}
		files := byPartition[pm.PartitionPath]
		if files == nil {
			files = map[string]int64{}
			byPartition[pm.PartitionPath] = files
		}
		for _, src := range []map[string]int64{pm.RollbackLogFiles, pm.LogFilesFromFailedCommit} {
			for f, size := range src {
				name := path.Base(f)
				if old, ok := files[name]; !ok || size > old {
					files[name] = size
				}
			}
		}
	}
	partitions := make([]string, 0, len(byPartition))
	for p := range byPartition {
		partitions = append(partitions, p)
	}
	sort.Strings(partitions)
	out := make([]*Record, 0, len(partitions))
	for _, p := range partitions {
		out = append(out, PartitionFilesRecord(p, byPartition[p], nil))
	}
	return out
}

// MergeRecords combines records of the same key written by one instant into one, as the
// metadata table's writer does before writing them (HoodieMetadataPayload.preCombine over
// records of one batch). The result is sorted by key.
func MergeRecords(recs []*Record) ([]*Record, error) {
	byKey := map[string]*Record{}
	for _, r := range recs {
		if old, ok := byKey[r.Key]; ok {
			m, err := combineWriting(old, r)
			if err != nil {
				return nil, err
			}
			byKey[r.Key] = m
			continue
		}
		byKey[r.Key] = r
	}
	out := make([]*Record, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// combineWriting merges two records of one write: file listings keep every entry (a
// tombstone stays a tombstone, so that it still deletes the file from older slices), other
// types keep the newer record.
func combineWriting(older, newer *Record) (*Record, error) {
	if newer.Deleted || older.Deleted || newer.Type != TypeFileList && newer.Type != TypePartitionList || older.Type != newer.Type {
		return combine(older, newer)
	}
	files := make(map[string]FileInfo, len(older.Files)+len(newer.Files))
	for k, v := range older.Files {
		files[k] = v
	}
	for k, nv := range newer.Files {
		ov, ok := files[k]
		switch {
		case !ok || nv.IsDeleted:
			files[k] = nv
		default:
			files[k] = FileInfo{Size: max(ov.Size, nv.Size)}
		}
	}
	return &Record{Key: newer.Key, Type: newer.Type, Files: files}, nil
}
