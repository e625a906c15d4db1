package hudi

import (
	"context"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/services/compaction"
	"github.com/hudi-go/hudi/table"
	"github.com/hudi-go/hudi/write"
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

// Compact schedules and/or runs compaction of a merge-on-read table (table version 6).
func (t *Table) Compact(ctx context.Context, o CompactOptions) (*CompactResult, error) {
	if !o.Schedule && !o.Run {
		o.Schedule, o.Run = true, true
	}
	co, err := compaction.OptionsFromSettings(o.Settings)
	if err != nil {
		return nil, err
	}
	rest := map[string]string{}
	for k, v := range o.Settings {
		if k != compaction.KeyTargetIO {
			rest[k] = v
		}
	}
	cfg := config.New()
	if _, err := cfg.SetAll(rest); err != nil {
		return nil, err
	}
	co.Write = write.Options{
		Compression:     cfg.String(config.ParquetCompressionCodec),
		PageSize:        cfg.Long(config.ParquetPageSize),
		BlockSize:       cfg.Long(config.ParquetBlockSize),
		MaxFileSize:     cfg.Long(config.ParquetMaxFileSize),
		BloomType:       cfg.String(config.BloomFilterType),
		BloomNumEntries: cfg.Int(config.BloomNumEntries),
		BloomFPP:        cfg.Double(config.BloomFPP),
		BloomMaxEntries: cfg.Int(config.BloomDynamicMaxEntries),
		Now:             o.Now,
	}
	if tz, _ := t.meta.Config.Props.Get(table.KeyTimelineTimezone); strings.EqualFold(tz, "UTC") {
		co.Write.TimelineZone = time.UTC
	}
	res, err := compaction.Run(ctx, t.meta.Storage, o.Schedule, o.Run, co)
	if err != nil {
		return nil, err
	}
	if m, err := table.Open(ctx, t.meta.Storage); err == nil {
		t.meta = m
	}
	return res, nil
}
