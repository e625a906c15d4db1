package hudi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/services/archive"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/upgrade"
)

// VersionChangeOptions configure Upgrade and Downgrade.
type VersionChangeOptions struct {
	// To is the table version wanted: 8 or 9 for Upgrade (from 6 or 8), 6 or 8 for
	// Downgrade (from 8 or 9).
	To int
	// Settings take hoodie.* keys: the lock settings, hoodie.commits.archival.batch and
	// the Parquet settings of the compaction run first and of the LSM timeline files.
	Settings map[string]string
	// Now replaces the clock (tests).
	Now    func() time.Time
	Logger *slog.Logger
}

// VersionChangeResult says what Upgrade or Downgrade did.
type VersionChangeResult struct {
	From, To int
	// RolledBack are the failed writes rolled back first; Compacted the compaction run
	// first on a merge-on-read table ("" for none).
	RolledBack []string
	Compacted  string
	// MetadataTableDropped: the table had a metadata table, which hudi-go deleted (see
	// Upgrade).
	MetadataTableDropped bool
	// Files is the number of timeline files rewritten in the other layout, Archived the
	// number of archived instants converted, Stale the files of an interrupted earlier
	// run deleted.
	Files, Archived, Stale int
}

// Upgrade moves a table of version 6 to version 8 or 9 (or 8 to 9) with Hudi 1.x's steps
// (UpgradeDowngrade.run and its handlers SixToSeven, SevenToEight, EightToNine): failed
// writes are rolled back and a merge-on-read table is compacted
// (rollbackFailedWritesAndCompact), the timeline moves to .hoodie/timeline with completion
// times in completed file names and Avro commit metadata, the archived timeline becomes
// the LSM timeline, and hoodie.properties gets the 1.x keys (table and timeline layout
// versions, hoodie.table.initial.version, hoodie.record.merge.mode, the merge strategy id
// on version 8, hoodie.table.ordering.fields and hoodie.legacy.payload.class on version 9,
// hoodie.table.keygenerator.type), written through Java's backup protocol.
//
// The metadata table: Java upgrades it with the data table; hudi-go does not keep a
// metadata table on versions 8 and 9 yet, so it deletes it and clears
// hoodie.table.metadata.partitions first, as a Java writer with the metadata table
// disabled does (and as UpgradeDowngrade's error advises when the metadata table's upgrade
// fails). Readers list files instead.
//
// Upgrading a table already at o.To only deletes what an interrupted earlier upgrade left.
func (t *Table) Upgrade(ctx context.Context, o VersionChangeOptions) (*VersionChangeResult, error) {
	if v := int(t.current().Version); o.To < v {
		return nil, fmt.Errorf("upgrade to table version %d: the table is version %d (use Downgrade)", o.To, v)
	}
	return t.changeVersion(ctx, o)
}

// Downgrade moves a table of version 9 to version 8 or 6 (or 8 to 6) with Hudi 1.x's
// steps (NineToEight, EightToSeven, SevenToSix): failed writes rolled back, a
// merge-on-read table compacted, the timeline back under .hoodie without completion times
// and with JSON commit metadata, and the version 6 hoodie.properties keys. Not done: a
// table whose LSM timeline holds archived instants is refused (Java rewrites them into
// the version 6 archive); the completed files' modification times are not set to their
// completion times (Java does, for 1.x readers of the downgraded table; the storage
// interface has no such call); a metadata table is deleted as for Upgrade.
func (t *Table) Downgrade(ctx context.Context, o VersionChangeOptions) (*VersionChangeResult, error) {
	if v := int(t.current().Version); o.To > v {
		return nil, fmt.Errorf("downgrade to table version %d: the table is version %d (use Upgrade)", o.To, v)
	}
	return t.changeVersion(ctx, o)
}

func (t *Table) changeVersion(ctx context.Context, o VersionChangeOptions) (*VersionChangeResult, error) {
	to := spec.TableVersion(o.To)
	if !to.Supported() {
		return nil, fmt.Errorf("table version %d: hudi-go moves tables between versions 6, 8 and 9", o.To)
	}
	cfg := config.New()
	warnings, err := cfg.SetAll(o.Settings)
	if err != nil {
		return nil, err
	}
	logWarnings(o.Logger, warnings)
	now := o.Now
	if now == nil {
		now = time.Now
	}
	cur := t.current()
	res := &VersionChangeResult{From: int(cur.Version), To: o.To}
	uo := upgrade.Options{To: to, Now: now, Logger: o.Logger, ArchivalBatch: cfg.Int(config.CommitsArchivalBatchSize),
		LSM: timeline.LSMWriteOptions{Compression: cfg.String(config.ParquetCompressionCodec),
			Dictionary: cfg.Bool(config.ParquetDictionaryEnabled), CompactionBatch: cfg.Int(config.TimelineCompactionBatchSize)}}
	if cfg.IsSet(config.PartitionPathField) {
		uo.WriterPartitionPathField = cfg.String(config.PartitionPathField)
	}
	uo.LegacyArchive = func(ctx context.Context, archived []timeline.ArchivedInstant) error {
		_, err := archive.WriteLegacyArchive(ctx, cur.Storage, archived, cfg.Int(config.CommitsArchivalBatchSize),
			archive.Options{TimelineZone: cur.Config.TimelineZone(), Logger: o.Logger})
		return err
	}
	if cur.Version != to {
		// A move Run would refuse (a CUSTOM merge mode, archived instants to move back) is
		// refused before anything changes.
		if err := upgrade.Check(ctx, cur, to); err != nil {
			return nil, err
		}
		// UpgradeDowngrade.performRollbackAndCompactionIfRequired: every move between 6,
		// 8 and 9 passes a handler pair that requires it ((7,8), (8,9), (9,8)).
		err := t.underLockWith(ctx, cfg, o.Logger, "roll back failed writes before a table version change", func(c commit.Concurrency) error {
			rolled, err := c.Timeline(t.current().Storage, nil, nil, o.Logger).RollbackFailedWrites(ctx, t.current().Timeline)
			for _, r := range rolled {
				res.RolledBack = append(res.RolledBack, string(r))
			}
			return err
		})
		if err = errors.Join(err, t.reload(ctx)); err != nil {
			return res, err
		}
		if t.current().Type == spec.MergeOnRead {
			cr, err := t.Compact(ctx, CompactOptions{Settings: o.Settings, Now: o.Now})
			if err != nil {
				return res, fmt.Errorf("compact before the table version change: %w", err)
			}
			if cr != nil && cr.Completed {
				res.Compacted = cr.Instant
			}
		}
	}
	err = t.underLock(ctx, cfg, o.Logger, "change the table version", func() error {
		cur := t.current()
		if cur.Version != to {
			dropped, err := cur.DisableMetadataTable(ctx, now())
			res.MetadataTableDropped = dropped
			if err != nil {
				return err
			}
		}
		ur, err := upgrade.Run(ctx, cur, uo)
		if ur != nil {
			res.Files, res.Archived, res.Stale = ur.Files, ur.Archived, ur.Stale
		}
		return err
	})
	return res, errors.Join(err, t.reload(ctx))
}
