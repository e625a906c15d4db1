package mdtwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// soloCommitTimestamp is the initialization time of a table without completed instants
// (HoodieTableMetadata.SOLO_COMMIT_TIMESTAMP).
const soloCommitTimestamp = "00000000000000"

// Prepare runs before an operation changes the table (table.MetadataWriter): it builds
// the metadata table of a table that has none and, for one that has it and a write
// (Options.Services), runs the metadata table's own services, as Java's write client does
// when it opens a table for a write (SparkRDDWriteClient.initializeMetadataTable:
// initializeIfNeeded, then performTableServices). A metadata table that hoodie.properties lists but that has no
// completed instant is rebuilt (isBootstrapNeeded); one it does not list is leftover of an
// interrupted bootstrap and is rebuilt too.
func (w *Writer) Prepare(ctx context.Context, t *table.Table) (*table.Table, error) {
	release, err := w.lock(ctx, "prepare the metadata table")
	if err != nil {
		return nil, err
	}
	defer release()
	if t, err = w.dropUnmaintained(ctx, t); err != nil {
		return nil, err
	}
	cfg, err := table.LoadConfig(ctx, w.st)
	if err != nil {
		return nil, err
	}
	if filesAvailable(cfg) {
		tl, err := timeline.Load(ctx, w.mst, t.Version, "")
		switch {
		case err == nil && len(tl.Completed()) > 0:
			if t, err = w.addMissingIndexes(ctx, t); err != nil {
				return nil, err
			}
			if w.o.Services {
				if err := w.tableServices(ctx, t); err != nil {
					return nil, err
				}
			}
			return t, nil
		case err != nil && !errors.Is(err, storage.ErrNotExist):
			return nil, fmt.Errorf("metadata table: %w", err)
		}
		w.o.Logger.Warn("the metadata table has no completed instant; rebuilding it", "table", cfg.Name())
	}
	return w.bootstrap(ctx, t)
}

// bootstrap builds the metadata table from a listing of the data table, as Java's
// initializeFromFilesystem does for the files partition: at the latest completed instant
// plus "010" (or 00000000000000010 for a table without one), one file group files-0000-0
// started with a log file holding an empty delete block, and a bulk-inserted base HFile
// of the partitions and their files; hoodie.properties then names the files partition.
// Java does not initialize while any data instant other than the running one is pending
// (anyPendingDataInstant); the operation then goes on without a metadata table.
func (w *Writer) bootstrap(ctx context.Context, t *table.Table) (*table.Table, error) {
	t, err := t.Reopen(ctx)
	if err != nil {
		return nil, err
	}
	// Leftovers of an earlier attempt (or a table hoodie.properties does not name) go.
	if _, err := t.DisableMetadataTable(ctx, w.o.Now()); err != nil {
		return nil, err
	}
	if t, err = t.Reopen(ctx); err != nil {
		return nil, err
	}
	var pending []string
	for _, in := range t.Timeline.Instants {
		if !in.IsCompleted() && in.Action != spec.ActionIndexing {
			pending = append(pending, fmt.Sprintf("%s %s", in.Time, in.Action))
		}
	}
	if len(pending) > 0 {
		w.o.Logger.Debug("not building the metadata table while instants are pending on the data table (as Java); the next operation will",
			"table", t.Config.Name(), "pending", strings.Join(pending, ", "))
		return t, nil
	}
	initTime := spec.InstantTime(soloCommitTimestamp)
	if c := t.Timeline.Completed(); len(c) > 0 {
		initTime = c[len(c)-1].Time
	}
	instant := initInstant(t.Timeline.Layout, initTime, nil)
	recs, nfiles, err := w.listForBootstrap(ctx, initTime)
	if err != nil {
		return nil, err
	}
	if !*w.o.AutoInitialize && nfiles > 0 {
		return nil, fmt.Errorf("table %s: hoodie.metadata.auto.initialize=false would build its metadata table empty although the table has %d files "+
			"(Java does so, and its readers then see no files); set hoodie.metadata.auto.initialize=true or hoodie.metadata.enable=false", t.Config.Name(), nfiles)
	}
	if err := w.createTable(ctx, t); err != nil {
		return nil, err
	}
	if err := w.initFileGroups(ctx, mdt.PartitionFiles, 1, instant); err != nil {
		return nil, err
	}
	if err := w.bulkCommit(ctx, t.Version, instant, mdt.PartitionFiles, recs, 1); err != nil {
		return nil, err
	}
	if err := w.setPartitionAvailable(ctx, t, mdt.PartitionFiles); err != nil {
		return nil, err
	}
	w.o.Logger.Debug("built the metadata table", "table", t.Config.Name(), "instant", instant, "partitions", len(recs)-1, "files", nfiles)
	if t, err = t.Reopen(ctx); err != nil {
		return nil, err
	}
	return w.addMissingIndexes(ctx, t)
}

