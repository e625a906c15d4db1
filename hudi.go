// Package hudi is hudi-go's public API: open a Hudi table by path and query it.
//
//	t, err := hudi.Open(ctx, "/data/trips")
//	scan, err := t.Scan(ctx, hudi.ScanOptions{Filter: "fare > 20"})
//	err = scan.Run(ctx, func(rec arrow.RecordBatch) error { … })
//	for rec, err := range scan.Batches(ctx) { … } // the same, as an iterator
package hudi

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage"
	_ "github.com/hudi-go/hudi/storage/local" // registers the local backend (file paths)
)

// ErrUnsupported matches, with errors.Is, every error by which hudi-go refuses what it
// does not support (yet): a table feature, a setting's value, an operation on a table
// version. The packages behind the API wrap it or are it (spec.ErrUnsupported).
var ErrUnsupported = spec.ErrUnsupported

// Table is an open Hudi table. A *Table may be used from several goroutines at once
// (a Scan while a Write runs, say): each operation works on the metadata the handle holds
// when it starts, and a change through the handle swaps in freshly read metadata under a
// lock when it is done.
type Table struct {
	mu       sync.RWMutex
	meta     *table.Table // guarded by mu; never changed in place, only replaced
	reloadMu sync.Mutex   // orders reloads, so an older re-read never replaces a newer one
}

// current is the metadata the handle holds now. Operations read it once and work on that.
func (t *Table) current() *table.Table {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.meta
}

// OpenOption configures Open.
type OpenOption func(*openOptions)

type openOptions struct {
	settings map[string]string
}

// WithSettings gives Open the settings the table is opened with (hudi-defaults.conf and
// --set): those of the storage backend (fs.s3a.*, fs.gs.*, fs.azure.*) configure the
// storage the table is read from; the rest are for the operations run on it and are left
// alone here.
func WithSettings(settings map[string]string) OpenOption {
	return func(o *openOptions) { o.settings = settings }
}

// Open opens the table at path: a local directory or a URL whose scheme a registered
// storage backend opens (s3://, s3a://, gs://, abfs[s]://, wasb[s]:// when the program
// imports github.com/hudi-go/hudi/storage/s3, …/gcs, …/azure, as cmd/hudi does).
func Open(ctx context.Context, path string, opts ...OpenOption) (*Table, error) {
	var o openOptions
	for _, f := range opts {
		f(&o)
	}
	st, err := storageFor(ctx, path, o.settings)
	if err != nil {
		return nil, err
	}
	return OpenStorage(ctx, st)
}

// OpenStorage opens the table rooted at st.
func OpenStorage(ctx context.Context, st storage.Storage) (*Table, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	return &Table{meta: t}, nil
}

// storageFor opens the storage a table path names, through the storage registry (the
// local backend is always there; importing it here registers it).
func storageFor(ctx context.Context, path string, settings map[string]string) (storage.Storage, error) {
	return storage.OpenURL(ctx, path, settings)
}

// reload re-reads the table's metadata after a change, so later calls through this handle
// see it, and swaps it in under the lock. A failed reload keeps the old metadata and is
// returned: the change is done, but this handle does not show it (open the table again).
func (t *Table) reload(ctx context.Context) error {
	t.reloadMu.Lock()
	defer t.reloadMu.Unlock()
	old := t.current()
	fresh, err := old.Reopen(ctx)
	if err != nil {
		return fmt.Errorf("re-read table %s after a change: %w", old.Storage.Root(), err)
	}
	t.mu.Lock()
	t.meta = fresh
	t.mu.Unlock()
	return nil
}

