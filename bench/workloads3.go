package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/benchdata"
	hudisql "github.com/hudi-go/hudi/internal/sql"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// ---------------------------------------------------------------------------------- W8

// w8SQL times queries through the SQL engine `hudi sql` runs against DuckDB querying the
// same base files with read_parquet (COW, and MOR read-optimized), and MOR snapshot
// queries against read-optimized ones, on a partitioned trips table and its MOR twin with
// 5 deltacommits (each updating every 100th key, so every file group has log files).
// Peak RSS of each side is in the raw figures.
func w8SQL(r *runner) error {
	ctx := r.ctx
	n := r.cfg.Rows
	cow, err := r.base("cow", "BLOOM", n, true)
	if err != nil {
		return err
	}
	morBase, err := r.base("mor", "BLOOM", n, true)
	if err != nil {
		return err
	}
	var upd []keyRange
	for i := 0; i < 5; i++ {
		upd = append(upd, keyRange{i, n, 100})
	}
	mor, err := r.prepared(fmt.Sprintf("mor-5dc-%d", n), morBase, upd, merged(snappy, r.indexSettings("BLOOM", n)))
	if err != nil {
		return err
	}
	key := benchdata.TripsKey(n / 2)
	queries := []struct{ name, q, check string }{
		{"point lookup by key", "SELECT uuid, rider, fare, ts FROM %s WHERE uuid = '" + key + "'",
			"SELECT count(*), sum(ts) FROM %s WHERE uuid = '" + key + "'"},
		{"filtered aggregate", "SELECT count(*), sum(fare) FROM %s WHERE city = 'chennai' AND fare > 50",
			"SELECT count(*), CAST(round(sum(fare) * 1000) AS BIGINT) FROM %s WHERE city = 'chennai' AND fare > 50"},
		{"full GROUP BY", "SELECT rider, count(*) AS n, sum(fare) AS s FROM %s GROUP BY rider",
			"SELECT count(*), sum(n), CAST(round(sum(s) * 1000) AS BIGINT) FROM (SELECT rider, count(*) AS n, sum(fare) AS s FROM %s GROUP BY rider)"},
	}
	e, err := hudisql.Open(ctx, hudisql.Options{Warehouse: r.scratch("warehouse"), TimeZone: "UTC"})
	if err != nil {
		return err
	}
	defer e.Close()
	hudiRef := func(dir string) string { return "hudi.`" + dir + "`" }
	hudiSide := func(name, queryType, q string) side {
		return side{name: name, run: func(ctx context.Context) error {
			_, err := sqlRows(ctx, e, "SET hoodie.datasource.query.type = "+queryType+";\n"+q)
			return err
		}}
	}
	duckSide := func(name, q string) side {
		return side{name: name, run: func(ctx context.Context) error {
			rows, err := r.db.QueryContext(ctx, q)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		}}
	}
	for _, tc := range []struct {
		label, dir, queryType string
	}{
		{"COW", cow, "snapshot"},
		{"MOR read-optimized", mor, "read_optimized"},
	} {
		files, err := latestFiles(ctx, tc.dir, "")
		if err != nil {
			return err
		}
		duckRef := "read_parquet(" + sqlList(files) + ")"
		for _, q := range queries {
			check := func() (string, error) {
				a, err := sqlRows(ctx, e, "SET hoodie.datasource.query.type = "+tc.queryType+";\n"+fmt.Sprintf(q.check, hudiRef(tc.dir)))
				if err != nil {
					return "", err
				}
				b, err := r.queryRow(fmt.Sprintf(q.check, duckRef))
				if err != nil {
					return "", err
				}
				if strings.Join(a, " ") != strings.Join(b, " ") {
					return "", fmt.Errorf("hudi sql %v, DuckDB %v", a, b)
				}
				return fmt.Sprintf("%d files; %s both", len(files), strings.Join(a, " ")), nil
			}
			if err := r.compare(tc.label+" "+q.name+": hudi sql vs DuckDB read_parquet", n, []string{"≤1.5×"}, check,
				hudiSide("hudi sql", tc.queryType, fmt.Sprintf(q.q, hudiRef(tc.dir))),
				duckSide("DuckDB read_parquet", fmt.Sprintf(q.q, duckRef))); err != nil {
				return err
			}
		}
	}
	for _, q := range queries {
		check := func() (string, error) {
			a, err := sqlRows(ctx, e, "SET hoodie.datasource.query.type = snapshot;\n"+fmt.Sprintf(q.check, hudiRef(mor)))
			if err != nil {
				return "", err
			}
			b, err := sqlRows(ctx, e, "SET hoodie.datasource.query.type = snapshot;\n"+fmt.Sprintf(q.check, hudiRef(cow)))
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("MOR snapshot %s, COW before the updates %s", strings.Join(a, " "), strings.Join(b, " ")), nil
		}
		if err := r.compare("MOR "+q.name+": snapshot vs read-optimized", n, []string{"≤1.5×"}, check,
			hudiSide("hudi sql MOR snapshot", "snapshot", fmt.Sprintf(q.q, hudiRef(mor))),
			hudiSide("hudi sql MOR read-optimized", "read_optimized", fmt.Sprintf(q.q, hudiRef(mor)))); err != nil {
			return err
		}
	}
	return nil
}

// sqlRows runs a script through the SQL engine and returns the first row of its last
// result, each value as text (nil: no row).
func sqlRows(ctx context.Context, e *hudisql.Engine, script string) ([]string, error) {
	var out []string
	err := e.Run(ctx, script, func(_ parser.Statement, res *hudisql.Result) error {
		out = nil
		for _, rec := range res.Records {
			if rec.NumRows() == 0 {
				continue
			}
			out = firstRow(rec)
			break
		}
		return nil
	})
	return out, err
}

func firstRow(rec arrow.Record) []string {
	out := make([]string, rec.NumCols())
	for i := range out {
		out[i] = rec.Column(i).ValueStr(0)
	}
	return out
}
