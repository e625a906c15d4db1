// Package sql runs the Spark-SQL dialect Hudi users write (CREATE TABLE … USING HUDI,
// INSERT, UPDATE, DELETE, MERGE INTO, time travel, CALL procedures, …) over Hudi tables
// in a warehouse directory. Statements come from sql/parser; DuckDB (through cgo)
// evaluates every expression, join and query, and all table changes go through the hudi
// facade with Hudi's write semantics.
//
// Data crosses between the two sides as Parquet files in a private temp directory: a Hudi
// table a statement reads is scanned through the facade and loaded into a DuckDB TEMP
// table, and rows DuckDB computes are copied out to Parquet and read back as Arrow, cast to
// the table's schema, and written through (*hudi.Table).Write. The Arrow RegisterView path
// of duckdb-go is avoided on purpose: it returns wrong results when a query projects or
// filters (duckdb-go#24), and its Arrow query API needs a build tag.
//
// Only internal/cli imports this package; the rest of hudi-go stays pure Go.
package sql

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" database/sql driver

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// Options configure an Engine.
type Options struct {
	// Warehouse is the directory holding the catalog and managed tables
	// (default ./hudi-warehouse).
	Warehouse string
	// TimeZone is the session time zone (spark.sql.session.timeZone) TIMESTAMP literals are
	// read in; "" keeps the system zone, as Spark's default does.
	TimeZone string
	// Settings are session hoodie.* settings applied to every write (SET adds to them).
	Settings map[string]string
	Logger   *slog.Logger
	// Now replaces the clock of writes (tests).
	Now func() time.Time
	// Progress, if set, receives the progress of every write a statement makes.
	Progress func(hudi.WriteProgress)
	// StreamResults makes a query's Result hold no Records: its rows are read a batch at a
	// time by Result.Each (and WriteResult), from a file DuckDB wrote, so printing a large
	// result needs no more memory than a batch. The CLI sets it.
	StreamResults bool
}

// Engine executes statements against one warehouse with one DuckDB session. It is not
// safe for concurrent use.
type Engine struct {
	o         Options
	cat       *catalog
	db        *gosql.DB
	conn      *gosql.Conn
	tmp       string // Parquet transfer files
	seq       int
	database  string
	timeZone  string
	settings  map[string]string
	logger    *slog.Logger
	queryType string                   // hoodie.datasource.query.type: "" (snapshot) or read_optimized
	streams   streams                  // hudi_scan's scans (stream.go)
	footers   map[string]*arrow.Schema // base file schemas (scan.go)
}

