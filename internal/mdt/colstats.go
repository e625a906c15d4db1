package mdt

import (
	"cmp"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/logfile"
)

// The column_stats partition: one record per (data file, indexed column) holding the
// column's min/max, null and value counts and sizes in that file
// (HoodieMetadataColumnStats). Keys hash the column, the partition and the file name.

// hashSeed is HashID.HASH_SEED (0xdabadaba), an int that Java widens to the long seed of
// XXHash64 with its sign.
const hashSeed = uint64(0xffffffffdabadaba)

// javaBase64 is java.util.Base64.getEncoder(): the standard alphabet with padding
// (Base64CodecUtil.encode).
var javaBase64 = base64.StdEncoding

// hash64 is HashID.hash(s, BITS_64): XXHash64 of the UTF-8 bytes with hashSeed, big-endian
// (HBase Bytes.toBytes(long)).
func hash64(s string) []byte {
	d := xxhash.NewWithSeed(hashSeed)
	_, _ = d.WriteString(s)
	return binary.BigEndian.AppendUint64(nil, d.Sum64())
}

// hash128 is HashID.hash(s, BITS_128): MD5 of the UTF-8 bytes.
func hash128(s string) []byte {
	h := md5.Sum([]byte(s))
	return h[:]
}

// ColumnStatsPartitionID is the partition part of a column-stats key of the data partition
// p (relative path; "" for a non-partitioned table, which Java names "."):
// HoodieTableMetadataUtil.getColumnStatsIndexPartitionIdentifier.
func ColumnStatsPartitionID(p string) string {
	return PartitionKey(p)
}

// ColumnStatsKey is the column_stats key of column in the data file fileName (a bare name)
// of partition p: HoodieMetadataPayload.getColumnStatsIndexKey — the Base64 of the
// column's ColumnIndexID (XXHash64), then of the PartitionIndexID (XXHash64), then of the
// FileIndexID (MD5), 12 + 12 + 24 characters. Checked against every key of the Spark
// fixtures (TestColumnStatsLikeSparkFixtures).
func ColumnStatsKey(p, fileName, column string) string {
	return ColumnStatsKeyPrefix(column, p) + javaBase64.EncodeToString(hash128(fileName))
}

// ColumnStatsKeyPrefix is the key prefix shared by the records of one column in one
// partition (ColumnStatsIndexPrefixRawKey): Java reads a column's stats by this prefix.
func ColumnStatsKeyPrefix(column, p string) string {
	return javaBase64.EncodeToString(hash64(column)) + javaBase64.EncodeToString(hash64(ColumnStatsPartitionID(p)))
}

// Wrapper names the branch of a min/max value's union (HoodieMetadataColumnStats.minValue):
// Java wraps each Comparable in a record so that it fits an Avro union
// (HoodieAvroUtils.wrapValueIntoAvro).
type Wrapper string

// The wrappers of Hudi's schema (HoodieMetadata.avsc). LocalDateWrapper and ArrayWrapper
// came with Hudi 1.x.
const (
	BooleanWrapper         Wrapper = "BooleanWrapper"
	IntWrapper             Wrapper = "IntWrapper"
	LongWrapper            Wrapper = "LongWrapper"
	FloatWrapper           Wrapper = "FloatWrapper"
	DoubleWrapper          Wrapper = "DoubleWrapper"
	BytesWrapper           Wrapper = "BytesWrapper"
	StringWrapper          Wrapper = "StringWrapper"
	DateWrapper            Wrapper = "DateWrapper"
	DecimalWrapper         Wrapper = "DecimalWrapper"
	TimeMicrosWrapper      Wrapper = "TimeMicrosWrapper"
	TimestampMicrosWrapper Wrapper = "TimestampMicrosWrapper"
	LocalDateWrapper       Wrapper = "LocalDateWrapper"
	ArrayWrapper           Wrapper = "ArrayWrapper"
)

// DecimalWrapperScale is the scale of DecimalWrapper's decimal(30, 15): Java rescales a
// column's decimals to it (tryUpcastDecimal).
const DecimalWrapperScale = logfile.DecimalWrapperScale

