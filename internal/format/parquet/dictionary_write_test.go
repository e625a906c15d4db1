package parquet_test

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/format/parquet"
)

// hoodie.parquet.dictionary.enabled (default true) reaches every base file a write
// makes: bulk_insert's new files and the files an upsert rewrites dictionary-encode the
// columns Spark's files do (the commit time, partition path and file name, and the
// trips' few riders, drivers, fares and cities), never the record key, seqno or uuid;
// with the key false no column is. The rows read back either way.
func TestDictionaryEncodingOfBaseFiles(t *testing.T) {
	ctx := context.Background()
	wantDict := []string{"_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "rider", "driver", "fare", "city"}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     []string
	}{
		{"default", nil, wantDict},
		{"enabled", map[string]string{"hoodie.parquet.dictionary.enabled": "true"}, wantDict},
		{"disabled", map[string]string{"hoodie.parquet.dictionary.enabled": "false"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, HiveStyle: true, Schema: benchdata.TripsDDL})
			if err != nil {
				t.Fatal(err)
			}
			idx := make([]int, 4000)
			for i := range idx {
				idx[i] = i
			}
			settings := map[string]string{"hoodie.parquet.compression.codec": "snappy"}
			maps.Copy(settings, tc.settings)
			write := func(op string, rec arrow.Record) {
				t.Helper()
				defer rec.Release()
				if _, err := tb.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: op, Settings: settings}); err != nil {
					t.Fatalf("%s: %v", op, err)
				}
			}
			write("bulk_insert", benchdata.TripsRows(idx, 7, 0, -1))
			files := baseFiles(t, dir)
			if len(files) != 4 {
				t.Fatalf("bulk_insert wrote %d base files, want one per city", len(files))
			}
			for _, f := range files {
				if got := dictionaryColumns(t, f); !slices.Equal(got, tc.want) {
					t.Errorf("bulk_insert %s: dictionary columns %v, want %v", filepath.Base(f), got, tc.want)
				}
			}
			// An upsert of every seventh row rewrites each file (two commit times now).
			var upd []int
			for i := 0; i < len(idx); i += 7 {
				upd = append(upd, i)
			}
			write("upsert", benchdata.TripsRows(upd, 7, 1, 999))
			rewritten := 0
			for _, f := range baseFiles(t, dir) {
				if slices.Contains(files, f) {
					continue
				}
				rewritten++
				if got := dictionaryColumns(t, f); !slices.Equal(got, tc.want) {
					t.Errorf("upsert %s: dictionary columns %v, want %v", filepath.Base(f), got, tc.want)
				}
			}
			if rewritten != 4 {
				t.Errorf("upsert rewrote %d files, want 4", rewritten)
			}
			tb, err = hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := scanFares(ctx, tb)
			if err != nil {
				t.Fatal(err)
			}
			if sum.rows != 4000 || sum.n999 != int64(len(upd)) {
				t.Errorf("read back %d rows, %d with fare 999; want 4000 and %d", sum.rows, sum.n999, len(upd))
			}
		})
	}
}

func baseFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// dictionaryColumns lists the columns of a base file with a dictionary page.
func dictionaryColumns(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenBytes(b, path, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	for _, fld := range f.Schema().Fields() {
		cc, err := f.RowGroupMetadata(0).ColumnChunk(f.LeafIndex(fld.Name))
		if err != nil {
			t.Fatal(err)
		}
		if cc.HasDictionaryPage() {
			out = append(out, fld.Name)
		}
	}
	return out
}

type fareSum struct{ rows, n999 int64 }

func scanFares(ctx context.Context, tb *hudi.Table) (fareSum, error) {
	var s fareSum
	sc, err := tb.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		return s, err
	}
	fi := sc.Schema().FieldIndices("fare")[0]
	err = sc.Run(ctx, func(rec arrow.Record) error {
		s.rows += rec.NumRows()
		fares := rec.Column(fi)
		for i := 0; i < fares.Len(); i++ {
			if fares.ValueStr(i) == "999" {
				s.n999++
			}
		}
		return nil
	})
	return s, err
}
