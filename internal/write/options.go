// Package write applies write operations to tables of table version 6 the way Hudi 0.14
// does: upsert, insert, bulk_insert, delete, insert_overwrite(_table) and delete_partition
// on copy-on-write tables (new and rewritten base files) and merge-on-read tables (log
// files of a deltacommit; inserts into small base files or new file groups), with
// pre-combining, the SIMPLE, BLOOM, their GLOBAL forms, INMEMORY and BUCKET indexes
// (chosen once from package index, write/index; the key lookup is index.go's),
// small-file handling, Hudi's base file layout (meta columns, bloom filter and min/max keys
// in the footer), change-data-capture log files, tables without meta fields, and schema
// changes (evolution on write and on read), committed through package commit. Options come
// from package config's keys (OptionsFromConfig).
package write

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write/index"
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

// Index types (hoodie.index.type): package index's, under the names write has had (kept
// for the callers of write.Options; new code uses index.Type*).
const (
	IndexSimple       = index.TypeSimple
	IndexGlobalSimple = index.TypeGlobalSimple
	IndexBloom        = index.TypeBloom
	IndexGlobalBloom  = index.TypeGlobalBloom
	IndexInMemory     = index.TypeInMemory
	IndexBucket       = index.TypeBucket
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
	// IndexType is hoodie.index.type (SIMPLE). The write chooses its index from it once
	// (index.New, in openForWrite); a value config does not accept is refused.
	IndexType index.Type
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
	// RequireExistingPartitions makes a delete_partition fail in planning (nothing
	// written) when a partition it names matches none of the table's (hudi-go's choice for
	// the CLI; Java commits an empty replacecommit).
	RequireExistingPartitions bool
	// SetNullForMissingColumns is hoodie.write.set.null.for.missing.columns (false).
	SetNullForMissingColumns bool
	// TimelineZone is the zone instants are generated in (hoodie.table.timeline.timezone:
	// LOCAL = the process's zone).
	TimelineZone *time.Location
	Now          func() time.Time
	Logger       *slog.Logger
	// RecordIndexEnable is hoodie.metadata.record.index.enable: the metadata writer
	// (Metadata) builds the record_index partition the RECORD_INDEX index reads.
	RecordIndexEnable bool
	// BloomIndexUseMetadata is hoodie.bloom.index.use.metadata (false): the BLOOM indexes
	// take base files' bloom filters from the metadata table's bloom_filters partition.
	BloomIndexUseMetadata bool
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
	// index is the write's index, chosen once by openForWrite from IndexType and the
	// bucket settings above.
	index index.Index
	// recordIndexFallback: hoodie.index.type=RECORD_INDEX on a table whose record index is
	// not built yet (an instant was pending when the write opened the table): keys are
	// looked up as GLOBAL_SIMPLE, as Java's SparkMetadataTableRecordIndex falls back.
	recordIndexFallback bool
}

func boolPtr(b bool) *bool { return &b }

