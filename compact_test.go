package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
)

// scanAll returns the rows of a query keyed by record key, meta columns included except
// _hoodie_file_name (which a compaction changes).
func scanAll(t *testing.T, tb *hudi.Table, o hudi.ScanOptions) map[string]string {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.OpenStorage(ctx, tb.Storage())
	if err != nil {
		t.Fatal(err)
	}
	scan, err := tb.Scan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := jsonl.NewEncoder(&buf, jsonl.Options{})
	if err := scan.Run(ctx, func(r arrow.Record) error { return enc.WriteRecord(r) }); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	out := map[string]string{}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	for dec.More() {
		var r row
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		delete(r, "_hoodie_file_name")
		out[r["_hoodie_record_key"].(string)] = string(mustJSON(r))
	}
	return out
}

func sameSet(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: key %s missing", what, k)
		} else if g != w {
			t.Errorf("%s: key %s\n got %s\nwant %s", what, k, g, w)
		}
	}
}

func lastInstant(tb *hudi.Table) string {
	in := tb.Timeline().Instants
	return string(in[len(in)-1].Time)
}

func newMORTable(t *testing.T) (*hudi.Table, string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(op string, rows []row) {
		t.Helper()
		if _, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: op}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	var ins []row
	for i := 0; i < 20; i++ {
		ins = append(ins, row{"uuid": "k" + string(rune('a'+i)), "ts": 1, "fare": float64(i), "city": []string{"sf", "nyc", "la"}[i%3]})
	}
	write("insert", ins)
	write("upsert", []row{{"uuid": "ka", "ts": 2, "fare": 100.5, "city": "sf"}, {"uuid": "kb", "ts": 2, "fare": 101.5, "city": "nyc"},
		{"uuid": "new1", "ts": 2, "fare": 7.0, "city": "la"}})
	write("upsert", []row{{"uuid": "ka", "ts": 3, "fare": 200.5, "city": "sf"}, {"uuid": "kd", "ts": 3, "fare": 300.5, "city": "sf"}})
	write("delete", []row{{"uuid": "kc", "ts": 4, "city": "la"}, {"uuid": "kg", "ts": 4, "city": "sf"}})
	return tb, dir
}

