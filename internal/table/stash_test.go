package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
)

// TestStashedFootersBounded (issue 25): the footers an index lookup stashes for the
// merges of its write each hold the file's bloom filter (~430 KB by default); an upsert
// touching one row in each of 10,000 partitions stashed all of them at once and peaked at
// 8.7 GB. The stash stops at maxStashedFooterBytes; a merge without one decodes its footer
// again. Taking a footer frees its share of the budget.
func TestStashedFootersBounded(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}}, nil)
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, sc, parquet.WriterOptions{Compression: "uncompressed"})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Append("a")
	col := b.NewArray()
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, 1)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.AddKeyValue("org.apache.hudi.bloomfilter", strings.Repeat("A", 1<<20)) // a 1 MiB footer
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "f.parquet", memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	ft := pf.Footer()
	if ft.Size() < 1<<20 {
		t.Fatalf("footer size %d, want at least 1 MiB", ft.Size())
	}
	tb := &Table{cache: newCache()}
	const files = 200
	for i := range files {
		tb.StashFooter("p/f"+strings.Repeat("x", i), int64(buf.Len()), ft)
	}
	if n := len(tb.cache.decoded); n*ft.Size() > maxStashedFooterBytes || n == 0 {
		t.Fatalf("%d footers of %d bytes stashed (budget %d)", n, ft.Size(), maxStashedFooterBytes)
	}
	n := len(tb.cache.decoded)
	if _, ok := tb.TakeFooter("p/f", int64(buf.Len())); !ok {
		t.Fatal("the first footer was not stashed")
	}
	tb.StashFooter("p/other", int64(buf.Len()), ft)
	if len(tb.cache.decoded) != n {
		t.Errorf("after taking one footer and stashing another: %d stashed, want %d", len(tb.cache.decoded), n)
	}
	tb.DropStashedFooters()
	if tb.cache.decodedBytes != 0 || len(tb.cache.decoded) != 0 {
		t.Errorf("after dropping: %d footers, %d bytes", len(tb.cache.decoded), tb.cache.decodedBytes)
	}
}
