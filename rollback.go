package hudi

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/services/rollback"
	"github.com/hudi-go/hudi/internal/spec"
)

// RollbackOptions configure Rollback.
type RollbackOptions struct {
	// IncludeLater rolls back every later commit, deltacommit, replacecommit and
	// compaction first (newest first) instead of refusing when there are any.
	IncludeLater bool
	// DryRun lists the instants the rollback would undo, in order, and changes nothing.
	DryRun bool
	// Settings take hoodie.* keys: the lock settings (hoodie.write.lock.*,
	// hoodie.write.concurrency.mode) of the table's writers, whose lock the rollback takes.
	Settings map[string]string
	Logger   *slog.Logger
	// Now replaces the clock (tests).
	Now func() time.Time
}

// RollbackResult summarizes a rollback.
type RollbackResult = rollback.Result

// Rollback undoes a completed or pending commit, deltacommit, replacecommit or compaction
// of a table-version-6 table (17-digit instant). It refuses savepointed instants, instants
// older than a savepoint, and — without IncludeLater — instants with later ones after them.
func (t *Table) Rollback(ctx context.Context, instant string, o RollbackOptions) (*RollbackResult, error) {
	in, err := exactInstant(instant)
	if err != nil {
		return nil, err
	}
	cfg, err := settingsConfig(o.Settings, o.Logger)
	if err != nil {
		return nil, err
	}
	var res *RollbackResult
	ro := rollback.Options{IncludeLater: o.IncludeLater, DryRun: o.DryRun, Now: o.Now, Logger: o.Logger}
	run := func(c *commit.Concurrency) (err error) {
		if c != nil {
			if ro.Metadata, err = t.metadataWriter(cfg, *c, o.Now, o.Logger, false); err != nil {
				return err
			}
		}
		res, err = rollback.Run(ctx, t.current().Storage, in, ro)
		return err
	}
	// Later calls through this handle see the new timeline, also after a partial rollback.
	return res, t.change(ctx, cfg, o.Logger, "rollback", o.DryRun, run)
}

// exactInstant accepts the instant forms Hudi prints (17 or 14 digits); a date would name
// no instant of the timeline.
func exactInstant(s string) (spec.InstantTime, error) {
	if len(s) != 17 && len(s) != 14 {
		return "", fmt.Errorf("instant %q: want the 17-digit instant time as the timeline shows it", s)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return "", fmt.Errorf("instant %q: want the 17-digit instant time as the timeline shows it", s)
		}
	}
	return spec.InstantTime(s), nil
}
