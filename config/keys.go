package config

// The keys below are every key of docs/defaults-0.14.md, grouped as there. Go names
// follow the Java constants where that reads well. Defaults are the 0.14.1 Spark
// datasource values; Flink values differ for some keys and are not used.
//
// Where the 0.14.1 docs give no default but hudi-format.md (taken from the Java
// source) does, the source value is used and the Doc says so.

const (
	overwriteWithLatestPayload = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
	eventTimeMergerStrategy    = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
)

// §1 Write path.
var (
	Operation = key("hoodie.datasource.write.operation", Enum, Write, "upsert",
		"Write operation. bulk_insert loads new data without an index lookup; upsert/insert afterwards.").
		enum("upsert", "insert", "bulk_insert", "delete", "delete_partition", "insert_overwrite",
			"insert_overwrite_table", "bootstrap")
	WriteTableType = key("hoodie.datasource.write.table.type", Enum, Write, "COPY_ON_WRITE",
		"Table type for the write; it cannot change after the table is created.").
		enum("COPY_ON_WRITE", "MERGE_ON_READ").alias("hoodie.datasource.write.storage.type")
	PayloadClass = key("hoodie.datasource.write.payload.class", String, Write, overwriteWithLatestPayload,
		"Payload class that merges an incoming record with the stored one on upsert/insert. "+
			"0.8.0 defaulted to org.apache.hudi.OverwriteWithLatestAvroPayload.")
	PrecombineField = key("hoodie.datasource.write.precombine.field", String, Write, "ts",
		"Ordering field: when two records share a key, the one with the larger value wins.")
	PayloadOrderingField = key("hoodie.payload.ordering.field", String, Write, "ts",
		"Field the payload uses to order records with the same key.")
	PayloadEventTimeField = key("hoodie.payload.event.time.field", String, Write, "ts",
		"Field the payload uses for event time (freshness).")
	RecordMergerImpls = key("hoodie.datasource.write.record.merger.impls", List, Write,
		"org.apache.hudi.common.model.HoodieAvroRecordMerger",
		"Record merger implementations to choose from (0.13.0).")
	RecordMergerStrategy = key("hoodie.datasource.write.record.merger.strategy", String, Write, eventTimeMergerStrategy,
		"Id of the record merge strategy (0.13.0); the default is event-time ordering.")
	CombineBeforeInsert = key("hoodie.combine.before.insert", Bool, Write, "false",
		"Deduplicate incoming inserts by key before writing.")
	CombineBeforeUpsert = key("hoodie.combine.before.upsert", Bool, Write, "true",
		"Deduplicate incoming upserts by key before writing.")
	CombineBeforeDelete = key("hoodie.combine.before.delete", Bool, Write, "true",
		"Deduplicate incoming deletes by key before writing.")
	InsertDropDuplicates = key("hoodie.datasource.write.insert.drop.duplicates", Bool, Write, "false",
		"On insert, drop incoming records whose key already exists. Deprecated in 0.14.0 for hoodie.datasource.insert.dup.policy.")
	InsertDupPolicy = key("hoodie.datasource.insert.dup.policy", Enum, Write, "none",
		"Spark SQL INSERT only: what to do with keys already stored (0.14.0).").
		enum("none", "drop", "fail")
	MergeAllowDuplicateOnInserts = key("hoodie.merge.allow.duplicate.on.inserts", Bool, Write, "false",
		"Allow duplicate keys when inserts are routed into an existing small file.")
	BulkInsertSortMode = key("hoodie.bulkinsert.sort.mode", Enum, Write, "NONE",
		"How bulk_insert sorts its input. 0.8.0 defaulted to GLOBAL_SORT.").
		enum("NONE", "GLOBAL_SORT", "PARTITION_SORT", "PARTITION_PATH_REPARTITION", "PARTITION_PATH_REPARTITION_AND_SORT")
	PartitionsToDelete = key("hoodie.datasource.write.partitions.to.delete", List, Write, "",
		"delete_partition: comma-separated partition paths as stored (k=v on hive-style tables); * wildcards.")
	SetNullForMissingColumns = key("hoodie.write.set.null.for.missing.columns", Bool, Write, "false",
		"Write null for table columns missing from the input instead of rejecting the batch.")
	ReconcileSchema = key("hoodie.datasource.write.reconcile.schema", Bool, Write, "false",
		"Keep the table schema when the input lacks some of its columns (HoodieSparkSqlWriter's legacy reconciliation): they are written as nulls, like hoodie.write.set.null.for.missing.columns.")
	RowWriterEnable = key("hoodie.datasource.write.row.writer.enable", Bool, Write, "true",
		"Spark writes through native Row objects (bulk_insert path). 0.8.0 defaulted to false.")
	BulkInsertParallelism = key("hoodie.bulkinsert.shuffle.parallelism", Int, Write, "0",
		"bulk_insert shuffle parallelism; 0 lets the engine derive it (200 before 0.13.0, 1500 in 0.8.0).")
	InsertParallelism = key("hoodie.insert.shuffle.parallelism", Int, Write, "0",
		"insert shuffle parallelism; 0 lets the engine derive it.")
	UpsertParallelism = key("hoodie.upsert.shuffle.parallelism", Int, Write, "0",
		"upsert shuffle parallelism; 0 lets the engine derive it.")
	DeleteParallelism = key("hoodie.delete.shuffle.parallelism", Int, Write, "0",
		"delete shuffle parallelism; 0 lets the engine derive it.")
	SparkSQLInsertIntoOperation = key("hoodie.spark.sql.insert.into.operation", Enum, Write, "insert",
		"Operation used by Spark SQL INSERT INTO (0.14.0); replaces hoodie.sql.insert.mode and hoodie.sql.bulk.insert.enable.").
		enum("insert", "bulk_insert", "upsert")
	SQLInsertMode = key("hoodie.sql.insert.mode", Enum, Write, "upsert",
		"Deprecated in 0.14.0 for hoodie.spark.sql.insert.into.operation.").
		enum("upsert", "strict", "non-strict")
	SQLBulkInsertEnable = key("hoodie.sql.bulk.insert.enable", Bool, Write, "false",
		"Deprecated in 0.14.0 for hoodie.spark.sql.insert.into.operation.")
	DropPartitionColumns = key("hoodie.datasource.write.drop.partition.columns", Bool, Table, "false",
		"Leave partition columns out of the data files. Persisted in hoodie.properties under the same key.")
	CommitMetaKeyPrefix = key("hoodie.datasource.write.commitmeta.key.prefix", String, Write, "_",
		"Options whose names start with this prefix are copied into the commit metadata.")
	AutoCommit = key("hoodie.auto.commit", Bool, Write, "true",
		"Commit automatically after the write.")
	AllowEmptyCommit = key("hoodie.allow.empty.commit", Bool, Write, "true",
		"Commit even when no data was written.")
	BaseFileFormat = key("hoodie.table.base.file.format", Enum, Table, "PARQUET",
		"Base file format of the table.").
		enum("PARQUET", "HFILE", "ORC").alias("hoodie.table.ro.file.format")
	WriteTableName = noDefault("hoodie.datasource.write.table.name", String, Write,
		"Table name used by the Spark datasource (e.g. for Hive sync); hoodie.table.name is the persisted name.")
	BasePath = noDefault("hoodie.base.path", String, Write,
		"Base path of the table, with its storage scheme; required.")
	AvroSchema = noDefault("hoodie.avro.schema", String, Write,
		"Writer Avro schema of the incoming records.")
)

