// Package avroschema owns the Avro schemas of Hudi's own records (org.apache.hudi.avro.model)
// that hudi-go writes: the writer schemas embedded in timeline files, rollback and restore
// metadata, delete blocks and archived entries. Each is one .avsc file named after its Java
// record, with the named types it uses inlined at their first use (an Avro object container
// must carry every named type). The bytes of a file are the schema hudi-go writes, so where
// a Java-written file holds the schema the .avsc is that file's header verbatim (with the
// "avro.java.string" marks Java's generated classes print); field order and defaults are
// part of the format.
//
// The top folder holds the schemas of the files Hudi 0.14 writes; archived/ holds the
// records nested in HoodieArchivedMetaEntry where the archive writes another revision of a
// record than the timeline file does (services/archive: readers resolve the entry against
// their own schema by field name, so a newer revision with defaults reads everywhere).
package avroschema

import (
	"embed"
	"strings"
)

//go:embed *.avsc archived/*.avsc v8/*.avsc
var files embed.FS

// Record names one schema: its file without the .avsc extension, which is the Java record's
// name (under archived/ for the archived-entry revisions).
type Record string

// The timeline's, rollback's, restore's and delete block's records as Hudi 0.14 writes them.
const (
	// CompactionPlan (compaction.requested), copied from the Spark-written fixture
	// trips-mor-avro/v8_trips_8i3u1d (20251220210129235.compaction.requested); the archive
	// nests the same schema.
	CompactionPlan Record = "HoodieCompactionPlan"
	// RequestedReplaceMetadata (replacecommit.requested) with HoodieClusteringPlan,
	// HoodieClusteringGroup, HoodieSliceInfo and HoodieClusteringStrategy inlined, exactly
	// as Hudi 0.14 embeds it: copied from the fixture cow/v6_simplekeygen_nonhivestyle_overwritetable
	// (format/commitmeta testdata v6_cow_replacecommit_requested_overwrite.avro). It lacks
	// the 1.x field missingSchedulePartitions, which a 0.14 reader would not know.
	RequestedReplaceMetadata Record = "HoodieRequestedReplaceMetadata"
	// RollbackPlan (rollback.requested) and RollbackMetadata (rollback), as Java 0.14/0.15
	// embeds them: copied from the fixture mor-parquet/v6_nonpartitioned_rollback.
	// RollbackMetadata is also the archive's and the restore metadata's nested record.
	// Hudi 1.x has the same records field for field (TestLayoutTwoSchemasAreHudi1x), so
	// they are written on both timeline layouts.
	RollbackPlan     Record = "HoodieRollbackPlan"
	RollbackMetadata Record = "HoodieRollbackMetadata"
	// RestorePlan (restore.requested) and RestoreMetadata (restore) as Java 0.14's generated
	// classes embed them: HoodieRestorePlan.avsc before 1.0 added savepointToRestoreTimestamp
	// and plan version 2, HoodieRestoreMetadata.avsc with restoreInstantInfo; named types
	// inlined at their first use, with the avro.java.string marks the generator adds.
	RestorePlan     Record = "HoodieRestorePlan"
	RestoreMetadata Record = "HoodieRestoreMetadata"
	// RestorePlanV8 is the restore plan hudi-go writes on timeline layout 2: RestorePlan
	// with Hudi 1.x's savepointToRestoreTimestamp, which 1.x's RestorePlanActionExecutor
	// sets with plan version 2 (HoodieRestorePlan(instantsToRollback, version,
	// savepointToRestoreTimestamp)). UNVERIFIED against a Java-written plan (no fixture) and
	// the 1.x .avsc (not read): the field is written as a nullable string.
	RestorePlanV8 Record = "v8/HoodieRestorePlan"
	// CleanerPlan (clean.requested, clean.inflight) and CleanMetadata (clean): the Hudi 0.14
	// forms of HoodieCleanerPlan.avsc and HoodieCleanMetadata.avsc (HoodieActionInstant,
	// HoodieCleanFileInfo and HoodieCleanPartitionMetadata inlined), spelled the way Java's
	// generated classes print them. UNVERIFIED which avsc revision 0.14.1 shipped: apache/hudi
	// has a plan without lastCompletedCommitTimestamp (pre-0.12), one with it, and one with
	// extraMetadata (1.x); the metadata likewise gained extraMetadata and a leading policy
	// field later. These are the middle revision; every field added later has a default, so
	// each of those Java versions reads them.
	CleanerPlan   Record = "HoodieCleanerPlan"
	CleanMetadata Record = "HoodieCleanMetadata"
	// CleanerPlanV8 and CleanMetadataV8 are the clean plan and metadata hudi-go writes on
	// timeline layout 2 (table versions 8 and 9): the records above with Hudi 1.x's last
	// field, extraMetadata (a nullable string map; Java's CleanPlanActionExecutor puts the
	// savepointed instants there as "savepointed_timestamps", and CleanerUtils copies the
	// plan's into the metadata). Field order as Java 1.x's constructors take them
	// (HoodieCleanerPlan(earliestInstantToRetain, lastCompletedCommitTimestamp, policy,
	// filesToBeDeletedPerPartition, version, filePathsToBeDeletedPerPartition,
	// partitionsToBeDeleted, extraMetadata); HoodieCleanMetadata(startCleanTime, …,
	// bootstrapPartitionMetadata, extraMetadata)). UNVERIFIED against a Java-written v8/v9
	// clean: no fixture has one, and the 1.x .avsc was not read (the extraMetadata type is
	// the one HoodieCommitMetadata prints). A Java reader resolves them by field name.
	CleanerPlanV8   Record = "v8/HoodieCleanerPlan"
	CleanMetadataV8 Record = "v8/HoodieCleanMetadata"
	// SavepointMetadata (savepoint): HoodieSavePointMetadata.avsc, the revision with the
	// version field, as Java's generated class prints it.
	SavepointMetadata Record = "HoodieSavepointMetadata"
	// DeleteRecordList is the content of a version-3 DELETE_BLOCK: HoodieDeleteRecordList.avsc
	// as of Hudi 0.14 to 1.1, with the wrapper records of HoodieMetadata.avsc inlined where
	// the union first names them. orderingVal is the flat union of 0.14 (Hudi's master later
	// made it an array of that union, another wire format: delete blocks carry no schema).
	// The union branch order is part of the format.
	DeleteRecordList Record = "HoodieDeleteRecordList"
	// MetadataRecord is the record of the metadata table (HoodieMetadata.avsc's
	// HoodieMetadataRecord) with the five meta fields Java's writer schema puts first, as
	// hudi-go writes it into the SCHEMA header of the metadata table's log blocks and the
	// "schema" file info of its base HFiles: the Hudi 1.0 record of MetadataRecordV8 less
	// what 1.0 added — HoodieMetadataColumnStats.isTightBound, the LocalDateWrapper branch of
	// its min/max unions, HoodieRecordIndexInfo.position and SecondaryIndexMetadata
	// (UNVERIFIED field by field: the 0.14.1 .avsc was not read). Leaving them out is safe
	// either way: a Java reader resolves each file's writer schema against its own, where
	// missing fields take their defaults and no record of ours uses a removed branch.
	MetadataRecord Record = "HoodieMetadataRecord"
	// MetadataRecordV8 is HoodieMetadataRecord as Hudi 1.0 writes it, copied from the
	// fixture trips-mor-avro/v8_trips_8i3u1d (tests use it to write metadata-table files
	// the way Hudi 1.x does).
	MetadataRecordV8 Record = "v8/HoodieMetadataRecord"
	// LSMTimelineInstant is one row of the LSM timeline history of table versions 8 and 9
	// (timeline/history/<min>_<max>_<layer>.parquet): HoodieLSMTimelineInstant.avsc as
	// Java's generated class prints it (getClassSchema().toString(), with the
	// avro.java.string marks), which parquet-avro stores as the file's parquet.avro.schema
	// and turns into the parquet schema. UNVERIFIED against a Java-written history file:
	// no fixture has one; pinned against apache/hudi's .avsc by TestLayoutTwoSchemasAreHudi1x.
	LSMTimelineInstant Record = "v8/HoodieLSMTimelineInstant"
)

