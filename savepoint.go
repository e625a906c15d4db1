package hudi

import (
	"context"
	"log/slog"
	"time"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/services/savepoint"
)

// SavepointOp is create, delete or restore.
type SavepointOp = savepoint.Op

// Savepoint operations.
const (
	SavepointCreate  = savepoint.Create
	SavepointDelete  = savepoint.Delete
	SavepointRestore = savepoint.Restore
)

// SavepointOptions configure Savepoint.
type SavepointOptions struct {
	// User and Comment are recorded in a new savepoint ("default" when empty).
	User, Comment string
	Logger        *slog.Logger
	// DryRun (restore only) lists the instants the restore would roll back and changes
	// nothing.
	DryRun bool
	// Settings take hoodie.* keys: the lock settings (hoodie.write.lock.*,
	// hoodie.write.concurrency.mode) of the table's writers, whose lock the operation takes.
	Settings map[string]string
	// Now replaces the clock (tests).
	Now func() time.Time
}

// SavepointResult summarizes a savepoint operation.
type SavepointResult = savepoint.Result

// Savepoint creates or deletes the savepoint of a completed commit (17-digit instant), or
// restores the table to it: every commit, deltacommit, replacecommit and compaction after
// the savepoint is rolled back under one restore instant, and reads return the table as
// of the savepoint.
func (t *Table) Savepoint(ctx context.Context, op SavepointOp, instant string, o SavepointOptions) (*SavepointResult, error) {
	if _, err := savepoint.ParseOp(string(op)); err != nil {
		return nil, err
	}
	in, err := exactInstant(instant)
	if err != nil {
		return nil, err
	}
	cfg, err := settingsConfig(o.Settings, o.Logger)
	if err != nil {
		return nil, err
	}
	var res *SavepointResult
	so := savepoint.Options{User: o.User, Comment: o.Comment, DryRun: o.DryRun, Now: o.Now, Logger: o.Logger}
	run := func(c *commit.Concurrency) (err error) {
		if c != nil {
			if so.Metadata, err = t.metadataWriter(cfg, *c, o.Now, o.Logger, false); err != nil {
				return err
			}
		}
		res, err = savepoint.Run(ctx, t.current().Storage, op, in, so)
		return err
	}
	return res, t.change(ctx, cfg, o.Logger, "savepoint "+string(op), o.DryRun, run)
}