// §2 Key generation.
var (
	KeyGeneratorClass = key("hoodie.datasource.write.keygenerator.class", String, KeyGen,
		"org.apache.hudi.keygen.SimpleKeyGenerator",
		"KeyGenerator implementation. The write client has no default: when this is not set explicitly, "+
			"hoodie.datasource.write.keygenerator.type is used if set, otherwise the generator is inferred; use IsSet.")
	KeyGeneratorType = key("hoodie.datasource.write.keygenerator.type", Enum, KeyGen, "SIMPLE",
		"Key generator as an enum; the class key takes precedence.").
		enum("SIMPLE", "COMPLEX", "TIMESTAMP", "CUSTOM", "NON_PARTITION", "GLOBAL_DELETE")
	RecordKeyField = noDefault("hoodie.datasource.write.recordkey.field", List, KeyGen,
		"Record key field(s); nested fields as a.b.c. When unset, keys are auto-generated (0.14.0). 0.8.0 defaulted to uuid.")
	PartitionPathField = noDefault("hoodie.datasource.write.partitionpath.field", List, KeyGen,
		"Partition path field(s). 0.8.0 defaulted to partitionpath.")
	HiveStylePartitioning = key("hoodie.datasource.write.hive_style_partitioning", Bool, Table, "false",
		"Name partition directories field=value. Persisted in hoodie.properties. Tables created by Spark SQL default to true.").
		alias("hoodie.datasource.hive_style_partition") // the 0.8.0 Flink name
	URLEncodePartitioning = key("hoodie.datasource.write.partitionpath.urlencode", Bool, Table, "false",
		"URL-encode partition values in directory names. Persisted in hoodie.properties.")
	ConsistentLogicalTimestamp = key("hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled", Bool, KeyGen, "false",
		"Produce the same key string for logical timestamps on the row-writer and Avro paths.")
	// The timestamp key generator settings are persisted in hoodie.properties
	// (Java's PERSISTED_CONFIG_LIST), so readers can reproduce partition paths.
	TimestampType = noDefault("hoodie.keygen.timebased.timestamp.type", Enum, Table,
		"How TimestampBasedKeyGenerator reads the partition field; required for it.").
		enum("UNIX_TIMESTAMP", "DATE_STRING", "MIXED", "EPOCHMILLISECONDS", "SCALAR").
		alias(timebasedAliases("timestamp.type")...)
	TimestampOutputDateFormat = key("hoodie.keygen.timebased.output.dateformat", String, Table, "",
		"Output date pattern, e.g. yyyy-MM-dd'T'HH:mm:ss.SSSZ.").alias(timebasedAliases("output.dateformat")...)
	TimestampInputDateFormat = key("hoodie.keygen.timebased.input.dateformat", String, Table, "",
		"Input date pattern(s).").alias(timebasedAliases("input.dateformat")...)
	TimestampTimezone = key("hoodie.keygen.timebased.timezone", String, Table, "UTC",
		"Time zone of input and output when they are the same.").alias(timebasedAliases("timezone")...)
	TimestampInputTimezone = noDefault("hoodie.keygen.timebased.input.timezone", String, Table,
		"Time zone of the input.").alias(timebasedAliases("input.timezone")...)
	TimestampOutputTimezone = noDefault("hoodie.keygen.timebased.output.timezone", String, Table,
		"Time zone of the output.").alias(timebasedAliases("output.timezone")...)
	TimestampInputDateFormatListDelimiterRegex = noDefault("hoodie.keygen.timebased.input.dateformat.list.delimiter.regex", String, Table,
		"Delimiter between the input date patterns.").alias(timebasedAliases("input.dateformat.list.delimiter.regex")...)
	TimestampScalarTimeUnit = noDefault("hoodie.keygen.timebased.timestamp.scalar.time.unit", Enum, Table,
		"Unit of the input for timestamp type SCALAR.").
		enum("NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS").
		alias(timebasedAliases("timestamp.scalar.time.unit")...)
)

// timebasedAliases gives the DeltaStreamer (≤0.13) and Streamer (0.14 examples)
// names of a hoodie.keygen.timebased.* key.
func timebasedAliases(suffix string) []string {
	return []string{"hoodie.deltastreamer.keygen.timebased." + suffix, "hoodie.streamer.keygen.timebased." + suffix}
}

// §3 Index.
var (
	IndexType = key("hoodie.index.type", Enum, Index, "SIMPLE",
		"How incoming keys are located. SIMPLE on Spark (INMEMORY on Flink/Java engines); 0.8.0 defaulted to BLOOM.").
		enum("BLOOM", "GLOBAL_BLOOM", "SIMPLE", "GLOBAL_SIMPLE", "HBASE", "INMEMORY", "BUCKET", "FLINK_STATE", "RECORD_INDEX")
	IndexClass = key("hoodie.index.class", String, Index, "",
		"Custom index class; takes precedence over hoodie.index.type.")
	BloomNumEntries = key("hoodie.index.bloom.num_entries", Int, Index, "60000",
		"Bloom filter entries (the initial size of a DYNAMIC_V0 filter).")
	BloomFPP = key("hoodie.index.bloom.fpp", Double, Index, "0.000000001",
		"Target bloom filter false-positive rate.")
	BloomFilterType = key("hoodie.bloom.index.filter.type", Enum, Storage, "DYNAMIC_V0",
		"Bloom filter written to base files: SIMPLE (fixed size) or DYNAMIC_V0 (grows with keys). 0.8.0 defaulted to SIMPLE.").
		enum("SIMPLE", "DYNAMIC_V0")
	BloomDynamicMaxEntries = key("hoodie.bloom.index.filter.dynamic.max.entries", Int, Index, "100000",
		"Maximum entries of a DYNAMIC_V0 bloom filter.")
	BloomIndexPruneByRanges = key("hoodie.bloom.index.prune.by.ranges", Bool, Index, "true",
		"Prune candidate files by their min/max record key.")
	BloomIndexTreeFilter = key("hoodie.bloom.index.use.treebased.filter", Bool, Index, "true",
		"Use an interval tree for key-range pruning.")
	BloomIndexBucketizedChecking = key("hoodie.bloom.index.bucketized.checking", Bool, Index, "true",
		"Bucketized bloom checks, to reduce skew.")
	BloomIndexKeysPerBucket = key("hoodie.bloom.index.keys.per.bucket", Long, Index, "10000000",
		"Keys per bucket for bucketized checking.")
	BloomIndexParallelism = key("hoodie.bloom.index.parallelism", Int, Index, "0",
		"Bloom lookup parallelism; 0 = derived automatically.")
	BloomIndexUseCaching = key("hoodie.bloom.index.use.caching", Bool, Index, "true",
		"Cache the input for the bloom lookup.")
	BloomIndexUseMetadata = key("hoodie.bloom.index.use.metadata", Bool, Index, "false",
		"Use the metadata table's bloom filters and column stats for the lookup (0.11.0).")
	BloomIndexUpdatePartitionPath = key("hoodie.bloom.index.update.partition.path", Bool, Index, "true",
		"GLOBAL_BLOOM: a key that moves partition is deleted from the old one and inserted into the new one. 0.8.0 defaulted to false.")
	SimpleIndexUpdatePartitionPath = key("hoodie.simple.index.update.partition.path", Bool, Index, "true",
		"GLOBAL_SIMPLE: a key that moves partition is deleted from the old one and inserted into the new one.")
	RecordIndexUpdatePartitionPath = key("hoodie.record.index.update.partition.path", Bool, Index, "false",
		"RECORD_INDEX: a key that moves partition is deleted from the old one and inserted into the new one (0.14.0).")
	HBaseIndexUpdatePartitionPath = key("hoodie.hbase.index.update.partition.path", Bool, Index, "false",
		"HBASE: a key that moves partition is deleted from the old one and inserted into the new one.")
	SimpleIndexParallelism = key("hoodie.simple.index.parallelism", Int, Index, "0",
		"SIMPLE lookup parallelism; 0 = automatic. 0.8.0 defaulted to 50.")
	GlobalSimpleIndexParallelism = key("hoodie.global.simple.index.parallelism", Int, Index, "100",
		"GLOBAL_SIMPLE lookup parallelism.")
	SimpleIndexUseCaching = key("hoodie.simple.index.use.caching", Bool, Index, "true",
		"Cache the input for the SIMPLE lookup.")
	GlobalIndexReconcileParallelism = key("hoodie.global.index.reconcile.parallelism", Int, Index, "60",
		"Parallelism of deduplication in global indexes.")
	BucketIndexEngineType = key("hoodie.index.bucket.engine", Enum, Index, "SIMPLE",
		"BUCKET index engine: SIMPLE (fixed bucket count) or CONSISTENT_HASHING (MOR only) (0.11.0).").
		enum("SIMPLE", "CONSISTENT_HASHING")
	BucketIndexNumBuckets = key("hoodie.bucket.index.num.buckets", Int, Index, "256",
		"Buckets per partition for the BUCKET index.")
	BucketIndexHashField = noDefault("hoodie.bucket.index.hash.field", List, Index,
		"Fields hashed into a bucket; the record key fields when unset.")
	BucketIndexMinNumBuckets = noDefault("hoodie.bucket.index.min.num.buckets", Int, Index,
		"Consistent hashing: lower bound of buckets per partition (0.13.0).")
	BucketIndexMaxNumBuckets = noDefault("hoodie.bucket.index.max.num.buckets", Int, Index,
		"Consistent hashing: upper bound of buckets per partition (0.13.0).")
	BucketSplitThreshold = key("hoodie.bucket.index.split.threshold", Double, Index, "2.0",
		"Consistent hashing: split a bucket above this multiple of the max file size (0.13.0).")
	BucketMergeThreshold = key("hoodie.bucket.index.merge.threshold", Double, Index, "0.2",
		"Consistent hashing: merge buckets below this fraction of the max file size (0.13.0).")
	StorageLayoutType = key("hoodie.storage.layout.type", Enum, Storage, "DEFAULT",
		"DEFAULT, or BUCKET (the file group is chosen by key hash).").
		enum("DEFAULT", "BUCKET")
)

