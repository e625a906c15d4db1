package hudi

import (
	"context"
	"fmt"

	"github.com/hudi-go/hudi/config"
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
	res, err := t.Upgrade(ctx, VersionChangeOptions{To: want, Settings: o.Settings, Now: o.Now, Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("upgrade before the write (%s=%d, %s=true): %w", config.WriteTableVersion.Name, want, config.WriteAutoUpgrade.Name, err)
	}
	if o.Logger != nil {
		o.Logger.Info("upgraded the table before the write", "from", res.From, "to", res.To)
	}
	return nil
}
