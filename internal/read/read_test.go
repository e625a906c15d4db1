package read

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

func openTable(t *testing.T, dir string) *table.Table {
	t.Helper()
	tb, err := table.Open(context.Background(), local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// scanAll runs a query and returns its schema and the values of one column as text.
func scanAll(t *testing.T, tb *table.Table, opts Options, column string) (*arrow.Schema, []string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	opts.Mem = mem
	s, err := Plan(context.Background(), tb, opts)
	if err != nil {
		return nil, nil, err
	}
	var vals []string
	err = s.Run(context.Background(), func(rec arrow.Record) error {
		if column == "" {
			for i := 0; i < int(rec.NumRows()); i++ {
				vals = append(vals, "")
			}
			return nil
		}
		col := rec.Column(rec.Schema().FieldIndices(column)[0])
		for i := 0; i < col.Len(); i++ {
			vals = append(vals, col.ValueStr(i))
		}
		return nil
	})
	return s.Schema(), vals, err
}

// Java 0.14's Spark relation takes the schema of the commit at or before the time-travel
// instant (TableSchemaResolver.getTableAvroSchema(timestamp)), not the latest one. In this
// table an UPDATE rewrote ts_millis from LONG to STRING at the third commit.
func TestTimeTravelUsesSchemaOfThatCommit(t *testing.T) {
	tb := openTable(t, testutil.Table(t, "cow/v9_timebasedkeygen_epochmillis"))
	data := tb.Timeline.DataInstants()
	tests := []struct {
		asOf spec.InstantTime
		want arrow.Type
	}{
		{data[0].Time, arrow.INT64},
		{data[1].Time, arrow.INT64},
		{data[2].Time, arrow.STRING},
		{"", arrow.STRING},
	}
	for _, tc := range tests {
		sc, _, err := scanAll(t, tb, Options{AsOf: tc.asOf, Columns: []string{"ts_millis"}}, "ts_millis")
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Field(0).Type.ID(); got != tc.want {
			t.Errorf("as of %q: ts_millis is %v, want %v", tc.asOf, got, tc.want)
		}
	}
}

func TestQueryKinds(t *testing.T) {
	tb := openTable(t, testutil.Table(t, "trips-mor-avro/v8_trips_8i3u1d"))
	data := tb.Timeline.DataInstants()
	tests := []struct {
		name string
		opts Options
		rows int
	}{
		{"snapshot", Options{}, 6},
		{"read-optimized", Options{ReadOptimized: true}, -1},
		{"as of first commit", Options{AsOf: data[0].Time}, 8},
		{"before the first commit is empty", Options{AsOf: "20000101000000000"}, 0},
		{"incremental first commit", Options{Incremental: true, Begin: spec.ZeroInstant, End: data[0].Time}, 8},
		{"incremental covering only compaction is empty", Options{Incremental: true, Begin: data[4].Time, End: data[5].Time}, 0},
	}
	for _, tc := range tests {
		_, vals, err := scanAll(t, tb, tc.opts, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.rows >= 0 && len(vals) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, len(vals), tc.rows)
		}
	}
}

func TestFilterAndRowGroupPruning(t *testing.T) {
	dir := t.TempDir()
	paths := writeSyntheticCOWTable(t, dir, 2, 1000)
	tb := openTable(t, dir)

	parse := func(s string) expr.Expr {
		e, err := expr.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// Pruning: fares are in [0, 99.9] in every file.
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.Open(f, st.Size(), paths[0], memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	full, err := resolveSchema(context.Background(), tb, "", nil, table.FilesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		filter string
		groups int
	}{
		{"fare > 1000", 0},
		{"fare > 50", 1},
		{"city = 'atlantis'", 0},
		{"city = 'chennai' or fare < 0", 1},
		{"ts < 0", 0},
		{"rider is null", 0},
	} {
		if got := len(rowGroupSelector(parse(tc.filter), full)(pf, nil)); got != tc.groups {
			t.Errorf("filter %q keeps %d row groups, want %d", tc.filter, got, tc.groups)
		}
	}

	// Filtering: every 4th row is chennai; fare = (i%1000)/10.
	_, vals, err := scanAll(t, tb, Options{Filter: parse("city = 'chennai' and fare >= 50"), Columns: []string{"fare"}}, "fare")
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 2*125 {
		t.Errorf("filtered rows = %d, want 250", len(vals))
	}
	_, vals, err = scanAll(t, tb, Options{Filter: parse("fare > 1000")}, "")
	if err != nil || len(vals) != 0 {
		t.Errorf("pruned scan = %d rows, %v", len(vals), err)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	t.Run("not a Hudi table", func(t *testing.T) {
		dir := t.TempDir()
		_, err := table.Open(ctx, local.New(dir))
		if err == nil || !strings.Contains(err.Error(), "not a Hudi table") || !strings.Contains(err.Error(), dir) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown table version", func(t *testing.T) {
		dir := testutil.Table(t, "cow/v6_nonpartitioned")
		p := filepath.Join(dir, ".hoodie", "hoodie.properties")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.Replace(b, []byte("hoodie.table.version=6"), []byte("hoodie.table.version=5"), 1), 0o644)
		_, err := table.Open(ctx, local.New(dir))
		if err == nil || !strings.Contains(err.Error(), "table version 5 is not supported") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("checksum mismatch", func(t *testing.T) {
		dir := testutil.Table(t, "cow/v6_nonpartitioned")
		p := filepath.Join(dir, ".hoodie", "hoodie.properties")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.Replace(b, []byte("hoodie.table.name=v6_nonpartitioned"), []byte("hoodie.table.name=other"), 1), 0o644)
		_, err := table.Open(ctx, local.New(dir))
		if err == nil || !strings.Contains(err.Error(), "checksum") || !strings.Contains(err.Error(), "hoodie.properties") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("truncated base file", func(t *testing.T) {
		dir := testutil.Table(t, "cow/v6_nonpartitioned")
		files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
		for _, f := range files {
			st, _ := os.Stat(f)
			os.Truncate(f, st.Size()/2)
		}
		_, _, err := scanAll(t, openTable(t, dir), Options{}, "")
		if err == nil || !strings.Contains(err.Error(), ".parquet") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("corrupt log block is skipped with a warning", func(t *testing.T) {
		dir := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
		logs, _ := filepath.Glob(filepath.Join(dir, "*", ".*.log.*"))
		if len(logs) == 0 {
			t.Fatal("fixture has no log files")
		}
		_, clean, err := scanAll(t, openTable(t, dir), Options{}, "fare")
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(logs[0], os.O_APPEND|os.O_WRONLY, 0)
		f.Write([]byte("#HUDI#\x00\x00\x00\x00\x00\x00\x10\x00garbage after a crash"))
		f.Close()
		var logBuf bytes.Buffer
		_, got, err := scanAll(t, openTable(t, dir), Options{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}, "fare")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(sorted(got), ",") != strings.Join(sorted(clean), ",") {
			t.Errorf("rows changed after appending a corrupt block:\n%v\n%v", got, clean)
		}
		if !strings.Contains(logBuf.String(), "corrupt log block") || !strings.Contains(logBuf.String(), filepath.Base(logs[0])) {
			t.Errorf("no warning naming the file: %q", logBuf.String())
		}
	})
	t.Run("partition without partition metadata", func(t *testing.T) {
		dir := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
		parts, _ := filepath.Glob(filepath.Join(dir, "city=*", ".hoodie_partition_metadata"))
		os.Remove(parts[0])
		var logBuf bytes.Buffer
		_, _, err := scanAll(t, openTable(t, dir), Options{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logBuf.String(), "not a partition") || !strings.Contains(logBuf.String(), filepath.Base(filepath.Dir(parts[0]))) {
			t.Errorf("no warning naming the directory: %q", logBuf.String())
		}
	})
	t.Run("deleted partition directory reads as absent", func(t *testing.T) {
		dir := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
		parts, _ := filepath.Glob(filepath.Join(dir, "city=*"))
		_, before, _ := scanAll(t, openTable(t, dir), Options{}, "")
		os.RemoveAll(parts[0])
		_, after, err := scanAll(t, openTable(t, dir), Options{}, "")
		if err != nil || len(after) >= len(before) {
			t.Errorf("rows %d → %d, err %v", len(before), len(after), err)
		}
	})
	t.Run("incremental query on a table without meta fields", func(t *testing.T) {
		tb := openTable(t, testutil.Table(t, "cow/v6_simplekeygen_hivestyle_no_metafields"))
		_, _, err := scanAll(t, tb, Options{Incremental: true}, "")
		if err == nil || !strings.Contains(err.Error(), "meta fields") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unsupported base file format", func(t *testing.T) {
		tb := openTable(t, testutil.Table(t, "cow/v9_lance_nonpartitioned"))
		_, _, err := scanAll(t, tb, Options{}, "")
		if err == nil || !strings.Contains(err.Error(), "LANCE") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown column", func(t *testing.T) {
		tb := openTable(t, testutil.Table(t, "cow/v6_nonpartitioned"))
		_, _, err := scanAll(t, tb, Options{Columns: []string{"nope"}}, "")
		if err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
