package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// hudiTable is a resolved table: a catalog name or a path, opened.
type hudiTable struct {
	db, name string // "" for tables named by path
	path     string
	entry    *catalogEntry // nil for tables named by path
	t        *hudi.Table
}

// label names the table in messages: db.table, or the path.
func (h *hudiTable) label() string {
	if h.name == "" {
		return h.path
	}
	return h.db + "." + h.name
}

// schema is the table's current schema without meta fields, with the partition columns a
// drop.partition.columns table leaves out of its commit schemas (statements name them).
func (h *hudiTable) schema(ctx context.Context) (*arrow.Schema, error) {
	sc, err := h.t.InputSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", h.label(), err)
	}
	if sc == nil {
		return nil, fmt.Errorf("table %s records no schema", h.label())
	}
	return sc, nil
}

// TableNotFoundError is an unknown table name.
type TableNotFoundError struct {
	Database, Table, Warehouse string
}

func (e *TableNotFoundError) Error() string {
	return fmt.Sprintf("table %s.%s not found (warehouse %s)", e.Database, e.Table, e.Warehouse)
}

// splitName returns the database and table of a catalog name.
func (e *Engine) splitName(n parser.TableName) (db, table string, err error) {
	switch len(n.Parts) {
	case 1:
		return e.database, n.Parts[0], nil
	case 2:
		return n.Parts[0], n.Parts[1], nil
	}
	return "", "", fmt.Errorf("table name %s: want table or database.table", n)
}

// notFound words the error for an unknown table.
func (e *Engine) notFound(db, table string) error {
	return &TableNotFoundError{Database: strings.ToLower(db), Table: strings.ToLower(table), Warehouse: e.cat.warehouse}
}

// resolve opens the table a name refers to: by path, or through the catalog.
func (e *Engine) resolve(ctx context.Context, n parser.TableName) (*hudiTable, error) {
	if n.Path != "" {
		t, err := hudi.Open(ctx, n.Path, hudi.WithSettings(e.settings))
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", n.Path, err)
		}
		return &hudiTable{path: n.Path, t: t}, nil
	}
	db, name, err := e.splitName(n)
	if err != nil {
		return nil, err
	}
	ent, err := e.cat.lookup(db, name)
	if err != nil {
		return nil, err
	}
	if ent == nil {
		return nil, e.notFound(db, name)
	}
	t, err := hudi.Open(ctx, ent.Path, hudi.WithSettings(e.settings))
	if err != nil {
		return nil, fmt.Errorf("table %s.%s at %s: %w", ent.Database, ent.Table, ent.Path, err)
	}
	return &hudiTable{db: ent.Database, name: ent.Table, path: ent.Path, entry: ent, t: t}, nil
}

// binder binds the Hudi tables one statement reads to DuckDB SQL over their snapshot as it
// is when the statement starts (scan.go), and ends their streams when the statement ends.
type binder struct {
	e       *Engine
	loaded  map[string]string // scan key → bound SQL
	handles []int64
	temps   []string // DuckDB temp tables of the statement (MERGE's rows)
	// columnsOf are the schemas of tables whose columns the statement's expressions name
	// without reading them in their own text (UPDATE's target, MERGE's target and source):
	// column subscripts are decided from them too (subscript.go).
	columnsOf []*arrow.Schema
}

func newBinder(e *Engine) *binder { return &binder{e: e, loaded: map[string]string{}} }

func (b *binder) close(ctx context.Context) {
	for _, t := range b.temps {
		// A failed drop leaves a temp table in the session; it is harmless and named uniquely.
		_ = b.e.exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+quoteIdent(t))
	}
	b.temps = nil
	b.columnsOf = nil
	b.e.streams.stopAll()
	for _, h := range b.handles {
		b.e.streams.remove(h)
	}
	b.handles = nil
}

// render turns translated SQL into DuckDB SQL with every Hudi table reference replaced by
// a subquery over its snapshot. Names that are not Hudi tables (CTEs, DuckDB temp tables,
// table functions) stay as written.
func (b *binder) render(ctx context.Context, text parser.SQLText) (string, error) {
	subs, err := b.subscriptKinds(ctx, text)
	if err != nil {
		return "", err
	}
	return text.Render(func(i int, ref parser.TableRef) (string, error) {
		if ref.Subscript != nil {
			return subs[i], nil
		}
		return b.bindRef(ctx, ref)
	})
}

func (b *binder) bindRef(ctx context.Context, ref parser.TableRef) (string, error) {
	var h *hudiTable
	var err error
	if ref.Name.Path != "" {
		h, err = b.e.resolve(ctx, ref.Name)
	} else {
		db, name, serr := b.e.splitName(ref.Name)
		if serr != nil {
			return "", serr
		}
		ent, lerr := b.e.cat.lookup(db, name)
		if lerr != nil {
			return "", lerr
		}
		if ent == nil {
			if ref.AsOf != "" || ref.Changes != nil {
				return "", b.e.notFound(db, name)
			}
			return nameText(ref.Name), nil
		}
		h, err = b.e.resolve(ctx, ref.Name)
	}
	if err != nil {
		return "", err
	}
	var opts hudi.ScanOptions
	switch {
	case ref.Changes != nil && strings.EqualFold(ref.Changes.Format, "cdc"):
		// A CDC query: rows op, ts_ms, before, after (hudi.ScanOptions.CDC takes
		// 'earliest' and '0' for the beginning).
		opts.CDC = true
		opts.Begin, opts.End = ref.Changes.Begin, ref.Changes.End
	case ref.Changes != nil:
		c := ref.Changes
		if f := strings.ToLower(c.Format); f != "" && f != "latest_state" {
			return "", fmt.Errorf("hudi_table_changes(%s, %q): the format is 'latest_state' or 'cdc'", h.label(), c.Format)
		}
		opts.Incremental = true
		opts.Begin, opts.End = c.Begin, c.End
		if strings.EqualFold(opts.Begin, "earliest") || opts.Begin == "0" {
			opts.Begin = ""
		}
	case ref.AsOf != "":
		opts.AsOf = ref.AsOf
		opts.ReadOptimized = b.e.queryType == "read_optimized"
	default:
		opts.ReadOptimized = b.e.queryType == "read_optimized"
	}
	if !opts.CDC { // a CDC row has none of the table's columns to filter
		if opts.Filter, err = pushedFilter(ctx, h, ref.Conds); err != nil {
			return "", err
		}
	}
	q, err := b.load(ctx, h, opts)
	if err != nil {
		return "", err
	}
	if !ref.Aliased && len(ref.Name.Parts) > 0 {
		// Columns may be qualified by the table's name (trips.fare).
		q += " AS " + quoteIdent(ref.Name.Parts[len(ref.Name.Parts)-1])
	}
	return q, nil
}

// nameText renders a catalog name DuckDB should resolve itself.
func nameText(n parser.TableName) string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = quoteIdent(p)
	}
	return strings.Join(parts, ".")
}

// load binds a table's scan (once per statement and scan) and returns a parenthesized
// DuckDB query over it (scan.go).
func (b *binder) load(ctx context.Context, h *hudiTable, opts hudi.ScanOptions) (string, error) {
	key := fmt.Sprintf("%s|%s|%v|%v|%v|%s|%s|%s", h.path, opts.AsOf, opts.ReadOptimized, opts.Incremental, opts.CDC, opts.Begin, opts.End, opts.Filter)
	if q, ok := b.loaded[key]; ok {
		return q, nil
	}
	q, err := b.scanSQL(ctx, h, opts)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", h.label(), err)
	}
	b.loaded[key] = q
	return q, nil
}
