// Package parquet reads Hudi base files (and Parquet log blocks) into Arrow record
// batches, with column projection by top-level name, row-group selection, and access to
// the footer key/values Hudi stores there (bloom filter, min/max record keys); and writes
// them as Java's Avro write path lays them out (Writer: writer.go, its options, its size
// estimates while it writes, and the extension type for plain integer columns).
package parquet

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Footer keys Hudi writes into base files.
const (
	KeyBloomFilter       = "org.apache.hudi.bloomfilter"
	KeyBloomFilterType   = "hoodie_bloom_filter_type_code"
	KeyMinRecordKey      = "hoodie_min_record_key"
	KeyMaxRecordKey      = "hoodie_max_record_key"
	KeyAvroSchema        = "parquet.avro.schema"
	KeySparkRowMetadata  = "org.apache.spark.sql.parquet.row.metadata"
	legacyKeyBloomFilter = "com.uber.hoodie.bloomfilter"
)

// File is an open Parquet file.
type File struct {
	name   string
	pr     *file.Reader
	fr     *pqarrow.FileReader
	schema *arrow.Schema
}

// Open opens a Parquet file from random-access bytes. name is used in errors.
func Open(r io.ReaderAt, size int64, name string, mem memory.Allocator, batchSize int64) (*File, error) {
	return open(r, size, name, mem, batchSize)
}

// Footer is a file's decoded footer (File.Footer), to open the same file again without
// decoding it (OpenWithFooter). Decoding copies every footer key/value through thrift,
// Hudi's ~430 KB bloom filter included: a writer's index lookup and the merge that
// follows it open the same base file.
type Footer struct {
	md *metadata.FileMetaData
}

// Footer returns the file's decoded footer.
func (f *File) Footer() Footer { return Footer{md: f.pr.MetaData()} }

// Size is the encoded length of the footer, about what its decoded form holds in memory
// (its key/values, Hudi's bloom filter first, are kept as decoded strings).
func (ft Footer) Size() int {
	if ft.md == nil {
		return 0
	}
	return ft.md.Size()
}

// OpenWithFooter is Open with the footer decoded by an earlier Open of the same file
// (same path and size: base files are immutable).
func OpenWithFooter(r io.ReaderAt, size int64, name string, mem memory.Allocator, batchSize int64, ft Footer) (*File, error) {
	if ft.md == nil {
		return open(r, size, name, mem, batchSize)
	}
	return open(r, size, name, mem, batchSize, file.WithMetadata(ft.md))
}

func open(r io.ReaderAt, size int64, name string, mem memory.Allocator, batchSize int64, opts ...file.ReadOption) (f *File, err error) {
	defer func() {
		// arrow-go's footer decoding can panic on malformed metadata; bad bytes must
		// become an error that names the file, never a crash.
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("parquet file %s: corrupt footer: %v", name, p)
		}
	}()
	if size < 12 {
		return nil, fmt.Errorf("parquet file %s: %d bytes is too short to be Parquet (truncated?)", name, size)
	}
	pr, err := file.NewParquetReader(io.NewSectionReader(r, 0, size), opts...)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", name, err)
	}
	if batchSize <= 0 {
		batchSize = 8192
	}
	if md := pr.MetaData(); md != nil {
		// Lists of lists and of maps in parquet-avro's 2-level form (layout.go).
		sc, err := readLayout(md.Schema)
		if err != nil {
			pr.Close()
			return nil, fmt.Errorf("parquet file %s: schema: %w", name, err)
		}
		if sc != nil {
			md.Schema = sc
		}
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: batchSize, Parallel: false}, mem)
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("parquet file %s: %w", name, err)
	}
	sc, err := fr.Schema()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("parquet file %s: arrow schema: %w", name, err)
	}
	return &File{name: name, pr: pr, fr: fr, schema: sc}, nil
}

// OpenBytes opens an in-memory Parquet file (a Parquet log block's content).
func OpenBytes(b []byte, name string, mem memory.Allocator, batchSize int64) (*File, error) {
	return Open(bytes.NewReader(b), int64(len(b)), name, mem, batchSize)
}

// Close releases the file.
func (f *File) Close() error { return f.pr.Close() }

// Name is the file's name as given to Open.
func (f *File) Name() string { return f.name }

// Schema is the file's Arrow schema.
func (f *File) Schema() *arrow.Schema { return f.schema }

// NumRows is the number of rows in the file.
func (f *File) NumRows() int64 { return f.pr.NumRows() }

// NumRowGroups is the number of row groups.
func (f *File) NumRowGroups() int { return f.pr.NumRowGroups() }

