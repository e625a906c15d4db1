// Package write applies write operations to copy-on-write tables of table version 6 the way
// Hudi 0.14 does: upsert, insert, bulk_insert, delete, insert_overwrite(_table) and
// delete_partition, with pre-combining, index lookup, small-file handling and Hudi's base
// file layout (meta columns, bloom filter and min/max keys in the footer), committed
// through package commit.
package write

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/commit"
	"github.com/hudi-go/hudi/table"
)

// Operation is a write operation (hoodie.datasource.write.operation).
type Operation string

// Operations hudi-go performs.
const (
	Upsert               Operation = "upsert"
	Insert               Operation = "insert"
	BulkInsert           Operation = "bulk_insert"
	Delete               Operation = "delete"
	InsertOverwrite      Operation = "insert_overwrite"
	InsertOverwriteTable Operation = "insert_overwrite_table"
	DeletePartition      Operation = "delete_partition"
)

// ParseOperation accepts Hudi's operation names in any case.
func ParseOperation(s string) (Operation, error) {
	op := Operation(strings.ToLower(strings.TrimSpace(s)))
	switch op {
	case Upsert, Insert, BulkInsert, Delete, InsertOverwrite, InsertOverwriteTable, DeletePartition:
		return op, nil
	}
	return "", fmt.Errorf("unknown write operation %q: want upsert, insert, bulk_insert, delete, insert_overwrite, insert_overwrite_table or delete_partition", s)
}

// WriteOperationType is the name Java records as operationType in commit metadata.
func (o Operation) WriteOperationType() string {
	return strings.ToUpper(string(o))
}

// isReplace reports operations that complete as replacecommits.
func (o Operation) isReplace() bool {
	return o == InsertOverwrite || o == InsertOverwriteTable || o == DeletePartition
}

// Index types (hoodie.index.type).
const (
	IndexSimple       = "SIMPLE"
	IndexGlobalSimple = "GLOBAL_SIMPLE"
	IndexBloom        = "BLOOM"
	IndexGlobalBloom  = "GLOBAL_BLOOM"
	IndexInMemory     = "INMEMORY"
)

