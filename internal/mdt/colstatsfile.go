package mdt

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
)

// Computing column_stats records from data files, as Java 0.14 does when it writes the
// partition (HoodieTableMetadataUtil, read through the code index; the version read is
// 0.13/0.14-era, UNVERIFIED against the 0.14.1 release itself):
//   - a Parquet base file: its footer (ParquetUtils.readRangeFromParquetMetadata): per
//     column chunk the statistics' min/max converted to Java's native type
//     (convertToNativeJavaType), the null count (the value count when the chunk has no
//     statistics), the value count and the compressed/uncompressed sizes; the chunks of a
//     column combine into min of the mins, max of the maxes and sums;
//   - a log file written by a delta commit: the records of its data blocks
//     (HoodieAppendHandle → collectColumnRangeMetadata): value count = records, null count
//     = nulls, min/max of the values; sizes 0.
// The min/max is wrapped by the Java type of the value (HoodieMetadataPayload.wrapValueIntoAvro):
// timestamps stay longs (LongWrapper) in both, dates become DateWrapper, decimals
// DecimalWrapper rescaled to decimal(30, 15).

// ColumnStatsRecord is the metadata record of a column's stats of a file in data
// partition p (relative path).
func ColumnStatsRecord(p string, cs *ColumnStats) *Record {
	return &Record{Key: ColumnStatsKey(p, cs.FileName, cs.ColumnName), Type: TypeColumnStats, ColumnStats: cs}
}

// ColumnStatsTombstone is the record Java writes for a column of a deleted file
// (HoodieColumnRangeMetadata.stub: no bounds, counts and sizes -1, isDeleted).
func ColumnStatsTombstone(fileName, column string) *ColumnStats {
	return &ColumnStats{FileName: fileName, ColumnName: column, ValueCount: -1, NullCount: -1, TotalSize: -1, TotalUncompressedSize: -1,
		IsDeleted: true, ValueType: ValueTypeNone}
}

// ParquetColumnStats returns the column_stats of the given columns of a Parquet file
// (fileName: its bare name). A column that is not a top-level primitive column of the
// file gets no record: Java matches columns to the footer's leaf paths, which a nested
// column's name never equals.
func ParquetColumnStats(pf *parquet.File, fileName string, columns []string) ([]*ColumnStats, error) {
	var out []*ColumnStats
	for _, col := range columns {
		leaf := pf.LeafIndex(col)
		if leaf < 0 {
			continue
		}
		cs := &ColumnStats{FileName: fileName, ColumnName: col, ValueType: ValueTypeNone}
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			cc, err := pf.RowGroupMetadata(rg).ColumnChunk(leaf)
			if err != nil {
				return nil, fmt.Errorf("column stats of %s: column %s, row group %d: %w", fileName, col, rg, err)
			}
			cs.ValueCount += cc.NumValues()
			cs.TotalSize += cc.TotalCompressedSize()
			cs.TotalUncompressedSize += cc.TotalUncompressedSize()
			st, ok := pf.ColumnChunkStats(rg, leaf)
			if !ok {
				cs.NullCount += cc.NumValues()
				continue
			}
			cs.NullCount += st.NullCount()
			if !st.HasMinMax() {
				continue
			}
			lo, hi, err := parquetStatValues(st)
			if err != nil {
				return nil, fmt.Errorf("column stats of %s: column %s: %w", fileName, col, err)
			}
			if err := cs.widen(lo); err != nil {
				return nil, err
			}
			if err := cs.widen(hi); err != nil {
				return nil, err
			}
		}
		out = append(out, cs)
	}
	return out, nil
}

// widen extends the bounds to v (Java's Comparable order: compareStat).
func (cs *ColumnStats) widen(v *StatValue) error {
	if v == nil {
		return nil
	}
	if cs.Min == nil {
		cs.Min, cs.Max = v, v
		return nil
	}
	c1, ok1 := compareStat(v, cs.Min)
	c2, ok2 := compareStat(v, cs.Max)
	if !ok1 || !ok2 {
		return fmt.Errorf("column stats of %s: column %s: cannot compare %s with %s", cs.FileName, cs.ColumnName, v.Wrapper, cs.Min.Wrapper)
	}
	if c1 < 0 {
		cs.Min = v
	}
	if c2 > 0 {
		cs.Max = v
	}
	return nil
}

