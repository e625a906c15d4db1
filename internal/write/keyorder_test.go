package write_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/parquet"
)

// Hudi's footer min/max record keys are in Java's String order (UTF-16 units). For a key
// with a supplementary character (U+1F600, surrogates D83D DE00) and one with U+E000 the
// Java order is the reverse of Go's byte order. The footer must hold Java's answer, and
// every index must still find both keys: a byte-order range check would prune one away and
// turn its update into a duplicate insert.
func TestFooterKeyRangeInJavaOrder(t *testing.T) {
	const emoji, privateUse = "k\U0001F600", "k\uE000"
	for _, index := range []string{"SIMPLE", "BLOOM", "GLOBAL_SIMPLE", "GLOBAL_BLOOM"} {
		t.Run(index, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts",
				Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"}); err != nil {
				t.Fatal(err)
			}
			// No small-file routing: an update the index misses must not be rescued by the
			// merge of a small file.
			settings := map[string]string{"hoodie.index.type": index, "hoodie.parquet.small.file.limit": "0"}
			write := func(fare float64) {
				t.Helper()
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				a := tripsBatch(int64(fare), emoji, "r", fare, "sf")
				b := tripsBatch(int64(fare), privateUse, "r", fare, "sf")
				defer a.Release()
				defer b.Release()
				if _, err := tbl.Write(ctx, []arrow.Record{a, b}, hudi.WriteOptions{Operation: "upsert", Settings: settings}); err != nil {
					t.Fatal(err)
				}
			}
			write(1)
			base := onlyBaseFile(t, filepath.Join(dir, "sf"))
			f, err := os.Open(base)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			pf, err := parquet.Open(f, st.Size(), base, memory.DefaultAllocator, 0)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi, ok := pf.MinMaxRecordKeys()
			pf.Close()
			if !ok || lo != emoji || hi != privateUse {
				t.Fatalf("footer keys min %q max %q, want Java order min %q max %q", lo, hi, emoji, privateUse)
			}

			write(2)
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			fares := map[string][]float64{}
			sc, err := tbl.Scan(ctx, hudi.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := sc.Run(ctx, func(rec arrow.Record) error {
				key, fare := colByName(rec, "uuid").(*array.String), colByName(rec, "fare").(*array.Float64)
				for i := 0; i < int(rec.NumRows()); i++ {
					fares[key.Value(i)] = append(fares[key.Value(i)], fare.Value(i))
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(fares) != fmt.Sprint(map[string][]float64{emoji: {2}, privateUse: {2}}) {
				t.Fatalf("after the update, fares by key %v; want each key once with fare 2", fares)
			}
		})
	}
}

func onlyBaseFile(t *testing.T, partDir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(partDir, "*.parquet"))
	if err != nil || len(m) != 1 {
		t.Fatalf("base files in %s: %v %v", partDir, m, err)
	}
	return m[0]
}

func colByName(rec arrow.Record, name string) arrow.Array {
	for i, f := range rec.Schema().Fields() {
		if f.Name == name {
			return rec.Column(i)
		}
	}
	return nil
}
