package read

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
)

func mustParse(t testing.TB, s string) expr.Expr {
	t.Helper()
	e, err := expr.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return e
}

func TestPinKeys(t *testing.T) {
	full := schema.WithMetaFields(arrow.NewSchema([]arrow.Field{
		{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.String}), Nullable: true},
	}, nil))
	cfg := func(keys string) *table.Config {
		p := props.New()
		if keys != "" {
			p.Set(table.KeyRecordKeyFields, keys)
		}
		return &table.Config{Props: p}
	}
	tests := []struct {
		keys   string // record key fields
		filter string
		want   []string // nil = not pinned
	}{
		// Simple keys: the bare value and the one-field complex spelling.
		{"uuid", "uuid = 'a'", []string{"a", "uuid:a"}},
		{"uuid", "'a' = uuid", []string{"a", "uuid:a"}},
		{"uuid", "UUID = 'a'", []string{"a", "uuid:a"}},
		{"uuid", "uuid = 12", []string{"12", "uuid:12"}},
		{"uuid", "uuid in ('a', 'b', NULL)", []string{"a", "b", "uuid:a", "uuid:b"}},
		{"uuid", "uuid = 'a' and fare > 3", []string{"a", "uuid:a"}},
		{"uuid", "fare > 3 and (uuid = 'a' or uuid = 'b')", []string{"a", "b", "uuid:a", "uuid:b"}},
		{"uuid", "uuid = 'a' and uuid in ('a', 'b')", []string{"a", "uuid:a"}},
		{"uuid", "uuid = 'a' and uuid = 'b'", []string{}},
		{"uuid", "uuid = ''", []string{"", "__empty__", "uuid:__empty__"}},
		{"uuid", "uuid = 'a' or fare > 3", nil},
		{"uuid", "uuid != 'a'", nil},
		{"uuid", "uuid > 'a'", nil},
		{"uuid", "not uuid = 'a'", nil},
		{"uuid", "uuid not in ('a')", nil},
		{"uuid", "uuid like 'a'", nil},
		{"uuid", "uuid = NULL", nil},
		{"uuid", "uuid in (NULL)", nil},
		{"uuid", "name = 'a'", nil},
		{"uuid", "fare = 1", nil},
		// _hoodie_record_key pins whatever the key generator.
		{"uuid", "_hoodie_record_key = 'k'", []string{"k"}},
		{"", "_hoodie_record_key in ('k', 'j')", []string{"j", "k"}},
		{"", "uuid = 'a'", nil},
		{"uuid", "_hoodie_record_key = 'a' and uuid = 'a'", []string{"a"}},
		{"uuid", "_hoodie_record_key = 'a' and uuid = 'b'", []string{}},
		{"uuid", "_hoodie_record_key = 'k' or uuid = 'a'", []string{"a", "k", "uuid:a"}},
		// Integer key fields: exact integer literals only.
		{"id", "id = 7", []string{"7", "id:7"}},
		{"id", "id = -007", []string{"-7", "id:-7"}},
		{"id", "id = 7.0", nil},
		{"id", "id = 7.5", nil},
		{"id", "id = '7'", nil},
		// Complex keys need every field pinned.
		{"id,name", "id = 5 and name = 'x'", []string{"id:5,name:x"}},
		{"id, name", "name = 'x' and id in (1, 2)", []string{"id:1,name:x", "id:2,name:x"}},
		{"id,name", "id = 5 and name = ''", []string{"id:5,name:__empty__"}},
		{"id,name", "id = 5", nil},
		{"id,name", "(id = 5 and name = 'x') or (id = 6 and name = 'y')", []string{"id:5,name:x", "id:6,name:y"}},
		{"id,name", "(id = 5 and name = 'x') or id = 6", nil},
		{"id,name", "_hoodie_record_key = 'id:5,name:x' and id = 5", []string{"id:5,name:x"}},
		// Key fields we do not spell: only _hoodie_record_key pins.
		{"fare", "fare = 1", nil},
		{"s.x", "s.x = 'a'", nil},
		{"uuid,fare", "uuid = 'a' and fare = 1", nil},
		{"missing", "uuid = 'a'", nil},
	}
	for _, tc := range tests {
		got, ok := pinKeys(mustParse(t, tc.filter), full, cfg(tc.keys))
		if tc.want == nil {
			if ok {
				t.Errorf("keys %q filter %q: pinned %q, want not pinned", tc.keys, tc.filter, got)
			}
			continue
		}
		want := slices.Clone(tc.want)
		slices.Sort(want)
		slices.Sort(got)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("keys %q filter %q: pinned %q (%v), want %q", tc.keys, tc.filter, got, ok, want)
		}
	}
}

