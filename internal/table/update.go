package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/storage"
)

// MetadataTableDir is the metadata table's folder.
const MetadataTableDir = ".hoodie/metadata"

// KeyMetadataPartitionsInflight lists metadata-table partitions being built.
const KeyMetadataPartitionsInflight = "hoodie.table.metadata.partitions.inflight"

// UpdateProperties rewrites hoodie.properties with Java's protocol: write the backup,
// delete the file (readers fall back to the backup), write the new file with its
// checksum, re-read and verify it, delete the backup. A writer killed at any step leaves
// a readable table: the backup or the new file is always there.
func (t *Table) UpdateProperties(ctx context.Context, change func(p *props.Properties), now time.Time) error {
	st := t.Storage
	updated := t.Config.Props.Clone()
	change(updated)
	if err := props.SetChecksum(updated); err != nil {
		return err
	}
	write := func(path string, p *props.Properties) error {
		var buf bytes.Buffer
		if err := props.Write(&buf, p, now); err != nil {
			return err
		}
		w, err := st.Create(ctx, path)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, &buf); err != nil {
			_ = storage.Abort(w)
			return err
		}
		return w.Close()
	}
	// A backup left by an interrupted update is the last good config.
	if err := st.Delete(ctx, backupPropertiesFile); err != nil {
		return fmt.Errorf("update table config: %w", err)
	}
	if err := write(backupPropertiesFile, t.Config.Props); err != nil {
		return fmt.Errorf("update table config: back up: %w", err)
	}
	if err := st.Delete(ctx, PropertiesFile); err != nil {
		return fmt.Errorf("update table config: %w", err)
	}
	if err := write(PropertiesFile, updated); err != nil {
		return fmt.Errorf("update table config: write: %w", err)
	}
	cfg, err := LoadConfig(ctx, st)
	if err != nil {
		return fmt.Errorf("update table config: verify: %w", err)
	}
	if err := st.Delete(ctx, backupPropertiesFile); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("update table config: %w", err)
	}
	t.Config = cfg
	return nil
}

// DisableMetadataTable does what Java does when a writer runs with the metadata table
// turned off: clear hoodie.table.metadata.partitions (so readers stop listing files through
// it), then delete .hoodie/metadata. A writer that does not maintain the metadata table
// must do this before its first commit, or Java readers would not see its files.
// It reports whether there was anything to disable.
func (t *Table) DisableMetadataTable(ctx context.Context, now time.Time) (bool, error) {
	had := len(t.Config.MetadataPartitions()) > 0
	if _, err := t.Storage.Stat(ctx, MetadataTableDir); err == nil {
		had = true
	}
	if !had {
		return false, nil
	}
	if len(t.Config.MetadataPartitions()) > 0 || t.Config.get(KeyMetadataPartitionsInflight) != "" {
		err := t.UpdateProperties(ctx, func(p *props.Properties) {
			p.Delete(KeyMetadataPartitions)
			p.Delete(KeyMetadataPartitionsInflight)
		}, now)
		if err != nil {
			return true, err
		}
	}
	if err := storage.DeleteTree(ctx, t.Storage, MetadataTableDir); err != nil {
		return true, fmt.Errorf("delete metadata table: %w", err)
	}
	return true, nil
}

// ReplaceProperties rewrites hoodie.properties to hold exactly p (with a new checksum),
// as Hudi's repair_overwrite_hoodie_props does (RepairOverwriteHoodiePropsProcedure writes
// the given file's properties through HoodieTableConfig.create). It checks p first, so a
// bad file never replaces a good config: the table name must be set, and the table type
// and version must be the table's — hudi-go's choice, Java does not check: another type
// or version would make the files on disk read as another format.
func (t *Table) ReplaceProperties(ctx context.Context, p *props.Properties, now time.Time) error {
	c := &Config{Props: p}
	if c.Name() == "" {
		return fmt.Errorf("replace table config: %s is missing", KeyName)
	}
	typ, err := c.Type()
	if err != nil {
		return fmt.Errorf("replace table config: %w", err)
	}
	if typ != t.Type {
		return fmt.Errorf("replace table config: %s is %s, the table is %s; changing the table type is refused", KeyType, typ, t.Type)
	}
	v, err := c.Version()
	if err != nil {
		return fmt.Errorf("replace table config: %w", err)
	}
	if v != t.Version {
		return fmt.Errorf("replace table config: %s is %d, the table is version %d; changing the table version is refused", KeyVersion, v, t.Version)
	}
	return t.UpdateProperties(ctx, func(dst *props.Properties) {
		for _, k := range dst.Keys() {
			dst.Delete(k)
		}
		for _, k := range p.Keys() {
			v, _ := p.Get(k)
			dst.Set(k, v)
		}
	}, now)
}
