package hudi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write"
)

// CreateOptions describe a new table. Settings take any hoodie.* key; table-level ones
// (key generator class, timestamp key generator settings, …) are persisted.
type CreateOptions struct {
	// TableVersion is the table version to create: 6 (Hudi 0.14), 8 (Hudi 1.0) or 9 (Hudi
	// 1.1); 0 takes hoodie.write.table.version from Settings, else 6.
	TableVersion    int
	Name            string
	Database        string
	Type            string // cow (default) or mor
	RecordKeyFields []string
	PartitionFields []string
	PrecombineField string
	HiveStyle       bool
	// Schema is Spark DDL: "uuid STRING, ts BIGINT, fare DOUBLE, …".
	Schema   string
	Settings map[string]string
	Logger   *slog.Logger
}

// Create creates a table at path, of table version o.TableVersion.
func Create(ctx context.Context, path string, o CreateOptions) (*Table, error) {
	st, err := storageFor(ctx, path, o.Settings)
	if err != nil {
		return nil, err
	}
	cfg := config.New()
	warnings, err := cfg.SetAll(o.Settings)
	if err != nil {
		return nil, err
	}
	logWarnings(o.Logger, warnings)
	if err := reconcileCreate(&o, cfg); err != nil {
		return nil, err
	}
	typ, err := spec.ParseTableType(o.Type)
	if err != nil {
		return nil, err
	}
	sc, err := schema.ParseDDL(o.Schema)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	createSchema, err := schema.CreateSchemaAvro(sc, o.Name)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	kgClass, _ := cfg.Get(config.KeyGeneratorClass.Name)
	if !cfg.IsSet(config.KeyGeneratorClass) {
		kgClass = ""
	}
	gen, err := keygen.New(keygen.Options{KeyGenerator: kgClass, RecordKeyFields: o.RecordKeyFields, PartitionFields: o.PartitionFields,
		HiveStyle: o.HiveStyle, Props: cfg.Explicit()}, sc)
	if err != nil {
		return nil, fmt.Errorf("key generator: %w", err)
	}
	extra, err := persistedCreateSettings(cfg)
	if err != nil {
		return nil, err
	}
	version, err := createVersion(o.TableVersion, cfg)
	if err != nil {
		return nil, err
	}
	if version != spec.TableVersion6 && cfg.Bool(config.CDCEnabled) {
		return nil, fmt.Errorf("%s=true: change-data capture on table version %d is %w (version 6 only)",
			config.CDCEnabled.Name, version, write.ErrUnsupported)
	}
	co := table.CreateOptions{Version: version, KeyGeneratorType: gen.Kind(), Name: o.Name, Database: o.Database, Type: typ, RecordKeyFields: o.RecordKeyFields,
		PartitionFields: o.PartitionFields, PrecombineField: o.PrecombineField, KeyGeneratorClass: gen.ClassName(),
		HiveStyle: o.HiveStyle, CreateSchema: createSchema, Extra: extra,
		URLEncodePartitions: cfg.Bool(config.URLEncodePartitioning), DropPartitionColumns: cfg.Bool(config.DropPartitionColumns),
		DisableMetaFields: cfg.IsSet(config.PopulateMetaFields) && !cfg.Bool(config.PopulateMetaFields)}
	if (typ == spec.MergeOnRead || version != spec.TableVersion6) && cfg.IsSet(config.PayloadClass) {
		co.PayloadClass = cfg.String(config.PayloadClass)
	}
	if cfg.IsSet(config.RecordMergeMode) {
		co.MergeMode = cfg.String(config.RecordMergeMode)
	}
	t, err := table.Create(ctx, st, co)
	if err != nil {
		return nil, err
	}
	return &Table{meta: t}, nil
}

// createVersion is the table version a create writes: o.TableVersion, else
// hoodie.write.table.version (or hoodie.table.version) from the settings, else 6; the
// settings must agree with o.TableVersion and with each other.
func createVersion(given int, cfg *config.Config) (spec.TableVersion, error) {
	v := given
	from := "the table version asked for"
	for _, k := range []config.Key{config.WriteTableVersion, config.TableVersion} {
		if !cfg.IsSet(k) {
			continue
		}
		n := cfg.Int(k)
		if v != 0 && n != v {
			return 0, fmt.Errorf("%s=%d contradicts %s, %d", k.Name, n, from, v)
		}
		v, from = n, k.Name
	}
	if v == 0 {
		v = int(spec.TableVersion6)
	}
	if tv := spec.TableVersion(v); !tv.Supported() {
		return 0, fmt.Errorf("table version %d: hudi-go creates versions 6, 8 and 9", v)
	}
	return spec.TableVersion(v), nil
}

