package parquet

// What a base-file Writer is asked to write: its options and their defaults.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// KeyWriterModelName is the footer key parquet-avro writes next to parquet.avro.schema;
// Hudi's Avro write path sets it to "avro".
const KeyWriterModelName = "writer.model.name"

// Writer defaults, mirroring Hudi 0.14's HoodieStorageConfig.
const (
	DefaultCompression = "gzip"
	DefaultPageSize    = 1 << 20
	DefaultBlockSize   = 120 << 20
)

// WriterOptions configures a base-file Writer. The zero value gives Hudi's defaults.
type WriterOptions struct {
	// Compression is hoodie.parquet.compression.codec: gzip (the default, as in Hudi
	// 0.14), snappy, zstd, brotli, lz4 or uncompressed. arrow-go cannot write the
	// Hadoop-framed LZ4 codec parquet-mr means by "lz4", so lz4 writes LZ4_RAW, which
	// parquet-mr reads from 1.13 (Spark 3.5) on; prefer gzip or snappy.
	Compression string
	// CompressionLevel is the codec's level; 0 = the codec's default.
	CompressionLevel int
	// PageSize is hoodie.parquet.page.size, the uncompressed data page target.
	PageSize int64
	// BlockSize is hoodie.parquet.block.size: a row group is closed once its compressed
	// size (plus the estimated size of unflushed pages) reaches it.
	BlockSize int64
	// Dictionary is hoodie.parquet.dictionary.enabled: each top-level column that
	// parquet-mr would keep dictionary-encoded is dictionary-encoded, decided on the first
	// rows written (see chooseDictionary); the rest stay PLAIN. Spark-written base files
	// dictionary-encode the commit time, partition path, file name and repetitive user
	// columns this way. Without it every column is PLAIN except DictionaryColumns.
	Dictionary bool
	// DictionaryColumns are leaf column paths ("a" or "a.b" for nested) always to
	// dictionary-encode. arrow-go's dictionary encoder has no first-page test, so on
	// high-cardinality data (record keys, seqnos, uuids) it writes ~4x slower and 38%
	// larger than PLAIN until its dictionary fills: Dictionary leaves those PLAIN.
	DictionaryColumns []string
	// KeyValue are footer key/values known before the data: parquet.avro.schema and
	// writer.model.name=avro for Avro-path compatibility. Values decided after the data
	// (bloom filter, min/max record key) go through AddKeyValue.
	KeyValue map[string]string
	// Mem allocates the writer's buffers; nil = memory.DefaultAllocator.
	Mem memory.Allocator
}

func codecFor(name string) (compress.Compression, error) {
	switch strings.ToLower(name) {
	case "", "gzip":
		return compress.Codecs.Gzip, nil
	case "snappy":
		return compress.Codecs.Snappy, nil
	case "zstd":
		return compress.Codecs.Zstd, nil
	case "brotli":
		return compress.Codecs.Brotli, nil
	case "lz4", "lz4_raw":
		return compress.Codecs.Lz4Raw, nil
	case "uncompressed", "none":
		return compress.Codecs.Uncompressed, nil
	}
	return 0, fmt.Errorf("parquet writer: unknown compression codec %q (want gzip, snappy, zstd, brotli, lz4 or uncompressed)", name)
}

func avroFullName(avsc string) (string, error) {
	var s struct {
		Type      any    `json:"type"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	if err := json.Unmarshal([]byte(avsc), &s); err != nil {
		return "", fmt.Errorf("parquet writer: footer %s is not JSON: %w", KeyAvroSchema, err)
	}
	if s.Type != "record" || s.Name == "" {
		return "", fmt.Errorf("parquet writer: footer %s is not an Avro record schema (type %v, name %q)", KeyAvroSchema, s.Type, s.Name)
	}
	if s.Namespace == "" || strings.Contains(s.Name, ".") {
		return s.Name, nil
	}
	return s.Namespace + "." + s.Name, nil
}
