package write_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
)

// streamCase is an input for the streaming and the slice bulk_insert.
type streamCase struct {
	name        string
	partitioned bool
	batches     func() []arrow.Record
	settings    map[string]string
	create      map[string]string // table settings (hudi.CreateOptions.Settings)
	minFiles    int               // files the write must produce (rollover cases)
	// heavy cases are left to the run without -race (scripts/test's race run of this
	// package is close to its 10-minute limit); lighter cases run the same concurrency.
	heavy bool
}

// tripsIdx returns the trips rows [from, to) for which keep is true, as one batch.
func tripsIdx(from, to int, keep func(int) bool) arrow.Record {
	var idx []int
	for i := from; i < to; i++ {
		if keep == nil || keep(i) {
			idx = append(idx, i)
		}
	}
	return benchdata.TripsRows(idx, 7, 0, -1)
}

func streamCases() []streamCase {
	notNY := func(i int) bool { return i%4 != 3 } // new_york only in the last batch
	// snappy: the rollover cases write tens of thousands of rows, slow under -race with gzip
	rollover := map[string]string{"hoodie.parquet.max.file.size": "65536", "hoodie.parquet.compression.codec": "snappy"}
	return []streamCase{
		{name: "partitioned, empty batch, late partition", partitioned: true, batches: func() []arrow.Record {
			return []arrow.Record{tripsIdx(0, 1500, notNY), tripsIdx(0, 0, nil), tripsIdx(1500, 3000, notNY), tripsIdx(3000, 4100, nil)}
		}},
		{name: "unpartitioned, empty batches", batches: func() []arrow.Record {
			return []arrow.Record{tripsIdx(0, 0, nil), tripsIdx(0, 1000, nil), tripsIdx(1000, 2500, nil), tripsIdx(0, 0, nil)}
		}},
		{name: "one batch", partitioned: true, batches: func() []arrow.Record {
			return []arrow.Record{tripsIdx(0, 999, nil)}
		}},
		// Chunks of 8192 rows per partition cross batch boundaries (7000-row batches); a
		// 64 KB file size limit rolls every partition over to a new file group after each
		// chunk.
		{name: "rollover, partitioned", partitioned: true, settings: rollover, heavy: true,
			minFiles: 8, batches: func() []arrow.Record { return benchdata.Trips(40000, 7000, 3) }},
		{name: "rollover, unpartitioned", settings: rollover,
			minFiles: 3, batches: func() []arrow.Record { return benchdata.Trips(20000, 5000, 3) }},
		{name: "merge-on-read", partitioned: true, create: map[string]string{"type": "mor"},
			batches: func() []arrow.Record { return benchdata.Trips(5000, 2000, 4) }},
		{name: "virtual keys", partitioned: true, create: map[string]string{"hoodie.populate.meta.fields": "false"},
			batches: func() []arrow.Record { return benchdata.Trips(5000, 2000, 4) }},
		{name: "dropped partition columns", partitioned: true, create: map[string]string{"hoodie.datasource.write.drop.partition.columns": "true"},
			batches: func() []arrow.Record { return benchdata.Trips(5000, 2000, 4) }},
	}
}