// Options configure a write. Zero values take Hudi 0.14.1's defaults (see withDefaults).
type Options struct {
	// WriterProps are the write's explicit hoodie.* settings. Those hoodie.properties
	// lacks configure the key generator: Spark 0.14 keeps writer-level key generator
	// settings (hoodie.keygen.timebased.*) out of hoodie.properties, so a writer must give
	// them again on every write. The table's own values win (a contradicting setting is
	// refused before the write).
	WriterProps map[string]string
	Operation   Operation
	// IndexType is hoodie.index.type (SIMPLE).
	IndexType string
	// SchemaOnRead is hoodie.schema.on.read.enable as the write sets it (nil = not set).
	// Once a table has an InternalSchema (a schema change on read was committed) it cannot
	// be turned off: false is refused.
	SchemaOnRead *bool
	// PopulateMetaFields is hoodie.populate.meta.fields as the write sets it; nil means
	// the table's. It must agree with the table (see checkMetaFieldsSetting).
	PopulateMetaFields *bool
	// PayloadClass is hoodie.datasource.write.payload.class (OverwriteWithLatestAvroPayload).
	PayloadClass string
	// CombineBeforeInsert/Upsert/Delete: hoodie.combine.before.* (false/true/true).
	CombineBeforeInsert, CombineBeforeUpsert, CombineBeforeDelete *bool
	// MaxFileSize is hoodie.parquet.max.file.size (120 MiB).
	MaxFileSize int64
	// SmallFileLimit is hoodie.parquet.small.file.limit (100 MiB).
	SmallFileLimit int64
	// SmallFileGroupCandidates is hoodie.merge.small.file.group.candidates.limit: how many
	// small log-free base files per partition a merge-on-read upsert routes inserts into
	// (nil = 1, the default).
	SmallFileGroupCandidates *int
	// RecordSizeEstimate is hoodie.copyonwrite.record.size.estimate (1024), used until
	// earlier commits give a better average.
	RecordSizeEstimate int64
	// InsertSplitSize is hoodie.copyonwrite.insert.split.size (500000) when auto split is off.
	InsertSplitSize int
	// AutoSplitInserts is hoodie.copyonwrite.insert.auto.split (true).
	AutoSplitInserts *bool
	// Compression is hoodie.parquet.compression.codec (gzip).
	Compression string
	// PageSize and BlockSize are hoodie.parquet.page.size and hoodie.parquet.block.size.
	PageSize, BlockSize int64
	// Dictionary is hoodie.parquet.dictionary.enabled (true): base files and Parquet log
	// blocks dictionary-encode the columns parquet-mr would (parquet.WriterOptions.Dictionary).
	Dictionary *bool
	// Bloom filter: hoodie.bloom.index.filter.type (DYNAMIC_V0), hoodie.index.bloom.num_entries
	// (60000), hoodie.index.bloom.fpp (1e-9), hoodie.bloom.index.filter.dynamic.max.entries (100000).
	BloomType       string
	BloomNumEntries int
	BloomFPP        float64
	BloomMaxEntries int
	// BucketNumBuckets is hoodie.bucket.index.num.buckets (256) and BucketHashFields
	// hoodie.bucket.index.hash.field (default: the record key fields), for the BUCKET index.
	BucketNumBuckets int
	BucketHashFields []string
	// InsertDupPolicy is hoodie.datasource.insert.dup.policy (none, drop, fail) for insert
	// and bulk_insert.
	InsertDupPolicy string
	// BulkInsertSortMode is hoodie.bulkinsert.sort.mode (NONE).
	BulkInsertSortMode string
	// DeleteMarker names a boolean input column that is not part of the table: rows where
	// it is true delete their key unconditionally (as the delete operation does), the others
	// are written by the operation. SQL's MERGE INTO uses it to upsert and delete in one
	// commit, as Java's ExpressionPayload does. The column itself is never written.
	DeleteMarker string
	// Prepped marks rows read from the table, carrying their record keys in
	// _hoodie_record_key (Java's prepped writes, which Spark SQL's UPDATE, DELETE and MERGE
	// make): on a table whose record keys are generated, a row's stored key is its key, and
	// a row without one (a MERGE's insert) gets a generated key. Only for such tables.
	Prepped bool
	// AddColumns makes the input's schema — the table's columns with the same types, plus
	// new nullable columns anywhere — the commit's schema as it is, instead of evolving the
	// table schema by appending (schema.Evolve refuses a new column before an existing one).
	// SQL's ALTER TABLE ADD COLUMNS uses it with no rows: Java's
	// AlterHoodieTableAddColumnsCommand commits dataSchema ++ new columns ++ partition columns.
	AddColumns bool
	// LogFileMaxSize (hoodie.logfile.max.size) rolls a deltacommit's log output over to a
	// new log version once a file reaches it; LogDataBlockMaxSize
	// (hoodie.logfile.data.block.max.size) cuts data records into blocks of about that
	// size. 0 = no limit.
	LogFileMaxSize      int64
	LogDataBlockMaxSize int64
	// LogDataBlockFormat is hoodie.logfile.data.block.format for merge-on-read updates:
	// "avro" (also "", Java's choice for Parquet base files) or "parquet".
	LogDataBlockFormat string
	// PartitionsToDelete lists partitions for delete_partition
	// (hoodie.datasource.write.partitions.to.delete), "*" wildcards allowed.
	PartitionsToDelete []string
	// SetNullForMissingColumns is hoodie.write.set.null.for.missing.columns (false).
	SetNullForMissingColumns bool
	// TimelineZone is the zone instants are generated in (hoodie.table.timeline.timezone:
	// LOCAL = the process's zone).
	TimelineZone *time.Location
	Now          func() time.Time
	Logger       *slog.Logger
	// UpdatePartitionPath is hoodie.bloom.index.update.partition.path (GLOBAL_BLOOM) or
	// hoodie.simple.index.update.partition.path (GLOBAL_SIMPLE): nil means Java 0.14's
	// default, true — a key arriving with a new partition moves there.
	UpdatePartitionPath *bool
	// Progress, if set, is called at each phase of the write and as file tasks finish
	// (from one goroutine at a time); the CLI turns it into progress lines on stderr.
	Progress func(Progress)
	Mem      memory.Allocator
	// Parallelism is the number of files written at once (default: CPUs).
	Parallelism int
	// Concurrency is how the write coordinates with other writers and table services:
	// the concurrency mode, the failed-writes policy, the heartbeat and the table lock
	// (commit.ConcurrencyFromConfig). The zero value is single-writer mode with the
	// EAGER policy and no lock.
	Concurrency commit.Concurrency
	// Metadata keeps the table's metadata table current (hoodie.metadata.enable; nil: the
	// operation deletes the metadata table, as Java does with it disabled).
	Metadata table.MetadataWriter

	// timeline is the handle every timeline change of the write goes through (set by
	// openForWrite from the clock, zone, logger and Concurrency above).
	timeline *commit.Timeline
}

