package mdt

import (
	"context"
	"fmt"
	"sort"

	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/storage"
)

// Listing returns the data table's partitions and their files as the files partition
// records them, in the shape of a directory listing, so that fsview.Build plans from the
// metadata table exactly as it plans from a listing. Deleted files and partitions are left
// out; the partition metadata files, which the metadata table does not record, are
// absent.
func (t *Table) Listing(ctx context.Context) (*fsview.Listing, error) {
	recs, err := t.ReadPartition(ctx, PartitionFiles)
	if err != nil {
		return nil, err
	}
	all, ok := recs[AllPartitionsKey]
	if !ok {
		return nil, fmt.Errorf("metadata table: files partition has no %s record", AllPartitionsKey)
	}
	l := &fsview.Listing{}
	for name := range liveFiles(all.Files) {
		pf := fsview.PartitionFiles{Path: partitionFromMDT(name)}
		if rec, ok := recs[name]; ok {
			if rec.Type != TypeFileList {
				return nil, fmt.Errorf("metadata table: files record %q has type %d, want %d", name, rec.Type, TypeFileList)
			}
			for f, size := range liveFiles(rec.Files) {
				pf.Files = append(pf.Files, storage.FileInfo{Name: f, Size: size})
			}
		}
		sort.Slice(pf.Files, func(i, j int) bool { return pf.Files[i].Name < pf.Files[j].Name })
		l.Partitions = append(l.Partitions, pf)
	}
	sort.Slice(l.Partitions, func(i, j int) bool { return l.Partitions[i].Path < l.Partitions[j].Path })
	return l, nil
}

// RecordIndex returns the record_index partition: every record key of the data table
// mapped to its location.
func (t *Table) RecordIndex(ctx context.Context) (map[string]RecordIndexInfo, error) {
	recs, err := t.ReadPartition(ctx, PartitionRecordIndex)
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
