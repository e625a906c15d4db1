package timeline

// The archived timeline holds the instants that archival moved out of the active timeline.
// Facts below come from Java Hudi sources (apache/hudi):
//   - layout 1: ArchivedTimelineLoaderV1.java, ArchivedTimelineV1.java,
//     MetadataConversionUtils.java, HoodieArchivedMetaEntry.avsc, HoodieMergeArchiveFilePlan.avsc
//   - layout 2: LSMTimeline.java, ArchivedTimelineLoaderV2.java, HoodieLSMTimelineManifest.java,
//     HoodieLSMTimelineInstant.avsc, ActiveAction.java, TestTimelinePathProvider.java
// Anything not confirmed there is marked UNVERIFIED.

import (
	"context"
	"sort"

	"github.com/hudi-go/hudi/storage"
)

// Default folder names of the archived timeline, relative to the folder they live in.
const (
	// DefaultArchiveFolder is hoodie.archivelog.folder's default: layout 1 archives live in
	// .hoodie/archived (TimelinePathProviderV1 joins the property onto .hoodie).
	DefaultArchiveFolder = "archived"
	// DefaultHistoryFolder is hoodie.timeline.history.path's default: the layout 2 LSM
	// timeline lives in .hoodie/timeline/history (Java's TestTimelinePathProvider expects
	// exactly that path with default settings).
	DefaultHistoryFolder = "history"
)

// ArchivedInstant is one instant of the archived timeline.
type ArchivedInstant struct {
	// Instant has Time, Action (the action of the most advanced archived state: a completed
	// compaction is a "commit"), State and Requested. Completion is set for layout 2 only.
	// Its timeline files are absent (File reports false): the instant lives in an archive.
	Instant Instant
	// Metadata is the metadata of the instant's most advanced state, nil when none was
	// archived (Java archives an empty completed file as an entry without metadata).
	//
	// Layout 2: the `metadata` bytes of the LSM row exactly as stored, which Java copies from
	// the completed instant file (an Avro object container on v8+ tables).
	//
	// Layout 1: the entry holds the metadata as a nested Avro record (hoodieCommitMetadata,
	// hoodieReplaceCommitMetadata, hoodieCleanMetadata, hoodieRollbackMetadata,
	// hoodieSavePointMetadata, hoodieIndexCommitMetadata, the deprecated
	// hoodieCompactionMetadata, or HoodieInflightReplaceMetadata for an inflight replace).
	// It is returned as a one-datum Avro object container (null codec) whose writer schema is
	// that field's record schema, cut from the block's SCHEMA header with the named types it
	// uses inlined, and whose datum is the field's bytes exactly as the entry stored them.
	// That is the format of v8+ timeline files, so the format/commitmeta decoders read it as
	// they read any other timeline file. (Java's ArchivedTimelineV1 instead hands out the
	// record's toString() JSON, or binary Avro for compaction plans.)
	Metadata []byte
	// Plan is the instant's plan, nil when none was archived.
	//
	// Layout 2: the `plan` bytes of the LSM row as stored (Java's createLSMTimelineInstant:
	// clean plan, compaction/log compaction plan, requested replace metadata, or — when the
	// inflight file of a replacecommit/clustering is non-empty — its inflight commit
	// metadata, which overrides the requested one).
	//
	// Layout 1: the plan record of the requested entry (else of the inflight entry):
	// hoodieCompactionPlan, hoodieCleanerPlan or hoodieRequestedReplaceMetadata, wrapped as
	// an Avro object container like Metadata.
	Plan []byte
	// StateTransitionTime is the layout 1 entry's stateTransitionTime, when set. Hudi 1.x
	// writes the instant's completion time there; what 0.14/0.15 wrote (the instant file's
	// modification time, formatted as an instant time) is UNVERIFIED, so it is kept apart
	// from Instant.Completion.
	StateTransitionTime string
	// Source is the archive file the instant's most advanced state was read from, relative
	// to the storage root.
	Source string
}

// LoadArchived reads the archived instants of a table whose timeline has the given layout,
// sorted by instant time. archiveFolder is the table's hoodie.archivelog.folder for layout
// 1 (relative to .hoodie) or its hoodie.timeline.history.path for layout 2 (relative to the
// timeline folder); "" means the default. timelinePath is hoodie.timeline.path as for Load
// (layout 2 only).
//
// A missing archive folder means no archived instants, not an error: most tables never
// archive. Treating an explicitly empty property like an unset one is UNVERIFIED against
// Java (which would join "" and read .hoodie itself).
func LoadArchived(ctx context.Context, st storage.Storage, layout Layout, archiveFolder, timelinePath string) ([]ArchivedInstant, error) {
	return layout.loadArchived(ctx, st, layout.ArchiveDir(archiveFolder, timelinePath))
}

// sortArchived orders archived instants by time, then action.
func sortArchived(out []ArchivedInstant) {
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a].Instant, out[b].Instant
		if c := x.Time.Compare(y.Time); c != 0 {
			return c < 0
		}
		return x.Action < y.Action
	})
}
