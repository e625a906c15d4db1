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
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// CreateOptions describe a new table.
type CreateOptions struct {
	// Version is the table version: 6 (Hudi 0.14, timeline layout 1; the zero value) or
	// 8 and 9 (Hudi 1.0 and 1.1, timeline layout 2).
	Version  spec.TableVersion
	Name     string
	Database string // "" = none (Spark SQL writes "default")
	Type     spec.TableType
	// RecordKeyFields, PartitionFields and PrecombineField use dot notation for nested
	// fields; PartitionFields may carry CustomKeyGenerator ":TYPE" suffixes. No
	// RecordKeyFields make a table whose record keys are generated (Hudi 0.14's auto keys).
	RecordKeyFields   []string
	PartitionFields   []string
	PrecombineField   string
	KeyGeneratorClass string
	// KeyGeneratorType is the key generator's type name (SIMPLE, COMPLEX, …), which
	// versions 8 and 9 record instead of the class (hoodie.table.keygenerator.type).
	KeyGeneratorType string
	// MergeMode is hoodie.record.merge.mode of a version 8/9 table: EVENT_TIME_ORDERING or
	// COMMIT_TIME_ORDERING; "" infers it as Java does (event time with a precombine
	// field, else commit time). Version 6 tables have none.
	MergeMode            string
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

// Merge strategy ids of Hudi 1.x's merge modes (HoodieRecordMerger), and the payload
// classes a version 8 table records with them.
const (
	eventTimeMergeStrategy  = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
	commitTimeMergeStrategy = "ce9acb64-bde0-424c-9b91-f6ebba25356d"
	eventTimePayloadClass   = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
)

// Default values Hudi 0.14 writes into a new table's properties, and the key of the merger
// strategy (package config's registry).
var (
	defaultPayloadClass  = config.CompactionPayloadClass.Default
	defaultMergeStrategy = config.RecordMergerStrategy.Default
	KeyMergerStrategy    = config.TableRecordMergerStrategy.Name
)

// Keys of hoodie.properties that only versions 8 and 9 have.
const (
	KeyInitialVersion      = "hoodie.table.initial.version"
	KeyMergeStrategyID     = "hoodie.record.merge.strategy.id"
	KeyTableFormat         = "hoodie.table.format"
	MergeModeEventTime     = "EVENT_TIME_ORDERING"
	MergeModeCommitTime    = "COMMIT_TIME_ORDERING"
	MergeModeCustom        = "CUSTOM"
	defaultTimelineHistory = "history"
)

// ErrTableExists means Create found a table at the path.
var ErrTableExists = errors.New("a Hudi table already exists there")

// Create writes a new table's .hoodie folder and hoodie.properties as Hudi 0.14 does for
// table version 6, or as Hudi 1.0/1.1 do for versions 8/9 (the keys Spark wrote in the
// fixtures cow/v8_nonpartitioned and cow/v9_txns_simple_nometa), and opens it.
func Create(ctx context.Context, st storage.Storage, o CreateOptions) (*Table, error) {
	if o.Version == 0 {
		o.Version = spec.TableVersion6
	}
	if !o.Version.Supported() {
		return nil, fmt.Errorf("create table: table version %d: hudi-go writes versions 6, 8 and 9", o.Version)
	}
	v2 := o.Version != spec.TableVersion6
	if !v2 && o.MergeMode != "" {
		return nil, fmt.Errorf("create table: %s=%s is a table version 8/9 setting; version 6 tables merge by payload class", KeyMergeMode, o.MergeMode)
	}
	mergeMode, err := createMergeMode(o)
	if err != nil {
		return nil, err
	}
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
	layout := timeline.LayoutOf(o.Version)
	set(KeyVersion, fmt.Sprint(int(o.Version)))
	set(KeyTimelineLayout, fmt.Sprint(layout.Version()))
	set(KeyArchiveLogFolder, "archived")
	if v2 {
		set(KeyInitialVersion, fmt.Sprint(int(o.Version)))
		set(KeyTimelinePath, timeline.DefaultTimelineFolder)
		set(KeyTimelineHistoryPath, defaultTimelineHistory)
		set(KeyMergeMode, mergeMode)
		if o.Version == spec.TableVersion8 {
			// Version 8 records the strategy id and payload class of the mode as well
			// (inferMergingConfigsForPreV9Table); version 9 the mode alone.
			strategy, payload := eventTimeMergeStrategy, eventTimePayloadClass
			if mergeMode == MergeModeCommitTime {
				strategy, payload = commitTimeMergeStrategy, defaultPayloadClass
			}
			set(KeyMergeStrategyID, strategy)
			set(KeyPayloadClass, payload)
		} else {
			set(KeyTableFormat, "native")
		}
	}
	// No record key fields: Hudi 0.14 generates the keys, and hoodie.properties has no
	// hoodie.table.recordkey.fields (UNVERIFIED for Spark SQL's CREATE TABLE: its catalog
	// writes the key from primaryKey, absent here).
	if len(o.RecordKeyFields) > 0 {
		set(KeyRecordKeyFields, strings.Join(o.RecordKeyFields, ","))
	}
	if len(o.PartitionFields) > 0 {
		set(KeyPartitionFields, strings.Join(o.PartitionFields, ","))
	}
	switch {
	case o.PrecombineField == "":
	case o.Version == spec.TableVersion9:
		set(KeyOrderingFields, o.PrecombineField)
	default:
		set(KeyPrecombineField, o.PrecombineField)
	}
	switch {
	case v2 && o.KeyGeneratorType != "":
		set(KeyKeyGeneratorType, o.KeyGeneratorType)
	case o.KeyGeneratorClass != "":
		set(KeyKeyGeneratorClass, o.KeyGeneratorClass)
	}
	set(KeyHiveStyle, fmt.Sprint(o.HiveStyle))
	set(KeyURLEncodePartition, fmt.Sprint(o.URLEncodePartitions))
	set(KeyDropPartitionColumns, fmt.Sprint(o.DropPartitionColumns))
	if o.DisableMetaFields {
		set(KeyPopulateMetaFields, "false")
	}
	if o.Type == spec.MergeOnRead && !v2 {
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
	dirs := []string{".hoodie", ".hoodie/archived", ".hoodie/.aux/.bootstrap/.partitions",
		".hoodie/.aux/.bootstrap/.fileids", ".hoodie/.schema", ".hoodie/.temp"}
	if v2 {
		// HoodieTableMetaClient.initTableAndGetMetaClient: the timeline folder and its
		// history instead of the archive folder.
		dirs = []string{".hoodie", layout.Dir(""), layout.ArchiveDir("", ""), ".hoodie/.aux/.bootstrap/.partitions",
			".hoodie/.aux/.bootstrap/.fileids", ".hoodie/.schema", ".hoodie/.temp"}
	}
	for _, d := range dirs {
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
		if errors.Is(err, storage.ErrExist) { // an object store's conditional PUT lost a race
			return nil, fmt.Errorf("create table at %s: %w", st.Root(), ErrTableExists)
		}
		return nil, err
	}
	return Open(ctx, st)
}

// createMergeMode is the merge mode a version 8/9 table records: the one asked for, else
// event time with a precombine field and commit time without (Java's
// inferMergingConfigsForPreV9Table with neither payload class nor strategy id set). A
// payload class given for the table must agree with the mode (DefaultHoodieRecordPayload
// is event time, OverwriteWithLatestAvroPayload commit time); CUSTOM modes and other
// payload classes are refused by name.
func createMergeMode(o CreateOptions) (string, error) {
	if o.Version == spec.TableVersion6 {
		return "", nil
	}
	mode := strings.ToUpper(strings.TrimSpace(o.MergeMode))
	var fromPayload string
	switch o.PayloadClass {
	case "":
	case eventTimePayloadClass, "org.apache.hudi.common.model.EventTimeAvroPayload":
		fromPayload = MergeModeEventTime
	case defaultPayloadClass:
		fromPayload = MergeModeCommitTime
	default:
		return "", fmt.Errorf("create table: payload class %s means merge mode CUSTOM, which hudi-go does not write: %w", o.PayloadClass, ErrUnsupportedWrite)
	}
	switch mode {
	case "":
		mode = fromPayload
		if mode == "" {
			mode = MergeModeCommitTime
			if o.PrecombineField != "" {
				mode = MergeModeEventTime
			}
		}
	case MergeModeEventTime, MergeModeCommitTime:
		if fromPayload != "" && fromPayload != mode {
			return "", fmt.Errorf("create table: %s=%s contradicts payload class %s (%s)", KeyMergeMode, mode, o.PayloadClass, fromPayload)
		}
	case MergeModeCustom:
		return "", fmt.Errorf("create table: %s=CUSTOM (record merger classes) is %w", KeyMergeMode, ErrUnsupportedWrite)
	default:
		return "", fmt.Errorf("create table: %s=%s: want %s or %s", KeyMergeMode, o.MergeMode, MergeModeEventTime, MergeModeCommitTime)
	}
	return mode, nil
}
