package mdtwrite

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage"
)

// The column_stats and bloom_filters partitions, kept as Java 0.14's HoodieTableMetadataUtil
// keeps them (read through the code index; 0.13/0.14-era source, UNVERIFIED against the
// 0.14.1 release):
//   - a commit, deltacommit, compaction or clustering adds the column stats of every file
//     it wrote (Parquet base files from their footers, log files from their records:
//     mdt.ParquetColumnStats, mdt.LogColumnStats) and the bloom filter of every base file
//     it wrote (delta writes change no base file's filter);
//   - a clean leaves a tombstone for every column of every Parquet file it deleted, and for
//     the bloom filter of every base file it deleted (Java tombstones no log file's column
//     stats: they stay live, naming a file that is gone);
//   - a rollback adds nothing: the records of the instant it rolled back go with that
//     instant's metadata deltacommit (Java passes only the appended log files, which have
//     neither a footer nor new records);
//   - a restore that keeps the metadata table syncs these partitions with the files
//     partition (restoreIndexRecords); one that deletes it rebuilds them.
// The columns indexed are hoodie.metadata.index.column.stats.column.list, or when it is
// empty every top-level field of the commit's writer schema (extraMetadata "schema") with
// the meta fields first when the table populates them (getColumnsToIndex, addMetadataFields);
// a commit without a schema indexes nothing, as Java's.

// columnsToIndex returns the column list, or the fields of the Avro schema schemaJSON.
func (w *Writer) columnsToIndex(schemaJSON string, populateMeta bool) ([]string, error) {
	if len(w.o.ColumnStatsColumns) > 0 {
		return w.o.ColumnStatsColumns, nil
	}
	if schemaJSON == "" {
		return nil, nil
	}
	var s struct {
		Fields []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		return nil, fmt.Errorf("column stats: writer schema: %w", err)
	}
	var out []string
	if populateMeta {
		out = append(out, schema.MetaFields[:]...)
	}
	for _, f := range s.Fields {
		if populateMeta && schema.IsMetaField(f.Name) {
			continue
		}
		out = append(out, f.Name)
	}
	return out, nil
}

// fileColumnStats computes the column stats of a data file (relative path p) of data
// partition partition: nil for a file that is neither a Parquet base file nor a log file.
func fileColumnStats(ctx context.Context, st storage.Storage, partition, p string, columns []string) ([]*mdt.Record, error) {
	name := path.Base(p)
	var stats []*mdt.ColumnStats
	switch {
	case strings.HasSuffix(name, ".parquet"):
		f, err := st.Open(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("column stats: %w", table.MissingFile(err))
		}
		defer f.Close()
		pf, err := parquet.Open(f, f.Size(), p, memory.DefaultAllocator, 0)
		if err != nil {
			return nil, fmt.Errorf("column stats: %w", err)
		}
		defer pf.Close()
		if stats, err = mdt.ParquetColumnStats(pf, name, columns); err != nil {
			return nil, err
		}
	default:
		if _, ok := spec.ParseLogFileName(name); !ok {
			return nil, nil
		}
		b, err := st.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("column stats: %w", table.MissingFile(err))
		}
		blocks, err := logfile.ReadAll(strings.NewReader(string(b)), int64(len(b)), p)
		if err != nil {
			return nil, fmt.Errorf("column stats: %w", err)
		}
		if stats, err = mdt.LogColumnStats(blocks, name, columns); err != nil {
			return nil, err
		}
	}
	out := make([]*mdt.Record, 0, len(stats))
	for _, cs := range stats {
		out = append(out, mdt.ColumnStatsRecord(partition, cs))
	}
	return out, nil
}

