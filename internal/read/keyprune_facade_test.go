package read_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage/local"
)

// Key lookups on tables written by hudi-go's writer (Java-identical bloom filters and
// footer key ranges): the rows must be exactly those of the key, and base files whose
// footer excludes the key must not be read.

type row = map[string]any

// writeRows writes rows (JSON-like maps in the table's columns) with one operation.
func writeRows(t *testing.T, tb *hudi.Table, op string, rows []row, settings map[string]string) {
	t.Helper()
	ctx := context.Background()
	avro, err := tb.SchemaAt(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.FromAvro(avro)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, r := range rows {
		b, _ := json.Marshal(r)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	var recs []arrow.Record
	for rec, err := range jsonl.Decode(&buf, sc, memory.DefaultAllocator, 0) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if _, err := tb.Write(ctx, recs, hudi.WriteOptions{Operation: op, Settings: settings}); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
}

// manyFiles makes every insert of n rows write files of `per` rows.
func manyFiles(per int) map[string]string {
	return map[string]string{"hoodie.copyonwrite.insert.auto.split": "false", "hoodie.copyonwrite.insert.split.size": fmt.Sprint(per),
		"hoodie.parquet.small.file.limit": "0", "hoodie.index.type": "BLOOM"}
}

// keyLookup runs a filtered scan through read.Plan and returns the rows as "c1/c2/…"
// strings of the given columns, sorted, with the key pruning counts.
func keyLookup(t *testing.T, dir string, filter string, ro bool, cols ...string) ([]string, read.KeyPruning) {
	t.Helper()
	ctx := context.Background()
	tb, err := table.Open(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	f, err := expr.Parse(filter)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	s, err := read.Plan(ctx, tb, read.Options{Filter: f, Columns: cols, ReadOptimized: ro, Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	err = s.Run(ctx, func(rec arrow.Record) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			var parts []string
			for c := 0; c < int(rec.NumCols()); c++ {
				parts = append(parts, rec.Column(c).ValueStr(i))
			}
			rows = append(rows, strings.Join(parts, "/"))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	slices.Sort(rows)
	return rows, s.KeyPruning()
}

// footerRanges returns the footer min/max record keys of every base file under dir.
func footerRanges(t *testing.T, dir string) [][2]string {
	t.Helper()
	var out [][2]string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") || strings.Contains(p, ".hoodie") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenBytes(data, p, memory.DefaultAllocator, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		lo, hi, ok := pf.MinMaxRecordKeys()
		if _, _, hasBloom := pf.BloomFilter(); !ok || !hasBloom {
			t.Fatalf("%s: hudi-go wrote no footer key range or bloom filter", p)
		}
		out = append(out, [2]string{lo, hi})
		return nil
	})
	return out
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func TestKeyLookupCOW(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
		PartitionFields: []string{"city"}, HiveStyle: true, Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	fares := map[string]float64{}
	var rows []row
	for i := 0; i < 120; i++ {
		k := fmt.Sprintf("k%03d", i)
		fares[k] = float64(i)
		rows = append(rows, row{"uuid": k, "ts": 1, "fare": float64(i), "city": []string{"a", "b"}[i%2]})
	}
	writeRows(t, tb, "insert", rows, manyFiles(20))
	// One file whose Java-order key range differs from its byte-order range: Java puts the
	// surrogate pair of 😀 (U+D83D…) before U+E000, UTF-8 after.
	special := []string{"s\U0001F600", "s\uE000", "s5", "it's"}
	rows = nil
	for i, k := range special {
		fares[k] = float64(1000 + i)
		rows = append(rows, row{"uuid": k, "ts": 1, "fare": float64(1000 + i), "city": "c"})
	}
	writeRows(t, tb, "insert", rows, manyFiles(20))
	// An update rewrites a file (COW): the lookup sees the new value.
	writeRows(t, tb, "upsert", []row{{"uuid": "k010", "ts": 2, "fare": 10.5, "city": "a"}}, manyFiles(20))
	fares["k010"] = 10.5

	ranges := footerRanges(t, dir)
	files := len(ranges)
	if files < 7 {
		t.Fatalf("%d base files, want at least 7", files)
	}
	var sawSpecial bool
	for _, r := range ranges {
		if r == [2]string{"it's", "s\uE000"} {
			sawSpecial = true
		}
	}
	if !sawSpecial {
		t.Fatalf("no file with the Java-order key range [it's, s\\uE000]: %q", ranges)
	}
	want := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			if f, ok := fares[k]; ok {
				out = append(out, fmt.Sprintf("%s/%g", k, f))
			}
		}
		slices.Sort(out)
		return out
	}
	type tcase struct {
		filter string
		keys   []string // the keys the filter selects (present or not)
	}
	var cases []tcase
	for _, r := range ranges { // every file's first and last key
		cases = append(cases, tcase{"uuid = " + quote(r[0]), []string{r[0]}}, tcase{"uuid = " + quote(r[1]), []string{r[1]}})
	}
	cases = append(cases,
		tcase{"uuid = 'k055'", []string{"k055"}},
		tcase{"uuid = 'k010'", []string{"k010"}},
		tcase{"uuid = 'k0555'", nil},       // between keys of one file
		tcase{"uuid = 'k'", nil},           // before every key
		tcase{"uuid = 'zzz'", nil},         // after every key
		tcase{"uuid = 's\U0001F601'", nil}, // in the special file's Java range, not in it
		tcase{"uuid = 's\U0001F600'", []string{"s\U0001F600"}},
		tcase{"uuid in ('k001', 'k119', 's5', 'nope')", []string{"k001", "k119", "s5"}},
		tcase{"_hoodie_record_key = 'k077'", []string{"k077"}},
		tcase{"uuid = 'k077' and fare > 100", []string{"k077"}}, // no row, but k077's file is read
		tcase{"uuid = 'k077' and city = 'b'", []string{"k077"}},
		tcase{"(uuid = 'k003' or uuid = 'k004') and ts = 1", []string{"k003", "k004"}},
	)
	for _, tc := range cases {
		got, kp := keyLookup(t, dir, tc.filter, false, "uuid", "fare")
		exp := want(tc.keys...)
		if tc.filter == "uuid = 'k077' and fare > 100" {
			exp = nil
		}
		if !slices.Equal(got, exp) {
			t.Errorf("%s: rows %q, want %q", tc.filter, got, exp)
		}
		// Every file is checked (partition pruning applies to city filters only); a file
		// is kept only if it holds a selected key.
		kept := kp.Checked - kp.PrunedByRange - kp.PrunedByBloom
		present := len(want(tc.keys...))
		if !kp.Pinned || kept > present || (present > 0 && kept == 0) {
			t.Errorf("%s: pruning %+v with %d keys present", tc.filter, kp, present)
		}
	}
}

func TestKeyLookupComplexKeys(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		fields   []string
		settings map[string]string
		filters  map[string][]string // filter → rows id/name/fare
	}{
		{"two fields", []string{"id", "name"}, nil, map[string][]string{
			"id = 3 and name = 'n3'":                      {"3/n3/3"},
			"_hoodie_record_key = 'id:3,name:n3'":         {"3/n3/3"},
			"id = 3 and name = 'n4'":                      nil,
			"id in (3, 40, 77) and name in ('n40', 'n3')": {"3/n3/3", "40/n40/40"},
			"id = 3": {"3/n3/3"}, // not pinned: read everything
		}},
		{"one field, complex key generator", []string{"id"}, map[string]string{
			"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator"}, map[string][]string{
			"id = 3":                      {"3/n3/3"},
			"_hoodie_record_key = 'id:3'": {"3/n3/3"},
			"_hoodie_record_key = '3'":    nil,
			"id = 300":                    nil,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", RecordKeyFields: tc.fields, PrecombineField: "ts",
				Schema: "id BIGINT, name STRING, ts BIGINT, fare DOUBLE", Settings: tc.settings})
			if err != nil {
				t.Fatal(err)
			}
			var rows []row
			for i := 0; i < 100; i++ {
				rows = append(rows, row{"id": i, "name": fmt.Sprintf("n%d", i), "ts": 1, "fare": float64(i)})
			}
			writeRows(t, tb, "insert", rows, manyFiles(10))
			files := len(footerRanges(t, dir))
			for filter, want := range tc.filters {
				got, kp := keyLookup(t, dir, filter, false, "id", "name", "fare")
				if !slices.Equal(got, want) {
					t.Errorf("%s: rows %q, want %q", filter, got, want)
				}
				if filter == "id = 3" && len(tc.fields) > 1 {
					if kp.Pinned {
						t.Errorf("%s pins a two-field key: %+v", filter, kp)
					}
					continue
				}
				if kept := kp.Checked - kp.PrunedByRange - kp.PrunedByBloom; !kp.Pinned || kp.Checked != files || kept > len(want) {
					t.Errorf("%s: pruning %+v over %d files, %d rows", filter, kp, files, len(want))
				}
			}
		})
	}
}

