package mdt

import (
	"fmt"
	"sync"

	"github.com/hudi-go/hudi/internal/avro"
)

// Record types (HoodieMetadataPayload.METADATA_TYPE_*), the "type" field of a record.
const (
	TypePartitionList  int32 = 1 // files: key __all_partitions__, the table's partitions
	TypeFileList       int32 = 2 // files: key = partition, its files
	TypeColumnStats    int32 = 3
	TypeBloomFilter    int32 = 4
	TypeRecordIndex    int32 = 5
	TypePartitionStats int32 = 6
	TypeSecondaryIndex int32 = 7
)

// AllPartitionsKey is the key of the files partition's record listing the partitions.
const AllPartitionsKey = "__all_partitions__"

// FileInfo is one entry of a files-partition record: a file (or, in the
// __all_partitions__ record, a partition) with its size.
type FileInfo struct {
	Size      int64
	IsDeleted bool
}

// RecordIndexInfo is a record_index entry: where a record key lives
// (HoodieRecordIndexInfo).
type RecordIndexInfo struct {
	PartitionName  string
	FileIDHighBits int64
	FileIDLowBits  int64
	// FileIndex is the "-N" suffix of a UUID file ID, -1 when the ID has none.
	FileIndex int32
	// FileID is the raw file ID, used when FileIDEncoding is 1.
	FileID string
	// InstantTime is the writing instant as epoch milliseconds.
	InstantTime int64
	// FileIDEncoding: 0 = UUID in the high/low bits plus FileIndex, 1 = FileID as is.
	FileIDEncoding int32
}

// FileGroupID returns the file ID of the entry's file group
// (HoodieTableMetadataUtil.getLocationFromRecordIndexInfo).
func (r RecordIndexInfo) FileGroupID() string {
	if r.FileIDEncoding != 0 {
		return r.FileID
	}
	h, l := uint64(r.FileIDHighBits), uint64(r.FileIDLowBits)
	id := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", h>>32, (h>>16)&0xffff, h&0xffff, l>>48, l&0xffffffffffff)
	if r.FileIndex != -1 {
		id += fmt.Sprintf("-%d", r.FileIndex)
	}
	return id
}

// Record is a decoded HoodieMetadataRecord.
type Record struct {
	Key  string
	Type int32
	// Deleted marks a delete (a key in a delete block): HoodieMetadataPayload's empty
	// payload, which wins over the record before it.
	Deleted bool
	// Files is filesystemMetadata (types 1 and 2).
	Files map[string]FileInfo
	// RecordIndex is recordIndexMetadata (type 5).
	RecordIndex *RecordIndexInfo
	// ColumnStats is ColumnStatsMetadata (type 3).
	ColumnStats *ColumnStats
	// BloomFilter is BloomFilterMetadata (type 4).
	BloomFilter *BloomFilterInfo
}

// schemaCache parses each writer schema (a log block's SCHEMA header, a base file's
// "schema" file info) once; a table has one or two. Records are decoded with their writer
// schema and read by field name: the fields this package reads have kept their names and
// types since Hudi 0.14, while later releases added union branches (column stats'
// LocalDateWrapper, ArrayWrapper) that a strict schema resolution against an older
// reader schema refuses even though no record uses them.
type schemaCache struct {
	mu     sync.Mutex
	parsed map[string]*avro.Schema
}

func (c *schemaCache) get(writer string) (*avro.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.parsed[writer]; ok {
		return s, nil
	}
	s, err := avro.Parse(writer)
	if err != nil {
		return nil, fmt.Errorf("metadata record writer schema: %w", err)
	}
	if c.parsed == nil {
		c.parsed = map[string]*avro.Schema{}
	}
	c.parsed[writer] = s
	return s, nil
}

