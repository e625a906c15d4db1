package bloom_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/testutil"
)

// A COW merge may resume the base file's bloom filter instead of hashing every stored key
// again (write.mergeFile). Whatever path it takes, every base file's footer filter must be
// exactly the filter of its record keys in row order: checked after small-file upserts with
// updates (keys move to the end of the file), across dynamic-filter rows (order matters
// there, so the merge must not resume), with deletes, for both filter types.
func TestMergedFileBloomFilterIsFresh(t *testing.T) {
	ctx := context.Background()
	for i, c := range []struct {
		name     string
		settings map[string]string
	}{
		{"dynamic one row", map[string]string{}},
		{"dynamic many rows", map[string]string{"hoodie.index.bloom.num_entries": "60", "hoodie.bloom.index.filter.dynamic.max.entries": "200", "hoodie.index.bloom.fpp": "0.01"}},
		{"simple", map[string]string{"hoodie.bloom.index.filter.type": "SIMPLE", "hoodie.index.bloom.num_entries": "150", "hoodie.index.bloom.fpp": "0.01"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testutil.RaceSample(t, i)
			dir := filepath.Join(t.TempDir(), "t")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, HiveStyle: true, Schema: benchdata.TripsDDL})
			if err != nil {
				t.Fatal(err)
			}
			s := map[string]string{"hoodie.index.type": "BLOOM"}
			for k, v := range c.settings {
				s[k] = v
			}
			next := 0
			for commit := 0; commit < 12; commit++ {
				idx := []int{}
				for i := 0; i < 90; i++ {
					idx = append(idx, next+i)
				}
				if commit > 0 {
					for i := 0; i < 10; i++ {
						// updates: of the previous commit's keys, and of the oldest keys
						// (in a dynamic filter's first row, which moving them to the end of
						// the file changes)
						idx = append(idx, next-90+i, commit*10+i)
					}
				}
				next += 90
				op := "upsert"
				if commit == 5 {
					op, idx = "delete", idx[:20]
				}
				batch := []arrow.Record{benchdata.TripsRows(idx, 1, int64(commit), -1)}
				_, err := tb.Write(ctx, batch, hudi.WriteOptions{Operation: op, Settings: s})
				benchdata.Release(batch)
				if err != nil {
					t.Fatalf("commit %d: %v", commit, err)
				}
				checkFooterFilters(t, dir, s)
			}
		})
	}
}

func checkFooterFilters(t *testing.T, dir string, settings map[string]string) {
	t.Helper()
	ctx := context.Background()
	typ := bloom.Type(settings["hoodie.bloom.index.filter.type"])
	if typ == "" {
		typ = bloom.DynamicV0
	}
	atoi := func(k string) int64 {
		var n int64
		for _, ch := range settings[k] {
			n = n*10 + int64(ch-'0')
		}
		return n
	}
	o := bloom.Options{NumEntries: int(atoi("hoodie.index.bloom.num_entries")), MaxEntries: int(atoi("hoodie.bloom.index.filter.dynamic.max.entries"))}
	if settings["hoodie.index.bloom.fpp"] == "0.01" {
		o.FPP = 0.01
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".hoodie" {
			if err == nil {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(p, ".parquet") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		st, _ := f.Stat()
		pf, err := parquet.Open(f, st.Size(), p, memory.DefaultAllocator, 0)
		if err != nil {
			return err
		}
		defer pf.Close()
		stored, _, ok := pf.BloomFilter()
		if !ok {
			t.Errorf("%s: no bloom filter", p)
			return nil
		}
		fresh, err := bloom.New(typ, o)
		if err != nil {
			return err
		}
		leaves, _ := pf.LeafColumns([]string{"_hoodie_record_key"})
		if err := pf.ReadBatches(ctx, leaves, nil, func(rec arrow.Record) error {
			keys := rec.Column(0).(*array.String)
			for i := 0; i < keys.Len(); i++ {
				fresh.Add(keys.Value(i))
			}
			return nil
		}); err != nil {
			return err
		}
		if fresh.Serialize() != stored {
			t.Errorf("%s (%d rows): footer bloom filter differs from the filter of its keys", filepath.Base(p), pf.NumRows())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
