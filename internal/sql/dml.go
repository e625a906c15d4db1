package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// Write operations as the facade names them.
const (
	opUpsert               = "upsert"
	opInsert               = "insert"
	opBulkInsert           = "bulk_insert"
	opDelete               = "delete"
	opInsertOverwrite      = "insert_overwrite"
	opInsertOverwriteTable = "insert_overwrite_table"
)

// The session/table settings that choose INSERT's operation (Hudi 0.14) are config's keys;
// the overwrite mode is a Spark SQL session setting, not a key of Hudi's registry.
const keyOverwriteMode = "hoodie.datasource.overwrite.mode"

// writeSettings are the hoodie.* settings of a write to h: the table's TBLPROPERTIES
// (Spark SQL passes a table's properties to every write), overridden by the session's SET
// values, overridden by the statement's own.
func (e *Engine) writeSettings(h *hudiTable, extra map[string]string) map[string]string {
	out := map[string]string{}
	if h.entry != nil {
		for k, v := range h.entry.Props {
			out[k] = v
		}
	}
	for k, v := range e.settings {
		// Only hoodie.* keys configure writes; other SET keys (spark.*) stay in the session.
		if strings.HasPrefix(strings.ToLower(k), "hoodie.") {
			out[k] = v
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	// The statement decides the operation; a SET of the datasource key must not turn an
	// UPDATE into something else (it only steers INSERT, see insertOperation).
	delete(out, config.Operation.Name)
	for _, k := range []string{config.SparkSQLInsertIntoOperation.Name, config.SQLInsertMode.Name, config.SQLBulkInsertEnable.Name, keyOverwriteMode} {
		delete(out, k)
	}
	return out
}

// setting looks a key up in the session, then the table's properties.
func (e *Engine) setting(h *hudiTable, key string) (string, bool) {
	if v, ok := e.settings[key]; ok {
		return v, true
	}
	if h.entry != nil {
		if v, ok := h.entry.Props[key]; ok {
			return v, true
		}
	}
	return "", false
}

// writeQuery runs q (whose columns are the table's, already cast to its types), casts the
// rows to the table's Arrow schema and writes them with op in one commit. A query without
// rows commits nothing, except for the overwrite operations, whose empty input still
// replaces data.
func (e *Engine) writeQuery(ctx context.Context, h *hudiTable, tsc *arrow.Schema, q, op string, extra map[string]string) (*hudi.WriteResult, int64, error) {
	rows, err := e.rows(ctx, h, tsc, q)
	if err != nil {
		return nil, 0, err
	}
	defer rows.release()
	res, err := e.commit(ctx, h, rows, op, extra)
	return res, rows.n, err
}

// rowSet is computed input of a write: batches in the table's schema.
type rowSet struct {
	batches []arrow.Record
	n       int64
}

// prepped reports rows that carry _hoodie_record_key (dmlSchema).
func (r *rowSet) prepped() bool {
	return len(r.batches) > 0 && fieldIndex(r.batches[0].Schema(), recordKeyColumn) >= 0
}

func (r *rowSet) release() {
	for _, b := range r.batches {
		b.Release()
	}
	r.batches = nil
}

// rows runs q and casts its rows to the table's schema.
func (e *Engine) rows(ctx context.Context, h *hudiTable, tsc *arrow.Schema, q string) (*rowSet, error) {
	_, recs, err := e.query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	out := &rowSet{}
	for _, r := range recs {
		if r.NumRows() == 0 {
			continue
		}
		c, err := schema.ConformRecord(memory.DefaultAllocator, r, tsc)
		if err != nil {
			out.release()
			return nil, fmt.Errorf("cast rows to table %s: %w", h.label(), err)
		}
		if v := schema.CheckNotNull(c); v != nil {
			// Spark refuses a NULL for a NOT NULL column of the target table as well.
			c.Release()
			out.release()
			return nil, fmt.Errorf("table %s: NOT NULL constraint violated: %w", h.label(), v)
		}
		out.n += r.NumRows()
		out.batches = append(out.batches, c)
	}
	return out, nil
}

// isPartitionColumn reports whether col is a partition column of the table.
func isPartitionColumn(h *hudiTable, col string) bool {
	for _, p := range h.t.Config().PartitionFields() {
		if strings.EqualFold(p, col) {
			return true
		}
	}
	return false
}

// autoKeys reports a table without record key fields: its keys are generated.
func autoKeys(h *hudiTable) bool { return len(h.t.Config().RecordKeyFields()) == 0 }

// withRecordKey is the schema of a prepped write's rows: the table's columns and the
// stored key, _hoodie_record_key, which is how UPDATE, DELETE and MERGE INTO name the
// records of a table whose keys are generated (Java 0.14's prepped SQL writes).
func withRecordKey(tsc *arrow.Schema) *arrow.Schema {
	fields := append(tsc.Fields(), arrow.Field{Name: recordKeyColumn, Type: arrow.BinaryTypes.String, Nullable: true})
	md := tsc.Metadata()
	return arrow.NewSchema(fields, &md)
}

// recordKeyColumn is the meta column holding a record's key.
const recordKeyColumn = "_hoodie_record_key"

// dmlSchema is the schema the rows of an UPDATE, DELETE or MERGE INTO are cast to: with
// _hoodie_record_key for a table whose keys are generated.
func dmlSchema(h *hudiTable, tsc *arrow.Schema) *arrow.Schema {
	if autoKeys(h) {
		return withRecordKey(tsc)
	}
	return tsc
}

// commit writes computed rows with op in one commit; nothing is committed for no rows,
// except by the overwrite operations, whose empty input still replaces data.
func (e *Engine) commit(ctx context.Context, h *hudiTable, rows *rowSet, op string, extra map[string]string) (*hudi.WriteResult, error) {
	if rows.n == 0 && op != opInsertOverwrite && op != opInsertOverwriteTable {
		return nil, nil
	}
	res, err := h.t.Write(ctx, rows.batches, hudi.WriteOptions{Operation: op, Settings: e.writeSettings(h, extra), Logger: e.logger, Now: e.o.Now, Progress: e.o.Progress,
		Prepped: rows.prepped()})
	if err != nil {
		return res, fmt.Errorf("write %s: %w", h.label(), err)
	}
	return res, nil
}

// dmlResult words a DML summary.
func dmlResult(kind, table string, n int64, res ...*hudi.WriteResult) *Result {
	r := &Result{Kind: kind}
	var parts []string
	for _, w := range res {
		if w == nil {
			continue
		}
		r.Instants = append(r.Instants, w.Instant)
		parts = append(parts, fmt.Sprintf("%s %s (%s)", w.Action, w.Instant, strings.ToLower(w.Operation)))
	}
	if len(parts) == 0 {
		r.Summary = fmt.Sprintf("%s %s: %d row(s) affected; nothing to commit", kind, table, n)
	} else {
		r.Summary = fmt.Sprintf("%s %s: %d row(s) affected; committed %s", kind, table, n, strings.Join(parts, ", "))
	}
	return r
}

// castCol casts a DuckDB expression to the type of a table column.
func castCol(expr string, f arrow.Field) (string, error) {
	t, err := duckType(f.Type)
	if err != nil {
		return "", fmt.Errorf("column %s: %w", f.Name, err)
	}
	return "CAST(" + expr + " AS " + t + ")", nil
}

// fieldIndex finds a table column case-insensitively, as Spark resolves names.
func fieldIndex(sc *arrow.Schema, name string) int { return schema.FieldIndex(sc, name) }

func columnNames(sc *arrow.Schema) string {
	names := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// unknownColumn words the error for a column the table lacks.
func unknownColumn(stmt string, h *hudiTable, col string, sc *arrow.Schema) error {
	return fmt.Errorf("%s %s: column %q not found (columns: %s)", stmt, h.label(), col, columnNames(sc))
}

// insertOperation picks INSERT's write operation as Hudi 0.14's Spark SQL does:
// INSERT OVERWRITE with a PARTITION clause overwrites the partitions written
// (insert_overwrite), without one the whole table (insert_overwrite_table;
// hoodie.datasource.overwrite.mode=dynamic makes it insert_overwrite). INSERT INTO uses
// hoodie.spark.sql.insert.into.operation when set, the deprecated hoodie.sql.insert.mode /
// hoodie.sql.bulk.insert.enable when only they are set, and otherwise upsert for a table with
// a precombine field and insert without one (sql_dml.md of 0.14.1).
func (e *Engine) insertOperation(h *hudiTable, s *parser.Insert) (op string, extra map[string]string, err error) {
	if s.Overwrite {
		if len(s.Partition) > 0 && len(h.t.Config().PartitionFields()) > 0 {
			return opInsertOverwrite, nil, nil
		}
		if m, ok := e.setting(h, keyOverwriteMode); ok && strings.EqualFold(m, "dynamic") && len(h.t.Config().PartitionFields()) > 0 {
			return opInsertOverwrite, nil, nil
		}
		return opInsertOverwriteTable, nil, nil
	}
	if v, ok := e.setting(h, config.SparkSQLInsertIntoOperation.Name); ok {
		switch op := strings.ToLower(strings.TrimSpace(v)); op {
		case opInsert, opUpsert, opBulkInsert:
			return op, nil, nil
		default:
			return "", nil, fmt.Errorf("%s=%q: want insert, upsert or bulk_insert", config.SparkSQLInsertIntoOperation.Name, v)
		}
	}
	hasPrecombine := len(h.t.Config().OrderingFields()) > 0
	if v, ok := e.setting(h, config.SQLBulkInsertEnable.Name); ok && strings.EqualFold(v, "true") {
		return opBulkInsert, nil, nil
	}
	if v, ok := e.setting(h, config.SQLInsertMode.Name); ok {
		switch strings.ToLower(v) {
		case "upsert":
			if hasPrecombine {
				return opUpsert, nil, nil
			}
			return opInsert, nil, nil
		case "strict":
			// Strict mode keeps the primary key unique: an existing key fails the insert.
			if _, set := e.setting(h, config.InsertDupPolicy.Name); !set {
				return opInsert, map[string]string{config.InsertDupPolicy.Name: "fail"}, nil
			}
			return opInsert, nil, nil
		case "non-strict":
			return opInsert, nil, nil
		default:
			return "", nil, fmt.Errorf("%s=%q: want upsert, strict or non-strict", config.SQLInsertMode.Name, v)
		}
	}
	if hasPrecombine {
		return opUpsert, nil, nil
	}
	return opInsert, nil, nil
}

func (e *Engine) execInsert(ctx context.Context, b *binder, s *parser.Insert) (*Result, error) {
	kind := "INSERT INTO"
	if s.Overwrite {
		kind = "INSERT OVERWRITE"
	}
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("%s: %w", kind, err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("%s %s: %w", kind, h.label(), err))
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return fail(err)
	}
	src, err := b.render(ctx, s.Source)
	if err != nil {
		return fail(err)
	}
	q, err := e.insertQuery(ctx, b, h, tsc, src, s.Columns, s.Partition)
	if err != nil {
		return fail(err)
	}
	op, extra, err := e.insertOperation(h, s)
	if err != nil {
		return fail(err)
	}
	res, n, err := e.writeQuery(ctx, h, tsc, q, op, extra)
	if err != nil {
		return fail(err)
	}
	return dmlResult(kind, h.label(), n, res), nil
}

// insertQuery builds the query giving the rows an INSERT (or CTAS) writes: the source's
// columns, without Hudi meta columns (Hudi drops them from the query, so a SELECT * of a
// Hudi table can be inserted), matched to the table's columns by position — or by the
// named column list — with static PARTITION values filled in, and every column cast to the
// table's type.
func (e *Engine) insertQuery(ctx context.Context, b *binder, h *hudiTable, tsc *arrow.Schema, src string, named []string, part []parser.PartitionValue) (string, error) {
	cols, err := e.columns(ctx, src)
	if err != nil {
		return "", err
	}
	var keep []int
	for i, c := range cols {
		if !strings.HasPrefix(strings.ToLower(c), "_hoodie_") {
			keep = append(keep, i)
		}
	}
	// Static partition values.
	static := map[int]string{}
	dynamic := map[int]bool{}
	pfields := h.t.Config().PartitionFields()
	for _, p := range part {
		i := fieldIndex(tsc, p.Column)
		if i < 0 {
			return "", fmt.Errorf("PARTITION column %q not found (columns: %s)", p.Column, columnNames(tsc))
		}
		isPart := false
		for _, pf := range pfields {
			if strings.EqualFold(pf, p.Column) {
				isPart = true
			}
		}
		if !isPart {
			return "", fmt.Errorf("PARTITION column %q is not a partition column of the table (partition columns: %s)", p.Column, strings.Join(pfields, ", "))
		}
		if p.Value == nil {
			dynamic[i] = true
			continue
		}
		v, err := b.render(ctx, *p.Value)
		if err != nil {
			return "", err
		}
		static[i] = v
	}
	// The table columns the source's columns feed, in order.
	var targets []int
	if len(named) > 0 {
		seen := map[int]bool{}
		for _, c := range named {
			i := fieldIndex(tsc, c)
			if i < 0 {
				return "", fmt.Errorf("column %q not found (columns: %s)", c, columnNames(tsc))
			}
			if seen[i] {
				return "", fmt.Errorf("column %q is listed twice", c)
			}
			seen[i] = true
			if _, ok := static[i]; ok {
				return "", fmt.Errorf("column %q has a static PARTITION value and cannot be listed too", c)
			}
			targets = append(targets, i)
		}
		// Dynamic partition columns not named come last, as Spark appends them.
		for i := range tsc.Fields() {
			if dynamic[i] && !seen[i] {
				targets = append(targets, i)
			}
		}
	} else {
		for i := range tsc.Fields() {
			if _, ok := static[i]; !ok {
				targets = append(targets, i)
			}
		}
	}
	if len(keep) != len(targets) {
		want := make([]string, len(targets))
		for k, i := range targets {
			want[k] = tsc.Field(i).Name
		}
		return "", fmt.Errorf("the query gives %d column(s) but %d are expected (%s)", len(keep), len(targets), strings.Join(want, ", "))
	}
	from := make(map[int]int, len(targets)) // table column → source column
	for k, i := range targets {
		from[i] = keep[k]
	}
	alias := make([]string, len(cols))
	for i := range cols {
		alias[i] = fmt.Sprintf("c%d", i)
	}
	sel := make([]string, tsc.NumFields())
	for i, f := range tsc.Fields() {
		var expr string
		if v, ok := static[i]; ok {
			expr = "(" + v + ")"
		} else if j, ok := from[i]; ok {
			expr = "__hudi_src.c" + fmt.Sprint(j)
		} else {
			if !f.Nullable {
				return "", fmt.Errorf("column %s is NOT NULL and gets no value", f.Name)
			}
			expr = "NULL"
		}
		c, err := castCol(expr, f)
		if err != nil {
			return "", err
		}
		sel[i] = c + " AS " + quoteIdent(f.Name)
	}
	return "SELECT " + strings.Join(sel, ", ") + "\nFROM (\n" + src + "\n) AS __hudi_src(" + strings.Join(alias, ", ") + ")", nil
}

// targetAlias is the name a DML statement's WHERE and SET may qualify target columns with:
// the alias, else the table's own name.
func targetAlias(alias string, h *hudiTable) string {
	if alias != "" {
		return alias
	}
	if h.name != "" {
		return h.name
	}
	return "__hudi_target"
}

// isKeyField reports whether col is a record key field of the table.
func isKeyField(h *hudiTable, col string) bool {
	for _, k := range h.t.Config().RecordKeyFields() {
		if strings.EqualFold(k, col) {
			return true
		}
	}
	return false
}

func (e *Engine) execUpdate(ctx context.Context, b *binder, s *parser.Update) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("UPDATE: %w", err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("UPDATE %s: %w", h.label(), err))
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return fail(err)
	}
	b.columnsOf = append(b.columnsOf, tsc)
	assigned := map[int]string{}
	for _, a := range s.Set {
		i := fieldIndex(tsc, a.Column)
		if i < 0 {
			return nil, atPos(s.Pos, unknownColumn("UPDATE", h, a.Column, tsc))
		}
		// An upsert keyed by a changed key would add a record and keep the old one.
		if isKeyField(h, a.Column) {
			return fail(fmt.Errorf("the record key column %s cannot be updated", tsc.Field(i).Name))
		}
		v, err := b.render(ctx, a.Value)
		if err != nil {
			return fail(err)
		}
		assigned[i] = v
	}
	tgt, err := b.load(ctx, h, hudi.ScanOptions{})
	if err != nil {
		return fail(err)
	}
	alias := quoteIdent(targetAlias(s.Alias, h))
	sel := make([]string, tsc.NumFields())
	for i, f := range tsc.Fields() {
		expr := alias + "." + quoteIdent(f.Name)
		if v, ok := assigned[i]; ok {
			expr = "(" + v + ")"
		}
		c, err := castCol(expr, f)
		if err != nil {
			return fail(err)
		}
		sel[i] = c + " AS " + quoteIdent(f.Name)
	}
	where := "TRUE"
	if s.Where != nil {
		if where, err = b.render(ctx, *s.Where); err != nil {
			return fail(err)
		}
	}
	if autoKeys(h) {
		sel = append(sel, alias+"."+quoteIdent(recordKeyColumn)+" AS "+quoteIdent(recordKeyColumn))
	}
	q := "SELECT " + strings.Join(sel, ", ") + "\nFROM " + tgt + " AS " + alias + "\nWHERE (" + where + ")"
	res, n, err := e.writeQuery(ctx, h, dmlSchema(h, tsc), q, opUpsert, nil)
	if err != nil {
		return fail(err)
	}
	return dmlResult("UPDATE", h.label(), n, res), nil
}

