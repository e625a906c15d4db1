package sql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// Table properties Spark SQL's Hudi integration reads at CREATE TABLE (HoodieOptionConfig),
// with the hoodie.* keys they stand for.
var createAliases = map[string]string{
	"type":            "hoodie.datasource.write.table.type",
	"primarykey":      "hoodie.datasource.write.recordkey.field",
	"precombinefield": "hoodie.datasource.write.precombine.field",
	"payloadclass":    "hoodie.datasource.write.payload.class",
}

// createSpec is CREATE TABLE's options after reading TBLPROPERTIES/OPTIONS.
type createSpec struct {
	typ        string
	keys       []string
	precombine string
	hiveStyle  bool
	props      map[string]string // hoodie.* properties (persisted in the catalog)
}

func readCreateProps(s *parser.CreateTable) (*createSpec, error) {
	cs := &createSpec{typ: "cow", hiveStyle: true, props: map[string]string{}}
	all := append(append([]parser.Property{}, s.Options...), s.Properties...)
	for _, p := range all {
		k := strings.TrimSpace(p.Key)
		if canon, ok := createAliases[strings.ToLower(k)]; ok {
			k = canon
		}
		lk := strings.ToLower(k)
		switch lk {
		case "hoodie.datasource.write.table.type", "hoodie.table.type":
			switch strings.ToLower(p.Value) {
			case "cow", "copy_on_write":
				cs.typ = "cow"
			case "mor", "merge_on_read":
				cs.typ = "mor"
			default:
				return nil, fmt.Errorf("table type %q: want cow or mor", p.Value)
			}
			continue
		case "hoodie.datasource.write.recordkey.field", "hoodie.table.recordkey.fields":
			cs.keys = splitList(p.Value)
			continue
		case "hoodie.datasource.write.precombine.field", "hoodie.table.precombine.field":
			cs.precombine = strings.TrimSpace(p.Value)
			continue
		case config.HiveStylePartitioning.Name:
			cs.hiveStyle = !strings.EqualFold(strings.TrimSpace(p.Value), "false")
		}
		if strings.HasPrefix(lk, "hoodie.") {
			cs.props[k] = p.Value
		}
	}
	return cs, nil
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

// ddlOf renders columns as the Spark DDL schema.ParseDDL reads.
func ddlOf(cols []parser.ColumnDef) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		s := "`" + strings.ReplaceAll(c.Name, "`", "``") + "` " + c.Type
		if c.NotNull {
			s += " NOT NULL"
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

// partitionLast moves the partition columns to the end, in PARTITIONED BY order, as Spark
// SQL does for partitioned tables.
func partitionLast(cols []parser.ColumnDef, part []string) ([]parser.ColumnDef, error) {
	var rest, last []parser.ColumnDef
	used := map[int]bool{}
	for _, p := range part {
		found := -1
		for i, c := range cols {
			if strings.EqualFold(c.Name, p) {
				found = i
			}
		}
		if found < 0 {
			return nil, fmt.Errorf("PARTITIONED BY column %q is not a column of the table", p)
		}
		if used[found] {
			return nil, fmt.Errorf("PARTITIONED BY lists %q twice", p)
		}
		used[found] = true
		last = append(last, cols[found])
	}
	for i, c := range cols {
		if !used[i] {
			rest = append(rest, c)
		}
	}
	return append(rest, last...), nil
}

// canonicalNames replaces names by the column's spelling in cols (Spark compares names
// case-insensitively; Hudi stores the column's own spelling).
func canonicalNames(names []string, cols []parser.ColumnDef) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ""
		for _, c := range cols {
			if strings.EqualFold(c.Name, n) {
				out[i] = c.Name
			}
		}
		if out[i] == "" {
			return nil, fmt.Errorf("column %q not found", n)
		}
	}
	return out, nil
}