// §4 Storage and file sizing.
var (
	ParquetMaxFileSize = key("hoodie.parquet.max.file.size", Size, Storage, "125829120",
		"Target base file size (120 MB).")
	ParquetSmallFileLimit = key("hoodie.parquet.small.file.limit", Size, Storage, "104857600",
		"Base files up to this size are topped up with inserts; 0 or less turns this off. bulk_insert does no sizing.")
	ParquetBlockSize = key("hoodie.parquet.block.size", Size, Storage, "125829120",
		"Parquet row-group size.")
	ParquetPageSize = key("hoodie.parquet.page.size", Size, Storage, "1048576",
		"Parquet page size.")
	ParquetCompressionCodec = key("hoodie.parquet.compression.codec", Enum, Storage, "gzip",
		"Parquet compression codec (Parquet's CompressionCodecName, matched case-insensitively).").
		enum("gzip", "snappy", "zstd", "lz4", "lz4_raw", "brotli", "lzo", "uncompressed")
	ParquetCompressionRatio = key("hoodie.parquet.compression.ratio", Double, Storage, "0.1",
		"Expected Parquet compression, used to size new files.")
	ParquetDictionaryEnabled = key("hoodie.parquet.dictionary.enabled", Bool, Storage, "true",
		"Parquet dictionary encoding.")
	ParquetOutputTimestampType = key("hoodie.parquet.outputtimestamptype", Enum, Storage, "TIMESTAMP_MICROS",
		"Parquet timestamp type Spark writes.").
		enum("INT96", "TIMESTAMP_MICROS", "TIMESTAMP_MILLIS")
	ParquetWriteLegacyFormat = key("hoodie.parquet.writelegacyformat.enabled", Bool, Storage, "false",
		"Spark ≤1.4 legacy Parquet layout (e.g. decimals as fixed bytes).")
	ParquetFieldIDWrite = key("hoodie.parquet.field_id.write.enabled", Bool, Storage, "true",
		"Write Parquet field ids (Spark 3.3+).")
	LogFileMaxSize = key("hoodie.logfile.max.size", Size, Storage, "1073741824",
		"Roll over to a new log file above this size (only where storage supports append).")
	LogFileDataBlockMaxSize = key("hoodie.logfile.data.block.max.size", Size, Storage, "268435456",
		"Maximum size of one data block in a log file.")
	LogFileToParquetCompressionRatio = key("hoodie.logfile.to.parquet.compression.ratio", Double, Storage, "0.35",
		"Expected shrink from log to Parquet, used to size MOR file slices.")
	LogFileDataBlockFormat = noDefault("hoodie.logfile.data.block.format", Enum, Storage,
		"Data block format in log files; the base file format decides when unset.").
		enum("avro", "hfile", "parquet")
	CopyOnWriteRecordSizeEstimate = key("hoodie.copyonwrite.record.size.estimate", Int, Storage, "1024",
		"Assumed record size in bytes until commit statistics exist.")
	CopyOnWriteInsertSplitSize = key("hoodie.copyonwrite.insert.split.size", Int, Storage, "500000",
		"Inserts per bucket when nothing is known about record sizes yet.")
	CopyOnWriteAutoSplitInserts = key("hoodie.copyonwrite.insert.auto.split", Bool, Storage, "true",
		"Size insert splits from observed record sizes.")
	RecordSizeEstimationThreshold = key("hoodie.record.size.estimation.threshold", Double, Storage, "1.0",
		"A commit is used for the record size estimate only if it wrote more than small.file.limit × this.")
	MergeSmallFileGroupCandidatesLimit = key("hoodie.merge.small.file.group.candidates.limit", Int, Storage, "1",
		"MOR: number of small file groups that may receive inserts.")
)

// §5 Compaction (MOR).
var (
	InlineCompact = key("hoodie.compact.inline", Bool, Compaction, "false",
		"Run compaction after each write.")
	ScheduleInlineCompact = key("hoodie.compact.schedule.inline", Bool, Compaction, "false",
		"Schedule the compaction plan inline and execute it elsewhere.")
	InlineCompactNumDeltaCommits = key("hoodie.compact.inline.max.delta.commits", Int, Compaction, "5",
		"Delta commits before compaction is scheduled (NUM_* strategies). 0.8.0 defaulted to 10.")
	InlineCompactTimeDeltaSeconds = key("hoodie.compact.inline.max.delta.seconds", Int, Compaction, "3600",
		"Seconds before compaction is scheduled (TIME_ELAPSED and NUM_AND/OR_TIME strategies).")
	InlineCompactTriggerStrategy = key("hoodie.compact.inline.trigger.strategy", Enum, Compaction, "NUM_COMMITS",
		"When compaction is scheduled.").
		enum("NUM_COMMITS", "NUM_COMMITS_AFTER_LAST_REQUEST", "TIME_ELAPSED", "NUM_AND_TIME", "NUM_OR_TIME")
	CompactionStrategy = key("hoodie.compaction.strategy", String, Compaction,
		"org.apache.hudi.table.action.compact.strategy.LogFileSizeBasedCompactionStrategy",
		"Which file groups are compacted. The 0.8.0 class lived in org.apache.hudi.io.compact.strategy.")
	TargetIOPerCompactionInMB = key("hoodie.compaction.target.io", Long, Compaction, "512000",
		"MB of I/O allowed per compaction run. 0.8.0 defaulted to 500000.")
	CompactionPayloadClass = key("hoodie.compaction.payload.class", String, Table, overwriteWithLatestPayload,
		"Payload used to merge during compaction; must match the write payload. Persisted in hoodie.properties. "+
			"0.8.0 defaulted to org.apache.hudi.common.model.HoodieAvroPayload.")
	CompactionLazyBlockRead = key("hoodie.compaction.lazy.block.read", Bool, Compaction, "true",
		"Read log blocks lazily (less memory, more I/O).")
	CompactionReverseLogRead = key("hoodie.compaction.reverse.log.read", Bool, Compaction, "false",
		"Read log files backwards.")
	TargetPartitionsPerDayBasedCompaction = key("hoodie.compaction.daybased.target.partitions", Int, Compaction, "10",
		"Latest partitions compacted by DayBasedCompactionStrategy.").
		alias("hoodie.compaction.daybased.target") // 0.8.0 name
	CompactionLogFileNumThreshold = key("hoodie.compaction.logfile.num.threshold", Int, Compaction, "0",
		"Compact a file slice only above this many log files.")
	CompactionLogFileSizeThreshold = key("hoodie.compaction.logfile.size.threshold", Size, Compaction, "0",
		"Compact a file slice only above this total log size.")
	AsyncCompactEnable = key("hoodie.datasource.compaction.async.enable", Bool, Compaction, "true",
		"Async compaction for MOR tables written by Spark streaming.")
	LogCompactionEnable = key("hoodie.log.compaction.enable", Bool, Compaction, "false",
		"Enable log compaction.")
	InlineLogCompact = key("hoodie.log.compaction.inline", Bool, Compaction, "false",
		"Run log compaction inline.")
	// Memory of merges (HoodieMemoryConfig). The fractions size Java's spillable map from
	// the executor heap; a Go process has no heap limit to take a fraction of, so hudi-go
	// budgets with the byte sizes and accepts the fractions for compatibility.
	MergeMaxMemory = key("hoodie.memory.merge.max.size", Size, Compaction, "1073741824",
		"Bytes of decoded log records a read or merge keeps in memory before spilling to disk.")
	CompactionMaxMemory = noDefault("hoodie.memory.compaction.max.size", Size, Compaction,
		"Bytes of decoded log records a compaction keeps in memory before spilling; unset = hoodie.memory.merge.max.size.")
	SpillableMapPath = key("hoodie.memory.spillable.map.path", String, Compaction, "/tmp/",
		"Directory of the spill files of merges and compactions.")
	MergeMemoryFraction = key("hoodie.memory.merge.fraction", Double, Compaction, "0.6",
		"Java: fraction of the executor's user memory for merges. Accepted; hudi-go budgets with hoodie.memory.merge.max.size.")
	CompactionMemoryFraction = key("hoodie.memory.compaction.fraction", Double, Compaction, "0.6",
		"Java: fraction of the executor's user memory for compaction. Accepted; hudi-go budgets with hoodie.memory.compaction.max.size.")
	WriteStatusFailureFraction = key("hoodie.memory.writestatus.failure.fraction", Double, Compaction, "0.1",
		"Java: fraction of failed records whose exceptions are reported to the driver. Accepted; hudi-go fails the write on the first error.")
)