func (e *Engine) execDelete(ctx context.Context, b *binder, s *parser.Delete) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("DELETE: %w", err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("DELETE FROM %s: %w", h.label(), err))
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return fail(err)
	}
	b.columnsOf = append(b.columnsOf, tsc)
	tgt, err := b.load(ctx, h, hudi.ScanOptions{})
	if err != nil {
		return fail(err)
	}
	alias := quoteIdent(targetAlias(s.Alias, h))
	where := "TRUE"
	if s.Where != nil {
		if where, err = b.render(ctx, *s.Where); err != nil {
			return fail(err)
		}
	}
	// The whole row goes to the writer (it needs only the key and partition fields).
	sel := make([]string, tsc.NumFields())
	for i, f := range tsc.Fields() {
		c, err := castCol(alias+"."+quoteIdent(f.Name), f)
		if err != nil {
			return fail(err)
		}
		sel[i] = c + " AS " + quoteIdent(f.Name)
	}
	if autoKeys(h) {
		sel = append(sel, alias+"."+quoteIdent(recordKeyColumn)+" AS "+quoteIdent(recordKeyColumn))
	}
	q := "SELECT " + strings.Join(sel, ", ") + "\nFROM " + tgt + " AS " + alias + "\nWHERE (" + where + ")"
	res, n, err := e.writeQuery(ctx, h, dmlSchema(h, tsc), q, opDelete, nil)
	if err != nil {
		return fail(err)
	}
	return dmlResult("DELETE FROM", h.label(), n, res), nil
}

func (e *Engine) execSelect(ctx context.Context, b *binder, s *parser.Select) (*Result, error) {
	q, err := b.render(ctx, s.Query)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	if e.o.StreamResults {
		sc, read, cleanup, err := e.queryStream(ctx, q)
		if err != nil {
			return nil, atPos(s.Pos, e.duckError(err))
		}
		return &Result{Kind: "SELECT", Schema: sc, stream: read, cleanup: cleanup}, nil
	}
	sc, recs, err := e.query(ctx, q)
	if err != nil {
		return nil, atPos(s.Pos, e.duckError(err))
	}
	return &Result{Kind: "SELECT", Schema: sc, Records: recs}, nil
}
