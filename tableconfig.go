package hudi

import (
	"time"

	"github.com/hudi-go/hudi/internal/table"
)

// TableConfig is a read-only view of a table's hoodie.properties, as of the moment
// Table.Config was called. It has getters only: a table's configuration changes through
// the operations that change the table (Write, AlterSchema, the metadata commands), never
// by editing this value. Its zero value reads as an empty hoodie.properties.
type TableConfig struct {
	c *table.Config // a private copy; never handed out
}

func (c TableConfig) cfg() *table.Config {
	if c.c == nil {
		return &table.Config{}
	}
	return c.c
}

// Name is hoodie.table.name.
func (c TableConfig) Name() string { return c.cfg().Name() }

// Database is hoodie.database.name.
func (c TableConfig) Database() string { return c.cfg().Database() }

// Type is hoodie.table.type, parsed.
func (c TableConfig) Type() (TableType, error) { return c.cfg().Type() }

// Version is hoodie.table.version, parsed.
func (c TableConfig) Version() (TableVersion, error) { return c.cfg().Version() }

// TimelinePath is the layout-2 timeline folder under .hoodie (hoodie.timeline.path).
func (c TableConfig) TimelinePath() string { return c.cfg().TimelinePath() }

// RecordKeyFields are the record key fields; none for a table with generated keys.
func (c TableConfig) RecordKeyFields() []string { return c.cfg().RecordKeyFields() }

// PartitionFields are the partition fields, without CustomKeyGenerator's ":TYPE" suffixes.
func (c TableConfig) PartitionFields() []string { return c.cfg().PartitionFields() }

// PartitionFieldsRaw are the partition fields as stored, with CustomKeyGenerator's
// ":TYPE" suffixes.
func (c TableConfig) PartitionFieldsRaw() []string { return c.cfg().PartitionFieldsRaw() }

// OrderingFields are the ordering (precombine) fields: hoodie.table.ordering.fields (v9)
// or hoodie.table.precombine.field.
func (c TableConfig) OrderingFields() []string { return c.cfg().OrderingFields() }

// KeyGenerator is the key generator class, or the v8+ key generator type name.
func (c TableConfig) KeyGenerator() string { return c.cfg().KeyGenerator() }

// HiveStylePartitioning reports field=value partition directories.
func (c TableConfig) HiveStylePartitioning() bool { return c.cfg().HiveStylePartitioning() }

// URLEncodePartitioning reports URL-encoded partition paths.
func (c TableConfig) URLEncodePartitioning() bool { return c.cfg().URLEncodePartitioning() }

// DropPartitionColumns reports hoodie.datasource.write.drop.partition.columns.
func (c TableConfig) DropPartitionColumns() bool { return c.cfg().DropPartitionColumns() }

// PopulateMetaFields reports whether the _hoodie_* columns are filled.
func (c TableConfig) PopulateMetaFields() bool { return c.cfg().PopulateMetaFields() }

// BaseFileFormat is hoodie.table.base.file.format (PARQUET unless set).
func (c TableConfig) BaseFileFormat() string { return c.cfg().BaseFileFormat() }

// TimelineZone is the zone of the table's instant times (hoodie.table.timeline.timezone).
func (c TableConfig) TimelineZone() *time.Location { return c.cfg().TimelineZone() }

// CreateSchema is the Avro schema recorded at create time.
func (c TableConfig) CreateSchema() string { return c.cfg().CreateSchema() }

// PayloadClass is the record payload class.
func (c TableConfig) PayloadClass() string { return c.cfg().PayloadClass() }

// MergeMode is hoodie.record.merge.mode (v8+).
func (c TableConfig) MergeMode() string { return c.cfg().MergeMode() }

// MetadataPartitions lists the ready metadata-table partitions.
func (c TableConfig) MetadataPartitions() []string { return c.cfg().MetadataPartitions() }

// CDCEnabled reports hoodie.table.cdc.enabled.
func (c TableConfig) CDCEnabled() bool { return c.cfg().CDCEnabled() }

// Get is the value of a hoodie.properties key as stored, and whether it is set.
func (c TableConfig) Get(key string) (string, bool) { return c.cfg().Props.Get(key) }

// Properties is every key of hoodie.properties, in a map of the caller's own.
func (c TableConfig) Properties() map[string]string { return c.cfg().Props.Map() }