func boolPtr(b bool) *bool { return &b }

func (o Options) withDefaults() Options {
	if o.Operation == "" {
		o.Operation = Upsert
	}
	if o.IndexType == "" {
		o.IndexType = IndexSimple
	}
	o.IndexType = strings.ToUpper(o.IndexType)
	if o.PayloadClass == "" {
		o.PayloadClass = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
	}
	if o.CombineBeforeInsert == nil {
		o.CombineBeforeInsert = boolPtr(false)
	}
	if o.CombineBeforeUpsert == nil {
		o.CombineBeforeUpsert = boolPtr(true)
	}
	if o.CombineBeforeDelete == nil {
		o.CombineBeforeDelete = boolPtr(true)
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = 120 << 20
	}
	if o.SmallFileLimit < 0 {
		o.SmallFileLimit = 0
	} else if o.SmallFileLimit == 0 {
		o.SmallFileLimit = 100 << 20
	}
	if o.SmallFileGroupCandidates == nil {
		one := 1
		o.SmallFileGroupCandidates = &one
	}
	if o.RecordSizeEstimate <= 0 {
		o.RecordSizeEstimate = 1024
	}
	if o.InsertSplitSize <= 0 {
		o.InsertSplitSize = 500000
	}
	if o.AutoSplitInserts == nil {
		o.AutoSplitInserts = boolPtr(true)
	}
	if o.Compression == "" {
		o.Compression = "gzip"
	}
	if o.PageSize <= 0 {
		o.PageSize = 1 << 20
	}
	if o.BlockSize <= 0 {
		o.BlockSize = 120 << 20
	}
	if o.Dictionary == nil {
		o.Dictionary = boolPtr(true)
	}
	if o.BloomType == "" {
		o.BloomType = "DYNAMIC_V0"
	}
	if o.BloomNumEntries <= 0 {
		o.BloomNumEntries = 60000
	}
	if o.BloomFPP <= 0 {
		o.BloomFPP = 0.000000001
	}
	if o.BloomMaxEntries <= 0 {
		o.BloomMaxEntries = 100000
	}
	if o.BucketNumBuckets <= 0 {
		o.BucketNumBuckets = 256
	}
	if o.BulkInsertSortMode == "" {
		o.BulkInsertSortMode = "NONE"
	}
	if o.TimelineZone == nil {
		o.TimelineZone = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
	if o.Concurrency.Mode == "" {
		o.Concurrency.Mode = commit.SingleWriter
	}
	if o.Concurrency.FailedWrites == "" {
		o.Concurrency.FailedWrites = commit.FailedWritesEager
	}
	return o
}

// Result summarizes a committed write (the CLI's --format json object).
type Result struct {
	Instant      string `json:"instant"`
	Action       string `json:"action"`
	Operation    string `json:"operation"`
	FilesWritten int    `json:"files_written"`
	Records      struct {
		Inserted int64 `json:"inserted"`
		Updated  int64 `json:"updated"`
		Deleted  int64 `json:"deleted"`
	} `json:"records"`
	Bytes int64 `json:"bytes"`
	// RolledBack lists failed writes rolled back before this one.
	RolledBack []string `json:"rolled_back,omitempty"`
	// Partitions are the partitions a delete_partition dropped, sorted.
	Partitions []string `json:"partitions,omitempty"`
}
