package hudi

import (
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/services/archive"
	"github.com/hudi-go/hudi/internal/services/clustering"
	"github.com/hudi-go/hudi/internal/services/rollback"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
)

// Names for the types hudi's API hands out (issue 18). The implementation packages move
// under internal/, where a program outside this module cannot import them; these aliases
// let it still write down every type a Table method returns or takes. Aliases, not new
// types: a value is the same whether spelled hudi.FileSlice or by its package.
// TestPublicAPINameable fails when a type reachable from the API has no name here.

// Instants and the timeline.
type (
	// InstantTime is an instant's time, yyyyMMddHHmmssSSS.
	InstantTime = spec.InstantTime
	// Action is a timeline action (commit, deltacommit, clean, …).
	Action = spec.Action
	// State is an instant's state: requested, inflight or completed.
	State = spec.State
	// Instant is one instant of the active timeline.
	Instant = timeline.Instant
	// ArchivedInstant is one instant of the archived timeline (Table.Archived).
	ArchivedInstant = timeline.ArchivedInstant
	// InstantFileName is the parsed name of a timeline file.
	InstantFileName = spec.InstantFileName
	// Timeline is a snapshot of the active timeline (Table.Timeline).
	Timeline = timeline.Timeline
	// TimelineLayout is the timeline layout (hoodie.timeline.layout.version) of a Timeline.
	TimelineLayout = timeline.Layout
	// TimelineOperation is a change whose support depends on the timeline layout.
	TimelineOperation = timeline.Operation
	// AvroRecord is an Avro record schema of Hudi's metadata files.
	AvroRecord = avroschema.Record
)

// The actions of Hudi's timeline.
const (
	ActionCommit        = spec.ActionCommit
	ActionDeltaCommit   = spec.ActionDeltaCommit
	ActionReplaceCommit = spec.ActionReplaceCommit
	ActionClean         = spec.ActionClean
	ActionRollback      = spec.ActionRollback
	ActionSavepoint     = spec.ActionSavepoint
	ActionRestore       = spec.ActionRestore
	ActionCompaction    = spec.ActionCompaction
	ActionLogCompaction = spec.ActionLogCompaction
	ActionClustering    = spec.ActionClustering
	ActionIndexing      = spec.ActionIndexing
	ActionSchemaCommit  = spec.ActionSchemaCommit
)

// The states of an instant.
const (
	StateRequested = spec.StateRequested
	StateInflight  = spec.StateInflight
	StateCompleted = spec.StateCompleted
)

// The table and its configuration.
type (
	// TableType is COPY_ON_WRITE or MERGE_ON_READ.
	TableType = spec.TableType
	// TableVersion is hoodie.table.version.
	TableVersion = spec.TableVersion
)

// The table types.
const (
	CopyOnWrite = spec.CopyOnWrite
	MergeOnRead = spec.MergeOnRead
)

// The table versions hudi-go reads (it writes version 6).
const (
	TableVersion6 = spec.TableVersion6
	TableVersion8 = spec.TableVersion8
	TableVersion9 = spec.TableVersion9
)

// Files: the file-system view and the commit metadata.
type (
	// FileSystemView is the table's file groups as of an instant (Table.View).
	FileSystemView = fsview.View
	// Listing is the table's data files by partition (Table.Listing).
	Listing = fsview.Listing
	// PartitionFiles is one partition of a Listing.
	PartitionFiles = fsview.PartitionFiles
	// FileGroup is the file slices of one file ID.
	FileGroup = fsview.FileGroup
	// FileSlice is a base file and the log files written after it.
	FileSlice = fsview.FileSlice
	// BaseFile is a base (Parquet) file of a slice.
	BaseFile = fsview.BaseFile
	// LogFile is a log file of a slice.
	LogFile = fsview.LogFile
	// FileID identifies a file group.
	FileID = spec.FileID
	// WriteToken is the write token in a data file's name.
	WriteToken = spec.WriteToken
	// BaseFileName is the parsed name of a base file.
	BaseFileName = spec.BaseFileName
	// LogFileName is the parsed name of a log file.
	LogFileName = spec.LogFileName
	// CommitMetadata is the metadata of a completed commit (Table.CommitMetadata).
	CommitMetadata = commitmeta.CommitMetadata
	// WriteStat is the statistics of one file written by a commit.
	WriteStat = commitmeta.WriteStat
	// RuntimeStats is the timing part of a WriteStat.
	RuntimeStats = commitmeta.RuntimeStats
)

