package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/format/props"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
)

// CreateOptions describe a new table (table version 6, timeline layout 1).
type CreateOptions struct {
	Name     string
	Database string // "" = none (Spark SQL writes "default")
	Type     spec.TableType
	// RecordKeyFields, PartitionFields and PrecombineField use dot notation for nested
	// fields; PartitionFields may carry CustomKeyGenerator ":TYPE" suffixes. No
	// RecordKeyFields make a table whose record keys are generated (Hudi 0.14's auto keys).
	RecordKeyFields      []string
	PartitionFields      []string
	PrecombineField      string
	KeyGeneratorClass    string
	HiveStyle            bool
	URLEncodePartitions  bool
	DropPartitionColumns bool
	// DisableMetaFields writes hoodie.populate.meta.fields=false.
	DisableMetaFields bool
	// PayloadClass is recorded for merge-on-read tables (default OverwriteWithLatestAvroPayload).
	PayloadClass string
	// CreateSchema is the Avro schema recorded as hoodie.table.create.schema.
	CreateSchema string
	// Extra holds further table properties to persist, e.g. hoodie.keygen.timebased.*.
	Extra map[string]string
	// Now stamps the properties file's comment lines.
	Now time.Time
}

// Default values Hudi 0.14 writes into a new table's properties, and the key of the merger
// strategy (package config's registry).
var (
	defaultPayloadClass  = config.CompactionPayloadClass.Default
	defaultMergeStrategy = config.RecordMergerStrategy.Default
	KeyMergerStrategy    = config.TableRecordMergerStrategy.Name
)

// ErrTableExists means Create found a table at the path.
var ErrTableExists = errors.New("a Hudi table already exists there")

// Create writes a new table's .hoodie folder and hoodie.properties as Hudi 0.14 does for
// table version 6, and opens it.
func Create(ctx context.Context, st storage.Storage, o CreateOptions) (*Table, error) {
	if o.Name == "" {
		return nil, errors.New("create table: a table name is required")
	}
	if len(o.RecordKeyFields) == 0 && o.DisableMetaFields {
		// AutoRecordKeyGenerationUtils (Java 0.14) refuses the same.
		return nil, errors.New("create table: Disabling hoodie.populate.meta.fields is not supported with auto generation of record keys (no record key fields)")
	}
	if _, err := st.Stat(ctx, PropertiesFile); err == nil {
		return nil, fmt.Errorf("create table at %s: %w", st.Root(), ErrTableExists)
	}
	if o.Type == "" {
		o.Type = spec.CopyOnWrite
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	p := props.New()
	set := func(k, v string) { p.Set(k, v) }
	set(KeyName, o.Name)
	if o.Database != "" {
		set(KeyDatabase, o.Database)
	}
	set(KeyType, string(o.Type))
	set(KeyVersion, "6")
	set(KeyTimelineLayout, "1")
	set(KeyArchiveLogFolder, "archived")
	// No record key fields: Hudi 0.14 generates the keys, and hoodie.properties has no
	// hoodie.table.recordkey.fields (UNVERIFIED for Spark SQL's CREATE TABLE: its catalog
	// writes the key from primaryKey, absent here).
	if len(o.RecordKeyFields) > 0 {
		set(KeyRecordKeyFields, strings.Join(o.RecordKeyFields, ","))
	}
	if len(o.PartitionFields) > 0 {
		set(KeyPartitionFields, strings.Join(o.PartitionFields, ","))
	}
	if o.PrecombineField != "" {
		set(KeyPrecombineField, o.PrecombineField)
	}
	if o.KeyGeneratorClass != "" {
		set(KeyKeyGeneratorClass, o.KeyGeneratorClass)
	}
	set(KeyHiveStyle, fmt.Sprint(o.HiveStyle))
	set(KeyURLEncodePartition, fmt.Sprint(o.URLEncodePartitions))
	set(KeyDropPartitionColumns, fmt.Sprint(o.DropPartitionColumns))
	if o.DisableMetaFields {
		set(KeyPopulateMetaFields, "false")
	}
	if o.Type == spec.MergeOnRead {
		payload := o.PayloadClass
		if payload == "" {
			payload = defaultPayloadClass
		}
		set(KeyPayloadClass, payload)
		set(KeyMergerStrategy, defaultMergeStrategy)
	}
	if o.CreateSchema != "" {
		set(KeyCreateSchema, o.CreateSchema)
	}
	for k, v := range o.Extra {
		set(k, v)
	}
	if err := props.SetChecksum(p); err != nil {
		return nil, err
	}
	for _, d := range []string{".hoodie", ".hoodie/archived", ".hoodie/.aux/.bootstrap/.partitions",
		".hoodie/.aux/.bootstrap/.fileids", ".hoodie/.schema", ".hoodie/.temp"} {
		if err := st.MkdirAll(ctx, d); err != nil {
			return nil, fmt.Errorf("create table: %w", err)
		}
	}
	var buf bytes.Buffer
	if err := props.Write(&buf, p, o.Now); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	w, err := st.Create(ctx, PropertiesFile)
	if err != nil {
		if errors.Is(err, storage.ErrExist) {
			return nil, fmt.Errorf("create table at %s: %w", st.Root(), ErrTableExists)
		}
		return nil, fmt.Errorf("create table: %w", err)
	}
	if _, err := io.Copy(w, &buf); err != nil {
		_ = storage.Abort(w)
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return Open(ctx, st)
}
