package hudi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/services/archive"
	"github.com/hudi-go/hudi/services/clean"
	"github.com/hudi-go/hudi/services/clustering"
	"github.com/hudi-go/hudi/services/compaction"
	"github.com/hudi-go/hudi/spec"
)

// validateServiceSettings checks, before a write creates its instant, every setting that
// the inline table services after the commit parse: a setting they would refuse must
// refuse the write instead, or a retried write would commit its data twice.
//
// Java checks some of these when it builds the write config, whatever the services do
// (HoodieWriteConfig.Builder.validate in 0.14: keep.max.commits > keep.min.commits >
// cleaner.commits.retained, a known cleaner policy, not both hoodie.compact.inline and
// hoodie.compact.schedule.inline; HoodieClusteringConfig.Builder: not both
// hoodie.clustering.inline and hoodie.clustering.schedule.inline): those are checked
// unconditionally here too. The rest are hudi-go's own option checks of the services the
// settings enable (clean, archive, clustering, compaction), run early.
func (t *Table) validateServiceSettings(cfg *config.Config, settings map[string]string) error {
	var errs []error
	add := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	add("archival", config.ValidateArchival(cfg))
	if cfg.Bool(config.InlineCompact) && cfg.Bool(config.ScheduleInlineCompact) {
		errs = append(errs, fmt.Errorf("config: either %s or %s can be true, not both (as HoodieWriteConfig validates)",
			config.InlineCompact.Name, config.ScheduleInlineCompact.Name))
	}
	if cfg.Bool(config.InlineClustering) && cfg.Bool(config.ScheduleInlineClustering) {
		errs = append(errs, fmt.Errorf("config: either %s or %s can be true, not both (as HoodieClusteringConfig validates)",
			config.InlineClustering.Name, config.ScheduleInlineClustering.Name))
	}
	if cfg.Bool(config.AutoClean) {
		_, err := clean.OptionsFromConfig(cfg)
		add("inline clean ("+config.AutoClean.Name+"=true)", err)
	}
	if cfg.Bool(config.AutoArchive) {
		_, err := archive.OptionsFromConfig(cfg)
		add("inline archival ("+config.AutoArchive.Name+"=true)", err)
	}
	if cfg.Bool(config.InlineClustering) || cfg.Bool(config.ScheduleInlineClustering) {
		_, err := clustering.OptionsFromConfig(cfg)
		add("inline clustering", err)
	}
	if t.meta.Type == spec.MergeOnRead && (cfg.Bool(config.InlineCompact) || cfg.Bool(config.ScheduleInlineCompact)) {
		_, _, err := compactionOptions(settings)
		add("inline compaction", err)
		trigger := CompactionTrigger{Strategy: cfg.String(config.InlineCompactTriggerStrategy)}
		switch strings.ToUpper(trigger.Strategy) {
		case "", "NUM_COMMITS", "NUM_COMMITS_AFTER_LAST_REQUEST", "TIME_ELAPSED", "NUM_OR_TIME", "NUM_AND_TIME":
		default:
			add("inline compaction", fmt.Errorf("%s=%q: want NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST, TIME_ELAPSED, NUM_OR_TIME or NUM_AND_TIME",
				config.InlineCompactTriggerStrategy.Name, trigger.Strategy))
		}
	}
	return errors.Join(errs...)
}

// compactionOptions splits settings into the compaction plan's options and the config of
// the rest (the new base files' format and the merge memory).
func compactionOptions(settings map[string]string) (compaction.Options, *config.Config, error) {
	co, err := compaction.OptionsFromSettings(settings)
	if err != nil {
		return co, nil, err
	}
	rest := map[string]string{}
	for k, v := range settings {
		if k != compaction.KeyTargetIO && k != compaction.KeyStrategy && k != compaction.KeyLogSizeThreshold && k != compaction.KeyLogNumThreshold {
			rest[k] = v
		}
	}
	cfg := config.New()
	if _, err := cfg.SetAll(rest); err != nil {
		return co, nil, err
	}
	return co, cfg, nil
}

// ServiceError is the error of a write that committed but whose inline table service
// (compaction, clustering, clean or archival) failed after the commit. The write's data
// is in the table: retrying the write would write it twice. The CLI exits with
// ExitCommittedServiceFailed (3) and prints the write's result.
type ServiceError struct {
	Instant string // the committed write's instant
	Err     error
}

func (e *ServiceError) Error() string {
	return fmt.Sprintf("write %s committed; table service after it failed: %v", e.Instant, e.Err)
}

func (e *ServiceError) Unwrap() error { return e.Err }
