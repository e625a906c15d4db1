package sql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// A table a statement reads becomes a DuckDB query over its snapshot, planned by hudi-go
// (partition, column statistics and record key pruning with the filter the statement
// implies) and never materialised:
//
//   - base files read alone (COW slices, read-optimized MOR, MOR slices without logs) go
//     to DuckDB's read_parquet as lists of files, grouped by the files' own schemas, each
//     column selected by name and cast to the table's type where the file's is narrower;
//   - everything else (merged MOR slices, incremental reads, files whose columns DuckDB
//     could read differently from hudi-go) streams from hudi-go's reader through the
//     hudi_scan table function (stream.go).
//
// The parts are joined with UNION ALL. DuckDB pushes projections and filters into
// read_parquet itself (row group statistics).

// readKeys are the session's hoodie.* keys that configure reads: SET gives them to every
// scan a statement plans (SELECT, and the reads of UPDATE, DELETE and MERGE), as Spark
// SQL's session configuration reaches its Hudi relations. Other hoodie.* keys configure
// writes only (writeSettings); hoodie.datasource.query.type is the engine's own
// (setQueryType).
var readKeys = []string{config.EnableDataSkipping.Name, config.MetadataEnable.Name}

// scanSettings are the read settings of the session (readKeys), nil when none is set.
func (e *Engine) scanSettings() map[string]string {
	var out map[string]string
	for _, k := range readKeys {
		if v, ok := e.settings[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// scanSQL plans the scan of a table and returns the parenthesized DuckDB query over it.
func (b *binder) scanSQL(ctx context.Context, h *hudiTable, opts hudi.ScanOptions) (string, error) {
	if err := b.e.checkQuerySchemaOnRead(ctx, h); err != nil {
		return "", err
	}
	if opts.Settings == nil {
		opts.Settings = b.e.scanSettings()
	}
	scan, err := h.t.Scan(ctx, opts)
	if err != nil && opts.Filter != "" {
		// The pushed filter only prunes; a scan it cannot plan (a column missing from an
		// older schema of a time travel) reads without it.
		opts.Filter = ""
		scan, err = h.t.Scan(ctx, opts)
	}
	if err != nil {
		return "", err
	}
	target := scan.Schema()
	root, err := filepath.Abs(h.path)
	if err != nil {
		return "", err
	}
	var parts []string
	if _, err := os.Stat(root); err == nil {
		groups := map[string]*fileGroup{}
		scan.TakeBaseFiles(ctx, func(rel string) bool {
			path := filepath.Join(root, filepath.FromSlash(rel))
			g, ok := b.e.readableAsIs(ctx, path, target)
			if !ok {
				return false
			}
			if groups[g.key] == nil {
				groups[g.key] = &fileGroup{sel: g.sel}
			}
			groups[g.key].files = append(groups[g.key].files, path)
			return true
		})
		keys := make([]string, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			g := groups[k]
			list := make([]string, len(g.files))
			for i, f := range g.files {
				list[i] = quoteString(f)
			}
			parts = append(parts, "SELECT "+g.sel+" FROM read_parquet(["+strings.Join(list, ", ")+"])")
		}
	}
	h64 := b.e.streams.add(&streamSpec{ctx: ctx, scan: scan})
	b.handles = append(b.handles, h64)
	parts = append(parts, fmt.Sprintf("SELECT * FROM %s(%d)", scanFunction, h64))
	return "(" + strings.Join(parts, "\nUNION ALL\n") + ")", nil
}

// fileGroup is base files of one schema, read by one read_parquet.
type fileGroup struct {
	sel   string
	files []string
}

// asIs is how a base file's columns are selected to give the table's: key identifies
// files whose selection is the same.
type asIs struct {
	key, sel string
}

// readableAsIs reports whether DuckDB reads the base file at path to the values hudi-go's
// reader gives for the target schema, and how to select them: every target column is in
// the file with the same Arrow type, one DuckDB widens exactly (int → bigint, integers and
// float → double, as hudi-go's schema.Conform does), or not at all (NULL, as for a column
// added after the file was written). Anything else — a type change DuckDB could read
// differently (INT96 or zone-less timestamps, decimals of another scale, strings from
// numbers, nested types laid out differently), a column whose name differs only in case —
// leaves the file to hudi-go's reader. Footers are cached: base files never change.
func (e *Engine) readableAsIs(ctx context.Context, path string, target *arrow.Schema) (asIs, bool) {
	fs, ok := e.footers[path]
	if !ok {
		fs = readFileSchema(path)
		e.footers[path] = fs
	}
	if fs == nil {
		return asIs{}, false
	}
	var key, sel strings.Builder
	for i, f := range target.Fields() {
		if i > 0 {
			sel.WriteString(", ")
		}
		dt, err := duckType(f.Type)
		if err != nil {
			return asIs{}, false
		}
		j := -1
		for k, ff := range fs.Fields() {
			if ff.Name == f.Name {
				j = k
				break
			}
			if strings.EqualFold(ff.Name, f.Name) {
				return asIs{}, false
			}
		}
		switch {
		case j < 0:
			sel.WriteString("CAST(NULL AS " + dt + ") AS " + quoteIdent(f.Name))
			key.WriteString("-|")
		case arrow.TypeEqual(fs.Field(j).Type, f.Type):
			sel.WriteString(quoteIdent(f.Name))
			key.WriteString("=|")
		case widensExactly(fs.Field(j).Type, f.Type):
			sel.WriteString("CAST(" + quoteIdent(f.Name) + " AS " + dt + ") AS " + quoteIdent(f.Name))
			key.WriteString(fs.Field(j).Type.String() + "|")
		default:
			return asIs{}, false
		}
	}
	return asIs{key: key.String(), sel: sel.String()}, true
}

// readFileSchema is a base file's Arrow schema as hudi-go reads it, nil when the footer
// cannot be read (the file is then left to hudi-go's reader, which reports the error).
func readFileSchema(path string) *arrow.Schema {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	pf, err := parquet.Open(f, st.Size(), path, memory.DefaultAllocator, 0)
	if err != nil {
		return nil
	}
	defer pf.Close()
	return pf.Schema()
}

// widensExactly reports whether a file column of type from becomes the table's type to by
// a DuckDB cast that gives the value hudi-go's schema.Conform gives.
func widensExactly(from, to arrow.DataType) bool {
	switch to.ID() {
	case arrow.INT64:
		switch from.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32:
			return true
		}
	case arrow.INT32:
		switch from.ID() {
		case arrow.INT8, arrow.INT16:
			return true
		}
	case arrow.FLOAT64:
		switch from.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32:
			return true
		}
	case arrow.FLOAT32:
		switch from.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
			return true
		}
	}
	return false
}