// The records nested in HoodieArchivedMetaEntry where the archive writes another revision
// than the timeline files (services/archive). Where a Java-written file holds the schema it
// is that file's header verbatim; the others are written from apache/hudi's .avsc files
// (hudi-common/src/main/avro).
const (
	// ArchivedCommitMetadata is HoodieCommitMetadata as written by Java (Hudi 1.1) in the
	// fixture format/commitmeta/testdata/v9_cow_commit_insert.avro: a superset of the 0.14
	// record (UNVERIFIED field by field against the 0.14.1 .avsc, which was not read).
	ArchivedCommitMetadata Record = "archived/HoodieCommitMetadata"
	// ArchivedReplaceCommitMetadata is HoodieReplaceCommitMetadata from the fixture
	// v9_cow_replacecommit_clustering.avro.
	ArchivedReplaceCommitMetadata Record = "archived/HoodieReplaceCommitMetadata"
	// ArchivedRequestedReplaceMetadata is HoodieRequestedReplaceMetadata from the fixture
	// v9_cow_clustering_requested.avro.
	ArchivedRequestedReplaceMetadata Record = "archived/HoodieRequestedReplaceMetadata"
	// ArchivedCleanMetadata is HoodieCleanMetadata.avsc with HoodieCleanPartitionMetadata.avsc
	// inlined at its first use.
	ArchivedCleanMetadata Record = "archived/HoodieCleanMetadata"
	// ArchivedCleanerPlan is HoodieCleanerPlan.avsc.
	ArchivedCleanerPlan Record = "archived/HoodieCleanerPlan"
	// ArchivedSavepointMetadata is HoodieSavePointMetadata.avsc.
	ArchivedSavepointMetadata Record = "archived/HoodieSavepointMetadata"
	// ArchivedCompactionMetadata is the deprecated HoodieCompactionMetadata.avsc; Java never
	// fills the field any more, but it is part of the entry record (HoodieWriteStat is
	// defined by the commit metadata earlier in the entry).
	ArchivedCompactionMetadata Record = "archived/HoodieCompactionMetadata"
	// ArchivedIndexCommitMetadata is HoodieIndexCommitMetadata.avsc with
	// HoodieIndexPartitionInfo.avsc inlined (HoodieInstantInfo is defined by the rollback
	// metadata earlier in the entry).
	ArchivedIndexCommitMetadata Record = "archived/HoodieIndexCommitMetadata"
)

// JSON is the schema of r, the bytes hudi-go writes (its file without the final newline).
// Every Record constant has its file (TestEveryRecordLoads); an unknown Record panics, as it
// is a programming error no input can cause.
func (r Record) JSON() string {
	b, err := files.ReadFile(string(r) + ".avsc")
	if err != nil {
		panic("avroschema: no schema " + string(r) + ": " + err.Error())
	}
	return strings.TrimSuffix(string(b), "\n")
}
