package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/write/index"
)

// parseSettings turns repeated --set k=v flags into a map, over the settings of
// hudi-defaults.conf (see env.defaults).
// openWithSettings opens the table at path with the --set values (over the environment's
// settings), which the commands that open one table also hand to the operation.
func (e *env) openWithSettings(ctx context.Context, path string, sets []string) (*hudi.Table, map[string]string, error) {
	settings, err := e.parseSettings(sets)
	if err != nil {
		return nil, nil, err
	}
	t, err := hudi.Open(ctx, path, hudi.WithSettings(settings))
	if err != nil {
		return nil, nil, err
	}
	return t, settings, nil
}

func (e *env) parseSettings(sets []string) (map[string]string, error) {
	return e.settingsOver(sets, false)
}

// storageSettings is parseSettings for the commands that only read (read, describe,
// timeline): of hudi-defaults.conf they take the storage keys (fs.*), whose backend
// opens the table; the file's hoodie.* keys configure writes and services.
func (e *env) storageSettings(sets []string) (map[string]string, error) {
	return e.settingsOver(sets, true)
}

func (e *env) settingsOver(sets []string, storageOnly bool) (map[string]string, error) {
	m := map[string]string{}
	defaults, err := e.defaults()
	if err != nil {
		return nil, err
	}
	for k, v := range defaults {
		if !storageOnly || strings.HasPrefix(k, config.StoragePrefix) {
			m[k] = v
		}
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--set %q: want key=value", s)
		}
		m[strings.TrimSpace(k)] = v
	}
	return m, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func newCreateCmd(e *env) *cobra.Command {
	var name, typ, keys, precombine, partitionBy, ddl, database string
	var hiveStyle bool
	var sets []string
	var version int
	cmd := &cobra.Command{
		Use:   "create TABLE",
		Short: "Create a Hudi table (table version 6, 8 or 9) at a path",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ddl == "" {
				return usagef("--schema is required, e.g. --schema 'uuid STRING, ts BIGINT, fare DOUBLE, city STRING'")
			}
			settings, err := e.parseSettings(sets)
			if err != nil {
				return err
			}
			if _, ok := settings["hoodie.table.name"]; name == "" && !ok {
				name = filepath.Base(filepath.Clean(args[0]))
			}
			if !cmd.Flags().Changed("type") {
				typ = "" // cow, unless hoodie.table.type says otherwise
			}
			if cmd.Flags().Changed("table-version") && version != 6 && version != 8 && version != 9 {
				return usagef("--table-version %d: want 6, 8 or 9", version)
			}
			t, err := hudi.Create(cmd.Context(), args[0], hudi.CreateOptions{TableVersion: version, Name: name, Database: database, Type: typ,
				RecordKeyFields: splitList(keys), PartitionFields: splitList(partitionBy), PrecombineField: precombine,
				HiveStyle: hiveStyle, Schema: ddl, Settings: settings, Logger: e.logger})
			if err != nil {
				return err
			}
			m := t
			fmt.Fprintf(e.stdout, "created %s table %s at %s\n", m.Type(), m.Config().Name(), args[0])
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "table name (default: the directory name)")
	f.StringVar(&database, "database", "", "database name recorded in hoodie.properties")
	f.StringVar(&typ, "type", "cow", "table type: cow or mor")
	f.StringVar(&keys, "record-key", "", "record key field(s), comma-separated (none: the record keys are generated, as Hudi 0.14 generates them)")
	f.StringVar(&precombine, "precombine", "", "ordering (precombine) field")
	f.StringVar(&partitionBy, "partition-by", "", "partition field(s), comma-separated")
	f.BoolVar(&hiveStyle, "hive-style", false, "field=value partition directories")
	f.StringVar(&ddl, "schema", "", "columns in Spark DDL, e.g. 'uuid STRING, ts BIGINT, fare DOUBLE'")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	f.IntVar(&version, "table-version", 0, "table version: 6 (Hudi 0.14/0.15), 8 (Hudi 1.0) or 9 (Hudi 1.1/1.2); default hoodie.write.table.version, else 6")
	return cmd
}

