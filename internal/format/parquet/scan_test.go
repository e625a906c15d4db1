package parquet

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/testutil"
)

// scanned is a column's values as ScanStrings reports them, nulls as nil.
func scanned(t *testing.T, f *File, leaf int) []*string {
	t.Helper()
	var out []*string
	err := f.ScanStrings(context.Background(), leaf, func(v []byte, valid bool) error {
		if !valid {
			out = append(out, nil)
			return nil
		}
		s := string(v)
		out = append(out, &s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// viaArrow is the same column read through ReadBatches.
func viaArrow(t *testing.T, f *File, leaf int) []*string {
	t.Helper()
	var out []*string
	err := f.ReadBatches(context.Background(), []int{leaf}, nil, func(rec arrow.Record) error {
		col := rec.Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				out = append(out, nil)
				continue
			}
			s := col.Value(i)
			out = append(out, &s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameStrings(t *testing.T, what string, got, want []*string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		switch {
		case (got[i] == nil) != (want[i] == nil):
			t.Fatalf("%s row %d: null %v, want null %v", what, i, got[i] == nil, want[i] == nil)
		case got[i] != nil && *got[i] != *want[i]:
			t.Fatalf("%s row %d: %q, want %q", what, i, *got[i], *want[i])
		}
	}
}

// ScanStrings reports exactly what the Arrow path reads, row by row: on Spark-written base
// files (Avro and row-writer paths, keys all null in the no-metafields table) and on a
// file of several row groups and many pages with nulls.
func TestScanStringsMatchesReadBatches(t *testing.T) {
	for _, id := range []string{"cow/v6_nonpartitioned", "cow/v6_simplekeygen_hivestyle_no_metafields",
		"mor-parquet/v6_complexkeygen_hivestyle", "trips-mor-avro/v6_trips_8i1u"} {
		t.Run(id, func(t *testing.T) {
			dir := testutil.Table(t, id)
			n := 0
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() && d.Name() == ".hoodie" {
					return filepath.SkipDir
				}
				if !strings.HasSuffix(p, ".parquet") {
					return nil
				}
				f := openFile(t, p)
				defer f.Close()
				for _, name := range []string{"_hoodie_record_key", "_hoodie_commit_time"} {
					leaf := f.LeafIndex(name)
					if leaf < 0 {
						t.Fatalf("%s has no %s", p, name)
					}
					sameStrings(t, p+" "+name, scanned(t, f, leaf), viaArrow(t, f, leaf))
				}
				n++
				return nil
			})
			if n == 0 {
				t.Fatal("no base files")
			}
		})
	}
	t.Run("row groups and pages", func(t *testing.T) {
		sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		for i := 0; i < 60_000; i++ {
			if i%7 == 3 {
				b.AppendNull()
				continue
			}
			b.Append(fmt.Sprintf("key-%08d-%s", i, strings.Repeat("x", i%13)))
		}
		col := b.NewArray()
		defer col.Release()
		rec := array.NewRecord(sc, []arrow.Array{col}, int64(col.Len()))
		defer rec.Release()
		var buf bytes.Buffer
		w, err := NewWriter(&buf, sc, WriterOptions{Compression: "snappy", PageSize: 4 << 10, BlockSize: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		for off := int64(0); off < rec.NumRows(); off += 5000 {
			part := rec.NewSlice(off, min(off+5000, rec.NumRows()))
			if err := w.Write(part); err != nil {
				t.Fatal(err)
			}
			part.Release()
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := OpenBytes(buf.Bytes(), "pages.parquet", memory.DefaultAllocator, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.NumRowGroups() < 2 {
			t.Fatalf("%d row groups: the test needs several", f.NumRowGroups())
		}
		got := scanned(t, f, 0)
		sameStrings(t, "pages.parquet", got, viaArrow(t, f, 0))
		if len(got) != 60_000 || got[3] != nil || got[4] == nil || *got[4] != "key-00000004-xxxx" {
			t.Fatalf("unexpected values: %d rows", len(got))
		}
	})
	t.Run("not a string column", func(t *testing.T) {
		f, _ := openFixtureBase(t, "cow/v6_nonpartitioned")
		leaf := f.LeafIndex("longField")
		if err := f.ScanStrings(context.Background(), leaf, func([]byte, bool) error { return nil }); err == nil {
			t.Fatal("a long column scanned as strings")
		}
	})
}

func openFile(t *testing.T, path string) *File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenBytes(b, path, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
