package mdtwrite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// deltaCommit writes recs as the metadata table's deltacommit at instant, as Java's
// commitInternal upserts prepped records: failed metadata writes are rolled back first
// (EAGER), a completed deltacommit of the same instant (a retried data instant) is rolled
// back too, then each record goes to the file group its key hashes to
// (mapRecordKeyToFileGroupIndex), and each file group with records gets a new log file on
// its latest slice holding one HFILE_DATA_BLOCK (and a DELETE_BLOCK for deleted keys).
// A deltacommit is written even without records, as Java's is. Its commit metadata has
// empty extraMetadata, as the metadata table's commits in the Hudi 1.0 fixture
// trips-mor-avro/v8_trips_8i3u1d have (UNVERIFIED for 0.14).
func (w *Writer) deltaCommit(ctx context.Context, version spec.TableVersion, instant spec.InstantTime, byPartition map[string][]*mdt.Record) error {
	for p, recs := range byPartition {
		merged, err := mdt.MergeRecords(recs)
		if err != nil {
			return err
		}
		byPartition[p] = merged
	}
	ct := w.timeline()
	tl, err := w.mdtTimeline(ctx, version)
	if err != nil {
		return err
	}
	if rolled, err := ct.RollbackFailedWrites(ctx, tl); err != nil {
		return fmt.Errorf("metadata table: roll back failed writes: %w", err)
	} else if len(rolled) > 0 {
		if tl, err = w.mdtTimeline(ctx, version); err != nil {
			return err
		}
	}
	if in, ok := tl.Get(instant, spec.ActionDeltaCommit); ok && in.IsCompleted() {
		w.o.Logger.Debug("metadata table: rolling back the deltacommit of an instant applied again", "instant", instant)
		if _, err := ct.RollbackInstant(ctx, tl, in); err != nil {
			return fmt.Errorf("metadata table: roll back deltacommit %s applied again: %w", instant, err)
		}
		if tl, err = w.mdtTimeline(ctx, version); err != nil {
			return err
		}
	}
	pending, err := commit.PendingCompactionGroups(ctx, w.mst, tl, false)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	// Each partition's records go to the file group their key hashes to among its file
	// groups (prepRecords: mapRecordKeyToFileGroupIndex over the latest slices).
	type group struct {
		sl   fsview.FileSlice
		recs []*mdt.Record
	}
	var groups []group
	// The workload profile of an upsert of prepped records, all of them updates of their
	// file group (BaseCommitActionExecutor.saveWorkloadProfileMetadataToInflight).
	profile := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: map[string]string{},
		OperationType: "UPSERT_PREPPED", Profile: true}
	for _, partition := range sortedKeys(byPartition) {
		slices, err := latestSlices(ctx, w.mst, tl, partition)
		if err != nil {
			return err
		}
		if len(slices) == 0 {
			return fmt.Errorf("metadata table: partition %s has no file group", partition)
		}
		byGroup := make([][]*mdt.Record, len(slices))
		for _, r := range byPartition[partition] {
			i := mdt.FileGroupIndex(r.Key, len(slices))
			byGroup[i] = append(byGroup[i], r)
		}
		profile.PartitionToWriteStats[partition] = []commitmeta.WriteStat{{PrevCommit: commitmeta.NullCommit}}
		for i, sl := range slices {
			if len(byGroup[i]) > 0 {
				profile.PartitionToWriteStats[partition] = append(profile.PartitionToWriteStats[partition],
					commitmeta.WriteStat{FileID: string(sl.FileID), PrevCommit: string(sliceBase(sl, pending)), NumUpdateWrites: int64(len(byGroup[i]))})
				groups = append(groups, group{sl, byGroup[i]})
			}
		}
	}
	txn, err := ct.BeginAt(ctx, tl, instant, spec.ActionDeltaCommit, nil, profile)
	if err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	defer txn.Close()
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{},
		ExtraMetadata: w.extraMetadata(tl), OperationType: "UPSERT_PREPPED"}
	for i, g := range groups {
		st, err := w.appendLog(ctx, txn, g.sl, sliceBase(g.sl, pending), g.recs, i, tl.Layout.LogFilesPerWrite())
		if err != nil {
			return fmt.Errorf("metadata table: deltacommit %s: %w", instant, err)
		}
		meta.PartitionToWriteStats[g.sl.Partition] = append(meta.PartitionToWriteStats[g.sl.Partition], st)
	}
	if err := txn.Complete(ctx, meta); err != nil {
		return fmt.Errorf("metadata table: %w", err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sliceBase is the base instant new log files of sl are named after: the slice's, or the
// instant of a compaction pending on its file group (whose slice they extend).
func sliceBase(sl fsview.FileSlice, pending map[string]spec.InstantTime) spec.InstantTime {
	if c, ok := pending[sl.Partition+"/"+string(sl.FileID)]; ok {
		return c
	}
	return sl.BaseInstant
}

// latestSlices returns the latest file slice of each file group of a metadata-table
// partition, in file ID order (HoodieTableMetadataUtil.getPartitionLatestFileSlices).
func latestSlices(ctx context.Context, mst storage.Storage, tl *timeline.Timeline, partition string) ([]fsview.FileSlice, error) {
	listing, err := fsview.ListPartitionsIn(ctx, mst, []string{partition})
	if err != nil {
		return nil, fmt.Errorf("metadata table: list partition %s: %w", partition, err)
	}
	view, err := fsview.Build(ctx, listing, tl, fsview.Options{})
	if err != nil {
		return nil, fmt.Errorf("metadata table: partition %s: %w", partition, err)
	}
	slices := view.LatestSlices()
	sort.Slice(slices, func(i, j int) bool { return slices[i].FileID < slices[j].FileID })
	return slices, nil
}

// logToken is the write token of the metadata table's log files: hudi-go's task token,
// as its data writer gives (the file group's index stands in for Spark's task id).
func logToken(task int) spec.WriteToken { return spec.WriteToken(fmt.Sprintf("%d-1-%d", task, task)) }

// appendLog writes one file group's records as a new log file of its slice (Java's
// HoodieAppendHandle on a file system without appends: a new log version, never an
// append to an existing file) and returns its write stat (HoodieDeltaWriteStat).
//
// On timeline layout 2 (ownLogs) the log file is the deltacommit's own, named by its
// instant from version 1 on, as Hudi 1.x names every log file (the Spark fixtures'
// metadata tables: .files-0000-0_<deltacommit>.log.1_…); its stat's prevCommit is the
// deltacommit, baseFile empty and logFiles only the file written, as the data writer
// writes them on layout 2.
func (w *Writer) appendLog(ctx context.Context, txn *commit.Txn, sl fsview.FileSlice, base spec.InstantTime, recs []*mdt.Record, task int, ownLogs bool) (commitmeta.WriteStat, error) {
	start := time.Now()
	header := map[logfile.HeaderKey]string{logfile.InstantTime: string(txn.Instant), logfile.Schema: w.enc.JSON}
	var data []*mdt.Record
	var dels []logfile.DeleteRecord
	for _, r := range recs {
		if r.Deleted {
			// A deleted key (a record index entry): Java's EmptyHoodieRecordPayload, whose
			// delete carries the default ordering value.
			dels = append(dels, logfile.DeleteRecord{RecordKey: r.Key, PartitionPath: mdt.PartitionRecordIndex, OrderingValue: int32(0)})
			continue
		}
		data = append(data, r)
	}
	var body []byte
	if len(data) > 0 {
		content, err := w.enc.BuildHFile(data, mdt.LogBlock)
		if err != nil {
			return commitmeta.WriteStat{}, err
		}
		if body, err = logfile.AppendBlock(body, &logfile.Block{Type: logfile.HFileDataBlock, Header: header, Content: content}); err != nil {
			return commitmeta.WriteStat{}, err
		}
	}
	if len(dels) > 0 {
		content, err := logfile.EncodeDeleteBlock(dels)
		if err != nil {
			return commitmeta.WriteStat{}, err
		}
		if body, err = logfile.AppendBlock(body, &logfile.Block{Type: logfile.DeleteBlock, Header: header, Content: content}); err != nil {
			return commitmeta.WriteStat{}, err
		}
	}
	baseFile := ""
	if sl.Base != nil && sl.BaseInstant == base {
		baseFile = sl.Base.Name.String()
	}
	version := 0
	var known []string
	if ownLogs {
		base, baseFile = txn.Instant, ""
	} else {
		for _, l := range sl.Logs {
			if l.Name.Instant == base {
				version = max(version, l.Name.Version)
				known = append(known, l.Name.String())
			}
		}
	}
	var name spec.LogFileName
	var p string
	for attempt := 0; ; attempt++ {
		version++
		name = spec.LogFileName{FileID: sl.FileID, Instant: base, Extension: "log", Version: version, WriteToken: logToken(task)}
		if err := txn.Marker(ctx, sl.Partition, name.String(), commit.IOAppend); err != nil {
			return commitmeta.WriteStat{}, err
		}
		p = storage.Join(sl.Partition, name.String())
		err := writeNew(ctx, w.mst, p, body)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrExist) || attempt >= 100 {
			return commitmeta.WriteStat{}, fmt.Errorf("log file %s: %w", p, err)
		}
	}
	size := int64(len(body))
	return commitmeta.WriteStat{
		FileID:          string(sl.FileID),
		Path:            p,
		PrevCommit:      string(base),
		NumWrites:       int64(len(recs)),
		NumDeletes:      int64(len(dels)),
		NumUpdateWrites: int64(len(data)),
		TotalWriteBytes: size,
		PartitionPath:   sl.Partition,
		FileSizeInBytes: size,
		RuntimeStats:    &commitmeta.RuntimeStats{TotalUpsertTime: time.Since(start).Milliseconds()},
		LogVersion:      int32(version),
		BaseFile:        baseFile,
		LogFiles:        append(known, name.String()),
	}, nil
}

// writeNew creates p (storage.ErrExist if it exists) with body, publishing nothing on a
// failed write.
func writeNew(ctx context.Context, st storage.Storage, p string, body []byte) error {
	out, err := st.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := out.Write(body); err != nil {
		_ = storage.Abort(out)
		return err
	}
	return out.Close()
}