// commitColumnStats are the column_stats records of a completed write's files.
func (w *Writer) commitColumnStats(ctx context.Context, cfg *table.Config, meta *commitmeta.CommitMetadata) ([]*mdt.Record, error) {
	columns, err := w.columnsToIndex(meta.Schema(), cfg.PopulateMetaFields())
	if err != nil || len(columns) == 0 {
		return nil, err
	}
	var out []*mdt.Record
	for partition, stats := range meta.PartitionToWriteStats {
		for _, st := range stats {
			if st.Path == "" {
				continue
			}
			recs, err := fileColumnStats(ctx, w.st, partition, st.Path, columns)
			if err != nil {
				return nil, err
			}
			out = append(out, recs...)
		}
	}
	return out, nil
}

// fileBloomFilter is the bloom_filters record of a Parquet base file (relative path p),
// written by instant; nil for any other file, or a base file without a filter (Java logs
// an error and writes none).
func (w *Writer) fileBloomFilter(ctx context.Context, partition, p string, instant spec.InstantTime) (*mdt.Record, error) {
	name := path.Base(p)
	if !strings.HasSuffix(name, ".parquet") {
		return nil, nil
	}
	if _, ok := spec.ParseBaseFileName(name); !ok {
		return nil, nil
	}
	f, err := w.st.Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("bloom filter: %w", table.MissingFile(err))
	}
	defer f.Close()
	fk, err := parquet.ReadFooterKeys(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("bloom filter of %s: %w", p, err)
	}
	if !fk.HasBloom {
		w.o.Logger.Warn("a base file has no bloom filter; the metadata table's bloom_filters partition will not list it", "file", p)
		return nil, nil
	}
	text, err := fk.BloomFilterText(f)
	if err != nil {
		return nil, fmt.Errorf("bloom filter of %s: %w", p, err)
	}
	// Java records the write config's hoodie.bloom.index.filter.type, which is the type the
	// file was written with; the footer's type code says it for files written otherwise.
	typ := fk.BloomType
	if typ == "" {
		typ = w.o.BloomFilterType
	}
	return mdt.BloomFilterRecord(partition, name, &mdt.BloomFilterInfo{Type: typ, Timestamp: string(instant), Filter: []byte(text)}), nil
}