func (e *Engine) execCreate(ctx context.Context, b *binder, s *parser.CreateTable) (*Result, error) {
	kind := "CREATE TABLE"
	if s.AsSelect != nil {
		kind = "CREATE TABLE AS SELECT"
	}
	if s.Table.Path != "" {
		return nil, atPos(s.Pos, fmt.Errorf("%s: name the table (a path goes in LOCATION)", kind))
	}
	db, name, err := e.splitName(s.Table)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	label := strings.ToLower(db) + "." + strings.ToLower(name)
	fail := func(err error) (*Result, error) { return nil, atPos(s.Pos, fmt.Errorf("%s %s: %w", kind, label, err)) }
	if s.Using != "" && s.Using != "hudi" {
		return fail(fmt.Errorf("USING %s: only USING HUDI tables are supported", s.Using))
	}
	if s.Using == "" {
		return fail(errors.New("USING HUDI is required (hudi-go creates only Hudi tables)"))
	}
	if ent, err := e.cat.lookup(db, name); err != nil {
		return fail(err)
	} else if ent != nil {
		if s.IfNotExists {
			return &Result{Kind: kind, Summary: fmt.Sprintf("%s %s: table already exists (IF NOT EXISTS)", kind, label)}, nil
		}
		return fail(fmt.Errorf("table already exists at %s", ent.Path))
	}
	cs, err := readCreateProps(s)
	if err != nil {
		return fail(err)
	}
	path := e.cat.defaultPath(db, name)
	external := s.Location != ""
	if external {
		if path, err = filepath.Abs(s.Location); err != nil {
			return fail(err)
		}
	}
	// A LOCATION holding a Hudi table already is registered, as Spark does.
	if _, err := os.Stat(filepath.Join(path, ".hoodie", "hoodie.properties")); err == nil {
		if s.AsSelect != nil {
			return fail(fmt.Errorf("a table already exists at %s", path))
		}
		existing, err := hudi.Open(ctx, path)
		if err != nil {
			return fail(err)
		}
		if err := sameDefinition(ctx, existing, s, cs); err != nil {
			return fail(fmt.Errorf("the Hudi table at %s differs: %w", path, err))
		}
		if err := e.register(db, name, path, external, cs.props, s.Comment); err != nil {
			return fail(err)
		}
		return &Result{Kind: kind, Summary: fmt.Sprintf("%s %s: registered the existing table at %s", kind, label, path)}, nil
	}
	cols := s.Columns
	var src string
	var queryNames []string // CTAS: the query's columns in its order
	if s.AsSelect != nil {
		if len(cols) > 0 {
			return fail(errors.New("CREATE TABLE AS SELECT takes its columns from the query; leave out the column list"))
		}
		if src, err = b.render(ctx, *s.AsSelect); err != nil {
			return fail(err)
		}
		if cols, err = e.queryColumns(ctx, src); err != nil {
			return fail(e.duckError(err))
		}
		for _, c := range cols {
			queryNames = append(queryNames, c.Name)
		}
	}
	if len(cols) == 0 {
		return fail(errors.New("no columns"))
	}
	// Without primaryKey the table's record keys are generated, as Hudi 0.14 generates
	// them (AutoRecordGenWrapperKeyGenerator): INSERTs get new keys, UPDATE, DELETE and
	// MERGE INTO take the stored ones from _hoodie_record_key.
	if cs.keys, err = canonicalNames(cs.keys, cols); err != nil {
		return fail(fmt.Errorf("primaryKey: %w", err))
	}
	if cs.precombine != "" {
		pc, err := canonicalNames([]string{cs.precombine}, cols)
		if err != nil {
			return fail(fmt.Errorf("preCombineField: %w", err))
		}
		cs.precombine = pc[0]
	}
	part, err := canonicalNames(s.PartitionedBy, cols)
	if err != nil {
		return fail(fmt.Errorf("PARTITIONED BY: %w", err))
	}
	if cols, err = partitionLast(cols, part); err != nil {
		return fail(err)
	}
	if _, err := os.Stat(path); err == nil {
		if ents, _ := os.ReadDir(path); len(ents) > 0 {
			return fail(fmt.Errorf("location %s exists and is not empty", path))
		}
	}
	t, err := hudi.Create(ctx, path, hudi.CreateOptions{Name: name, Database: strings.ToLower(db), Type: cs.typ,
		RecordKeyFields: cs.keys, PartitionFields: part, PrecombineField: cs.precombine, HiveStyle: cs.hiveStyle,
		Schema: ddlOf(cols), Settings: cs.props, Logger: e.logger})
	if err != nil {
		return fail(err)
	}
	if err := e.register(db, name, path, external, cs.props, s.Comment); err != nil {
		os.RemoveAll(path)
		return fail(err)
	}
	if s.AsSelect == nil {
		return &Result{Kind: kind, Summary: fmt.Sprintf("%s %s: created %s table at %s", kind, label, t.Type(), path)}, nil
	}
	// CTAS writes with bulk_insert, as Hudi 0.14's CreateHoodieTableAsSelectCommand does. A
	// failed write removes the new table again, so the statement leaves nothing behind.
	h := &hudiTable{db: strings.ToLower(db), name: strings.ToLower(name), path: path, t: t}
	h.entry, _ = e.cat.lookup(db, name)
	undo := func() {
		e.cat.remove(db, name)
		os.RemoveAll(path)
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		undo()
		return fail(err)
	}
	// The query's columns go to the table's by name: PARTITIONED BY moved some to the end.
	q, err := e.insertQuery(ctx, b, h, tsc, src, queryNames, nil)
	if err != nil {
		undo()
		return fail(err)
	}
	res, n, err := e.writeQuery(ctx, h, tsc, q, opBulkInsert, nil)
	if err != nil {
		undo()
		return fail(err)
	}
	return dmlResult(kind, label, n, res), nil
}