// setPartitionAvailable lists partition in hoodie.table.metadata.partitions (sorted, as
// the Spark fixtures list theirs): readers and writers then use it
// (HoodieTableConfig.setMetadataPartitionState).
func (w *Writer) setPartitionAvailable(ctx context.Context, t *table.Table, partition string) error {
	cfg, err := table.LoadConfig(ctx, w.st)
	if err != nil {
		return err
	}
	list := []string{partition}
	for _, p := range cfg.MetadataPartitions() {
		if p != partition {
			list = append(list, p)
		}
	}
	sort.Strings(list)
	if err := t.UpdateProperties(ctx, func(p *props.Properties) {
		p.Set(table.KeyMetadataPartitions, strings.Join(list, ","))
		p.Set(table.KeyMetadataPartitionsInflight, "")
	}, w.o.Now()); err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	return nil
}

// listForBootstrap lists the data table's partitions and their data files written at or
// before initTime (Java's DirectoryInfo: directories holding a partition metadata file,
// the base and log files in them whose instant is at most the initialization time) as
// the files partition's records, and counts the files.
func (w *Writer) listForBootstrap(ctx context.Context, initTime spec.InstantTime) ([]*mdt.Record, int, error) {
	parts, err := w.listDataFiles(ctx, initTime)
	if err != nil {
		return nil, 0, err
	}
	var partitions []string
	var recs []*mdt.Record
	n := 0
	for _, p := range parts {
		partitions = append(partitions, p.path)
		n += len(p.files)
		recs = append(recs, mdt.PartitionFilesRecord(p.path, p.files, nil))
	}
	return append([]*mdt.Record{mdt.PartitionListRecord(partitions, false)}, recs...), n, nil
}

// partitionFiles is one data partition's base and log files with their sizes.
type partitionFiles struct {
	path  string
	files map[string]int64
}

// listDataFiles lists the data table's partitions (in listing order) and their base and
// log files whose instant is at most upTo.
func (w *Writer) listDataFiles(ctx context.Context, upTo spec.InstantTime) ([]partitionFiles, error) {
	listing, err := fsview.ListPartitions(ctx, w.st)
	if err != nil {
		return nil, fmt.Errorf("metadata table: list the table: %w", err)
	}
	var out []partitionFiles
	for _, p := range listing.Partitions {
		files := map[string]int64{}
		for _, f := range p.Files {
			var inst spec.InstantTime
			if b, ok := spec.ParseBaseFileName(f.Name); ok {
				inst = b.Instant
			} else if l, ok := spec.ParseLogFileName(f.Name); ok {
				inst = l.Instant
			} else {
				continue
			}
			if string(inst) <= string(upTo) {
				files[f.Name] = f.Size
			}
		}
		out = append(out, partitionFiles{path: p.Path, files: files})
	}
	return out, nil
}

// metadataTableName is the metadata table's name (HoodieTableMetadata.METADATA_TABLE_NAME_SUFFIX).
func metadataTableName(data string) string { return data + "_metadata" }

