package compaction_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/services/compaction"
	"github.com/hudi-go/hudi/internal/write"
)

// TestOptionsFromConfig: the plan's settings come from package config's keys
// (config.TargetIOPerCompactionInMB, CompactionStrategy and the two thresholds), with
// their registered defaults, and values compaction cannot honour are refused.
func TestOptionsFromConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     compaction.Options // Strategy, thresholds and TargetIOMB only
		err      string
	}{
		{"defaults", nil, compaction.Options{Strategy: compaction.StrategyLogFileSize, TargetIOMB: 512000}, ""},
		{"set", map[string]string{
			config.CompactionStrategy.Name:             "org.apache.hudi.table.action.compact.strategy.UnBoundedCompactionStrategy",
			config.CompactionLogFileSizeThreshold.Name: "1048576",
			config.CompactionLogFileNumThreshold.Name:  "3",
			config.TargetIOPerCompactionInMB.Name:      "100",
		}, compaction.Options{Strategy: compaction.StrategyUnBounded, LogSizeThreshold: 1 << 20, LogNumThreshold: 3, TargetIOMB: 100}, ""},
		{"size with a unit, as the registry's Size kind reads it",
			map[string]string{config.CompactionLogFileSizeThreshold.Name: "2MB"},
			compaction.Options{Strategy: compaction.StrategyLogFileSize, LogSizeThreshold: 2 << 20, TargetIOMB: 512000}, ""},
		{"day based", map[string]string{config.CompactionStrategy.Name: "DayBasedCompactionStrategy"}, compaction.Options{}, "DayBased"},
		{"negative threshold", map[string]string{config.CompactionLogFileNumThreshold.Name: "-1"}, compaction.Options{}, "non-negative"},
		{"no IO", map[string]string{config.TargetIOPerCompactionInMB.Name: "0"}, compaction.Options{}, "positive number of MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.New()
			if _, err := cfg.SetAll(tc.settings); err != nil {
				t.Fatal(err)
			}
			got, err := compaction.OptionsFromConfig(cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if tc.name == "day based" && !errors.Is(err, write.ErrUnsupported) {
					t.Errorf("err = %v, want ErrUnsupported", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Strategy != tc.want.Strategy || got.LogSizeThreshold != tc.want.LogSizeThreshold ||
				got.LogNumThreshold != tc.want.LogNumThreshold || got.TargetIOMB != tc.want.TargetIOMB {
				t.Errorf("got strategy %s, thresholds %d/%d, target %d MB; want %s, %d/%d, %d MB", got.Strategy,
					got.LogSizeThreshold, got.LogNumThreshold, got.TargetIOMB, tc.want.Strategy,
					tc.want.LogSizeThreshold, tc.want.LogNumThreshold, tc.want.TargetIOMB)
			}
		})
	}
}
