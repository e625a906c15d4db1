package mdt

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/hfile"
)

// NonPartitionedName is the files partition's key of a non-partitioned table's single
// partition (HoodieTableMetadata.NON_PARTITIONED_NAME).
const NonPartitionedName = "."

// PartitionKey is the files-partition key of the data partition p (relative path, "" for
// a non-partitioned table): HoodieTableMetadataUtil.getPartitionIdentifierForFilesPartition.
func PartitionKey(p string) string {
	if p == "" {
		return NonPartitionedName
	}
	return p
}

// Encoder encodes metadata records with the writer schema hudi-go writes
// (avroschema.MetadataRecord: Hudi 0.14's HoodieMetadataRecord with the meta fields).
type Encoder struct {
	schema *avro.Schema
	// JSON is the writer schema's text, for log block SCHEMA headers and the "schema" file
	// info of base files.
	JSON string
}

// parsedRecordSchema parses the writer schema once: every operation that keeps the
// metadata table current needs it, and parsing the 7 KB schema is a measurable part of a
// small commit's cost. The parsed schema is immutable.
var parsedRecordSchema = sync.OnceValues(func() (*avro.Schema, error) {
	s, err := avro.Parse(avroschema.MetadataRecord.JSON())
	if err != nil {
		return nil, fmt.Errorf("metadata record schema: %w", err)
	}
	return s, nil
})

// NewEncoder returns the encoder of the writer schema.
func NewEncoder() (*Encoder, error) {
	s, err := parsedRecordSchema()
	if err != nil {
		return nil, err
	}
	return &Encoder{schema: s, JSON: avroschema.MetadataRecord.JSON()}, nil
}

// Encode returns the Avro binary value of r as Java stores it under the HFile key r.Key:
// the record's own key field is blanked (HoodieAvroHFileWriter and HoodieHFileDataBlock
// write the key into the HFile key and an empty string into the field), meta fields null.
func (e *Encoder) Encode(r *Record) ([]byte, error) {
	m := map[string]any{
		"_hoodie_commit_time": nil, "_hoodie_commit_seqno": nil, "_hoodie_record_key": nil,
		"_hoodie_partition_path": nil, "_hoodie_file_name": nil,
		"key": "", "type": r.Type,
		"filesystemMetadata": nil, "BloomFilterMetadata": nil, "ColumnStatsMetadata": nil, "recordIndexMetadata": nil,
	}
	switch r.Type {
	case TypePartitionList, TypeFileList:
		fm := make(map[string]any, len(r.Files))
		for name, fi := range r.Files {
			fm[name] = map[string]any{"size": fi.Size, "isDeleted": fi.IsDeleted}
		}
		m["filesystemMetadata"] = fm
	case TypeRecordIndex:
		ri := r.RecordIndex
		if ri == nil {
			return nil, fmt.Errorf("metadata record %q: record_index entry without recordIndexMetadata", r.Key)
		}
		// Java sets every field (HoodieMetadataPayload.createRecordIndexUpdate): with the UUID
		// encoding fileId is "", with the raw one the UUID fields are -1 (NewRecordIndexEntry).
		m["recordIndexMetadata"] = map[string]any{"partitionName": ri.PartitionName, "fileIdHighBits": ri.FileIDHighBits,
			"fileIdLowBits": ri.FileIDLowBits, "fileIndex": ri.FileIndex, "fileId": ri.FileID, "instantTime": ri.InstantTime,
			"fileIdEncoding": ri.FileIDEncoding}
	case TypeBloomFilter:
		bf := r.BloomFilter
		if bf == nil {
			return nil, fmt.Errorf("metadata record %q: bloom_filters entry without BloomFilterMetadata", r.Key)
		}
		filter := bf.Filter
		if filter == nil {
			filter = []byte{}
		}
		m["BloomFilterMetadata"] = map[string]any{"type": bf.Type, "timestamp": bf.Timestamp, "bloomFilter": filter, "isDeleted": bf.IsDeleted}
	case TypeColumnStats:
		cs, err := columnStatsValue(r)
		if err != nil {
			return nil, err
		}
		m["ColumnStatsMetadata"] = cs
	default:
		return nil, fmt.Errorf("metadata record %q: writing type %d is not supported", r.Key, r.Type)
	}
	b, err := e.schema.Encode(m)
	if err != nil {
		return nil, fmt.Errorf("encode metadata record %q: %w", r.Key, err)
	}
	return b, nil
}

// HFileKind says what an HFile of metadata records is for.
type HFileKind int

const (
	// LogBlock is the content of an HFILE_DATA_BLOCK (HoodieHFileDataBlock): no bloom filter.
	LogBlock HFileKind = iota
	// BaseFile is a base file (HoodieAvroHFileWriter): with Hudi's bloom filter of the keys
	// and the min/max record keys, sized by the write config's defaults.
	BaseFile
)