// parquetStatValues converts a chunk's min/max as convertToNativeJavaType and
// wrapValueIntoAvro do.
func parquetStatValues(st metadata.TypedStatistics) (lo, hi *StatValue, err error) {
	lt := st.Descr().LogicalType()
	dec, isDecimal := lt.(schema.DecimalLogicalType)
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		return &StatValue{BooleanWrapper, s.Min()}, &StatValue{BooleanWrapper, s.Max()}, nil
	case *metadata.Int32Statistics:
		switch {
		case isDecimal:
			return decimalPair(big.NewInt(int64(s.Min())), big.NewInt(int64(s.Max())), int(dec.Scale()))
		case isDate(lt):
			return &StatValue{DateWrapper, s.Min()}, &StatValue{DateWrapper, s.Max()}, nil
		}
		return &StatValue{IntWrapper, s.Min()}, &StatValue{IntWrapper, s.Max()}, nil
	case *metadata.Int64Statistics:
		if isDecimal {
			return decimalPair(big.NewInt(s.Min()), big.NewInt(s.Max()), int(dec.Scale()))
		}
		return &StatValue{LongWrapper, s.Min()}, &StatValue{LongWrapper, s.Max()}, nil
	case *metadata.Float32Statistics:
		return &StatValue{FloatWrapper, s.Min()}, &StatValue{FloatWrapper, s.Max()}, nil
	case *metadata.Float64Statistics:
		return &StatValue{DoubleWrapper, s.Min()}, &StatValue{DoubleWrapper, s.Max()}, nil
	case *metadata.ByteArrayStatistics:
		switch {
		case isDecimal:
			return decimalPair(signedBigEndian(s.Min()), signedBigEndian(s.Max()), int(dec.Scale()))
		case isString(lt):
			return &StatValue{StringWrapper, string(s.Min())}, &StatValue{StringWrapper, string(s.Max())}, nil
		}
		return &StatValue{BytesWrapper, append([]byte(nil), s.Min()...)}, &StatValue{BytesWrapper, append([]byte(nil), s.Max()...)}, nil
	case *metadata.FixedLenByteArrayStatistics:
		if isDecimal {
			return decimalPair(signedBigEndian(s.Min()), signedBigEndian(s.Max()), int(dec.Scale()))
		}
	}
	// Java's wrapValueIntoAvro has no wrapper for INT96 or a non-decimal fixed value and
	// fails the write.
	return nil, nil, fmt.Errorf("Parquet type %s (%s) has no column-stats wrapper in Hudi 0.14: leave the column out of %s",
		st.Descr().PhysicalType(), lt, "hoodie.metadata.index.column.stats.column.list")
}

func isDate(lt schema.LogicalType) bool {
	_, ok := lt.(schema.DateLogicalType)
	return ok
}

// isString is Parquet's UTF8 original type (Java tests the original type, so ENUM and
// JSON binaries stay bytes).
func isString(lt schema.LogicalType) bool {
	_, ok := lt.(schema.StringLogicalType)
	return ok
}

// signedBigEndian decodes a big-endian two's-complement integer (a Parquet or Avro
// decimal's unscaled value).
func signedBigEndian(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

func decimalPair(lo, hi *big.Int, scale int) (*StatValue, *StatValue, error) {
	a, err := DecimalStat(lo, scale)
	if err != nil {
		return nil, nil, err
	}
	b, err := DecimalStat(hi, scale)
	if err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// DecimalStat is the DecimalWrapper of the decimal unscaled × 10^-scale: rescaled to
// scale 15 without rounding and at most 30 digits, else an error, as tryUpcastDecimal;
// stored as Java's BigInteger.toByteArray (minimal two's complement, big-endian).
func DecimalStat(unscaled *big.Int, scale int) (*StatValue, error) {
	n := new(big.Int).Set(unscaled)
	switch {
	case scale < DecimalWrapperScale:
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(DecimalWrapperScale-scale)), nil))
	case scale > DecimalWrapperScale:
		q, r := new(big.Int).QuoRem(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-DecimalWrapperScale)), nil), new(big.Int))
		if r.Sign() != 0 {
			return nil, fmt.Errorf("decimal with scale %d cannot be stored at scale %d without rounding (Hudi's DecimalWrapper)", scale, DecimalWrapperScale)
		}
		n = q
	}
	if len(new(big.Int).Abs(n).String()) > 30 {
		return nil, fmt.Errorf("decimal %s×10^-%d has more than 30 digits at scale %d (Hudi's DecimalWrapper)", unscaled, scale, DecimalWrapperScale)
	}
	return &StatValue{Wrapper: DecimalWrapper, V: []byte(logfile.NewDecimalValue(n))}, nil
}

