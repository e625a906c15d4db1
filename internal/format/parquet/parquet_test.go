package parquet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/testutil"
)

func openFixtureBase(t testing.TB, table string) (*File, string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testutil.Table(t, table), "*.parquet"))
	if len(files) == 0 {
		t.Fatal("no base files")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenBytes(b, files[0], memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, files[0]
}

// A v6 base file written by Spark through the Avro path carries Hudi's footer keys.
func TestFooterOfSparkWrittenBaseFile(t *testing.T) {
	f, _ := openFixtureBase(t, "cow/v6_nonpartitioned")
	filter, typ, ok := f.BloomFilter()
	if !ok || len(filter) < 100 || typ != "DYNAMIC_V0" {
		t.Errorf("bloom filter: ok=%v type=%q len=%d", ok, typ, len(filter))
	}
	minKey, maxKey, ok := f.MinMaxRecordKeys()
	if !ok || minKey == "" || maxKey < minKey {
		t.Errorf("min/max keys = %q, %q, %v", minKey, maxKey, ok)
	}
	if s, ok := f.Metadata(KeyAvroSchema); !ok || !strings.Contains(s, "_hoodie_commit_time") {
		t.Errorf("parquet.avro.schema missing or without meta fields")
	}
	leaves, found := f.LeafColumns([]string{"_hoodie_record_key", "nope", "id"})
	if len(found) != 2 || len(leaves) != 2 {
		t.Errorf("LeafColumns = %v, %v", leaves, found)
	}
	rr, err := f.RecordReader(context.Background(), leaves, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	rows := 0
	for rr.Next() {
		if rr.Record().NumCols() != 2 {
			t.Errorf("projected batch has %d columns", rr.Record().NumCols())
		}
		rows += int(rr.Record().NumRows())
	}
	if int64(rows) != f.NumRows() {
		t.Errorf("read %d rows of %d", rows, f.NumRows())
	}
	if st, ok := f.ColumnChunkStats(0, f.LeafIndex("_hoodie_record_key")); !ok || !st.HasMinMax() {
		t.Errorf("no statistics for _hoodie_record_key")
	}
}

func TestTruncatedFileNamesTheFile(t *testing.T) {
	_, path := openFixtureBase(t, "cow/v6_nonpartitioned")
	b, _ := os.ReadFile(path)
	for _, n := range []int{0, 7, len(b) / 2, len(b) - 1} {
		_, err := OpenBytes(b[:n], path, memory.DefaultAllocator, 0)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Errorf("truncated to %d bytes: err = %v", n, err)
		}
	}
}

func FuzzOpen(f *testing.F) {
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Add([]byte("PAR1garbagegarbage\x10\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := OpenBytes(b, "fuzz.parquet", memory.DefaultAllocator, 0)
		if err == nil {
			pf.Close()
		}
	})
}

// FuzzReadBatches flips bytes inside a real file's data pages: reading must end in rows or
// an error, never a panic.
func FuzzReadBatches(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(f), "..", "shared", "fixtures", "tables", "cow", "v6_nonpartitioned.zip"))
	if len(files) == 0 {
		f.Skip("fixtures not found")
	}
	pf, path := openFixtureBase(f, "cow/v6_nonpartitioned")
	pf.Close()
	orig, _ := os.ReadFile(path)
	f.Add(uint32(4), byte(0xff))
	f.Add(uint32(100), byte(0x01))
	f.Fuzz(func(t *testing.T, pos uint32, x byte) {
		b := append([]byte(nil), orig...)
		b[int(pos)%len(b)] ^= x
		pf, err := OpenBytes(b, "fuzz.parquet", memory.DefaultAllocator, 0)
		if err != nil {
			return
		}
		defer pf.Close()
		_ = pf.ReadBatches(context.Background(), nil, nil, func(r arrow.Record) error { return nil })
		if leaf := pf.LeafIndex("_hoodie_record_key"); leaf >= 0 {
			_ = pf.ScanStrings(context.Background(), leaf, func([]byte, bool) error { return nil })
		}
	})
}
