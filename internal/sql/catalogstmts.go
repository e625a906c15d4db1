package sql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// sameDefinition checks that CREATE TABLE over an existing Hudi table names the table it
// finds: the columns given (if any) must be its columns with their types, and the record
// key, precombine field, type and partitioning given must be its own — a definition that
// differs fails instead of registering a table unlike the one written.
func sameDefinition(ctx context.Context, t *hudi.Table, s *parser.CreateTable, cs *createSpec) error {
	cfg := t.Config()
	if len(cs.keys) > 0 && !strings.EqualFold(strings.Join(cs.keys, ","), strings.Join(cfg.RecordKeyFields(), ",")) {
		have := strings.Join(cfg.RecordKeyFields(), ",")
		if have == "" {
			have = "none (its keys are generated)"
		}
		return fmt.Errorf("primaryKey %s, the table's record key is %s", strings.Join(cs.keys, ","), have)
	}
	if cs.precombine != "" && !strings.EqualFold(cs.precombine, strings.Join(cfg.OrderingFields(), ",")) {
		return fmt.Errorf("preCombineField %s, the table's is %q", cs.precombine, strings.Join(cfg.OrderingFields(), ","))
	}
	if typ := t.Type(); s.Properties != nil && hasProp(s, "type") && !strings.EqualFold(cs.typ, typeShort(string(typ))) {
		return fmt.Errorf("type %s, the table is %s", cs.typ, typ)
	}
	if len(s.PartitionedBy) > 0 && !strings.EqualFold(strings.Join(s.PartitionedBy, ","), strings.Join(cfg.PartitionFields(), ",")) {
		return fmt.Errorf("PARTITIONED BY (%s), the table is partitioned by (%s)", strings.Join(s.PartitionedBy, ", "), strings.Join(cfg.PartitionFields(), ", "))
	}
	if len(s.Columns) == 0 {
		return nil
	}
	sc, err := t.InputSchema(ctx)
	if err != nil || sc == nil {
		return fmt.Errorf("its schema cannot be read: %v", err)
	}
	want, err := schema.ParseDDL(ddlOf(s.Columns))
	if err != nil {
		return err
	}
	var got, given []string
	for _, f := range sc.Fields() {
		got = append(got, strings.ToLower(f.Name)+" "+sparkType(f.Type))
	}
	for _, f := range want.Fields() {
		given = append(given, strings.ToLower(f.Name)+" "+sparkType(f.Type))
	}
	sort.Strings(got)
	sort.Strings(given)
	if strings.Join(got, ", ") != strings.Join(given, ", ") {
		return fmt.Errorf("columns (%s), the table has (%s)", strings.Join(given, ", "), strings.Join(got, ", "))
	}
	return nil
}

func hasProp(s *parser.CreateTable, key string) bool {
	for _, p := range append(append([]parser.Property{}, s.Options...), s.Properties...) {
		if strings.EqualFold(p.Key, key) || strings.EqualFold(createAliases[strings.ToLower(key)], p.Key) {
			return true
		}
	}
	return false
}

func typeShort(t string) string {
	if strings.EqualFold(t, "MERGE_ON_READ") {
		return "mor"
	}
	return "cow"
}

// likePattern turns Spark's SHOW … LIKE pattern ('*' any characters, '|' alternatives,
// case-insensitive) into a matcher.
func likePattern(p string) (*regexp.Regexp, error) {
	if p == "" {
		return nil, nil
	}
	alts := strings.Split(p, "|")
	for i, a := range alts {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(strings.TrimSpace(a)), `\*`, ".*")
	}
	return regexp.Compile("(?i)^(?:" + strings.Join(alts, "|") + ")$")
}

func (e *Engine) execShowTables(ctx context.Context, s *parser.ShowTables) (*Result, error) {
	db := e.database
	if s.Database != "" {
		db = strings.ToLower(s.Database)
		ok, err := e.cat.hasDatabase(db)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, atPos(s.Pos, fmt.Errorf("SHOW TABLES: database %s not found", db))
		}
	}
	like, err := likePattern(s.Like)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	ents, err := e.cat.tables(db)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, t := range ents {
		if like == nil || like.MatchString(t.Table) {
			rows = append(rows, []any{t.Database, t.Table, false})
		}
	}
	return newRowsResult("SHOW TABLES", []string{"namespace", "tableName", "isTemporary"}, rows)
}