// pushedFilter turns the conditions a query puts on a table into a filter of hudi-go's
// expr syntax for planning. Only comparisons whose meaning is the same in DuckDB and in
// hudi-go's filter evaluation are kept — string columns with string literals, integer,
// double and decimal columns with number literals (both compare exactly) — so the rows
// hudi-go's reader filters out are rows the query's WHERE drops too. Others are left to
// DuckDB.
func pushedFilter(ctx context.Context, h *hudiTable, conds []parser.Cond) (string, error) {
	if len(conds) == 0 {
		return "", nil
	}
	sc, err := h.schema(ctx)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, c := range conds {
		var t arrow.DataType
		if strings.HasPrefix(c.Column, "_hoodie_") {
			for _, m := range []string{"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"} {
				if m == c.Column {
					t = arrow.BinaryTypes.String
				}
			}
		} else if i := schema.FieldIndex(sc, c.Column); i >= 0 {
			t = sc.Field(i).Type
		}
		if t == nil || !comparable(t, c.Values[0].String) {
			continue
		}
		lits := make([]string, len(c.Values))
		for i, v := range c.Values {
			if v.String {
				lits[i] = "'" + strings.ReplaceAll(v.Text, "'", "''") + "'"
			} else {
				lits[i] = v.Text
			}
		}
		col := "`" + strings.ReplaceAll(c.Column, "`", "``") + "`"
		if c.Op == "IN" {
			parts = append(parts, col+" IN ("+strings.Join(lits, ", ")+")")
		} else {
			parts = append(parts, col+" "+c.Op+" "+lits[0])
		}
	}
	return strings.Join(parts, " AND "), nil
}

// comparable reports whether a column of type t compared with a literal (a string one or a
// number) means the same in DuckDB and in hudi-go's filter evaluation.
func comparable(t arrow.DataType, str bool) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return str
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.DECIMAL128:
		return !str
	}
	return false
}
