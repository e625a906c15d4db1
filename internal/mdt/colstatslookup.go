package mdt

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/fsview"
)

// ReadKeyPrefixes returns the merged live records of a metadata-table partition whose keys
// start with one of prefixes, as Java's getRecordsByKeyPrefixes does: a prefix can hash
// to any file group, so every latest file slice is read, its base HFile only where the
// prefixes' keys sit (a seek per prefix), its log blocks whole (they are small: the
// metadata table compacts them), keeping the matching keys.
func (t *Table) ReadKeyPrefixes(ctx context.Context, partition string, prefixes []string) (map[string]*Record, error) {
	latest, err := t.latestSlices(ctx, partition)
	if err != nil {
		return nil, err
	}
	prefixes = append([]string(nil), prefixes...)
	sort.Strings(prefixes)
	prefixes = slicesCompact(prefixes)
	set, lengths := map[string]bool{}, map[int]bool{}
	for _, p := range prefixes {
		set[p], lengths[len(p)] = true, true
	}
	match := func(k string) bool {
		for n := range lengths {
			if len(k) >= n && set[k[:n]] {
				return true
			}
		}
		return false
	}
	out := map[string]*Record{}
	for _, sl := range latest {
		recs, err := t.readSlicePrefixes(ctx, sl, prefixes, match)
		if err != nil {
			return nil, fmt.Errorf("metadata table: partition %s, file group %s: %w", partition, sl.FileID, err)
		}
		for k, r := range recs {
			out[k] = r
		}
	}
	return out, nil
}

func (t *Table) readSlicePrefixes(ctx context.Context, sl fsview.FileSlice, prefixes []string, match func(string) bool) (map[string]*Record, error) {
	logRecs, err := t.readLogs(ctx, sl.Logs, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]*Record{}
	if sl.Base != nil {
		f, err := t.mst.Open(ctx, sl.Base.Path)
		if err != nil {
			return nil, fmt.Errorf("open base file %s: %w", sl.Base.Path, err)
		}
		defer f.Close()
		r, err := hfile.Open(f, f.Size(), sl.Base.Path)
		if err != nil {
			return nil, err
		}
		ws, ok := r.FileInfo().Get(hfile.InfoSchema)
		if !ok {
			return nil, fmt.Errorf("base file %s: no %q in the HFile file info", sl.Base.Path, hfile.InfoSchema)
		}
		s, err := t.schemas.get(string(ws))
		if err != nil {
			return nil, fmt.Errorf("base file %s: %w", sl.Base.Path, err)
		}
		for _, p := range prefixes {
			it := r.ScanPrefix([]byte(p))
			for it.Next() {
				rec, err := decodeRecord(s, string(it.Key()), it.Value())
				if err != nil {
					return nil, err
				}
				out[rec.Key] = rec
			}
			if err := it.Err(); err != nil {
				return nil, fmt.Errorf("base file %s: %w", sl.Base.Path, err)
			}
		}
	}
	if err := overlayLogRecords(out, logRecs, match); err != nil {
		return nil, err
	}
	return out, nil
}

// overlayLogRecords merges a slice's log records (those keep accepts; nil: all) over its
// base file's records in out: a log record combines with the base record of its key, a
// delete removes it.
func overlayLogRecords(out, logRecs map[string]*Record, keep func(string) bool) error {
	for k, lr := range logRecs {
		if keep != nil && !keep(k) {
			continue
		}
		br, ok := out[k]
		if !ok {
			if !lr.Deleted {
				out[k] = lr
			}
			continue
		}
		merged, err := combine(br, lr)
		if err != nil {
			return err
		}
		if merged.Deleted {
			delete(out, k)
		} else {
			out[k] = merged
		}
	}
	return nil
}

// ReadColumnStatsOf returns the live column_stats records of the given columns in the
// given data partitions, reading only their keys (ColumnStatsKeyPrefix: Java's per-column
// lookup, HoodieBackedTableMetadata.getColumnStats) instead of the whole partition.
func (t *Table) ReadColumnStatsOf(ctx context.Context, partitions, columns []string) (ColumnStatsByFile, error) {
	var prefixes []string
	for _, c := range columns {
		for _, p := range partitions {
			prefixes = append(prefixes, ColumnStatsKeyPrefix(c, p))
		}
	}
	if len(prefixes) == 0 {
		return ColumnStatsByFile{}, nil
	}
	recs, err := t.ReadKeyPrefixes(ctx, PartitionColumnStats, prefixes)
	if errors.Is(err, ErrNoPartition) {
		return ColumnStatsByFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	return columnStatsByFile(recs, partitions)
}
