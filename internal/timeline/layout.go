package timeline

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// Layout is everything that differs between the two ways Hudi lays out a timeline, decided
// once per table from its version when the table is opened (LayoutOf) and carried by the
// Timeline loaded from it, so no other code compares table versions or layout numbers:
//
//   - layout 1 (table version 6, Hudi 0.14/0.15): instant files directly under .hoodie,
//     named by their requested time only, archived into .commits_.archive log files;
//   - layout 2 (table versions 8 and 9, Hudi 1.x): instant files under .hoodie/timeline,
//     a completed one named "<requested>_<completion>.<action>", file slices ordered by
//     completion time, archived into the LSM timeline under timeline/history.
//
// Java's counterparts are TimelineLayout (TimelineLayoutV1/V2) and the
// InstantFileNameGenerator/InstantGenerator pairs chosen by TimelineLayoutVersion.
type Layout interface {
	// Version is hoodie.timeline.layout.version: 1 or 2.
	Version() int
	// Dir is the folder of the active timeline relative to the table root, given the
	// table's hoodie.timeline.path ("" for the default; layout 1 ignores it).
	Dir(timelinePath string) string
	// FileName names the timeline file of an instant in one state. Layout 2 names a
	// completed instant with its completion time (f.Completion); layout 1 ignores it.
	FileName(f spec.InstantFileName) string
	// CompletionTimes reports whether completed instants carry a completion time, which
	// then orders log files into file slices (fsview) and bounds incremental queries.
	CompletionTimes() bool
	// ArchiveDir is the folder of the archived timeline relative to the table root, given
	// hoodie.archivelog.folder (layout 1) or hoodie.timeline.history.path (layout 2), and
	// hoodie.timeline.path ("" for the defaults).
	ArchiveDir(archiveFolder, timelinePath string) string
	// ArchiveFolderKey is the table property naming the archive folder that ArchiveDir
	// takes: hoodie.archivelog.folder (layout 1) or hoodie.timeline.history.path (2).
	ArchiveFolderKey() string
	// EncodeCommitMetadata encodes commit, deltacommit and replacecommit metadata, inflight
	// profiles included: Jackson JSON on layout 1 (Hudi 0.14), an Avro container on layout
	// 2 (Hudi 1.x).
	EncodeCommitMetadata(m *commitmeta.CommitMetadata) ([]byte, error)
	// RequestedReplaceSchema is the writer schema of replacecommit.requested files (and
	// clustering plans): Hudi 0.14's HoodieRequestedReplaceMetadata on layout 1, Hudi
	// 1.x's on layout 2 (with missingSchedulePartitions).
	RequestedReplaceSchema() avroschema.Record
	// CleanSchemas are the writer schemas of the clean plan (clean.requested/inflight) and
	// of the clean metadata (completed clean): Hudi 0.14's on layout 1, Hudi 1.x's (with
	// extraMetadata) on layout 2.
	CleanSchemas() (plan, metadata avroschema.Record)
	// RestorePlan is the writer schema and version of restore plans: Hudi 0.14's (version
	// 1) on layout 1, Hudi 1.x's (version 2, with savepointToRestoreTimestamp) on layout 2.
	RestorePlan() (schema avroschema.Record, version int32)
	// RestoreByCompletion reports whether restore chooses the instants after a savepoint by
	// completion time (layout 2, Hudi 1.x's RestoreInstantComparator) rather than by
	// instant time (layout 1).
	RestoreByCompletion() bool
	// LogFilesPerWrite reports whether every deltacommit writes its own log files, named by
	// its instant (layout 2, Hudi 1.x), rather than log files named by the base instant of
	// the file slice they extend (layout 1). A rollback of a deltacommit then deletes its
	// log files instead of appending command blocks.
	LogFilesPerWrite() bool
	// ClusteringAction is the action a clustering is requested and runs under: a
	// replacecommit from request to completion on layout 1 (Hudi 0.14), "clustering" on
	// layout 2 (Hudi 1.x writes <T>.clustering.requested and <T>.clustering.inflight, and
	// completes them as <T>_<C>.replacecommit; HoodieTimeline.CLUSTERING_ACTION). Both
	// complete as a replacecommit.
	ClusteringAction() spec.Action
	// LSMHistory reports whether archival writes the LSM timeline history (layout 2:
	// parquet files, manifests and _version_ under timeline/history, WriteLSMFile) rather
	// than archive log files (layout 1: .hoodie/archived/.commits_.archive.N).
	LSMHistory() bool
	// Writes reports whether hudi-go performs op on tables of this layout.
	Writes(op Operation) bool
	// String names the layout in messages ("timeline layout 1").
	String() string

	// loadArchived reads the archived instants stored in dir (ArchiveDir).
	loadArchived(ctx context.Context, st storage.Storage, dir string) ([]ArchivedInstant, error)
}

// Operation is a change hudi-go makes to a table, for Layout.Writes.
type Operation string

// The operations whose support depends on the layout.
const (
	OpWriteCOW   Operation = "writing (copy-on-write)"
	OpWriteMOR   Operation = "writing (merge-on-read)"
	OpCompaction Operation = "compaction"
	OpClustering Operation = "clustering"
	OpClean      Operation = "cleaning"
	OpArchive    Operation = "archival"
	OpRollback   Operation = "rollback"
	OpSavepoint  Operation = "savepoint and restore"
	// OpMetadata is keeping the metadata table current (hoodie.metadata.enable).
	OpMetadata Operation = "maintaining the metadata table"
)

// The two layouts.
var (
	LayoutV1 Layout = layoutV1{}
	LayoutV2 Layout = layoutV2{}
)