// ScanOptions select a query. Instants accept Hudi's forms (17 or 14 digits,
// "yyyy-MM-dd HH:mm:ss[.SSS]", "yyyy-MM-dd").
type ScanOptions struct {
	AsOf          string // time travel
	ReadOptimized bool   // MOR: base files only
	Incremental   bool   // records written in (Begin, End]
	// CDC returns every change made in (Begin, End] — rows op, ts_ms, before, after
	// (read.CDCSchema), as Spark's CDC query (incremental format cdc) does — on a table
	// with hoodie.table.cdc.enabled. Begin may be "earliest".
	CDC         bool
	Begin, End  string   // incremental and CDC bounds; Begin "" = from the start, End "" = latest
	Columns     []string // projection (nil = all, meta fields first)
	Filter      string   // e.g. "city = 'sao_paulo' and fare > 20"
	BatchSize   int      // rows per batch (default 8192)
	Parallelism int      // file slices read at once (default: CPUs)
	// Settings are hoodie.* settings for the read. A read takes hoodie.metadata.enable
	// (default true: plan from the table's metadata table when it has a current one;
	// false: list storage), hoodie.enable.data.skipping (default false, as in Hudi 0.14:
	// true prunes file slices whose column_stats exclude the Filter, on a table whose
	// metadata table has that partition), and key generator settings (hoodie.keygen.*) only on a table
	// without meta fields (hoodie.populate.meta.fields=false), whose record keys it
	// rebuilds with the table's
	// key generator: Spark 0.14 keeps hoodie.keygen.timebased.* out of hoodie.properties,
	// so they are given with each write, compaction and read. Any other key is refused.
	Settings map[string]string
}

// Scan plans a query; Run streams its record batches.
type Scan struct {
	s *read.Scan
}

