package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// execMerge runs MERGE INTO with Hudi 0.14's semantics: the ON condition must be a
// conjunction of equalities that covers every record key column of the target; each
// source row pairs with its matching target row (or none), and the first WHEN clause whose
// kind (MATCHED / NOT MATCHED) and condition fit decides what happens to it. One DuckDB
// query computes the action and the new row for every pair; updated and inserted rows are
// then upserted and deleted rows' keys deleted, in one commit.
func (e *Engine) execMerge(ctx context.Context, b *binder, s *parser.Merge) (*Result, error) {
	h, err := e.resolve(ctx, s.Target)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("MERGE INTO: %w", err))
	}
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("MERGE INTO %s: %w", h.label(), err))
	}
	if len(s.Clauses) == 0 {
		return fail(fmt.Errorf("no WHEN clause"))
	}
	tsc, err := h.schema(ctx)
	if err != nil {
		return fail(err)
	}
	talias := targetAlias(s.TargetAlias, h)
	srcSchemas, err := b.refSchemas(ctx, s.Source)
	if err != nil {
		return fail(err)
	}
	b.columnsOf = append(append(b.columnsOf, tsc), srcSchemas...)
	on, err := b.render(ctx, s.On)
	if err != nil {
		return fail(err)
	}
	// A table whose keys are generated may be matched on any condition (sql_dml.md of
	// 0.14.1): matched rows keep the target's _hoodie_record_key, inserted ones get new keys.
	if !autoKeys(h) {
		if err := checkMergeOn(on, talias, h.t.Config().RecordKeyFields()); err != nil {
			return fail(err)
		}
	}
	source := s.Source
	source.Refs = append([]parser.TableRef(nil), source.Refs...)
	for i := range source.Refs {
		source.Refs[i].Aliased = true // named below: SourceAlias or the table's name
	}
	src, err := b.render(ctx, source)
	if err != nil {
		return fail(err)
	}
	salias := s.SourceAlias
	if salias == "" {
		// A bare table as the source is referred to by its own name, as in Spark.
		if len(s.Source.Refs) == 1 && strings.TrimSpace(strings.Join(s.Source.Segments, "")) == "" {
			n := s.Source.Refs[0].Name
			if len(n.Parts) > 0 {
				salias = n.Parts[len(n.Parts)-1]
			}
		}
		if salias == "" {
			salias = "__hudi_source"
		}
	}
	scols, err := e.columns(ctx, "SELECT * FROM "+src+" AS "+quoteIdent(salias))
	if err != nil {
		return fail(e.duckError(err))
	}
	tgt, err := b.load(ctx, h, hudi.ScanOptions{})
	if err != nil {
		return fail(err)
	}
	qt, qs := quoteIdent(talias), quoteIdent(salias)
	matched := qt + ".__hudi_matched IS NOT NULL"
	// conds[k] is clause k's full condition (kind and AND condition).
	conds := make([]string, len(s.Clauses))
	for k, c := range s.Clauses {
		cond := matched
		if !c.Matched {
			cond = qt + ".__hudi_matched IS NULL"
			if c.Action != parser.MergeInsert {
				return fail(fmt.Errorf("WHEN NOT MATCHED can only INSERT"))
			}
		} else if c.Action == parser.MergeInsert {
			return fail(fmt.Errorf("WHEN MATCHED cannot INSERT"))
		}
		if c.Condition != nil {
			t, err := b.render(ctx, *c.Condition)
			if err != nil {
				return fail(err)
			}
			cond += " AND (" + t + ")"
		}
		conds[k] = cond
	}
	sourceCol := func(name string) (string, bool) {
		for _, c := range scols {
			if strings.EqualFold(c, name) {
				return qs + "." + quoteIdent(c), true
			}
		}
		return "", false
	}
	// values[k][i] is the value clause k gives table column i.
	values := make([][]string, len(s.Clauses))
	for k, c := range s.Clauses {
		vals := make([]string, tsc.NumFields())
		switch c.Action {
		case parser.MergeDelete:
			for i, f := range tsc.Fields() {
				vals[i] = qt + "." + quoteIdent(f.Name)
			}
		case parser.MergeUpdate:
			for i, f := range tsc.Fields() {
				vals[i] = qt + "." + quoteIdent(f.Name)
				if c.Star {
					v, ok := sourceCol(f.Name)
					if !ok {
						return fail(fmt.Errorf("UPDATE SET *: the source has no column %s (source columns: %s)", f.Name, strings.Join(scols, ", ")))
					}
					vals[i] = v
				}
			}
			for _, a := range c.Set {
				i := fieldIndex(tsc, a.Column)
				if i < 0 {
					return nil, atPos(s.Pos, unknownColumn("MERGE INTO", h, a.Column, tsc))
				}
				v, err := b.render(ctx, a.Value)
				if err != nil {
					return fail(err)
				}
				if isKeyField(h, a.Column) {
					// Spark allows key = source key (the ON guarantees it is unchanged); any
					// other value would move the record.
					v = "CASE WHEN (" + v + ") IS NOT DISTINCT FROM " + qt + "." + quoteIdent(tsc.Field(i).Name) +
						" THEN " + qt + "." + quoteIdent(tsc.Field(i).Name) + " ELSE error('MERGE INTO: the record key column " +
						strings.ReplaceAll(tsc.Field(i).Name, "'", "''") + " cannot be updated') END"
				}
				vals[i] = "(" + v + ")"
			}
		case parser.MergeInsert:
			for i := range tsc.Fields() {
				vals[i] = "NULL"
			}
			if c.Star {
				for i, f := range tsc.Fields() {
					v, ok := sourceCol(f.Name)
					if !ok {
						return fail(fmt.Errorf("INSERT *: the source has no column %s (source columns: %s)", f.Name, strings.Join(scols, ", ")))
					}
					vals[i] = v
				}
			} else {
				if len(c.Columns) != len(c.Values) {
					return fail(fmt.Errorf("INSERT lists %d column(s) and %d value(s)", len(c.Columns), len(c.Values)))
				}
				for j, col := range c.Columns {
					i := fieldIndex(tsc, col)
					if i < 0 {
						return nil, atPos(s.Pos, unknownColumn("MERGE INTO", h, col, tsc))
					}
					v, err := b.render(ctx, c.Values[j])
					if err != nil {
						return fail(err)
					}
					vals[i] = "(" + v + ")"
				}
			}
		}
		values[k] = vals
	}
	sel := []string{mergeCase(conds, func(k int) string { return fmt.Sprint(k + 1) }, "0") + " AS __hudi_clause"}
	for i, f := range tsc.Fields() {
		c, err := castCol(mergeCase(conds, func(k int) string { return values[k][i] }, "NULL"), f)
		if err != nil {
			return fail(err)
		}
		sel = append(sel, c+" AS "+quoteIdent(f.Name))
	}
	if autoKeys(h) {
		// NULL for a source row without a match: the writer generates its key.
		sel = append(sel, qt+"."+quoteIdent(recordKeyColumn)+" AS "+quoteIdent(recordKeyColumn))
	}
	q := "SELECT " + strings.Join(sel, ",\n  ") + "\nFROM " + src + " AS " + qs +
		"\nLEFT JOIN (SELECT *, TRUE AS __hudi_matched FROM " + tgt + ") AS " + qt + " ON (" + on + ")"
	b.e.seq++
	out := fmt.Sprintf("__hudi_merge_%d", b.e.seq)
	if err := e.exec(ctx, "CREATE TEMP TABLE "+quoteIdent(out)+" AS SELECT * FROM (\n"+q+"\n) WHERE __hudi_clause > 0"); err != nil {
		return fail(e.duckError(err))
	}
	b.temps = append(b.temps, out)
	var upsertClauses, deleteClauses []string
	counts := map[parser.MergeAction]*[]string{parser.MergeDelete: &deleteClauses, parser.MergeUpdate: &upsertClauses, parser.MergeInsert: &upsertClauses}
	for k, c := range s.Clauses {
		*counts[c.Action] = append(*counts[c.Action], fmt.Sprint(k+1))
	}
	n := map[parser.MergeAction]int64{}
	for k, c := range s.Clauses {
		var cnt int64
		if err := e.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE __hudi_clause = %d", quoteIdent(out), k+1)).Scan(&cnt); err != nil {
			return fail(err)
		}
		n[c.Action] += cnt
	}
	wsc := dmlSchema(h, tsc)
	project := func(clauses []string) string {
		cols := make([]string, wsc.NumFields())
		for i, f := range wsc.Fields() {
			cols[i] = quoteIdent(f.Name)
		}
		in := "NULL"
		if len(clauses) > 0 {
			in = strings.Join(clauses, ", ")
		}
		return "SELECT " + strings.Join(cols, ", ") + " FROM " + quoteIdent(out) + " WHERE __hudi_clause IN (" + in + ")"
	}
	// Both row sets are computed before anything is written.
	ups, err := e.rows(ctx, h, wsc, project(upsertClauses))
	if err != nil {
		return fail(err)
	}
	defer ups.release()
	dels, err := e.rows(ctx, h, wsc, project(deleteClauses))
	if err != nil {
		return fail(err)
	}
	defer dels.release()
	// One commit, as Java's MERGE (ExpressionPayload) makes: updated and inserted rows are
	// upserted and deleted rows, flagged by a marker column the writer strips, delete
	// their keys — so a failed MERGE changes nothing.
	var results []*hudi.WriteResult
	switch {
	case dels.n == 0:
		res, err := e.commit(ctx, h, ups, opUpsert, nil)
		if err != nil {
			return fail(err)
		}
		results = append(results, res)
	case ups.n == 0:
		res, err := e.commit(ctx, h, dels, opDelete, nil)
		if err != nil {
			return fail(err)
		}
		results = append(results, res)
	default:
		marked, err := withDeleteMarker(ups, dels)
		if err != nil {
			return fail(err)
		}
		defer marked.release()
		res, err := h.t.Write(ctx, marked.batches, hudi.WriteOptions{Operation: opUpsert, Settings: e.writeSettings(h, nil), Progress: e.o.Progress,
			Logger: e.logger, Now: e.o.Now, DeleteMarker: deleteMarker, Prepped: marked.prepped()})
		if err != nil {
			return fail(fmt.Errorf("write %s: %w", h.label(), err))
		}
		results = append(results, res)
	}
	r := dmlResult("MERGE INTO", h.label(), ups.n+dels.n, results...)
	r.Summary = fmt.Sprintf("%s (%d updated, %d inserted, %d deleted)", r.Summary, n[parser.MergeUpdate], n[parser.MergeInsert], n[parser.MergeDelete])
	return r, nil
}