// §6 Cleaning.
var (
	AutoClean = key("hoodie.clean.automatic", Bool, Clean, "true",
		"Clean after each commit.")
	AsyncClean = key("hoodie.clean.async", Bool, Clean, "false",
		"Run the automatic clean asynchronously.")
	CleanerPolicy = key("hoodie.cleaner.policy", Enum, Clean, "KEEP_LATEST_COMMITS",
		"Which file slices the cleaner keeps. 0.14.1 infers it from the one retention key set explicitly.").
		enum("KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS")
	CleanerCommitsRetained = key("hoodie.cleaner.commits.retained", Int, Clean, "10",
		"Commits whose file slices are kept (KEEP_LATEST_COMMITS); bounds incremental and time-travel reads. 0.8.0 defaulted to 24.")
	CleanerFileVersionsRetained = key("hoodie.cleaner.fileversions.retained", Int, Clean, "3",
		"File slices kept per file group (KEEP_LATEST_FILE_VERSIONS).")
	CleanerHoursRetained = key("hoodie.cleaner.hours.retained", Int, Clean, "24",
		"Hours of file slices kept (KEEP_LATEST_BY_HOURS).")
	FailedWritesCleanerPolicy = key("hoodie.cleaner.policy.failed.writes", Enum, Clean, "EAGER",
		"Rollback of failed writes: EAGER (before the next write), LAZY (after heartbeat expiry; needed by multi-writer) or NEVER.").
		enum("EAGER", "LAZY", "NEVER")
	CleanMaxCommits = key("hoodie.clean.max.commits", Int, Clean, "1",
		"Commits after the last clean before the next one is scheduled.")
	CleanTriggerStrategy = key("hoodie.clean.trigger.strategy", Enum, Clean, "NUM_COMMITS",
		"When a clean is scheduled.").enum("NUM_COMMITS")
	CleanerIncrementalMode = key("hoodie.cleaner.incremental.mode", Bool, Clean, "true",
		"Plan cleans from timeline events since the last clean instead of listing every partition.")
	AllowMultipleCleans = key("hoodie.clean.allow.multiple", Bool, Clean, "true",
		"Allow several cleans to be scheduled at once (0.11.0).")
	CleanerParallelism = key("hoodie.cleaner.parallelism", Int, Clean, "200",
		"Clean parallelism.")
	CleanerBootstrapBaseFileEnable = key("hoodie.cleaner.delete.bootstrap.base.file", Bool, Clean, "false",
		"Also delete bootstrap source files.")
)

// §7 Archival.
var (
	KeepMaxCommits = key("hoodie.keep.max.commits", Int, Archive, "30",
		"Archive when the active timeline holds more instants than this. 0.8.0 defaulted to 128.")
	KeepMinCommits = key("hoodie.keep.min.commits", Int, Archive, "20",
		"Instants kept in the active timeline after archiving; must exceed hoodie.cleaner.commits.retained. 0.8.0 defaulted to 96.")
	CommitsArchivalBatchSize = key("hoodie.commits.archival.batch", Int, Archive, "10",
		"Instants archived per batch.")
	AutoArchive = key("hoodie.archive.automatic", Bool, Archive, "true",
		"Archive after each commit.")
	AsyncArchive = key("hoodie.archive.async", Bool, Archive, "false",
		"Archive asynchronously (0.11.0).")
	ArchiveMergeEnable = key("hoodie.archive.merge.enable", Bool, Archive, "false",
		"Merge small archive files.")
	ArchiveMergeFilesBatchSize = key("hoodie.archive.merge.files.batch.size", Int, Archive, "10",
		"Archive files merged per batch.")
	ArchiveMergeSmallFileLimitBytes = key("hoodie.archive.merge.small.file.limit.bytes", Size, Archive, "20971520",
		"Archive files below this size are merged.")
	ArchiveBeyondSavepoint = key("hoodie.archive.beyond.savepoint", Bool, Archive, "false",
		"Archive instants past savepoints (0.12.0).")
	FailOnTimelineArchiving = key("hoodie.fail.on.timeline.archiving", Bool, Archive, "true",
		"Fail the write when archiving fails.")
	TimelineCompactionBatchSize = key("hoodie.timeline.compaction.batch.size", Int, Archive, "10",
		"Files of one layer of the LSM timeline history (table versions 8 and 9) merged into the next layer at once (1.0.0).")
)