func (e *Engine) register(db, name, path string, external bool, props map[string]string, comment string) error {
	if len(props) == 0 {
		props = nil
	}
	return e.cat.put(&catalogEntry{Database: strings.ToLower(db), Table: strings.ToLower(name), Path: path,
		External: external, Props: props, Comment: comment})
}

// queryColumns derives CTAS columns from a query's result types (meta columns dropped).
// DuckDB's naive TIMESTAMP becomes Spark's TIMESTAMP: the value is cast through the
// session time zone, as Spark reads a timestamp literal.
func (e *Engine) queryColumns(ctx context.Context, src string) ([]parser.ColumnDef, error) {
	sc, recs, err := e.query(ctx, "SELECT * FROM (\n"+src+"\n) LIMIT 0")
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		r.Release()
	}
	var cols []parser.ColumnDef
	for _, f := range sc.Fields() {
		if strings.HasPrefix(strings.ToLower(f.Name), "_hoodie_") {
			continue
		}
		t := f.Type
		if ts, ok := t.(*arrow.TimestampType); ok && ts.TimeZone == "" {
			t = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
		}
		cols = append(cols, parser.ColumnDef{Name: f.Name, Type: sparkType(t)})
	}
	return cols, nil
}

// execAlterAddColumns adds nullable columns. Java 0.14 (AlterHoodieTableAddColumnsCommand)
// commits an instant with no data whose metadata carries the new schema; the engine does
// the same through the facade: a write of zero rows in the new schema, which the writer
// evolves the table schema with, recorded (inflight and completed) as ALTER_SCHEMA.
func (e *Engine) execAlterAddColumns(ctx context.Context, s *parser.AlterAddColumns) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE: %w", err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s ADD COLUMNS: %w", h.label(), err))
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return fail(err)
	}
	add, err := schema.ParseDDL(ddlOf(s.Columns))
	if err != nil {
		return fail(err)
	}
	// Java's AlterHoodieTableAddColumnsCommand commits dataSchema ++ new columns ++
	// partitionSchema: the partition columns stay last, so positional INSERTs keep working.
	var data, parts []arrow.Field
	for _, f := range tsc.Fields() {
		if isPartitionColumn(h, f.Name) {
			parts = append(parts, f)
		} else {
			data = append(data, f)
		}
	}
	fields := data
	for _, f := range add.Fields() {
		if fieldIndex(tsc, f.Name) >= 0 {
			return fail(fmt.Errorf("column %s already exists", f.Name))
		}
		if !f.Nullable {
			return fail(fmt.Errorf("column %s: new columns must be nullable (Hudi schema evolution)", f.Name))
		}
		fields = append(fields, f)
	}
	fields = append(fields, parts...)
	md := tsc.Metadata()
	next := arrow.NewSchema(fields, &md)
	cols := make([]arrow.Array, len(fields))
	for i, f := range fields {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
	}
	rec := array.NewRecordBatch(next, cols, 0)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	res, err := h.t.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: opUpsert, Settings: e.writeSettings(h, nil), Logger: e.logger, Now: e.o.Now,
		AddColumns: true})
	if err != nil {
		return fail(err)
	}
	names := make([]string, add.NumFields())
	for i, f := range add.Fields() {
		names[i] = f.Name
	}
	return &Result{Kind: "ALTER TABLE", Instants: []string{res.Instant},
		Summary: fmt.Sprintf("ALTER TABLE %s: added column(s) %s; committed %s %s", h.label(), strings.Join(names, ", "), res.Action, res.Instant)}, nil
}

