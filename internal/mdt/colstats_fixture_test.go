package mdt_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

// TestColumnStatsLikeSparkFixtures reads the column_stats partition of every Spark
// fixture that lists it and checks each live record against the file it describes: for a
// Parquet base file, the footer (min of the row groups' minimums, max of the maximums, sums
// of null counts, value counts and chunk sizes — Java's
// HoodieTableMetadataUtil.collectColumnRangeMetadata over ParquetUtils' footer ranges);
// for a log file, the records of its Avro data blocks (count, nulls, min, max — Hudi 1.x
// indexes a log file's written records; sizes are 0). Every key is Java's
// (ReadColumnStats recomputes each key from the record's partition, file and column and
// refuses a mismatch; a non-partitioned table's partition hashes as "."). A record whose
// file is gone from the table is an error: cleaned files leave tombstones.
func TestColumnStatsLikeSparkFixtures(t *testing.T) {
	ctx := context.Background()
	var fixtures, baseRecs, logRecs, bounded int
	// Under -race: one COW and three MOR tables (Hudi 1.0 and 1.1, a non-partitioned one).
	raceSet := []string{"cow/v9_txns_simple_meta", "mor-avro/v9_txns_complex_meta", "mor-avro/v9_txns_nonpart_meta", "trips-mor-avro/v8_trips_8i3u1d"}
	var fixtureDirs map[string]string
	if raceEnabled {
		fixtureDirs = map[string]string{}
		for _, id := range raceSet {
			fixtureDirs[id] = testutil.Table(t, id)
		}
	} else {
		fixtureDirs = mdtFixtures(t)
	}
	for id, base := range fixtureDirs {
		m, err := mdt.Open(ctx, local.New(base))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(m.Available, mdt.PartitionColumnStats) {
			continue
		}
		fixtures++
		parts, err := m.Partitions(ctx)
		if err != nil {
			t.Fatal(id, err)
		}
		all, err := m.ReadColumnStats(ctx, parts)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		// Every live record belongs to a partition of the table.
		if raw, err := m.ReadPartition(ctx, mdt.PartitionColumnStats); err == nil {
			live, found := 0, 0
			for _, r := range raw {
				if !r.ColumnStats.IsDeleted {
					live++
				}
			}
			for _, files := range all {
				for _, cols := range files {
					found += len(cols)
				}
			}
			if live != found {
				t.Errorf("%s: %d live column_stats records, %d of the table's partitions", id, live, found)
			}
		}
		for p, files := range all {
			for name, cols := range files {
				file := filepath.Join(base, filepath.FromSlash(p), name)
				var got map[string]*mdt.ColumnStats
				switch {
				case strings.HasSuffix(name, ".parquet"):
					got = parquetStats(t, file, cols)
					baseRecs += len(cols)
				case strings.HasSuffix(name, ".lance"):
					continue // not readable by hudi-go
				default:
					got = logStats(t, file, cols)
					logRecs += len(cols)
				}
				for col, rec := range cols {
					where := fmt.Sprintf("%s: %s/%s column %s", id, p, name, col)
					want := got[col]
					if want == nil {
						t.Errorf("%s: column not in the file", where)
						continue
					}
					if rec.ValueCount != want.ValueCount || rec.NullCount != want.NullCount {
						t.Errorf("%s: value/null count %d/%d, the file has %d/%d", where, rec.ValueCount, rec.NullCount, want.ValueCount, want.NullCount)
					}
					if rec.TotalSize != want.TotalSize || rec.TotalUncompressedSize != want.TotalUncompressedSize {
						t.Errorf("%s: sizes %d/%d, the file has %d/%d", where, rec.TotalSize, rec.TotalUncompressedSize, want.TotalSize, want.TotalUncompressedSize)
					}
					lo, hi, ok := rec.Bounds()
					if !ok {
						if want.Min != nil {
							t.Errorf("%s: no bounds in the record (min %v, value type %d), the file has %v..%v", where, rec.Min, rec.ValueType, want.Min, want.Max)
						}
						continue
					}
					bounded++
					if !sameBound(lo, want.Min) || !sameBound(hi, want.Max) {
						t.Errorf("%s: bounds %v..%v, the file has %v..%v", where, show(lo), show(hi), show(want.Min), show(want.Max))
					}
				}
			}
		}
	}
	if !raceEnabled && (fixtures != 14 || baseRecs != 1295 || logRecs != 218 || bounded != 1430) {
		t.Errorf("checked %d fixtures, %d base-file records, %d log-file records, %d with bounds; want 14, 1295, 218, 1430", fixtures, baseRecs, logRecs, bounded)
	}
}

