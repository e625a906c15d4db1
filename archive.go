package hudi

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/services/archive"
	"github.com/hudi-go/hudi/internal/timeline"
)

// ArchiveOptions select what Archive does.
type ArchiveOptions struct {
	// DryRun lists the instants that would be archived without touching the table.
	DryRun bool
	// Settings take hoodie.* keys: hoodie.keep.min.commits, hoodie.keep.max.commits,
	// hoodie.commits.archival.batch (version 6), hoodie.timeline.compaction.batch.size
	// (versions 8, 9), hoodie.archive.beyond.savepoint, the cleaner's retention (which
	// bounds archival) and the compaction trigger of MOR tables.
	Settings map[string]string
	Logger   *slog.Logger
}

// ArchiveResult summarizes an archival.
type ArchiveResult = archive.Result

// Archive moves old instants from the active timeline to the archived timeline: on table
// version 6 into .hoodie/archived as Hudi 0.14 does, on versions 8 and 9 into the LSM
// timeline history (.hoodie/timeline/history) as Hudi 1.x does.
func (t *Table) Archive(ctx context.Context, o ArchiveOptions) (*ArchiveResult, error) {
	cfg := config.New()
	warnings, err := cfg.SetAll(o.Settings)
	if err != nil {
		return nil, err
	}
	logWarnings(o.Logger, warnings)
	return t.archive(ctx, cfg, o.DryRun, o.Logger)
}

func (t *Table) archive(ctx context.Context, cfg *config.Config, dryRun bool, logger *slog.Logger) (*ArchiveResult, error) {
	ao, err := archive.OptionsFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	ao.Logger = logger
	ao.TimelineZone = t.current().Config.TimelineZone()
	var res *ArchiveResult
	run := func() (err error) {
		res, err = archive.Run(ctx, t.current().Storage, dryRun, ao)
		return err
	}
	if dryRun {
		err = run()
	} else {
		err = t.underLock(ctx, cfg, logger, "archive", run)
	}
	if err != nil {
		return res, errors.Join(err, t.reload(ctx)) // part of the archival may have happened
	}
	if !dryRun && len(res.InstantsArchived) > 0 {
		// Only an archival that moved instants changes the active timeline; most commits
		// archive nothing and the handle is still current.
		return res, t.reload(ctx)
	}
	return res, nil
}

// inlineArchive archives after a commit when hoodie.archive.automatic is on (the default),
// as Java's postCommit does after cleaning. With hoodie.fail.on.timeline.archiving=false a
// failed archival is only logged.
//
// It reports no change to the caller: archive re-reads the handle itself when it
// changed the timeline.
func (t *Table) inlineArchive(ctx context.Context, cfg *config.Config, o WriteOptions) (bool, error) {
	if !cfg.Bool(config.AutoArchive) || !t.current().Timeline.Layout.Writes(timeline.OpArchive) {
		return false, nil // a layout not archived yet: an explicit setting was refused before the write
	}
	_, err := t.archive(ctx, cfg, false, o.Logger)
	if err != nil && !cfg.Bool(config.FailOnTimelineArchiving) {
		l := o.Logger
		if l == nil {
			l = slog.Default()
		}
		l.Warn("archiving the timeline failed", "error", err)
		return false, nil
	}
	return false, err
}