func newTripsTable(t *testing.T, dir string, partitioned bool, settings ...map[string]string) *hudi.Table {
	t.Helper()
	co := hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts", Schema: benchdata.TripsDDL}
	if len(settings) > 0 {
		co.Settings = maps.Clone(settings[0])
		if typ, ok := co.Settings["type"]; ok { // not a hoodie.* key: the table type
			co.Type = typ
			delete(co.Settings, "type")
		}
	}
	if partitioned {
		co.PartitionFields, co.HiveStyle = []string{"city"}, true
	}
	tb, err := hudi.Create(context.Background(), dir, co)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestWriteReaderMatchesWrite: the streaming bulk_insert writes the table the slice path
// writes: the same rows with the same keys, partition paths and data, seqnos numbered
// the same within each file, the same rows in each file (rollover at the same rows),
// and the same write stats. Task numbers may differ (the stream numbers partitions in
// order of appearance), but a row's seqno names its file's task.
func TestWriteReaderMatchesWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy && raceEnabled {
				t.Skip("tens of thousands of rows: run without -race")
			}
			batches := tc.batches()
			defer benchdata.Release(batches)
			o := hudi.WriteOptions{Operation: "bulk_insert", Settings: tc.settings}

			slice := newTripsTable(t, filepath.Join(t.TempDir(), "slice"), tc.partitioned, tc.create)
			want, err := slice.Write(ctx, batches, o)
			if err != nil {
				t.Fatal(err)
			}
			stream := newTripsTable(t, filepath.Join(t.TempDir(), "stream"), tc.partitioned, tc.create)
			rdr, err := array.NewRecordReader(benchdata.TripsSchema, batches)
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Release()
			got, err := stream.WriteReader(ctx, rdr, o)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != want.Action || got.Operation != want.Operation || got.Records != want.Records || got.FilesWritten != want.FilesWritten {
				t.Errorf("stream result %+v, slice %+v", got, want)
			}
			if got.FilesWritten < tc.minFiles {
				t.Errorf("%d files written, want at least %d", got.FilesWritten, tc.minFiles)
			}
			wantRows, wantFiles := tableRows(t, slice, want.Instant)
			gotRows, gotFiles := tableRows(t, stream, got.Instant)
			if !slices.Equal(gotRows, wantRows) {
				t.Errorf("rows differ:\n got %d: %.300v\nwant %d: %.300v", len(gotRows), gotRows, len(wantRows), wantRows)
			}
			if !slices.Equal(gotFiles, wantFiles) {
				t.Errorf("rows per file differ:\n got %.300v\nwant %.300v", gotFiles, wantFiles)
			}
			if g, w := statSummary(t, stream, got.Instant), statSummary(t, slice, want.Instant); !slices.Equal(g, w) {
				t.Errorf("write stats differ:\n got %v\nwant %v", g, w)
			}
		})
	}
}

// baseFileName is a new base file's name: file id, write token <task>-1-<task>, instant.
var baseFileName = regexp.MustCompile(`^([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-0)_(\d+)-1-(\d+)_(\d{17})\.parquet$`)

