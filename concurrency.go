package hudi

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
)

// concurrency opens the table lock and concurrency settings an operation with cfg uses
// (commit.ConcurrencyFromConfig); the caller closes it.
func (t *Table) concurrency(cfg *config.Config, logger *slog.Logger) (commit.Concurrency, error) {
	c, err := commit.ConcurrencyFromConfig(cfg, t.current().Storage, t.current().Config.Name())
	if err != nil {
		return c, err
	}
	if c.Lock != nil {
		c.Lock.SetLogger(logger)
	}
	return c, nil
}

// change runs one user-driven change of the table: run alone for a dry run (with a nil
// concurrency), else under the table lock (underLockWith, handing run the operation's
// concurrency so that it can keep the metadata table current under the same lock); then
// the handle re-reads the table, also after a partial change, and a failed re-read is
// reported with the change's own error.
func (t *Table) change(ctx context.Context, cfg *config.Config, logger *slog.Logger, what string, dryRun bool, run func(c *commit.Concurrency) error) error {
	var err error
	if dryRun {
		err = run(nil)
	} else {
		err = t.underLockWith(ctx, cfg, logger, what, func(c commit.Concurrency) error { return run(&c) })
	}
	return errors.Join(err, t.reload(ctx))
}

// underLock runs fn holding the table lock, as Java's table services do in their
// transactions: clean, archive, rollback and savepoint operations change the timeline
// and delete files, and run as one critical section.
func (t *Table) underLock(ctx context.Context, cfg *config.Config, logger *slog.Logger, what string, fn func() error) error {
	return t.underLockWith(ctx, cfg, logger, what, func(commit.Concurrency) error { return fn() })
}

// underLockWith is underLock handing fn the operation's concurrency (its lock is held):
// an operation that maintains the metadata table changes it under the same lock.
func (t *Table) underLockWith(ctx context.Context, cfg *config.Config, logger *slog.Logger, what string, fn func(commit.Concurrency) error) error {
	c, err := t.concurrency(cfg, logger)
	if err != nil {
		return err
	}
	defer c.Close()
	release, err := c.Timeline(t.current().Storage, nil, nil, logger).Lock(ctx, what)
	if err != nil {
		return err
	}
	defer release()
	return fn(c)
}

// settingsConfig parses hoodie.* settings into a config, logging unknown keys.
func settingsConfig(settings map[string]string, logger *slog.Logger) (*config.Config, error) {
	cfg := config.New()
	warnings, err := cfg.SetAll(settings)
	if err != nil {
		return nil, err
	}
	logWarnings(logger, warnings)
	return cfg, nil
}
