package hudi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/services/compaction"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/internal/write/index"
)

// CompactOptions select what Compact does. With neither Schedule nor Run it does both.
type CompactOptions struct {
	Schedule bool // plan a compaction of every file group with log files
	Run      bool // execute pending compactions
	// Settings take hoodie.* keys: hoodie.compaction.target.io and the Parquet/bloom
	// settings of the new base files.
	Settings map[string]string
	// Now replaces the clock (tests).
	Now func() time.Time
}

// CompactResult summarizes a compaction.
type CompactResult = compaction.Result

// Compact schedules and/or runs compaction of a merge-on-read table (table version 6, 8 or 9).
func (t *Table) Compact(ctx context.Context, o CompactOptions) (*CompactResult, error) {
	if !o.Schedule && !o.Run {
		o.Schedule, o.Run = true, true
	}
	cfg := config.New()
	if _, err := cfg.SetAll(o.Settings); err != nil {
		return nil, err
	}
	co, err := compaction.OptionsFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	co.MaxLogMemory = cfg.Long(config.MergeMaxMemory)
	if cfg.IsSet(config.CompactionMaxMemory) {
		co.MaxLogMemory = cfg.Long(config.CompactionMaxMemory)
	}
	co.SpillDir = cfg.String(config.SpillableMapPath)
	// The explicit settings fill the key generator settings a table without meta fields
	// lacks in hoodie.properties (services/compaction.virtualKeyOptions).
	co.Write = write.Options{Now: o.Now, WriterProps: cfg.Explicit(),
		// The writers' index: with BUCKET, a table with CDC on logs the compaction's
		// changes (write.NewChangeLog).
		IndexType: index.Type(cfg.String(config.IndexType)),
		// The CDC log's block size.
		LogDataBlockMaxSize: cfg.Long(config.LogFileDataBlockMaxSize)}
	co.Write.SetFileFormat(cfg)
	co.Write.TimelineZone = t.current().Config.TimelineZone()
	if co.Concurrency, err = t.concurrency(cfg, nil); err != nil {
		return nil, err
	}
	defer co.Concurrency.Close()
	if co.Write.Metadata, err = t.metadataWriter(cfg, co.Concurrency, o.Now, nil, false); err != nil {
		return nil, err
	}
	res, err := compaction.Run(ctx, t.current().Storage, o.Schedule, o.Run, co)
	if err != nil {
		return nil, err
	}
	return res, t.reload(ctx)
}

// inlineCompact is Java's inline compaction for merge-on-read tables
// (hoodie.compact.inline, or hoodie.compact.schedule.inline to plan only), run after a
// write when the trigger strategy says enough delta commits or time have passed since the
// last compaction (ScheduleCompactionActionExecutor.needCompact in Hudi 0.14).
//
// It reports no change to the caller: Compact re-reads the handle itself after changing
// the table.
func (t *Table) inlineCompact(ctx context.Context, cfg *config.Config, o WriteOptions) (bool, error) {
	if t.current().Type != spec.MergeOnRead {
		return false, nil
	}
	run, schedule := cfg.Bool(config.InlineCompact), cfg.Bool(config.ScheduleInlineCompact)
	if !run && !schedule {
		return false, nil
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	loc := t.current().Config.TimelineZone()
	trigger := CompactionTrigger{
		Strategy:        cfg.String(config.InlineCompactTriggerStrategy),
		MaxDeltaCommits: cfg.Int(config.InlineCompactNumDeltaCommits),
		MaxDeltaSeconds: cfg.Long(config.InlineCompactTimeDeltaSeconds),
	}
	need, err := trigger.Due(t.current().Timeline, spec.InstantTimeOf(now(), loc), loc)
	if err != nil || !need {
		return false, err
	}
	_, err = t.Compact(ctx, CompactOptions{Schedule: true, Run: run, Settings: o.Settings, Now: o.Now})
	return false, err
}

// CompactionTrigger decides when inline compaction is due
// (hoodie.compact.inline.trigger.strategy and its two limits).
type CompactionTrigger struct {
	Strategy        string // NUM_COMMITS (default), NUM_COMMITS_AFTER_LAST_REQUEST, TIME_ELAPSED, NUM_OR_TIME, NUM_AND_TIME
	MaxDeltaCommits int
	MaxDeltaSeconds int64
}

// Due counts the delta commits (any state, as Java's delta-commit timeline does) after the
// last completed commit or replacecommit — or all of them and the time since the first
// when there is none — and applies the strategy at instant now.
func (c CompactionTrigger) Due(tl *timeline.Timeline, now spec.InstantTime, loc *time.Location) (bool, error) {
	var last spec.InstantTime
	var lastRequest spec.InstantTime
	for _, in := range tl.Instants {
		if in.IsCompleted() && (in.Action == spec.ActionCommit || in.Action == spec.ActionReplaceCommit) {
			last = in.Time
		}
		if in.Action == spec.ActionCompaction || in.Requested == spec.ActionCompaction {
			lastRequest = in.Time
		}
	}
	count := func(after spec.InstantTime) (n int, first spec.InstantTime) {
		for _, in := range tl.Instants {
			if in.Action == spec.ActionDeltaCommit && (after == "" || in.Time.Compare(after) > 0) {
				if first == "" {
					first = in.Time
				}
				n++
			}
		}
		return n, first
	}
	n, first := count(last)
	if n == 0 && last == "" {
		return false, nil // no delta commit yet: nothing to compact
	}
	ref := last
	if ref == "" {
		ref = first
	}
	elapsed := func() (int64, error) {
		a, err := now.Time(loc)
		if err != nil {
			return 0, err
		}
		b, err := ref.Time(loc)
		if err != nil {
			return 0, err
		}
		return int64(a.Sub(b) / time.Second), nil
	}
	switch strings.ToUpper(c.Strategy) {
	case "", "NUM_COMMITS":
		return n >= c.MaxDeltaCommits, nil
	case "NUM_COMMITS_AFTER_LAST_REQUEST":
		m, _ := count(lastRequest)
		return m >= c.MaxDeltaCommits, nil
	case "TIME_ELAPSED":
		s, err := elapsed()
		return s >= c.MaxDeltaSeconds, err
	case "NUM_OR_TIME":
		s, err := elapsed()
		return n >= c.MaxDeltaCommits || s >= c.MaxDeltaSeconds, err
	case "NUM_AND_TIME":
		s, err := elapsed()
		return n >= c.MaxDeltaCommits && s >= c.MaxDeltaSeconds, err
	}
	return false, fmt.Errorf("hoodie.compact.inline.trigger.strategy %q: want NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST, TIME_ELAPSED, NUM_OR_TIME or NUM_AND_TIME", c.Strategy)
}
