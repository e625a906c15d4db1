package read

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/table"
)

// Point lookups: when a filter pins the record key — `key = 'x'`, `key IN (…)` on the
// record key field(s) or on _hoodie_record_key, possibly under AND/OR — every row the
// filter keeps has its record key in a small candidate set. A base file whose footer key
// range (hoodie_min/max_record_key, Java String order) or bloom filter excludes every
// candidate holds no such row and is not read. Only a slice read from its base file alone
// (no log files, or a read-optimized query) is pruned this way: a log record can carry a
// key the base file lacks.

// KeyPruning reports how a key-pinned filter pruned base files during Run.
type KeyPruning struct {
	// Keys is the number of candidate record keys the filter pins; Pinned is false when
	// the filter does not pin the record key (and nothing below is counted).
	Pinned bool
	Keys   int
	// Checked base files had their footer consulted; of those, PrunedByRange were outside
	// the footer's min/max record keys and PrunedByBloom were ruled out by the bloom
	// filter. Kept = Checked - PrunedByRange - PrunedByBloom were read.
	Checked, PrunedByRange, PrunedByBloom int
	// WithLogs are slices read without key pruning because log files are merged in; of
	// those, LogsOnly were read from their log files alone because the base file's footer
	// ruled out every pinned key.
	WithLogs, LogsOnly int
	// In kept files with several row groups left after statistics pruning, RowGroupsProbed
	// had their _hoodie_record_key column read first; RowGroupsPruned of those held no
	// pinned key, so their other columns were not read.
	RowGroupsProbed, RowGroupsPruned int
}

// keyPruneCounters accumulates KeyPruning across workers.
type keyPruneCounters struct {
	checked, byRange, byBloom, withLogs, rgProbed, rgPruned, baseSkipped atomic.Int64
}

// KeyPruning returns the key pruning counts of the runs so far.
func (s *Scan) KeyPruning() KeyPruning {
	if !s.keyPinned {
		return KeyPruning{}
	}
	c := s.keyCounters
	return KeyPruning{Pinned: true, Keys: len(s.pinnedKeys), Checked: int(c.checked.Load()),
		PrunedByRange: int(c.byRange.Load()), PrunedByBloom: int(c.byBloom.Load()), WithLogs: int(c.withLogs.Load()), LogsOnly: int(c.baseSkipped.Load()),
		RowGroupsProbed: int(c.rgProbed.Load()), RowGroupsPruned: int(c.rgPruned.Load())}
}

// maxPinnedKeys bounds the candidate set built from per-field values (the cross product of
// IN lists over a complex key); beyond it the filter is treated as not pinning the key.
const maxPinnedKeys = 10_000

// pinKeys returns the record keys that every row matching filter must have, sorted in
// Java String order, and whether the filter pins the key at all. The set is a superset:
// for a single key field both spellings a key generator may have used ("v" and
// "field:v", see keygen.Generator on HUDI-7001) are candidates.
func pinKeys(filter expr.Expr, full *arrow.Schema, cfg *table.Config) ([]string, bool) {
	if filter == nil {
		return nil, false
	}
	p := keyPinner{full: full, rkCol: schema.FieldIndex(full, schema.MetaFields[2])}
	p.fieldCols = p.keyFieldColumns(cfg.RecordKeyFields())
	set, ok := p.finalize(p.analyze(filter))
	if !ok {
		return nil, false
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, javastr.Compare)
	return keys, true
}

type keySet map[string]struct{}

// keyConstraint is what a filter says about the record key: the allowed record keys
// (rk) and the allowed values of each key field (fields[i]); nil means unconstrained.
type keyConstraint struct {
	rk     keySet
	fields []keySet
}

type keyPinner struct {
	full      *arrow.Schema
	rkCol     int      // _hoodie_record_key in full, -1 if absent
	keyFields []string // configured record key fields
	fieldCols []int    // their columns in full; nil if key fields cannot be pinned
}

