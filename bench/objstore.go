package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/sync/errgroup"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
	"github.com/hudi-go/hudi/storage/s3"
)

// W10: a table on S3. A copy-on-write table of about 1,000 base files (4 partitions) is
// uploaded to the S3 server of HUDI_BENCH_S3 (else HUDI_TEST_S3: host:port of
// scripts/versitygw, its test credentials); the workload counts the LIST, HEAD and GET
// requests that planning (hudi.Open + Scan) and the snapshot scan make, and times the
// scan against the same scan of the same files on local disk. Both servers run on this
// machine: the S3 side's time is the protocol's and the server's overhead, not a network's.

const w10Files = 1000

// requestCounter counts an S3 client's requests by operation.
type requestCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *requestCounter) option() s3.Option {
	return func(o *awss3.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("hudi-bench-count",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					c.mu.Lock()
					c.n[awsmiddleware.GetOperationName(ctx)]++
					c.mu.Unlock()
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	}
}

// take returns the counts so far and resets them.
func (c *requestCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.n
	c.n = map[string]int{}
	return out
}

func fmtCounts(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func w10ObjectStore(r *runner) error {
	addr := os.Getenv("HUDI_BENCH_S3")
	if addr == "" {
		addr = os.Getenv("HUDI_TEST_S3")
	}
	if addr == "" {
		// Not an error: the other workloads need no server.
		r.logf("  W10 skipped: set HUDI_BENCH_S3 (or HUDI_TEST_S3) to host:port of scripts/versitygw")
		return nil
	}
	settings := map[string]string{s3.KeyEndpoint: "http://" + addr, s3.KeyPathStyle: "true",
		s3.KeyAccessKey: "testkey", s3.KeySecretKey: "testsecret123"}
	ctx := r.ctx
	nFiles := w10Files
	if r.cfg.Rows < 100_000 {
		nFiles = 40 // the tiny run (TestTiny)
	}
	n := 100 * nFiles // 100 rows a file

	// The local table: inserts split into files of n/1000 rows per partition.
	dir := filepath.Join(r.dir, "w10-local")
	if _, err := os.Stat(dir); err != nil {
		start := time.Now()
		tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "cow", RecordKeyFields: []string{"uuid"},
			PrecombineField: "ts", Schema: benchdata.TripsDDL, PartitionFields: []string{"city"}, HiveStyle: true})
		if err != nil {
			return err
		}
		s := merged(snappy, map[string]string{"hoodie.copyonwrite.insert.auto.split": "false",
			"hoodie.copyonwrite.insert.split.size": strconv.Itoa(n / nFiles), "hoodie.parquet.small.file.limit": "0"})
		batches := benchdata.Trips(n, batchRows, r.cfg.Seed)
		_, err = tb.Write(ctx, batches, hudi.WriteOptions{Operation: "insert", Settings: s})
		benchdata.Release(batches)
		if err != nil {
			return fmt.Errorf("W10 table: %w", err)
		}
		files, _ := parquetFiles(dir)
		r.logf("  local table: %d rows, %d base files in %s", n, len(files), time.Since(start).Round(time.Millisecond))
	}
	files, err := parquetFiles(dir)
	if err != nil {
		return err
	}

	// The same table on S3.
	client, err := s3.NewClient(ctx, settings)
	if err != nil {
		return err
	}
	var b [6]byte
	rand.Read(b[:])
	bucket := "bench-" + hex.EncodeToString(b[:])
	if _, err := client.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: &bucket}); err != nil {
		return fmt.Errorf("W10: create bucket on %s: %w", addr, err)
	}
	url := "s3a://" + bucket + "/warehouse/trips"
	start := time.Now()
	if err := uploadTree(ctx, dir, url, settings); err != nil {
		return err
	}
	r.logf("  uploaded to %s in %s", url, time.Since(start).Round(time.Millisecond))

	counter := &requestCounter{n: map[string]int{}}
	loc, err := storage.ParseLocation(url)
	if err != nil {
		return err
	}
	openS3 := func() (*hudi.Table, error) {
		st, err := s3.Open(ctx, loc, settings, counter.option())
		if err != nil {
			return nil, err
		}
		return hudi.OpenStorage(ctx, st)
	}

	// Request counts: planning, then the scan.
	counter.take()
	tb, err := openS3()
	if err != nil {
		return err
	}
	sc, err := tb.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		return err
	}
	plan := counter.take()
	var rows int64
	if err := sc.Run(ctx, func(rec arrow.Record) error { rows += rec.NumRows(); return nil }); err != nil {
		return err
	}
	scan := counter.take()
	if rows != int64(n) {
		return fmt.Errorf("W10: the S3 scan read %d rows, want %d", rows, n)
	}
	r.absolute(&Absolute{Case: fmt.Sprintf("requests to plan (open + Scan) a %d-file COW table on S3", len(files)), Unit: "requests",
		Values: []float64{float64(sum(plan))}, Note: fmtCounts(plan)})
	r.absolute(&Absolute{Case: fmt.Sprintf("requests to scan it (snapshot, all columns, %d rows)", n), Unit: "requests",
		Values: []float64{float64(sum(scan))}, Note: fmtCounts(scan)})
	r.logf("  plan: %s; scan: %s", fmtCounts(plan), fmtCounts(scan))

	// Time: the whole snapshot scan (open, plan, read), S3 against local disk.
	scanS3 := func(ctx context.Context) error {
		tb, err := openS3()
		if err != nil {
			return err
		}
		return scanRows(ctx, tb, n)
	}
	scanLocal := func(ctx context.Context) error {
		tb, err := hudi.OpenStorage(ctx, local.New(dir))
		if err != nil {
			return err
		}
		return scanRows(ctx, tb, n)
	}
	return r.compare(fmt.Sprintf("snapshot scan of %d files, S3 (versitygw on this machine) vs local disk", len(files)), n, nil, nil,
		side{name: "hudi-go on S3", run: scanS3}, side{name: "hudi-go on local disk", run: scanLocal})
}

func sum(m map[string]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

func scanRows(ctx context.Context, tb *hudi.Table, want int) error {
	sc, err := tb.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		return err
	}
	var rows int64
	if err := sc.Run(ctx, func(rec arrow.Record) error { rows += rec.NumRows(); return nil }); err != nil {
		return err
	}
	if rows != int64(want) {
		return fmt.Errorf("scan read %d rows, want %d", rows, want)
	}
	return nil
}

// uploadTree copies the local table folder to url, 16 files at a time, hoodie.properties
// last.
func uploadTree(ctx context.Context, dir, url string, settings map[string]string) error {
	st, err := storage.OpenURL(ctx, url, settings)
	if err != nil {
		return err
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !strings.HasSuffix(rel, "hoodie.properties") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, f := range files {
		g.Go(func() error {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
			if err != nil {
				return err
			}
			return st.Put(gctx, f, b)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
	if err != nil {
		return err
	}
	return st.Put(ctx, ".hoodie/hoodie.properties", b)
}