// databases lists every database: default, those created, those holding tables.
func (e *Engine) databases() ([]string, error) {
	doc, err := e.cat.load()
	if err != nil {
		return nil, err
	}
	set := map[string]bool{DefaultDatabase: true}
	for _, d := range doc.Databases {
		set[strings.ToLower(d)] = true
	}
	for _, t := range doc.Tables {
		set[strings.ToLower(t.Database)] = true
	}
	var out []string
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

func (e *Engine) execShow(ctx context.Context, s *parser.Show) (*Result, error) {
	fail := func(err error) (*Result, error) { return nil, atPos(s.Pos, fmt.Errorf("SHOW %s: %w", s.What, err)) }
	if s.What == "DATABASES" {
		like, err := likePattern(s.Like)
		if err != nil {
			return fail(err)
		}
		dbs, err := e.databases()
		if err != nil {
			return fail(err)
		}
		var rows [][]any
		for _, d := range dbs {
			if like == nil || like.MatchString(d) {
				rows = append(rows, []any{d})
			}
		}
		return newRowsResult("SHOW DATABASES", []string{"namespace"}, rows)
	}
	name := s.Table
	if s.Database != "" && name.Path == "" {
		name.Parts = append([]string{s.Database}, name.Parts[len(name.Parts)-1])
	}
	h, err := e.resolve(ctx, name)
	if err != nil {
		return fail(err)
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return fail(err)
	}
	cfg := h.t.Config()
	switch s.What {
	case "COLUMNS":
		var rows [][]any
		for _, m := range schema.MetaFields {
			rows = append(rows, []any{m})
		}
		for _, f := range tsc.Fields() {
			rows = append(rows, []any{f.Name})
		}
		return newRowsResult("SHOW COLUMNS", []string{"col_name"}, rows)
	case "PARTITIONS":
		if len(cfg.PartitionFields()) == 0 {
			return fail(fmt.Errorf("table %s is not partitioned", h.label()))
		}
		parts, err := tablePartitions(ctx, h)
		if err != nil {
			return fail(err)
		}
		rows := make([][]any, len(parts))
		for i, p := range parts {
			rows[i] = []any{p}
		}
		return newRowsResult("SHOW PARTITIONS", []string{"partition"}, rows)
	case "TBLPROPERTIES":
		props := tableProperties(h)
		if s.Key != "" {
			v, ok := props[s.Key]
			if !ok {
				v = fmt.Sprintf("Table %s does not have property: %s", h.label(), s.Key)
			}
			return newRowsResult("SHOW TBLPROPERTIES", []string{"key", "value"}, [][]any{{s.Key, v}})
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		rows := make([][]any, len(keys))
		for i, k := range keys {
			rows[i] = []any{k, props[k]}
		}
		return newRowsResult("SHOW TBLPROPERTIES", []string{"key", "value"}, rows)
	case "CREATE TABLE":
		return newRowsResult("SHOW CREATE TABLE", []string{"createtab_stmt"}, [][]any{{showCreate(h, tsc.Fields())}})
	}
	return fail(errors.New("not supported"))
}

// tableProperties are the properties SHOW TBLPROPERTIES lists: the table's type, keys
// and precombine field under Spark SQL's names, and the hoodie.* properties of CREATE TABLE
// and ALTER TABLE … SET TBLPROPERTIES.
func tableProperties(h *hudiTable) map[string]string {
	cfg := h.t.Config()
	props := map[string]string{"provider": "hudi", "type": typeShort(string(h.t.Type()))}
	if k := cfg.RecordKeyFields(); len(k) > 0 {
		props["primaryKey"] = strings.Join(k, ",")
	}
	if o := cfg.OrderingFields(); len(o) > 0 {
		props["preCombineField"] = strings.Join(o, ",")
	}
	if h.entry != nil {
		for k, v := range h.entry.Props {
			props[k] = v
		}
	}
	return props
}

// showCreate renders a CREATE TABLE statement that recreates the table's definition.
func showCreate(h *hudiTable, fields []arrow.Field) string {
	var b strings.Builder
	name := h.label()
	if h.name == "" {
		name = "hudi.`" + h.path + "`"
	}
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", name)
	for i, f := range fields {
		sep := ","
		if i == len(fields)-1 {
			sep = ")"
		}
		nn := ""
		if !f.Nullable {
			nn = " NOT NULL"
		}
		fmt.Fprintf(&b, "  %s %s%s%s\n", f.Name, strings.ToUpper(sparkType(f.Type)), nn, sep)
	}
	b.WriteString("USING hudi\n")
	cfg := h.t.Config()
	if p := cfg.PartitionFields(); len(p) > 0 {
		fmt.Fprintf(&b, "PARTITIONED BY (%s)\n", strings.Join(p, ", "))
	}
	if h.entry != nil && h.entry.Comment != "" {
		fmt.Fprintf(&b, "COMMENT %s\n", quoteString(h.entry.Comment))
	}
	fmt.Fprintf(&b, "LOCATION %s\n", quoteString(h.path))
	props := tableProperties(h)
	delete(props, "provider")
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("TBLPROPERTIES (\n")
	for i, k := range keys {
		sep := ","
		if i == len(keys)-1 {
			sep = ")"
		}
		fmt.Fprintf(&b, "  %s = %s%s\n", quoteString(k), quoteString(props[k]), sep)
	}
	return strings.TrimRight(b.String(), "\n")
}

// tablePartitions lists the partitions holding data in the latest view, sorted, as
// stored (hive-style or not). Java lists partition directories; a partition emptied by a
// delete_partition is left out here (hudi-go's choice, documented in docs/sql.md).
func tablePartitions(ctx context.Context, h *hudiTable) ([]string, error) {
	m := h.t
	view, err := m.View(ctx, "")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, sl := range view.LatestSlices() {
		set[sl.Partition] = true
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

func (e *Engine) execCreateDatabase(s *parser.CreateDatabase) (*Result, error) {
	db := strings.ToLower(s.Name)
	ok, err := e.cat.hasDatabase(db)
	if err != nil {
		return nil, err
	}
	if ok {
		if s.IfNotExists {
			return &Result{Kind: "CREATE DATABASE", Summary: "CREATE DATABASE " + db + ": exists (IF NOT EXISTS)"}, nil
		}
		return nil, atPos(s.Pos, fmt.Errorf("CREATE DATABASE: database %s already exists", db))
	}
	if err := e.cat.addDatabase(db); err != nil {
		return nil, err
	}
	return &Result{Kind: "CREATE DATABASE", Summary: "CREATE DATABASE " + db + ": created"}, nil
}

// execDropDatabase drops a database: an empty one, or with CASCADE its tables too (their
// catalog entries; files are kept, as DROP TABLE without PURGE keeps them).
func (e *Engine) execDropDatabase(s *parser.DropDatabase) (*Result, error) {
	db := strings.ToLower(s.Name)
	if db == DefaultDatabase {
		return nil, atPos(s.Pos, errors.New("DROP DATABASE: the default database cannot be dropped"))
	}
	ok, err := e.cat.hasDatabase(db)
	if err != nil {
		return nil, err
	}
	if !ok {
		if s.IfExists {
			return &Result{Kind: "DROP DATABASE", Summary: "DROP DATABASE " + db + ": no such database (IF EXISTS)"}, nil
		}
		return nil, atPos(s.Pos, fmt.Errorf("DROP DATABASE: database %s not found", db))
	}
	doc, err := e.cat.load()
	if err != nil {
		return nil, err
	}
	var tables []string
	for k, t := range doc.Tables {
		if strings.EqualFold(t.Database, db) {
			tables = append(tables, k)
		}
	}
	if len(tables) > 0 && !s.Cascade {
		return nil, atPos(s.Pos, fmt.Errorf("DROP DATABASE: database %s is not empty (%d table(s)); use CASCADE", db, len(tables)))
	}
	for _, k := range tables {
		delete(doc.Tables, k)
	}
	var keep []string
	for _, d := range doc.Databases {
		if !strings.EqualFold(d, db) {
			keep = append(keep, d)
		}
	}
	doc.Databases = keep
	if err := e.cat.save(doc); err != nil {
		return nil, err
	}
	if e.database == db {
		e.database = DefaultDatabase
	}
	return &Result{Kind: "DROP DATABASE", Summary: fmt.Sprintf("DROP DATABASE %s: dropped (%d table(s) removed from the catalog; files kept)", db, len(tables))}, nil
}

func (e *Engine) execAlterProps(ctx context.Context, s *parser.AlterProps) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE: %w", err))
	}
	if h.entry == nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s: table properties live in the catalog; name the table", h.label()))
	}
	ent := *h.entry
	ent.Props = map[string]string{}
	for k, v := range h.entry.Props {
		ent.Props[k] = v
	}
	for _, p := range s.Props {
		if strings.EqualFold(p.Key, "comment") {
			if s.Unset {
				ent.Comment = ""
			} else {
				ent.Comment = p.Value
			}
			continue
		}
		if !strings.HasPrefix(strings.ToLower(p.Key), "hoodie.") {
			return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s: property %s: only hoodie.* properties and comment can be set (a table's type, keys and precombine field are fixed)", h.label(), p.Key))
		}
		if s.Unset {
			if _, ok := ent.Props[p.Key]; !ok && !s.IfExists {
				return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s UNSET TBLPROPERTIES: property %s is not set", h.label(), p.Key))
			}
			delete(ent.Props, p.Key)
			continue
		}
		ent.Props[p.Key] = p.Value
	}
	if err := e.cat.put(&ent); err != nil {
		return nil, err
	}
	verb := "SET"
	if s.Unset {
		verb = "UNSET"
	}
	return &Result{Kind: "ALTER TABLE", Summary: fmt.Sprintf("ALTER TABLE %s %s TBLPROPERTIES: %d propert(ies)", h.label(), verb, len(s.Props))}, nil
}

// execRename renames a catalog table; a managed table's directory moves to the new name's
// place under the warehouse (Spark's rule for managed tables), an external one stays.
func (e *Engine) execRename(ctx context.Context, s *parser.AlterRename) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE: %w", err))
	}
	if h.entry == nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s RENAME: name the table", h.label()))
	}
	db, name, err := e.splitName(s.To)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	if len(s.To.Parts) == 1 {
		db = h.db
	}
	if ent, err := e.cat.lookup(db, name); err != nil {
		return nil, err
	} else if ent != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s RENAME TO %s.%s: the table already exists", h.label(), db, name))
	}
	ent := *h.entry
	ent.Database, ent.Table = strings.ToLower(db), strings.ToLower(name)
	if !ent.External {
		to := e.cat.defaultPath(db, name)
		if _, err := os.Stat(to); err == nil {
			return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s RENAME: %s exists", h.label(), to))
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := os.Rename(ent.Path, to); err != nil {
			return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s RENAME: %w", h.label(), err))
		}
		ent.Path = to
	}
	if err := e.cat.put(&ent); err != nil {
		return nil, err
	}
	if err := e.cat.remove(h.db, h.name); err != nil {
		return nil, err
	}
	return &Result{Kind: "ALTER TABLE", Summary: fmt.Sprintf("ALTER TABLE %s RENAME TO %s.%s (%s)", h.label(), ent.Database, ent.Table, ent.Path)}, nil
}