func logWarnings(l *slog.Logger, warnings []string) {
	if l == nil {
		l = slog.Default()
	}
	for _, w := range warnings {
		l.Warn(w)
	}
}

// WriteOptions select a write operation and its hoodie.* settings.
type WriteOptions struct {
	Operation string // upsert (default), insert, bulk_insert, delete, insert_overwrite, insert_overwrite_table, delete_partition
	Settings  map[string]string
	Logger    *slog.Logger
	// DeleteMarker names a boolean column of the input that is not a table column: rows
	// where it is true delete their key (unconditionally), the rest are written by the
	// operation — an upsert and a delete in one commit, as SQL's MERGE INTO needs.
	DeleteMarker string
	// Prepped marks rows read from a table whose record keys are generated (no record key
	// fields), carrying their keys in _hoodie_record_key: each row's stored key is its
	// key, and a row without one gets a generated key (write.Options.Prepped). SQL's
	// UPDATE, DELETE and MERGE INTO write such tables so.
	Prepped bool
	// AddColumns commits the input's schema — the table's columns plus new nullable ones,
	// anywhere — as it is (write.Options.AddColumns): SQL's ALTER TABLE ADD COLUMNS.
	AddColumns bool
	// RequireExistingPartitions makes a delete_partition fail, writing nothing, when a
	// partition it names (from its input rows or hoodie.datasource.write.partitions.to.delete)
	// matches none of the table's. Java commits an empty replacecommit then; the CLI sets
	// it, since on the command line such a partition is almost always a typo.
	RequireExistingPartitions bool
	// Progress, if set, is called at each phase of the write, as its file tasks finish
	// and before each inline table service; see write.Progress.
	Progress func(WriteProgress)
	// Now replaces the clock (tests).
	Now func() time.Time
}

// WriteProgress reports how far a write has come (write.Progress).
type WriteProgress = write.Progress

// WriteResult summarizes a committed write.
type WriteResult = write.Result

// writeOptions turns o into the write package's options (and the config its hoodie.*
// settings make, for the inline services after the commit).
func (t *Table) writeOptions(o WriteOptions) (write.Options, *config.Config, error) {
	cfg := config.New()
	warnings, err := cfg.SetAll(o.Settings)
	if err != nil {
		return write.Options{}, nil, err
	}
	logWarnings(o.Logger, warnings)
	// Without an operation, hoodie.datasource.write.operation names it (as for Spark's
	// datasource); with one, a different setting is refused by checkTableSettings.
	opName := o.Operation
	if opName == "" && cfg.IsSet(config.Operation) {
		opName = cfg.String(config.Operation)
	}
	op := write.Upsert
	if opName != "" {
		if op, err = write.ParseOperation(opName); err != nil {
			return write.Options{}, nil, err
		}
	}
	m := t.current() // one state for all the checks
	if err := checkTableSettings(m.Config, m.Type, cfg, op); err != nil {
		return write.Options{}, nil, err
	}
	if err := t.validateServiceSettings(cfg); err != nil {
		return write.Options{}, nil, err
	}
	if err := validateIndexSettings(cfg); err != nil {
		return write.Options{}, nil, err
	}
	if len(m.Config.RecordKeyFields()) == 0 && cfg.Bool(config.InsertDropDuplicates) {
		// AutoRecordKeyGenerationUtils (Java 0.14) refuses it for generated keys.
		return write.Options{}, nil, fmt.Errorf("Enabling %s is not supported with auto generation of record keys", config.InsertDropDuplicates.Name)
	}
	wo := write.OptionsFromConfig(cfg, op)
	wo.Logger, wo.Progress, wo.Now = o.Logger, o.Progress, o.Now
	wo.DeleteMarker, wo.Prepped, wo.AddColumns = o.DeleteMarker, o.Prepped, o.AddColumns
	wo.RequireExistingPartitions = o.RequireExistingPartitions
	wo.TimelineZone = m.Config.TimelineZone()
	// Last: it opens the lock provider, which the caller closes (Concurrency.Close).
	if wo.Concurrency, err = commit.ConcurrencyFromConfig(cfg, m.Storage, m.Config.Name()); err != nil {
		return write.Options{}, nil, err
	}
	if wo.Concurrency.Lock != nil {
		wo.Concurrency.Lock.SetLogger(o.Logger)
	}
	if wo.Metadata, err = t.metadataWriter(cfg, wo.Concurrency, o.Now, o.Logger, true); err != nil {
		wo.Concurrency.Close()
		return write.Options{}, nil, err
	}
	return wo, cfg, nil
}

