package mdtwrite

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage"
)

// The record index (the record_index partition, Java 0.14's record-level index): one
// entry per record key of the data table, naming the partition and file group holding it.
// It is built from the table's snapshot when hoodie.metadata.record.index.enable first
// meets the table, sized by FileGroupSizing, and every commit then records its inserts,
// moves and deletes in it (recordIndexUpdates).

// recordIndexAverageRecordSize is HoodieBackedTableMetadataWriter's
// RECORD_INDEX_AVERAGE_RECORD_SIZE: the bytes of one entry, for sizing.
const recordIndexAverageRecordSize = 48

// FileGroupSizing are the settings that count the record index's file groups
// (hoodie.metadata.record.index.{min,max}.filegroup.count, .growth.factor,
// .max.filegroup.size). The count is fixed when the partition is built.
type FileGroupSizing struct {
	MinCount, MaxCount int
	GrowthFactor       float64
	MaxSizeBytes       int
}

// DefaultFileGroupSizing are Java 0.14's defaults.
var DefaultFileGroupSizing = FileGroupSizing{MinCount: 10, MaxCount: 10000, GrowthFactor: 2.0, MaxSizeBytes: 1 << 30}

func (s FileGroupSizing) check() error {
	switch {
	case s.MinCount < 1:
		return fmt.Errorf("%s=%d: want at least 1", config.RecordIndexMinFileGroupCount.Name, s.MinCount)
	case s.MaxCount < 1:
		return fmt.Errorf("%s=%d: want at least 1", config.RecordIndexMaxFileGroupCount.Name, s.MaxCount)
	case s.MaxSizeBytes < recordIndexAverageRecordSize:
		return fmt.Errorf("%s=%d: want at least %d (one entry)", config.RecordIndexMaxFileGroupSize.Name, s.MaxSizeBytes, recordIndexAverageRecordSize)
	case !(s.GrowthFactor > 0) || math.IsInf(s.GrowthFactor, 0):
		return fmt.Errorf("%s=%v: want a positive number", config.RecordIndexGrowthFactor.Name, s.GrowthFactor)
	}
	return nil
}

// Count is HoodieTableMetadataUtil.estimateFileGroupCount for the record index: the
// minimum when it equals the maximum; else the records times the growth factor (in float,
// rounded up), over the entries one file group of the maximum size holds, clamped to
// [min, max].
func (s FileGroupSizing) Count(records int64) int {
	if s.MinCount == s.MaxCount {
		return s.MinCount
	}
	expected := int64(math.Ceil(float64(float32(records) * float32(s.GrowthFactor))))
	perGroup := int64(s.MaxSizeBytes) / recordIndexAverageRecordSize
	est := expected / perGroup
	switch {
	case est >= int64(s.MaxCount):
		return s.MaxCount
	case est <= int64(s.MinCount):
		return s.MinCount
	}
	return max(1, int(est))
}

// keyLocation is where a record key lives.
type keyLocation struct {
	partition string
	fileID    spec.FileID
	instant   spec.InstantTime // the file slice's base instant: the entry's instant
}