// LayoutOf returns the layout of a table version: 1 before version 8, 2 from 8 on
// (HoodieTableVersion.getTimelineLayoutVersion).
func LayoutOf(v spec.TableVersion) Layout {
	if v >= spec.TableVersion8 {
		return LayoutV2
	}
	return LayoutV1
}

// LayoutByVersion returns the layout numbered n (hoodie.timeline.layout.version).
func LayoutByVersion(n int) (Layout, bool) {
	switch n {
	case 1:
		return LayoutV1, true
	case 2:
		return LayoutV2, true
	}
	return nil, false
}

// Default folder names under .hoodie and the layout-2 timeline folder.
const (
	// DefaultTimelineFolder is hoodie.timeline.path's default (layout 2).
	DefaultTimelineFolder = "timeline"
)

type layoutV1 struct{}

func (layoutV1) Version() int                           { return 1 }
func (layoutV1) Dir(string) string                      { return MetaDir }
func (layoutV1) CompletionTimes() bool                  { return false }
func (layoutV1) LogFilesPerWrite() bool                 { return false }
func (layoutV1) Writes(Operation) bool                  { return true }
func (layoutV1) String() string                         { return "timeline layout 1" }
func (layoutV1) FileName(f spec.InstantFileName) string { return f.FileName(1) }

func (layoutV1) ArchiveDir(archiveFolder, _ string) string {
	if archiveFolder == "" {
		archiveFolder = DefaultArchiveFolder
	}
	return storage.Join(MetaDir, archiveFolder)
}

func (layoutV1) EncodeCommitMetadata(m *commitmeta.CommitMetadata) ([]byte, error) {
	return commitmeta.EncodeJSON(m)
}

func (layoutV1) RequestedReplaceSchema() avroschema.Record {
	return avroschema.RequestedReplaceMetadata
}

func (layoutV1) CleanSchemas() (avroschema.Record, avroschema.Record) {
	return avroschema.CleanerPlan, avroschema.CleanMetadata
}

func (layoutV1) RestorePlan() (avroschema.Record, int32) { return avroschema.RestorePlan, 1 }
func (layoutV1) RestoreByCompletion() bool               { return false }
func (layoutV1) ClusteringAction() spec.Action           { return spec.ActionReplaceCommit }
func (layoutV1) LSMHistory() bool                        { return false }

func (layoutV1) ArchiveFolderKey() string { return "hoodie.archivelog.folder" }

func (layoutV1) loadArchived(ctx context.Context, st storage.Storage, dir string) ([]ArchivedInstant, error) {
	return loadArchiveLogs(ctx, st, dir)
}

type layoutV2 struct{}

func (layoutV2) EncodeCommitMetadata(m *commitmeta.CommitMetadata) ([]byte, error) {
	return commitmeta.EncodeAvro(m)
}

// RequestedReplaceSchema: the schema Spark embeds in the v9 fixtures' replacecommit and
// clustering plans (format/commitmeta testdata v9_cow_*_requested*.avro).
func (layoutV2) RequestedReplaceSchema() avroschema.Record {
	return avroschema.ArchivedRequestedReplaceMetadata
}

func (layoutV2) CleanSchemas() (avroschema.Record, avroschema.Record) {
	return avroschema.CleanerPlanV8, avroschema.CleanMetadataV8
}

func (layoutV2) RestorePlan() (avroschema.Record, int32) { return avroschema.RestorePlanV8, 2 }
func (layoutV2) RestoreByCompletion() bool               { return true }
func (layoutV2) ClusteringAction() spec.Action           { return spec.ActionClustering }
func (layoutV2) LSMHistory() bool                        { return true }

func (layoutV2) ArchiveFolderKey() string { return "hoodie.timeline.history.path" }

func (layoutV2) loadArchived(ctx context.Context, st storage.Storage, dir string) ([]ArchivedInstant, error) {
	return loadLSMTimeline(ctx, st, dir)
}

func (layoutV2) Version() int           { return 2 }
func (layoutV2) CompletionTimes() bool  { return true }
func (layoutV2) LogFilesPerWrite() bool { return true }
func (layoutV2) String() string         { return "timeline layout 2" }

func (layoutV2) Dir(timelinePath string) string {
	if timelinePath == "" {
		timelinePath = DefaultTimelineFolder
	}
	return storage.Join(MetaDir, timelinePath)
}

func (l layoutV2) FileName(f spec.InstantFileName) string { return f.FileName(2) }

func (l layoutV2) ArchiveDir(historyFolder, timelinePath string) string {
	if historyFolder == "" {
		historyFolder = DefaultHistoryFolder
	}
	return storage.Join(l.Dir(timelinePath), historyFolder)
}

// Writes: hudi-go writes copy-on-write and merge-on-read tables of layout 2, compacts,
// clusters, cleans and archives them, rolls back their instants and savepoints and
// restores them, and keeps their metadata table (its files and record_index partitions)
// as Hudi 1.x lays it out (mdt/mdtwrite).
func (layoutV2) Writes(op Operation) bool {
	switch op {
	case OpWriteCOW, OpWriteMOR, OpCompaction, OpClustering, OpClean, OpArchive, OpRollback, OpSavepoint, OpMetadata:
		return true
	}
	return false
}

// UnsupportedError is the error for an operation a table's layout does not support.
func UnsupportedError(table string, v spec.TableVersion, l Layout, op Operation, unsupported error) error {
	return fmt.Errorf("table %s is version %d (%s): %s is %w", table, v, l, op, unsupported)
}
