package hudi

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/upgrade"
	"github.com/hudi-go/hudi/internal/write"
)

// autoUpgrade upgrades the table before a write whose hoodie.write.table.version is
// above the table's version, as Java's writers do when hoodie.write.auto.upgrade is true
// (its default; UpgradeDowngrade.needsUpgrade, run by the write client before the write).
// With hoodie.write.auto.upgrade=false Java skips the upgrade, writes the table's version
// and logs a warning; hudi-go refuses instead, so that hoodie.write.table.version is never
// accepted and ignored.
func (t *Table) autoUpgrade(ctx context.Context, o WriteOptions) error {
	cfg := config.New()
	if _, err := cfg.SetAll(o.Settings); err != nil {
		return err
	}
	if !cfg.IsSet(config.WriteTableVersion) {
		return nil
	}
	want := cfg.Int(config.WriteTableVersion)
	cur := int(t.current().Version)
	if want <= cur {
		return nil // equal: nothing to do; lower: refused by checkTableSettings
	}
	if !cfg.Bool(config.WriteAutoUpgrade) {
		return fmt.Errorf("%s=%d on a table of version %d with %s=false: Java would skip the upgrade and write version %d; hudi-go refuses rather than ignore %s (set %s=true, or run hudi upgrade TABLE --to %d)",
			config.WriteTableVersion.Name, want, cur, config.WriteAutoUpgrade.Name, cur, config.WriteTableVersion.Name, config.WriteAutoUpgrade.Name, want)
	}
	if err := t.checkWriteAfterUpgrade(cfg, o, spec.TableVersion(want)); err != nil {
		return fmt.Errorf("%s=%d on a table of version %d: the write would be refused after the upgrade, so the table is not upgraded: %w",
			config.WriteTableVersion.Name, want, cur, err)
	}
	res, err := t.Upgrade(ctx, VersionChangeOptions{To: want, Settings: o.Settings, Now: o.Now, Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("upgrade before the write (%s=%d, %s=true): %w", config.WriteTableVersion.Name, want, config.WriteAutoUpgrade.Name, err)
	}
	if o.Logger != nil {
		o.Logger.Info("upgraded the table before the write", "from", res.From, "to", res.To)
	}
	return nil
}

// checkWriteAfterUpgrade runs, before the upgrade, the checks of the write's settings
// that depend on the table version, against the table as the upgrade would leave it: its
// hoodie.properties (merge mode, ordering fields: checkTableSettings) and the services its
// timeline layout has (an explicit hoodie.metadata.enable=true, the metadata partitions
// hudi-go writes on version 6 only, inline services). A write
// that would be refused after the upgrade is refused with the table unchanged.
func (t *Table) checkWriteAfterUpgrade(cfg *config.Config, o WriteOptions, to spec.TableVersion) error {
	cur := t.current()
	upgraded, err := upgrade.Properties(cur.Config.Props, cur.Version, to)
	if err != nil {
		return err
	}
	if cfg.IsSet(config.PartitionPathField) {
		upgrade.WriterPartitionFields(upgraded, cur.Version, to, cfg.String(config.PartitionPathField))
	}
	opName := o.Operation
	if opName == "" && cfg.IsSet(config.Operation) {
		opName = cfg.String(config.Operation)
	}
	op := write.Upsert
	if opName != "" {
		if op, err = write.ParseOperation(opName); err != nil {
			return err
		}
	}
	if err := checkTableSettings(&table.Config{Props: upgraded}, cur.Type, cfg, op); err != nil {
		return err
	}
	layout := timeline.LayoutOf(to)
	if cfg.IsSet(config.MetadataEnable) && cfg.Bool(config.MetadataEnable) && !layout.Writes(timeline.OpMetadata) {
		return fmt.Errorf("%s=true: %w", config.MetadataEnable.Name, timeline.UnsupportedError(cur.Config.Name(), to, layout, timeline.OpMetadata, ErrUnsupported))
	}
	if layout.CompletionTimes() && mdtwrite.Enabled(cfg) {
		if err := refuseIndexPartitions(cfg, to); err != nil {
			return err
		}
	}
	for _, svc := range []struct {
		key config.Key
		op  timeline.Operation
	}{{config.InlineCompact, timeline.OpCompaction}, {config.ScheduleInlineCompact, timeline.OpCompaction},
		{config.InlineClustering, timeline.OpClustering}, {config.ScheduleInlineClustering, timeline.OpClustering},
		{config.AutoClean, timeline.OpClean}, {config.AutoArchive, timeline.OpArchive}} {
		if cfg.IsSet(svc.key) && cfg.Bool(svc.key) && !layout.Writes(svc.op) {
			return fmt.Errorf("%s=true: %w", svc.key.Name, timeline.UnsupportedError(cur.Config.Name(), to, layout, svc.op, ErrUnsupported))
		}
	}
	return nil
}
