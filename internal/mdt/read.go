package mdt

import (
	"context"
	"fmt"
	"sort"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/spec"
)

// ReadPartition returns the merged records of a metadata-table partition (files,
// record_index), by key. Records deleted by the merge are left out.
func (t *Table) ReadPartition(ctx context.Context, partition string) (map[string]*Record, error) {
	latest, err := t.latestSlices(ctx, partition)
	if err != nil {
		return nil, err
	}
	out := map[string]*Record{}
	for _, slice := range latest {
		recs, err := t.readSlice(ctx, slice, nil)
		if err != nil {
			return nil, fmt.Errorf("metadata table: partition %s, file group %s: %w", partition, slice.FileID, err)
		}
		for k, r := range recs {
			if _, dup := out[k]; dup {
				return nil, fmt.Errorf("metadata table: partition %s: key %q in two file groups", partition, k)
			}
			out[k] = r
		}
	}
	return out, nil
}

// latestSlices lists a metadata-table partition and returns its latest file slices.
func (t *Table) latestSlices(ctx context.Context, partition string) ([]fsview.FileSlice, error) {
	listing, err := fsview.ListPartitionsIn(ctx, t.mst, []string{partition})
	if err != nil {
		return nil, fmt.Errorf("metadata table: list partition %s: %w", partition, err)
	}
	if len(listing.Partitions) == 0 {
		return nil, fmt.Errorf("metadata table: %w %s", ErrNoPartition, partition)
	}
	view, err := fsview.Build(ctx, listing, t.Timeline, fsview.Options{})
	if err != nil {
		return nil, fmt.Errorf("metadata table: partition %s: %w", partition, err)
	}
	return view.LatestSlices(), nil
}

// ReadSlice merges the records of one file slice of the metadata table (its log blocks
// over its base file, as readers and its compaction merge them); deleted keys are left
// out, file listings keep their tombstones.
func (t *Table) ReadSlice(ctx context.Context, slice fsview.FileSlice) (map[string]*Record, error) {
	return t.readSlice(ctx, slice, nil)
}

