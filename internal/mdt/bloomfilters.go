package mdt

import (
	"context"
	"errors"
	"fmt"
)

// The bloom_filters partition: one record per base file holding the bloom filter of its
// record keys, as its footer has it (HoodieMetadataBloomFilter). Java 0.14's BLOOM index
// reads them from here with hoodie.bloom.index.use.metadata=true instead of opening each
// file's footer.

// BloomFilterInfo is a bloom_filters record (HoodieMetadataBloomFilter).
type BloomFilterInfo struct {
	// Type is the filter's type code (BloomFilterTypeCode: SIMPLE, DYNAMIC_V0); "" in a
	// tombstone.
	Type string
	// Timestamp is the instant that wrote the record.
	Timestamp string
	// Filter is the serialized filter as the footer stores it (BloomFilter.serializeToString,
	// as bytes); empty in a tombstone.
	Filter    []byte
	IsDeleted bool
}

// BloomFilterKey is the bloom_filters key of the base file fileName (a bare name) in data
// partition p (relative path; "" for a non-partitioned table): the Base64 of the
// partition's PartitionIndexID (XXHash64) then of the file's FileIndexID (MD5), as
// HoodieMetadataPayload.createBloomFilterMetadataRecord. A non-partitioned table's
// partition hashes as ".", as its column-stats keys do (UNVERIFIED for bloom filters: no
// fixture has a bloom_filters partition).
func BloomFilterKey(p, fileName string) string {
	return javaBase64.EncodeToString(hash64(PartitionKey(p))) + javaBase64.EncodeToString(hash128(fileName))
}

// BloomFilterRecord is the record of a base file's bloom filter; with info.IsDeleted the
// tombstone a clean writes (type "", empty filter).
func BloomFilterRecord(p, fileName string, info *BloomFilterInfo) *Record {
	return &Record{Key: BloomFilterKey(p, fileName), Type: TypeBloomFilter, BloomFilter: info}
}

// BloomFiltersByFile is the live bloom_filters records of some partitions: partition →
// base file name → filter. A record names no file, so only the files asked for are found.
type BloomFiltersByFile map[string]map[string]*BloomFilterInfo

// ReadBloomFilters reads the bloom_filters partition and returns the live filters of the
// given base files (partition → file names).
func (t *Table) ReadBloomFilters(ctx context.Context, files map[string][]string) (BloomFiltersByFile, error) {
	recs, err := t.ReadPartition(ctx, PartitionBloomFilters)
	if errors.Is(err, ErrNoPartition) {
		return BloomFiltersByFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := BloomFiltersByFile{}
	for p, names := range files {
		for _, name := range names {
			r, ok := recs[BloomFilterKey(p, name)]
			if !ok || r.Deleted {
				continue
			}
			if r.Type != TypeBloomFilter || r.BloomFilter == nil {
				return nil, fmt.Errorf("metadata table: bloom_filters record of %s/%s has type %d", p, name, r.Type)
			}
			if r.BloomFilter.IsDeleted {
				continue
			}
			if out[p] == nil {
				out[p] = map[string]*BloomFilterInfo{}
			}
			out[p][name] = r.BloomFilter
		}
	}
	return out, nil
}
