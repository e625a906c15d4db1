// Command bench measures hudi-go against peers side by side: arrow-go writing or reading
// the same rows, DuckDB doing the same job, plain Parquet. Each workload first checks that
// hudi-go and its peer produce the same result, then runs them alternately (A B A B …) and
// reports the median ratio hudi-go/peer with its min–max. Absolute times vary 3–5× on a
// shared machine; only ratios from one run mean anything.
//
//	go run ./bench -short                 # 1M rows, 3 pairs, no scaling runs (≤5 min)
//	go run ./bench                        # 5M rows, 5 pairs, scaling runs (≤30 min on 2 cores)
//	go run ./bench -only W2,W4 -cpuprofile prof/ -out bench-results.json
//
// See docs/performance.md for what each ratio means and the targets.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

func main() {
	var cfg Config
	var only, out string
	flag.BoolVar(&cfg.Short, "short", false, "1M rows, 3 pairs, no scaling runs, fewer W7 commits")
	flag.BoolVar(&cfg.ForceScaling, "scaling", false, "run the 2×-data scaling comparisons with -short too")
	flag.IntVar(&cfg.Rows, "rows", 0, "rows of the main data set (default 5M, 1M with -short)")
	flag.IntVar(&cfg.Pairs, "pairs", 0, "A/B pairs per comparison (default 5, 3 with -short)")
	flag.IntVar(&cfg.Commits, "commits", 0, "W7: small upsert commits in a row (default 1000, 200 with -short)")
	flag.IntVar(&cfg.CommitRows, "commit-rows", 1000, "W7: rows per small commit")
	flag.IntVar(&cfg.Seed, "seed", 42, "data generator seed")
	flag.StringVar(&cfg.Dir, "dir", "", "scratch directory (default: a temporary directory, removed at the end)")
	flag.StringVar(&only, "only", "", "comma-separated workloads to run (W1..W7; default all)")
	flag.StringVar(&out, "out", "bench-results.json", "JSON file of raw figures (\"\" = none)")
	flag.StringVar(&cfg.CPUProfileDir, "cpuprofile", "", "directory for one CPU profile per workload (samples labelled side=<name>)")
	flag.StringVar(&cfg.MemProfileDir, "memprofile", "", "directory for one allocation profile per workload")
	flag.Parse()
	cfg.defaults()
	if only != "" {
		cfg.Only = map[string]bool{}
		for _, w := range strings.Split(only, ",") {
			cfg.Only[strings.ToUpper(strings.TrimSpace(w))] = true
		}
	}
	cfg.Log = os.Stderr
	rep, err := Run(context.Background(), cfg)
	if rep != nil {
		rep.PrintTable(os.Stdout)
		if out != "" {
			data, _ := json.MarshalIndent(rep, "", "  ")
			if werr := os.WriteFile(out, append(data, '\n'), 0o644); werr != nil {
				fmt.Fprintln(os.Stderr, "bench:", werr)
				os.Exit(1)
			}
			fmt.Fprintf(os.Stderr, "raw figures: %s\n", out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func (c *Config) defaults() {
	if c.Rows == 0 {
		c.Rows = 5_000_000
		if c.Short {
			c.Rows = 1_000_000
		}
	}
	if c.Pairs == 0 {
		c.Pairs = 5
		if c.Short {
			c.Pairs = 3
		}
	}
	if c.Commits == 0 {
		c.Commits = 1000
		if c.Short {
			c.Commits = 200
		}
	}
	if c.Lookups == 0 {
		c.Lookups = 20
	}
	c.Scaling = !c.Short || c.ForceScaling
}

func hostInfo() map[string]string {
	return map[string]string{
		"go": runtime.Version(), "goos": runtime.GOOS, "goarch": runtime.GOARCH,
		"cpus": fmt.Sprint(runtime.NumCPU()), "gomaxprocs": fmt.Sprint(runtime.GOMAXPROCS(0)),
		"started": time.Now().UTC().Format(time.RFC3339),
	}
}