// §8 Clustering.
var (
	InlineClustering = key("hoodie.clustering.inline", Bool, Clustering, "false",
		"Cluster after each write (0.7.0).").alias("hoodie.datasource.clustering.inline.enable")
	AsyncClusteringEnable = key("hoodie.clustering.async.enabled", Bool, Clustering, "false",
		"Asynchronous clustering (0.7.0).").alias("hoodie.datasource.clustering.async.enable")
	ScheduleInlineClustering = key("hoodie.clustering.schedule.inline", Bool, Clustering, "false",
		"Schedule clustering inline and execute it elsewhere.")
	InlineClusteringMaxCommits = key("hoodie.clustering.inline.max.commits", Int, Clustering, "4",
		"Commits between inline clustering plans.")
	AsyncClusteringMaxCommits = key("hoodie.clustering.async.max.commits", Int, Clustering, "4",
		"Commits between async clustering plans (0.9.0).")
	ClusteringPlanStrategyClass = key("hoodie.clustering.plan.strategy.class", String, Clustering,
		"org.apache.hudi.client.clustering.plan.strategy.SparkSizeBasedClusteringPlanStrategy",
		"Chooses the file groups to cluster. 0.8.0 defaulted to SparkRecentDaysClusteringPlanStrategy.")
	ClusteringExecutionStrategyClass = key("hoodie.clustering.execution.strategy.class", String, Clustering,
		"org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy",
		"Rewrites the chosen groups (sort and size).")
	ClusteringPlanSmallFileLimit = key("hoodie.clustering.plan.strategy.small.file.limit", Size, Clustering, "314572800",
		"Files below this size are clustering candidates (300 MB; 0.8.0: 600 MB).")
	ClusteringMaxBytesPerGroup = key("hoodie.clustering.plan.strategy.max.bytes.per.group", Size, Clustering, "2147483648",
		"Maximum input bytes per clustering group.")
	ClusteringMaxNumGroups = key("hoodie.clustering.plan.strategy.max.num.groups", Int, Clustering, "30",
		"Maximum groups per clustering plan.")
	ClusteringTargetFileMaxBytes = key("hoodie.clustering.plan.strategy.target.file.max.bytes", Size, Clustering, "1073741824",
		"Target size of clustering output files.")
	ClusteringSortColumns = noDefault("hoodie.clustering.plan.strategy.sort.columns", List, Clustering,
		"Columns the clustering rewrite sorts by.")
	ClusteringPlanPartitionFilterMode = key("hoodie.clustering.plan.partition.filter.mode", Enum, Clustering, "NONE",
		"Which partitions a clustering plan considers (0.11.0).").
		enum("NONE", "RECENT_DAYS", "SELECTED_PARTITIONS", "DAY_ROLLING")
	ClusteringTargetPartitions = key("hoodie.clustering.plan.strategy.daybased.lookback.partitions", Int, Clustering, "2",
		"RECENT_DAYS: partitions looked back over.")
	ClusteringSkipPartitionsFromLatest = key("hoodie.clustering.plan.strategy.daybased.skipfromlatest.partitions", Int, Clustering, "0",
		"RECENT_DAYS: latest partitions skipped.")
	ClusteringSingleGroupEnabled = key("hoodie.clustering.plan.strategy.single.group.clustering.enabled", Bool, Clustering, "true",
		"Plan even when only one file group is involved (0.14.0).")
	ClusteringUpdatesStrategy = key("hoodie.clustering.updates.strategy", String, Clustering,
		"org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy",
		"What happens to updates of file groups being clustered; the default rejects them.")
	RollbackPendingClustering = key("hoodie.clustering.rollback.pending.replacecommit.on.conflict", Bool, Clustering, "false",
		"Roll back pending clustering when an update conflicts with it.")
	LayoutOptimizeStrategy = key("hoodie.layout.optimize.strategy", Enum, Clustering, "LINEAR",
		"Record ordering used by clustering.").enum("LINEAR", "ZORDER", "HILBERT")
	// Keys below are not in defaults-0.14.md; defaults come from Java's HoodieClusteringConfig.
	ClusteringPreserveCommitMetadata = key("hoodie.clustering.preserve.commit.metadata", Bool, Clustering, "true",
		"Clustered rows keep their _hoodie_commit_time and _hoodie_commit_seqno (0.9.0; default true since 0.11). UNVERIFIED against the 0.14.1 docs.")
	ClusteringBeginPartition = noDefault("hoodie.clustering.plan.strategy.cluster.begin.partition", String, Clustering,
		"SELECTED_PARTITIONS: first partition (inclusive) a clustering plan considers.")
	ClusteringEndPartition = noDefault("hoodie.clustering.plan.strategy.cluster.end.partition", String, Clustering,
		"SELECTED_PARTITIONS: last partition (inclusive) a clustering plan considers.")
	ClusteringPartitionRegexPattern = noDefault("hoodie.clustering.plan.strategy.partition.regex.pattern", String, Clustering,
		"Only partitions whose whole path matches this regular expression are clustered.")
	ClusteringPartitionSelected = noDefault("hoodie.clustering.plan.strategy.partition.selected", String, Clustering,
		"Comma-separated partitions to cluster instead of listing the table.")
)

// §9 Metadata table.
var (
	MetadataEnable = key("hoodie.metadata.enable", Bool, Metadata, "true",
		"Maintain and use the internal metadata table (file listings, indexes). 0.8.0 defaulted to false.")
	MetadataIndexBloomFilterEnable = key("hoodie.metadata.index.bloom.filter.enable", Bool, Metadata, "false",
		"Maintain the bloom_filters metadata partition.")
	MetadataIndexColumnStatsEnable = key("hoodie.metadata.index.column.stats.enable", Bool, Metadata, "false",
		"Maintain the column_stats metadata partition.")
	MetadataIndexColumnStatsColumnList = key("hoodie.metadata.index.column.stats.column.list", List, Metadata, "",
		"Columns the column_stats partition indexes; empty: every top-level column of the writer schema, with the meta fields (0.11.0).")
	MetadataIndexColumnStatsFileGroupCount = key("hoodie.metadata.index.column.stats.file.group.count", Int, Metadata, "2",
		"File groups of the column_stats partition, fixed when it is built (0.11.0; default from Java's HoodieMetadataConfig).")
	MetadataIndexBloomFilterFileGroupCount = key("hoodie.metadata.index.bloom.filter.file.group.count", Int, Metadata, "4",
		"File groups of the bloom_filters partition, fixed when it is built (0.11.0; default from Java's HoodieMetadataConfig).")
	RecordIndexEnable = key("hoodie.metadata.record.index.enable", Bool, Metadata, "false",
		"Maintain the record_index metadata partition.")
	MetadataCompactDeltaCommits = key("hoodie.metadata.compact.max.delta.commits", Int, Metadata, "10",
		"Metadata table delta commits before it is compacted. 0.8.0 defaulted to 24.")
	MetadataAutoInitialize = key("hoodie.metadata.auto.initialize", Bool, Metadata, "true",
		"Build the metadata table from a listing on first use (0.14.0).")
	MetadataIndexAsync = key("hoodie.metadata.index.async", Bool, Metadata, "false",
		"Build metadata indexes asynchronously.")
	MetadataMaxLogFileSize = key("hoodie.metadata.max.logfile.size", Size, Metadata, "2147483648",
		"Metadata table log file rollover size (0.14.0).")
	MetadataMaxDeltaCommitsWhenPending = key("hoodie.metadata.max.deltacommits.when_pending", Int, Metadata, "1000",
		"Cap on metadata table delta commits while a data-table instant is pending.")
	RecordIndexMinFileGroupCount = key("hoodie.metadata.record.index.min.filegroup.count", Int, Metadata, "10",
		"Minimum record-index file groups (0.14.0).")
	RecordIndexMaxFileGroupCount = key("hoodie.metadata.record.index.max.filegroup.count", Int, Metadata, "10000",
		"Maximum record-index file groups (0.14.0).")
	RecordIndexGrowthFactor = key("hoodie.metadata.record.index.growth.factor", Double, Metadata, "2.0",
		"The record count is multiplied by it when the record index's file groups are counted (0.14.0).")
	RecordIndexMaxFileGroupSize = key("hoodie.metadata.record.index.max.filegroup.size", Int, Metadata, "1073741824",
		"Maximum bytes of one record-index file group, for counting its file groups (0.14.0).")
	EnableDataSkipping = key("hoodie.enable.data.skipping", Bool, Read, "false",
		"Readers use metadata-table indexes to skip files.")
)

// §10 Markers.
var (
	MarkersType = key("hoodie.write.markers.type", Enum, Write, "TIMELINE_SERVER_BASED",
		"DIRECT (one marker file per data file) or TIMELINE_SERVER_BASED. Java falls back to DIRECT without a "+
			"timeline server, so DIRECT is what a Go writer does.").
		enum("DIRECT", "TIMELINE_SERVER_BASED")
	EmbeddedTimelineServerEnable = key("hoodie.embed.timeline.server", Bool, Write, "true",
		"Start the embedded timeline server.")
	MarkersTimelineServerBatchIntervalMs = key("hoodie.markers.timeline_server_based.batch.interval_ms", Long, Write, "50",
		"Timeline server marker batching interval.")
	MarkersTimelineServerBatchNumThreads = key("hoodie.markers.timeline_server_based.batch.num_threads", Int, Write, "20",
		"Timeline server marker batching threads.")
	MarkersDeleteParallelism = key("hoodie.markers.delete.parallelism", Int, Write, "100",
		"Marker deletion parallelism.")
	RollbackUsingMarkers = key("hoodie.rollback.using.markers", Bool, Write, "true",
		"Roll back using marker files rather than listing. 0.8.0 defaulted to false.")
)