// partitionPath is the partition path a full PARTITION (c = v, …) spec names, as the
// table's key generator writes it (hive-style or not).
func (e *Engine) partitionPath(ctx context.Context, b *binder, h *hudiTable, spec []parser.PartitionValue) (string, error) {
	cfg := h.t.Config()
	fields := cfg.PartitionFields()
	if len(fields) == 0 {
		return "", fmt.Errorf("table %s is not partitioned", h.label())
	}
	if cfg.URLEncodePartitioning() {
		return "", fmt.Errorf("table %s URL-encodes its partition paths: naming partitions is not supported for it yet", h.label())
	}
	vals := map[string]string{}
	for _, pv := range spec {
		if pv.Value == nil {
			return "", fmt.Errorf("partition column %s has no value", pv.Column)
		}
		q, err := b.render(ctx, *pv.Value)
		if err != nil {
			return "", err
		}
		var v *string
		if err := e.conn.QueryRowContext(ctx, "SELECT CAST(("+q+") AS VARCHAR)").Scan(&v); err != nil {
			return "", e.duckError(err)
		}
		if v == nil {
			return "", fmt.Errorf("partition column %s: NULL", pv.Column)
		}
		vals[strings.ToLower(pv.Column)] = *v
	}
	var segs []string
	for _, f := range fields {
		v, ok := vals[strings.ToLower(f)]
		if !ok {
			return "", fmt.Errorf("the PARTITION spec must name every partition column (%s)", strings.Join(fields, ", "))
		}
		delete(vals, strings.ToLower(f))
		if cfg.HiveStylePartitioning() {
			v = f + "=" + v
		}
		segs = append(segs, v)
	}
	for c := range vals {
		return "", fmt.Errorf("%s is not a partition column (partition columns: %s)", c, strings.Join(fields, ", "))
	}
	return strings.Join(segs, "/"), nil
}

