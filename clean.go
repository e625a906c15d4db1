package hudi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/services/clean"
	"github.com/hudi-go/hudi/internal/timeline"
)

// CleanOptions select what Clean does.
type CleanOptions struct {
	// DryRun reports what would be deleted and changes nothing.
	DryRun bool
	// Settings take hoodie.* keys: hoodie.cleaner.policy, hoodie.cleaner.commits.retained,
	// hoodie.cleaner.fileversions.retained, hoodie.cleaner.hours.retained,
	// hoodie.clean.max.commits, hoodie.cleaner.policy.failed.writes.
	Settings map[string]string
	// Now replaces the clock (tests).
	Now func() time.Time
}

// CleanResult summarizes a clean.
type CleanResult = clean.Result

// Clean deletes the file slices no query within the retention needs any more (table
// version 6): it finishes pending cleans, then plans and runs a new one when enough
// commits happened since the last.
func (t *Table) Clean(ctx context.Context, o CleanOptions) (*CleanResult, error) {
	cfg := config.New()
	if _, err := cfg.SetAll(o.Settings); err != nil {
		return nil, err
	}
	co, err := clean.OptionsFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	co.Now = o.Now
	var res *CleanResult
	if o.DryRun {
		res, err = clean.DryRun(ctx, t.current().Storage, co)
	} else {
		err = t.underLockWith(ctx, cfg, nil, "clean", func(c commit.Concurrency) (err error) {
			if co.Metadata, err = t.metadataWriter(cfg, c, o.Now, nil, false); err != nil {
				return err
			}
			res, err = clean.Run(ctx, t.current().Storage, co)
			return err
		})
	}
	return res, errors.Join(err, t.reload(ctx))
}

// inlineClean runs a clean after a commit when hoodie.clean.automatic is on (Hudi's
// default), with the write's settings. hoodie.clean.async is ignored: the clean always
// runs inline, before Write returns.
// It reports whether the timeline changed (a clean completed or a failed write was rolled
// back).
func (t *Table) inlineClean(ctx context.Context, cfg *config.Config, o WriteOptions) (bool, error) {
	if !cfg.Bool(config.AutoClean) || !t.current().Timeline.Layout.Writes(timeline.OpClean) {
		return false, nil // a table hudi-go writes but does not clean yet: never fail a write here
	}
	co, err := clean.OptionsFromConfig(cfg)
	if err != nil {
		return false, err
	}
	co.Now, co.Logger = o.Now, o.Logger
	var res *CleanResult
	err = t.underLockWith(ctx, cfg, o.Logger, "inline clean", func(c commit.Concurrency) (err error) {
		if co.Metadata, err = t.metadataWriter(cfg, c, o.Now, o.Logger, false); err != nil {
			return err
		}
		res, err = clean.Run(ctx, t.current().Storage, co)
		return err
	})
	if err != nil {
		return true, fmt.Errorf("inline clean: %w", err)
	}
	return res.Instant != "" || len(res.RolledBack) > 0, nil
}