// tableRows scans tb and returns its rows canonically (instant and task numbers left
// out, after checking them) and, per file, the file's partition and first and last
// seqno's row, sorted — a summary of which rows share a file.
func tableRows(t *testing.T, tb *hudi.Table, instant string) (rows, files []string) {
	t.Helper()
	ctx := context.Background()
	s, err := tb.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]string{}
	err = s.Run(ctx, func(rec arrow.Record) error {
		col := func(name string) int {
			for i, f := range rec.Schema().Fields() {
				if f.Name == name {
					return i
				}
			}
			t.Fatalf("no column %s in %s", name, rec.Schema())
			return -1
		}
		str := func(name string) *array.String { return rec.Column(col(name)).(*array.String) }
		commit, seq, key, part, file := str("_hoodie_commit_time"), str("_hoodie_commit_seqno"), str("_hoodie_record_key"),
			str("_hoodie_partition_path"), str("_hoodie_file_name")
		uuid, city := str("uuid"), str("city")
		for i := 0; i < int(rec.NumRows()); i++ {
			m := baseFileName.FindStringSubmatch(file.Value(i))
			if m == nil || m[2] != m[3] || m[4] != instant {
				return fmt.Errorf("row %s: file name %q is not a base file of %s", uuid.Value(i), file.Value(i), instant)
			}
			var data []string
			for _, f := range benchdata.TripsSchema.Fields() {
				data = append(data, rec.Column(col(f.Name)).ValueStr(i))
			}
			if commit.IsNull(i) {
				// Virtual keys: only the file name is stored.
				if seq.IsValid(i) || key.IsValid(i) || part.IsValid(i) {
					return fmt.Errorf("row %s: virtual keys but seqno/key/partition %q/%q/%q", uuid.Value(i), seq.Value(i), key.Value(i), part.Value(i))
				}
				rows = append(rows, "-|"+strings.Join(data, ","))
				byFile[file.Value(i)] = append(byFile[file.Value(i)], uuid.Value(i))
				continue
			}
			prefix := instant + "_" + m[2] + "_"
			if commit.Value(i) != instant || !strings.HasPrefix(seq.Value(i), prefix) {
				return fmt.Errorf("row %s: commit time %s, seqno %s; want %s, %s<n>", key.Value(i), commit.Value(i), seq.Value(i), instant, prefix)
			}
			if key.Value(i) != uuid.Value(i) {
				return fmt.Errorf("row key %s, uuid %s", key.Value(i), uuid.Value(i))
			}
			n := strings.TrimPrefix(seq.Value(i), prefix)
			rows = append(rows, fmt.Sprintf("%s|%s|%s|%s", key.Value(i), part.Value(i), n, strings.Join(data, ",")))
			if want := "city=" + city.Value(i); part.Value(i) != "" && part.Value(i) != want {
				return fmt.Errorf("row %s in partition %s, want %s", key.Value(i), part.Value(i), want)
			}
			byFile[file.Value(i)] = append(byFile[file.Value(i)], n+":"+key.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	for _, keys := range byFile {
		sort.Strings(keys)
		files = append(files, fmt.Sprintf("%d rows %s", len(keys), strings.Join(keys, " ")))
	}
	sort.Strings(files)
	return rows, files
}

// statSummary is the commit's write stats without names and sizes: per partition, the
// operation and each file's writes, inserts, updates and deletes, sorted.
func statSummary(t *testing.T, tb *hudi.Table, instant string) []string {
	t.Helper()
	cm, err := tb.CommitMetadata(context.Background(), completedInstant(t, tb, instant))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, stats := range cm.PartitionToWriteStats {
		for _, s := range stats {
			if s.PartitionPath != p || s.PrevCommit != "null" || s.FileSizeInBytes <= 0 || !strings.HasPrefix(s.Path, strings.TrimPrefix(p+"/", "/")) {
				t.Errorf("stat %+v in partition %q", s, p)
			}
			out = append(out, fmt.Sprintf("%s %s writes=%d inserts=%d updates=%d deletes=%d", p, cm.OperationType, s.NumWrites, s.NumInserts, s.NumUpdateWrites, s.NumDeletes))
		}
	}
	sort.Strings(out)
	return out
}

func completedInstant(t *testing.T, tb *hudi.Table, instant string) (in timeline.Instant) {
	t.Helper()
	for _, x := range tb.Timeline().DataInstants() {
		if string(x.Time) == instant {
			return x
		}
	}
	t.Fatalf("instant %s is not a completed data instant", instant)
	return in
}

// failingReader yields batches and then fails with err.
func failingReader(batches []arrow.Record, err error) array.RecordReader {
	return array.ReaderFromIter(benchdata.TripsSchema, func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range batches {
			b.Retain()
			if !yield(b, nil) {
				return
			}
		}
		yield(nil, err)
	})
}

// TestWriteReaderFails: a reader error mid-stream fails the write with the error
// wrapped; nothing is committed, the table reads as before, and the next write rolls
// the failed instant (and its files) back.
func TestWriteReaderFails(t *testing.T) {
	ctx := context.Background()
	for _, partitioned := range []bool{true, false} {
		t.Run(fmt.Sprintf("partitioned=%v", partitioned), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			tb := newTripsTable(t, dir, partitioned)
			first := benchdata.TripsRange(0, 1000, 1000, 1)
			defer benchdata.Release(first)
			res0, err := tb.Write(ctx, first, hudi.WriteOptions{Operation: "bulk_insert"})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := tableRows(t, tb, res0.Instant)

			boom := errors.New("disk on fire")
			more := benchdata.TripsRange(1000, 10000, 3000, 1)
			defer benchdata.Release(more)
			rdr := failingReader(more, boom)
			defer rdr.Release()
			_, err = tb.WriteReader(ctx, rdr, hudi.WriteOptions{Operation: "bulk_insert"})
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), "read input batch 4 (after 9000 rows)") {
				t.Fatalf("error %v, want the reader's wrapped with the batch it failed at", err)
			}
			reopened, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			var failed spec.InstantTime
			for _, in := range reopened.Timeline().Instants {
				if in.Time != spec.InstantTime(res0.Instant) {
					if in.State == spec.StateCompleted {
						t.Fatalf("instant %s %s completed after the failed write", in.Time, in.Action)
					}
					failed = in.Time
				}
			}
			if failed == "" {
				t.Fatal("the failed write left no pending instant")
			}
			if n := filesOf(t, dir, string(failed)); n == 0 {
				t.Fatalf("the failed write %s wrote no files before failing (the test needs some)", failed)
			}
			if got, _ := tableRows(t, reopened, res0.Instant); !slices.Equal(got, before) {
				t.Fatalf("after the failed write the table reads %d rows, want the %d committed", len(got), len(before))
			}

			// The failed writer's heartbeat stays until it expires (this process is alive,
			// so it counts as a running writer); expire it as time would.
			if err := reopened.Storage().Delete(ctx, commit.HeartbeatPath(failed)); err != nil {
				t.Fatal(err)
			}
			next := benchdata.TripsRange(50000, 50100, 100, 1)
			defer benchdata.Release(next)
			res, err := reopened.WriteReader(ctx, mustReader(t, next), hudi.WriteOptions{Operation: "bulk_insert"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.RolledBack, []string{string(failed)}) {
				t.Fatalf("rolled back %v, want [%s]", res.RolledBack, failed)
			}
			if n := filesOf(t, dir, string(failed)); n != 0 {
				t.Fatalf("%d files of the rolled-back write %s remain", n, failed)
			}
			if res.Records.Inserted != 100 {
				t.Fatalf("inserted %d, want 100", res.Records.Inserted)
			}
		})
	}
}