// mergeCase is CASE WHEN conds[0] THEN then(0) … ELSE def END: the first clause that fits wins.
func mergeCase(conds []string, then func(k int) string, def string) string {
	var b strings.Builder
	b.WriteString("CASE")
	for k, c := range conds {
		b.WriteString(" WHEN " + c + " THEN " + then(k))
	}
	b.WriteString(" ELSE " + def + " END")
	return b.String()
}

// checkMergeOn enforces Hudi 0.14's rule for tables with a primary key
// (MergeIntoHoodieTableCommand): the ON condition is a conjunction of equalities, and
// every record key column of the target appears in one of them as a plain column
// (t.key = <source expression>).
func checkMergeOn(on, talias string, keys []string) error {
	conj := splitTopLevel(on, "AND")
	var eqs [][2]string
	for _, c := range conj {
		l, r, ok := splitEquality(c)
		if !ok {
			return fmt.Errorf("ON %s: only equality conditions joined by AND are supported on a table with a primary key (as in Hudi 0.14), got %q", strings.TrimSpace(on), strings.TrimSpace(c))
		}
		eqs = append(eqs, [2]string{l, r})
	}
	for _, k := range keys {
		found := false
		for _, eq := range eqs {
			if isColumnRef(eq[0], talias, k) || isColumnRef(eq[1], talias, k) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("ON %s must match on every record key column (Hudi requires it): %s.%s is missing", strings.TrimSpace(on), talias, k)
		}
	}
	return nil
}

