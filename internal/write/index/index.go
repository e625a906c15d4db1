// Package index owns the record indexes of a write (hoodie.index.type): which index a
// setting selects, chosen once (New), and what each one is — one type per index. An index
// says where a write looks an incoming key up (the partitions of the input, or every
// partition), whether bloom filters prune the base files it reads, whether it needs the
// record keys stored in the files (tables without meta fields refuse it), whether Java's
// index can find records in log files, and, for the bucket index, which bucket a key
// hashes to. The lookup itself — reading the key columns of the candidate base files —
// and the routing of records are package write's.
package index

import (
	"fmt"
	"strings"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/spec"
)

// Type is a value of hoodie.index.type (config.IndexType), upper case.
type Type string

// The values config.IndexType accepts (Java 0.14's HoodieIndex.IndexType).
const (
	TypeSimple       Type = "SIMPLE"
	TypeGlobalSimple Type = "GLOBAL_SIMPLE"
	TypeBloom        Type = "BLOOM"
	TypeGlobalBloom  Type = "GLOBAL_BLOOM"
	TypeBucket       Type = "BUCKET"
	TypeInMemory     Type = "INMEMORY"
	TypeHBase        Type = "HBASE"
	TypeFlinkState   Type = "FLINK_STATE"
	TypeRecordIndex  Type = "RECORD_INDEX"
)

// ParseType reads a hoodie.index.type value as package config does (trimmed, any case);
// "" is the key's default. A value config does not accept is an error naming the key.
func ParseType(s string) (Type, error) {
	c := config.New()
	if strings.TrimSpace(s) != "" {
		if _, err := c.Set(config.IndexType.Name, s); err != nil {
			return "", err
		}
	}
	return Type(c.String(config.IndexType)), nil
}

// Index is one record index, as a write uses it.
type Index interface {
	// Type is the hoodie.index.type value that selects the index.
	Type() Type
	// Global reports an index that matches an incoming key against every partition
	// (a key keeps its file group when its partition changes), rather than only against
	// the partition the incoming record names.
	Global() bool
	// PrunesByBloom reports an index that skips a candidate base file whose bloom filter
	// holds none of the wanted keys in its key range.
	PrunesByBloom() bool
	// NeedsStoredKeys reports an index that needs the record keys stored in the files
	// (_hoodie_record_key, the footer's bloom filter): a table with
	// hoodie.populate.meta.fields=false refuses it.
	NeedsStoredKeys() bool
	// IndexesLogFiles is Java's HoodieIndex.canIndexLogFiles for the indexes whose
	// merge-on-read routing of inserts depends on it: such an index finds records in log
	// files, so Java appends inserts to small file slices' logs instead of padding base
	// files (SparkUpsertDeltaCommitPartitioner).
	IndexesLogFiles() bool
}

// Settings are the parameters of the indexes that take any.
type Settings struct {
	// NumBuckets is hoodie.bucket.index.num.buckets (BUCKET); it must be positive.
	NumBuckets int
	// HashFields are the fields a BUCKET index hashes (hoodie.bucket.index.hash.field,
	// else the table's record key fields).
	HashFields []string
}

// New returns the index hoodie.index.type=typ selects ("" = the default, SIMPLE).
func New(typ Type, s Settings) (Index, error) {
	typ, err := ParseType(string(typ))
	if err != nil {
		return nil, err
	}
	switch typ {
	case TypeSimple:
		return simpleIndex{}, nil
	case TypeBloom:
		return bloomIndex{}, nil
	case TypeGlobalSimple:
		return globalSimpleIndex{}, nil
	case TypeGlobalBloom:
		return globalBloomIndex{}, nil
	case TypeInMemory:
		return inMemoryIndex{}, nil
	case TypeBucket:
		if s.NumBuckets <= 0 {
			return nil, fmt.Errorf("%s=%d: the %s index needs a positive number of buckets", config.BucketIndexNumBuckets.Name, s.NumBuckets, TypeBucket)
		}
		return &Bucket{NumBuckets: s.NumBuckets, HashFields: s.HashFields}, nil
	case TypeRecordIndex:
		return recordIndex{}, nil
	case TypeHBase, TypeFlinkState:
		// Their locations live outside the files a write reads and writes (HBase, Flink's
		// state): looking keys up in the base files instead would leave those stale.
		return nil, fmt.Errorf("%s=%s: the %s index keeps record locations that hudi-go does not maintain; use SIMPLE, BLOOM, GLOBAL_SIMPLE, GLOBAL_BLOOM, INMEMORY, BUCKET or RECORD_INDEX: %w",
			config.IndexType.Name, typ, typ, spec.ErrUnsupported)
	}
	// ParseType accepts only config's values, all handled above.
	return nil, fmt.Errorf("%s=%s: no such index", config.IndexType.Name, typ)
}

// IsGlobal reports whether hoodie.index.type=typ ("" = the default) selects a global
// index, without the settings New needs for some indexes (a bucket count): the CLI asks it
// before reading input, to know which columns a delete must name.
func IsGlobal(typ Type) (bool, error) {
	idx, err := New(typ, Settings{NumBuckets: 1})
	if err != nil {
		return false, err
	}
	return idx.Global(), nil
}