func mustReader(t *testing.T, batches []arrow.Record) array.RecordReader {
	t.Helper()
	rdr, err := array.NewRecordReader(batches[0].Schema(), batches)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rdr.Release)
	return rdr
}

// filesOf counts the base files of instant under dir.
func filesOf(t *testing.T, dir, instant string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, "_"+instant+".parquet") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWriteReaderOtherOperations: operations that need the whole input read the reader
// to the end and write as Write does.
func TestWriteReaderOtherOperations(t *testing.T) {
	ctx := context.Background()
	for _, o := range []hudi.WriteOptions{
		{Operation: "upsert"},
		{Operation: "insert"},
		{Operation: "bulk_insert", Settings: map[string]string{"hoodie.bulkinsert.sort.mode": "GLOBAL_SORT"}},
		{Operation: "insert_overwrite"},
	} {
		t.Run(o.Operation+fmt.Sprint(o.Settings), func(t *testing.T) {
			batches := benchdata.Trips(3000, 1000, 5)
			defer benchdata.Release(batches)
			slice := newTripsTable(t, filepath.Join(t.TempDir(), "slice"), true)
			want, err := slice.Write(ctx, batches, o)
			if err != nil {
				t.Fatal(err)
			}
			stream := newTripsTable(t, filepath.Join(t.TempDir(), "stream"), true)
			got, err := stream.WriteReader(ctx, mustReader(t, batches), o)
			if err != nil {
				t.Fatal(err)
			}
			if got.Records != want.Records || got.FilesWritten != want.FilesWritten || got.Action != want.Action {
				t.Fatalf("reader result %+v, slice %+v", got, want)
			}
			g, _ := tableRows(t, stream, got.Instant)
			w, _ := tableRows(t, slice, want.Instant)
			if !slices.Equal(g, w) {
				t.Fatalf("rows differ")
			}
		})
	}
}

