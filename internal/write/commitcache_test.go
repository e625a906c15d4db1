package write_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// countingStorage counts the reads (Open and ReadFile) of each path, and the reads of
// each file's last byte (where Parquet footer reads start: one per footer decode or walk).
type countingStorage struct {
	storage.Storage
	mu    sync.Mutex
	reads map[string]int
	tails map[string]int
}

type tailCounter struct {
	storage.File
	c    *countingStorage
	path string
}

func (f tailCounter) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) >= f.Size() {
		f.c.mu.Lock()
		f.c.tails[f.path]++
		f.c.mu.Unlock()
	}
	return f.File.ReadAt(p, off)
}

func (c *countingStorage) count(p string) {
	c.mu.Lock()
	c.reads[p]++
	c.mu.Unlock()
}

func (c *countingStorage) Open(ctx context.Context, p string) (storage.File, error) {
	c.count(p)
	f, err := c.Storage.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return tailCounter{File: f, c: c, path: p}, nil
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
	c.reads, c.tails = map[string]int{}, map[string]int{}
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
		newFiles       int // base files each commit writes
	}{{"new files", -1, 2}, {"small-file routing", 100 << 20, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts",
				Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"}); err != nil {
				t.Fatal(err)
			}
			cs := &countingStorage{Storage: local.New(dir), reads: map[string]int{}, tails: map[string]int{}}
			tbl, err := table.Open(ctx, cs)
			if err != nil {
				t.Fatal(err)
			}
			const commits = 6
			for c := range commits {
				cs.take() // count the last commit only
				// As bench W7: a new time-ordered key (outside every older file's key range)
				// and an update of the previous commit's key.
				batch := []arrow.Record{tripsBatch(int64(c), fmt.Sprintf("k%03d", c), "r", float64(c), "sf")}
				if c > 0 {
					batch = append(batch, tripsBatch(int64(c), fmt.Sprintf("k%03d", c-1), "r", float64(c), "sf"))
				}
				_, err := write.Write(ctx, tbl, batch, write.Options{Operation: write.Upsert,
					IndexType: write.IndexBloom, SmallFileLimit: tc.smallFileLimit})
				for _, b := range batch {
					b.Release()
				}
				if err != nil {
					t.Fatalf("commit %d: %v", c, err)
				}
			}
			// In the last commit: base files are read only for the files the previous
			// commit wrote (their footers are new; one holds the updated key, so the merge
			// rewrites it); commit metadata is read only for the previous commit.
			tails := cs.tails
			reads := cs.take()
			parquetReads, commitReads := withSuffix(reads, ".parquet"), withSuffix(reads, ".commit")
			wantFiles := tc.newFiles
			if len(parquetReads) > wantFiles {
				t.Errorf("the last commit read %d base files, want %d: %v", len(parquetReads), wantFiles, parquetReads)
			}
			// Each file read: its footer walked for the key range, decoded to read the
			// keys of the one in range, and not decoded again for its rewrite.
			for p, n := range tails {
				if strings.HasSuffix(p, ".parquet") && n > 2 {
					t.Errorf("the last commit read the footer of %s %d times, want at most 2", p, n)
				}
			}
			// Footers stashed for a write's merges do not outlive it (each holds a bloom
			// filter); an insert that drops duplicates finds keys it never merges.
			dup := tripsBatch(99, fmt.Sprintf("k%03d", commits-1), "r", 99, "sf")
			_, err = write.Write(ctx, tbl, []arrow.Record{dup}, write.Options{Operation: write.Insert,
				IndexType: write.IndexBloom, SmallFileLimit: tc.smallFileLimit, InsertDupPolicy: "drop"})
			dup.Release()
			if err != nil {
				t.Fatal(err)
			}
			files, err := cs.List(ctx, "sf")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if _, ok := tbl.TakeFooter("sf/"+f.Name, f.Size); ok {
					t.Errorf("a footer of %s is still stashed after the write", f.Name)
				}
			}
			if len(commitReads) > 1 {
				t.Errorf("the last commit read %d commit files, want 1: %v", len(commitReads), commitReads)
			}
		})
	}
}