// StatValue is a min or max value of a column-stats record, as stored: the wrapper and its
// raw Avro value — bool (Boolean), int32 (Int, Date, LocalDate: days since the epoch),
// int64 (Long, TimeMicros, TimestampMicros: microseconds), float32, float64, []byte
// (Bytes; Decimal: the two's-complement unscaled value at scale 15), string.
type StatValue struct {
	Wrapper Wrapper
	V       any
}

// ColumnStats is a column_stats record (HoodieMetadataColumnStats).
type ColumnStats struct {
	FileName   string
	ColumnName string
	// Min and Max are nil when the column has no non-null value in the file.
	Min, Max              *StatValue
	ValueCount, NullCount int64
	TotalSize             int64
	TotalUncompressedSize int64
	IsDeleted             bool
	// IsTightBound (Hudi 1.x; absent in 0.14, read as false).
	IsTightBound bool
	// ValueType is Hudi 1.1's valueType.typeOrdinal (ValueType: the column's logical type,
	// Min and Max then hold its primitive form); -1 when the record has none (0.14, 1.0),
	// where the wrapper alone says the type. ValueTypeInfo is its additionalInfo.
	ValueType     int32
	ValueTypeInfo string
}

// Hudi 1.1's ValueType ordinals (org.apache.hudi.stats.ValueType) that this package
// interprets; the others keep their wrapper's meaning.
const (
	ValueTypeNone            int32 = -1
	ValueTypeV1              int32 = 0
	ValueTypeDecimal         int32 = 10
	ValueTypeDate            int32 = 12
	ValueTypeTimestampMillis int32 = 15
	ValueTypeTimestampMicros int32 = 16
	ValueTypeTimestampNanos  int32 = 17
)

// decodeColumnStats reads the ColumnStatsMetadata of a record decoded with tagged unions
// (avro.Schema.DecodeTagged).
func decodeColumnStats(m map[string]any) (*ColumnStats, error) {
	v := untag(m["ColumnStatsMetadata"])
	cm, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no ColumnStatsMetadata")
	}
	cs := &ColumnStats{}
	cs.FileName, _ = untag(cm["fileName"]).(string)
	cs.ColumnName, _ = untag(cm["columnName"]).(string)
	var err error
	if cs.Min, err = decodeStatValue(cm["minValue"]); err != nil {
		return nil, fmt.Errorf("minValue: %w", err)
	}
	if cs.Max, err = decodeStatValue(cm["maxValue"]); err != nil {
		return nil, fmt.Errorf("maxValue: %w", err)
	}
	cs.ValueCount, _ = untag(cm["valueCount"]).(int64)
	cs.NullCount, _ = untag(cm["nullCount"]).(int64)
	cs.TotalSize, _ = untag(cm["totalSize"]).(int64)
	cs.TotalUncompressedSize, _ = untag(cm["totalUncompressedSize"]).(int64)
	if cs.IsDeleted, ok = untag(cm["isDeleted"]).(bool); !ok {
		return nil, fmt.Errorf("no isDeleted")
	}
	cs.IsTightBound, _ = untag(cm["isTightBound"]).(bool)
	cs.ValueType = ValueTypeNone
	if vt, ok := untag(cm["valueType"]).(map[string]any); ok {
		if cs.ValueType, ok = vt["typeOrdinal"].(int32); !ok {
			return nil, fmt.Errorf("valueType without typeOrdinal")
		}
		cs.ValueTypeInfo, _ = untag(vt["additionalInfo"]).(string)
	}
	return cs, nil
}

// untag returns the value of a tagged union value ({branch: value}), v itself otherwise.
// Only a union yields a one-key map whose key names a type; the records read here have no
// one-field map values where a union is not expected.
func untag(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, inner := range m {
			if isBranchName(k) {
				return inner
			}
		}
	}
	return v
}

func isBranchName(k string) bool {
	switch k {
	case "string", "long", "int", "boolean", "bytes", "float", "double", "map", "array":
		return true
	}
	return strings.Contains(k, ".") || strings.HasSuffix(k, "Wrapper") || strings.HasPrefix(k, "Hoodie")
}