// TestPinKeysJavaOrder: candidates are sorted as Java compares strings, so range pruning
// by binary search agrees with footers written in that order.
func TestPinKeysJavaOrder(t *testing.T) {
	full := schema.WithMetaFields(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}}, nil))
	p := props.New()
	keys, ok := pinKeys(mustParse(t, "_hoodie_record_key in ('a\uE000', 'a\U0001F600', 'a')"), full, &table.Config{Props: p})
	if !ok || !slices.Equal(keys, []string{"a", "a\U0001F600", "a\uE000"}) {
		t.Fatalf("keys = %q", keys)
	}
	for _, tc := range []struct {
		lo, hi string
		want   []string
	}{
		{"a\U0001F600", "a\uE000", []string{"a\U0001F600", "a\uE000"}},
		{"a\U0001F600", "a\U0001F600", []string{"a\U0001F600"}},
		{"a\uE000", "b", []string{"a\uE000"}},
		{"a\U0001F601", "a\U0001F602", nil},
		{"0", "a", []string{"a"}},
		{"b", "c", nil},
	} {
		if got := inJavaRange(keys, tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("range [%q, %q] = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// checkFixtureFooters checks the footer walker against a full footer decode on up to
// four Parquet files of a fixture table (Spark-written: DYNAMIC_V0 bloom filters of
// ~430 KB, Java-ordered keys) and returns how many have a bloom filter.
func checkFixtureFooters(t *testing.T, dir string) (withBloom int) {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") || strings.Contains(p, "/.hoodie/") || n == 4 {
			return nil
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if checkFooterKeys(t, p, data) {
			withBloom++
		}
		return nil
	})
	return withBloom
}

// checkFooterKeys compares readFooterKeys with parquet.Open on one file and reports
// whether it has a bloom filter.
func checkFooterKeys(t *testing.T, name string, data []byte) bool {
	t.Helper()
	pf, err := parquet.OpenBytes(data, name, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer pf.Close()
	fk, err := parquet.ReadFooterKeys(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: readFooterKeys: %v", name, err)
	}
	lo, hi, ok := pf.MinMaxRecordKeys()
	if ok != fk.HasRange || lo != fk.MinKey || hi != fk.MaxKey {
		t.Errorf("%s: key range %q..%q (%v), want %q..%q (%v)", name, fk.MinKey, fk.MaxKey, fk.HasRange, lo, hi, ok)
	}
	bf, typ, ok := pf.BloomFilter()
	if ok != fk.HasBloom || typ != fk.BloomType {
		t.Fatalf("%s: bloom %v type %q, want %v %q", name, fk.HasBloom, fk.BloomType, ok, typ)
	}
	if ok {
		if got := string(data[fk.BloomOff : fk.BloomOff+int64(fk.BloomLen)]); got != bf {
			t.Errorf("%s: bloom filter bytes differ (%d vs %d bytes)", name, len(got), len(bf))
		}
		if _, err := fk.BloomFilterText(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: bloom filter: %v", name, err)
		}
	}
	return ok
}

// keyFileSpec describes a synthetic base file: its keys (in row order) and which footer
// key/values it carries.
type keyFileSpec struct {
	keys         []string
	rangeKeys    bool   // hoodie_min/max_record_key
	bloomKeys    bool   // a SIMPLE bloom filter of the keys
	bloomValue   string // a literal bloom filter value instead (e.g. corrupt)
	rowGroupRows int64  // rows per row group (0 = one row group)
}

var keyFileSchema = arrow.NewSchema([]arrow.Field{
	{Name: "_hoodie_commit_time", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "_hoodie_commit_seqno", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "_hoodie_record_key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "_hoodie_partition_path", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "_hoodie_file_name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "rider", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "driver", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// writeKeyFiles writes a v6 COW table (like writeSyntheticCOWTable) with one base file per
// spec; uuid is the record key and fare the row's position in its file.
func writeKeyFiles(t *testing.T, dir string, specs []keyFileSpec) {
	t.Helper()
	// Reuse the synthetic table's properties, commit and layout, then replace its files.
	old := writeSyntheticCOWTable(t, dir, 1, 1)
	for _, p := range old {
		os.Remove(p)
	}
	const instant = "20250101000000000"
	for f, sp := range specs {
		name := fmt.Sprintf("%08d-0000-0000-0000-000000000000-0_0-1-%d_%s.parquet", f, f, instant)
		b := array.NewRecordBuilder(memory.DefaultAllocator, keyFileSchema)
		for i, key := range sp.keys {
			for c, v := range []string{instant, fmt.Sprintf("%s_%d_%d", instant, f, i), key, "", name} {
				b.Field(c).(*array.StringBuilder).Append(v)
			}
			b.Field(5).(*array.Int64Builder).Append(int64(i))
			b.Field(6).(*array.StringBuilder).Append(key)
			b.Field(7).(*array.StringBuilder).Append("rider")
			b.Field(8).(*array.StringBuilder).Append("driver")
			b.Field(9).(*array.Float64Builder).Append(float64(f*1000 + i))
			b.Field(10).(*array.StringBuilder).Append("city")
		}
		rec := b.NewRecord()
		b.Release()
		out, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		wp := []pq.WriterProperty{pq.WithDictionaryDefault(false)}
		if sp.rowGroupRows > 0 {
			wp = append(wp, pq.WithMaxRowGroupLength(sp.rowGroupRows))
		}
		w, err := pqarrow.NewFileWriter(keyFileSchema, out, pq.NewWriterProperties(wp...), pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if sp.bloomKeys {
			bf, err := bloom.New(bloom.Simple, bloom.Options{NumEntries: 1000, FPP: 0.000001})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range sp.keys {
				bf.Add(k)
			}
			w.AppendKeyValueMetadata(parquet.KeyBloomFilter, bf.Serialize())
		}
		if sp.bloomValue != "" {
			w.AppendKeyValueMetadata(parquet.KeyBloomFilter, sp.bloomValue)
		}
		if sp.rangeKeys && len(sp.keys) > 0 {
			lo, hi := sp.keys[0], sp.keys[0]
			for _, k := range sp.keys { // Java String order, as Hudi writes them
				if javastr.Compare(k, lo) < 0 {
					lo = k
				}
				if javastr.Compare(k, hi) > 0 {
					hi = k
				}
			}
			w.AppendKeyValueMetadata(parquet.KeyMinRecordKey, lo)
			w.AppendKeyValueMetadata(parquet.KeyMaxRecordKey, hi)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// lookup runs a filtered scan and returns "uuid/fare" of each row, sorted, and the pruning.
func lookup(t *testing.T, tb *table.Table, opts Options) ([]string, KeyPruning) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	opts.Mem = mem
	if opts.Columns == nil {
		opts.Columns = []string{"uuid", "fare"}
	}
	s, err := Plan(context.Background(), tb, opts)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	err = s.Run(context.Background(), func(rec arrow.Record) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			rows = append(rows, rec.Column(0).ValueStr(i)+"/"+rec.Column(1).ValueStr(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rows)
	return rows, s.KeyPruning()
}

// TestKeyPruneFooterVariants: files with and without footer key ranges and bloom filters
// (and a corrupt one) answer key lookups correctly; only what the footer proves is pruned.
func TestKeyPruneFooterVariants(t *testing.T) {
	dir := t.TempDir()
	specs := []keyFileSpec{
		{keys: []string{"a1", "a2", "a3"}, rangeKeys: true, bloomKeys: true},       // 0: both
		{keys: []string{"b1", "b2", "b3"}},                                         // 1: neither
		{keys: []string{"c1", "c3"}, rangeKeys: true},                              // 2: range only
		{keys: []string{"d1", "d3"}, bloomKeys: true},                              // 3: bloom only
		{keys: []string{"e1", "e3"}, rangeKeys: true, bloomValue: "not a filter!"}, // 4: corrupt bloom
		{keys: []string{"a\U0001F600", "a\uE000", "a2"}, rangeKeys: true},          // 5: Java order ≠ byte order
		{keys: []string{"a\U0001F600x"}, rangeKeys: true, bloomKeys: true},         // 6
	}
	writeKeyFiles(t, dir, specs)
	tb := openTable(t, dir)
	tests := []struct {
		filter        string
		rows          []string
		range_, bloom int // files pruned by range and by bloom filter
	}{
		// a2 is in file 0 (range and bloom), and in file 5's Java range [a😀, a] (and in it).
		{"uuid = 'a2'", []string{"a2/1", "a2/5002"}, 3, 1},
		{"uuid = 'a1'", []string{"a1/0"}, 4, 1},    // first key of file 0
		{"uuid = 'a3'", []string{"a3/2"}, 3, 1},    // last key of file 0
		{"uuid = 'c1'", []string{"c1/2000"}, 4, 1}, // first key of a range-only file
		{"uuid = 'c3'", []string{"c3/2001"}, 4, 1}, // last key of a range-only file
		{"uuid = 'c2'", nil, 4, 1},                 // in range-only file's range, absent
		{"uuid = 'a25'", nil, 3, 2},                // in file 0's range, not in its bloom filter
		{"uuid = 'b2'", []string{"b2/1001"}, 5, 1}, // file without footer keys: read
		{"uuid = 'd3'", []string{"d3/3001"}, 5, 0}, // bloom-only file
		{"uuid = 'd2'", nil, 5, 1},                 // bloom-only file excludes it
		{"uuid = 'e3'", []string{"e3/4001"}, 4, 1}, // corrupt bloom: range only
		{"uuid = 'e2'", nil, 4, 1},                 // corrupt bloom prunes nothing
		{"uuid = 'zz'", nil, 5, 1},                 // beyond every range
		{"uuid = '0'", nil, 5, 1},                  // before every range
		{"uuid = 'a\U0001F600'", []string{"a\U0001F600/5000"}, 4, 1},
		{"uuid = 'a\uE000'", []string{"a\uE000/5001"}, 4, 1},
		{"uuid = 'a\U0001F600x'", []string{"a\U0001F600x/6000"}, 3, 1},
		{"uuid in ('a1', 'c3', 'nope')", []string{"a1/0", "c3/2001"}, 3, 1},
		{"_hoodie_record_key = 'b3'", []string{"b3/1002"}, 5, 1},
		{"uuid = 'a1' and uuid = 'c1'", nil, 7, 0}, // contradiction: nothing is read
	}
	for _, tc := range tests {
		rows, kp := lookup(t, tb, Options{Filter: mustParse(t, tc.filter)})
		if !slices.Equal(rows, tc.rows) {
			t.Errorf("%s: rows %q, want %q", tc.filter, rows, tc.rows)
		}
		if !kp.Pinned || kp.PrunedByRange != tc.range_ || kp.PrunedByBloom != tc.bloom {
			t.Errorf("%s: pruning %+v, want %d by range, %d by bloom", tc.filter, kp, tc.range_, tc.bloom)
		}
	}
	// A filter that does not pin the key reads everything and prunes nothing.
	rows, kp := lookup(t, tb, Options{Filter: mustParse(t, "uuid = 'a1' or fare = 1001")})
	if !slices.Equal(rows, []string{"a1/0", "b2/1001"}) || kp.Pinned {
		t.Errorf("unpinned filter: rows %q, pruning %+v", rows, kp)
	}
}

// TestKeyRowGroupProbe: in a file of several row groups whose key statistics do not
// prune (unsorted keys), only the row groups holding the key are read past their key
// column.
func TestKeyRowGroupProbe(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	var keys []string
	for i := 0; i < 1000; i++ {
		keys = append(keys, fmt.Sprintf("k%04d", i))
	}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	writeKeyFiles(t, dir, []keyFileSpec{{keys: keys, rangeKeys: true, bloomKeys: true, rowGroupRows: 100}})
	tb := openTable(t, dir)
	pos := slices.Index(keys, "k0500")
	rows, kp := lookup(t, tb, Options{Filter: mustParse(t, "uuid = 'k0500'")})
	if want := []string{fmt.Sprintf("k0500/%d", pos)}; !slices.Equal(rows, want) {
		t.Fatalf("rows %q, want %q", rows, want)
	}
	if kp.RowGroupsProbed != 10 || kp.RowGroupsPruned != 9 {
		t.Errorf("pruning %+v, want 10 row groups probed and 9 pruned", kp)
	}
	// Two keys in (most likely) two row groups.
	rows, _ = lookup(t, tb, Options{Filter: mustParse(t, "_hoodie_record_key in ('k0001', 'k0999')"),
		Columns: []string{"uuid", "ts"}})
	want := []string{fmt.Sprintf("k0001/%d", slices.Index(keys, "k0001")), fmt.Sprintf("k0999/%d", slices.Index(keys, "k0999"))}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
}

// TestKeyLookupFixtures: on every Spark-written fixture table, a lookup of each record key
// (by _hoodie_record_key and by the key fields) returns exactly the rows of the unfiltered
// query that match the filter — snapshot and read-optimized. It also checks the footer
// walker on every base file.
func TestKeyLookupFixtures(t *testing.T) {
	ctx := context.Background()
	ids := testutil.TableIDs(t)
	if raceEnabled {
		// Complex keys with Java footers; a MOR table with log files and bloom filters.
		ids = []string{"cow/v8_complexkeygen_hivestyle", "trips-mor-avro/v8_trips_8i3u1d"}
	}
	checked, pruned, withLogs, withBloom := 0, 0, 0, 0
	for _, id := range ids {
		dir := testutil.Table(t, id)
		withBloom += checkFixtureFooters(t, dir)
		tb := openTable(t, dir)
		for _, ro := range []bool{false, true} {
			if typ, _ := tb.Config.Type(); ro && typ != spec.MergeOnRead {
				continue
			}
			all, err := Plan(ctx, tb, Options{ReadOptimized: ro})
			if err != nil {
				continue // e.g. Lance base files
			}
			var recs []arrow.Record
			if err := all.Run(ctx, func(rec arrow.Record) error { rec.Retain(); recs = append(recs, rec); return nil }); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			for _, f := range keyFilters(tb, recs) {
				want := filterRows(t, f, recs)
				s, err := Plan(ctx, tb, Options{ReadOptimized: ro, Filter: mustParse(t, f)})
				if err != nil {
					t.Fatalf("%s %s: %v", id, f, err)
				}
				var got []string
				if err := s.Run(ctx, func(rec arrow.Record) error { got = append(got, rowStrings(rec)...); return nil }); err != nil {
					t.Fatalf("%s %s: %v", id, f, err)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s (read-optimized %v) %s:\n got %q\nwant %q", id, ro, f, got, want)
				}
				checked++
				kp := s.KeyPruning()
				pruned += kp.PrunedByRange + kp.PrunedByBloom
				withLogs += kp.WithLogs
			}
			for _, r := range recs {
				r.Release()
			}
		}
	}
	if checked == 0 {
		t.Skip("no fixture could be read")
	}
	t.Logf("%d lookups checked; %d base files pruned, %d slices with logs read unpruned", checked, pruned, withLogs)
	if pruned == 0 || withLogs == 0 || withBloom == 0 {
		t.Errorf("the fixtures did not exercise footer pruning (%d), slices with logs (%d) and bloom filters (%d)", pruned, withLogs, withBloom)
	}
}

// keyFilters builds lookups for up to 2 record keys of the rows (and two absent keys): by
// _hoodie_record_key, and by the key fields when each is a string or integer column.
func keyFilters(tb *table.Table, recs []arrow.Record) []string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	fields := tb.Config.RecordKeyFields()
	out := []string{"_hoodie_record_key in ('', 'no such key')"}
	seen := map[string]bool{}
	for _, rec := range recs {
		ki := rec.Schema().FieldIndices(schema.MetaFields[2])
		if len(ki) == 0 {
			return out
		}
		keys := rec.Column(ki[0])
		for i := 0; i < keys.Len() && len(seen) < 2; i++ {
			if keys.IsNull(i) || seen[keys.ValueStr(i)] {
				continue
			}
			k := keys.ValueStr(i)
			seen[k] = true
			out = append(out, "_hoodie_record_key = "+quote(k))
			if len(seen) == 1 {
				out = append(out, "_hoodie_record_key in ("+quote(k)+", 'x')")
			}
			var conj []string
			for _, f := range fields {
				idx := rec.Schema().FieldIndices(f)
				if len(idx) == 0 {
					conj = nil
					break
				}
				col := rec.Column(idx[0])
				if col.IsNull(i) {
					conj = nil
					break
				}
				switch col.DataType().ID() {
				case arrow.STRING:
					conj = append(conj, f+" = "+quote(col.ValueStr(i)))
				case arrow.INT32, arrow.INT64:
					conj = append(conj, f+" = "+col.ValueStr(i))
				default:
					conj = nil
				}
				if conj == nil {
					break
				}
			}
			if len(conj) == len(fields) && len(conj) > 0 {
				out = append(out, strings.Join(conj, " and "))
			}
		}
	}
	return out
}

// filterRows applies the filter to the unfiltered result: the reference answer.
func filterRows(t *testing.T, f string, recs []arrow.Record) []string {
	var out []string
	for _, rec := range recs {
		res, err := expr.Filter(context.Background(), mustParse(t, f), rec)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, rowStrings(res)...)
		res.Release()
	}
	slices.Sort(out)
	return out
}

func rowStrings(rec arrow.Record) []string {
	out := make([]string, rec.NumRows())
	for i := range out {
		var b strings.Builder
		for c := 0; c < int(rec.NumCols()); c++ {
			b.WriteString(rec.Column(c).ValueStr(i))
			b.WriteByte('|')
		}
		out[i] = b.String()
	}
	return out
}

func TestReadFooterKeysMalformed(t *testing.T) {
	dir := t.TempDir()
	writeKeyFiles(t, dir, []keyFileSpec{{keys: []string{"a", "b"}, rangeKeys: true, bloomKeys: true}})
	matches, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	good, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	checkFooterKeys(t, "synthetic", good)
	for name, data := range map[string][]byte{
		"empty":       nil,
		"short":       []byte("PAR1PAR1"),
		"no magic":    append(slices.Clone(good[:len(good)-4]), "PARE"...),
		"huge length": append(append(slices.Clone(good[:len(good)-8]), 0xff, 0xff, 0xff, 0x7f), "PAR1"...),
		"truncated":   slices.Concat(good[:4], good[len(good)-200:]),
	} {
		if _, err := parquet.ReadFooterKeys(bytes.NewReader(data), int64(len(data))); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// footerFile wraps a thrift-compact footer in a Parquet file's framing.
func footerFile(footer []byte) []byte {
	out := append([]byte("PAR1"), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// FuzzReadFooterKeys: malformed footers are errors, never panics or hangs.
func FuzzReadFooterKeys(f *testing.F) {
	// FileMetaData{5: [KeyValue{1: "hoodie_min_record_key", 2: "a"}]}
	f.Add(footerFile([]byte("\x59\x1c\x18\x15hoodie_min_record_key\x18\x01a\x00\x00")))
	// FileMetaData{1: 1, 2: [], 5: [KeyValue{1: "org.apache.hudi.bloomfilter", 2: "AAAA"}]}
	f.Add(footerFile([]byte("\x15\x02\x19\x0c\x39\x1c\x18\x1borg.apache.hudi.bloomfilter\x18\x04AAAA\x00\x00")))
	f.Fuzz(func(t *testing.T, data []byte) {
		fk, err := parquet.ReadFooterKeys(bytes.NewReader(data), int64(len(data)))
		if err == nil && fk.HasBloom {
			fk.BloomFilterText(bytes.NewReader(data))
		}
	})
}

func TestFooterFileSeeds(t *testing.T) {
	fk, err := parquet.ReadFooterKeys(bytes.NewReader(footerFile([]byte("\x59\x1c\x18\x15hoodie_min_record_key\x18\x01a\x00\x00"))), 0)
	if err == nil {
		t.Fatal("size 0 read without error")
	}
	// FileMetaData{1: 1, 2: [], 5: [{min: "a"}, {max: "b"}, {min: "z"}]}: the first wins.
	data := footerFile([]byte("\x15\x02\x19\x0c\x39\x3c" +
		"\x18\x15hoodie_min_record_key\x18\x01a\x00" +
		"\x18\x15hoodie_max_record_key\x18\x01b\x00" +
		"\x18\x15hoodie_min_record_key\x18\x01z\x00\x00"))
	fk, err = parquet.ReadFooterKeys(bytes.NewReader(data), int64(len(data)))
	if err != nil || !fk.HasRange || fk.MinKey != "a" || fk.MaxKey != "b" || fk.HasBloom {
		t.Fatalf("footer keys %+v, %v", fk, err)
	}
}
