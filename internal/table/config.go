package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Table-config keys of hoodie.properties that the reader uses. Their names (and, in the
// accessors below, their defaults) come from package config, the one registry of keys.
var (
	KeyName                 = config.TableName.Name
	KeyDatabase             = config.DatabaseName.Name
	KeyType                 = config.TableType.Name
	KeyVersion              = config.TableVersion.Name
	KeyTimelineLayout       = config.TimelineLayoutVersion.Name
	KeyTimelinePath         = config.TimelinePath.Name
	KeyArchiveLogFolder     = config.ArchivelogFolder.Name
	KeyTimelineHistoryPath  = config.TimelineHistoryPath.Name
	KeyRecordKeyFields      = config.TableRecordKeyFields.Name
	KeyPartitionFields      = config.TablePartitionFields.Name
	KeyPrecombineField      = config.TablePrecombineField.Name
	KeyOrderingFields       = config.TableOrderingFields.Name
	KeyKeyGeneratorClass    = config.TableKeyGeneratorClass.Name
	KeyKeyGeneratorType     = config.TableKeyGeneratorType.Name
	KeyHiveStyle            = config.HiveStylePartitioning.Name
	KeyURLEncodePartition   = config.URLEncodePartitioning.Name
	KeyDropPartitionColumns = config.DropPartitionColumns.Name
	KeyPopulateMetaFields   = config.PopulateMetaFields.Name
	KeyBaseFileFormat       = config.BaseFileFormat.Name
	KeyCreateSchema         = config.TableCreateSchema.Name
	KeyTimelineTimezone     = config.TimelineTimezone.Name
	KeyPayloadClass         = config.CompactionPayloadClass.Name
	KeyMergeMode            = config.RecordMergeMode.Name
	KeyMetadataPartitions   = config.TableMetadataPartitions.Name
)

// PropertiesFile is the table config file, relative to the table root.
const PropertiesFile = ".hoodie/hoodie.properties"

// backupPropertiesFile is where Java keeps the previous config while it rewrites it.
const backupPropertiesFile = ".hoodie/hoodie.properties.backup"

// ErrNotHudiTable means the path has no .hoodie/hoodie.properties.
var ErrNotHudiTable = errors.New("not a Hudi table")

// Config is a table's hoodie.properties, with typed accessors for what readers need.
type Config struct {
	Props *props.Properties
}

// LoadConfig reads hoodie.properties, falling back to the backup Java leaves while it
// rewrites the file, and verifies the checksum and table version.
func LoadConfig(ctx context.Context, st storage.Storage) (*Config, error) {
	data, err := st.ReadFile(ctx, PropertiesFile)
	source := PropertiesFile
	if errors.Is(err, storage.ErrNotExist) {
		data, err = st.ReadFile(ctx, backupPropertiesFile)
		source = backupPropertiesFile
		if errors.Is(err, storage.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: %w", st.Root(), PropertiesFile, ErrNotHudiTable)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read table config: %w", err)
	}
	p, err := props.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse %s/%s: %w", st.Root(), source, err)
	}
	if err := props.VerifyChecksum(p); err != nil && !errors.Is(err, props.ErrNoChecksum) {
		return nil, fmt.Errorf("%s/%s: %w", st.Root(), source, err)
	}
	c := &Config{Props: p}
	if c.Name() == "" {
		return nil, fmt.Errorf("%s/%s: %s is missing", st.Root(), source, KeyName)
	}
	v, err := c.Version()
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", st.Root(), source, err)
	}
	if !v.Supported() {
		return nil, fmt.Errorf("%s/%s: table version %d is not supported (hudi-go reads versions 6, 8 and 9)", st.Root(), source, v)
	}
	if _, err := c.Type(); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", st.Root(), source, err)
	}
	return c, nil
}

func (c *Config) get(key string) string {
	v, _ := c.Props.Get(key)
	return strings.TrimSpace(v)
}

