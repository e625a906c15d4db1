package write

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/table"
)

// metadataBlooms are the bloom filters of base files read from the metadata table's
// bloom_filters partition, for the BLOOM indexes with hoodie.bloom.index.use.metadata=true
// (Java 0.14's HoodieMetadataBloomIndexCheckFunction): the filter of a candidate file is
// taken from there instead of its footer. Key ranges still come from the footers (Java
// reads them from column_stats' _hoodie_record_key, whose min/max are the same values).
// nil: every filter comes from the footers.
type metadataBlooms struct {
	byPath map[string]*mdt.BloomFilterInfo // base file path → filter
}

// filter returns the metadata table's filter of sl's base file, if it has one.
func (m *metadataBlooms) filter(sl *fsview.FileSlice) *mdt.BloomFilterInfo {
	if m == nil || sl.Base == nil {
		return nil
	}
	return m.byPath[sl.Base.Path]
}

// loadMetadataBlooms reads the filters of the base files of slices from the metadata
// table. As Java, the partition is used only when hoodie.properties lists it; hudi-go
// also requires the metadata table to be current (a file written by an instant it lacks
// would have no filter there). Otherwise, and for any base file the partition has no
// filter of, the footer's filter is used: the lookup's outcome is the same.
func loadMetadataBlooms(ctx context.Context, t *table.Table, slices_ []*fsview.FileSlice) (*metadataBlooms, string, error) {
	m, err := mdt.OpenWith(ctx, t.Storage, t.Timeline)
	if errors.Is(err, mdt.ErrNoMetadataTable) {
		return nil, "the table has no metadata table", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("bloom filters from the metadata table: %w", err)
	}
	if !slices.Contains(m.Available, mdt.PartitionBloomFilters) {
		return nil, "hoodie.table.metadata.partitions does not list bloom_filters", nil
	}
	if err := m.CheckCurrent(); err != nil {
		return nil, err.Error(), nil
	}
	files := map[string][]string{}
	for _, sl := range slices_ {
		if sl.Base != nil {
			files[sl.Partition] = append(files[sl.Partition], sl.Base.Name.String())
		}
	}
	found, err := m.ReadBloomFilters(ctx, files)
	if err != nil {
		return nil, "", fmt.Errorf("bloom filters from the metadata table: %w", err)
	}
	out := &metadataBlooms{byPath: map[string]*mdt.BloomFilterInfo{}}
	for _, sl := range slices_ {
		if sl.Base == nil {
			continue
		}
		if f := found[sl.Partition][sl.Base.Name.String()]; f != nil {
			out.byPath[sl.Base.Path] = f
		}
	}
	return out, "", nil
}

// bloomCheck says how a lookup prunes files by bloom filter: on for the BLOOM indexes,
// with the metadata table's filters when meta is set.
type bloomCheck struct {
	on   bool
	meta *metadataBlooms
}

// newBloomCheck is the bloom check of idx over the candidate files; useMetadata is
// hoodie.bloom.index.use.metadata.
func newBloomCheck(ctx context.Context, t *table.Table, idx interface{ PrunesByBloom() bool }, useMetadata bool, files []*fsview.FileSlice, logger *slog.Logger) (bloomCheck, error) {
	bc := bloomCheck{on: idx.PrunesByBloom()}
	if !bc.on || !useMetadata || len(files) == 0 {
		return bc, nil
	}
	meta, why, err := loadMetadataBlooms(ctx, t, files)
	if err != nil {
		return bc, err
	}
	if meta == nil && logger != nil {
		logger.Debug("bloom filters from the base files' footers", "reason", why)
	}
	bc.meta = meta
	return bc, nil
}
