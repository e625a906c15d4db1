package sql

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/sql/parser"
	"github.com/hudi-go/hudi/internal/testutil"
)

// TestSelectMatchesFixtureExpectations queries every Spark-written fixture table through
// SQL — snapshot, TIMESTAMP AS OF, read-optimized (SET hoodie.datasource.query.type) and
// hudi_table_changes — and compares the rows with the fixture's expected files, value for
// value (the checker's canonical encoding). Base files DuckDB reads itself (read_parquet,
// with schema evolution across files) and slices hudi-go merges (hudi_scan) must give the
// rows `hudi read` gives. The snapshot's meta columns are compared with hudi-go's reader
// too (the expected files have none).
func TestSelectMatchesFixtureExpectations(t *testing.T) {
	fx := testutil.FixturesDir(t)
	ctx := context.Background()
	checked, cases := 0, 0
	for _, id := range testutil.TableIDs(t) {
		group, name, _ := strings.Cut(id, "/")
		expDir := filepath.Join(fx, "expected", group, name)
		checks, _ := filepath.Glob(filepath.Join(expDir, "*.jsonl"))
		if len(checks) == 0 {
			continue
		}
		sample := cases
		cases++
		t.Run(id, func(t *testing.T) {
			testutil.RaceSample(t, sample)
			path := testutil.Table(t, id)
			tb, err := hudi.Open(ctx, path)
			if err != nil {
				t.Skipf("hudi-go does not open this table: %v", err)
			}
			if _, err := tb.Scan(ctx, hudi.ScanOptions{}); err != nil {
				t.Skipf("hudi-go does not read this table: %v", err)
			}
			e, err := Open(ctx, Options{Warehouse: t.TempDir(), TimeZone: "UTC"})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ref := "hudi.`" + path + "`"
			loose := stringOrIntegerColumns(t, expDir)
			for _, c := range checks {
				check := strings.TrimSuffix(filepath.Base(c), ".jsonl")
				var q string
				ro := false
				switch {
				case check == "snapshot":
					q = "SELECT * FROM " + ref
				case check == "ro":
					q, ro = "SELECT * FROM "+ref, true
				case strings.HasPrefix(check, "asof_"):
					q = "SELECT * FROM " + ref + " TIMESTAMP AS OF '" + strings.TrimPrefix(check, "asof_") + "'"
				case strings.HasPrefix(check, "incr_"):
					be := strings.Split(strings.TrimPrefix(check, "incr_"), "_")
					q = "SELECT * FROM hudi_table_changes('" + path + "', 'latest_state', '" + be[0] + "', '" + be[1] + "')"
				default:
					continue
				}
				qt := "snapshot"
				if ro {
					qt = "read_optimized"
				}
				got := sqlCanonical(t, e, "SET hoodie.datasource.query.type = "+qt+";\n"+q, false)
				got = loosen(t, got, loose)
				want := loosen(t, canonicalJSONLines(t, mustRead(t, c)), loose)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", check, q, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				checked++
			}
			got := sqlCanonical(t, e, "SET hoodie.datasource.query.type = snapshot;\nSELECT * FROM "+ref, true)
			want := readCanonicalMeta(t, tb)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("snapshot with meta columns differs from hudi-go's reader\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	if checked == 0 {
		t.Fatal("no fixture check ran")
	}
	t.Logf("%d fixture checks through SQL", checked)
}

// sqlCanonical runs a script and returns the last result's rows as sorted canonical JSON
// lines, with or without the meta columns.
func sqlCanonical(t *testing.T, e *Engine, script string, meta bool) []string {
	t.Helper()
	var b bytes.Buffer
	err := e.Run(context.Background(), script, func(st parser.Statement, res *Result) error {
		if _, ok := st.(*parser.Select); !ok {
			return nil
		}
		b.Reset()
		enc := jsonl.NewEncoder(&b, jsonl.Options{DropMetaColumns: !meta})
		for _, rec := range res.Records {
			if err := enc.WriteRecord(rec); err != nil {
				return err
			}
		}
		return enc.Flush()
	})
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return canonicalLines(t, b.String(), meta)
}

// readCanonicalMeta reads a table's snapshot with hudi-go's reader, meta columns kept.
func readCanonicalMeta(t *testing.T, tb *hudi.Table) []string {
	t.Helper()
	ctx := context.Background()
	scan, err := tb.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := jsonl.NewEncoder(&b, jsonl.Options{})
	if err := scan.Run(ctx, enc.WriteRecord); err != nil {
		t.Fatal(err)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	return canonicalLines(t, b.String(), true)
}

// TestScanPlansParquetAndStream pins how a table is bound: the base files of a COW table
// (and of a read-optimized MOR query) go to DuckDB's read_parquet as they are, a MOR
// snapshot with log files streams through hudi_scan, and no DuckDB table is created for
// either.
func TestScanPlansParquetAndStream(t *testing.T) {
	ctx := context.Background()
	files := map[string]int{}
	for _, tc := range []struct {
		id, queryType     string
		parquet, hudiScan bool
	}{
		{"cow/v6_nonpartitioned", "snapshot", true, true},
		// Slices without log files are read as they are; the others stream (fewer files
		// listed than read-optimized, checked below).
		{"mor-parquet/v6_nonpartitioned", "snapshot", true, true},
		{"mor-parquet/v6_nonpartitioned", "read_optimized", true, true},
	} {
		t.Run(tc.id+"/"+tc.queryType, func(t *testing.T) {
			path := testutil.Table(t, tc.id)
			e, err := Open(ctx, Options{Warehouse: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Exec(ctx, &parser.Set{Key: config.QueryType.Name, Value: tc.queryType}); err != nil {
				t.Fatal(err)
			}
			b := newBinder(e)
			defer b.close(ctx)
			q, err := b.render(ctx, parser.SQLText{Segments: []string{"SELECT count(*) FROM ", ""}, Refs: []parser.TableRef{{Name: parser.TableName{Path: path}}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(q, "read_parquet(['"+path+"/"); got != tc.parquet {
				t.Errorf("read_parquet over the table's base files: %v, want %v\n%s", got, tc.parquet, q)
			}
			if got := strings.Contains(q, scanFunction+"("); got != tc.hudiScan {
				t.Errorf("%s: %v, want %v\n%s", scanFunction, got, tc.hudiScan, q)
			}
			files[tc.id+"/"+tc.queryType] = strings.Count(q, ".parquet'")
			var n int
			if err := e.conn.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables()").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%d DuckDB tables exist after binding; want none (nothing is materialised)", n)
			}
		})
	}
	if s, ro := files["mor-parquet/v6_nonpartitioned/snapshot"], files["mor-parquet/v6_nonpartitioned/read_optimized"]; s >= ro {
		t.Errorf("MOR snapshot lists %d base files, read-optimized %d: slices with log files must stream", s, ro)
	}
}

// stringOrIntegerColumns are the columns of a fixture whose values may be an integer or
// the string of one (options.json, see the fixtures' README: a timestamp-keygen partition
// column whose file type changed).
func stringOrIntegerColumns(t *testing.T, expDir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(expDir, "options.json"))
	if err != nil {
		return nil
	}
	var o struct {
		Cols []string `json:"string_or_integer_columns"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o.Cols
}

// loosen turns the string values of cols that hold a decimal integer into that integer.
func loosen(t *testing.T, lines []string, cols []string) []string {
	t.Helper()
	if len(cols) == 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			if s, ok := m[c].(string); ok {
				if _, err := strconv.ParseInt(s, 10, 64); err == nil {
					m[c] = json.Number(s)
				}
			}
		}
		b, _ := json.Marshal(m)
		out[i] = string(b)
	}
	sort.Strings(out)
	return out
}

// TestPushdownPrunesFiles checks that a query's conditions on one table reach planning:
// partition pruning (city) and record key pruning (uuid, against each base file's key
// range and bloom filter) leave only the files that can hold matching rows, and the rows
// are those the query gives without pushdown (its WHERE over a subquery, which is not
// pushed).
func TestPushdownPrunesFiles(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := newTrips(t, typ)
			run(t, e, `UPDATE trips SET fare = fare + 1 WHERE uuid IN ('b', 'c')`)
			for _, tc := range []struct {
				where    string
				cow, mor int // base files listed (MOR: sf and nyc have log files and stream)
			}{
				{"city = 'sf'", 1, 0},
				{"uuid = 'c'", 1, 0},
				{"uuid IN ('a', 'd')", 2, 1},
				{"uuid = 'a'", 1, 0},
				{"city = 'nyc' AND uuid = 'd'", 0, 0},
				{"fare > 0", 3, 1},
			} {
				st, err := parser.Parse("SELECT * FROM trips WHERE " + tc.where)
				if err != nil {
					t.Fatal(err)
				}
				b := newBinder(e)
				q, err := b.render(ctx, st[0].(*parser.Select).Query)
				b.close(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.cow
				if typ == "mor" {
					want = tc.mor
				}
				if got := strings.Count(q, ".parquet'"); got != want {
					t.Errorf("WHERE %s: %d base files listed, want %d\n%s", tc.where, got, want, q)
				}
				// Row order is not part of the result (merged slices stream concurrently).
				got := query(t, e, "SELECT * FROM trips WHERE "+tc.where+" ORDER BY uuid")
				plain := query(t, e, "SELECT * FROM (SELECT * FROM trips) WHERE "+tc.where+" ORDER BY uuid")
				if got != plain {
					t.Errorf("WHERE %s: rows with pushdown\n%s\nwithout\n%s", tc.where, got, plain)
				}
			}
		})
	}
}

// TestSumOfBigintIsBigint pins Spark's result type of sum(bigint): BIGINT, printed as an
// integer. DuckDB computes HUGEINT, which its Parquet copy would turn into a DOUBLE
// (1.7000005e+12).
func TestSumOfBigintIsBigint(t *testing.T) {
	e := openEngine(t)
	got := query(t, e, "SELECT sum(x) AS s, sum(x) AS s2, count(*) AS n FROM (VALUES (1700000000000), (500000)) t(x)")
	if want := `{"s":1700000500000,"s2":1700000500000,"n":2}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestStreamedResults: with Options.StreamResults a query's Result holds no Records — its
// rows are read batch by batch from DuckDB's result file — and prints exactly as a held
// result does in every format; Release removes the file.
func TestStreamedResults(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	held, err := Open(ctx, Options{Warehouse: wh, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	run(t, held, strings.Replace(tripsDDL, "%s", "mor", 1)+";"+tripsRows+"; UPDATE trips SET fare = 1 WHERE uuid = 'a'")
	streamed, err := Open(ctx, Options{Warehouse: wh, TimeZone: "UTC", StreamResults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer streamed.Close()
	q := "SELECT uuid, fare, city, CAST(NULL AS INT) AS n, fare * 2 AS fare FROM trips ORDER BY uuid"
	for _, format := range []string{FormatTable, FormatJSONL, FormatCSV} {
		var outs [2]string
		for i, e := range []*Engine{held, streamed} {
			var b bytes.Buffer
			err := e.Run(ctx, q, func(_ parser.Statement, r *Result) error {
				if e == streamed && len(r.Records) != 0 {
					t.Errorf("streamed result holds %d records", len(r.Records))
				}
				return WriteResult(&b, &b, r, format)
			})
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = b.String()
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: streamed\n%s\nheld\n%s", format, outs[1], outs[0])
		}
		if format == FormatCSV && !strings.HasPrefix(outs[1], "uuid,fare,city,n,fare_1\na,1.0,sf,,2.0\n") {
			t.Errorf("csv:\n%s", outs[1])
		}
	}
	left, _ := filepath.Glob(filepath.Join(streamed.tmp, "*"))
	if len(left) != 0 {
		t.Errorf("result files left after Release: %v", left)
	}
}