// flag reads a boolean table key; absent or unparsable, it is the key's default.
func (c *Config) flag(k config.Key) bool {
	def := k.Default == "true"
	v := c.get(k.Name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def
	}
	return b
}

func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Name is hoodie.table.name.
func (c *Config) Name() string { return c.get(KeyName) }

// Database is hoodie.database.name.
func (c *Config) Database() string { return c.get(KeyDatabase) }

// Type is the table type (COPY_ON_WRITE when absent, as in Java).
func (c *Config) Type() (spec.TableType, error) { return spec.ParseTableType(c.get(KeyType)) }

// Version is hoodie.table.version.
func (c *Config) Version() (spec.TableVersion, error) {
	v := c.get(KeyVersion)
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a table version", KeyVersion, v)
	}
	return spec.TableVersion(n), nil
}

// TimelinePath is the layout-2 timeline folder under .hoodie.
func (c *Config) TimelinePath() string { return c.get(KeyTimelinePath) }

// RecordKeyFields are the record key fields.
func (c *Config) RecordKeyFields() []string { return list(c.get(KeyRecordKeyFields)) }

// PartitionFields are the partition fields, without CustomKeyGenerator's ":TYPE" suffixes.
func (c *Config) PartitionFields() []string {
	fields := list(c.get(KeyPartitionFields))
	for i, f := range fields {
		if j := strings.IndexByte(f, ':'); j >= 0 {
			fields[i] = f[:j]
		}
	}
	return fields
}

// PartitionFieldsRaw are the partition fields as stored, with CustomKeyGenerator's
// ":TYPE" suffixes.
func (c *Config) PartitionFieldsRaw() []string { return list(c.get(KeyPartitionFields)) }

// OrderingFields are the ordering (precombine) fields: hoodie.table.ordering.fields (v9)
// or hoodie.table.precombine.field.
func (c *Config) OrderingFields() []string {
	if v := list(c.get(KeyOrderingFields)); len(v) > 0 {
		return v
	}
	return list(c.get(KeyPrecombineField))
}

// KeyGenerator is the key generator class, or the v8+ type name.
func (c *Config) KeyGenerator() string {
	if v := c.get(KeyKeyGeneratorClass); v != "" {
		return v
	}
	return c.get(KeyKeyGeneratorType)
}

// HiveStylePartitioning reports field=value partition directories.
func (c *Config) HiveStylePartitioning() bool { return c.flag(config.HiveStylePartitioning) }

// URLEncodePartitioning reports URL-encoded partition values.
func (c *Config) URLEncodePartitioning() bool { return c.flag(config.URLEncodePartitioning) }

// DropPartitionColumns reports partition columns left out of data files.
func (c *Config) DropPartitionColumns() bool { return c.flag(config.DropPartitionColumns) }

// DroppedPartitionFields are the columns left out of data files: with
// drop.partition.columns, the top-level partition fields (Java's
// HoodieAvroUtils.removeFields only removes top-level names, so nested partition fields
// stay in the files); nil otherwise.
func (c *Config) DroppedPartitionFields() []string {
	if !c.DropPartitionColumns() {
		return nil
	}
	var out []string
	for _, f := range c.PartitionFields() {
		if !strings.Contains(f, ".") {
			out = append(out, f)
		}
	}
	return out
}

// PopulateMetaFields reports whether the _hoodie_* columns are filled.
func (c *Config) PopulateMetaFields() bool { return c.flag(config.PopulateMetaFields) }

// BaseFileFormat is PARQUET (the key's default) unless set.
func (c *Config) BaseFileFormat() string {
	if v := c.get(KeyBaseFileFormat); v != "" {
		return strings.ToUpper(v)
	}
	return config.BaseFileFormat.Default
}

// TimelineZone is the zone of the table's instant times, hoodie.table.timeline.timezone:
// UTC (in any case), else the process's local zone (LOCAL, the default). It is the one
// place the key is read.
func (c *Config) TimelineZone() *time.Location {
	if strings.EqualFold(c.get(KeyTimelineTimezone), "UTC") {
		return time.UTC
	}
	return time.Local
}