// createTable writes the metadata table's .hoodie folder and hoodie.properties as Java
// 0.14's initializeMetaClient does: a merge-on-read table named <table>_metadata with
// HFile base files, the record key "key", no meta fields, HoodieMetadataPayload and the
// metadata key generator, in the data table's version and timeline layout.
//
// UNVERIFIED against a 0.14-written metadata table (no fixture has one): which defaults
// HoodieTableMetaClient.PropertyBuilder adds besides these. The v8 fixture's metadata
// table has these keys (and the 1.x ones: merge mode and strategy, key generator type).
//
// Of a version 8/9 table it writes the keys the Spark fixtures' metadata tables have
// (cow/v9_txns_simple_meta, trips-mor-avro/v8_trips_8i3u1d), and nothing else: version and
// initial version the data table's, timeline layout 2 under timeline/ with its history in
// history/ (hoodie.archivelog.folder names it too), the merge mode CUSTOM with the
// payload-based strategy id, the key generator type HOODIE_TABLE_METADATA instead of the
// class, and hoodie.datasource.write.drop.partition.columns=false.
func (w *Writer) createTable(ctx context.Context, t *table.Table) error {
	p := props.New()
	p.Set(table.KeyName, metadataTableName(t.Config.Name()))
	p.Set(table.KeyType, string(spec.MergeOnRead))
	p.Set(table.KeyPayloadClass, "org.apache.hudi.metadata.HoodieMetadataPayload")
	p.Set(table.KeyBaseFileFormat, "HFILE")
	p.Set(table.KeyRecordKeyFields, "key")
	p.Set(table.KeyPopulateMetaFields, "false")
	dirs := []string{".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids", ".hoodie/.schema", ".hoodie/.temp", ".hoodie/.heartbeat"}
	if t.Timeline.Layout.CompletionTimes() {
		v := fmt.Sprint(int(t.Version))
		p.Set(table.KeyVersion, v)
		p.Set(table.KeyInitialVersion, v)
		p.Set(table.KeyTimelineLayout, "2")
		p.Set(table.KeyTimelinePath, timeline.DefaultTimelineFolder)
		p.Set(table.KeyTimelineHistoryPath, timeline.DefaultHistoryFolder)
		p.Set(table.KeyArchiveLogFolder, timeline.DefaultHistoryFolder)
		p.Set(table.KeyMergeMode, table.MergeModeCustom)
		p.Set(table.KeyMergeStrategyID, payloadMergeStrategyID)
		p.Set(table.KeyKeyGeneratorType, "HOODIE_TABLE_METADATA")
		p.Set(table.KeyDropPartitionColumns, "false")
		dirs = append(dirs, storage.Join(t.Timeline.Layout.Dir(""), timeline.DefaultHistoryFolder))
	} else {
		p.Set(table.KeyVersion, "6")
		p.Set(table.KeyTimelineLayout, "1")
		p.Set(table.KeyArchiveLogFolder, "archived")
		p.Set(table.KeyKeyGeneratorClass, "org.apache.hudi.metadata.HoodieTableMetadataKeyGenerator")
		dirs = append(dirs, ".hoodie/archived")
	}
	if err := props.SetChecksum(p); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := w.mst.MkdirAll(ctx, d); err != nil {
			return fmt.Errorf("metadata table: %w", err)
		}
	}
	var buf bytes.Buffer
	if err := props.Write(&buf, p, w.o.Now()); err != nil {
		return err
	}
	if err := writeNew(ctx, w.mst, table.PropertiesFile, buf.Bytes()); err != nil {
		return fmt.Errorf("metadata table: create: %w", err)
	}
	return nil
}

// fileGroupID is the file ID of a metadata partition's file group index
// (HoodieTableMetadataUtil.getFileIDForFileGroup: the partition type's file ID prefix,
// 4-digit index, "-0"). MetadataPartitionType's prefixes: files-, col-stats-,
// bloom-filters-, record-index- (Spark's column_stats file groups are col-stats-NNNN-0).
func fileGroupID(partition string, index int) spec.FileID {
	prefix := strings.ReplaceAll(partition, "_", "-")
	if partition == mdt.PartitionColumnStats {
		prefix = "col-stats"
	}
	return spec.FileID(fmt.Sprintf("%s-%04d-0", prefix, index))
}