func (e *Engine) execDrop(ctx context.Context, s *parser.DropTable) (*Result, error) {
	if s.Table.Path != "" {
		return nil, atPos(s.Pos, fmt.Errorf("DROP TABLE %s: only catalog tables can be dropped", s.Table.Path))
	}
	db, name, err := e.splitName(s.Table)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	ent, err := e.cat.lookup(db, name)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	if ent == nil {
		if s.IfExists {
			return &Result{Kind: "DROP TABLE", Summary: fmt.Sprintf("DROP TABLE %s.%s: no such table (IF EXISTS)", strings.ToLower(db), strings.ToLower(name))}, nil
		}
		return nil, atPos(s.Pos, fmt.Errorf("DROP TABLE: %w", e.notFound(db, name)))
	}
	if err := e.cat.remove(db, name); err != nil {
		return nil, atPos(s.Pos, err)
	}
	msg := "removed from the catalog; files kept"
	// Hudi's DropHoodieTableCommand deletes files only with PURGE; files of a table created
	// with LOCATION (external) are never deleted.
	if s.Purge && !ent.External {
		if err := os.RemoveAll(ent.Path); err != nil {
			return nil, atPos(s.Pos, fmt.Errorf("DROP TABLE %s.%s: %w", ent.Database, ent.Table, err))
		}
		msg = "removed from the catalog; files deleted"
	}
	return &Result{Kind: "DROP TABLE", Summary: fmt.Sprintf("DROP TABLE %s.%s: %s (%s)", ent.Database, ent.Table, msg, ent.Path)}, nil
}

func (e *Engine) execDescribe(ctx context.Context, s *parser.Describe) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("DESCRIBE: %w", err))
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	var rows [][]any
	for _, m := range schema.MetaFields {
		rows = append(rows, []any{m, "string", nil})
	}
	for _, f := range tsc.Fields() {
		rows = append(rows, []any{f.Name, sparkType(f.Type), nil})
	}
	cfg := h.t.Config()
	if part := cfg.PartitionFields(); len(part) > 0 {
		rows = append(rows, []any{"# Partition Information", "", ""}, []any{"# col_name", "data_type", "comment"})
		for _, p := range part {
			typ := ""
			if i := fieldIndex(tsc, p); i >= 0 {
				typ = sparkType(tsc.Field(i).Type)
			}
			rows = append(rows, []any{p, typ, nil})
		}
	}
	rows = append(rows, []any{"", "", ""}, []any{"# Detailed Table Information", "", ""})
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, []any{k, v, ""})
		}
	}
	if h.name != "" {
		add("Database", h.db)
		add("Table", h.name)
	}
	add("Location", h.path)
	add("Provider", "hudi")
	add("Type", string(h.t.Type()))
	add("Table Version", fmt.Sprint(int(h.t.Version())))
	add("primaryKey", strings.Join(cfg.RecordKeyFields(), ","))
	add("preCombineField", strings.Join(cfg.OrderingFields(), ","))
	if h.entry != nil {
		add("Comment", h.entry.Comment)
	}
	return newRowsResult("DESCRIBE", []string{"col_name", "data_type", "comment"}, rows)
}

