package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage/local"
)

// ---------------------------------------------------------------------------------- W5

// synthTimeline creates a v6 table with `commits` completed commits and `files` empty base
// files (`files/4` file groups of 4 slices each, over 100 partitions). Planning never
// opens a base file without a filter, so empty files stand in for real ones.
func (r *runner) synthTimeline(commits, files int) (string, int, error) {
	dir := filepath.Join(r.scratch("synth"), "t")
	tb, err := hudi.Create(r.ctx, dir, hudi.CreateOptions{Name: "synth", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
		PartitionFields: []string{"p"}, HiveStyle: true, Schema: "uuid STRING, ts BIGINT, p STRING"})
	if err != nil {
		return "", 0, err
	}
	avsc := tb.Config().CreateSchema()
	commitJSON := []byte(fmt.Sprintf(`{"partitionToWriteStats":{},"compacted":false,"extraMetadata":{"schema":%q},"operationType":"UPSERT"}`, avsc))
	const partitions = 100
	for p := 0; p < partitions; p++ {
		pd := filepath.Join(dir, fmt.Sprintf("p=%03d", p))
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return "", 0, err
		}
		if err := os.WriteFile(filepath.Join(pd, ".hoodie_partition_metadata"), []byte("commitTime="+benchInstant+"\npartitionDepth=1\n"), 0o644); err != nil {
			return "", 0, err
		}
	}
	groups := max(1, files/4)
	perCommit := max(1, files/commits)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	f := 0
	for c := 0; c < commits; c++ {
		inst := t0.Add(time.Duration(c)*time.Second).Format("20060102150405") + "000"
		for _, suffix := range []string{".commit.requested", ".inflight"} {
			if err := os.WriteFile(filepath.Join(dir, ".hoodie", inst+suffix), nil, 0o644); err != nil {
				return "", 0, err
			}
		}
		if err := os.WriteFile(filepath.Join(dir, ".hoodie", inst+".commit"), commitJSON, 0o644); err != nil {
			return "", 0, err
		}
		for k := 0; k < perCommit && f < files; k++ {
			g := f % groups
			name := fmt.Sprintf("%08x-0000-4000-8000-%012x-0_0-1-0_%s.parquet", g, g, inst)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p=%03d", g%partitions), name), nil, 0o644); err != nil {
				return "", 0, err
			}
			f++
		}
	}
	return dir, groups, nil
}

func w5Planning(r *runner) error {
	runs := max(r.cfg.Pairs, 5)
	sizes := r.cfg.PlanSizes
	if len(sizes) == 0 {
		sizes = [][2]int{{100, 1000}, {10_000, 100_000}}
	}
	for _, s := range sizes {
		sz := struct {
			commits, files int
			target         string
		}{s[0], s[1], ""}
		switch {
		case sz.files <= 1000:
			sz.target = "≤50 ms"
		case sz.files >= 100_000:
			sz.target = "≤2000 ms"
		}
		start := time.Now()
		dir, groups, err := r.synthTimeline(sz.commits, sz.files)
		if err != nil {
			return err
		}
		r.logf("  synthesized %d commits, %d files in %s", sz.commits, sz.files, time.Since(start).Round(time.Millisecond))
		a := &Absolute{Case: fmt.Sprintf("table.Open + read.Plan, %d commits, %d files", sz.commits, sz.files), Unit: "ms", Target: sz.target}
		for i := 0; i < runs; i++ {
			runtime.GC()
			mon := startMemMonitor()
			t := time.Now()
			tb, err := table.Open(r.ctx, local.New(dir))
			if err != nil {
				return err
			}
			sc, err := read.Plan(r.ctx, tb, read.Options{})
			if err != nil {
				return err
			}
			ms := float64(time.Since(t).Microseconds()) / 1000
			heap, _ := mon.stop()
			a.PeakHeap = max(a.PeakHeap, heap)
			if len(sc.Slices()) != groups {
				return fmt.Errorf("plan has %d slices, want %d", len(sc.Slices()), groups)
			}
			if n := len(tb.Timeline.DataInstants()); n != sz.commits {
				return fmt.Errorf("timeline has %d data instants, want %d", n, sz.commits)
			}
			a.Values = append(a.Values, ms)
		}
		a.Note = fmt.Sprintf("%d file groups × 4 slices, 100 partitions; synthesized (empty base files)", groups)
		r.absolute(a)
		r.logf("  %s: median %.1f ms", a.Case, a.Median)
		os.RemoveAll(filepath.Dir(dir))
	}
	return nil
}

// ---------------------------------------------------------------------------------- W6