// snapshotKeys reads the record key of every row of the table's latest snapshot, slice
// by slice, with the file group holding it (more than one where the table holds a key
// twice: a non-global index lets a key into several partitions, and Spark fixtures hold
// such keys). Java 0.14 (initializeRecordIndexPartition) reads the keys of the latest base
// files only; hudi-go reads the merged file slices, so that on merge-on-read a key a log
// deleted is not indexed and a key only in logs is (the two differ only there; hudi-go's
// choice, docs/design/metadata-table.md). The entry's instant is the slice's base instant
// (the base file's commit time, as Java). noMetadata plans from a listing (validation's
// truth) instead of the files partition.
func snapshotKeys(ctx context.Context, t *table.Table, noMetadata bool) (map[string][]keyLocation, error) {
	out := map[string][]keyLocation{}
	if len(t.Timeline.Completed()) == 0 {
		return out, nil
	}
	scan, err := read.Plan(ctx, t, read.Options{Columns: []string{schema.MetaFields[2]}, NoMetadata: noMetadata})
	if err != nil {
		return nil, fmt.Errorf("plan the snapshot: %w", err)
	}
	for _, sl := range scan.Slices() {
		loc := keyLocation{partition: sl.Partition, fileID: sl.FileID, instant: sl.BaseInstant}
		err := scan.ReadSlice(ctx, sl, func(rec arrow.Record) error {
			col, ok := rec.Column(0).(*array.String)
			if !ok {
				return fmt.Errorf("file group %s/%s: %s is %s, not a string", sl.Partition, sl.FileID, schema.MetaFields[2], rec.Column(0).DataType())
			}
			for i := 0; i < col.Len(); i++ {
				if col.IsNull(i) {
					return fmt.Errorf("file group %s/%s: a row without a record key", sl.Partition, sl.FileID)
				}
				k := col.Value(i)
				if locs := out[k]; len(locs) == 0 || locs[len(locs)-1] != loc {
					out[k] = append(locs, loc)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkRecordIndexable refuses a table the record index cannot serve: its keys are read
// from _hoodie_record_key (Java's reader.getRecordKeyIterator), so meta fields must be
// populated.
func checkRecordIndexable(t *table.Table) error {
	if !t.Config.PopulateMetaFields() {
		return fmt.Errorf("table %s has hoodie.populate.meta.fields=false: hudi-go builds the record index from the stored record keys: %w",
			t.Config.Name(), ErrUnsupported)
	}
	return nil
}

// addRecordIndex builds the record_index partition of a table whose metadata table has
// its files partition (initializeFromFilesystem for RECORD_INDEX): at the latest completed
// instant plus the first partition-initialization suffix the metadata table has not used
// (generateUniqueCommitInstantTime: 010, 011, …), with Count(keys) file groups started by
// initFileGroups and filled by one bulk commit; hoodie.properties then lists record_index.
// As for the files partition, nothing is built while a data instant is pending.
func (w *Writer) addRecordIndex(ctx context.Context, t *table.Table) (*table.Table, error) {
	t, err := t.Reopen(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkRecordIndexable(t); err != nil {
		return nil, err
	}
	for _, in := range t.Timeline.Instants {
		if !in.IsCompleted() && in.Action != spec.ActionIndexing {
			w.o.Logger.Debug("not building the record index while instants are pending on the data table (as Java); the next operation will",
				"table", t.Config.Name(), "pending", in.Time)
			return t, nil
		}
	}
	initTime := spec.InstantTime(soloCommitTimestamp)
	if c := t.Timeline.Completed(); len(c) > 0 {
		initTime = c[len(c)-1].Time
	}
	tl, err := w.mdtTimeline(ctx, t.Version)
	if err != nil {
		return nil, err
	}
	instant := initInstant(tl.Layout, initTime, tl)
	keys, err := snapshotKeys(ctx, t, false)
	if err != nil {
		return nil, fmt.Errorf("record index: %w", err)
	}
	zone := t.Config.TimelineZone()
	recs := make([]*mdt.Record, 0, len(keys))
	for k, locs := range keys {
		if len(locs) > 1 {
			return nil, fmt.Errorf("record index of %s: record key %q is in file groups %s/%s and %s/%s; the record index maps a key to one "+
				"file group (it is a global index): deduplicate the table first", t.Config.Name(), k, locs[0].partition, locs[0].fileID, locs[1].partition, locs[1].fileID)
		}
		loc := locs[0]
		ms, err := mdt.InstantMillis(loc.instant, zone)
		if err != nil {
			return nil, err
		}
		r, err := mdt.NewRecordIndexEntry(k, loc.partition, loc.fileID, ms, mdt.FileIDEncodingUUID)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	count := w.o.RecordIndexFileGroups.Count(int64(len(recs)))
	if err := w.initFileGroups(ctx, mdt.PartitionRecordIndex, count, instant); err != nil {
		return nil, err
	}
	if err := w.bulkCommit(ctx, t.Version, instant, mdt.PartitionRecordIndex, recs, count); err != nil {
		return nil, err
	}
	if err := w.setPartitionAvailable(ctx, t, mdt.PartitionRecordIndex); err != nil {
		return nil, err
	}
	w.o.Logger.Debug("built the record index", "table", t.Config.Name(), "instant", instant, "keys", len(recs), "file_groups", count)
	return t.Reopen(ctx)
}

// recordIndexUpdates computes the record_index records of a data instant about to
// complete, from the files it wrote, with the outcome of Java 0.14's getRecordIndexUpdates
// (and getRecordIndexAdditionalUpdates): a key written into a file group that did not
// hold it — an insert, or a key moved to another partition or file group (global index
// with hoodie.*.update.partition.path, clustering) — gets an entry naming that file group
// at this instant; a key deleted (a delete block, or gone from a file group's new base
// file) leaves the index unless the instant wrote it elsewhere; a key updated in place
// changes nothing. Java records these per record as the write tags them; hudi-go reads
// them back from the written files: the new base file against the file group's previous
// one, a log file's blocks of this instant (their data keys looked up in the index), and
// for insert_overwrite(_table) and delete_partition the keys of the replaced file groups'
// latest base files that the instant did not write again. A compaction changes nothing
// (Java passes it no write statuses).
func (w *Writer) recordIndexUpdates(ctx context.Context, cfg *table.Config, instant spec.InstantTime, meta *commitmeta.CommitMetadata) ([]*mdt.Record, error) {
	op := strings.ToUpper(meta.OperationType)
	if meta.Compacted || op == "COMPACT" || op == "LOG_COMPACT" {
		return nil, nil
	}
	t, err := table.Open(ctx, w.st)
	if err != nil {
		return nil, err
	}
	if err := checkRecordIndexable(t); err != nil {
		return nil, err
	}
	millis, err := mdt.InstantMillis(instant, cfg.TimelineZone())
	if err != nil {
		return nil, err
	}
	// The committed view, for the file groups' previous base files: built on first use.
	var latest map[string]fsview.FileSlice
	previous := func(partition string, id spec.FileID) (fsview.FileSlice, bool, error) {
		if latest == nil {
			listing, err := t.Files(ctx, table.FilesOptions{})
			if err != nil {
				return fsview.FileSlice{}, false, err
			}
			replaced, err := t.ReplacedFileGroups(ctx, "")
			if err != nil {
				return fsview.FileSlice{}, false, err
			}
			latest = map[string]fsview.FileSlice{}
			view, err := fsview.Build(ctx, listing, t.Timeline, fsview.Options{Replaced: replaced})
			if err != nil {
				return fsview.FileSlice{}, false, err
			}
			for _, sl := range view.LatestSlices() {
				latest[sl.Partition+"/"+string(sl.FileID)] = sl
			}
		}
		sl, ok := latest[partition+"/"+string(id)]
		return sl, ok, nil
	}
	updates := map[string]*mdt.Record{}
	deleted := map[string]bool{}
	type logKey struct {
		partition string
		fileID    spec.FileID
	}
	logData := map[string]logKey{}
	// Delete-block keys per file group, with the log file: whether such a key leaves the
	// group is the merge's to say (a delete whose ordering value loses to the stored
	// record's under event-time ordering deletes nothing).
	type logDeletes struct {
		partition string
		fileID    spec.FileID
		log       fsview.LogFile
		keys      []string
	}
	var logDels []logDeletes
	put := func(k, partition string, id spec.FileID) error {
		r, err := mdt.NewRecordIndexEntry(k, partition, id, millis, mdt.FileIDEncodingUUID)
		if err != nil {
			return err
		}
		updates[k] = r
		return nil
	}
	for _, partition := range sortedKeys(meta.PartitionToWriteStats) {
		for _, st := range meta.PartitionToWriteStats[partition] {
			if st.Path == "" {
				continue
			}
			name := path.Base(st.Path)
			id := spec.FileID(st.FileID)
			if _, ok := spec.ParseBaseFileName(name); ok {
				keys, err := baseFileKeys(ctx, w.st, st.Path)
				if err != nil {
					return nil, err
				}
				var old map[string]bool
				if st.PrevCommit != "" && st.PrevCommit != commitmeta.NullCommit && op != "CLUSTER" {
					if sl, ok, err := previous(partition, id); err != nil {
						return nil, err
					} else if ok && sl.Base != nil {
						prev, err := baseFileKeys(ctx, w.st, sl.Base.Path)
						if err != nil {
							return nil, err
						}
						old = make(map[string]bool, len(prev))
						for _, k := range prev {
							old[k] = true
						}
					}
				}
				for _, k := range keys {
					if old[k] {
						delete(old, k)
						continue
					}
					if err := put(k, partition, id); err != nil {
						return nil, err
					}
				}
				for k := range old {
					deleted[k] = true
				}
				continue
			}
			if ln, ok := spec.ParseLogFileName(name); ok {
				data, dels, err := logFileKeys(ctx, w.st, st.Path, instant)
				if err != nil {
					return nil, err
				}
				for _, k := range dels {
					deleted[k] = true
				}
				if len(dels) > 0 {
					logDels = append(logDels, logDeletes{partition, id, fsview.LogFile{Name: ln, Path: st.Path, Size: st.FileSizeInBytes}, dels})
				}
				for _, k := range data {
					logData[k] = logKey{partition, id}
				}
			}
		}
	}
	if len(logData) > 0 {
		// Records appended to a log are mostly updates of the file group's keys (no change);
		// the index says which were not there (inserts into a log, moves).
		m, err := mdt.Open(ctx, w.st)
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(logData))
		for k := range logData {
			keys = append(keys, k)
		}
		have, err := m.LookupRecordIndex(ctx, keys)
		if err != nil {
			return nil, err
		}
		for k, lk := range logData {
			if e, ok := have[k]; ok && e.PartitionName == lk.partition && e.FileGroupID() == string(lk.fileID) {
				continue
			}
			if _, ok := updates[k]; ok {
				continue
			}
			if err := put(k, lk.partition, lk.fileID); err != nil {
				return nil, err
			}
		}
	}
	// scan reads merged file slices' keys, the instant's own log blocks included.
	var scan *read.Scan
	sliceKeys := func(sl fsview.FileSlice) (map[string]bool, error) {
		if scan == nil {
			if scan, err = read.Plan(ctx, t, read.Options{Columns: []string{schema.MetaFields[2]}, Pending: instant}); err != nil {
				return nil, fmt.Errorf("plan the file groups the instant changed: %w", err)
			}
		}
		live := map[string]bool{}
		err := scan.ReadSlice(ctx, sl, func(rec arrow.Record) error {
			col := rec.Column(0).(*array.String)
			for i := 0; i < col.Len(); i++ {
				live[col.Value(i)] = true
			}
			return nil
		})
		return live, err
	}
	if len(logDels) > 0 {
		// Read each such group as it will be once the instant completes: its latest slice
		// with the new log file. A deleted key it still holds stays indexed.
		for _, ld := range logDels {
			sl, ok, err := previous(ld.partition, ld.fileID)
			if err != nil {
				return nil, err
			}
			if !ok || sl.BaseInstant != ld.log.Name.Instant {
				continue // a log on a new slice (a pending compaction's): its deletes stand
			}
			sl.Logs = append(append([]fsview.LogFile(nil), sl.Logs...), ld.log)
			live, err := sliceKeys(sl)
			if err != nil {
				return nil, err
			}
			for _, k := range ld.keys {
				if live[k] {
					delete(deleted, k)
				}
			}
		}
	}
	switch op {
	case "INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE", "DELETE_PARTITION":
		for _, partition := range sortedKeys(meta.PartitionToReplaceFileIDs) {
			for _, id := range meta.PartitionToReplaceFileIDs[partition] {
				sl, ok, err := previous(partition, spec.FileID(id))
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				// The group's merged keys: Java reads the latest base files
				// (getRecordIndexReplacedRecords), whose keys a log deleted or moved away
				// on merge-on-read are not the group's any more (hudi-go's choice: those
				// keys live elsewhere and stay indexed there).
				keys, err := sliceKeys(sl)
				if err != nil {
					return nil, err
				}
				for k := range keys {
					deleted[k] = true
				}
			}
		}
	}
	out := make([]*mdt.Record, 0, len(updates)+len(deleted))
	for _, r := range updates {
		out = append(out, r)
	}
	for k := range deleted {
		if _, ok := updates[k]; !ok {
			out = append(out, mdt.RecordIndexDelete(k))
		}
	}
	return out, nil
}

// baseFileKeys reads the _hoodie_record_key column of a Parquet base file.
func baseFileKeys(ctx context.Context, st storage.Storage, p string) ([]string, error) {
	f, err := st.Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("record index: %w", table.MissingFile(err))
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), p, memory.DefaultAllocator, 0)
	if err != nil {
		return nil, fmt.Errorf("record index: %w", err)
	}
	defer pf.Close()
	return parquetKeys(ctx, pf)
}

func parquetKeys(ctx context.Context, pf *parquet.File) ([]string, error) {
	leaf := pf.LeafIndex(schema.MetaFields[2])
	if leaf < 0 {
		return nil, fmt.Errorf("record index: %s has no %s column", pf.Name(), schema.MetaFields[2])
	}
	var keys []string
	err := pf.ScanStrings(ctx, leaf, func(v []byte, valid bool) error {
		if !valid {
			return fmt.Errorf("record index: %s: a row without a record key", pf.Name())
		}
		keys = append(keys, string(v))
		return nil
	})
	return keys, err
}

// logFileKeys returns the record keys of a log file's data blocks and of its delete
// blocks written by instant.
func logFileKeys(ctx context.Context, st storage.Storage, p string, instant spec.InstantTime) (data, deleted []string, err error) {
	b, err := st.ReadFile(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("record index: %w", err)
	}
	blocks, err := logfile.ReadAll(bytes.NewReader(b), int64(len(b)), p)
	if err != nil {
		return nil, nil, fmt.Errorf("record index: %w", err)
	}
	for _, bl := range blocks {
		if bl.InstantTime() != string(instant) {
			continue
		}
		switch bl.Type {
		case logfile.DeleteBlock:
			recs, err := logfile.DecodeDeleteBlock(bl.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("record index: %s: %w", p, err)
			}
			for _, r := range recs {
				deleted = append(deleted, r.RecordKey)
			}
		case logfile.AvroDataBlock:
			s, err := avro.Parse(bl.Header[logfile.Schema])
			if err != nil {
				return nil, nil, fmt.Errorf("record index: %s: block schema: %w", p, err)
			}
			recs, err := logfile.DecodeAvroDataBlock(bl.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("record index: %s: %w", p, err)
			}
			for _, raw := range recs {
				v, _, err := s.Decode(raw)
				if err != nil {
					return nil, nil, fmt.Errorf("record index: %s: %w", p, err)
				}
				m, _ := v.(map[string]any)
				k, ok := m[schema.MetaFields[2]].(string)
				if !ok {
					return nil, nil, fmt.Errorf("record index: %s: a record without %s", p, schema.MetaFields[2])
				}
				data = append(data, k)
			}
		case logfile.ParquetDataBlock:
			pf, err := parquet.OpenBytes(bl.Content, p, memory.DefaultAllocator, 0)
			if err != nil {
				return nil, nil, fmt.Errorf("record index: %s: %w", p, err)
			}
			keys, err := parquetKeys(ctx, pf)
			pf.Close()
			if err != nil {
				return nil, nil, err
			}
			data = append(data, keys...)
		case logfile.HFileDataBlock:
			r, err := hfile.OpenBytes(bl.Content, p)
			if err != nil {
				return nil, nil, fmt.Errorf("record index: %s: %w", p, err)
			}
			it := r.All()
			for it.Next() {
				data = append(data, string(it.Key()))
			}
			if err := it.Err(); err != nil {
				return nil, nil, fmt.Errorf("record index: %s: %w", p, err)
			}
		}
	}
	return data, deleted, nil
}