// Metadata returns the footer key/value metadata.
func (f *File) Metadata(key string) (string, bool) {
	kv := f.pr.MetaData().KeyValueMetadata()
	if kv == nil {
		return "", false
	}
	v := kv.FindValue(key)
	if v == nil {
		return "", false
	}
	return *v, true
}

// MetadataKeys are the footer's key/value metadata keys, in file order.
func (f *File) MetadataKeys() []string {
	kv := f.pr.MetaData().KeyValueMetadata()
	if kv == nil {
		return nil
	}
	return append([]string(nil), kv.Keys()...)
}

// BloomFilter returns the serialized bloom filter and its type code ("" = SIMPLE).
func (f *File) BloomFilter() (filter, typeCode string, ok bool) {
	filter, ok = f.Metadata(KeyBloomFilter)
	if !ok {
		filter, ok = f.Metadata(legacyKeyBloomFilter)
	}
	typeCode, _ = f.Metadata(KeyBloomFilterType)
	return filter, typeCode, ok
}

// MinMaxRecordKeys returns the footer's min and max record keys.
func (f *File) MinMaxRecordKeys() (minKey, maxKey string, ok bool) {
	minKey, ok1 := f.Metadata(KeyMinRecordKey)
	maxKey, ok2 := f.Metadata(KeyMaxRecordKey)
	return minKey, maxKey, ok1 && ok2
}

// RowGroupMetadata exposes a row group's metadata (statistics for pruning).
func (f *File) RowGroupMetadata(i int) *metadata.RowGroupMetaData {
	return f.pr.MetaData().RowGroup(i)
}

// LeafColumns returns the leaf column indices of the named top-level fields, and the
// indices of the fields found. Names that the file lacks are skipped: the schema layer
// fills them with nulls.
func (f *File) LeafColumns(names []string) (leaves []int, found []int) {
	idx := map[string]int{}
	for i, fld := range f.schema.Fields() {
		idx[fld.Name] = i
	}
	m := f.fr.Manifest
	for _, n := range names {
		i, ok := idx[n]
		if !ok || i >= len(m.Fields) {
			continue
		}
		found = append(found, i)
		leaves = appendLeaves(leaves, &m.Fields[i])
	}
	return leaves, found
}

func appendLeaves(dst []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(dst, f.ColIndex)
	}
	for i := range f.Children {
		dst = appendLeaves(dst, &f.Children[i])
	}
	return dst
}

// RecordReader streams record batches of the given leaf columns (nil = all) and row
// groups (nil = all).
func (f *File) RecordReader(ctx context.Context, leaves []int, rowGroups []int) (pqarrow.RecordReader, error) {
	rr, err := f.fr.GetRecordReader(ctx, leaves, rowGroups)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", f.name, err)
	}
	return rr, nil
}

// ColumnChunkStats returns the statistics of a leaf column in a row group, if written.
func (f *File) ColumnChunkStats(rowGroup, leaf int) (metadata.TypedStatistics, bool) {
	rg := f.pr.MetaData().RowGroup(rowGroup)
	cc, err := rg.ColumnChunk(leaf)
	if err != nil {
		return nil, false
	}
	ok, err := cc.StatsSet()
	if err != nil || !ok {
		return nil, false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return nil, false
	}
	return st, true
}

// LeafIndex returns the leaf column index of a top-level primitive field, or -1.
func (f *File) LeafIndex(name string) int {
	for i, fld := range f.schema.Fields() {
		if fld.Name == name && i < len(f.fr.Manifest.Fields) && f.fr.Manifest.Fields[i].IsLeaf() {
			return f.fr.Manifest.Fields[i].ColIndex
		}
	}
	return -1
}

// ParquetType is the physical type of a leaf column.
func (f *File) ParquetType(leaf int) pq.Type {
	return f.pr.MetaData().Schema.Column(leaf).PhysicalType()
}

// ReadBatches streams the record batches of the given leaf columns (nil = all) and row
// groups (nil = all) to fn; a batch is released after fn returns. Corrupt pages make
// arrow-go panic in places; such a panic becomes an error naming the file, since bad
// bytes must never crash a reader.
func (f *File) ReadBatches(ctx context.Context, leaves, rowGroups []int, fn func(arrow.Record) error) (err error) {
	rr, err := f.RecordReader(ctx, leaves, rowGroups)
	if err != nil {
		return err
	}
	defer rr.Release()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet file %s: corrupt data: %v", f.name, p)
		}
	}()
	for rr.Next() {
		if err := fn(rr.Record()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("parquet file %s: %w", f.name, err)
	}
	return nil
}