func (e *Engine) execUse(s *parser.Use) (*Result, error) {
	ok, err := e.cat.hasDatabase(s.Database)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Spark needs CREATE DATABASE first; the catalog has no such statement, so USE
		// creates the database, which only names a directory <warehouse>/<db>.db.
		if err := e.cat.addDatabase(s.Database); err != nil {
			return nil, err
		}
	}
	e.database = strings.ToLower(s.Database)
	return &Result{Kind: "USE", Summary: "USE " + e.database}, nil
}

// Session keys SET understands besides hoodie.*.
const keySessionTimeZone = "spark.sql.session.timezone"

func (e *Engine) execSet(ctx context.Context, s *parser.Set) (*Result, error) {
	key := strings.TrimSpace(s.Key)
	if strings.EqualFold(key, keySessionTimeZone) {
		if s.Value == "" {
			tz := e.timeZone
			if tz == "" {
				var cur string
				if err := e.conn.QueryRowContext(ctx, "SELECT current_setting('TimeZone')").Scan(&cur); err == nil {
					tz = cur
				}
			}
			return newRowsResult("SET", []string{"key", "value"}, [][]any{{"spark.sql.session.timeZone", tz}})
		}
		if err := e.setTimeZone(ctx, s.Value); err != nil {
			return nil, atPos(s.Pos, fmt.Errorf("SET %s: %w", key, err))
		}
		return &Result{Kind: "SET", Summary: "SET spark.sql.session.timeZone=" + s.Value}, nil
	}
	if strings.EqualFold(key, config.QueryType.Name) {
		return e.setQueryType(key, s)
	}
	if s.Value == "" {
		v, ok := e.settings[key]
		if !ok {
			return newRowsResult("SET", []string{"key", "value"}, [][]any{{key, "<undefined>"}})
		}
		return newRowsResult("SET", []string{"key", "value"}, [][]any{{key, v}})
	}
	for _, k := range readKeys {
		if key == k {
			// Checked here, not at the next SELECT: a read setting is refused at SET.
			if _, err := config.New().Set(key, s.Value); err != nil {
				return nil, atPos(s.Pos, fmt.Errorf("SET %s: %w", key, err))
			}
		}
	}
	e.settings[key] = s.Value
	note := ""
	if !strings.HasPrefix(strings.ToLower(key), "hoodie.") {
		note = " (not a hoodie.* key: kept, but only hoodie.* keys reach writes)"
	}
	return &Result{Kind: "SET", Summary: "SET " + key + "=" + s.Value + note}, nil
}

func (e *Engine) setQueryType(key string, s *parser.Set) (*Result, error) {
	if s.Value == "" {
		v := e.queryType
		if v == "" {
			v = "snapshot"
		}
		return newRowsResult("SET", []string{"key", "value"}, [][]any{{config.QueryType.Name, v}})
	}
	switch v := strings.ToLower(strings.TrimSpace(s.Value)); v {
	case "snapshot", "read_optimized":
		e.queryType = v
		return &Result{Kind: "SET", Summary: "SET " + config.QueryType.Name + "=" + v}, nil
	case "incremental":
		return nil, atPos(s.Pos, fmt.Errorf("SET %s = incremental: read changes with hudi_table_changes('table', 'latest_state', begin[, end]) instead", key))
	default:
		return nil, atPos(s.Pos, fmt.Errorf("SET %s = %s: the query type is snapshot or read_optimized", key, s.Value))
	}
}