// decodeRecord decodes the value of an HFile key/value. Java's writers blank the record's
// key field (HoodieAvroHFileWriter, HoodieHFileDataBlock: the key is the HFile key), so the
// key comes from the HFile.
func decodeRecord(s *avro.Schema, key string, value []byte) (*Record, error) {
	v, _, err := s.Decode(value)
	if err != nil {
		return nil, fmt.Errorf("decode metadata record %q: %w", key, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decode metadata record %q: not a record", key)
	}
	r := &Record{Key: key}
	if r.Type, ok = m["type"].(int32); !ok {
		return nil, fmt.Errorf("metadata record %q: no type", key)
	}
	bad := func(field string) error {
		return fmt.Errorf("metadata record %q (type %d): malformed %s", key, r.Type, field)
	}
	switch r.Type {
	case TypePartitionList, TypeFileList:
		fm, ok := m["filesystemMetadata"].(map[string]any)
		if !ok && m["filesystemMetadata"] != nil {
			return nil, bad("filesystemMetadata")
		}
		r.Files = make(map[string]FileInfo, len(fm))
		for name, fv := range fm {
			fi, ok := fv.(map[string]any)
			if !ok {
				return nil, bad("filesystemMetadata")
			}
			size, ok1 := fi["size"].(int64)
			del, ok2 := fi["isDeleted"].(bool)
			if !ok1 || !ok2 {
				return nil, bad("filesystemMetadata")
			}
			r.Files[name] = FileInfo{Size: size, IsDeleted: del}
		}
	case TypeRecordIndex:
		ri, ok := m["recordIndexMetadata"].(map[string]any)
		if !ok {
			return nil, bad("recordIndexMetadata")
		}
		info := &RecordIndexInfo{FileIndex: -1}
		info.PartitionName, _ = ri["partitionName"].(string)
		info.FileIDHighBits, _ = ri["fileIdHighBits"].(int64)
		info.FileIDLowBits, _ = ri["fileIdLowBits"].(int64)
		if fi, ok := ri["fileIndex"].(int32); ok {
			info.FileIndex = fi
		}
		info.FileID, _ = ri["fileId"].(string)
		info.InstantTime, _ = ri["instantTime"].(int64)
		info.FileIDEncoding, _ = ri["fileIdEncoding"].(int32)
		if info.FileIDEncoding != 0 && info.FileIDEncoding != 1 {
			return nil, bad(fmt.Sprintf("fileIdEncoding %d", info.FileIDEncoding))
		}
		r.RecordIndex = info
	case TypeBloomFilter:
		bm, ok := m["BloomFilterMetadata"].(map[string]any)
		if !ok {
			return nil, bad("BloomFilterMetadata")
		}
		info := &BloomFilterInfo{}
		var ok1, ok2, ok3, ok4 bool
		info.Type, ok1 = bm["type"].(string)
		info.Timestamp, ok2 = bm["timestamp"].(string)
		info.Filter, ok3 = bm["bloomFilter"].([]byte)
		info.IsDeleted, ok4 = bm["isDeleted"].(bool)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, bad("BloomFilterMetadata")
		}
		r.BloomFilter = info
	case TypeColumnStats:
		// Decoded again with tagged unions: the min/max wrappers IntWrapper and
		// DateWrapper (LongWrapper and TimestampMicrosWrapper) have the same Go shape.
		tv, _, err := s.DecodeTagged(value)
		if err != nil {
			return nil, fmt.Errorf("decode metadata record %q: %w", key, err)
		}
		tm, _ := tv.(map[string]any)
		cs, err := decodeColumnStats(tm)
		if err != nil {
			return nil, bad(fmt.Sprintf("ColumnStatsMetadata: %v", err))
		}
		r.ColumnStats = cs
	}
	return r, nil
}

// combine merges a newer record over an older one of the same key:
// HoodieMetadataPayload.preCombine — a delete wins over what came before, a record after a
// delete stands alone; file listings merge (combineFileSystemMetadata); every other type
// keeps the newer record (record_index: "the latest mapping is maintained").
func combine(older, newer *Record) (*Record, error) {
	if newer.Deleted || older.Deleted {
		return newer, nil
	}
	if older.Type != newer.Type {
		return nil, fmt.Errorf("metadata record %q: cannot combine type %d with type %d", newer.Key, older.Type, newer.Type)
	}
	switch newer.Type {
	case TypePartitionList, TypeFileList:
		return &Record{Key: newer.Key, Type: newer.Type, Files: combineFiles(older.Files, newer.Files)}, nil
	case TypeColumnStats:
		cs, err := mergeColumnStats(older.ColumnStats, newer.ColumnStats)
		if err != nil {
			return nil, fmt.Errorf("metadata record %q: %w", newer.Key, err)
		}
		return &Record{Key: newer.Key, Type: newer.Type, ColumnStats: cs}, nil
	}
	return newer, nil
}

// combineFiles is HoodieMetadataPayload.combineFileSystemMetadata: the newer entries merge
// into the older map; a deleted entry removes the file if the older map has it and is kept
// as a tombstone if not (the base file, merged last, may list it); a live entry keeps the
// larger size (sizes only grow, and metadata updates may arrive out of order).
func combineFiles(older, newer map[string]FileInfo) map[string]FileInfo {
	out := make(map[string]FileInfo, len(older)+len(newer))
	for k, v := range older {
		out[k] = v
	}
	for k, nv := range newer {
		ov, ok := out[k]
		switch {
		case !ok:
			out[k] = nv
		case nv.IsDeleted:
			delete(out, k)
		default:
			out[k] = FileInfo{Size: max(nv.Size, ov.Size)}
		}
	}
	return out
}

// liveFiles returns the entries of a merged listing that are not tombstones
// (HoodieMetadataPayload.getFileStatuses / filterFileInfoEntries(false)).
func liveFiles(files map[string]FileInfo) map[string]int64 {
	out := make(map[string]int64, len(files))
	for k, v := range files {
		if !v.IsDeleted {
			out[k] = v.Size
		}
	}
	return out
}