// Schema evolution: the internal schema and the changes of SchemaChange.
type (
	// InternalSchema is Hudi's evolving schema with column IDs (Table.InternalSchemaAt).
	InternalSchema = internalschema.Schema
	// SchemaField is a column of an InternalSchema.
	SchemaField = internalschema.Field
	// SchemaType is a column type of an InternalSchema.
	SchemaType = internalschema.Type
	// SchemaKind is the kind of a SchemaType.
	SchemaKind = internalschema.Kind
	// AddColumn is an ADD COLUMNS change (SchemaChange.Add).
	AddColumn = internalschema.AddColumn
	// UpdateColumn is an ALTER COLUMN change (SchemaChange.Update).
	UpdateColumn = internalschema.UpdateColumn
	// ColumnPosition is where an added or moved column goes.
	ColumnPosition = internalschema.Position
	// ColumnPositionKind is first, after or before a sibling, or none.
	ColumnPositionKind = internalschema.PositionKind
)

// The kinds of an InternalSchema type.
const (
	KindBoolean   = internalschema.Boolean
	KindInt       = internalschema.Int
	KindLong      = internalschema.Long
	KindFloat     = internalschema.Float
	KindDouble    = internalschema.Double
	KindDate      = internalschema.Date
	KindTime      = internalschema.Time
	KindTimestamp = internalschema.Timestamp
	KindString    = internalschema.String
	KindUUID      = internalschema.UUID
	KindBinary    = internalschema.Binary
	KindFixed     = internalschema.Fixed
	KindDecimal   = internalschema.Decimal
	KindRecord    = internalschema.Record
	KindArray     = internalschema.Array
	KindMap       = internalschema.Map
)

// The column positions of ColumnPosition.
const (
	NoPosition     = internalschema.NoPosition
	PositionFirst  = internalschema.First
	PositionAfter  = internalschema.After
	PositionBefore = internalschema.Before
)

// Constructors of SchemaType, for AddColumn and UpdateColumn.

// PrimitiveType is a type of kind k with no children, size or precision.
func PrimitiveType(k SchemaKind) *SchemaType { return internalschema.Primitive(k) }

// DecimalType is decimal(precision, scale).
func DecimalType(precision, scale int) *SchemaType { return internalschema.DecimalOf(precision, scale) }

// FixedType is fixed(size).
func FixedType(size int) *SchemaType { return internalschema.FixedOf(size) }

// RecordType is a struct of fields.
func RecordType(fields ...SchemaField) *SchemaType { return internalschema.RecordOf(fields...) }

// ArrayType is an array of element, whose column ID is elementID.
func ArrayType(elementID int, optional bool, element *SchemaType) *SchemaType {
	return internalschema.ArrayOf(elementID, optional, element)
}

// MapType is a map from string keys to value, with the key's and value's column IDs.
func MapType(keyID, valueID int, value *SchemaType, valueOptional bool) *SchemaType {
	return internalschema.MapOf(keyID, valueID, value, valueOptional)
}

// Writes and table services: the nested parts of their results.
type (
	// WritePhase names a step of a write (WriteProgress.Phase).
	WritePhase = write.Phase
	// ArchivedEntry names one instant an archival moved (ArchiveResult.InstantsArchived).
	ArchivedEntry = archive.ArchivedInstant
	// ClusteringPlan is a readable clustering plan (ClusterResult.Plan).
	ClusteringPlan = clustering.PlanSummary
	// ClusteringGroup is one group of a ClusteringPlan.
	ClusteringGroup = clustering.GroupSummary
	// RollbackStep is the rollback of one instant (RollbackResult.Rollbacks).
	RollbackStep = rollback.Step
)

// The phases of a write, in order.
const (
	PhaseInput    = write.PhaseInput
	PhaseIndex    = write.PhaseIndex
	PhaseWrite    = write.PhaseWrite
	PhaseCommit   = write.PhaseCommit
	PhaseServices = write.PhaseServices
)