func (o Options) withDefaults() Options {
	// A nil Config reads every key as its default: the defaults of Options are those of
	// package config, the one registry of keys.
	var defaults *config.Config
	if o.Operation == "" {
		o.Operation = Upsert
	}
	if o.IndexType == "" {
		o.IndexType = index.Type(defaults.String(config.IndexType))
	}
	if o.PayloadClass == "" {
		o.PayloadClass = defaults.String(config.PayloadClass)
	}
	if o.CombineBeforeInsert == nil {
		o.CombineBeforeInsert = boolPtr(defaults.Bool(config.CombineBeforeInsert))
	}
	if o.CombineBeforeUpsert == nil {
		o.CombineBeforeUpsert = boolPtr(defaults.Bool(config.CombineBeforeUpsert))
	}
	if o.CombineBeforeDelete == nil {
		o.CombineBeforeDelete = boolPtr(defaults.Bool(config.CombineBeforeDelete))
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = defaults.Long(config.ParquetMaxFileSize)
	}
	if o.SmallFileLimit < 0 {
		o.SmallFileLimit = 0
	} else if o.SmallFileLimit == 0 {
		o.SmallFileLimit = defaults.Long(config.ParquetSmallFileLimit)
	}
	if o.SmallFileGroupCandidates == nil {
		n := defaults.Int(config.MergeSmallFileGroupCandidatesLimit)
		o.SmallFileGroupCandidates = &n
	}
	if o.RecordSizeEstimate <= 0 {
		o.RecordSizeEstimate = defaults.Long(config.CopyOnWriteRecordSizeEstimate)
	}
	if o.InsertSplitSize <= 0 {
		o.InsertSplitSize = defaults.Int(config.CopyOnWriteInsertSplitSize)
	}
	if o.AutoSplitInserts == nil {
		o.AutoSplitInserts = boolPtr(defaults.Bool(config.CopyOnWriteAutoSplitInserts))
	}
	if o.Compression == "" {
		o.Compression = defaults.String(config.ParquetCompressionCodec)
	}
	if o.PageSize <= 0 {
		o.PageSize = defaults.Long(config.ParquetPageSize)
	}
	if o.BlockSize <= 0 {
		o.BlockSize = defaults.Long(config.ParquetBlockSize)
	}
	if o.Dictionary == nil {
		o.Dictionary = boolPtr(defaults.Bool(config.ParquetDictionaryEnabled))
	}
	if o.BloomType == "" {
		o.BloomType = defaults.String(config.BloomFilterType)
	}
	if o.BloomNumEntries <= 0 {
		o.BloomNumEntries = defaults.Int(config.BloomNumEntries)
	}
	if o.BloomFPP <= 0 {
		o.BloomFPP = defaults.Double(config.BloomFPP)
	}
	if o.BloomMaxEntries <= 0 {
		o.BloomMaxEntries = defaults.Int(config.BloomDynamicMaxEntries)
	}
	if o.BucketNumBuckets <= 0 {
		o.BucketNumBuckets = defaults.Int(config.BucketIndexNumBuckets)
	}
	if o.BulkInsertSortMode == "" {
		o.BulkInsertSortMode = defaults.String(config.BulkInsertSortMode)
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

// OptionsFromConfig returns the options of operation op that cfg's hoodie.* settings
// (defaults included) make. What depends on the table (its timeline zone, the checks of
// settings against hoodie.properties, the lock provider) and on the caller (clock, logger,
// progress) is left for the caller to set.
func OptionsFromConfig(cfg *config.Config, op Operation) Options {
	b := func(k config.Key) *bool { v := cfg.Bool(k); return &v }
	o := Options{
		Operation:                op,
		IndexType:                index.Type(cfg.String(config.IndexType)),
		RecordIndexEnable:        cfg.Bool(config.RecordIndexEnable),
		BloomIndexUseMetadata:    cfg.Bool(config.BloomIndexUseMetadata),
		PayloadClass:             cfg.String(config.PayloadClass),
		SmallFileLimit:           cfg.Long(config.ParquetSmallFileLimit),
		SmallFileGroupCandidates: func() *int { n := cfg.Int(config.MergeSmallFileGroupCandidatesLimit); return &n }(),
		RecordSizeEstimate:       cfg.Long(config.CopyOnWriteRecordSizeEstimate),
		InsertSplitSize:          cfg.Int(config.CopyOnWriteInsertSplitSize),
		BulkInsertSortMode:       cfg.String(config.BulkInsertSortMode),
		LogDataBlockFormat:       cfg.String(config.LogFileDataBlockFormat),
		LogFileMaxSize:           cfg.Long(config.LogFileMaxSize),
		LogDataBlockMaxSize:      cfg.Long(config.LogFileDataBlockMaxSize),
		BucketNumBuckets:         cfg.Int(config.BucketIndexNumBuckets),
		BucketHashFields:         cfg.List(config.BucketIndexHashField),
		WriterProps:              cfg.Explicit(),
	}
	o.SetFileFormat(cfg)
	o.CombineBeforeInsert, o.CombineBeforeUpsert, o.CombineBeforeDelete = b(config.CombineBeforeInsert), b(config.CombineBeforeUpsert), b(config.CombineBeforeDelete)
	o.AutoSplitInserts = b(config.CopyOnWriteAutoSplitInserts)
	if cfg.IsSet(config.PopulateMetaFields) {
		o.PopulateMetaFields = b(config.PopulateMetaFields)
	}
	if cfg.IsSet(config.SchemaEvolutionEnable) {
		o.SchemaOnRead = b(config.SchemaEvolutionEnable)
	}
	if o.SmallFileLimit == 0 {
		o.SmallFileLimit = -1 // an explicit 0 turns small-file handling off
	}
	o.InsertDupPolicy = cfg.String(config.InsertDupPolicy)
	if cfg.Bool(config.InsertDropDuplicates) && !cfg.IsSet(config.InsertDupPolicy) {
		o.InsertDupPolicy = "drop" // the pre-0.14 switch
	}
	// A global index's update.partition.path key is read (cfg's hoodie.index.type is
	// valid: config validated it; the write reports any error of index.New).
	if idx, err := index.New(o.IndexType, index.Settings{NumBuckets: o.BucketNumBuckets, HashFields: o.BucketHashFields}); err == nil {
		if g, ok := idx.(index.GlobalIndex); ok {
			o.UpdatePartitionPath = b(g.UpdatePartitionPathKey())
		}
	}
	o.PartitionsToDelete = cfg.List(config.PartitionsToDelete)
	// Java 0.14 with reconcile.schema keeps the table schema for an input that lacks
	// columns (HoodieSparkSqlWriter.reconcileSchemasLegacy): the same nulls.
	o.SetNullForMissingColumns = cfg.Bool(config.SetNullForMissingColumns) || cfg.Bool(config.ReconcileSchema)
	return o
}

// SetFileFormat sets the base-file settings every writer of base files shares (writes,
// clustering, compaction) from cfg: codec, page, block and file sizes, dictionary
// encoding and the bloom filter.
func (o *Options) SetFileFormat(cfg *config.Config) {
	o.Compression = cfg.String(config.ParquetCompressionCodec)
	o.PageSize = cfg.Long(config.ParquetPageSize)
	o.BlockSize = cfg.Long(config.ParquetBlockSize)
	o.MaxFileSize = cfg.Long(config.ParquetMaxFileSize)
	o.Dictionary = boolPtr(cfg.Bool(config.ParquetDictionaryEnabled))
	o.BloomType = cfg.String(config.BloomFilterType)
	o.BloomNumEntries = cfg.Int(config.BloomNumEntries)
	o.BloomFPP = cfg.Double(config.BloomFPP)
	o.BloomMaxEntries = cfg.Int(config.BloomDynamicMaxEntries)
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