// GlobalIndex is a global index: hoodie.<index>.update.partition.path decides whether a
// key whose partition changes moves to the new partition.
type GlobalIndex interface {
	Index
	// UpdatePartitionPathKey is the index's hoodie.*.update.partition.path key.
	UpdatePartitionPathKey() config.Key
}

// recordIndex is the RECORD_INDEX index (Java 0.14's SparkMetadataTableRecordIndex): a
// global index whose lookup reads the metadata table's record_index partition, key by
// key, instead of the base files' key columns; package write asks it where each key
// lives. Its update.partition.path key is hoodie.record.index.update.partition.path
// (false by default). IndexesLogFiles is false (UNVERIFIED for 0.14: 1.x's
// SparkMetadataTableRecordIndex.canIndexLogFiles returns false), so merge-on-read inserts
// go to base files. The record keys are read from _hoodie_record_key (NeedsStoredKeys).
type recordIndex struct{}

func (recordIndex) Type() Type            { return TypeRecordIndex }
func (recordIndex) Global() bool          { return true }
func (recordIndex) PrunesByBloom() bool   { return false }
func (recordIndex) NeedsStoredKeys() bool { return true }
func (recordIndex) IndexesLogFiles() bool { return false }

// UpdatePartitionPathKey is hoodie.record.index.update.partition.path.
func (recordIndex) UpdatePartitionPathKey() config.Key {
	return config.RecordIndexUpdatePartitionPath
}

// simpleIndex is the SIMPLE index (HoodieSimpleIndex): an incoming key is looked up in the key
// column of the latest base files of its partition. hudi-go prunes those files by the
// footer's min/max keys too, which changes what is read, not what is found.
type simpleIndex struct{}

func (simpleIndex) Type() Type            { return TypeSimple }
func (simpleIndex) Global() bool          { return false }
func (simpleIndex) PrunesByBloom() bool   { return false }
func (simpleIndex) NeedsStoredKeys() bool { return false } // keys are rebuilt by the key generator
func (simpleIndex) IndexesLogFiles() bool { return false }

// bloomIndex is the BLOOM index (HoodieBloomIndex): as SIMPLE, with the candidate files pruned
// by their bloom filters first.
type bloomIndex struct{}

func (bloomIndex) Type() Type            { return TypeBloom }
func (bloomIndex) Global() bool          { return false }
func (bloomIndex) PrunesByBloom() bool   { return true }
func (bloomIndex) NeedsStoredKeys() bool { return true }
func (bloomIndex) IndexesLogFiles() bool { return false }

// globalSimpleIndex is the GLOBAL_SIMPLE index (HoodieGlobalSimpleIndex): SIMPLE over the
// latest base files of every partition.
type globalSimpleIndex struct{}

func (globalSimpleIndex) Type() Type            { return TypeGlobalSimple }
func (globalSimpleIndex) Global() bool          { return true }
func (globalSimpleIndex) PrunesByBloom() bool   { return false }
func (globalSimpleIndex) NeedsStoredKeys() bool { return false }
func (globalSimpleIndex) IndexesLogFiles() bool { return false }

// UpdatePartitionPathKey is hoodie.simple.index.update.partition.path.
func (globalSimpleIndex) UpdatePartitionPathKey() config.Key {
	return config.SimpleIndexUpdatePartitionPath
}

// globalBloomIndex is the GLOBAL_BLOOM index (HoodieGlobalBloomIndex): BLOOM over the latest
// base files of every partition.
type globalBloomIndex struct{}

func (globalBloomIndex) Type() Type            { return TypeGlobalBloom }
func (globalBloomIndex) Global() bool          { return true }
func (globalBloomIndex) PrunesByBloom() bool   { return true }
func (globalBloomIndex) NeedsStoredKeys() bool { return true }
func (globalBloomIndex) IndexesLogFiles() bool { return false }

// UpdatePartitionPathKey is hoodie.bloom.index.update.partition.path.
func (globalBloomIndex) UpdatePartitionPathKey() config.Key {
	return config.BloomIndexUpdatePartitionPath
}

// inMemoryIndex is the INMEMORY index. Java's HoodieInMemoryHashIndex keeps locations in a map
// of the writing process and can index log files; hudi-go looks keys up as SIMPLE does
// (base files only) and, on merge-on-read, routes inserts to new file groups rather than
// into small file slices (the one place where it differs from SIMPLE).
type inMemoryIndex struct{}

func (inMemoryIndex) Type() Type            { return TypeInMemory }
func (inMemoryIndex) Global() bool          { return false }
func (inMemoryIndex) PrunesByBloom() bool   { return false }
func (inMemoryIndex) NeedsStoredKeys() bool { return false }
func (inMemoryIndex) IndexesLogFiles() bool { return true }

// Bucket is the simple-engine BUCKET index (HoodieSimpleBucketIndex): a record's file
// group follows from a hash of its key, so no lookup reads any file, and a bucket's file
// group takes new keys in its logs on merge-on-read.
type Bucket struct {
	NumBuckets int
	HashFields []string
}

func (*Bucket) Type() Type            { return TypeBucket }
func (*Bucket) Global() bool          { return false }
func (*Bucket) PrunesByBloom() bool   { return false }
func (*Bucket) NeedsStoredKeys() bool { return false } // UNVERIFIED: Java 0.14 has no guard either way
func (*Bucket) IndexesLogFiles() bool { return true }
