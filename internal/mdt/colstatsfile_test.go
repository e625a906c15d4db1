package mdt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

// TestColumnStatsComputedLikeSpark computes, with the writer's code (ParquetColumnStats,
// LogColumnStats), the column_stats record of every live record of the Spark fixtures'
// column_stats partitions from the file it describes, and compares them field by field:
// counts and sizes always; the min/max wrapper and value exactly where Spark's record has
// no Hudi 1.1 value type (the Hudi 1.0 fixture trips-mor-avro/v8_trips_8i3u1d, whose
// records have 0.14's shape), and as bounds where it has one. The key of each computed
// record must be the key Spark stored it under.
func TestColumnStatsComputedLikeSpark(t *testing.T) {
	ctx := context.Background()
	// Under -race: the Hudi 1.0 table (compared exactly) and a non-partitioned 1.1 MOR
	// table; scripts/test runs all of them without.
	ids := []string{"trips-mor-avro/v8_trips_8i3u1d", "mor-avro/v9_txns_nonpart_meta"}
	if !raceEnabled {
		ids = nil
		for id := range mdtFixtures(t) {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	var exact, bounded, counted int
	for _, id := range ids {
		base := testutil.Table(t, id)
		m, err := mdt.Open(ctx, local.New(base))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(m.Available, mdt.PartitionColumnStats) {
			continue
		}
		parts, err := m.Partitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all, err := m.ReadColumnStats(ctx, parts)
		if err != nil {
			t.Fatal(id, err)
		}
		for p, files := range all {
			for name, cols := range files {
				if strings.HasSuffix(name, ".lance") {
					continue
				}
				var columns []string
				for c := range cols {
					columns = append(columns, c)
				}
				sort.Strings(columns)
				got := computeStats(t, filepath.Join(base, filepath.FromSlash(p), name), name, columns)
				for _, col := range columns {
					want, where := cols[col], fmt.Sprintf("%s: %s/%s column %s", id, p, name, col)
					g := got[col]
					if g == nil {
						t.Errorf("%s: no stats computed", where)
						continue
					}
					counted++
					if g.ValueCount != want.ValueCount || g.NullCount != want.NullCount || g.TotalSize != want.TotalSize || g.TotalUncompressedSize != want.TotalUncompressedSize {
						t.Errorf("%s: counts/sizes %d/%d/%d/%d, Spark's %d/%d/%d/%d", where, g.ValueCount, g.NullCount, g.TotalSize, g.TotalUncompressedSize,
							want.ValueCount, want.NullCount, want.TotalSize, want.TotalUncompressedSize)
					}
					if k := mdt.ColumnStatsRecord(p, g).Key; k != mdt.ColumnStatsKey(p, want.FileName, want.ColumnName) {
						t.Errorf("%s: key %s", where, k)
					}
					if want.ValueType == mdt.ValueTypeNone {
						w := *want
						w.IsTightBound = false // Hudi 1.x's field; 0.14 has none
						if !reflect.DeepEqual(g, &w) {
							t.Errorf("%s: computed %+v %v %v, Spark's %+v %v %v", where, g, g.Min, g.Max, w, w.Min, w.Max)
						}
						exact++
						continue
					}
					glo, ghi, gok := g.Bounds()
					wlo, whi, wok := want.Bounds()
					if gok && wok && reflect.TypeOf(glo) == reflect.TypeOf(wlo) {
						bounded++
						if !reflect.DeepEqual([]any{glo, ghi}, []any{wlo, whi}) && fmt.Sprint(glo, ghi) != fmt.Sprint(wlo, whi) {
							t.Errorf("%s: bounds %v..%v, Spark's %v..%v", where, glo, ghi, wlo, whi)
						}
					}
				}
			}
		}
	}
	t.Logf("%d records compared: %d exactly, %d by bounds", counted, exact, bounded)
	if exact == 0 {
		t.Error("no record compared exactly")
	}
}

func computeStats(t *testing.T, path, name string, columns []string) map[string]*mdt.ColumnStats {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stats []*mdt.ColumnStats
	if strings.HasSuffix(name, ".parquet") {
		pf, err := parquet.OpenBytes(b, path, memory.DefaultAllocator, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		stats, err = mdt.ParquetColumnStats(pf, name, columns)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		blocks, err := logfile.ReadAll(strings.NewReader(string(b)), int64(len(b)), path)
		if err != nil {
			t.Fatal(err)
		}
		if stats, err = mdt.LogColumnStats(blocks, name, columns); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]*mdt.ColumnStats{}
	for _, s := range stats {
		out[s.ColumnName] = s
	}
	return out
}

// TestColumnStatsPrefixLookupLikeFullRead: reading a column's stats by key prefix
// (ReadColumnStatsOf: base HFiles seeked, log blocks filtered) gives, column by column,
// the records of a full read of the partition, on Spark fixtures whose column_stats has
// base files and log files (several file groups).
func TestColumnStatsPrefixLookupLikeFullRead(t *testing.T) {
	ctx := context.Background()
	ids := []string{"trips-mor-avro/v8_trips_8i3u1d", "mor-avro/v9_txns_complex_meta"}
	if raceEnabled {
		ids = ids[1:] // base HFiles and log files in two file groups
	}
	for _, id := range ids {
		m, err := mdt.Open(ctx, local.New(testutil.Table(t, id)))
		if err != nil {
			t.Fatal(err)
		}
		parts, err := m.Partitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all, err := m.ReadColumnStats(ctx, parts)
		if err != nil {
			t.Fatal(err)
		}
		byColumn := map[string]mdt.ColumnStatsByFile{}
		for p, files := range all {
			for f, cols := range files {
				for c, cs := range cols {
					if byColumn[c] == nil {
						byColumn[c] = mdt.ColumnStatsByFile{}
					}
					if byColumn[c][p] == nil {
						byColumn[c][p] = map[string]map[string]*mdt.ColumnStats{}
					}
					byColumn[c][p][f] = map[string]*mdt.ColumnStats{c: cs}
				}
			}
		}
		if len(byColumn) == 0 {
			t.Fatalf("%s: no column stats", id)
		}
		for c, want := range byColumn {
			got, err := m.ReadColumnStatsOf(ctx, parts, []string{c})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: column %s: the prefix lookup gives %d partitions, the full read %d", id, c, len(got), len(want))
			}
		}
		if got, err := m.ReadColumnStatsOf(ctx, parts, []string{"no_such_column"}); err != nil || len(got) != 0 {
			t.Errorf("%s: an unindexed column gives %v, %v", id, got, err)
		}
	}
}
