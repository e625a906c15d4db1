package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
)

var errLimitReached = errors.New("limit reached")

func newReadCmd(e *env) *cobra.Command {
	var (
		format, asOf, begin, end, columns, filter string
		readOptimized, incremental, noMeta, cdc   bool
		limit, batchSize                          int
		sets                                      []string
	)
	cmd := &cobra.Command{
		Use:   "read TABLE",
		Short: "Query a table: snapshot (default), time travel, read-optimized or incremental",
		Long: `Query a Hudi table and print its rows.

Formats: jsonl (canonical JSON Lines), table (aligned text; column widths come from the
first 1000 rows, then rows stream), vertical (one "column | value" block per row, for
rows wider than the screen) and csv. The default is table when stdout is a terminal and
jsonl otherwise. Every format streams: memory does not grow with the table.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "" {
				format = "jsonl"
				if e.isTerminal {
					format = "table"
				}
			}
			if format != "jsonl" && format != "table" && format != "csv" && format != "vertical" {
				return usagef("--format %q: want jsonl, table, vertical or csv", format)
			}
			if (begin != "" || end != "") && !incremental && !cdc {
				return usagef("--begin and --end need --incremental or --cdc")
			}
			if incremental && asOf != "" {
				return usagef("--incremental and --as-of cannot be combined")
			}
			if cdc {
				switch {
				case incremental || asOf != "" || readOptimized || filter != "":
					return usagef("--cdc cannot be combined with --incremental, --as-of, --read-optimized or --filter")
				case begin == "":
					return usagef("--cdc needs --begin (an instant, or earliest)")
				}
				noMeta = false // a CDC row has no meta columns
			}
			if limit < 0 {
				return usagef("--limit must not be negative")
			}
			settings, err := e.storageSettings(sets)
			if err != nil {
				return err
			}
			opts := hudi.ScanOptions{AsOf: asOf, ReadOptimized: readOptimized, Incremental: incremental, CDC: cdc,
				Begin: begin, End: end, Filter: filter, BatchSize: batchSize, Settings: settings}
			if columns != "" {
				for _, c := range strings.Split(columns, ",") {
					if c = strings.TrimSpace(c); c != "" {
						opts.Columns = append(opts.Columns, c)
					}
				}
			}
			return runRead(cmd.Context(), e, args[0], opts, format, limit, noMeta)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "output format: jsonl, table, vertical (one block per row, for wide rows) or csv")
	f.StringVar(&asOf, "as-of", "", "time travel to an instant (yyyyMMddHHmmssSSS, 'yyyy-MM-dd HH:mm:ss.SSS' or yyyy-MM-dd)")
	f.BoolVar(&readOptimized, "read-optimized", false, "read base files only (merge-on-read tables)")
	f.BoolVar(&incremental, "incremental", false, "read records written in (--begin, --end]")
	f.BoolVar(&cdc, "cdc", false, "read the changes made in (--begin, --end]: rows op, ts_ms, before, after (tables with hoodie.table.cdc.enabled)")
	f.StringVar(&begin, "begin", "", "incremental or CDC start instant, exclusive (default: the beginning; --cdc: required, earliest for all)")
	f.StringVar(&end, "end", "", "incremental or CDC end instant, inclusive (default: the latest)")
	f.StringVar(&columns, "columns", "", "comma-separated columns to return")
	f.StringVar(&filter, "filter", "", "row filter, e.g. \"city = 'sao_paulo' and fare > 20\"")
	f.IntVar(&limit, "limit", 0, "return at most N rows (0 = all)")
	f.IntVar(&batchSize, "batch-size", 8192, "rows per record batch")
	f.BoolVar(&noMeta, "no-meta", false, "leave out the _hoodie_* meta columns")
	f.StringArrayVar(&sets, "set", nil, "storage setting (fs.s3a.*, fs.gs.*, fs.azure.*), hoodie.metadata.enable=false (plan from a listing, not the metadata table), hoodie.enable.data.skipping=true (prune file slices with the metadata table's column_stats), or key generator setting (hoodie.keygen.*) for a table without meta fields whose hoodie.properties lacks it; key=value (repeatable)")
	return cmd
}

func runRead(ctx context.Context, e *env, path string, opts hudi.ScanOptions, format string, limit int, noMeta bool) error {
	t, err := hudi.Open(ctx, path, hudi.WithSettings(opts.Settings))
	if err != nil {
		return err
	}
	scan, err := t.Scan(ctx, opts)
	if err != nil {
		return err
	}
	rows := 0
	take := func(rec arrow.Record) (arrow.Record, bool) {
		if limit > 0 && rows+int(rec.NumRows()) >= limit {
			n := limit - rows
			rows = limit
			return rec.NewSlice(0, int64(n)), true
		}
		rows += int(rec.NumRows())
		rec.Retain()
		return rec, false
	}
	switch format {
	case "jsonl":
		enc := jsonl.NewEncoder(e.stdout, jsonl.Options{DropMetaColumns: noMeta})
		err = scan.Run(ctx, func(rec arrow.Record) error {
			r, done := take(rec)
			defer r.Release()
			if err := enc.WriteRecord(r); err != nil {
				return err
			}
			if done {
				return errLimitReached
			}
			return nil
		})
		if errors.Is(err, errLimitReached) {
			err = nil
		}
		if ferr := enc.Flush(); err == nil {
			err = ferr
		}
		return err
	default:
		// table, vertical and csv stream too: the table format sizes its columns from a
		// bounded sample (rows.go), so memory does not grow with the table.
		sc := scan.Schema()
		if noMeta {
			sc = dropMeta(sc)
		}
		p := newRowPrinter(e.stdout, sc, format)
		err = scan.Run(ctx, func(rec arrow.Record) error {
			r, done := take(rec)
			defer r.Release()
			if err := p.write(r); err != nil {
				return err
			}
			if done {
				return errLimitReached
			}
			return nil
		})
		if err != nil && !errors.Is(err, errLimitReached) {
			return err
		}
		if err := p.close(); err != nil {
			return err
		}
		if format != "csv" {
			fmt.Fprintln(e.stderr, rowCount(rows))
		}
		return nil
	}
}

// rowCount is the "(N rows)" line, "(1 row)" for one.
func rowCount(n int) string {
	if n == 1 {
		return "(1 row)"
	}
	return fmt.Sprintf("(%d rows)", n)
}

func dropMeta(s *arrow.Schema) *arrow.Schema {
	var fields []arrow.Field
	for _, f := range s.Fields() {
		if !strings.HasPrefix(f.Name, jsonl.MetaColumnPrefix) {
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}