// BuildHFile writes recs (any order; keys must be distinct) as an HFile the way Hudi 0.14
// writes the metadata table's: sorted by key, GZ blocks of 1 MB, the writer schema in the
// "schema" file info; a base file also carries the bloom filter of its keys.
func (e *Encoder) BuildHFile(recs []*Record, kind HFileKind) ([]byte, error) {
	sorted := append([]*Record(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	var buf bytes.Buffer
	w, err := hfile.NewWriter(&buf, hfile.WriterOptions{})
	if err != nil {
		return nil, err
	}
	var bf bloom.Filter
	if kind == BaseFile {
		// HoodieAvroFileWriterFactory.newHFileFileWriter: a DYNAMIC_V0 filter sized by
		// hoodie.index.bloom.num_entries/fpp/dynamic.max.entries, whose defaults the
		// metadata table's write config keeps.
		if bf, err = bloom.New(bloom.DynamicV0, bloom.Options{}); err != nil {
			return nil, err
		}
	}
	for i, r := range sorted {
		if i > 0 && sorted[i-1].Key == r.Key {
			return nil, fmt.Errorf("metadata HFile: key %q twice", r.Key)
		}
		v, err := e.Encode(r)
		if err != nil {
			return nil, err
		}
		if err := w.Append([]byte(r.Key), v); err != nil {
			return nil, err
		}
		if bf != nil {
			bf.Add(r.Key)
		}
	}
	if bf != nil {
		if err := w.AppendHudiBloomFilter(string(bf.Type()), bf.Serialize()); err != nil {
			return nil, err
		}
	}
	if err := w.AppendFileInfo(hfile.InfoSchema, []byte(e.JSON)); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeHFile reads back the records of an HFile written by BuildHFile (or Java), with
// the writer schema of its "schema" file info (tests and validation).
func DecodeHFile(b []byte, name string) ([]*Record, error) {
	r, err := hfile.OpenBytes(b, name)
	if err != nil {
		return nil, err
	}
	ws, ok := r.FileInfo().Get(hfile.InfoSchema)
	if !ok {
		return nil, fmt.Errorf("%s: no %q in the HFile file info", name, hfile.InfoSchema)
	}
	var c schemaCache
	s, err := c.get(string(ws))
	if err != nil {
		return nil, err
	}
	var out []*Record
	err = eachRecord(r, s, nil, func(rec *Record) error {
		out = append(out, rec)
		return nil
	})
	return out, err
}

// wrapperNamespace is the namespace of HoodieMetadataRecord and its nested records: a
// min/max value is encoded as the tagged union branch "<namespace>.<Wrapper>".
const wrapperNamespace = "org.apache.hudi.avro.model."

// columnStatsValue is the ColumnStatsMetadata of a column-stats record in 0.14's schema
// (HoodieMetadataPayload.createColumnStatsRecords: every field set; a tombstone keeps the
// file and column names). Hudi 1.1 value types and the wrappers 0.14 lacks
// (LocalDateWrapper, ArrayWrapper) cannot be written in it.
func columnStatsValue(r *Record) (map[string]any, error) {
	cs := r.ColumnStats
	if cs == nil {
		return nil, fmt.Errorf("metadata record %q: column_stats entry without ColumnStatsMetadata", r.Key)
	}
	if cs.ValueType != ValueTypeNone && cs.ValueType != ValueTypeV1 {
		return nil, fmt.Errorf("metadata record %q: value type %d is Hudi 1.1's, not writable in 0.14's schema", r.Key, cs.ValueType)
	}
	wrap := func(v *StatValue) (any, error) {
		if v == nil {
			return nil, nil
		}
		if err := v.check(); err != nil {
			return nil, fmt.Errorf("metadata record %q: %w", r.Key, err)
		}
		if v.Wrapper == LocalDateWrapper || v.Wrapper == ArrayWrapper {
			return nil, fmt.Errorf("metadata record %q: %s is not in 0.14's schema", r.Key, v.Wrapper)
		}
		return map[string]any{wrapperNamespace + string(v.Wrapper): map[string]any{"value": v.V}}, nil
	}
	lo, err := wrap(cs.Min)
	if err != nil {
		return nil, err
	}
	hi, err := wrap(cs.Max)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"fileName": cs.FileName, "columnName": cs.ColumnName, "minValue": lo, "maxValue": hi,
		"valueCount": cs.ValueCount, "nullCount": cs.NullCount, "totalSize": cs.TotalSize,
		"totalUncompressedSize": cs.TotalUncompressedSize, "isDeleted": cs.IsDeleted,
	}, nil
}