// splitTopLevel splits s at the keyword sep (case-insensitive, whole word) outside
// parentheses, brackets and quotes.
func splitTopLevel(s, sep string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			i = skipQuoted(s, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		default:
			if depth == 0 && i+len(sep) <= len(s) && strings.EqualFold(s[i:i+len(sep)], sep) &&
				(i == 0 || !isWordByte(s[i-1])) && (i+len(sep) == len(s) || !isWordByte(s[i+len(sep)])) {
				parts = append(parts, s[start:i])
				start = i + len(sep)
				i += len(sep) - 1
			}
		}
	}
	return append(parts, s[start:])
}

// skipQuoted returns the index of the quote closing the one at i.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s) - 1
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// splitEquality splits "l = r" at its one top-level '=' (not part of <=, >=, !=, ==).
func splitEquality(s string) (l, r string, ok bool) {
	s = strings.TrimSpace(s)
	for len(s) > 1 && s[0] == '(' && matchingParen(s) == len(s)-1 {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	depth, at := 0, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			i = skipQuoted(s, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '=':
			if depth != 0 {
				continue
			}
			if i > 0 && strings.ContainsRune("<>!=:", rune(s[i-1])) || i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '>') {
				return "", "", false
			}
			if at >= 0 {
				return "", "", false
			}
			at = i
		}
	}
	if at < 0 {
		return "", "", false
	}
	return strings.TrimSpace(s[:at]), strings.TrimSpace(s[at+1:]), true
}

