package write_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
)

// upsertBase builds a non-partitioned table of n rows with time-ordered keys spread over
// `groups` file groups.
func upsertBase(b *testing.B, n, groups int, settings map[string]string) (string, []arrow.Record) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "t")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
		Schema: benchdata.TripsDDL})
	if err != nil {
		b.Fatal(err)
	}
	batches := benchdata.Trips(n, 65536, 0)
	s := map[string]string{"hoodie.parquet.compression.codec": "snappy"}
	for k, v := range settings {
		s[k] = v
	}
	op := "insert"
	if settings["hoodie.index.type"] != "BUCKET" {
		// n/groups rows per new file group: the inserts arrive in key order, so each file
		// holds a contiguous key range.
		s["hoodie.copyonwrite.insert.auto.split"] = "false"
		s["hoodie.copyonwrite.insert.split.size"] = strconv.Itoa(n / groups)
		s["hoodie.parquet.small.file.limit"] = "0"
	}
	if _, err := tb.Write(ctx, batches, hudi.WriteOptions{Operation: op, Settings: s}); err != nil {
		b.Fatal(err)
	}
	releaseAll(batches)
	return dir, nil
}

func releaseAll(rs []arrow.Record) {
	for _, r := range rs {
		r.Release()
	}
}

// updateBatch returns the latest 1% of keys (time-ordered keys: recent records are the
// ones updated) with new fares.
func updateBatch(n int) []arrow.Record {
	var idx []int
	for i := n - n/100; i < n; i++ {
		idx = append(idx, i)
	}
	return []arrow.Record{benchdata.TripsRows(idx, 0, 1, 999)}
}

// BenchmarkUpsertOnePercent: a 1% upsert of the most recent keys into a table of ~100 file
// groups, with the BLOOM index (time-ordered keys: min/max pruning leaves few candidate
// files), the BUCKET index and the default SIMPLE index, against the peer "rewrite only
// the touched files" (arrow-go reads the files the upsert touched and writes them back
// with the updated rows replaced). Run:
//
//	go test ./write -run '^$' -bench UpsertOnePercent -benchtime 3x
func BenchmarkUpsertOnePercent(b *testing.B) {
	n := benchRows()
	ctx := context.Background()
	keep := b.TempDir() // outlives the sub-benchmarks' temp dirs
	for _, idx := range []string{"BLOOM", "BUCKET", "SIMPLE"} {
		settings := map[string]string{"hoodie.index.type": idx}
		if idx == "BUCKET" {
			settings["hoodie.bucket.index.num.buckets"] = "100"
		}
		var touched []string
		b.Run("hudi-"+idx, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir, _ := upsertBase(b, n, 100, settings)
				upd := updateBatch(n)
				tb, err := hudi.Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := tb.Write(ctx, upd, hudi.WriteOptions{Settings: settings})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if res.Records.Updated != int64(n/100) {
					b.Fatalf("updated %d", res.Records.Updated)
				}
				touched = nil
				for j, f := range touchedFiles(b, dir, res.Instant) {
					dst := filepath.Join(keep, idx+"-"+strconv.Itoa(j)+".parquet")
					data, err := os.ReadFile(f)
					if err != nil {
						b.Fatal(err)
					}
					os.WriteFile(dst, data, 0o644)
					touched = append(touched, dst)
				}
				groups, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
				b.ReportMetric(float64(len(touched)), "touched")
				b.ReportMetric(float64(len(groups)-len(touched)), "groups")
				releaseAll(upd)
			}
		})
		b.Run("rewrite-touched-"+idx, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if len(touched) == 0 {
					b.Skip("no touched files measured")
				}
				out := b.TempDir()
				b.StartTimer()
				for j, f := range touched {
					rewriteFile(b, f, filepath.Join(out, strconv.Itoa(j)+".parquet"))
				}
			}
		})
	}
}

// touchedFiles are the base files the upsert instant wrote, paired to the files they
// replaced: the peer rewrites the replaced (older) versions.
func touchedFiles(b *testing.B, dir, instant string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, "*_"+instant+".parquet"))
	var prev []string
	for _, m := range matches {
		base := filepath.Base(m)
		id := base[:36+2]
		older, _ := filepath.Glob(filepath.Join(dir, id+"_*.parquet"))
		for _, o := range older {
			if o != m {
				prev = append(prev, o)
			}
		}
	}
	return prev
}

// rewriteFile reads a Parquet file and writes it back with every fare replaced, as a
// plain "rewrite the touched file" job would.
func rewriteFile(b *testing.B, in, out string) {
	f, err := os.Open(in)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		b.Fatal(err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 65536}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	o, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rr.Schema(), o, pq.NewWriterProperties(pq.WithCompression(compress.Codecs.Snappy), pq.WithDictionaryDefault(false)), pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	for rr.Next() {
		rec := rr.Record()
		// replace the fare column (a stand-in for merging the updated rows)
		fare, err := compute.CastArray(context.Background(), rec.Column(9), compute.SafeCastOptions(arrow.PrimitiveTypes.Float64))
		if err != nil {
			b.Fatal(err)
		}
		cols := append([]arrow.Array{}, rec.Columns()...)
		cols[9] = fare
		nr := array.NewRecord(rec.Schema(), cols, rec.NumRows())
		if err := w.Write(nr); err != nil {
			b.Fatal(err)
		}
		nr.Release()
		fare.Release()
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
