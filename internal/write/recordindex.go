package write

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write/index"
)

// The RECORD_INDEX index (Java 0.14's SparkMetadataTableRecordIndex) looks each incoming
// key up in the metadata table's record_index partition (mdt/mdtwrite keeps it) instead of
// reading every base file's keys: the files it names are the only candidates, then matched
// as GLOBAL_SIMPLE matches its candidates (global.go: key column, ordering value, partition
// moves under hoodie.record.index.update.partition.path, default false).

// hasRecordIndex reports whether the table's hoodie.properties lists the record_index
// partition as built (isMetadataPartitionAvailable(RECORD_INDEX)).
func hasRecordIndex(t *table.Table) bool {
	for _, p := range t.Config.MetadataPartitions() {
		if p == mdt.PartitionRecordIndex {
			return true
		}
	}
	return false
}

// checkRecordIndex refuses RECORD_INDEX where the table has no record index and the
// write will not build one: the metadata table is off (hoodie.metadata.enable=false
// deletes it), or hoodie.metadata.record.index.enable is false on a table without it.
// Java falls back to GLOBAL_SIMPLE lookups in both cases, silently reading every base
// file on every write; hudi-go refuses (its choice, docs/writing.md). A table whose index
// is enabled but not built yet (an instant was pending) falls back as Java does
// (openForWrite).
func checkRecordIndex(t *table.Table, o Options) error {
	if o.index.Type() != index.TypeRecordIndex {
		return nil
	}
	if o.Metadata == nil {
		return fmt.Errorf("%s=%s: the record index lives in the metadata table, which %s=false turns off (and deletes); enable it",
			config.IndexType.Name, index.TypeRecordIndex, config.MetadataEnable.Name)
	}
	if !hasRecordIndex(t) && !o.RecordIndexEnable {
		return fmt.Errorf("%s=%s: table %s has no record index (hoodie.table.metadata.partitions lacks %s): set %s=true to build it",
			config.IndexType.Name, index.TypeRecordIndex, t.Config.Name(), mdt.PartitionRecordIndex, config.RecordIndexEnable.Name)
	}
	if !t.Config.PopulateMetaFields() {
		return fmt.Errorf("%s=%s on table %s with hoodie.populate.meta.fields=false: the record index is built from the stored record keys: %w",
			config.IndexType.Name, index.TypeRecordIndex, t.Config.Name(), ErrUnsupported)
	}
	return nil
}

// recordIndexCandidates returns the latest slices (with a base file) of the file groups
// the record index names for the input keys, in view order. A key the index maps to a
// file group the table does not have means the index is stale: the write stops rather
// than insert the key a second time.
func (w *writer) recordIndexCandidates(ctx context.Context, recs []incoming) ([]*fsview.FileSlice, error) {
	seen := make(map[string]bool, len(recs))
	keys := make([]string, 0, len(recs))
	for _, r := range recs {
		if !seen[r.key] {
			seen[r.key] = true
			keys = append(keys, r.key)
		}
	}
	m, err := mdt.OpenWith(ctx, w.t.Storage, w.t.Timeline)
	if err != nil {
		return nil, fmt.Errorf("record index: %w", err)
	}
	found, err := m.LookupRecordIndex(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("record index: %w", err)
	}
	groups := make(map[string]*fsview.FileGroup, len(w.view.Groups))
	for _, g := range w.view.Groups {
		groups[g.Partition+"/"+string(g.FileID)] = g
	}
	want := map[*fsview.FileGroup]bool{}
	for _, k := range keys {
		e, ok := found[k]
		if !ok {
			continue
		}
		g := groups[e.PartitionName+"/"+e.FileGroupID()]
		if g == nil {
			return nil, fmt.Errorf("record index: key %q maps to file group %s/%s, which the table does not have (run `hudi metadata validate`)",
				k, e.PartitionName, e.FileGroupID())
		}
		want[g] = true
	}
	var out []*fsview.FileSlice
	for _, g := range w.view.Groups {
		if !want[g] {
			continue
		}
		if sl := g.Latest(); sl != nil && sl.Base != nil {
			out = append(out, sl)
		}
	}
	return out, nil
}
