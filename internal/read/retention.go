package read

import (
	"context"
	"errors"
	"fmt"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
)

// ErrCleaned means a query asks for the table as of an instant whose files the cleaner
// may already have deleted: answering would silently return partial data.
var ErrCleaned = errors.New("instant is older than the cleaner's retention")

// earliestRetained returns the earliest instant the cleaner keeps fully queryable: the
// earliestCommitToRetain of the newest completed clean, or of a newer pending clean's
// plan (an inflight clean may already have deleted files). With no clean on the active
// timeline, the newest archived clean bounds it: archival moves cleans with the commits
// before them (on layout 2 every clean older than the last commit archived), and the files
// that clean deleted stay deleted. "" means no limit.
func earliestRetained(ctx context.Context, t *table.Table) (spec.InstantTime, spec.InstantTime, error) {
	ins := t.Timeline.Instants
	for i := len(ins) - 1; i >= 0; i-- {
		in := ins[i]
		if in.Action != spec.ActionClean {
			continue
		}
		var earliest string
		if in.IsCompleted() {
			b, err := t.Timeline.ReadCompleted(ctx, t.Storage, in)
			if err != nil {
				return "", "", err
			}
			if len(b) == 0 {
				continue
			}
			m, err := commitmeta.DecodeClean(b)
			if err != nil {
				return "", "", fmt.Errorf("clean metadata %s: %w", in.Time, err)
			}
			earliest = m.EarliestCommitToRetain
		} else {
			b, err := t.Timeline.ReadRequested(ctx, t.Storage, in)
			if err != nil || len(b) == 0 {
				continue // a plan being written or an empty one: nothing deleted yet
			}
			p, err := commitmeta.DecodeCleanerPlan(b)
			if err != nil {
				return "", "", fmt.Errorf("clean plan %s: %w", in.Time, err)
			}
			if p.EarliestInstantToRetain != nil {
				earliest = p.EarliestInstantToRetain.Timestamp
			}
		}
		if earliest != "" {
			return spec.InstantTime(earliest), in.Time, nil
		}
		if in.IsCompleted() {
			// A completed clean without a window (KEEP_LATEST_FILE_VERSIONS) bounds
			// nothing; older cleans' windows are older still.
			return "", "", nil
		}
	}
	return archivedEarliestRetained(ctx, t)
}

// archivedEarliestRetained is earliestRetained over the archived timeline: the
// earliestCommitToRetain of the newest archived clean with metadata.
func archivedEarliestRetained(ctx context.Context, t *table.Table) (spec.InstantTime, spec.InstantTime, error) {
	archived, err := t.Archived(ctx)
	if err != nil {
		return "", "", fmt.Errorf("archived timeline: %w", err)
	}
	for i := len(archived) - 1; i >= 0; i-- {
		a := archived[i]
		if a.Instant.Action != spec.ActionClean || len(a.Metadata) == 0 {
			continue
		}
		m, err := commitmeta.DecodeClean(a.Metadata)
		if err != nil {
			return "", "", fmt.Errorf("archived clean metadata %s: %w", a.Instant.Time, err)
		}
		return spec.InstantTime(m.EarliestCommitToRetain), a.Instant.Time, nil
	}
	return "", "", nil
}

// checkRetained fails a query as of asOf older than the cleaner's retention.
func checkRetained(ctx context.Context, t *table.Table, asOf spec.InstantTime, what string) error {
	data := t.Timeline.DataInstants()
	if len(data) == 0 || data[len(data)-1].Time.Compare(asOf) <= 0 {
		return nil // the latest state is always complete
	}
	if asOf.Less(data[0].Time) {
		// Before the first active commit the table is empty — unless archived commits are
		// at or before asOf. Archival only moves instants the cleaner no longer retains off
		// the active timeline, so those are exactly the ones the guard must refuse.
		archived, err := archivedDataAtOrBefore(ctx, t, asOf)
		if err != nil {
			return err
		}
		if !archived {
			return nil // nothing was committed yet, so nothing was cleaned from it
		}
	}
	earliest, clean, err := earliestRetained(ctx, t)
	if err != nil {
		return err
	}
	if earliest != "" && asOf.Less(earliest) {
		return fmt.Errorf("%s %s: %w (clean %s kept only what queries at %s and later need); the earliest instant that can be queried is %s",
			what, asOf, ErrCleaned, clean, earliest, earliest)
	}
	return nil
}
