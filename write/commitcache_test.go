package write_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
	"github.com/hudi-go/hudi/table"
	"github.com/hudi-go/hudi/write"
)

// countingStorage counts the reads (Open and ReadFile) of each path.
type countingStorage struct {
	storage.Storage
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingStorage) count(p string) {
	c.mu.Lock()
	c.reads[p]++
	c.mu.Unlock()
}

func (c *countingStorage) Open(ctx context.Context, p string) (storage.File, error) {
	c.count(p)
	return c.Storage.Open(ctx, p)
}

func (c *countingStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.count(p)
	return c.Storage.ReadFile(ctx, p)
}

// take returns the reads since the last call and resets the counts.
func (c *countingStorage) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reads
	c.reads = map[string]int{}
	return out
}

func withSuffix(reads map[string]int, suffix string) map[string]int {
	out := map[string]int{}
	for p, n := range reads {
		if strings.HasSuffix(p, suffix) {
			out[p] = n
		}
	}
	return out
}

// A writer making many small commits through one handle must not re-read what it read
// for the previous commit: every active commit's metadata (the average record size looks
// through all of them while commits are small) and every base file's footer (the BLOOM
// index range check). Both were read again on every commit, a per-commit cost that grew
// with the timeline and the file count (bench W7).
func TestSmallCommitsReuseDecodedFiles(t *testing.T) {
	for _, tc := range []struct {
		name           string
		smallFileLimit int64
	}{{"new files", -1}, {"small-file routing", 100 << 20}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts",
				Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"}); err != nil {
				t.Fatal(err)
			}
			cs := &countingStorage{Storage: local.New(dir), reads: map[string]int{}}
			tbl, err := table.Open(ctx, cs)
			if err != nil {
				t.Fatal(err)
			}
			const commits = 6
			for c := range commits {
				cs.take() // count the last commit only
				// Time-ordered keys: each new key is outside every older file's key range.
				b := tripsBatch(int64(c), fmt.Sprintf("k%03d", c), "r", float64(c), "sf")
				_, err := write.Write(ctx, tbl, []arrow.Record{b}, write.Options{Operation: write.Upsert,
					IndexType: write.IndexBloom, SmallFileLimit: tc.smallFileLimit})
				b.Release()
				if err != nil {
					t.Fatalf("commit %d: %v", c, err)
				}
			}
			// In the last commit: the base files are read only for the one file the
			// previous commit wrote (its footer is new) — and, with small-file routing, the
			// rewrite of that file, which opens it again; commit metadata is read only for
			// the previous commit.
			reads := cs.take()
			parquetReads, commitReads := withSuffix(reads, ".parquet"), withSuffix(reads, ".commit")
			wantFiles := 1
			if len(parquetReads) > wantFiles {
				t.Errorf("the last commit read %d base files, want %d: %v", len(parquetReads), wantFiles, parquetReads)
			}
			if len(commitReads) > 1 {
				t.Errorf("the last commit read %d commit files, want 1: %v", len(commitReads), commitReads)
			}
		})
	}
}
