package archive

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// WriteLegacyArchive writes the instants of an LSM timeline history (layout 2) as one
// version-6 archive log in .hoodie/archived, as Hudi 1.x's downgrade to table version 6
// does (EightToSevenDowngradeHandler.downgradeFromLSMTimeline: every LSM row becomes one
// completed HoodieArchivedMetaEntry, MetadataConversionUtils.createMetaWrapper, flushed
// hoodie.commits.archival.batch records a block into the archive folder "archived" under
// .hoodie). It returns the log's path, "" when there was nothing to write.
//
// Java's flusher drops the row that arrives when its buffer is full (it flushes instead
// of adding it), losing one archived instant in every batch+1; hudi-go keeps every row.
func WriteLegacyArchive(ctx context.Context, st storage.Storage, archived []timeline.ArchivedInstant, batch int, o Options) (string, error) {
	if len(archived) == 0 {
		return "", nil
	}
	content, err := encodeLSMEntries(ctx, archived, batch)
	if err != nil {
		return "", err
	}
	o = o.withDefaults()
	ct := commit.NewTimeline(st, commit.TimelineOptions{Zone: o.TimelineZone, Logger: o.Logger})
	return ct.WriteArchiveLog(ctx, storage.Join(timeline.MetaDir, timeline.DefaultArchiveFolder), content)
}

// encodeLSMEntries builds one completed entry per archived instant: commitTime, the
// completed action, stateTransitionTime = the completion time, the metadata in the
// action's field, and the plan where createMetaWrapper keeps one (a clean's plan, a
// compaction's plan). A replacecommit's (or clustering's) metadata also fills
// HoodieInflightReplaceMetadata, as Java's converter does (it hands the completed
// metadata to getInflightCommitMetadata); its requested plan is not kept.
func encodeLSMEntries(ctx context.Context, archived []timeline.ArchivedInstant, batch int) ([]byte, error) {
	if batch <= 0 {
		batch = 10
	}
	b, err := newEntryBlocks(batch)
	if err != nil {
		return nil, err
	}
	for _, a := range archived {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := b.conv.lsmEntry(a)
		if err == nil {
			err = b.add(e)
		}
		if err != nil {
			return nil, fmt.Errorf("convert archived %s %s: %w", a.Instant.Action, a.Instant.Time, err)
		}
	}
	return b.bytes()
}

// lsmEntry is createMetaWrapper(metaClient, lsmTimelineRecord): the Avro metadata and
// plan bytes of the row re-expressed in the entry's records by field name.
func (c *converter) lsmEntry(a timeline.ArchivedInstant) (map[string]any, error) {
	e := map[string]any{}
	for _, fd := range entryFields() {
		e[fd.name] = nil
	}
	in := a.Instant
	e[fCommitTime] = string(in.Time)
	e[fActionState] = stateNames[spec.StateCompleted]
	if in.Completion != "" {
		e[fStateTransitionTime] = string(in.Completion)
	}
	action := in.Action.CompletedAction()
	var err error
	set := func(field string, data []byte) {
		if err != nil || len(data) == 0 {
			return
		}
		v, e2 := c.fromContainer(field, data)
		if e2 != nil {
			err = fmt.Errorf("%s: %w", field, e2)
			return
		}
		e[field] = v
	}
	switch action {
	case spec.ActionClean:
		e[fActionType] = string(spec.ActionClean)
		set(fCleanMetadata, a.Metadata)
		set(fCleanerPlan, a.Plan)
	case spec.ActionCommit, spec.ActionDeltaCommit:
		e[fActionType] = string(action)
		set(fCommitMetadata, a.Metadata)
		set(fCompactionPlan, a.Plan) // a compaction (or log compaction)
	case spec.ActionReplaceCommit, spec.ActionClustering:
		e[fActionType] = string(spec.ActionReplaceCommit)
		set(fReplaceCommitMetadata, a.Metadata)
		set(fInflightReplaceMetadata, a.Metadata)
	case spec.ActionRollback:
		e[fActionType] = string(spec.ActionRollback)
		set(fRollbackMetadata, a.Metadata)
	case spec.ActionSavepoint:
		e[fActionType] = string(spec.ActionSavepoint)
		set(fSavepointMetadata, a.Metadata)
	default:
		return nil, fmt.Errorf("action %s cannot be converted to a version 6 archive entry", action)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}
