package hudi

import (
	"log/slog"
	"strings"
	"time"

	"github.com/hudi-go/hudi/commit"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/mdt/mdtwrite"
	"github.com/hudi-go/hudi/table"
)

// metadataWriter returns what keeps the table's metadata table current through an
// operation with the settings cfg (hoodie.metadata.enable, default true, as Java 0.14), or
// nil when the operation runs with the metadata table disabled (table.PrepareChangeFor then
// deletes it, as Java does). c is the operation's concurrency: the metadata table changes
// under its lock, which the operation holds when it commits.
//
// A write (forWrite) also runs the metadata table's own compaction, clean and archival
// when they are due, as Java's write client does when it starts a write.
func (t *Table) metadataWriter(cfg *config.Config, c commit.Concurrency, now func() time.Time, logger *slog.Logger, forWrite bool) (table.MetadataWriter, error) {
	if !mdtwrite.Enabled(cfg) {
		return nil, nil
	}
	mo, err := mdtwrite.OptionsFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	mo.Services = forWrite
	mo.Now, mo.Logger, mo.Zone = now, logger, t.timelineZone()
	if c.Lock != nil {
		mo.Lock = c.Timeline(t.meta.Storage, nil, nil, logger).Lock
	}
	w, err := mdtwrite.New(t.meta.Storage, mo)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// timelineZone is the table's timeline time zone (hoodie.table.timeline.timezone: UTC,
// else the local zone, Hudi 0.14's default).
func (t *Table) timelineZone() *time.Location {
	if tz, _ := t.meta.Config.Props.Get(table.KeyTimelineTimezone); strings.EqualFold(tz, "UTC") {
		return time.UTC
	}
	return time.Local
}