// keyFieldColumns resolves the key fields to top-level columns of a type whose key text
// we can spell as Java does (strings and integers). Nested or other key fields disable
// pinning by field values (a filter on _hoodie_record_key still pins).
func (p *keyPinner) keyFieldColumns(fields []string) []int {
	var cols []int
	for _, f := range fields {
		if strings.Contains(f, ".") {
			return nil
		}
		i := schema.FieldIndex(p.full, f)
		if i < 0 || !keyTypeSupported(p.full.Field(i).Type) {
			return nil
		}
		cols = append(cols, i)
	}
	if len(cols) > 0 {
		p.keyFields = fields
	}
	return cols
}

func keyTypeSupported(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

// keyText converts a literal to the key text of a column value equal to it under the
// filter's comparison semantics (expr.comparator), or returns nil when that is not
// certain. String columns compare to a literal's text; integer columns to its exact
// value, spelled as Java's Long.toString.
func keyText(t arrow.DataType, lit expr.Literal) *string {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		var s string
		switch lit.Kind {
		case expr.LitString, expr.LitNumber:
			s = lit.Text
		case expr.LitBool:
			s = strconv.FormatBool(lit.Bool)
		default:
			return nil
		}
		return &s
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		if lit.Kind != expr.LitNumber {
			return nil
		}
		v, err := strconv.ParseInt(lit.Text, 10, 64)
		if err != nil {
			return nil
		}
		s := strconv.FormatInt(v, 10)
		return &s
	}
	return nil
}

// analyze returns the key constraint of e, or nil.
func (p *keyPinner) analyze(e expr.Expr) *keyConstraint {
	switch e := e.(type) {
	case *expr.Compare:
		if e.Op != expr.OpEq {
			return nil
		}
		return p.leaf(e.Column, []expr.Literal{e.Value})
	case *expr.In:
		if e.Not {
			return nil
		}
		var lits []expr.Literal
		for _, v := range e.Values {
			if v.Kind != expr.LitNull { // x IN (…, NULL) never matches by the NULL
				lits = append(lits, v)
			}
		}
		return p.leaf(e.Column, lits)
	case *expr.And:
		return p.and(p.analyze(e.Left), p.analyze(e.Right))
	case *expr.Or:
		l, okl := p.finalize(p.analyze(e.Left))
		r, okr := p.finalize(p.analyze(e.Right))
		if !okl || !okr {
			return nil
		}
		union := make(keySet, len(l)+len(r))
		for k := range l {
			union[k] = struct{}{}
		}
		for k := range r {
			union[k] = struct{}{}
		}
		return &keyConstraint{rk: union}
	}
	return nil
}

// leaf is the constraint of `column IN (lits)`.
func (p *keyPinner) leaf(column string, lits []expr.Literal) *keyConstraint {
	if len(lits) == 0 {
		return nil
	}
	col := schema.FieldIndex(p.full, column)
	if col < 0 {
		return nil
	}
	field := -1
	for i, c := range p.fieldCols {
		if c == col {
			field = i
		}
	}
	if col != p.rkCol && field < 0 {
		return nil
	}
	set := keySet{}
	for _, l := range lits {
		v := keyText(p.full.Field(col).Type, l)
		if v == nil {
			return nil // a value we cannot spell: its rows could have any key
		}
		set[*v] = struct{}{}
	}
	c := &keyConstraint{}
	if col == p.rkCol {
		c.rk = set
	} else {
		c.fields = make([]keySet, len(p.fieldCols))
		c.fields[field] = set
	}
	return c
}

// and combines two constraints that must both hold.
func (p *keyPinner) and(a, b *keyConstraint) *keyConstraint {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := &keyConstraint{rk: intersect(a.rk, b.rk)}
	if a.fields != nil || b.fields != nil {
		out.fields = make([]keySet, len(p.fieldCols))
		for i := range out.fields {
			var x, y keySet
			if a.fields != nil {
				x = a.fields[i]
			}
			if b.fields != nil {
				y = b.fields[i]
			}
			out.fields[i] = intersect(x, y)
		}
	}
	return out
}