// dropPartitions commits a delete_partition of the partitions (Hudi's
// AlterHoodieTableDropPartitionCommand): their file groups are replaced by nothing, the
// files go at the next clean.
func (e *Engine) dropPartitions(ctx context.Context, h *hudiTable, parts []string) (*hudi.WriteResult, error) {
	return h.t.Write(ctx, nil, hudi.WriteOptions{Operation: "delete_partition", Logger: e.logger, Now: e.o.Now, Progress: e.o.Progress,
		Settings: e.writeSettings(h, map[string]string{"hoodie.datasource.write.partitions.to.delete": strings.Join(parts, ",")})})
}

func (e *Engine) execDropPartition(ctx context.Context, b *binder, s *parser.AlterDropPartition) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE: %w", err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s DROP PARTITION: %w", h.label(), err))
	}
	existing, err := tablePartitions(ctx, h)
	if err != nil {
		return fail(err)
	}
	var parts []string
	for _, spec := range s.Partitions {
		p, err := e.partitionPath(ctx, b, h, spec)
		if err != nil {
			return fail(err)
		}
		if !slicesContains(existing, p) {
			if s.IfExists {
				continue
			}
			return fail(fmt.Errorf("partition %s not found (partitions: %s)", p, strings.Join(existing, ", ")))
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return &Result{Kind: "ALTER TABLE", Summary: fmt.Sprintf("ALTER TABLE %s DROP PARTITION: no such partition (IF EXISTS); nothing committed", h.label())}, nil
	}
	res, err := e.dropPartitions(ctx, h, parts)
	if err != nil {
		return fail(err)
	}
	return &Result{Kind: "ALTER TABLE", Summary: fmt.Sprintf("ALTER TABLE %s DROP PARTITION: dropped %s; committed replacecommit %s", h.label(), strings.Join(parts, ", "), res.Instant),
		Instants: []string{string(res.Instant)}}, nil
}

