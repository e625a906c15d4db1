package compaction_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/services/compaction"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

var citySchema = arrow.NewSchema([]arrow.Field{
	{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var cities = []string{"ams", "bcn", "chi", "sfo"}

// cityRows is keys 0..n-1 of every city at ts.
func cityRows(n int, ts int64) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, citySchema)
	defer b.Release()
	for _, c := range cities {
		for i := 0; i < n; i++ {
			b.Field(0).(*array.Int64Builder).Append(ts)
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%s-%03d", c, i))
			b.Field(2).(*array.StringBuilder).Append(c)
		}
	}
	return b.NewRecord()
}

// newCityTable is a MOR table with one file group per city, each with a log file.
func newCityTable(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "cities", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "ts BIGINT, uuid STRING, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	for ts, op := range []string{"insert", "upsert"} {
		rec := cityRows(50, int64(ts))
		_, err := tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: op})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// failingCreate makes the output file of one partition fail on its first write.
type failingCreate struct {
	storage.Storage
	partition string
}

var errInjected = errors.New("injected write failure")

func (f failingCreate) Create(ctx context.Context, p string) (storage.Writer, error) {
	w, err := f.Storage.Create(ctx, p)
	if err == nil && strings.HasPrefix(p, f.partition+"/") && strings.HasSuffix(p, ".parquet") {
		return failingWriter{w}, nil
	}
	return w, err
}

type failingWriter struct{ storage.Writer }

func (failingWriter) Write([]byte) (int, error) { return 0, errInjected }

// TestExecuteFailure: when one file group of a plan fails — its base file unreadable, or
// its new base file unwritable — the compaction stops every group (one at a time or
// several at once), names the group, publishes no commit and leaves the plan pending;
// once the cause is gone, running it again completes it with every row.
func TestExecuteFailure(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		// breakTable damages the table (and returns how to repair it) or wraps the storage.
		breakTable func(t *testing.T, dir string) (st storage.Storage, repair func())
		wantErr    []string // in the error, with the instant
	}{
		{
			name: "base file unreadable",
			breakTable: func(t *testing.T, dir string) (storage.Storage, func()) {
				bases, _ := filepath.Glob(filepath.Join(dir, "chi", "*.parquet"))
				if len(bases) != 1 {
					t.Fatalf("base files of chi: %v", bases)
				}
				good, err := os.ReadFile(bases[0])
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(bases[0], []byte("not parquet at all"), 0o644); err != nil {
					t.Fatal(err)
				}
				return local.New(dir), func() { os.WriteFile(bases[0], good, 0o644) }
			},
			wantErr: []string{"file group chi/"},
		},
		{
			name: "new base file unwritable",
			breakTable: func(t *testing.T, dir string) (storage.Storage, func()) {
				return failingCreate{local.New(dir), "bcn"}, func() {}
			},
			wantErr: []string{"file group bcn/", errInjected.Error()},
		},
	} {
		for _, parallelism := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/parallelism %d", c.name, parallelism), func(t *testing.T) {
				dir := newCityTable(t)
				o := compaction.Options{Write: write.Options{Parallelism: parallelism}}
				inst, plan, err := compaction.Schedule(ctx, local.New(dir), o)
				if err != nil || len(plan.Operations) != len(cities) {
					t.Fatalf("schedule: %s %+v %v", inst, plan, err)
				}
				st, repair := c.breakTable(t, dir)
				_, err = compaction.Execute(ctx, st, o)
				for _, want := range append(c.wantErr, string(inst)) {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("execute: %v, want an error containing %q", err, want)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, ".hoodie", string(inst)+".commit")); !os.IsNotExist(err) {
					t.Fatalf("a failed compaction published its commit (%v)", err)
				}
				// The failed run's heartbeat stays until it expires (as after a crash); the
				// re-run comes after that.
				repair()
				o.Write.Now = func() time.Time { return time.Now().Add(10 * time.Minute) }
				res, err := compaction.Execute(ctx, local.New(dir), o)
				if err != nil || len(res) != 1 || res[0].Instant != string(inst) || res[0].FilesWritten != len(cities) {
					t.Fatalf("re-run: %+v %v", res, err)
				}
				checkCities(t, dir, inst)
			})
		}
	}
}

// checkCities reads the compacted table: every key once, at the upsert's ts, from a base
// file of instant inst.
func checkCities(t *testing.T, dir string, inst spec.InstantTime) {
	t.Helper()
	ctx := context.Background()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	scan, err := tbl.Scan(ctx, hudi.ScanOptions{ReadOptimized: true, Columns: []string{"uuid", "ts", "_hoodie_file_name"}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	err = scan.Run(ctx, func(rec arrow.Record) error {
		uuid, ts, file := rec.Column(0).(*array.String), rec.Column(1).(*array.Int64), rec.Column(2).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			if ts.Value(i) != 1 || !strings.HasSuffix(file.Value(i), "_"+string(inst)+".parquet") {
				t.Errorf("row %s: ts %d in %s", uuid.Value(i), ts.Value(i), file.Value(i))
			}
			keys = append(keys, strings.Clone(uuid.Value(i)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	if len(keys) != 50*len(cities) || keys[0] != "ams-000" || keys[len(keys)-1] != "sfo-049" {
		t.Errorf("%d rows after the compaction, want %d", len(keys), 50*len(cities))
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			t.Errorf("key %s twice", keys[i])
		}
	}
}