// intersect intersects two sets where nil means "anything".
func intersect(a, b keySet) keySet {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := keySet{}
	for k := range a {
		if _, ok := b[k]; ok {
			out[k] = struct{}{}
		}
	}
	return out
}

// finalize turns a constraint into a set of candidate record keys.
func (p *keyPinner) finalize(c *keyConstraint) (keySet, bool) {
	if c == nil {
		return nil, false
	}
	fromFields, ok := p.keysFromFields(c.fields)
	switch {
	case ok && c.rk != nil:
		return intersect(c.rk, fromFields), true
	case ok:
		return fromFields, true
	case c.rk != nil:
		return c.rk, true
	}
	return nil, false
}

// keysFromFields spells the record keys of every combination of pinned key field values
// the way Java's key generators do: the bare value for one key field (SIMPLE, TIMESTAMP,
// NON_PARTITION, CUSTOM) or "field:value" (COMPLEX — one field written either way,
// HUDI-7001); "f1:v1,f2:v2" for several. Empty values are "__empty__" in complex keys.
func (p *keyPinner) keysFromFields(fields []keySet) (keySet, bool) {
	if len(p.fieldCols) == 0 || len(fields) != len(p.fieldCols) {
		return nil, false
	}
	n := 1
	for _, f := range fields {
		if f == nil {
			return nil, false
		}
		n *= max(1, len(f))
		if n > maxPinnedKeys {
			return nil, false
		}
	}
	part := func(i int, v string) string {
		if v == "" {
			v = keygen.EmptyRecordKeyPlaceholder
		}
		return p.keyFields[i] + ":" + v
	}
	out := keySet{}
	if len(fields) == 1 {
		for v := range fields[0] {
			out[v] = struct{}{}
			out[part(0, v)] = struct{}{}
			if v == "" {
				out[keygen.EmptyRecordKeyPlaceholder] = struct{}{}
			}
		}
		return out, true
	}
	prefixes := []string{""}
	for i, f := range fields {
		var next []string
		for _, pre := range prefixes {
			for v := range f {
				if i > 0 {
					next = append(next, pre+","+part(i, v))
				} else {
					next = append(next, part(i, v))
				}
			}
		}
		prefixes = next
	}
	for _, k := range prefixes {
		out[k] = struct{}{}
	}
	return out, true
}

// keyPrunable reports whether a slice is read from its base file alone, so that the base
// file's footer describes every record key the slice can return.
func (s *Scan) keyPrunable(sl fsview.FileSlice) bool {
	return sl.Base != nil && (s.opts.ReadOptimized || len(sl.Logs) == 0)
}

// skipByKey reports whether the slice's base file cannot hold any pinned key. Any failure
// to read the footer keeps the file: the read that follows reports real errors.
func (s *Scan) skipByKey(ctx context.Context, sl fsview.FileSlice) bool {
	if !s.keyPinned {
		return false
	}
	if !s.keyPrunable(sl) {
		s.keyCounters.withLogs.Add(1)
		return false
	}
	if len(s.pinnedKeys) == 0 {
		// The filter contradicts itself on the key (`k = 'a' AND k = 'b'`): no row matches.
		s.keyCounters.checked.Add(1)
		s.keyCounters.byRange.Add(1)
		return true
	}
	excluded, byRange, checked := s.footerExcludesPinned(ctx, sl.Base.Path)
	if checked {
		s.keyCounters.checked.Add(1)
	}
	switch {
	case excluded && byRange:
		s.keyCounters.byRange.Add(1)
	case excluded:
		s.keyCounters.byBloom.Add(1)
	}
	return excluded
}