// decodeStatValue reads a tagged minValue/maxValue: nil, or {"<ns>.XWrapper": {"value": v}}.
func decodeStatValue(v any) (*StatValue, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, fmt.Errorf("not a wrapper record")
	}
	for k, inner := range m {
		name := k[strings.LastIndexByte(k, '.')+1:]
		rec, ok := inner.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not a record", name)
		}
		sv := &StatValue{Wrapper: Wrapper(name), V: rec["value"]}
		if err := sv.check(); err != nil {
			return nil, err
		}
		return sv, nil
	}
	return nil, nil
}

// check verifies that V has the Go type of its wrapper.
func (s *StatValue) check() error {
	ok := false
	switch s.Wrapper {
	case BooleanWrapper:
		_, ok = s.V.(bool)
	case IntWrapper, DateWrapper, LocalDateWrapper:
		_, ok = s.V.(int32)
	case LongWrapper, TimeMicrosWrapper, TimestampMicrosWrapper:
		_, ok = s.V.(int64)
	case FloatWrapper:
		_, ok = s.V.(float32)
	case DoubleWrapper:
		_, ok = s.V.(float64)
	case BytesWrapper, DecimalWrapper:
		_, ok = s.V.([]byte)
	case StringWrapper:
		_, ok = s.V.(string)
	case ArrayWrapper:
		ok = true // Hudi 1.1 nested stats: kept as decoded, never compared
	default:
		return fmt.Errorf("unknown value wrapper %q", s.Wrapper)
	}
	if !ok {
		return fmt.Errorf("%s holds %T", s.Wrapper, s.V)
	}
	return nil
}

// Decimal returns a DecimalWrapper's value.
func (s *StatValue) Decimal() *big.Rat {
	b, _ := s.V.([]byte)
	return unscaledRat(b, DecimalWrapperScale)
}

// compareStat orders two values of the same wrapper as Java's Comparable does (strings by
// UTF-16 code units — Java's String.compareTo —, bytes as ByteBuffer.compareTo: signed
// bytes). ok is false for values of different wrappers or an ArrayWrapper.
func compareStat(a, b *StatValue) (c int, ok bool) {
	if a.Wrapper != b.Wrapper {
		return 0, false
	}
	switch x := a.V.(type) {
	case bool:
		y := b.V.(bool)
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	case int32:
		return cmp.Compare(x, b.V.(int32)), true
	case int64:
		return cmp.Compare(x, b.V.(int64)), true
	case float32:
		return javaFloatCompare(float64(x), float64(b.V.(float32))), true
	case float64:
		return javaFloatCompare(x, b.V.(float64)), true
	case string:
		return javaStringCompare(x, b.V.(string)), true
	case []byte:
		if a.Wrapper == DecimalWrapper {
			return a.Decimal().Cmp(b.Decimal()), true
		}
		y := b.V.([]byte)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := cmp.Compare(int8(x[i]), int8(y[i])); c != 0 {
				return c, true
			}
		}
		return cmp.Compare(len(x), len(y)), true
	}
	return 0, false
}

// javaFloatCompare is Double.compare: NaN above everything, -0.0 below 0.0.
func javaFloatCompare(x, y float64) int {
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	// equal, or ±0
	xs, ys := x == 0 && 1/x < 0, y == 0 && 1/y < 0
	switch {
	case xs == ys:
		return 0
	case xs:
		return -1
	}
	return 1
}

// javaStringCompare is String.compareTo: UTF-16 code unit order (which differs from Go's
// byte order for characters above U+FFFF against U+E000..U+FFFF).
func javaStringCompare(a, b string) int {
	if a == b {
		return 0
	}
	ua, ub := []rune(a), []rune(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] == ub[i] {
			continue
		}
		return cmp.Compare(utf16Key(ua[i]), utf16Key(ub[i]))
	}
	return cmp.Compare(len(ua), len(ub))
}

// utf16Key orders runes as their first UTF-16 code unit does (surrogates D800–DFFF sort
// below E000–FFFF).
func utf16Key(r rune) int {
	if r >= 0x10000 {
		return 0xD800 + int((r-0x10000)>>10)
	}
	return int(r)
}