// Open starts an engine: an in-memory DuckDB session over the warehouse.
func Open(ctx context.Context, o Options) (*Engine, error) {
	if o.Warehouse == "" {
		o.Warehouse = "hudi-warehouse"
	}
	wh, err := filepath.Abs(o.Warehouse)
	if err != nil {
		return nil, err
	}
	e := &Engine{o: o, cat: &catalog{warehouse: wh}, database: DefaultDatabase, settings: map[string]string{}, logger: o.Logger,
		footers: map[string]*arrow.Schema{}}
	if e.logger == nil {
		e.logger = slog.Default()
	}
	for k, v := range o.Settings {
		e.settings[k] = v
	}
	if e.db, err = gosql.Open("duckdb", ""); err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	if e.conn, err = e.db.Conn(ctx); err != nil {
		e.db.Close()
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	if err := registerScanFunction(e.conn, &e.streams); err != nil {
		e.Close()
		return nil, fmt.Errorf("duckdb: register %s: %w", scanFunction, err)
	}
	if e.tmp, err = os.MkdirTemp("", "hudi-sql-"); err != nil {
		e.Close()
		return nil, err
	}
	if o.TimeZone != "" {
		if err := e.setTimeZone(ctx, o.TimeZone); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// Close ends the DuckDB session and removes the transfer files.
func (e *Engine) Close() error {
	var errs []error
	if e.conn != nil {
		errs = append(errs, e.conn.Close())
	}
	if e.db != nil {
		errs = append(errs, e.db.Close())
	}
	if e.tmp != "" {
		errs = append(errs, os.RemoveAll(e.tmp))
	}
	return errors.Join(errs...)
}

// Warehouse is the absolute warehouse directory.
func (e *Engine) Warehouse() string { return e.cat.warehouse }

// Database is the current database (USE).
func (e *Engine) Database() string { return e.database }

// Result is what a statement returns: rows (queries, SHOW, DESCRIBE, CALL) and/or a
// one-line summary (DML, DDL, SET).
type Result struct {
	// Kind names the statement, e.g. "SELECT", "INSERT", "MERGE".
	Kind    string
	Schema  *arrow.Schema // nil when the statement returns no rows
	Records []arrow.Record
	Summary string
	// Instants are the instants the statement committed, in order.
	Instants []string

	// stream reads the rows of a streamed result (Options.StreamResults) batch by batch;
	// cleanup removes what it reads from.
	stream  func(fn func(arrow.Record) error) error
	cleanup func()
}

// Each calls fn with the result's batches in order: its Records, or the batches of a
// streamed result (read once, on the first call). fn must not keep a batch.
func (r *Result) Each(fn func(arrow.Record) error) error {
	if r.stream != nil {
		s := r.stream
		r.stream = nil
		return s(fn)
	}
	for _, rec := range r.Records {
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// Release frees the result's records (and a streamed result's file).
func (r *Result) Release() {
	for _, rec := range r.Records {
		rec.Release()
	}
	r.Records = nil
	r.stream = nil
	if r.cleanup != nil {
		r.cleanup()
		r.cleanup = nil
	}
}

// NumRows counts the result's rows.
func (r *Result) NumRows() int64 {
	var n int64
	for _, rec := range r.Records {
		n += rec.NumRows()
	}
	return n
}

// Run executes a script's statements in order, each parsed just before it runs, handing
// each result to fn (which must not keep it: it is released after fn returns). It stops at
// the first error — a statement that does not parse included — after running the
// statements before it, as spark-sql runs a script.
func (e *Engine) Run(ctx context.Context, script string, fn func(parser.Statement, *Result) error) error {
	return parser.ParseEach(script, func(st parser.Statement) error {
		res, err := e.Exec(ctx, st)
		if err != nil {
			return err
		}
		err = fn(st, res)
		res.Release()
		return err
	})
}

// Exec executes one statement. A failed statement leaves every table as it was: all rows
// are computed before the single write that commits them.
func (e *Engine) Exec(ctx context.Context, st parser.Statement) (*Result, error) {
	res, err := e.exec1(ctx, st)
	if err != nil {
		return nil, e.hideInternals(err)
	}
	return res, nil
}

func (e *Engine) exec1(ctx context.Context, st parser.Statement) (*Result, error) {
	b := newBinder(e)
	defer b.close(ctx)
	switch s := st.(type) {
	case *parser.Select:
		return e.execSelect(ctx, b, s)
	case *parser.CreateTable:
		return e.execCreate(ctx, b, s)
	case *parser.Insert:
		return e.execInsert(ctx, b, s)
	case *parser.Update:
		return e.execUpdate(ctx, b, s)
	case *parser.Delete:
		return e.execDelete(ctx, b, s)
	case *parser.Merge:
		return e.execMerge(ctx, b, s)
	case *parser.AlterAddColumns:
		return e.execAddColumns(ctx, s)
	case *parser.AlterColumns:
		return e.execAlterColumns(ctx, s)
	case *parser.AlterTable:
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s: only ADD COLUMNS, ALTER COLUMN, DROP COLUMN(S), RENAME COLUMN, RENAME TO, SET/UNSET TBLPROPERTIES and DROP PARTITION are supported (got %q)", s.Table, s.Text))
	case *parser.ShowTables:
		return e.execShowTables(ctx, s)
	case *parser.Show:
		return e.execShow(ctx, s)
	case *parser.CreateDatabase:
		return e.execCreateDatabase(s)
	case *parser.DropDatabase:
		return e.execDropDatabase(s)
	case *parser.AlterProps:
		return e.execAlterProps(ctx, s)
	case *parser.AlterRename:
		return e.execRename(ctx, s)
	case *parser.AlterDropPartition:
		return e.execDropPartition(ctx, b, s)
	case *parser.Truncate:
		return e.execTruncate(ctx, b, s)
	case *parser.CreateLike:
		return e.execCreateLike(ctx, b, s)
	case *parser.Describe:
		return e.execDescribe(ctx, s)
	case *parser.Call:
		return e.execCall(ctx, b, s)
	case *parser.Set:
		return e.execSet(ctx, s)
	case *parser.Use:
		return e.execUse(s)
	case *parser.DropTable:
		return e.execDrop(ctx, s)
	case *parser.Unsupported:
		return nil, atPos(s.Pos, fmt.Errorf("%s is not supported by hudi-go", s.Kind))
	case nil:
		return nil, errors.New("nil statement")
	}
	return nil, fmt.Errorf("statement %T is not supported", st)
}

// atPos prefixes an error with the statement's position, so a failing statement of a
// script can be found.
func atPos(p parser.Pos, err error) error {
	if err == nil || p.Line == 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", p.Line, err)
}

// exec runs DuckDB SQL that returns no rows.
func (e *Engine) exec(ctx context.Context, q string) error {
	_, err := e.conn.ExecContext(ctx, q)
	return err
}

// tempFile names a new transfer file.
func (e *Engine) tempFile(ext string) string {
	e.seq++
	return filepath.Join(e.tmp, fmt.Sprintf("t%06d.%s", e.seq, ext))
}

// columns returns the column names DuckDB gives query's result.
func (e *Engine) columns(ctx context.Context, q string) ([]string, error) {
	rows, err := e.conn.QueryContext(ctx, "SELECT * FROM ("+q+"\n) AS __hudi_q LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

// setTimeZone sets the session zone in DuckDB (ICU is built in), which governs how
// TIMESTAMP literals become instants.
func (e *Engine) setTimeZone(ctx context.Context, tz string) error {
	if _, err := time.LoadLocation(tz); err != nil && !strings.EqualFold(tz, "UTC") {
		return fmt.Errorf("time zone %q: %w", tz, err)
	}
	if err := e.exec(ctx, "SET TimeZone = "+quoteString(tz)); err != nil {
		return fmt.Errorf("time zone %q: %w", tz, err)
	}
	e.timeZone = tz
	return nil
}

// TimeZone is the session time zone ("" = the system zone).
func (e *Engine) TimeZone() string { return e.timeZone }

// duckTableMissing finds DuckDB's "Table with name X does not exist" message.
var duckTableMissing = regexp.MustCompile(`Table with name ([^ ]+) does not exist`)

// duckError rewords DuckDB errors about unknown tables: a name DuckDB could not find is
// neither a Hudi table of the catalog nor a DuckDB object.
func (e *Engine) duckError(err error) error {
	if err == nil {
		return nil
	}
	if m := duckTableMissing.FindStringSubmatch(err.Error()); m != nil {
		name := strings.Trim(m[1], `"!`)
		db, table := e.database, name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			db, table = name[:i], name[i+1:]
		}
		return e.notFound(db, table)
	}
	return err
}

// internalsError is an error whose message no longer shows how the engine runs a
// statement: DuckDB quotes the query it ran (LINE 1: …), which holds the base file lists
// and hudi_scan calls a table reference became, and the engine's temp names and files.
// Unwrap still gives the original error.
type internalsError struct {
	msg string
	err error
}

func (e *internalsError) Error() string { return e.msg }
func (e *internalsError) Unwrap() error { return e.err }

var (
	duckQueryQuote = regexp.MustCompile(`(?s)\n*LINE \d+:.*$`)
	internalNames  = regexp.MustCompile(scanFunction + `\(\d+\)|"?__hudi_[A-Za-z0-9_]*"?\.?|read_parquet\(\[[^\]]*\]\)`)
	// duckFunctionMissing is DuckDB's message for a function it does not have, with its
	// guess at a DuckDB function the user meant (which would mislead a Spark user).
	duckFunctionMissing = regexp.MustCompile(`(?s)Catalog Error: (?:Scalar|Aggregate|Table|Pragma) Function with name "?([^ "]+?)"? does not exist!(?:\s*Did you mean "[^"]*"\?)?`)
)

func (e *Engine) hideInternals(err error) error {
	msg := err.Error()
	clean := duckQueryQuote.ReplaceAllString(msg, "")
	clean = duckFunctionMissing.ReplaceAllString(clean, "function $1 is not supported by hudi-go (neither a Spark function it translates nor a DuckDB function)")
	clean = internalNames.ReplaceAllString(clean, "")
	if e.tmp != "" {
		clean = strings.ReplaceAll(clean, e.tmp+string(os.PathSeparator), "")
		clean = strings.ReplaceAll(clean, e.tmp, "")
	}
	if clean == msg {
		return err
	}
	return &internalsError{msg: strings.TrimSpace(clean), err: err}
}
