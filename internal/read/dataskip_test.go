package read

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
)

// TestDataSkippingOnSparkFixtures reads every Parquet Spark fixture whose metadata table
// has column_stats with filters built from its own statistics — equality, ranges, IS NULL,
// negations, OR/AND across columns — once with hoodie.enable.data.skipping and once
// without: the rows must be equal, and the skipping reads must prune file slices
// (HoodieFileIndex.lookupCandidateFilesInMetadataTable). On merge-on-read fixtures a slice
// stays whenever one of its log files is a candidate.
func TestDataSkippingOnSparkFixtures(t *testing.T) {
	ctx := context.Background()
	// CI reads 4 fixtures (COW and MOR, Hudi 1.0 and 1.1, partitioned and not) with 3
	// filters each; HUDI_DATASKIP_ALL=1 reads all 8 with every filter (118 reads, ~14 s).
	all := os.Getenv("HUDI_DATASKIP_ALL") != ""
	ciFixtures := []string{"cow/v9_txns_simple_meta", "mor-avro/v9_txns_complex_meta", "mor-avro/v9_txns_nonpart_meta", "trips-mor-avro/v8_trips_8i3u1d"}
	if raceEnabled && !all {
		// Under -race (~5× slower): the COW table and the Hudi 1.0 MOR table, whose log
		// files' stats decide slices.
		ciFixtures = []string{"cow/v9_txns_simple_meta", "trips-mor-avro/v8_trips_8i3u1d"}
	}
	var fixtures, queries, slicesSeen, pruned int
	for _, id := range testutil.MetadataTableIDs(t) {
		if strings.Contains(id, "lance") {
			continue // Lance base files: not readable by hudi-go
		}
		if !all && !slices.Contains(ciFixtures, id) {
			continue
		}
		dir := testutil.Table(t, id)
		tb := openTable(t, dir)
		m, err := mdt.Open(ctx, tb.Storage)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := m.Partitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stats, err := m.ReadColumnStats(ctx, parts)
		if err != nil {
			t.Fatal(err)
		}
		fixtures++
		filters := filtersFromStats(stats)
		if !all && len(filters) > 6 {
			// CI reads 3 filters per fixture: an equality, a range, an AND across columns.
			filters = []string{filters[0], filters[1], filters[6]}
		}
		filters = append(filters, logFilters(stats, all)...)
		for _, f := range filters {
			filter, err := expr.Parse(f)
			if err != nil {
				t.Fatalf("%s: %s: %v", id, f, err)
			}
			without := scanRows(t, tb, Options{Filter: filter})
			s, err := Plan(ctx, tb, Options{Filter: filter, DataSkipping: true, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("%s: %s: %v", id, f, err)
			}
			with := runRows(t, s)
			ds := s.DataSkipping()
			if !ds.Used && ds.Slices > 0 {
				t.Fatalf("%s: %s: data skipping not used: %s", id, f, ds.Reason)
			}
			queries++
			slicesSeen += ds.Slices
			pruned += ds.Pruned
			if !slices.Equal(with, without) {
				t.Errorf("%s: %s: %d rows with data skipping (%d of %d slices pruned), %d without", id, f, len(with), ds.Pruned, ds.Slices, len(without))
			}
		}
	}
	t.Logf("%d fixtures, %d filtered reads: data skipping pruned %d of %d file slices", fixtures, queries, pruned, slicesSeen)
	if want := map[bool]int{true: 8, false: len(ciFixtures)}[all]; fixtures != want || pruned == 0 {
		t.Errorf("%d fixtures, %d slices pruned; want %d fixtures and some pruning", fixtures, pruned, want)
	}
}

// filtersFromStats builds filters on the indexed data columns (meta fields left out) from
// the values the statistics hold: each column's smallest minimum and largest maximum over
// the table, and one file's minimum.
func filtersFromStats(stats mdt.ColumnStatsByFile) []string {
	type colVals struct {
		lo, hi, one any
		mixed       bool
	}
	cols := map[string]*colVals{}
	type pf struct{ p, f string }
	var files []pf
	for p, fs := range stats {
		for f := range fs {
			files = append(files, pf{p, f})
		}
	}
	sort.Slice(files, func(i, j int) bool {
		return files[i].p < files[j].p || files[i].p == files[j].p && files[i].f < files[j].f
	})
	for _, x := range files {
		p, f := x.p, x.f
		for c, cs := range stats[p][f] {
			if strings.HasPrefix(c, "_hoodie_") {
				continue
			}
			lo, hi, ok := cs.Bounds()
			if !ok || literal(lo) == "" {
				continue
			}
			v := cols[c]
			if v == nil {
				cols[c] = &colVals{lo: lo, hi: hi, one: lo}
				continue
			}
			if v.mixed || fmt.Sprintf("%T", lo) != fmt.Sprintf("%T", v.lo) {
				v.mixed = true // the column's type changed between files
				continue
			}
			if cmpAny(lo, v.lo) < 0 {
				v.lo = lo
			}
			if cmpAny(hi, v.hi) > 0 {
				v.hi = hi
			}
		}
	}
	names := make([]string, 0, len(cols))
	for c, v := range cols {
		if !v.mixed {
			names = append(names, c)
		}
	}
	sort.Strings(names)
	// A spread of columns keeps the test short: every 3rd one, types vary with the name.
	var picked []string
	for i, c := range names {
		if i%3 == 0 {
			picked = append(picked, c)
		}
	}
	names = picked
	var out []string
	for i, c := range names {
		v := cols[c]
		out = append(out, fmt.Sprintf("%s = %s", c, literal(v.one)))
		switch i % 3 {
		case 0:
			out = append(out, fmt.Sprintf("%s > %s", c, literal(v.hi)), fmt.Sprintf("%s IS NULL", c))
		case 1:
			out = append(out, fmt.Sprintf("%s <= %s", c, literal(v.lo)), fmt.Sprintf("NOT (%s = %s)", c, literal(v.one)))
		}
		if i > 0 {
			p := cols[names[i-1]]
			if i%2 == 0 {
				out = append(out, fmt.Sprintf("%s = %s OR %s = %s", c, literal(v.one), names[i-1], literal(p.one)))
			} else {
				out = append(out, fmt.Sprintf("%s = %s AND %s >= %s", c, literal(v.one), names[i-1], literal(p.lo)))
			}
		}
	}
	return out
}

// logFilters are equalities on values that log files hold (updates of merge-on-read
// fixtures): a slice whose base file's stats exclude the value must stay for its log file.
// Without all, one filter per fixture: the first log file's value of the column whose
// value is outside the most base files' ranges.
func logFilters(stats mdt.ColumnStatsByFile, all bool) []string {
	var out []string
	best, bestScore := "", -1
	var parts []string
	for p := range stats {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	for _, p := range parts {
		var names []string
		for f := range stats[p] {
			names = append(names, f)
		}
		sort.Strings(names)
		for _, f := range names {
			if strings.HasSuffix(f, ".parquet") {
				continue
			}
			var cols []string
			for c := range stats[p][f] {
				cols = append(cols, c)
			}
			sort.Strings(cols)
			for _, c := range cols {
				lo, _, ok := stats[p][f][c].Bounds()
				if strings.HasPrefix(c, "_hoodie_") || !ok || literal(lo) == "" {
					continue
				}
				filter := fmt.Sprintf("%s = %s", c, literal(lo))
				out = append(out, filter)
				score := 0 // base files whose range excludes the value
				for _, cs := range stats[p] {
					if b := cs[c]; b != nil {
						if blo, bhi, ok := b.Bounds(); ok && fmt.Sprintf("%T", blo) == fmt.Sprintf("%T", lo) && (cmpAny(lo, blo) < 0 || cmpAny(lo, bhi) > 0) {
							score++
						}
					}
				}
				if score > bestScore {
					best, bestScore = filter, score
				}
			}
		}
	}
	if all || best == "" {
		return out
	}
	return []string{best}
}

// literal writes a bound as a filter literal ("" for kinds not written here).
func literal(v any) string {
	switch x := v.(type) {
	case int64:
		return fmt.Sprint(x)
	case float64:
		return fmt.Sprint(x)
	case bool:
		return fmt.Sprint(x)
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case *big.Rat:
		return x.FloatString(6)
	case expr.Date:
		return "'" + time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02") + "'"
	case expr.TimestampMicros:
		return "'" + time.UnixMicro(int64(x)).UTC().Format("2006-01-02T15:04:05.000000Z") + "'"
	}
	return ""
}

func cmpAny(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmpInt(x, b.(int64))
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case *big.Rat:
		return x.Cmp(b.(*big.Rat))
	case expr.Date:
		return cmpInt(int64(x), int64(b.(expr.Date)))
	case expr.TimestampMicros:
		return cmpInt(int64(x), int64(b.(expr.TimestampMicros)))
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scanRows plans and runs a query and returns its rows as sorted text lines.
func scanRows(t *testing.T, tb *table.Table, opts Options) []string {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	s, err := Plan(context.Background(), tb, opts)
	if err != nil {
		t.Fatal(err)
	}
	return runRows(t, s)
}

func runRows(t *testing.T, s *Scan) []string {
	t.Helper()
	var rows []string
	err := s.Run(context.Background(), func(rec arrow.Record) error {
		for r := 0; r < int(rec.NumRows()); r++ {
			var b strings.Builder
			for c := 0; c < int(rec.NumCols()); c++ {
				b.WriteString(rec.Column(c).ValueStr(r))
				b.WriteByte('|')
			}
			rows = append(rows, b.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return rows
}

// TestDataSkippingNotUsed: the cases where the index is not consulted, each saying why —
// the read lists storage (hoodie.metadata.enable=false), an incremental query, a table
// without a metadata table, a metadata table behind the data timeline (its stats could
// miss rows appended since) — and the rows stay those of the plain read.
func TestDataSkippingNotUsed(t *testing.T) {
	ctx := context.Background()
	filter, err := expr.Parse("account_id = 'ACC-E'")
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.Table(t, "cow/v9_txns_simple_meta")
	behind := testutil.Table(t, "cow/v9_txns_simple_meta")
	// Drop the metadata table's deltacommit of the latest data commit: the MDT is then
	// behind.
	latestOf := func(dir, suffix string) string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		latest := ""
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), suffix) && strings.Contains(e.Name(), "_") && e.Name() > latest {
				latest = e.Name()
			}
		}
		return latest
	}
	commit := latestOf(behind+"/.hoodie/timeline", ".commit")
	mdtTimeline := behind + "/.hoodie/metadata/.hoodie/timeline"
	entries, err := os.ReadDir(mdtTimeline)
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), commit[:strings.IndexByte(commit, '_')]+"_") && strings.HasSuffix(e.Name(), ".deltacommit") {
			if err := os.Remove(mdtTimeline + "/" + e.Name()); err != nil {
				t.Fatal(err)
			}
			removed++
		}
	}
	if commit == "" || removed != 1 {
		t.Fatalf("latest commit %q, %d metadata deltacommits removed", commit, removed)
	}
	noMDT := testutil.Table(t, "cow/v9_txns_simple_nometa")
	for _, c := range []struct {
		name, dir string
		opts      Options
		reason    string
	}{
		{"metadata disabled", dir, Options{NoMetadata: true}, "hoodie.metadata.enable=false"},
		{"incremental", dir, Options{Incremental: true}, "incremental query"},
		{"no metadata table", noMDT, Options{}, "the table has no metadata table"},
		{"metadata table behind", behind, Options{}, "is not current"},
	} {
		tb := openTable(t, c.dir)
		want := scanRows(t, tb, Options{Filter: filter, NoMetadata: true})
		c.opts.Filter, c.opts.DataSkipping, c.opts.Logger = filter, true, slog.New(slog.DiscardHandler)
		s, err := Plan(ctx, tb, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ds := s.DataSkipping()
		if ds.Used || ds.Pruned != 0 || !strings.Contains(ds.Reason, c.reason) {
			t.Errorf("%s: %+v, want not used because %q", c.name, ds, c.reason)
		}
		if got := runRows(t, s); !c.opts.Incremental && !slices.Equal(got, want) {
			t.Errorf("%s: %d rows, want %d", c.name, len(got), len(want))
		}
	}
}
