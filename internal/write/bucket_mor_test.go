package write_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
)

// TestMORBucketIndex: on merge-on-read the bucket index sends every record of an existing
// bucket — updates and new keys — to the bucket group's log (no new base file), a delete to
// a delete block; a new bucket starts with a base file. Snapshot reads see it all, and
// compaction folds the logs into the buckets' base files.
func TestMORBucketIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts",
		Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"}); err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"}
	write := func(op string, recs ...arrow.Record) *hudi.WriteResult {
		t.Helper()
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			for _, r := range recs {
				r.Release()
			}
		}()
		res, err := tbl.Write(ctx, recs, hudi.WriteOptions{Operation: op, Settings: settings})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res
	}
	keys := []string{"k1", "k2", "k3", "k4", "k5", "k6"}
	var ins []arrow.Record
	for _, k := range keys[:4] {
		ins = append(ins, tripsBatch(1, k, "r1", 1, "sf"))
	}
	write("upsert", ins...)
	bases := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "sf", "*.parquet"))
		return m
	}
	nBase := len(bases())
	if nBase == 0 || nBase > 2 {
		t.Fatalf("%d base files after the first write, want one per bucket used (≤ 2)", nBase)
	}
	// Updates of k1, k2 and new keys k5, k6: all into the existing buckets' logs, unless a
	// new key hashes to a bucket no group has yet.
	res := write("upsert", tripsBatch(2, "k1", "r2", 1, "sf"), tripsBatch(2, "k2", "r2", 1, "sf"),
		tripsBatch(2, "k5", "r2", 1, "sf"), tripsBatch(2, "k6", "r2", 1, "sf"))
	if res.Action != "deltacommit" {
		t.Fatalf("action %s", res.Action)
	}
	if nBase == 2 && len(bases()) != 2 {
		t.Errorf("new keys of existing buckets wrote base files: %v", bases())
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "sf", ".*.log.*"))
	if len(logs) == 0 {
		t.Fatal("no log files")
	}
	for _, l := range logs {
		if !strings.HasPrefix(filepath.Base(l), ".0000000") {
			t.Errorf("log %s is not in a bucket file group", filepath.Base(l))
		}
	}
	write("delete", tripsBatch(3, "k3", "", 0, "sf"))
	tbl, _ := hudi.Open(ctx, dir)
	for _, k := range []string{"k1", "k2", "k5", "k6"} {
		if got := riderOf(t, ctx, tbl, k, hudi.ScanOptions{}); got != "r2" {
			t.Errorf("%s rider %q, want r2", k, got)
		}
	}
	if got := riderOf(t, ctx, tbl, "k4", hudi.ScanOptions{}); got != "r1" {
		t.Errorf("k4 rider %q, want r1", got)
	}
	if got := riderOf(t, ctx, tbl, "k3", hudi.ScanOptions{}); got != "" {
		t.Errorf("deleted k3 still reads rider %q", got)
	}
	if c, err := tbl.Compact(ctx, hudi.CompactOptions{}); err != nil || !c.Completed {
		t.Fatalf("compact: %+v %v", c, err)
	}
	tbl, _ = hudi.Open(ctx, dir)
	for k, want := range map[string]string{"k1": "r2", "k5": "r2", "k4": "r1", "k3": ""} {
		if got := riderOf(t, ctx, tbl, k, hudi.ScanOptions{ReadOptimized: true}); got != want {
			t.Errorf("read-optimized %s rider %q after compaction, want %q", k, got, want)
		}
	}
}