// fileStats is what a file says about a column, bounds in expr's form.
type fileStats struct {
	Min, Max                         any
	ValueCount, NullCount            int64
	TotalSize, TotalUncompressedSize int64
}

// add counts a value of a record (nil: a null).
func (fs *fileStats) add(v any) {
	if v == nil {
		fs.NullCount++
		return
	}
	fs.observe(v)
}

// observe widens the bounds to v.
func (fs *fileStats) observe(v any) {
	if fs.Min == nil || cmpBound(v, fs.Min) < 0 {
		fs.Min = v
	}
	if fs.Max == nil || cmpBound(v, fs.Max) > 0 {
		fs.Max = v
	}
}

func parquetStats(t *testing.T, path string, cols map[string]*mdt.ColumnStats) map[string]*mdt.ColumnStats {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("column stats of a file the table lacks: %v", err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.Open(f, fi.Size(), path, memory.DefaultAllocator, 1024)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	out := map[string]*mdt.ColumnStats{}
	for col := range cols {
		leaf := pf.LeafIndex(col)
		if leaf < 0 {
			continue
		}
		fs := &fileStats{}
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			cc, err := pf.RowGroupMetadata(rg).ColumnChunk(leaf)
			if err != nil {
				t.Fatal(err)
			}
			fs.ValueCount += cc.NumValues()
			fs.TotalSize += cc.TotalCompressedSize()
			fs.TotalUncompressedSize += cc.TotalUncompressedSize()
			st, ok := pf.ColumnChunkStats(rg, leaf)
			if !ok {
				t.Fatalf("%s: column %s has no statistics", path, col)
			}
			fs.NullCount += st.NullCount()
			if st.HasMinMax() {
				lo, hi := parquetBounds(t, st)
				fs.observe(lo)
				fs.observe(hi)
			}
		}
		out[col] = fs.record()
	}
	return out
}

// record returns the summary as a ColumnStats whose StatValues hold expr-form bounds
// (Wrapper empty), for the comparison.
func (fs *fileStats) record() *mdt.ColumnStats {
	cs := &mdt.ColumnStats{ValueCount: fs.ValueCount, NullCount: fs.NullCount, TotalSize: fs.TotalSize, TotalUncompressedSize: fs.TotalUncompressedSize}
	if fs.Min != nil {
		cs.Min = &mdt.StatValue{V: fs.Min}
		cs.Max = &mdt.StatValue{V: fs.Max}
	}
	return cs
}

// parquetBounds converts footer statistics through the column's logical type.
func parquetBounds(t *testing.T, st metadata.TypedStatistics) (lo, hi any) {
	t.Helper()
	lt := st.Descr().LogicalType()
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		return s.Min(), s.Max()
	case *metadata.Int32Statistics:
		switch lt.(type) {
		case schema.DateLogicalType:
			return expr.Date(s.Min()), expr.Date(s.Max())
		case schema.DecimalLogicalType:
			sc := int64(lt.(schema.DecimalLogicalType).Scale())
			return ratOf(big.NewInt(int64(s.Min())), sc), ratOf(big.NewInt(int64(s.Max())), sc)
		}
		return int64(s.Min()), int64(s.Max())
	case *metadata.Int64Statistics:
		switch l := lt.(type) {
		case schema.TimestampLogicalType:
			mul := map[schema.TimeUnitType]int64{schema.TimeUnitMillis: 1000, schema.TimeUnitMicros: 1}[l.TimeUnit()]
			if mul == 0 {
				t.Fatalf("timestamp unit %v", l.TimeUnit())
			}
			return expr.TimestampMicros(s.Min() * mul), expr.TimestampMicros(s.Max() * mul)
		case schema.DecimalLogicalType:
			sc := int64(l.Scale())
			return ratOf(big.NewInt(s.Min()), sc), ratOf(big.NewInt(s.Max()), sc)
		}
		return s.Min(), s.Max()
	case *metadata.Float32Statistics:
		return float64(s.Min()), float64(s.Max())
	case *metadata.Float64Statistics:
		return s.Min(), s.Max()
	case *metadata.ByteArrayStatistics:
		if _, ok := lt.(schema.StringLogicalType); ok {
			return string(s.Min()), string(s.Max())
		}
		if d, ok := lt.(schema.DecimalLogicalType); ok {
			return twos(s.Min(), int64(d.Scale())), twos(s.Max(), int64(d.Scale()))
		}
		return []byte(s.Min()), []byte(s.Max())
	case *metadata.FixedLenByteArrayStatistics:
		if d, ok := lt.(schema.DecimalLogicalType); ok {
			return twos(s.Min(), int64(d.Scale())), twos(s.Max(), int64(d.Scale()))
		}
		return []byte(s.Min()), []byte(s.Max())
	}
	t.Fatalf("statistics %T", st)
	return nil, nil
}