// mergeColumnStats is HoodieMetadataPayload.mergeColumnStatsRecords: a tombstone on either
// side gives the newer record; otherwise min of the mins, max of the maxes, and the sums of
// the counts and sizes — log files appended to by several instants get one record per
// append, merged so.
func mergeColumnStats(older, newer *ColumnStats) (*ColumnStats, error) {
	if older.FileName != newer.FileName || older.ColumnName != newer.ColumnName {
		return nil, fmt.Errorf("column stats of %s/%s and %s/%s under one key", older.FileName, older.ColumnName, newer.FileName, newer.ColumnName)
	}
	if newer.IsDeleted || older.IsDeleted {
		return newer, nil
	}
	out := *newer
	pick := func(a, b *StatValue, wantMin bool) (*StatValue, error) {
		switch {
		case a == nil:
			return b, nil
		case b == nil:
			return a, nil
		}
		c, ok := compareStat(a, b)
		if !ok {
			return nil, fmt.Errorf("column stats of %s/%s: cannot compare %s with %s", newer.FileName, newer.ColumnName, a.Wrapper, b.Wrapper)
		}
		if (c <= 0) == wantMin {
			return a, nil
		}
		return b, nil
	}
	var err error
	if out.Min, err = pick(older.Min, newer.Min, true); err != nil {
		return nil, err
	}
	if out.Max, err = pick(older.Max, newer.Max, false); err != nil {
		return nil, err
	}
	out.ValueCount = older.ValueCount + newer.ValueCount
	out.NullCount = older.NullCount + newer.NullCount
	out.TotalSize = older.TotalSize + newer.TotalSize
	out.TotalUncompressedSize = older.TotalUncompressedSize + newer.TotalUncompressedSize
	return &out, nil
}

// ColumnStatsByFile is the live column_stats records of a table: partition (relative path)
// → file name → column → stats.
type ColumnStatsByFile map[string]map[string]map[string]*ColumnStats