// CreateSchema is the Avro schema recorded at create time.
func (c *Config) CreateSchema() string { return c.get(KeyCreateSchema) }

// PayloadClass is the record payload class.
func (c *Config) PayloadClass() string { return c.get(KeyPayloadClass) }

// MergeMode is hoodie.record.merge.mode (v8+).
func (c *Config) MergeMode() string { return c.get(KeyMergeMode) }

// MetadataPartitions lists the ready metadata-table partitions.
func (c *Config) MetadataPartitions() []string { return list(c.get(KeyMetadataPartitions)) }

// loadTimeline loads the active timeline for the table's version.
func (c *Config) loadTimeline(ctx context.Context, st storage.Storage) (*timeline.Timeline, error) {
	v, err := c.Version()
	if err != nil {
		return nil, err
	}
	tl, err := timeline.Load(ctx, st, v, c.TimelinePath())
	if err != nil {
		return nil, err
	}
	// Layout 2 places the logs of archived deltacommits by completion times read from the
	// LSM history, on first need.
	return tl.WithArchive(st, tl.Layout.ArchiveDir(c.get(tl.Layout.ArchiveFolderKey()), c.TimelinePath())), nil
}

// Keys of change-data capture (HoodieTableConfig).
var (
	KeyCDCEnabled     = config.CDCEnabled.Name
	KeyCDCLoggingMode = config.CDCSupplementalLoggingMode.Name
)

// CDCEnabled reports hoodie.table.cdc.enabled: writes log the changes they make to CDC log
// files, for CDC queries.
func (c *Config) CDCEnabled() bool { return c.flag(config.CDCEnabled) }

// CDCMode is hoodie.table.cdc.supplemental.logging.mode (DATA_BEFORE_AFTER when unset).
func (c *Config) CDCMode() (cdc.Mode, error) { return cdc.ParseMode(c.get(KeyCDCLoggingMode)) }

// Keys of Hudi 1.x's partial updates (HoodieTableConfig, table version 9).
const (
	// KeyPartialUpdateMode is hoodie.table.partial.update.mode: IGNORE_DEFAULTS (what
	// 1.1's upgrade gives a PartialUpdateAvroPayload table), FILL_UNAVAILABLE (Debezium's
	// unavailable-value marker), or newer modes.
	KeyPartialUpdateMode = "hoodie.table.partial.update.mode"
	// KeyLegacyPayloadClass is hoodie.legacy.payload.class, where 1.1 keeps the payload
	// class a version 8 table had.
	KeyLegacyPayloadClass = "hoodie.legacy.payload.class"
)

// MergeRules are the rules records of this table merge by, from its merge mode, payload
// class and ordering fields (merge.RulesFor). A table whose records merge column by
// column the way Hudi 1.x does it — hoodie.table.partial.update.mode set (other than
// NONE), or PartialUpdateAvroPayload kept as its legacy payload class — is refused: hudi-go
// does not implement 1.x's partial-update mergers, and merging whole records would
// overwrite the columns a partial update left out.
func (c *Config) MergeRules() (merge.Rules, error) {
	if m := strings.TrimSpace(c.get(KeyPartialUpdateMode)); m != "" && !strings.EqualFold(m, "NONE") {
		return merge.Rules{}, fmt.Errorf("table %s has %s=%s: Hudi 1.x's partial-update merging is %w",
			c.Name(), KeyPartialUpdateMode, m, spec.ErrUnsupported)
	}
	if p := strings.TrimSpace(c.get(KeyLegacyPayloadClass)); p == merge.PartialUpdatePayload {
		return merge.Rules{}, fmt.Errorf("table %s has %s=%s: Hudi 1.x's partial-update merging is %w",
			c.Name(), KeyLegacyPayloadClass, p, spec.ErrUnsupported)
	}
	return merge.RulesFor(c.MergeMode(), c.PayloadClass(), len(c.OrderingFields()) > 0)
}