// execTruncate empties a table (or the partitions named): a delete_partition of its
// partitions, as Hudi 0.14's TruncateHoodieTableCommand does for a partition spec.
func (e *Engine) execTruncate(ctx context.Context, b *binder, s *parser.Truncate) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("TRUNCATE TABLE: %w", err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("TRUNCATE TABLE %s: %w", h.label(), err))
	}
	existing, err := tablePartitions(ctx, h)
	if err != nil {
		return fail(err)
	}
	parts := existing
	if len(s.Partition) > 0 {
		p, err := e.partitionPath(ctx, b, h, s.Partition)
		if err != nil {
			return fail(err)
		}
		if !slicesContains(existing, p) {
			return fail(fmt.Errorf("partition %s not found", p))
		}
		parts = []string{p}
	} else if len(h.t.Config().PartitionFields()) == 0 {
		return fail(errors.New("truncating a non-partitioned table is not supported yet (DELETE FROM removes its rows)"))
	}
	if len(parts) == 0 {
		return &Result{Kind: "TRUNCATE TABLE", Summary: fmt.Sprintf("TRUNCATE TABLE %s: the table is empty; nothing committed", h.label())}, nil
	}
	res, err := e.dropPartitions(ctx, h, parts)
	if err != nil {
		return fail(err)
	}
	return &Result{Kind: "TRUNCATE TABLE", Summary: fmt.Sprintf("TRUNCATE TABLE %s: dropped %d partition(s); committed replacecommit %s", h.label(), len(parts), res.Instant),
		Instants: []string{string(res.Instant)}}, nil
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// execCreateLike creates an empty table with another's columns, keys, precombine field,
// type and partitioning (and its hoodie.* properties), as Spark's CREATE TABLE … LIKE.
func (e *Engine) execCreateLike(ctx context.Context, b *binder, s *parser.CreateLike) (*Result, error) {
	src, err := e.resolve(ctx, s.Source)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("CREATE TABLE … LIKE: %w", err))
	}
	tsc, err := src.schema(ctx)
	if err != nil {
		return nil, atPos(s.Pos, err)
	}
	ct := &parser.CreateTable{Pos: s.Pos, IfNotExists: s.IfNotExists, Table: s.Table, Using: "hudi", Location: s.Location}
	for _, f := range tsc.Fields() {
		ct.Columns = append(ct.Columns, parser.ColumnDef{Name: f.Name, Type: strings.ToUpper(sparkType(f.Type)), NotNull: !f.Nullable})
	}
	cfg := src.t.Config()
	ct.PartitionedBy = cfg.PartitionFields()
	props := tableProperties(src)
	delete(props, "provider")
	for _, p := range s.Properties {
		props[p.Key] = p.Value
	}
	for k, v := range props {
		ct.Properties = append(ct.Properties, parser.Property{Key: k, Value: v})
	}
	sort.Slice(ct.Properties, func(i, j int) bool { return ct.Properties[i].Key < ct.Properties[j].Key })
	return e.execCreate(ctx, b, ct)
}