func w6LookupDelete(r *runner) error {
	ctx := r.ctx
	n := r.cfg.Rows
	tbl, err := r.base("cow", "BLOOM", n, true)
	if err != nil {
		return err
	}
	files, err := latestFiles(ctx, tbl, "")
	if err != nil {
		return err
	}
	lookups := r.cfg.Lookups
	var keys []string
	var fares []float64
	for j := 0; j < lookups; j++ {
		i := (j*(n/lookups) + 12345) % n
		keys = append(keys, benchdata.TripsKey(i))
		fares = append(fares, benchdata.TripsFare(i, r.cfg.Seed))
	}
	hudiLookup := func(ctx context.Context, tb *hudi.Table, key string) (float64, int, error) {
		sc, err := tb.Scan(ctx, hudi.ScanOptions{Filter: "uuid = '" + key + "'", Columns: []string{"uuid", "fare"}})
		if err != nil {
			return 0, 0, err
		}
		var fare float64
		rows := 0
		err = sc.Run(ctx, func(rec arrow.Record) error {
			for i := 0; i < int(rec.NumRows()); i++ {
				fare = rec.Column(1).(*array.Float64).Value(i)
				rows++
			}
			return nil
		})
		return fare, rows, err
	}
	fileList := sqlList(files)
	duckLookup := func(ctx context.Context, key string) (float64, int, error) {
		rows, err := r.db.QueryContext(ctx, "SELECT uuid, fare FROM read_parquet("+fileList+") WHERE uuid = ?", key)
		if err != nil {
			return 0, 0, err
		}
		defer rows.Close()
		var fare float64
		var k string
		cnt := 0
		for rows.Next() {
			if err := rows.Scan(&k, &fare); err != nil {
				return 0, 0, err
			}
			cnt++
		}
		return fare, cnt, rows.Err()
	}
	check := func() (string, error) {
		tb, err := hudi.Open(ctx, tbl)
		if err != nil {
			return "", err
		}
		for j, k := range keys {
			f1, c1, err := hudiLookup(ctx, tb, k)
			if err != nil {
				return "", err
			}
			f2, c2, err := duckLookup(ctx, k)
			if err != nil {
				return "", err
			}
			if c1 != 1 || c2 != 1 || f1 != fares[j] || f2 != fares[j] {
				return "", fmt.Errorf("key %s: hudi-go %d rows fare %v, DuckDB %d rows fare %v, want fare %v", k, c1, f1, c2, f2, fares[j])
			}
		}
		pruning, err := w6KeyPruning(ctx, tbl, keys)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d keys found once with the right fare by both, over %d files; hudi-go key pruning per lookup: %s",
			len(keys), len(files), pruning), nil
	}
	if err := r.compare(fmt.Sprintf("point lookups ×%d (key filter)", lookups), lookups, []string{"(no target)"}, check,
		side{name: "hudi-go scan key filter", run: func(ctx context.Context) error {
			tb, err := hudi.Open(ctx, tbl)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if _, c, err := hudiLookup(ctx, tb, k); err != nil || c != 1 {
					return fmt.Errorf("lookup %s: %d rows, %v", k, c, err)
				}
			}
			return nil
		}},
		side{name: "duckdb read_parquet same files", run: func(ctx context.Context) error {
			for _, k := range keys {
				if _, c, err := duckLookup(ctx, k); err != nil || c != 1 {
					return fmt.Errorf("lookup %s: %d rows, %v", k, c, err)
				}
			}
			return nil
		}}); err != nil {
		return err
	}
	base, err := r.base("cow", "BLOOM", n, false)
	if err != nil {
		return err
	}
	return r.upsertCase("delete 1,000 recent keys BLOOM", "(≤1.5× as W2)", base, n, keyRange{n - 1000, n, 1}, "delete",
		merged(snappy, r.indexSettings("BLOOM", n)))
}

// w6KeyPruning runs the lookups through read.Plan (the facade's Scan wraps it) to report
// how many base files the key filter's footer pruning skipped, summed over the lookups.
func w6KeyPruning(ctx context.Context, dir string, keys []string) (string, error) {
	tb, err := table.Open(ctx, local.New(dir))
	if err != nil {
		return "", err
	}
	var sum read.KeyPruning
	for _, k := range keys {
		f, err := expr.Parse("uuid = '" + k + "'")
		if err != nil {
			return "", err
		}
		sc, err := read.Plan(ctx, tb, read.Options{Filter: f, Columns: []string{"uuid", "fare"}})
		if err != nil {
			return "", err
		}
		if err := sc.Run(ctx, func(arrow.Record) error { return nil }); err != nil {
			return "", err
		}
		p := sc.KeyPruning()
		if !p.Pinned {
			return "", fmt.Errorf("filter uuid = '%s' does not pin the record key", k)
		}
		sum.Checked += p.Checked
		sum.PrunedByRange += p.PrunedByRange
		sum.PrunedByBloom += p.PrunedByBloom
	}
	n := float64(len(keys))
	return fmt.Sprintf("%.1f footers checked, %.1f pruned by key range, %.1f by bloom filter, %.1f read",
		float64(sum.Checked)/n, float64(sum.PrunedByRange)/n, float64(sum.PrunedByBloom)/n,
		float64(sum.Checked-sum.PrunedByRange-sum.PrunedByBloom)/n), nil
}