func newWriteCmd(e *env) *cobra.Command {
	var op, input, inputFormat, format, progress string
	var sets []string
	cmd := &cobra.Command{
		Use:   "write TABLE",
		Short: "Write rows: upsert, insert, bulk_insert, delete, insert_overwrite, insert_overwrite_table, delete_partition",
		Long: `Write rows to a table and commit them as one instant.

Input rows come from --input (a file, or - for stdin) in the canonical JSON Lines
encoding (the output of 'hudi read --format jsonl'), or Parquet. _hoodie_* columns in
the input are ignored. delete needs only the record key and partition columns.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			if inputFormat == "" {
				inputFormat = "jsonl"
				if strings.HasSuffix(input, ".parquet") {
					inputFormat = "parquet"
				}
			}
			if inputFormat != "jsonl" && inputFormat != "parquet" {
				return usagef("--input-format %q: want jsonl or parquet", inputFormat)
			}
			settings, err := e.parseSettings(sets)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("op") {
				// hoodie.datasource.write.operation may name it; else upsert. An explicit
				// --op that the setting contradicts is refused by the write.
				op = "upsert"
				if v, ok := settings["hoodie.datasource.write.operation"]; ok {
					op = v
				}
			}
			if input == "" && op != "delete_partition" {
				return usagef("--input is required for %s (use - for stdin)", op)
			}
			pp, err := newProgressPrinter(e.stderr, progress)
			if err != nil {
				return err
			}
			return runWrite(cmd.Context(), e, args[0], op, input, inputFormat, format, settings, pp)
		},
	}
	f := cmd.Flags()
	f.StringVar(&op, "op", "upsert", "write operation")
	f.StringVar(&input, "input", "", "input file, or - for stdin")
	f.StringVar(&inputFormat, "input-format", "", "jsonl (default) or parquet")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	f.StringVar(&format, "format", "text", "result format: text or json")
	f.StringVar(&progress, "progress", "auto", "progress lines on stderr: auto (once a write runs 2 s), always or never")
	return cmd
}

func runWrite(ctx context.Context, e *env, path, op, input, inputFormat, format string, settings map[string]string, pp *progressPrinter) error {
	t, err := hudi.Open(ctx, path, hudi.WithSettings(settings))
	if err != nil {
		return err
	}
	wo := hudi.WriteOptions{Operation: op, Settings: settings, Logger: e.logger, RequireExistingPartitions: true}
	if pp != nil {
		wo.Progress = pp.report
	}
	if op == "delete_partition" {
		if err := checkPartitionsExist(ctx, t, settings["hoodie.datasource.write.partitions.to.delete"]); err != nil {
			return err
		}
	}
	var res *hudi.WriteResult
	if input == "" {
		res, err = t.Write(ctx, nil, wo)
	} else {
		// The input is decoded as the write reads it: a bulk_insert streams it into its
		// files (memory bounded whatever the input's size), other operations read it all
		// first (Table.WriteReader).
		var rdr array.RecordReader
		var done func()
		if rdr, done, err = inputReader(ctx, t, input, inputFormat, requireAllColumns(t, op, settings), deleteColumns(t, op, settings)); err != nil {
			return err
		}
		res, err = t.WriteReader(ctx, rdr, wo)
		rdr.Release()
		done()
	}
	var svcErr *hudi.ServiceError
	if err != nil && (!errors.As(err, &svcErr) || res == nil) {
		return err
	}
	// A write whose inline service failed after the commit still prints its result, with
	// the failure, so that a script sees the instant and does not write the rows again.
	if format == "json" {
		out := struct {
			*hudi.WriteResult
			Committed    bool   `json:"committed"`
			ServiceError string `json:"service_error,omitempty"`
		}{WriteResult: res, Committed: true}
		if svcErr != nil {
			out.ServiceError = svcErr.Err.Error()
		}
		if encErr := json.NewEncoder(e.stdout).Encode(out); encErr != nil {
			return encErr
		}
		return err
	}
	if len(res.Partitions) > 0 {
		fmt.Fprintf(e.stdout, "committed %s %s (%s): dropped %d partition(s): %s\n", res.Action, res.Instant, res.Operation,
			len(res.Partitions), strings.Join(res.Partitions, ", "))
		return err
	}
	fmt.Fprintf(e.stdout, "committed %s %s (%s): %d file(s), %d inserted, %d updated, %d deleted, %d bytes\n",
		res.Action, res.Instant, res.Operation, res.FilesWritten, res.Records.Inserted, res.Records.Updated, res.Records.Deleted, res.Bytes)
	return err
}

// inputReader returns a reader that decodes the input rows, with the table's schema (plus
// the meta columns, which are accepted and ignored) for JSON Lines, batch by batch as it
// is read, and done, which closes the input after the reader is released.
//
// With requireAll every JSON Lines row must name every table column (an explicit null is a
// value): a missing one is an error naming the line and the columns.
// Otherwise the rows must name each of deleteKeys.
func inputReader(ctx context.Context, t *hudi.Table, input, inputFormat string, requireAll bool, deleteKeys []string) (array.RecordReader, func(), error) {
	var r io.Reader = os.Stdin
	name := "stdin"
	done := func() {}
	if input != "-" {
		f, err := os.Open(input)
		if err != nil {
			return nil, nil, fmt.Errorf("input: %w", err)
		}
		done = func() { f.Close() }
		r, name = f, input
		if inputFormat == "parquet" {
			st, err := f.Stat()
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			pf, err := parquet.Open(f, st.Size(), input, memory.DefaultAllocator, 0)
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			done = func() { pf.Close(); f.Close() }
			errStop := errors.New("reader released")
			return array.ReaderFromIter(pf.Schema(), func(yield func(arrow.RecordBatch, error) bool) {
				err := pf.ReadBatches(ctx, nil, nil, func(rec arrow.Record) error {
					rec.Retain() // the reader releases it when it moves on
					if !yield(rec, nil) {
						return errStop
					}
					return nil
				})
				if err != nil && !errors.Is(err, errStop) {
					yield(nil, fmt.Errorf("input %s: %w", name, err))
				}
			}), done, nil
		}
	} else if inputFormat == "parquet" {
		return nil, nil, usagef("parquet input must be a file, not stdin")
	}
	// The table schema plus the partition columns a drop.partition.columns table leaves
	// out of it: input rows carry them, and they key the rows.
	sc, err := t.InputSchema(ctx)
	if err == nil && sc == nil {
		err = errors.New("the table records no schema to read the input with")
	}
	if err != nil {
		done()
		return nil, nil, err
	}
	withMeta := schema.WithMetaFields(sc)
	dec := jsonl.NewDecoder(r, withMeta, memory.DefaultAllocator, 0)
	switch {
	case requireAll:
		var cols []string
		for _, f := range sc.Fields() {
			if !schema.IsMetaField(f.Name) {
				cols = append(cols, f.Name)
			}
		}
		dec.RequireColumns(cols, "; every table column is required (set hoodie.write.set.null.for.missing.columns=true to write nulls for missing columns)")
	case len(deleteKeys) > 0:
		dec.RequireColumns(deleteKeys, "; a delete needs the record key and, under a non-global index, the partition columns")
	}
	return array.ReaderFromIter(withMeta, func(yield func(arrow.RecordBatch, error) bool) {
		for {
			rec, err := dec.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, fmt.Errorf("input %s: %w", name, err))
				return
			}
			if !yield(rec, nil) { // the reader owns rec (it releases it)
				return
			}
		}
	}), done, nil
}

// checkPartitionsExist refuses a delete_partition whose hoodie.datasource.write.partitions.to.delete
// names a partition (or a pattern) that matches none of the table's: Java commits an empty
// replacecommit then, which on the command line is almost always a typo — a
// non-hive-style path for a hive-style table, say. hudi-go's choice (docs/cli.md).
func checkPartitionsExist(ctx context.Context, t *hudi.Table, list string) error {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	view, err := t.View(ctx, "")
	if err != nil {
		return err
	}
	existing := view.Partitions()
	for _, pat := range strings.Split(list, ",") {
		pat = strings.TrimSpace(pat)
		found := false
		for _, p := range existing {
			if ok, _ := path.Match(pat, p); ok || p == pat {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("delete_partition: %q names no partition of the table (partitions: %s); nothing was written", pat, strings.Join(existing, ", "))
		}
	}
	return nil
}

// deleteColumns are the columns each row of a delete must name: the record key fields and,
// under a non-global index, the partition fields (without them the index finds nothing).
func deleteColumns(t *hudi.Table, op string, settings map[string]string) []string {
	if op != "delete" {
		return nil
	}
	cfg := t.Config()
	cols := cfg.RecordKeyFields()
	// An index type the write will refuse asks for the partition columns as well: the
	// write's own error names the setting.
	if global, err := index.IsGlobal(index.Type(settings[config.IndexType.Name])); err != nil || !global {
		cols = append(cols, cfg.PartitionFields()...)
	}
	return cols
}

// requireAllColumns reports whether input rows must carry every table column: a missing
// column is refused, as Java 0.14 refuses an input schema that lacks a table column
// (HoodieSparkSqlWriter.deduceWriterSchema), unless
// hoodie.write.set.null.for.missing.columns=true, the payload is a partial-update payload
// (null fields keep the stored value), or the operation needs only keys (delete,
// delete_partition).
func requireAllColumns(t *hudi.Table, op string, settings map[string]string) bool {
	switch op {
	case "delete", "delete_partition":
		return false
	}
	for _, k := range []string{"hoodie.write.set.null.for.missing.columns", "hoodie.datasource.write.reconcile.schema"} {
		if strings.EqualFold(strings.TrimSpace(settings[k]), "true") {
			return false
		}
	}
	payload := t.Config().PayloadClass()
	if p, ok := settings["hoodie.datasource.write.payload.class"]; ok {
		payload = p
	}
	return strings.TrimSpace(payload) != merge.PartialUpdatePayload
}