func TestCompactMOR(t *testing.T) {
	ctx := context.Background()
	tb, dir := newMORTable(t)
	before := scanAll(t, tb, hudi.ScanOptions{})
	last := lastInstant(tb)
	if len(before) != 19 {
		t.Fatalf("snapshot has %d rows before compaction, want 19", len(before))
	}
	res, err := tb.Compact(ctx, hudi.CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Instant == "" || res.Instant <= last || res.FilesWritten != 3 || res.Bytes <= 0 || res.Action != "commit" || res.Operation != "compact" {
		t.Fatalf("result %+v", res)
	}
	c := res.Instant
	for _, f := range []string{c + ".compaction.requested", c + ".compaction.inflight", c + ".commit"} {
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", f)); err != nil {
			t.Errorf("timeline file %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", ".temp", c)); !os.IsNotExist(err) {
		t.Errorf("markers of %s left behind: %v", c, err)
	}
	planBytes, _ := os.ReadFile(filepath.Join(dir, ".hoodie", c+".compaction.requested"))
	plan, err := commitmeta.DecodeCompactionPlan(planBytes)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Version != 2 || len(plan.Operations) != 3 {
		t.Fatalf("plan: version %d, %d operations", plan.Version, len(plan.Operations))
	}
	for _, op := range plan.Operations {
		if len(op.DeltaFilePaths) == 0 || op.DataFilePath == "" || op.Metrics["TOTAL_LOG_FILES"] != float64(len(op.DeltaFilePaths)) || op.Metrics["TOTAL_LOG_FILES_SIZE"] <= 0 {
			t.Errorf("plan operation %+v", op)
		}
		if _, err := os.Stat(filepath.Join(dir, op.PartitionPath, op.DataFilePath)); err != nil {
			t.Errorf("planned base file: %v", err)
		}
	}
	for i := 1; i < len(plan.Operations); i++ {
		if plan.Operations[i-1].Metrics["TOTAL_LOG_FILES_SIZE"] < plan.Operations[i].Metrics["TOTAL_LOG_FILES_SIZE"] {
			t.Error("plan operations are not ordered by log size, largest first")
		}
	}
	tb, _ = hudi.Open(ctx, dir)
	in, ok := tb.Timeline().Get(spec.InstantTime(c), spec.ActionCommit)
	if !ok || !in.IsCompleted() {
		t.Fatalf("compaction %s is not a completed commit", c)
	}
	meta, err := tb.CommitMetadata(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !meta.Compacted || meta.OperationType != "COMPACT" || meta.ExtraMetadata["schema"] == "" {
		t.Errorf("commit metadata: compacted %v, operation %s", meta.Compacted, meta.OperationType)
	}
	var stats int
	for _, ss := range meta.PartitionToWriteStats {
		for _, s := range ss {
			stats++
			if s.PrevCommit == commitmeta.NullCommit || s.TotalLogFilesCompacted == 0 || s.TotalLogSizeCompacted == 0 ||
				s.TotalLogRecords == 0 || s.NumWrites == 0 || !strings.HasSuffix(s.Path, "_"+c+".parquet") {
				t.Errorf("write stat %+v", s)
			}
		}
	}
	if stats != 3 {
		t.Errorf("%d write stats, want 3", stats)
	}

	sameSet(t, "snapshot after compaction", scanAll(t, tb, hudi.ScanOptions{}), before)
	sameSet(t, "read-optimized after compaction", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), before)
	sameSet(t, "time travel to before the compaction", scanAll(t, tb, hudi.ScanOptions{AsOf: last}), before)
	if inc := scanAll(t, tb, hudi.ScanOptions{Incremental: true, Begin: last, End: c}); len(inc) != 0 {
		t.Errorf("incremental over the compaction instant returned %d rows", len(inc))
	}

	// Nothing left to compact: no instant.
	n := len(tb.Timeline().Instants)
	res, err = tb.Compact(ctx, hudi.CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed || res.Scheduled != "" || res.Message == "" {
		t.Errorf("second compaction: %+v", res)
	}
	tb, _ = hudi.Open(ctx, dir)
	if len(tb.Timeline().Instants) != n {
		t.Error("a compaction with nothing to compact added an instant")
	}

	// Writes after the compaction land on the new slice and compact again.
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ka", "ts": 9, "fare": 9.5, "city": "sf"}}), hudi.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	after := scanAll(t, tb, hudi.ScanOptions{})
	if res, err = tb.Compact(ctx, hudi.CompactOptions{}); err != nil || !res.Completed || res.FilesWritten != 1 {
		t.Fatalf("third compaction: %+v %v", res, err)
	}
	sameSet(t, "snapshot after the second compaction", scanAll(t, tb, hudi.ScanOptions{}), after)
	sameSet(t, "read-optimized after the second compaction", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), after)
}

func TestCompactKilledRunCompletes(t *testing.T) {
	ctx := context.Background()
	tb, dir := newMORTable(t)
	before := scanAll(t, tb, hudi.ScanOptions{})
	res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scheduled == "" || res.Completed {
		t.Fatalf("schedule only: %+v", res)
	}
	c := res.Scheduled
	planBytes, _ := os.ReadFile(filepath.Join(dir, ".hoodie", c+".compaction.requested"))
	plan, err := commitmeta.DecodeCompactionPlan(planBytes)
	if err != nil {
		t.Fatal(err)
	}
	// A run killed mid-way: inflight, a marker and a partial base file, no commit.
	op := plan.Operations[0]
	partial := op.FileID + "_7-7-7_" + c + ".parquet"
	os.WriteFile(filepath.Join(dir, ".hoodie", c+".compaction.inflight"), nil, 0o644)
	os.MkdirAll(filepath.Join(dir, ".hoodie", ".temp", c, op.PartitionPath), 0o755)
	os.WriteFile(filepath.Join(dir, ".hoodie", ".temp", c, op.PartitionPath, partial+".marker.MERGE"), nil, 0o644)
	if err := os.WriteFile(filepath.Join(dir, op.PartitionPath, partial), []byte("PAR1 partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The pending plan does not change what readers see (writes meanwhile:
	// TestWriteWhileCompactionPending).
	sameSet(t, "snapshot with a pending compaction", scanAll(t, tb, hudi.ScanOptions{}), before)
	tb, _ = hudi.Open(ctx, dir)

	res, err = tb.Compact(ctx, hudi.CompactOptions{Run: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Instant != c || res.Scheduled != "" {
		t.Fatalf("run: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, op.PartitionPath, partial)); !os.IsNotExist(err) {
		t.Errorf("partial file of the killed run is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", c+".commit")); err != nil {
		t.Fatal(err)
	}
	sameSet(t, "snapshot after the re-run", scanAll(t, tb, hudi.ScanOptions{}), before)
	sameSet(t, "read-optimized after the re-run", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), before)
	tb, _ = hudi.Open(ctx, dir)
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "ka", "ts": 9, "fare": 9.5, "city": "sf"}}), hudi.WriteOptions{}); err != nil {
		t.Errorf("write after the compaction: %v", err)
	}
}

func TestCompactSparkFixture(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	before := scanAll(t, tb, hudi.ScanOptions{})
	if len(before) == 0 {
		t.Fatal("fixture snapshot is empty")
	}
	last := lastInstant(tb)
	res, err := tb.Compact(ctx, hudi.CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.FilesWritten == 0 {
		t.Fatalf("result %+v", res)
	}
	sameSet(t, "fixture snapshot after compaction", scanAll(t, tb, hudi.ScanOptions{}), before)
	sameSet(t, "fixture read-optimized after compaction", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), before)
	sameSet(t, "fixture time travel before compaction", scanAll(t, tb, hudi.ScanOptions{AsOf: last}), before)
}