// footerExcludesPinned reports whether a base file's footer — its key range, then its
// bloom filter — rules out every pinned key, whether the range did, and whether the footer
// was read at all. Any failure to read it keeps the file.
func (s *Scan) footerExcludesPinned(ctx context.Context, path string) (excluded, byRange, checked bool) {
	f, err := s.t.Storage.Open(ctx, path)
	if err != nil {
		return false, false, false
	}
	defer f.Close()
	fk, err := parquet.ReadFooterKeys(f, f.Size())
	if err != nil {
		return false, false, false
	}
	keys := s.pinnedKeys
	if fk.HasRange && s.pinnedValidUTF8 {
		keys = inJavaRange(keys, fk.MinKey, fk.MaxKey)
		if len(keys) == 0 {
			return true, true, true
		}
	}
	if !fk.HasBloom {
		return false, false, true
	}
	text, err := fk.BloomFilterText(f)
	if err != nil {
		return false, false, true
	}
	filter, err := bloom.NewProbe(text, fk.BloomType)
	if err != nil {
		return false, false, true // an unreadable filter prunes nothing
	}
	for _, k := range keys {
		if filter.MightContain(k) {
			return false, false, true
		}
	}
	return true, false, true
}

// logsOnly reports whether a merged slice can be read from its log files alone: when the
// base file's footer rules out every pinned key, every row with a pinned key the slice can
// return comes from its logs (a log record of a key the base lacks is read as an insert,
// as the merge would), and the filter drops the base file's rows anyway. The base file is
// then not decoded.
func (s *Scan) logsOnly(ctx context.Context, sl fsview.FileSlice) bool {
	if !s.keyPinned || s.opts.ReadOptimized || sl.Base == nil || len(sl.Logs) == 0 {
		return false
	}
	if len(s.pinnedKeys) == 0 {
		return true
	}
	excluded, _, _ := s.footerExcludesPinned(ctx, sl.Base.Path)
	if excluded {
		s.keyCounters.baseSkipped.Add(1)
	}
	return excluded
}

// inJavaRange returns the keys (sorted in Java String order) within [lo, hi], compared as
// Hudi wrote the footer keys.
func inJavaRange(keys []string, lo, hi string) []string {
	start, _ := slices.BinarySearchFunc(keys, lo, javastr.Compare)
	end := start
	for end < len(keys) && javastr.Compare(keys[end], hi) <= 0 {
		end++
	}
	return keys[start:end]
}

// allValidUTF8 reports whether range pruning applies to keys: Java never held a key that
// is not valid UTF-8 as it is, so such a key is only compared by its bloom filter bytes.
func allValidUTF8(keys []string) bool {
	for _, k := range keys {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

// errKeyFound stops a key column probe at the first pinned key.
var errKeyFound = errors.New("pinned key found")

// keyRowGroups wraps a row-group selector for a kept base file: when several row groups
// are left, it reads only their _hoodie_record_key column and keeps the row groups that
// hold a pinned key, so the other columns of the rest are never read. One row group is
// read as it is (probing it would read its key column twice).
func (s *Scan) keyRowGroups(ctx context.Context, sel filegroup.RowGroupSelector) filegroup.RowGroupSelector {
	return func(pf *parquet.File, fileColumn func(string) (string, bool)) []int {
		groups := sel(pf, fileColumn)
		if len(groups) < 2 {
			return groups
		}
		leaf := pf.LeafIndex(schema.MetaFields[2])
		if leaf < 0 {
			return groups
		}
		keep := groups[:0:0]
		for _, rg := range groups {
			s.keyCounters.rgProbed.Add(1)
			found := false
			err := pf.ReadBatches(ctx, []int{leaf}, []int{rg}, func(rec arrow.Record) error {
				col, ok := rec.Column(0).(*array.String)
				if !ok {
					found = true // not a plain string column: do not judge
					return errKeyFound
				}
				for i := 0; i < col.Len(); i++ {
					if col.IsValid(i) {
						if _, ok := s.pinnedSet[col.Value(i)]; ok {
							found = true
							return errKeyFound
						}
					}
				}
				return nil
			})
			if found || (err != nil && !errors.Is(err, errKeyFound)) {
				keep = append(keep, rg) // errors are left to the real read
				continue
			}
			s.keyCounters.rgPruned.Add(1)
		}
		return keep
	}
}