// §11 Concurrency, locks, heartbeats.
var (
	WriteConcurrencyMode = key("hoodie.write.concurrency.mode", Enum, Lock, "SINGLE_WRITER",
		"SINGLE_WRITER, or OPTIMISTIC_CONCURRENCY_CONTROL for multiple writers (needs a lock provider and "+
			"hoodie.cleaner.policy.failed.writes=LAZY).").
		enum("SINGLE_WRITER", "OPTIMISTIC_CONCURRENCY_CONTROL")
	LockProviderClass = key("hoodie.write.lock.provider", String, Lock,
		"org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
		"Lock provider class.")
	WriteConflictResolutionStrategy = key("hoodie.write.lock.conflict.resolution.strategy", String, Lock,
		"org.apache.hudi.client.transaction.SimpleConcurrentFileWritesConflictResolutionStrategy",
		"Conflict check between concurrent writers.")
	LockAcquireNumRetries = key("hoodie.write.lock.num_retries", Int, Lock, "15",
		"Lock acquire retries per provider. 0.8.0 defaulted to 3.")
	LockAcquireRetryWaitMs = key("hoodie.write.lock.wait_time_ms_between_retry", Long, Lock, "1000",
		"Initial backoff between lock retries (exponential). 0.8.0 defaulted to 5000.")
	LockAcquireRetryMaxWaitMs = key("hoodie.write.lock.max_wait_time_ms_between_retry", Long, Lock, "16000",
		"Cap of the lock retry backoff.")
	LockAcquireWaitTimeoutMs = key("hoodie.write.lock.wait_time_ms", Int, Lock, "60000",
		"Timeout of a single lock acquire.")
	LockAcquireClientNumRetries = key("hoodie.write.lock.client.num_retries", Int, Lock, "50",
		"Extra retries by the lock manager. 0.8.0 defaulted to 0.")
	LockAcquireClientRetryWaitMs = key("hoodie.write.lock.client.wait_time_ms_between_retry", Long, Lock, "5000",
		"Wait between lock manager retries. 0.8.0 defaulted to 10000.")
	FilesystemLockPath = noDefault("hoodie.write.lock.filesystem.path", String, Lock,
		"Directory of the FileSystem lock; the table's .hoodie directory when unset.")
	FilesystemLockExpire = key("hoodie.write.lock.filesystem.expire", Int, Lock, "0",
		"Minutes after which a FileSystem lock expires; 0 = never.")
	HeartbeatIntervalMs = key("hoodie.client.heartbeat.interval_in_ms", Int, Lock, "60000",
		"Writer heartbeat period.")
	HeartbeatTolerableMisses = key("hoodie.client.heartbeat.tolerable.misses", Int, Lock, "2",
		"Missed heartbeats before a writer counts as dead.")
	EarlyConflictDetectionEnable = key("hoodie.write.concurrency.early.conflict.detection.enable", Bool, Lock, "false",
		"Under optimistic concurrency control, check before writing each data file whether a running earlier write "+
			"has a marker for its file group, and fail at once if so (0.13.0).")
	EarlyConflictDetectionStrategy = noDefault("hoodie.write.concurrency.early.conflict.detection.strategy", String, Lock,
		"Early conflict detection strategy class; Java infers it from hoodie.write.markers.type. hudi-go writes direct "+
			"markers: org.apache.hudi.table.marker.SimpleDirectMarkerBasedDetectionStrategy (also when unset); the "+
			"timeline-server-based strategies are refused (0.13.0).")
	EarlyConflictCheckCommitConflict = key("hoodie.write.concurrency.early.conflict.check.commit.conflict", Bool, Lock, "false",
		"Early conflict detection also fails a write whose file group a commit completed since the write started (0.13.0).")
	AsyncConflictDetectorInitialDelayMs = key("hoodie.write.concurrency.async.conflict.detector.initial_delay_ms", Long, Lock, "0",
		"Delay before the first check of AsyncTimelineServerBasedDetectionStrategy (timeline-server markers; refused by hudi-go) (0.13.0).")
	AsyncConflictDetectorPeriodMs = key("hoodie.write.concurrency.async.conflict.detector.period_ms", Long, Lock, "30000",
		"Period of AsyncTimelineServerBasedDetectionStrategy's checks (timeline-server markers; refused by hudi-go) (0.13.0).")
	ZookeeperLockURL = noDefault("hoodie.write.lock.zookeeper.url", String, Lock,
		"ZooKeeper servers (comma-separated host[:port]) of ZookeeperBasedLockProvider.")
	ZookeeperLockPort = noDefault("hoodie.write.lock.zookeeper.port", Int, Lock,
		"ZooKeeper port, for servers in the url that name none.")
	ZookeeperLockKey = noDefault("hoodie.write.lock.zookeeper.lock_key", String, Lock,
		"Znode under base_path that is locked; the table name when unset (Java infers it from hoodie.table.name).")
	ZookeeperLockBasePath = noDefault("hoodie.write.lock.zookeeper.base_path", String, Lock,
		"Base znode path of the lock; the same for every writer of the table.")
	ZookeeperLockSessionTimeoutMs = key("hoodie.write.lock.zookeeper.session_timeout_ms", Int, Lock, "60000",
		"ZooKeeper session timeout: a dead holder's lock is released when its session expires.")
	ZookeeperLockConnectionTimeoutMs = key("hoodie.write.lock.zookeeper.connection_timeout_ms", Int, Lock, "15000",
		"How long to wait to connect to ZooKeeper.")
	HiveMetastoreLockDatabase = noDefault("hoodie.write.lock.hivemetastore.database", String, Lock,
		"HiveMetastoreBasedLockProvider's database (the provider is refused by hudi-go: no metastore).")
	HiveMetastoreLockTable = noDefault("hoodie.write.lock.hivemetastore.table", String, Lock,
		"HiveMetastoreBasedLockProvider's table (the provider is refused by hudi-go: no metastore).")
	NumRetriesOnConflictFailures = key("hoodie.write.num.retries.on.conflict.failures", Int, Lock, "0",
		"Retries of a batch after a write conflict (0.13.0).")
)

