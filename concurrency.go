package hudi

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hudi-go/hudi/commit"
	"github.com/hudi-go/hudi/config"
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

// underLock runs fn holding the table lock, as Java's table services do in their
// transactions: clean, archive, rollback and savepoint operations change the timeline
// and delete files, and run as one critical section.
// change runs one user-driven change of the table: run alone for a dry run, else under
// the table lock (underLock); then the handle re-reads the table, also after a partial
// change, and a failed re-read is reported with the change's own error.
func (t *Table) change(ctx context.Context, cfg *config.Config, logger *slog.Logger, what string, dryRun bool, run func() error) error {
	var err error
	if dryRun {
		err = run()
	} else {
		err = t.underLock(ctx, cfg, logger, what, run)
	}
	return errors.Join(err, t.reload(ctx))
}

func (t *Table) underLock(ctx context.Context, cfg *config.Config, logger *slog.Logger, what string, fn func() error) error {
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
	return fn()
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
