package mdt

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
)

// Record index entries (the record_index partition): one record per data-table record
// key, naming the partition and file group that hold the key.

// FileIDEncoding values of a record_index entry (HoodieRecordIndexInfo.fileIdEncoding).
const (
	// FileIDEncodingUUID stores a "<uuid>[-<n>]" file ID as the UUID's two halves and n.
	FileIDEncodingUUID int32 = 0
	// FileIDEncodingRaw stores the file ID as it is.
	FileIDEncodingRaw int32 = 1
)

// missingFileIndex is RECORD_INDEX_MISSING_FILEINDEX_FALLBACK: a 36-character file ID,
// a bare UUID without the "-<n>" suffix.
const missingFileIndex = -1

// InstantMillis is the record index's instantTime of a data instant: the instant read as
// a wall-clock time in the timeline's zone, in epoch milliseconds
// (HoodieActiveTimeline.parseDateFromInstantTime, 0.14). A 14-digit instant gets Java's
// default millisecond extension "999"; a longer (metadata-table) instant is cut to 17.
func InstantMillis(ts spec.InstantTime, zone *time.Location) (int64, error) {
	s := string(ts)
	if len(s) == 14 {
		s += "999"
	}
	t, err := spec.InstantTime(s).Time(zone)
	if err != nil {
		return 0, fmt.Errorf("record index: instant %q: %w", ts, err)
	}
	return t.UnixMilli(), nil
}

// NewRecordIndexEntry is HoodieMetadataPayload.createRecordIndexUpdate (0.14): the
// record_index record of key, living in partition (the data partition's relative path,
// "" for a non-partitioned table) in file group fileID, written at the instant whose
// InstantMillis is millis. With FileIDEncodingUUID the file ID must be a UUID with an
// optional "-<n>" suffix (Java's writers name file groups so); its fileId field is then
// the empty string, and with FileIDEncodingRaw the UUID fields are -1. Checked against the
// Java-written record_index records of the Spark fixtures (TestRecordIndexLikeSparkFixtures).
func NewRecordIndexEntry(key, partition string, fileID spec.FileID, millis int64, encoding int32) (*Record, error) {
	info := &RecordIndexInfo{PartitionName: partition, InstantTime: millis, FileIDEncoding: encoding}
	switch encoding {
	case FileIDEncodingUUID:
		id := string(fileID)
		uuid, index := id, int64(missingFileIndex)
		if len(id) != 36 {
			i := strings.LastIndexByte(id, '-')
			if i < 0 {
				return nil, fmt.Errorf("record index entry of %q: file ID %q is not <uuid>-<n>", key, id)
			}
			n, err := strconv.ParseInt(id[i+1:], 10, 32)
			if err != nil {
				return nil, fmt.Errorf("record index entry of %q: file ID %q is not <uuid>-<n>", key, id)
			}
			uuid, index = id[:i], n
		}
		hi, lo, ok := parseUUID(uuid)
		if !ok {
			return nil, fmt.Errorf("record index entry of %q: file ID %q does not start with a UUID", key, id)
		}
		info.FileIDHighBits, info.FileIDLowBits, info.FileIndex = hi, lo, int32(index)
	case FileIDEncodingRaw:
		info.FileIDHighBits, info.FileIDLowBits, info.FileIndex, info.FileID = -1, -1, -1, string(fileID)
	default:
		return nil, fmt.Errorf("record index entry of %q: file ID encoding %d (want 0 or 1)", key, encoding)
	}
	return &Record{Key: key, Type: TypeRecordIndex, RecordIndex: info}, nil
}

// RecordIndexDelete is HoodieMetadataPayload.createRecordIndexDelete: key leaves the index.
func RecordIndexDelete(key string) *Record {
	return &Record{Key: key, Type: TypeRecordIndex, Deleted: true}
}

// parseUUID reads a canonical 8-4-4-4-12 hex UUID as java.util.UUID's most and least
// significant bits.
func parseUUID(s string) (hi, lo int64, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return 0, 0, false
	}
	b, err := hex.DecodeString(s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:])
	if err != nil {
		return 0, 0, false
	}
	var h, l uint64
	for i := 0; i < 8; i++ {
		h = h<<8 | uint64(b[i])
		l = l<<8 | uint64(b[8+i])
	}
	return int64(h), int64(l), true
}