// Scan plans a query.
func (t *Table) Scan(ctx context.Context, o ScanOptions) (*Scan, error) {
	opts := read.Options{ReadOptimized: o.ReadOptimized, Incremental: o.Incremental, CDC: o.CDC, Columns: o.Columns,
		BatchSize: o.BatchSize, Parallelism: o.Parallelism}
	var err error
	if opts.AsOf, err = instantArg("as-of", o.AsOf); err != nil {
		return nil, err
	}
	if o.CDC && (strings.EqualFold(o.Begin, "earliest") || (o.Begin != "" && strings.Trim(o.Begin, "0") == "")) {
		// hudi_table_changes' 'earliest' (Java's "000"), and the guide's begin instant 0.
		opts.Begin = spec.ZeroInstant
	} else if opts.Begin, err = instantArg("begin", o.Begin); err != nil {
		return nil, err
	}
	if opts.End, err = instantArg("end", o.End); err != nil {
		return nil, err
	}
	if !o.Incremental && !o.CDC && (o.Begin != "" || o.End != "") {
		return nil, fmt.Errorf("begin/end instants need an incremental or CDC query")
	}
	if o.Filter != "" {
		if opts.Filter, err = expr.Parse(o.Filter); err != nil {
			return nil, fmt.Errorf("filter: %w", err)
		}
	}
	m := t.current() // one state for the whole plan
	rs, err := readSettings(m.Config, o.Settings)
	if err != nil {
		return nil, err
	}
	opts.KeyGenSettings, opts.NoMetadata, opts.DataSkipping = rs.keyGen, rs.noMetadata, rs.dataSkipping
	s, err := read.Plan(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	return &Scan{s: s}, nil
}

// scanSettings are a read's settings (ScanOptions.Settings), validated.
type scanSettings struct {
	// keyGen are the key generator's settings by canonical name.
	keyGen map[string]string
	// noMetadata: the read lists storage instead of planning from the metadata table
	// (hoodie.metadata.enable=false).
	noMetadata bool
	// dataSkipping: hoodie.enable.data.skipping=true, prune file slices with column_stats.
	dataSkipping bool
}

// readSettings validates a read's settings (ScanOptions.Settings).
func readSettings(tc *table.Config, settings map[string]string) (scanSettings, error) {
	if len(settings) == 0 {
		return scanSettings{}, nil
	}
	cfg := config.New()
	if _, err := cfg.SetAll(settings); err != nil {
		return scanSettings{}, fmt.Errorf("read settings: %w", err)
	}
	// Java's readers take hoodie.metadata.enable too: false plans from a listing even when
	// the table has a metadata table. Its reader default (HoodieMetadataConfig
	// DEFAULT_METADATA_ENABLE_FOR_READERS) is false in older releases and true in recent
	// ones (UNVERIFIED for 0.14); hudi-go's default is true, its writers' default — the
	// files are the same either way (table.Files plans only from a current metadata
	// table), only the cost of planning differs.
	noMetadata := !cfg.Bool(config.MetadataEnable)
	// Spark's key (DataSourceReadOptions.ENABLE_DATA_SKIPPING), default false in 0.14 as
	// in hudi-go (the 1.x default is UNVERIFIED here).
	dataSkipping := cfg.Bool(config.EnableDataSkipping)
	explicit := cfg.Explicit()
	delete(explicit, config.MetadataEnable.Name)
	delete(explicit, config.EnableDataSkipping.Name)
	keys := make([]string, 0, len(explicit))
	for k := range explicit {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasPrefix(k, config.StoragePrefix) {
			delete(explicit, k) // the storage backend's, taken when the table was opened
			continue
		}
		if !strings.HasPrefix(k, "hoodie.keygen.") {
			return scanSettings{}, fmt.Errorf("read setting %s: a read takes only key generator settings (hoodie.keygen.*), %s and %s", k, config.MetadataEnable.Name, config.EnableDataSkipping.Name)
		}
		if tc.PopulateMetaFields() {
			return scanSettings{}, fmt.Errorf("read setting %s: key generator settings apply to reads of tables without meta fields "+
				"(hoodie.populate.meta.fields=false); table %s has them and reads its keys from _hoodie_record_key", k, tc.Name())
		}
	}
	if len(explicit) == 0 {
		explicit = nil
	}
	return scanSettings{keyGen: explicit, noMetadata: noMetadata, dataSkipping: dataSkipping}, nil
}

func instantArg(name, v string) (spec.InstantTime, error) {
	if v == "" {
		return "", nil
	}
	t, err := spec.ParseInstantArg(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// Schema is the Arrow schema of the scan's batches.
func (s *Scan) Schema() *arrow.Schema { return s.s.Schema() }

// Run streams the record batches to fn; a batch is released after fn returns.
func (s *Scan) Run(ctx context.Context, fn func(arrow.Record) error) error { return s.s.Run(ctx, fn) }

// Batches returns the scan's record batches as an iterator, for a range loop:
//
//	for rec, err := range scan.Batches(ctx) {
//		if err != nil { … }
//		… // rec is released when the loop body returns: Retain it to keep it
//	}
//
// It is Run with the loop body as fn: batches come in Run's order, from the loop's own
// goroutine, and breaking out of the loop stops the scan. A failure is yielded once, with
// a nil batch, as the last element.
func (s *Scan) Batches(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		stopped := errors.New("range loop stopped") // this call's own, so no error of the scan is mistaken for it
		err := s.s.Run(ctx, func(rec arrow.RecordBatch) error {
			if !yield(rec, nil) {
				return stopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, stopped) {
			yield(nil, err)
		}
	}
}

// FullSchema is the table schema (meta fields first) the scan reads, whatever its
// projection.
func (s *Scan) FullSchema() *arrow.Schema { return s.s.FullSchema() }

// Project returns a scan of the same plan that outputs only cols.
func (s *Scan) Project(cols []string) (*Scan, error) {
	p, err := s.s.Project(cols)
	if err != nil {
		return nil, err
	}
	return &Scan{s: p}, nil
}

// TakeBaseFiles removes from the scan the slices read from their base file alone whose
// base file accept takes (path relative to the table root), after partition and record
// key pruning, and returns those paths: the caller reads them as they are and applies its
// own filter to their rows. Run then reads the rest. See read.Scan.TakeBaseFiles.
func (s *Scan) TakeBaseFiles(ctx context.Context, accept func(path string) bool) []string {
	var out []string
	for _, sl := range s.s.TakeBaseFiles(ctx, func(sl fsview.FileSlice) bool { return accept(sl.Base.Path) }) {
		out = append(out, sl.Base.Path)
	}
	return out
}