// ReadColumnStats reads the whole column_stats partition and returns its live records
// (tombstones left out) of the given data partitions (relative paths) by partition, file
// and column. The partition of a record is not in the record: it is found by the key's
// partition hash; records of other partitions are left out. A key that does not match its
// record (file and column) is an error.
func (t *Table) ReadColumnStats(ctx context.Context, partitions []string) (ColumnStatsByFile, error) {
	recs, err := t.ReadPartition(ctx, PartitionColumnStats)
	if errors.Is(err, ErrNoPartition) {
		return ColumnStatsByFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	return columnStatsByFile(recs, partitions)
}

// columnStatsByFile groups the live column_stats records recs of the given partitions.
func columnStatsByFile(recs map[string]*Record, partitions []string) (ColumnStatsByFile, error) {
	byHash := make(map[string]string, len(partitions))
	for _, p := range partitions {
		byHash[javaBase64.EncodeToString(hash64(ColumnStatsPartitionID(p)))] = p
	}
	out := ColumnStatsByFile{}
	for k, r := range recs {
		if r.Type != TypeColumnStats || r.ColumnStats == nil {
			return nil, fmt.Errorf("metadata table: column_stats record %q has type %d", k, r.Type)
		}
		cs := r.ColumnStats
		if cs.IsDeleted {
			continue
		}
		if len(k) != 48 {
			return nil, fmt.Errorf("metadata table: column_stats key %q is not 48 characters", k)
		}
		p, ok := byHash[k[12:24]]
		if !ok {
			continue
		}
		if want := ColumnStatsKey(p, cs.FileName, cs.ColumnName); want != k {
			return nil, fmt.Errorf("metadata table: column_stats key %q does not match its record (file %s, column %s: %s)", k, cs.FileName, cs.ColumnName, want)
		}
		files := out[p]
		if files == nil {
			files = map[string]map[string]*ColumnStats{}
			out[p] = files
		}
		cols := files[cs.FileName]
		if cols == nil {
			cols = map[string]*ColumnStats{}
			files[cs.FileName] = cols
		}
		cols[cs.ColumnName] = cs
	}
	return out, nil
}

// Bounds returns the record's min and max as the filter evaluator takes them
// (expr.ColumnStats: int64, float64, string, []byte, bool, expr.Date,
// expr.TimestampMicros, *big.Rat), reading the value type as Java does — Hudi 1.1's
// valueType when the record has one (ValueType.unwrapValue), else the wrapper
// (HoodieAvroUtils.unwrapAvroValueWrapper). ok is false when the record has no min/max or
// a type the evaluator does not compare (times of day, local timestamps, UUIDs, arrays):
// such stats never prune.
func (cs *ColumnStats) Bounds() (lo, hi any, ok bool) {
	if cs.Min == nil || cs.Max == nil {
		return nil, nil, false
	}
	lo, ok1 := cs.boundValue(cs.Min, false)
	hi, ok2 := cs.boundValue(cs.Max, true)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	return lo, hi, true
}

// boundValue converts one bound; upper says whether it is a max (a nanosecond timestamp
// rounds away from the range's inside, so that the bound stays a bound).
func (cs *ColumnStats) boundValue(v *StatValue, upper bool) (any, bool) {
	switch cs.ValueType {
	case ValueTypeNone, ValueTypeV1:
		switch v.Wrapper {
		case DateWrapper, LocalDateWrapper:
			return expr.Date(v.V.(int32)), true
		case DecimalWrapper:
			return v.Decimal(), true
		case TimestampMicrosWrapper:
			return expr.TimestampMicros(v.V.(int64)), true
		case TimeMicrosWrapper, ArrayWrapper:
			return nil, false
		}
		return primitiveBound(v)
	case ValueTypeDate:
		if i, ok := v.V.(int32); ok {
			return expr.Date(i), true
		}
	case ValueTypeDecimal:
		b, ok := v.V.([]byte)
		if !ok {
			return nil, false
		}
		// additionalInfo is "<precision>,<scale>" (ValueMetadata.DecimalMetadata).
		_, scaleText, found := strings.Cut(cs.ValueTypeInfo, ",")
		scale, err := strconv.Atoi(strings.TrimSpace(scaleText))
		if !found || err != nil || scale < 0 || scale > 76 {
			return nil, false
		}
		return unscaledRat(b, scale), true
	case ValueTypeTimestampMicros:
		if i, ok := v.V.(int64); ok {
			return expr.TimestampMicros(i), true
		}
	case ValueTypeTimestampMillis:
		if i, ok := v.V.(int64); ok && i < math.MaxInt64/1000 && i > math.MinInt64/1000 {
			return expr.TimestampMicros(i * 1000), true
		}
	case ValueTypeTimestampNanos:
		if i, ok := v.V.(int64); ok {
			q := i / 1000
			if r := i % 1000; r != 0 && (r > 0) == upper {
				if upper {
					q++
				} else {
					q--
				}
			}
			return expr.TimestampMicros(q), true
		}
	case valueTypeBoolean, valueTypeInt, valueTypeLong, valueTypeFloat, valueTypeDouble, valueTypeString, valueTypeBytes, valueTypeFixed:
		return primitiveBound(v)
	}
	return nil, false
}

// The primitive ValueType ordinals: the wrapper's value is the column's.
const (
	valueTypeBoolean int32 = 2
	valueTypeInt     int32 = 3
	valueTypeLong    int32 = 4
	valueTypeFloat   int32 = 5
	valueTypeDouble  int32 = 6
	valueTypeString  int32 = 7
	valueTypeBytes   int32 = 8
	valueTypeFixed   int32 = 9
)

func primitiveBound(v *StatValue) (any, bool) {
	switch x := v.V.(type) {
	case bool, string, int64, float64:
		return x, true
	case int32:
		return int64(x), true
	case float32:
		return float64(x), true
	case []byte:
		return x, true
	}
	return nil, false
}

// unscaledRat is the decimal of a two's-complement big-endian unscaled value at scale.
func unscaledRat(b []byte, scale int) *big.Rat {
	return new(big.Rat).SetFrac(signedBigEndian(b), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
}