func ratOf(n *big.Int, scale int64) *big.Rat {
	return new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(scale), nil))
}

func twos(b []byte, scale int64) *big.Rat {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return ratOf(n, scale)
}

// logStats reads a data log file's Avro data blocks and summarises each column of cols.
func logStats(t *testing.T, path string, cols map[string]*mdt.ColumnStats) map[string]*mdt.ColumnStats {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("column stats of a file the table lacks: %v", err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	blocks, err := logfile.ReadAll(f, fi.Size(), path)
	if err != nil {
		t.Fatal(err)
	}
	acc := map[string]*fileStats{}
	for col := range cols {
		acc[col] = &fileStats{}
	}
	for _, b := range blocks {
		if b.Type != logfile.AvroDataBlock {
			continue
		}
		ws := b.Header[logfile.Schema]
		s, err := avro.Parse(ws)
		if err != nil {
			t.Fatal(err)
		}
		types := avroFieldTypes(t, ws)
		recs, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range recs {
			v, _, err := s.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			row := v.(map[string]any)
			for col, fs := range acc {
				fs.ValueCount++
				fs.add(avroBound(t, row[col], types[col]))
			}
		}
	}
	out := map[string]*mdt.ColumnStats{}
	for col, fs := range acc {
		out[col] = fs.record()
	}
	return out
}

// avroFieldTypes maps each top-level field to its non-null type (a JSON value).
func avroFieldTypes(t *testing.T, schemaJSON string) map[string]any {
	var s struct {
		Fields []struct {
			Name string `json:"name"`
			Type any    `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, f := range s.Fields {
		typ := f.Type
		if u, ok := typ.([]any); ok {
			for _, b := range u {
				if b != "null" {
					typ = b
				}
			}
		}
		out[f.Name] = typ
	}
	return out
}

func avroBound(t *testing.T, v any, typ any) any {
	if v == nil {
		return nil
	}
	logical, scale := "", int64(0)
	if m, ok := typ.(map[string]any); ok {
		logical, _ = m["logicalType"].(string)
		if sc, ok := m["scale"].(float64); ok {
			scale = int64(sc)
		}
	}
	switch x := v.(type) {
	case int32:
		if logical == "date" {
			return expr.Date(x)
		}
		return int64(x)
	case int64:
		switch logical {
		case "timestamp-micros":
			return expr.TimestampMicros(x)
		case "timestamp-millis":
			return expr.TimestampMicros(x * 1000)
		}
		return x
	case []byte:
		if logical == "decimal" {
			return twos(x, scale)
		}
		return x
	case float32:
		return float64(x)
	case string, bool, float64:
		return x
	}
	t.Fatalf("log record value %T", v)
	return nil
}

func cmpBound(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmpOrdered(x, y)
	case float64:
		return cmpOrdered(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case expr.Date:
		return cmpOrdered(x, b.(expr.Date))
	case expr.TimestampMicros:
		return cmpOrdered(x, b.(expr.TimestampMicros))
	case *big.Rat:
		return x.Cmp(b.(*big.Rat))
	}
	panic(fmt.Sprintf("bound %T", a))
}

func cmpOrdered[T int64 | float64 | expr.Date | expr.TimestampMicros](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sameBound compares a record's bound with the file's (want is a *StatValue holding an
// expr-form value, or nil).
func sameBound(got any, want *mdt.StatValue) bool {
	if want == nil {
		return got == nil
	}
	if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want.V) {
		return false
	}
	return cmpBound(got, want.V) == 0
}

func show(v any) string {
	switch x := v.(type) {
	case *mdt.StatValue:
		if x == nil {
			return "<nil>"
		}
		return show(x.V)
	case *big.Rat:
		return x.RatString()
	}
	return fmt.Sprintf("%v(%T)", v, v)
}
