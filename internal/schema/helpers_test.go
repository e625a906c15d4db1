package schema

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func loadAvsc(t testing.TB, name string) string {
	t.Helper()
	return strings.TrimSpace(string(readTestdata(t, name+".avsc")))
}

// tableSchema is the reader's target: the commit schema plus the meta columns.
func tableSchema(t testing.TB, avsc string) *arrow.Schema {
	t.Helper()
	s, err := FromAvro(avsc)
	if err != nil {
		t.Fatal(err)
	}
	return WithMetaFields(s)
}

// readParquet reads a whole Parquet file (the test copies are small) into one record per
// row group batch, as a base-file reader would.
func readParquet(t testing.TB, mem memory.Allocator, data []byte) []arrow.Record {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, mem)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var recs []arrow.Record
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// avroLogBlock is the part of one Hudi AVRO_DATA log block a schema test needs: the writer
// schema header and the binary records. The layout (format doc §6.2, §6.5) is parsed
// minimally here; the real parser lives in the logfile package.
type avroLogBlock struct {
	schema  string
	records [][]byte
}

func readAvroLogBlocks(t testing.TB, data []byte) []avroLogBlock {
	t.Helper()
	var blocks []avroLogBlock
	pos := 0
	u32 := func() int {
		v := binary.BigEndian.Uint32(data[pos:])
		pos += 4
		return int(v)
	}
	u64 := func() int {
		v := binary.BigEndian.Uint64(data[pos:])
		pos += 8
		return int(v)
	}
	for pos < len(data) {
		if !bytes.HasPrefix(data[pos:], []byte("#HUDI#")) {
			t.Fatalf("no log block magic at %d", pos)
		}
		pos += 6
		size := u64()
		end := pos + size
		_ = u32() // log format version
		blockType := u32()
		var blk avroLogBlock
		for n := u32(); n > 0; n-- {
			key, l := u32(), u32()
			if key == 2 { // SCHEMA
				blk.schema = string(data[pos : pos+l])
			}
			pos += l
		}
		contentLen := u64()
		content := data[pos : pos+contentLen]
		if blockType == 3 { // AVRO_DATA
			c := 4 // content version
			count := int(binary.BigEndian.Uint32(content[c:]))
			c += 4
			for i := 0; i < count; i++ {
				l := int(binary.BigEndian.Uint32(content[c:]))
				c += 4
				blk.records = append(blk.records, content[c:c+l])
				c += l
			}
			blocks = append(blocks, blk)
		}
		pos = end
	}
	return blocks
}

// releaseAll releases records collected by a test.
func releaseAll(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

// column returns the named column of rec (fails if absent).
func column(t testing.TB, rec arrow.Record, name string) arrow.Array {
	t.Helper()
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("column %s not found in %s", name, rec.Schema())
	}
	return rec.Column(idx[0])
}

// rowsByKey maps a string column's values to row indexes, so checks do not depend on the
// order rows were written in.
func rowsByKey(t testing.TB, rec arrow.Record, key string) map[string]int {
	t.Helper()
	out := map[string]int{}
	col := column(t, rec, key)
	for i := 0; i < col.Len(); i++ {
		out[col.ValueStr(i)] = i
	}
	return out
}
