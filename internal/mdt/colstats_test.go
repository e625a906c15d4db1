package mdt

import (
	"math/big"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// TestColumnStatsKey pins HoodieMetadataPayload.getColumnStatsIndexKey on keys Spark wrote
// (cow/v9_txns_simple_meta and mor-avro/v9_txns_nonpart_meta; every fixture key is checked
// by ReadColumnStats in TestColumnStatsLikeSparkFixtures). The seed's sign extension
// (0xdabadaba as a negative int widened to long) and the "." of a non-partitioned table are
// what a naive port gets wrong.
func TestColumnStatsKey(t *testing.T) {
	for _, c := range []struct{ partition, file, column, want string }{
		{"region=us", "c7bbe63e-fa43-40ba-94a9-03158165edc6-0_0-52-126_20260307162440672.parquet", "merchant_name",
			"0FD2vn2+Kvk=431THTTwO5Q=BEc3TSNzwxUYa5cj4tz0oQ=="},
		{"region=eu", "2578f9c2-93be-4911-bb29-cda3106b5623-0_0-104-236_20260307162444563.parquet", "txn_datetime",
			"eMxr4ya/RTg=bOOVnCDQlm8=DBPk/1B3ng6JZpu7pAYUWg=="},
	} {
		if got := ColumnStatsKey(c.partition, c.file, c.column); got != c.want {
			t.Errorf("ColumnStatsKey(%q, %q, %q) = %q, want %q", c.partition, c.file, c.column, got, c.want)
		}
	}
	if ColumnStatsKeyPrefix("c", "") != ColumnStatsKeyPrefix("c", ".") {
		t.Error("a non-partitioned table's partition does not hash as \".\"")
	}
}

func sv(w Wrapper, v any) *StatValue { return &StatValue{Wrapper: w, V: v} }

// TestMergeColumnStats pins HoodieMetadataPayload.mergeColumnStatsRecords: bounds widen,
// counts and sizes add up, a tombstone on either side yields the newer record.
func TestMergeColumnStats(t *testing.T) {
	a := &ColumnStats{FileName: "f", ColumnName: "c", Min: sv(StringWrapper, "b"), Max: sv(StringWrapper, "m"), ValueCount: 3, NullCount: 1, TotalSize: 10, TotalUncompressedSize: 20}
	b := &ColumnStats{FileName: "f", ColumnName: "c", Min: sv(StringWrapper, "a"), Max: sv(StringWrapper, "k"), ValueCount: 2, NullCount: 0, TotalSize: 1, TotalUncompressedSize: 2}
	got, err := mergeColumnStats(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Min.V != "a" || got.Max.V != "m" || got.ValueCount != 5 || got.NullCount != 1 || got.TotalSize != 11 || got.TotalUncompressedSize != 22 {
		t.Errorf("merged %+v min %v max %v", got, got.Min, got.Max)
	}
	noBounds := &ColumnStats{FileName: "f", ColumnName: "c", ValueCount: 1, NullCount: 1}
	if got, _ := mergeColumnStats(noBounds, b); got.Min.V != "a" || got.Max.V != "k" || got.NullCount != 1 {
		t.Errorf("merge with a record without bounds: %+v", got)
	}
	del := &ColumnStats{FileName: "f", ColumnName: "c", IsDeleted: true}
	if got, _ := mergeColumnStats(a, del); got != del {
		t.Error("a tombstone does not win")
	}
	if got, _ := mergeColumnStats(del, b); got != b {
		t.Error("a record after a tombstone does not stand alone")
	}
	if _, err := mergeColumnStats(a, &ColumnStats{FileName: "g", ColumnName: "c"}); err == nil {
		t.Error("records of two files merged")
	}
	if _, err := mergeColumnStats(a, &ColumnStats{FileName: "f", ColumnName: "c", Min: sv(IntWrapper, int32(1)), Max: sv(IntWrapper, int32(1))}); err == nil {
		t.Error("a string and an int compared")
	}
	// Java's String.compareTo orders UTF-16 code units: U+10000 (a surrogate pair) sorts
	// below U+FFFD, unlike Go's byte order.
	x := &ColumnStats{FileName: "f", ColumnName: "c", Min: sv(StringWrapper, "\uFFFD"), Max: sv(StringWrapper, "\uFFFD")}
	y := &ColumnStats{FileName: "f", ColumnName: "c", Min: sv(StringWrapper, "\U00010000"), Max: sv(StringWrapper, "\U00010000")}
	if got, _ := mergeColumnStats(x, y); got.Min.V != "\U00010000" || got.Max.V != "\uFFFD" {
		t.Errorf("UTF-16 order: min %q max %q", got.Min.V, got.Max.V)
	}
}

// TestColumnStatsBounds: the value type decides how a bound is read — the wrapper in 0.14
// and 1.0, Hudi 1.1's valueType (the primitive form of the logical type) when present.
func TestColumnStatsBounds(t *testing.T) {
	dec := func(unscaled int64, scale int64) *big.Rat {
		return new(big.Rat).SetFrac(big.NewInt(unscaled), new(big.Int).Exp(big.NewInt(10), big.NewInt(scale), nil))
	}
	for _, c := range []struct {
		name   string
		cs     ColumnStats
		lo, hi any
		ok     bool
	}{
		{"int", ColumnStats{ValueType: ValueTypeNone, Min: sv(IntWrapper, int32(-3)), Max: sv(IntWrapper, int32(7))}, int64(-3), int64(7), true},
		{"date wrapper", ColumnStats{ValueType: ValueTypeNone, Min: sv(DateWrapper, int32(19737)), Max: sv(DateWrapper, int32(19738))}, expr.Date(19737), expr.Date(19738), true},
		{"decimal wrapper scale 15", ColumnStats{ValueType: ValueTypeNone, Min: sv(DecimalWrapper, []byte{0xff}), Max: sv(DecimalWrapper, []byte{0x03, 0xe8})}, dec(-1, 15), dec(1000, 15), true},
		{"timestamp wrapper", ColumnStats{ValueType: ValueTypeNone, Min: sv(TimestampMicrosWrapper, int64(5)), Max: sv(TimestampMicrosWrapper, int64(6))}, expr.TimestampMicros(5), expr.TimestampMicros(6), true},
		{"1.1 date", ColumnStats{ValueType: ValueTypeDate, Min: sv(IntWrapper, int32(1)), Max: sv(IntWrapper, int32(2))}, expr.Date(1), expr.Date(2), true},
		{"1.1 decimal 10,2", ColumnStats{ValueType: ValueTypeDecimal, ValueTypeInfo: "10,2", Min: sv(BytesWrapper, []byte{0x00, 0x88, 0xb8}), Max: sv(BytesWrapper, []byte{0x01, 0x86, 0x9f})}, dec(35000, 2), dec(99999, 2), true},
		{"1.1 timestamp millis", ColumnStats{ValueType: ValueTypeTimestampMillis, Min: sv(LongWrapper, int64(2)), Max: sv(LongWrapper, int64(3))}, expr.TimestampMicros(2000), expr.TimestampMicros(3000), true},
		{"1.1 timestamp nanos rounds outwards", ColumnStats{ValueType: ValueTypeTimestampNanos, Min: sv(LongWrapper, int64(1500)), Max: sv(LongWrapper, int64(2500))}, expr.TimestampMicros(1), expr.TimestampMicros(3), true},
		{"1.1 long", ColumnStats{ValueType: valueTypeLong, Min: sv(LongWrapper, int64(2)), Max: sv(LongWrapper, int64(3))}, int64(2), int64(3), true},
		{"1.1 decimal without scale", ColumnStats{ValueType: ValueTypeDecimal, Min: sv(BytesWrapper, []byte{1}), Max: sv(BytesWrapper, []byte{2})}, nil, nil, false},
		{"1.1 local timestamp", ColumnStats{ValueType: 19, Min: sv(LongWrapper, int64(2)), Max: sv(LongWrapper, int64(3))}, nil, nil, false},
		{"time of day", ColumnStats{ValueType: ValueTypeNone, Min: sv(TimeMicrosWrapper, int64(2)), Max: sv(TimeMicrosWrapper, int64(3))}, nil, nil, false},
		{"no bounds", ColumnStats{ValueType: 1}, nil, nil, false},
	} {
		lo, hi, ok := c.cs.Bounds()
		if ok != c.ok {
			t.Errorf("%s: ok %v", c.name, ok)
			continue
		}
		if !ok {
			continue
		}
		eq := func(a, b any) bool {
			if ra, isRat := a.(*big.Rat); isRat {
				rb, isRat := b.(*big.Rat)
				return isRat && ra.Cmp(rb) == 0
			}
			return a == b
		}
		if !eq(lo, c.lo) || !eq(hi, c.hi) {
			t.Errorf("%s: bounds %v..%v, want %v..%v", c.name, lo, hi, c.lo, c.hi)
		}
	}
}

// columnStatsSeed is an encoded column-stats record (1.0 schema) for the fuzz corpus.
func columnStatsSeed(t testing.TB, s *avro.Schema) []byte {
	m := map[string]any{
		"_hoodie_commit_time": nil, "_hoodie_commit_seqno": nil, "_hoodie_record_key": nil,
		"_hoodie_partition_path": nil, "_hoodie_file_name": nil, "key": "", "type": TypeColumnStats,
		"BloomFilterMetadata": nil, "recordIndexMetadata": nil, "SecondaryIndexMetadata": nil, "filesystemMetadata": nil,
		"ColumnStatsMetadata": map[string]any{
			"fileName": "f.parquet", "columnName": "c",
			"minValue":   map[string]any{"org.apache.hudi.avro.model.IntWrapper": map[string]any{"value": int32(1)}},
			"maxValue":   map[string]any{"org.apache.hudi.avro.model.IntWrapper": map[string]any{"value": int32(9)}},
			"valueCount": int64(3), "nullCount": int64(0), "totalSize": int64(10), "totalUncompressedSize": int64(12),
			"isDeleted": false, "isTightBound": false,
		},
	}
	b, err := s.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeColumnStatsRecord decodes the seed: wrappers come through tagged.
func TestDecodeColumnStatsRecord(t *testing.T) {
	s, err := avro.Parse(avroschema.MetadataRecordV8.JSON())
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeRecord(s, "k", columnStatsSeed(t, s))
	if err != nil {
		t.Fatal(err)
	}
	cs := r.ColumnStats
	if cs == nil || cs.FileName != "f.parquet" || cs.ColumnName != "c" || *cs.Min != *sv(IntWrapper, int32(1)) || *cs.Max != *sv(IntWrapper, int32(9)) ||
		cs.ValueCount != 3 || cs.TotalUncompressedSize != 12 || cs.ValueType != ValueTypeNone {
		t.Fatalf("decoded %+v", cs)
	}
}