// matchingParen returns the index of the parenthesis closing s[0].
func matchingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"':
			i = skipQuoted(s, i)
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isColumnRef reports whether expr is the column col of the target: alias.col or col,
// each part optionally quoted, optionally inside CAST(… AS …).
func isColumnRef(expr, alias, col string) bool {
	expr = strings.TrimSpace(expr)
	up := strings.ToUpper(expr)
	if strings.HasPrefix(up, "CAST(") && strings.HasSuffix(expr, ")") {
		inner := expr[5 : len(expr)-1]
		if parts := splitTopLevel(inner, "AS"); len(parts) == 2 {
			return isColumnRef(parts[0], alias, col)
		}
	}
	parts := splitIdent(expr)
	switch len(parts) {
	case 1:
		return strings.EqualFold(parts[0], col)
	case 2:
		return strings.EqualFold(parts[0], alias) && strings.EqualFold(parts[1], col)
	}
	return false
}

// splitIdent splits a dotted, possibly quoted identifier; nil if expr is something else.
func splitIdent(expr string) []string {
	var parts []string
	for len(expr) > 0 {
		var p string
		switch expr[0] {
		case '"', '`':
			end := strings.IndexByte(expr[1:], expr[0])
			if end < 0 {
				return nil
			}
			p, expr = expr[1:1+end], expr[2+end:]
		default:
			i := 0
			for i < len(expr) && isWordByte(expr[i]) {
				i++
			}
			if i == 0 {
				return nil
			}
			p, expr = expr[:i], expr[i:]
		}
		parts = append(parts, p)
		expr = strings.TrimSpace(expr)
		if expr == "" {
			break
		}
		if expr[0] != '.' {
			return nil
		}
		expr = strings.TrimSpace(expr[1:])
	}
	return parts
}

// deleteMarker is the input column that tells the writer which MERGE rows delete their key.
const deleteMarker = "__hudi_merge_delete"

// withDeleteMarker appends the marker column to every batch: false for ups, true for dels.
func withDeleteMarker(ups, dels *rowSet) (*rowSet, error) {
	out := &rowSet{n: ups.n + dels.n}
	add := func(rs *rowSet, del bool) {
		for _, b := range rs.batches {
			mb := array.NewBooleanBuilder(memory.DefaultAllocator)
			mb.Reserve(int(b.NumRows()))
			for i := 0; i < int(b.NumRows()); i++ {
				mb.UnsafeAppend(del)
			}
			col := mb.NewArray()
			mb.Release()
			fields := append(append([]arrow.Field{}, b.Schema().Fields()...), arrow.Field{Name: deleteMarker, Type: arrow.FixedWidthTypes.Boolean})
			cols := append(append([]arrow.Array{}, b.Columns()...), col)
			out.batches = append(out.batches, array.NewRecord(arrow.NewSchema(fields, nil), cols, b.NumRows()))
			col.Release()
		}
	}
	add(ups, false)
	add(dels, true)
	return out, nil
}