// TestWriteReaderHeapBounded: the streaming bulk_insert's peak live heap does not grow
// with the rows: 4n rows peak at most 1.5× plus 48 MiB what n rows peak at. A writer that
// holds its input fails it (the reader drained into Write measured 63 MiB at 200k rows and
// 181 at 800k, over the 142 allowed). The input is generated lazily (benchdata.TripsReader), so the heap is
// what the writer holds; a small hoodie.parquet.max.file.size makes each partition roll
// over to new files several times at n rows already, so the open row groups are bounded
// too, and small pages keep the open pages' sawtooth a few MiB.
//
// Why 4× and an absolute slack rather than a tight 2× ratio: the peak is sampled, and a
// short run is sampled fewer times, so its peak reads low (CI once measured 30 MiB at
// 200k rows against 53 at 400k, where four earlier runs had read 44–51 for both). The
// bound is set by the configuration, not the row count, so a longer run samples nearer
// the same ceiling. Part of the slack is the writer's cache of constant meta columns
// (meta.go constCache): up to 64 files' names, ~0.7 MB each at 8192 rows, which the tiny
// files here fill (200k → 1.6M rows measured 44 → 75 MiB, the cache filling as files
// accumulate; it starts over at 64).
//
// The live heap is measured after forced collections (runtime/metrics
// /gc/heap/live:bytes is the heap marked live by the last GC), sampled by a goroutine
// that collects every few milliseconds: garbage, which depends on GC timing, is never
// counted.
func TestWriteReaderHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 600k rows")
	}
	if raceEnabled {
		// scripts/test runs it without the race detector, with the memory tests.
		t.Skip("heap figures are not meaningful under -race")
	}
	const n = 200_000
	a := streamPeakLive(t, n)
	b := streamPeakLive(t, 4*n)
	t.Logf("peak live heap growth: %d rows %.1f MiB, %d rows %.1f MiB (%.2f×)", n, mib(a), 4*n, mib(b), float64(b)/float64(a))
	if float64(b) > 1.5*float64(a)+48<<20 {
		t.Fatalf("streaming bulk_insert of %d rows peaks at %.1f MiB of live heap, of %d rows at %.1f MiB: "+
			"the writer's memory grows with the input", 4*n, mib(b), n, mib(a))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// streamPeakLive streams n lazily generated trips rows into a new table and returns the
// peak live heap above the live heap before the write.
func streamPeakLive(t *testing.T, n int) uint64 {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	tb := newTripsTable(t, dir, true)
	rdr := benchdata.TripsReader(n, 8192, 11)
	defer rdr.Release()
	live := func() uint64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	base := live()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				peak = max(peak, live())
			}
		}
	}()
	// A Go allocator of the test's own: the write then leaves freed buffers to the
	// collector instead of pooling them in its recycler (recycle.go), whose pool — bounded
	// by construction at 64 MiB, and filling as the write goes on — would otherwise be
	// counted as live and blur what the write retains.
	res, err := write.WriteReader(ctx, openMeta(t, tb), rdr, write.Options{Operation: write.BulkInsert, Mem: memory.NewGoAllocator(),
		MaxFileSize: 512 << 10, PageSize: 64 << 10, Compression: "snappy"})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	perPartition := map[string]int{}
	if tb, err = hudi.Open(ctx, dir); err != nil { // tb's handle predates the commit
		t.Fatal(err)
	}
	cm, err := tb.CommitMetadata(ctx, completedInstant(t, tb, res.Instant))
	if err != nil {
		t.Fatal(err)
	}
	for p, stats := range cm.PartitionToWriteStats {
		perPartition[p] = len(stats)
	}
	if res.Records.Inserted != int64(n) || len(perPartition) != 4 || slices.Min(slices.Collect(maps.Values(perPartition))) < 3 {
		t.Fatalf("inserted %d rows, files per partition %v; want %d rows, at least 3 files in each of 4 partitions", res.Records.Inserted, perPartition, n)
	}
	if peak < base {
		return 0
	}
	return peak - base
}

// TestWriteReaderBadRows: a bad row or batch after good ones fails the streamed write
// with what was wrong and where (a key error is found by a partition worker, a schema
// change by the reader), and commits nothing.
func TestWriteReaderBadRows(t *testing.T) {
	ctx := context.Background()
	nullKey := func() arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, benchdata.TripsSchema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(1)
		b.Field(1).(*array.StringBuilder).AppendNull()
		b.Field(2).(*array.StringBuilder).Append("r")
		b.Field(3).(*array.StringBuilder).Append("d")
		b.Field(4).(*array.Float64Builder).Append(1)
		b.Field(5).(*array.StringBuilder).Append("chennai")
		return b.NewRecord()
	}
	otherSchema := func() arrow.Record {
		sc := arrow.NewSchema(append(benchdata.TripsSchema.Fields(), arrow.Field{Name: "extra", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		return b.NewRecord()
	}
	for _, tc := range []struct {
		name string
		bad  func() arrow.Record
		want string
	}{
		{"null record key", nullKey, "input row 1501"},
		{"batch with another schema", otherSchema, "input batch 2 has a different schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			tb := newTripsTable(t, dir, true)
			good := benchdata.TripsRange(0, 1500, 1500, 1)
			defer benchdata.Release(good)
			bad := tc.bad()
			defer bad.Release()
			all := append(good, bad)
			rdr := array.ReaderFromIter(benchdata.TripsSchema, func(yield func(arrow.RecordBatch, error) bool) {
				for _, b := range all {
					b.Retain()
					if !yield(b, nil) {
						return
					}
				}
			})
			defer rdr.Release()
			_, err := tb.WriteReader(ctx, rdr, hudi.WriteOptions{Operation: "bulk_insert"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			reopened, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(reopened.Timeline().DataInstants()); n != 0 {
				t.Fatalf("%d completed instants after the failed write", n)
			}
		})
	}
}