// Write applies an operation with input batches in the table's columns and commits it.
// The caller holds the whole input; WriteReader streams it where the operation allows.
func (t *Table) Write(ctx context.Context, batches []arrow.Record, o WriteOptions) (*WriteResult, error) {
	if err := t.autoUpgrade(ctx, o); err != nil {
		return nil, err
	}
	wo, cfg, err := t.writeOptions(o)
	if err != nil {
		return nil, err
	}
	defer wo.Concurrency.Close()
	res, err := write.Write(ctx, t.current(), batches, wo)
	return t.afterWrite(ctx, cfg, o, res, err)
}

// WriteReader applies an operation with the rows of rdr (in the table's columns) and
// commits it. A bulk_insert with hoodie.bulkinsert.sort.mode=NONE (the default) streams:
// rows go to their partition's open base file as they are read, so memory is bounded by
// the open files (one per partition: a row group and a page per column) and a few
// batches, not by the input's size. Other operations and sort modes read rdr to the end
// first, as Write's caller would: they need the whole input for the index lookup,
// precombining or sorting (see write.WriteReader). rdr is read, not released.
func (t *Table) WriteReader(ctx context.Context, rdr array.RecordReader, o WriteOptions) (*WriteResult, error) {
	if err := t.autoUpgrade(ctx, o); err != nil {
		return nil, err
	}
	wo, cfg, err := t.writeOptions(o)
	if err != nil {
		return nil, err
	}
	defer wo.Concurrency.Close()
	res, err := write.WriteReader(ctx, t.current(), rdr, wo)
	return t.afterWrite(ctx, cfg, o, res, err)
}

// SchemaChange is one ALTER TABLE change of schema evolution on read (write.SchemaChange).
type SchemaChange = write.SchemaChange

// AlterSchema commits one schema change of schema evolution on read (rename, drop, type
// change, reorder, add; write.AlterSchema) as one instant, then runs the inline table
// services as after a write. o.Operation is ignored.
func (t *Table) AlterSchema(ctx context.Context, change SchemaChange, o WriteOptions) (*WriteResult, error) {
	wo, cfg, err := t.writeOptions(WriteOptions{Settings: o.Settings, Logger: o.Logger, Now: o.Now})
	if err != nil {
		return nil, err
	}
	defer wo.Concurrency.Close()
	res, err := write.AlterSchema(ctx, t.current(), change, wo)
	return t.afterWrite(ctx, cfg, o, res, err)
}

// afterWrite reloads the handle after a committed write and runs the inline table
// services.
func (t *Table) afterWrite(ctx context.Context, cfg *config.Config, o WriteOptions, res *WriteResult, err error) (*WriteResult, error) {
	if err != nil {
		return nil, err
	}
	// Later scans and writes through this handle see the commit.
	if err := t.reload(ctx); err != nil {
		return res, &ServiceError{Instant: res.Instant, Err: err}
	}
	if err := t.afterCommit(ctx, cfg, o); err != nil {
		// The write is committed; a failed table service does not undo it (Java logs and
		// rethrows; the data stays). Report both.
		return res, &ServiceError{Instant: res.Instant, Err: err}
	}
	return res, nil
}

// afterCommit runs the inline table services Java runs in postCommit, in Java's order:
// compaction and clustering (runTableServicesInline), then cleaning, then archival (each
// decides from cfg whether it is enabled).
func (t *Table) afterCommit(ctx context.Context, cfg *config.Config, o WriteOptions) (err error) {
	// Each service reads the table from storage, and those that read this handle's
	// metadata (compaction, clustering) come after the write's reload or a service that
	// reloads when it changes the table. Each service reports whether it changed the
	// timeline; the handle is re-read once at the end only then (or after a failure, when
	// what changed is unknown): re-reading after every service listed .hoodie up to four
	// times per commit for nothing, a fixed cost of every small commit (bench W7).
	changed := false
	defer func() {
		if changed {
			err = errors.Join(err, t.reload(ctx))
		}
	}()
	services := []struct {
		name string
		run  func(context.Context, *config.Config, WriteOptions) (bool, error)
	}{{"compaction", t.inlineCompact}, {"clustering", t.inlineCluster}, {"clean", t.inlineClean}, {"archive", t.inlineArchive}}
	for i, svc := range services {
		if o.Progress != nil {
			o.Progress(WriteProgress{Phase: write.PhaseServices, Done: int64(i), Total: int64(len(services)), Detail: svc.name})
		}
		c, err := svc.run(ctx, cfg, o)
		if err != nil {
			changed = true
			return err
		}
		changed = changed || c
	}
	return nil
}