// commitBloomFilters are the bloom_filters records of the base files a write created
// (convertMetadataToBloomFilterRecords: delta write stats are skipped).
func (w *Writer) commitBloomFilters(ctx context.Context, instant spec.InstantTime, meta *commitmeta.CommitMetadata) ([]*mdt.Record, error) {
	var out []*mdt.Record
	for partition, stats := range meta.PartitionToWriteStats {
		for _, st := range stats {
			if st.Path == "" {
				continue
			}
			r, err := w.fileBloomFilter(ctx, partition, st.Path, instant)
			if err != nil {
				return nil, err
			}
			if r != nil {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// cleanIndexRecords are the column_stats and bloom_filters tombstones of a clean's
// deleted base files; the columns are those of the table's current schema.
func (w *Writer) cleanIndexRecords(ctx context.Context, cfg *table.Config, instant spec.InstantTime, m *commitmeta.CleanMetadata, recs map[string][]*mdt.Record) error {
	var columns []string
	if hasPartition(cfg, mdt.PartitionColumnStats) {
		t, err := table.Open(ctx, w.st)
		if err != nil {
			return err
		}
		s, err := t.SchemaAt(ctx, "")
		if err != nil {
			return fmt.Errorf("column stats: table schema: %w", err)
		}
		if columns, err = w.columnsToIndex(s, cfg.PopulateMetaFields()); err != nil {
			return err
		}
	}
	for partition, pm := range m.PartitionMetadata {
		for _, f := range pm.DeletePathPatterns {
			name := path.Base(f)
			if !strings.HasSuffix(name, ".parquet") {
				continue
			}
			for _, col := range columns {
				recs[mdt.PartitionColumnStats] = append(recs[mdt.PartitionColumnStats],
					mdt.ColumnStatsRecord(partition, mdt.ColumnStatsTombstone(name, col)))
			}
			if hasPartition(cfg, mdt.PartitionBloomFilters) {
				recs[mdt.PartitionBloomFilters] = append(recs[mdt.PartitionBloomFilters],
					mdt.BloomFilterRecord(partition, name, &mdt.BloomFilterInfo{Timestamp: string(instant), Filter: []byte{}, IsDeleted: true}))
			}
		}
	}
	return nil
}

// addIndexPartition builds the column_stats or bloom_filters partition of a table whose
// metadata table has its files partition, as Java's initializeFromFilesystem does for
// them: at the latest completed instant plus the first unused initialization suffix, from
// every data file of a listing (Parquet base files only: Java reads no log file then),
// in count file groups (hoodie.metadata.index.*.file.group.count); hoodie.properties then
// lists the partition. Nothing is built while a data instant is pending.
func (w *Writer) addIndexPartition(ctx context.Context, t *table.Table, partition string) (*table.Table, error) {
	t, err := t.Reopen(ctx)
	if err != nil {
		return nil, err
	}
	for _, in := range t.Timeline.Instants {
		if !in.IsCompleted() && in.Action != spec.ActionIndexing {
			w.o.Logger.Debug("not building a metadata index while instants are pending on the data table (as Java); the next operation will",
				"table", t.Config.Name(), "partition", partition, "pending", in.Time)
			return t, nil
		}
	}
	initTime, instant, err := w.initInstant(ctx, t)
	if err != nil {
		return nil, err
	}
	files, err := w.listDataFiles(ctx, initTime)
	if err != nil {
		return nil, err
	}
	var recs []*mdt.Record
	count := w.o.BloomFilterFileGroups
	switch partition {
	case mdt.PartitionColumnStats:
		count = w.o.ColumnStatsFileGroups
		s, err := t.SchemaAt(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("column stats: table schema: %w", err)
		}
		columns, err := w.columnsToIndex(s, t.Config.PopulateMetaFields())
		if err != nil {
			return nil, err
		}
		if len(columns) > 0 {
			for _, pf := range files {
				for _, name := range sortedKeys(pf.files) {
					if !strings.HasSuffix(name, ".parquet") {
						continue
					}
					r, err := fileColumnStats(ctx, w.st, pf.path, storage.Join(pf.path, name), columns)
					if err != nil {
						return nil, err
					}
					recs = append(recs, r...)
				}
			}
		}
	case mdt.PartitionBloomFilters:
		for _, pf := range files {
			for _, name := range sortedKeys(pf.files) {
				r, err := w.fileBloomFilter(ctx, pf.path, storage.Join(pf.path, name), instant)
				if err != nil {
					return nil, err
				}
				if r != nil {
					recs = append(recs, r)
				}
			}
		}
	default:
		return nil, fmt.Errorf("metadata table: no index partition %q", partition)
	}
	if err := w.initFileGroups(ctx, partition, count, instant); err != nil {
		return nil, err
	}
	if err := w.bulkCommit(ctx, t.Version, instant, partition, recs, count); err != nil {
		return nil, err
	}
	if err := w.setPartitionAvailable(ctx, t, partition); err != nil {
		return nil, err
	}
	w.o.Logger.Debug("built a metadata index", "table", t.Config.Name(), "partition", partition, "instant", instant, "records", len(recs), "file_groups", count)
	return t.Reopen(ctx)
}

// initInstant is the initialization instant of a partition added to the metadata table:
// the latest completed data instant (or 00000000000000) plus the first suffix from "010"
// the metadata table has not used (generateUniqueCommitInstantTime).
func (w *Writer) initInstant(ctx context.Context, t *table.Table) (initTime, instant spec.InstantTime, err error) {
	initTime = spec.InstantTime(soloCommitTimestamp)
	if c := t.Timeline.Completed(); len(c) > 0 {
		initTime = c[len(c)-1].Time
	}
	tl, err := w.mdtTimeline(ctx, t.Version)
	if err != nil {
		return "", "", err
	}
	for off := 0; ; off++ {
		instant = spec.InstantTime(fmt.Sprintf("%s%03d", initTime, suffixInitFirst+off))
		if len(tl.At(instant)) == 0 {
			return initTime, instant, nil
		}
	}
}

// addMissingIndexes builds the enabled index partitions hoodie.properties does not list
// yet, in Java's order of MetadataPartitionType (column_stats, bloom_filters, then the
// record index).
func (w *Writer) addMissingIndexes(ctx context.Context, t *table.Table) (*table.Table, error) {
	for _, p := range []struct {
		name string
		on   bool
	}{{mdt.PartitionColumnStats, w.o.ColumnStats}, {mdt.PartitionBloomFilters, w.o.BloomFilters}, {mdt.PartitionRecordIndex, w.o.RecordIndex}} {
		if !p.on {
			continue
		}
		cfg, err := table.LoadConfig(ctx, w.st)
		if err != nil {
			return nil, err
		}
		if hasPartition(cfg, p.name) {
			continue
		}
		if p.name == mdt.PartitionRecordIndex {
			t, err = w.addRecordIndex(ctx, t)
		} else {
			t, err = w.addIndexPartition(ctx, t, p.name)
		}
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// restoreIndexRecords are the column_stats and bloom_filters records that go with the
// files-partition records of a restore's sync (restoreSyncRecords): the metadata table,
// restored to the savepoint, has the live records of Parquet files a clean after the
// savepoint deleted (the clean's tombstones were rolled back with it), so each Parquet file
// the sync deletes gets its tombstones, and each it adds its stats and filter.
// UNVERIFIED: Java 0.14 rebuilds rather than syncs these partitions (hudi-go's restore of
// the metadata table is described in restore).
func (w *Writer) restoreIndexRecords(ctx context.Context, cfg *table.Config, rs spec.InstantTime, files []*mdt.Record) (map[string][]*mdt.Record, error) {
	out := map[string][]*mdt.Record{}
	stats, blooms := hasPartition(cfg, mdt.PartitionColumnStats), hasPartition(cfg, mdt.PartitionBloomFilters)
	if !stats && !blooms {
		return out, nil
	}
	var columns []string
	if stats {
		t, err := table.Open(ctx, w.st)
		if err != nil {
			return nil, err
		}
		s, err := t.SchemaAt(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("column stats: table schema: %w", err)
		}
		if columns, err = w.columnsToIndex(s, cfg.PopulateMetaFields()); err != nil {
			return nil, err
		}
	}
	for _, r := range files {
		if r.Type != mdt.TypeFileList {
			continue
		}
		partition := r.Key
		if partition == mdt.NonPartitionedName {
			partition = ""
		}
		for _, name := range sortedKeys(r.Files) {
			if !strings.HasSuffix(name, ".parquet") {
				continue
			}
			if r.Files[name].IsDeleted {
				for _, col := range columns {
					out[mdt.PartitionColumnStats] = append(out[mdt.PartitionColumnStats], mdt.ColumnStatsRecord(partition, mdt.ColumnStatsTombstone(name, col)))
				}
				if blooms {
					out[mdt.PartitionBloomFilters] = append(out[mdt.PartitionBloomFilters],
						mdt.BloomFilterRecord(partition, name, &mdt.BloomFilterInfo{Timestamp: string(rs), Filter: []byte{}, IsDeleted: true}))
				}
				continue
			}
			p := storage.Join(partition, name)
			if len(columns) > 0 {
				recs, err := fileColumnStats(ctx, w.st, partition, p, columns)
				if err != nil {
					return nil, err
				}
				out[mdt.PartitionColumnStats] = append(out[mdt.PartitionColumnStats], recs...)
			}
			if blooms {
				r, err := w.fileBloomFilter(ctx, partition, p, rs)
				if err != nil {
					return nil, err
				}
				if r != nil {
					out[mdt.PartitionBloomFilters] = append(out[mdt.PartitionBloomFilters], r)
				}
			}
		}
	}
	return out, nil
}