// readSlice merges one file slice: its log records among themselves in order, then over
// the base file's records (HoodieBackedTableMetadata.readFromBaseAndMergeWithLogRecords).
// keys, sorted, limits the read to those keys (point lookups in the HFiles); nil reads
// every record.
func (t *Table) readSlice(ctx context.Context, slice fsview.FileSlice, keys []string) (map[string]*Record, error) {
	logRecs, err := t.readLogs(ctx, slice.Logs, keys)
	if err != nil {
		return nil, err
	}
	out := map[string]*Record{}
	if slice.Base != nil {
		if err := t.readBase(ctx, slice.Base.Path, keys, out); err != nil {
			return nil, err
		}
	}
	if err := overlayLogRecords(out, logRecs, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func (t *Table) readBase(ctx context.Context, path string, keys []string, out map[string]*Record) error {
	f, err := t.mst.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("open base file %s: %w", path, err)
	}
	defer f.Close()
	r, err := hfile.Open(f, f.Size(), path)
	if err != nil {
		return err
	}
	ws, ok := r.FileInfo().Get(hfile.InfoSchema)
	if !ok {
		return fmt.Errorf("base file %s: no %q in the HFile file info", path, hfile.InfoSchema)
	}
	s, err := t.schemas.get(string(ws))
	if err != nil {
		return fmt.Errorf("base file %s: %w", path, err)
	}
	return eachRecord(r, s, keys, func(rec *Record) error {
		out[rec.Key] = rec
		return nil
	})
}

// eachRecord decodes the records of an HFile, all of them or those of the sorted keys.
func eachRecord(r *hfile.Reader, s *avro.Schema, keys []string, fn func(*Record) error) error {
	if keys == nil {
		it := r.All()
		for it.Next() {
			rec, err := decodeRecord(s, string(it.Key()), it.Value())
			if err != nil {
				return err
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
		return it.Err()
	}
	for _, k := range keys {
		v, ok, err := r.Get([]byte(k))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		rec, err := decodeRecord(s, k, v)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// readLogs merges the records of a slice's log files: blocks in order, those of instants
// not committed on the metadata table or not valid on the data table skipped, a rollback
// command block dropping the earlier blocks of its target instant
// (AbstractHoodieLogRecordReader.scanInternal), corrupt blocks ignored.
func (t *Table) readLogs(ctx context.Context, logs []fsview.LogFile, keys []string) (map[string]*Record, error) {
	var wanted map[string]bool
	if keys != nil {
		wanted = make(map[string]bool, len(keys))
		for _, k := range keys {
			wanted[k] = true
		}
	}
	type pending struct {
		block *logfile.Block
		file  string
	}
	var blocks []pending
	for _, lf := range logs {
		f, err := t.mst.Open(ctx, lf.Path)
		if err != nil {
			return nil, fmt.Errorf("open log file %s: %w", lf.Path, err)
		}
		bs, err := logfile.ReadAll(f, f.Size(), lf.Path)
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			switch {
			case b.IsCorrupt():
				continue
			case b.Type == logfile.CommandBlock:
				if b.IsRollback() {
					target := b.TargetInstantTime()
					kept := blocks[:0]
					for _, p := range blocks {
						if p.block.InstantTime() != target {
							kept = append(kept, p)
						}
					}
					blocks = kept
				}
				continue
			}
			ts := spec.InstantTime(b.InstantTime())
			if !t.committedInMDT(ts) || !t.validOnData(ts) {
				continue
			}
			blocks = append(blocks, pending{block: b, file: lf.Path})
		}
	}
	out := map[string]*Record{}
	put := func(r *Record) error {
		if old, ok := out[r.Key]; ok {
			merged, err := combine(old, r)
			if err != nil {
				return err
			}
			r = merged
		}
		out[r.Key] = r
		return nil
	}
	for _, p := range blocks {
		b := p.block
		where := func(err error) error {
			return fmt.Errorf("log file %s, block at offset %d (instant %s): %w", p.file, b.Offset, b.InstantTime(), err)
		}
		switch b.Type {
		case logfile.HFileDataBlock:
			r, err := hfile.OpenBytes(b.Content, fmt.Sprintf("%s@%d", p.file, b.Offset))
			if err != nil {
				return nil, where(err)
			}
			ws := b.Header[logfile.Schema]
			if ws == "" {
				v, _ := r.FileInfo().Get(hfile.InfoSchema)
				ws = string(v)
			}
			s, err := t.schemas.get(ws)
			if err != nil {
				return nil, where(err)
			}
			if err := eachRecord(r, s, keys, put); err != nil {
				return nil, where(err)
			}
		case logfile.DeleteBlock:
			dels, err := logfile.DecodeDeleteBlock(b.Content)
			if err != nil {
				return nil, where(err)
			}
			for _, d := range dels {
				if wanted != nil && !wanted[d.RecordKey] {
					continue
				}
				// Metadata deletes carry Java's default ordering value: the delete wins
				// (HoodieMergedLogRecordScanner.processNextDeletedRecord).
				if err := put(&Record{Key: d.RecordKey, Deleted: true}); err != nil {
					return nil, where(err)
				}
			}
		default:
			return nil, where(fmt.Errorf("%s in the metadata table (want HFile data or delete blocks)", b.Type))
		}
	}
	return out, nil
}

// Partitions returns the data table's partitions as the files partition lists them
// (relative paths; "" for a non-partitioned table).
func (t *Table) Partitions(ctx context.Context) ([]string, error) {
	recs, err := t.ReadPartition(ctx, PartitionFiles)
	if err != nil {
		return nil, err
	}
	all, ok := recs[AllPartitionsKey]
	if !ok {
		return nil, fmt.Errorf("metadata table: files partition has no %s record", AllPartitionsKey)
	}
	var out []string
	for p := range liveFiles(all.Files) {
		out = append(out, partitionFromMDT(p))
	}
	sort.Strings(out)
	return out, nil
}

// FileGroupIndex is the file group of a metadata-table partition with numFileGroups file
// groups that holds key: HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex (Java's
// String.hashCode, absolute value, modulo). File groups are numbered in file ID order.
func FileGroupIndex(key string, numFileGroups int) int {
	abs := func(v int32) int32 { // Math.abs: MinInt32 stays negative
		if v < 0 {
			return -v
		}
		return v
	}
	return int(abs(abs(javastr.HashCode(key)) % int32(numFileGroups)))
}

// ReadKeys returns the merged records of the given keys of a metadata-table partition,
// reading only the file group each key hashes to (FileGroupIndex) and looking the keys up
// in its HFiles, as Java's getRecordsByKeys does. Absent or deleted keys are left out.
func (t *Table) ReadKeys(ctx context.Context, partition string, keys []string) (map[string]*Record, error) {
	listing, err := fsview.ListPartitionsIn(ctx, t.mst, []string{partition})
	if err != nil {
		return nil, fmt.Errorf("metadata table: list partition %s: %w", partition, err)
	}
	if len(listing.Partitions) == 0 {
		return nil, fmt.Errorf("metadata table: no partition %s", partition)
	}
	view, err := fsview.Build(ctx, listing, t.Timeline, fsview.Options{})
	if err != nil {
		return nil, fmt.Errorf("metadata table: partition %s: %w", partition, err)
	}
	slices := view.LatestSlices()
	sort.Slice(slices, func(i, j int) bool { return slices[i].FileID < slices[j].FileID })
	if len(slices) == 0 {
		return map[string]*Record{}, nil
	}
	byGroup := make([][]string, len(slices))
	for _, k := range keys {
		i := FileGroupIndex(k, len(slices))
		byGroup[i] = append(byGroup[i], k)
	}
	out := map[string]*Record{}
	for i, ks := range byGroup {
		if len(ks) == 0 {
			continue
		}
		sort.Strings(ks)
		ks = slicesCompact(ks)
		recs, err := t.readSlice(ctx, slices[i], ks)
		if err != nil {
			return nil, fmt.Errorf("metadata table: partition %s, file group %s: %w", partition, slices[i].FileID, err)
		}
		for k, r := range recs {
			out[k] = r
		}
	}
	return out, nil
}

func slicesCompact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// PartitionFiles returns the files the files partition lists for one data partition
// (relative path, "" for a non-partitioned table), by name with their sizes, reading only
// that partition's record.
func (t *Table) PartitionFiles(ctx context.Context, partition string) (map[string]int64, error) {
	key := partition
	if key == "" {
		key = "." // HoodieTableMetadata.NON_PARTITIONED_NAME
	}
	recs, err := t.ReadKeys(ctx, PartitionFiles, []string{key})
	if err != nil {
		return nil, err
	}
	rec, ok := recs[key]
	if !ok {
		return map[string]int64{}, nil
	}
	return liveFiles(rec.Files), nil
}

// LookupRecordIndex returns the record_index entries of keys (absent keys are left out),
// reading only the file groups the keys hash to.
func (t *Table) LookupRecordIndex(ctx context.Context, keys []string) (map[string]RecordIndexInfo, error) {
	recs, err := t.ReadKeys(ctx, PartitionRecordIndex, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]RecordIndexInfo, len(recs))
	for k, r := range recs {
		if r.Type != TypeRecordIndex || r.RecordIndex == nil {
			return nil, fmt.Errorf("metadata table: record_index record %q has type %d", k, r.Type)
		}
		out[k] = *r.RecordIndex
	}
	return out, nil
}