// initFileGroups starts count file groups of a metadata partition as Java's
// initializeFileGroups does: leftovers in the partition's folder go, then its partition
// metadata file, and for each file group a log file (version 1, write token 0-0-0) at the
// initialization instant holding an empty delete block, so that the file group exists
// before anything is committed to it.
func (w *Writer) initFileGroups(ctx context.Context, partition string, count int, instant spec.InstantTime) error {
	if err := storage.DeleteTree(ctx, w.mst, partition); err != nil {
		return fmt.Errorf("metadata table: clear partition %s: %w", partition, err)
	}
	if err := writePartitionMetadata(ctx, w.mst, partition, instant, w.o); err != nil {
		return err
	}
	empty, err := logfile.EncodeDeleteBlock(nil)
	if err != nil {
		return err
	}
	body, err := logfile.AppendBlock(nil, &logfile.Block{Type: logfile.DeleteBlock, Header: map[logfile.HeaderKey]string{logfile.InstantTime: string(instant)}, Content: empty})
	if err != nil {
		return err
	}
	for i := 0; i < count; i++ {
		name := spec.LogFileName{FileID: fileGroupID(partition, i), Instant: instant, Extension: "log", Version: 1, WriteToken: "0-0-0"}
		if err := writeNew(ctx, w.mst, storage.Join(partition, name.String()), body); err != nil {
			return fmt.Errorf("metadata table: start file group %s: %w", name.FileID, err)
		}
	}
	return nil
}

// writePartitionMetadata writes a partition's .hoodie_partition_metadata (commitTime,
// partitionDepth), as the first file written into it does.
func writePartitionMetadata(ctx context.Context, st storage.Storage, partition string, instant spec.InstantTime, o Options) error {
	m := props.New()
	m.Set("commitTime", string(instant))
	m.Set("partitionDepth", fmt.Sprint(strings.Count(partition, "/")+1))
	var sb strings.Builder
	if err := props.Store(&sb, m, "partition metadata", o.Now()); err != nil {
		return err
	}
	if err := writeNew(ctx, st, path.Join(partition, fsview.PartitionMetadataFile), []byte(sb.String())); err != nil && !errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("metadata table: partition metadata of %s: %w", partition, err)
	}
	return nil
}

// bulkCommit writes the initial records of a metadata partition with count file groups
// in a deltacommit at instant, as Java's bulkCommit (a bulk insert of prepped records,
// with the empty inflight file bulk inserts have): the records of each file group (the
// one their key hashes to) become its base HFile; a file group without records keeps
// only its initial log file.
func (w *Writer) bulkCommit(ctx context.Context, version spec.TableVersion, instant spec.InstantTime, partition string, recs []*mdt.Record, count int) error {
	tl, err := w.mdtTimeline(ctx, version)
	if err != nil {
		return err
	}
	txn, err := w.timeline().BeginAt(ctx, tl, instant, spec.ActionDeltaCommit, nil, nil)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	defer txn.Close()
	byGroup := make([][]*mdt.Record, count)
	for _, r := range recs {
		i := mdt.FileGroupIndex(r.Key, count)
		byGroup[i] = append(byGroup[i], r)
	}
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: w.extraMetadata(tl), OperationType: bulkOperation(version)}
	for i, group := range byGroup {
		if len(group) == 0 && !(partition == mdt.PartitionFiles && i == 0) {
			continue
		}
		content, err := w.enc.BuildHFile(group, mdt.BaseFile)
		if err != nil {
			return err
		}
		name := spec.BaseFileName{FileID: fileGroupID(partition, i), WriteToken: logToken(i), Instant: instant, Extension: "hfile"}
		if err := txn.Marker(ctx, partition, name.String(), commit.IOCreate); err != nil {
			return err
		}
		p := storage.Join(partition, name.String())
		if err := writeNew(ctx, w.mst, p, content); err != nil {
			return fmt.Errorf("metadata table: base file %s: %w", p, err)
		}
		n, size := int64(len(group)), int64(len(content))
		meta.PartitionToWriteStats[partition] = append(meta.PartitionToWriteStats[partition], commitmeta.WriteStat{
			FileID: string(name.FileID), Path: p, PrevCommit: commitmeta.NullCommit, NumWrites: n, NumInserts: n,
			TotalWriteBytes: size, PartitionPath: partition, FileSizeInBytes: size, RuntimeStats: &commitmeta.RuntimeStats{},
		})
	}
	if err := txn.Complete(ctx, meta); err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	return nil
}