// TestKeyLookupMORLogs: a slice with log files is never pruned by its base file's footer —
// here the log holds an update of a key that the base file (replaced by one without it)
// lacks, so the base footer alone would wrongly prune it.
func TestKeyLookupMORLogs(t *testing.T) {
	ctx := context.Background()
	create := func(dir string) *hudi.Table {
		tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", Type: "mor", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
			Schema: "uuid STRING, ts BIGINT, fare DOUBLE"})
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	dir := filepath.Join(t.TempDir(), "t")
	tb := create(dir)
	var rows []row
	for i := 0; i < 40; i++ {
		rows = append(rows, row{"uuid": fmt.Sprintf("k%02d", i), "ts": 1, "fare": float64(i)})
	}
	writeRows(t, tb, "insert", rows, manyFiles(10))
	// k05 updated in a log file of its slice; k15 updated; a new key. Small-file routing
	// is off: it would send the new key into a small log-free slice and, as Java's
	// delta-commit executor does for such a slice, merge that slice's updates into a new
	// base file instead of a log.
	writeRows(t, tb, "upsert", []row{{"uuid": "k05", "ts": 2, "fare": 5.5}, {"uuid": "k15", "ts": 2, "fare": 15.5},
		{"uuid": "new", "ts": 2, "fare": 99}}, map[string]string{"hoodie.parquet.small.file.limit": "0"})

	for _, tc := range []struct {
		filter string
		ro     bool
		want   []string
	}{
		{"uuid = 'k05'", false, []string{"k05/5.5"}},
		{"uuid = 'k05'", true, []string{"k05/5"}},
		{"uuid = 'k15'", false, []string{"k15/15.5"}},
		{"uuid = 'k25'", false, []string{"k25/25"}},
		{"uuid = 'new'", false, []string{"new/99"}},
		{"uuid = 'k99'", false, nil},
		{"uuid in ('k05', 'k25', 'new')", false, []string{"k05/5.5", "k25/25", "new/99"}},
	} {
		got, kp := keyLookup(t, dir, tc.filter, tc.ro, "uuid", "fare")
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (read-optimized %v): rows %q, want %q", tc.filter, tc.ro, got, tc.want)
		}
		if !kp.Pinned || (!tc.ro && kp.WithLogs == 0) || (tc.ro && kp.WithLogs != 0) {
			t.Errorf("%s (read-optimized %v): pruning %+v", tc.filter, tc.ro, kp)
		}
		// A merged slice whose base file's footer rules out the keys is read from its
		// logs alone: for k99 every one of them.
		if tc.filter == "uuid = 'k99'" && kp.LogsOnly != kp.WithLogs {
			t.Errorf("%s: %d of %d slices with logs read from their logs alone, want all", tc.filter, kp.LogsOnly, kp.WithLogs)
		}
	}

	// Replace the base file under k05's log with one holding only k00..k04 (written by a
	// second table): k05 now lives only in the log, outside the base file's key range.
	var logBase string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".log.") && !strings.Contains(p, ".hoodie") {
			fileID := strings.TrimPrefix(strings.SplitN(d.Name(), "_", 2)[0], ".")
			matches, _ := filepath.Glob(filepath.Join(filepath.Dir(p), fileID+"_*.parquet"))
			for _, m := range matches {
				data, _ := os.ReadFile(m)
				pf, err := parquet.OpenBytes(data, m, memory.DefaultAllocator, 0)
				if err != nil {
					t.Fatal(err)
				}
				if lo, hi, _ := pf.MinMaxRecordKeys(); lo <= "k05" && "k05" <= hi {
					logBase = m
				}
				pf.Close()
			}
		}
		return nil
	})
	if logBase == "" {
		t.Fatal("no base file with a log holding k05")
	}
	other := filepath.Join(t.TempDir(), "o")
	otb := create(other)
	rows = nil
	for i := 0; i < 5; i++ {
		rows = append(rows, row{"uuid": fmt.Sprintf("k%02d", i), "ts": 1, "fare": float64(i)})
	}
	writeRows(t, otb, "insert", rows, nil)
	matches, _ := filepath.Glob(filepath.Join(other, "*.parquet"))
	if len(matches) != 1 {
		t.Fatalf("second table has %d base files", len(matches))
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logBase, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, kp := keyLookup(t, dir, "uuid = 'k05'", false, "uuid", "fare")
	if !slices.Equal(got, []string{"k05/5.5"}) || kp.WithLogs == 0 || kp.LogsOnly == 0 {
		t.Errorf("k05 only in a log: rows %q, pruning %+v (its slice is read from the log alone)", got, kp)
	}
	// Read-optimized reads base files only: the replaced base file has no k05.
	got, kp = keyLookup(t, dir, "uuid = 'k05'", true, "uuid", "fare")
	if len(got) != 0 || kp.PrunedByRange+kp.PrunedByBloom != kp.Checked {
		t.Errorf("read-optimized k05: rows %q, pruning %+v", got, kp)
	}
	// The unpinned equivalent agrees.
	want, _ := keyLookup(t, dir, "uuid like 'k05'", false, "uuid", "fare")
	if !slices.Equal(want, []string{"k05/5.5"}) {
		t.Errorf("unpinned lookup: %q", want)
	}
}