// §12 Timeline, §13 table config persisted in hoodie.properties.
var (
	TimelineTimezone = key("hoodie.table.timeline.timezone", Enum, Table, "LOCAL",
		"Zone used to generate instant times. Not in the 0.14.1 docs; default from HoodieTableConfig (hudi-format.md §2.2.1).").
		enum("LOCAL", "UTC")
	TimelineLayoutVersion = key("hoodie.timeline.layout.version", Int, Table, "1",
		"0 = rename-based, 1 = immutable files written atomically (table version 6).")
	TimelineHolesResolutionPolicy = key("hoodie.read.timeline.holes.resolution.policy", Enum, Read, "FAIL",
		"Incremental reads over inflight instants before completed ones (0.14.0).").
		enum("FAIL", "BLOCK", "USE_TRANSITION_TIME")
	TableName = noDefault("hoodie.table.name", String, Table,
		"Table name; required, and the same across runs.")
	DatabaseName = noDefault("hoodie.database.name", String, Table,
		"Database name; part of hoodie.table.checksum (empty when unset).")
	TableType = key("hoodie.table.type", Enum, Table, "COPY_ON_WRITE",
		"Persisted table type. Not in the 0.14.1 docs; default from HoodieTableConfig.").
		enum("COPY_ON_WRITE", "MERGE_ON_READ").alias("hoodie.table.storage.type")
	TableVersion = key("hoodie.table.version", Int, Table, "6",
		"Table format version; 6 for Hudi 0.14.x, which is what hudi-go writes.")
	WriteTableVersion = key("hoodie.write.table.version", Enum, Write, "6",
		"Table version a create writes (6, 8 or 9; Hudi 1.x's HoodieWriteConfig.WRITE_TABLE_VERSION, "+
			"not in 0.14). On an existing table of a lower version the write upgrades it first when hoodie.write.auto.upgrade is true "+
			"(Java 1.x's UpgradeDowngrade); a lower version than the table's is refused (downgrade with hudi downgrade).").
		enum("6", "8", "9")
	WriteAutoUpgrade = key("hoodie.write.auto.upgrade", Bool, Write, "true",
		"Hudi 1.x's HoodieWriteConfig.AUTO_UPGRADE_VERSION (not in 0.14): a write whose hoodie.write.table.version is above the "+
			"table's upgrades the table first. With false, Java skips the upgrade and writes the table's version (with a warning); "+
			"hudi-go refuses the write instead of ignoring hoodie.write.table.version.")
	RecordMergeMode = noDefault("hoodie.record.merge.mode", Enum, Table,
		"Merge mode of a table version 8/9 (Hudi 1.x, not in 0.14): EVENT_TIME_ORDERING when an ordering field is set, "+
			"else COMMIT_TIME_ORDERING. CUSTOM (merger classes) is refused.").
		enum("EVENT_TIME_ORDERING", "COMMIT_TIME_ORDERING", "CUSTOM")
	TablePrecombineField = noDefault("hoodie.table.precombine.field", String, Table,
		"Persisted ordering field (from hoodie.datasource.write.precombine.field).")
	TableRecordKeyFields = noDefault("hoodie.table.recordkey.fields", List, Table,
		"Persisted record key fields.")
	TablePartitionFields = noDefault("hoodie.table.partition.fields", List, Table,
		"Persisted partition fields; absent means non-partitioned.")
	TableKeyGeneratorClass = noDefault("hoodie.table.keygenerator.class", String, Table,
		"Persisted KeyGenerator class name.")
	PopulateMetaFields = key("hoodie.populate.meta.fields", Bool, Table, "true",
		"Fill in the _hoodie_* meta columns; Java writes the key only when false.")
	ArchivelogFolder = key("hoodie.archivelog.folder", String, Table, "archived",
		"Archive directory under .hoodie (table version 6).")
	TableChecksum = noDefault("hoodie.table.checksum", Long, Table,
		"CRC32 of database.table (hudi-format.md §2.2.2); Java rejects hoodie.properties when it does not match.")
	TableRecordMergerStrategy = noDefault("hoodie.compaction.record.merger.strategy", String, Table,
		"Persisted merger strategy id; Java 0.14 writes "+eventTimeMergerStrategy+".")
	TableCreateSchema = noDefault("hoodie.table.create.schema", String, Table,
		"Avro schema (JSON, without meta fields) at table creation.")
	TableMetadataPartitions = noDefault("hoodie.table.metadata.partitions", List, Table,
		"Metadata table partitions that are ready for readers.")
	TableMetadataPartitionsInflight = noDefault("hoodie.table.metadata.partitions.inflight", List, Table,
		"Metadata table partitions being built.")
	// The switches below are persisted by hudi create as Java's
	// HoodieTableMetaClient.PropertyBuilder persists them; defaults and docs from
	// HoodieTableConfig (not in defaults-0.14.md). hudi-go does not write bootstrapped
	// tables: create refuses them on, and every change to a table with them on is refused.
	CDCEnabled = key("hoodie.table.cdc.enabled", Bool, Table, "false",
		"Persist change data for CDC queries (0.13.0): merges write CDC log files next to the base files they rewrite. "+
			"Needs meta fields (hoodie.populate.meta.fields=true) in hudi-go.")
	CDCSupplementalLoggingMode = key("hoodie.table.cdc.supplemental.logging.mode", Enum, Table, "DATA_BEFORE_AFTER",
		"What the CDC log files hold: OP_KEY_ONLY (record keys), DATA_BEFORE (and before images) or "+
			"DATA_BEFORE_AFTER (and after images) (0.13.0; 0.14 enum names, any case). "+
			"Persisted by Java only with CDC on.").
		enum("OP_KEY_ONLY", "DATA_BEFORE", "DATA_BEFORE_AFTER")
	BootstrapBasePath = noDefault("hoodie.bootstrap.base.path", String, Table,
		"Base path of the dataset bootstrapped as this Hudi table. hudi-go cannot write bootstrapped tables: a non-empty value is refused.")
	BootstrapIndexClass = key("hoodie.bootstrap.index.class", String, Table, "org.apache.hudi.common.bootstrap.index.HFileBootstrapIndex",
		"Index mapping base files to bootstrap source files. hudi-go refuses a non-empty value at create (bootstrapped tables).")
	BootstrapIndexEnable = key("hoodie.bootstrap.index.enable", Bool, Table, "true",
		"Whether a bootstrapped table has a bootstrap index.")
	PartitionMetafileUseBaseFormat = key("hoodie.partition.metafile.use.base.format", Bool, Table, "false",
		"Write .hoodie_partition_metadata in the base file format (Parquet) instead of a properties file. "+
			"hudi-go writes properties files: true is refused.")
)

// §14 Spark datasource read options.
var (
	QueryType = key("hoodie.datasource.query.type", Enum, Read, "snapshot",
		"snapshot (base and logs merged), read_optimized (base files only) or incremental.").
		enum("snapshot", "read_optimized", "incremental").alias("hoodie.datasource.view.type")
	BeginInstantTime = noDefault("hoodie.datasource.read.begin.instanttime", String, Read,
		"Incremental: commits with instant time > this; required in incremental mode.")
	EndInstantTime = noDefault("hoodie.datasource.read.end.instanttime", String, Read,
		"Incremental: commits with instant time ≤ this; the latest commit when unset.")
	TimeTravelAsOfInstant = noDefault("as.of.instant", String, Read,
		"Time travel to this instant; the latest snapshot when unset.")
	IncrFallbackFullTableScan = key("hoodie.datasource.read.incr.fallback.fulltablescan.enable", Bool, Read, "false",
		"Incremental reads fall back to a full scan when files were cleaned.")
	IncrReadSchemaUseEndInstant = key("hoodie.datasource.read.schema.use.end.instanttime", Bool, Read, "false",
		"Incremental reads use the schema at the end instant rather than the latest.")
	MergeType = key("hoodie.datasource.merge.type", Enum, Read, "payload_combine",
		"MOR snapshot: payload_combine merges logs into base records, skip_merge returns both.").
		enum("payload_combine", "skip_merge")
	IncrementalFormat = key("hoodie.datasource.query.incremental.format", Enum, Read, "latest_state",
		"Incremental output: latest_state or cdc (0.13.0).").enum("latest_state", "cdc")
	IncrPathGlob = key("hoodie.datasource.read.incr.path.glob", String, Read, "",
		"Limit incremental reads to paths matching this glob.")
	IncrFilters = key("hoodie.datasource.read.incr.filters", String, Read, "",
		"Filters pushed down into incremental reads.")
	ExtractPartitionValuesFromPath = key("hoodie.datasource.read.extract.partition.values.from.path", Bool, Read, "false",
		"Take partition values from the path rather than the data files.")
	FileIndexListingMode = key("hoodie.datasource.read.file.index.listing.mode", Enum, Read, "lazy",
		"File index listing: lazy or eager (0.13.0).").enum("lazy", "eager")
	FileIndexEnable = key("hoodie.file.index.enable", Bool, Read, "true",
		"Use Hudi's Spark file index.")
	SchemaEvolutionEnable = key("hoodie.schema.on.read.enable", Bool, Read, "false",
		"Schema evolution on read.")
)