// ---------------------------------------------------------------------------------- W7

func w7SmallCommits(r *runner) error {
	budget := 10 * time.Minute
	if r.cfg.Short {
		budget = 90 * time.Second
	}
	if err := w7Loop(r, "small", "", r.cfg.Commits, budget, nil); err != nil {
		return err
	}
	// Informational: the same loop with hoodie.parquet.small.file.limit=0, so inserts
	// always go to new file groups and no commit rewrites a growing small file. What
	// remains is the fixed cost of a small commit (timeline, index lookup, file writes of
	// 1000 rows, clean, archive) and how it grows with the commit and file count, apart
	// from Hudi's small-file policy. Fewer commits than the main case keep the run short.
	n, budget := r.cfg.Commits/3, 3*time.Minute
	if r.cfg.Short {
		n, budget = r.cfg.Commits/2, 45*time.Second
	}
	return w7Loop(r, "nosmallfile", "no small-file routing (info): ", max(2, n), budget,
		map[string]string{"hoodie.parquet.small.file.limit": "0"})
}

// w7Loop makes commits small upserts (90% new time-ordered keys, 10% updates of the
// previous commit's keys) into a new COW table and reports throughput, the latency of the
// first and last 100 commits and their drift, each case name prefixed with label.
func w7Loop(r *runner, scratch, label string, commits int, budget time.Duration, extra map[string]string) error {
	ctx := r.ctx
	per := r.cfg.CommitRows
	dir := filepath.Join(r.scratch(scratch), "t")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
		PartitionFields: []string{"city"}, HiveStyle: true, Schema: benchdata.TripsDDL})
	if err != nil {
		return err
	}
	s := merged(snappy, r.indexSettings("BLOOM", 0), extra)
	inserts := per * 9 / 10
	var lat []float64
	total := 0
	runtime.GC()
	mon := startMemMonitor()
	start := time.Now()
	next := 0
	for c := 0; c < commits; c++ {
		// 90% new (time-ordered) keys, 10% updates of the previous commit's keys
		idx := seq(next, next+inserts, 1)
		if c > 0 {
			idx = append(idx, seq(next-inserts, next-inserts+(per-inserts), 1)...)
		}
		next += inserts
		batch := []arrow.Record{benchdata.TripsRows(idx, r.cfg.Seed, int64(c), -1)}
		t := time.Now()
		_, err := tb.Write(ctx, batch, hudi.WriteOptions{Operation: "upsert", Settings: s})
		lat = append(lat, float64(time.Since(t).Microseconds())/1000)
		benchdata.Release(batch)
		if err != nil {
			return fmt.Errorf("commit %d: %w", c, err)
		}
		total += len(idx)
		if time.Since(start) > budget {
			r.logf("  %sstopping after %d commits: the %s budget is spent", label, c+1, budget)
			break
		}
		if (c+1)%100 == 0 {
			r.logf("  %s%d commits, last %.0f ms", label, c+1, lat[len(lat)-1])
		}
	}
	elapsed := time.Since(start)
	heap, _ := mon.stop()
	sum, err := hudiScanSum(ctx, dir, hudi.ScanOptions{})
	if err != nil {
		return err
	}
	if sum.rows != int64(next) {
		return fmt.Errorf("after %d commits the table has %d rows, want %d", len(lat), sum.rows, next)
	}
	timeline, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
	k := min(100, len(lat)/2)
	first, _, _ := stats(lat[:k])
	last, _, _ := stats(lat[len(lat)-k:])
	note := fmt.Sprintf("%d commits of %d rows (90%% new keys, 10%% updates), COW, BLOOM, inline clean+archive as configured by default; %d files in .hoodie at the end",
		len(lat), per, len(timeline))
	target, driftTarget := "≥200000", "≈1 (no drift)"
	if len(extra) > 0 {
		note = fmt.Sprintf("informational, with %v; ", extra) + note
		target, driftTarget = "", ""
	}
	r.absolute(&Absolute{Case: label + "throughput", Unit: "rows/s", Values: []float64{float64(total) / elapsed.Seconds()}, PeakHeap: heap,
		Target: target, Note: note})
	r.absolute(&Absolute{Case: fmt.Sprintf("%scommit latency, first %d", label, k), Unit: "ms", Values: slices.Clone(lat[:k])})
	r.absolute(&Absolute{Case: fmt.Sprintf("%scommit latency, last %d", label, k), Unit: "ms", Values: slices.Clone(lat[len(lat)-k:])})
	r.absolute(&Absolute{Case: label + "drift (median last / median first)", Unit: "×", Values: []float64{last / first}, Target: driftTarget})
	return nil
}