// LogColumnStats returns the column_stats of the given columns over the records of a log
// file's data blocks (blocks: the file's blocks; delete and command blocks carry no
// records and count for nothing). Every column gets a record, with zero counts when the
// file has no data records, as Java's append handle reports for a write of deletes only.
// A column whose Avro type has no wrapper (record, array, map, enum, fixed) gets none:
// hudi-go's choice where Java 0.14 would count it null (maps) or fail (UNVERIFIED).
func LogColumnStats(blocks []*logfile.Block, fileName string, columns []string) ([]*ColumnStats, error) {
	acc := make(map[string]*ColumnStats, len(columns))
	skip := map[string]bool{}
	for _, col := range columns {
		acc[col] = &ColumnStats{FileName: fileName, ColumnName: col, ValueType: ValueTypeNone}
	}
	schemas := map[string]*logSchema{}
	for _, b := range blocks {
		switch b.Type {
		case logfile.AvroDataBlock:
			ws := b.Header[logfile.Schema]
			ls := schemas[ws]
			if ls == nil {
				var err error
				if ls, err = parseLogSchema(ws); err != nil {
					return nil, fmt.Errorf("column stats of %s: %w", fileName, err)
				}
				schemas[ws] = ls
			}
			recs, err := logfile.DecodeAvroDataBlock(b.Content)
			if err != nil {
				return nil, fmt.Errorf("column stats of %s: %w", fileName, err)
			}
			for _, raw := range recs {
				v, _, err := ls.s.Decode(raw)
				if err != nil {
					return nil, fmt.Errorf("column stats of %s: %w", fileName, err)
				}
				row, _ := v.(map[string]any)
				for _, col := range columns {
					if skip[col] {
						continue
					}
					ft, ok := ls.fields[col]
					if !ok {
						// A column the block's schema lacks: null in every record.
						acc[col].ValueCount++
						acc[col].NullCount++
						continue
					}
					sv, wrappable, err := avroStatValue(row[col], ft)
					if err != nil {
						return nil, fmt.Errorf("column stats of %s: column %s: %w", fileName, col, err)
					}
					if !wrappable {
						skip[col] = true
						continue
					}
					cs := acc[col]
					cs.ValueCount++
					if sv == nil {
						cs.NullCount++
						continue
					}
					if err := cs.widen(sv); err != nil {
						return nil, err
					}
				}
			}
		case logfile.ParquetDataBlock:
			pf, err := parquet.OpenBytes(b.Content, fileName, memory.DefaultAllocator, 0)
			if err != nil {
				return nil, fmt.Errorf("column stats of %s: %w", fileName, err)
			}
			stats, err := ParquetColumnStats(pf, fileName, columns)
			pf.Close()
			if err != nil {
				return nil, err
			}
			for _, s := range stats {
				cs := acc[s.ColumnName]
				cs.ValueCount += s.ValueCount
				cs.NullCount += s.NullCount
				if err := cs.widen(s.Min); err != nil {
					return nil, err
				}
				if err := cs.widen(s.Max); err != nil {
					return nil, err
				}
			}
		case logfile.HFileDataBlock, logfile.CDCDataBlock:
			return nil, fmt.Errorf("column stats of %s: a %s in a data table's log file is not supported", fileName, b.Type)
		}
	}
	var out []*ColumnStats
	for _, col := range columns {
		if !skip[col] {
			out = append(out, acc[col])
		}
	}
	return out, nil
}

// logSchema is a data block's writer schema with the (non-null) type of each top-level field.
type logSchema struct {
	s      *avro.Schema
	fields map[string]avroFieldType
}

// avroFieldType is what the stats need of a field's Avro type.
type avroFieldType struct {
	typ, logical string
	scale        int
}

func parseLogSchema(ws string) (*logSchema, error) {
	s, err := avro.Parse(ws)
	if err != nil {
		return nil, fmt.Errorf("data block schema: %w", err)
	}
	var js struct {
		Fields []struct {
			Name string `json:"name"`
			Type any    `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(ws), &js); err != nil {
		return nil, fmt.Errorf("data block schema: %w", err)
	}
	ls := &logSchema{s: s, fields: map[string]avroFieldType{}}
	for _, f := range js.Fields {
		t := f.Type
		if u, ok := t.([]any); ok {
			for _, b := range u {
				if b != "null" {
					t = b
				}
			}
		}
		var ft avroFieldType
		switch x := t.(type) {
		case string:
			ft.typ = x
		case map[string]any:
			ft.typ, _ = x["type"].(string)
			ft.logical, _ = x["logicalType"].(string)
			if sc, ok := x["scale"].(float64); ok {
				ft.scale = int(sc)
			}
		}
		ls.fields[f.Name] = ft
	}
	return ls, nil
}

// avroStatValue wraps a decoded Avro value by its field type (nil for null); wrappable is
// false for types without a wrapper.
func avroStatValue(v any, ft avroFieldType) (sv *StatValue, wrappable bool, err error) {
	switch ft.typ {
	case "record", "array", "map", "enum":
		return nil, false, nil
	case "fixed":
		if ft.logical != "decimal" {
			return nil, false, nil
		}
	}
	if v == nil {
		return nil, true, nil
	}
	switch x := v.(type) {
	case bool:
		return &StatValue{BooleanWrapper, x}, true, nil
	case int32:
		if ft.logical == "date" {
			return &StatValue{DateWrapper, x}, true, nil
		}
		return &StatValue{IntWrapper, x}, true, nil
	case int64:
		return &StatValue{LongWrapper, x}, true, nil
	case float32:
		return &StatValue{FloatWrapper, x}, true, nil
	case float64:
		return &StatValue{DoubleWrapper, x}, true, nil
	case string:
		return &StatValue{StringWrapper, x}, true, nil
	case []byte:
		if ft.logical == "decimal" {
			d, err := DecimalStat(signedBigEndian(x), ft.scale)
			return d, true, err
		}
		return &StatValue{BytesWrapper, append([]byte(nil), x...)}, true, nil
	}
	return nil, false, fmt.Errorf("value of Go type %T for Avro type %s", v, ft.typ)
}