// registered lists every key. It is a function, not a package-level slice, so
// there is no shared mutable registry; index caches what it returns.
func registered() []Key {
	return []Key{
		// §1
		Operation, WriteTableType, PayloadClass, PrecombineField, PayloadOrderingField, PayloadEventTimeField,
		RecordMergerImpls, RecordMergerStrategy, CombineBeforeInsert, CombineBeforeUpsert, CombineBeforeDelete,
		InsertDropDuplicates, InsertDupPolicy, MergeAllowDuplicateOnInserts, BulkInsertSortMode, RowWriterEnable,
		PartitionsToDelete, SetNullForMissingColumns, ReconcileSchema,
		BulkInsertParallelism, InsertParallelism, UpsertParallelism, DeleteParallelism,
		SparkSQLInsertIntoOperation, SQLInsertMode, SQLBulkInsertEnable, DropPartitionColumns, CommitMetaKeyPrefix,
		AutoCommit, AllowEmptyCommit, BaseFileFormat, WriteTableName, BasePath, AvroSchema,
		// §2
		KeyGeneratorClass, KeyGeneratorType, RecordKeyField, PartitionPathField, HiveStylePartitioning,
		URLEncodePartitioning, ConsistentLogicalTimestamp, TimestampType, TimestampOutputDateFormat,
		TimestampInputDateFormat, TimestampTimezone, TimestampInputTimezone, TimestampOutputTimezone,
		TimestampInputDateFormatListDelimiterRegex, TimestampScalarTimeUnit,
		// §3
		IndexType, IndexClass, BloomNumEntries, BloomFPP, BloomFilterType, BloomDynamicMaxEntries,
		BloomIndexPruneByRanges, BloomIndexTreeFilter, BloomIndexBucketizedChecking, BloomIndexKeysPerBucket,
		BloomIndexParallelism, BloomIndexUseCaching, BloomIndexUseMetadata, BloomIndexUpdatePartitionPath,
		SimpleIndexUpdatePartitionPath, RecordIndexUpdatePartitionPath, HBaseIndexUpdatePartitionPath,
		SimpleIndexParallelism, GlobalSimpleIndexParallelism, SimpleIndexUseCaching, GlobalIndexReconcileParallelism,
		BucketIndexEngineType, BucketIndexNumBuckets, BucketIndexHashField, BucketIndexMinNumBuckets,
		BucketIndexMaxNumBuckets, BucketSplitThreshold, BucketMergeThreshold, StorageLayoutType,
		// §4
		ParquetMaxFileSize, ParquetSmallFileLimit, ParquetBlockSize, ParquetPageSize, ParquetCompressionCodec,
		ParquetCompressionRatio, ParquetDictionaryEnabled, ParquetOutputTimestampType, ParquetWriteLegacyFormat,
		ParquetFieldIDWrite, LogFileMaxSize, LogFileDataBlockMaxSize, LogFileToParquetCompressionRatio,
		LogFileDataBlockFormat, CopyOnWriteRecordSizeEstimate, CopyOnWriteInsertSplitSize,
		CopyOnWriteAutoSplitInserts, RecordSizeEstimationThreshold, MergeSmallFileGroupCandidatesLimit,
		// §5
		InlineCompact, ScheduleInlineCompact, InlineCompactNumDeltaCommits, InlineCompactTimeDeltaSeconds,
		InlineCompactTriggerStrategy, CompactionStrategy, TargetIOPerCompactionInMB, CompactionPayloadClass,
		CompactionLazyBlockRead, CompactionReverseLogRead, TargetPartitionsPerDayBasedCompaction,
		CompactionLogFileNumThreshold, CompactionLogFileSizeThreshold, AsyncCompactEnable, LogCompactionEnable,
		InlineLogCompact, MergeMaxMemory, CompactionMaxMemory, SpillableMapPath, MergeMemoryFraction,
		CompactionMemoryFraction, WriteStatusFailureFraction,
		// §6
		AutoClean, AsyncClean, CleanerPolicy, CleanerCommitsRetained, CleanerFileVersionsRetained,
		CleanerHoursRetained, FailedWritesCleanerPolicy, CleanMaxCommits, CleanTriggerStrategy,
		CleanerIncrementalMode, AllowMultipleCleans, CleanerParallelism, CleanerBootstrapBaseFileEnable,
		// §7
		KeepMaxCommits, KeepMinCommits, CommitsArchivalBatchSize, AutoArchive, AsyncArchive, ArchiveMergeEnable,
		ArchiveMergeFilesBatchSize, ArchiveMergeSmallFileLimitBytes, ArchiveBeyondSavepoint, FailOnTimelineArchiving,
		TimelineCompactionBatchSize,
		// §8
		InlineClustering, AsyncClusteringEnable, ScheduleInlineClustering, InlineClusteringMaxCommits,
		AsyncClusteringMaxCommits, ClusteringPlanStrategyClass, ClusteringExecutionStrategyClass,
		ClusteringPlanSmallFileLimit, ClusteringMaxBytesPerGroup, ClusteringMaxNumGroups,
		ClusteringTargetFileMaxBytes, ClusteringSortColumns, ClusteringPlanPartitionFilterMode,
		ClusteringTargetPartitions, ClusteringSkipPartitionsFromLatest, ClusteringSingleGroupEnabled,
		ClusteringUpdatesStrategy, RollbackPendingClustering, LayoutOptimizeStrategy,
		ClusteringPreserveCommitMetadata, ClusteringBeginPartition, ClusteringEndPartition,
		ClusteringPartitionRegexPattern, ClusteringPartitionSelected,
		// §9
		MetadataEnable, MetadataIndexBloomFilterEnable, MetadataIndexColumnStatsEnable, RecordIndexEnable,
		MetadataIndexColumnStatsColumnList, MetadataIndexColumnStatsFileGroupCount, MetadataIndexBloomFilterFileGroupCount,
		MetadataCompactDeltaCommits, MetadataAutoInitialize, MetadataIndexAsync, MetadataMaxLogFileSize,
		MetadataMaxDeltaCommitsWhenPending, RecordIndexMinFileGroupCount, RecordIndexMaxFileGroupCount,
		RecordIndexGrowthFactor, RecordIndexMaxFileGroupSize, EnableDataSkipping,
		// §10
		MarkersType, EmbeddedTimelineServerEnable, MarkersTimelineServerBatchIntervalMs,
		MarkersTimelineServerBatchNumThreads, MarkersDeleteParallelism, RollbackUsingMarkers,
		// §11
		WriteConcurrencyMode, LockProviderClass, WriteConflictResolutionStrategy, LockAcquireNumRetries,
		LockAcquireRetryWaitMs, LockAcquireRetryMaxWaitMs, LockAcquireWaitTimeoutMs, LockAcquireClientNumRetries,
		LockAcquireClientRetryWaitMs, FilesystemLockPath, FilesystemLockExpire, HeartbeatIntervalMs,
		HeartbeatTolerableMisses, EarlyConflictDetectionEnable, EarlyConflictDetectionStrategy,
		EarlyConflictCheckCommitConflict, AsyncConflictDetectorInitialDelayMs, AsyncConflictDetectorPeriodMs,
		NumRetriesOnConflictFailures,
		ZookeeperLockURL, ZookeeperLockPort, ZookeeperLockKey, ZookeeperLockBasePath, ZookeeperLockSessionTimeoutMs,
		ZookeeperLockConnectionTimeoutMs, HiveMetastoreLockDatabase, HiveMetastoreLockTable,
		// §12, §13
		TimelineTimezone, TimelineLayoutVersion, TimelineHolesResolutionPolicy, TableName, DatabaseName, TableType,
		TableVersion, WriteTableVersion, WriteAutoUpgrade, RecordMergeMode, TablePrecombineField, TableRecordKeyFields, TablePartitionFields, TableKeyGeneratorClass,
		PopulateMetaFields, ArchivelogFolder, TableChecksum, TableRecordMergerStrategy, TableCreateSchema,
		TableMetadataPartitions, TableMetadataPartitionsInflight, CDCEnabled, CDCSupplementalLoggingMode,
		BootstrapBasePath, BootstrapIndexClass, BootstrapIndexEnable, PartitionMetafileUseBaseFormat,
		// §14
		QueryType, BeginInstantTime, EndInstantTime, TimeTravelAsOfInstant, IncrFallbackFullTableScan,
		IncrReadSchemaUseEndInstant, MergeType, IncrementalFormat, IncrPathGlob, IncrFilters,
		ExtractPartitionValuesFromPath, FileIndexListingMode, FileIndexEnable, SchemaEvolutionEnable,
	}
}
