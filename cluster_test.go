package hudi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/write"
)

// newSmallFilesTable writes n insert batches of 3 rows (one per city) into a new table;
// with small-file handling off every insert makes a new file group per partition, the
// layout clustering exists to repair.
func newSmallFilesTable(t *testing.T, typ string, n int) (*hudi.Table, string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < n; b++ {
		var rows []row
		for i, city := range []string{"sf", "nyc", "la"} {
			rows = append(rows, row{"uuid": fmt.Sprintf("k%02d-%d", b, i), "ts": int64(b), "fare": float64(b*10 + i), "city": city})
		}
		if _, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: "insert",
			Settings: map[string]string{"hoodie.parquet.small.file.limit": "0"}}); err != nil {
			t.Fatal(err)
		}
	}
	return tb, dir
}

// latestGroups counts the file groups of the latest view per partition.
func latestGroups(t *testing.T, tb *hudi.Table) map[string]int {
	t.Helper()
	ctx := context.Background()
	fresh, err := hudi.OpenStorage(ctx, tb.Storage())
	if err != nil {
		t.Fatal(err)
	}
	view, err := fresh.View(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, g := range view.Groups {
		out[g.Partition]++
	}
	return out
}

func readTimelineFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".hoodie", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testClusterEndToEnd(t *testing.T, typ string) {
	ctx := context.Background()
	tb, dir := newSmallFilesTable(t, typ, 4)
	if typ == "mor" {
		// Log files on top of some base files: clustering must merge them.
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "k00-0", "ts": int64(9), "fare": 999.5, "city": "sf"},
			{"uuid": "k01-1", "ts": int64(9), "fare": 888.5, "city": "nyc"}}), hudi.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "k02-2", "ts": int64(9), "city": "la"}}), hudi.WriteOptions{Operation: "delete"}); err != nil {
			t.Fatal(err)
		}
	}
	before := scanAll(t, tb, hudi.ScanOptions{})
	beforeRO := scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true})
	last := lastInstant(tb)
	if g := latestGroups(t, tb); g["city=sf"] != 4 && g["sf"] != 4 {
		t.Fatalf("file groups before clustering: %v", g)
	}

	res, err := tb.Cluster(ctx, hudi.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Instant <= last || res.Action != "replacecommit" || res.Operation != "cluster" || res.FilesWritten != 3 || res.Bytes <= 0 {
		t.Fatalf("result %+v", res)
	}
	c := res.Instant

	// Timeline: Avro plan, empty inflight (Java's executeClustering), JSON replace metadata.
	plan, err := commitmeta.DecodeRequestedReplace(readTimelineFile(t, dir, c+".replacecommit.requested"))
	if err != nil {
		t.Fatal(err)
	}
	if plan.OperationType != "CLUSTER" || plan.ClusteringPlan == nil || len(plan.ClusteringPlan.InputGroups) != 3 {
		t.Fatalf("plan %+v", plan)
	}
	if b := readTimelineFile(t, dir, c+".replacecommit.inflight"); len(b) != 0 {
		t.Errorf("inflight has %d bytes, want an empty file", len(b))
	}
	meta, err := commitmeta.Decode(readTimelineFile(t, dir, c+".replacecommit"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.OperationType != "CLUSTER" || meta.Schema() == "" {
		t.Errorf("replace metadata: operation %q, schema %q", meta.OperationType, meta.Schema())
	}
	planned := plan.InputFileIDs()
	for p, ids := range meta.PartitionToReplaceFileIDs {
		got := append([]string(nil), ids...)
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(planned[p], ",") {
			t.Errorf("partition %s: replaced %v, planned %v", p, got, planned[p])
		}
	}
	if len(meta.PartitionToReplaceFileIDs) != 3 {
		t.Errorf("replaced partitions %v", meta.PartitionToReplaceFileIDs)
	}
	for p, stats := range meta.PartitionToWriteStats {
		for _, s := range stats {
			if s.PrevCommit != commitmeta.NullCommit || s.NumInserts != s.NumWrites || s.NumWrites == 0 || !strings.HasSuffix(s.Path, "_"+c+".parquet") {
				t.Errorf("partition %s stat %+v", p, s)
			}
		}
	}

	// One file group per partition now; rows, commit times and sequence numbers unchanged.
	for p, n := range latestGroups(t, tb) {
		if n != 1 {
			t.Errorf("partition %s has %d file groups after clustering", p, n)
		}
	}
	after := scanAll(t, tb, hudi.ScanOptions{})
	sameSet(t, "snapshot after clustering", after, before)
	// The clustered files hold merged rows, so a read-optimized query now sees the snapshot.
	sameSet(t, "read-optimized after clustering", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true}), before)
	// Time travel to before the clustering reads the old file groups.
	sameSet(t, "as of the last write", scanAll(t, tb, hudi.ScanOptions{AsOf: last}), before)
	if typ == "mor" {
		sameSet(t, "read-optimized as of the last write", scanAll(t, tb, hudi.ScanOptions{ReadOptimized: true, AsOf: last}), beforeRO)
	}
	// Commit metadata was preserved, so nothing is new since the last write.
	if inc := scanAll(t, tb, hudi.ScanOptions{Incremental: true, Begin: last}); len(inc) != 0 {
		t.Errorf("incremental query after clustering returned %d rows: %v", len(inc), inc)
	}

	// Writes continue on the new file groups.
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "k00-1", "ts": int64(20), "fare": 1.25, "city": "nyc"}}), hudi.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, tb, "uuid")
	if r := rows[`"k00-1"`]; r == nil || fmt.Sprint(r["fare"]) != "1.25" {
		t.Errorf("upsert after clustering: %v", r)
	}
	if len(rows) != len(before) {
		t.Errorf("%d rows after upsert, want %d", len(rows), len(before))
	}
}

func TestClusterCOW(t *testing.T) { testClusterEndToEnd(t, "cow") }
func TestClusterMOR(t *testing.T) { testClusterEndToEnd(t, "mor") }

func TestClusterSortColumnsAndPreserveOff(t *testing.T) {
	ctx := context.Background()
	tb, _ := newSmallFilesTable(t, "cow", 5)
	before := scanAll(t, tb, hudi.ScanOptions{})
	last := lastInstant(tb)
	res, err := tb.Cluster(ctx, hudi.ClusterOptions{Settings: map[string]string{
		"hoodie.clustering.plan.strategy.sort.columns": "fare",
		"hoodie.clustering.preserve.commit.metadata":   "false",
	}})
	if err != nil || !res.Completed {
		t.Fatalf("cluster: %+v %v", res, err)
	}
	// Rows are the same apart from commit time and sequence number, which now name the
	// clustering, so an incremental query returns them as new.
	after := scanAll(t, tb, hudi.ScanOptions{})
	strip := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			var r row
			if err := jsonUnmarshal(v, &r); err != nil {
				t.Fatal(err)
			}
			delete(r, "_hoodie_commit_time")
			delete(r, "_hoodie_commit_seqno")
			out[k] = string(mustJSON(r))
		}
		return out
	}
	sameSet(t, "rows", strip(after), strip(before))
	for k, v := range after {
		if !strings.Contains(v, `"_hoodie_commit_time":"`+res.Instant+`"`) || !strings.Contains(v, `"_hoodie_commit_seqno":"`+res.Instant+"_") {
			t.Errorf("row %s keeps its old commit metadata: %s", k, v)
		}
	}
	if inc := scanAll(t, tb, hudi.ScanOptions{Incremental: true, Begin: last}); len(inc) != len(before) {
		t.Errorf("incremental after clustering without preserved metadata: %d rows, want %d", len(inc), len(before))
	}
	// Each partition is one new file now, its rows in fare order.
	for p := range latestGroups(t, tb) {
		city := strings.TrimPrefix(p, "city=")
		scan, err := tb.Scan(ctx, hudi.ScanOptions{Columns: []string{"fare"}, Filter: "city = '" + city + "'", Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		var fares []float64
		if err := scan.Run(ctx, func(r arrow.Record) error {
			col := r.Column(0).(*array.Float64)
			for i := 0; i < col.Len(); i++ {
				fares = append(fares, col.Value(i))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(fares) != 5 || !sort.Float64sAreSorted(fares) {
			t.Errorf("partition %s: fares %v, want 5 in ascending order", p, fares)
		}
	}
}

func jsonUnmarshal(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	return dec.Decode(v)
}

func TestUpdateRejectedWhileClusteringPending(t *testing.T) {
	ctx := context.Background()
	tb, _ := newSmallFilesTable(t, "cow", 3)
	before := scanAll(t, tb, hudi.ScanOptions{})
	res, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true})
	if err != nil || res.Scheduled == "" || res.Completed {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	// Readers keep reading the old file groups while the plan is pending.
	sameSet(t, "snapshot with pending clustering", scanAll(t, tb, hudi.ScanOptions{}), before)

	_, err = tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "k01-0", "ts": int64(7), "fare": 5.5, "city": "sf"}}), hudi.WriteOptions{})
	if !errors.Is(err, write.ErrPendingClustering) || !strings.Contains(err.Error(), res.Scheduled) {
		t.Fatalf("upsert of a clustered group: %v", err)
	}
	_, err = tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "k01-0", "city": "sf"}}), hudi.WriteOptions{Operation: "delete"})
	if !errors.Is(err, write.ErrPendingClustering) {
		t.Fatalf("delete from a clustered group: %v", err)
	}
	// An insert would go to a small file (default small-file limit) — one under
	// clustering — so it goes to a new file group instead.
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "new-1", "ts": int64(7), "fare": 5.5, "city": "sf"}}), hudi.WriteOptions{Operation: "upsert"}); err != nil {
		t.Fatalf("insert during pending clustering: %v", err)
	}
	if g := latestGroups(t, tb)["city=sf"] + latestGroups(t, tb)["sf"]; g != 4 {
		t.Errorf("sf has %d file groups, want the 3 clustered ones and a new one", g)
	}
	res, err = tb.Cluster(ctx, hudi.ClusterOptions{Run: true})
	if err != nil || !res.Completed {
		t.Fatalf("run: %+v %v", res, err)
	}
	rows := readRows(t, tb, "uuid")
	if len(rows) != len(before)+1 || rows[`"new-1"`] == nil {
		t.Errorf("after clustering: %d rows, new-1 %v", len(rows), rows[`"new-1"`])
	}
	if g := latestGroups(t, tb)["city=sf"] + latestGroups(t, tb)["sf"]; g != 2 {
		t.Errorf("sf has %d file groups after clustering, want the clustered one and the inserted one", g)
	}
	// The update goes through now.
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "k01-0", "ts": int64(7), "fare": 5.5, "city": "sf"}}), hudi.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestInlineClustering(t *testing.T) {
	ctx := context.Background()
	tb, _ := newSmallFilesTable(t, "cow", 0)
	settings := map[string]string{"hoodie.clustering.inline": "true", "hoodie.clustering.inline.max.commits": "3",
		"hoodie.parquet.small.file.limit": "0"}
	replaces := func() int {
		n := 0
		for _, in := range tb.Timeline().Instants {
			if in.Action == spec.ActionReplaceCommit && in.IsCompleted() {
				n++
			}
		}
		return n
	}
	for b := 0; b < 7; b++ {
		rows := []row{{"uuid": fmt.Sprintf("i%d", b), "ts": int64(b), "fare": 1.0, "city": "sf"}}
		if _, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: "insert", Settings: settings}); err != nil {
			t.Fatal(err)
		}
		// Clustering follows the 3rd commit and then every 3 commits after the last
		// replacecommit.
		want := map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 4: 1, 5: 2, 6: 2}[b]
		if got := replaces(); got != want {
			t.Fatalf("after write %d: %d clusterings, want %d", b+1, got, want)
		}
	}
	if n := len(readRows(t, tb, "uuid")); n != 7 {
		t.Errorf("%d rows, want 7", n)
	}
}

// A clustering killed after it went inflight is rolled back (its partial files deleted,
// a rollback instant recorded, the plan kept) and executed again by the next run.
func TestClusterKilledRunIsRolledBackAndRerun(t *testing.T) {
	ctx := context.Background()
	tb, dir := newSmallFilesTable(t, "cow", 3)
	before := scanAll(t, tb, hudi.ScanOptions{})
	res, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true})
	if err != nil || res.Scheduled == "" {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	// Simulate the killed run: inflight, one partial output file with its marker.
	m := openMeta(t, tb)
	in, ok := m.Timeline.Get(spec.InstantTime(res.Scheduled), spec.ActionReplaceCommit)
	if !ok {
		t.Fatal("scheduled instant missing")
	}
	txn, err := commit.NewTimeline(m.Storage, commit.TimelineOptions{}).BeginClustering(ctx, m.Timeline, in)
	if err != nil {
		t.Fatal(err)
	}
	partition := latestPartition(t, tb)
	partial := spec.BaseFileName{FileID: "00000000-0000-4000-8000-000000000000-0", WriteToken: "0-1-0", Instant: in.Time, Extension: "parquet"}.String()
	if err := txn.Marker(ctx, partition, partial, commit.IOCreate); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, partition, partial), []byte("PAR1 torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	txn.Close()
	_ = m.Storage.Delete(ctx, commit.HeartbeatPath(in.Time)) // the heartbeat expired

	res, err = tb.Cluster(ctx, hudi.ClusterOptions{Run: true})
	if err != nil || !res.Completed || res.Instant != string(in.Time) || len(res.RolledBack) != 1 {
		t.Fatalf("run: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, partition, partial)); !os.IsNotExist(err) {
		t.Errorf("partial file of the killed run still exists: %v", err)
	}
	rb := readTimelineFile(t, dir, res.RolledBack[0]+".rollback")
	rm, err := commitmeta.DecodeRollback(rb)
	if err != nil || len(rm.CommitsRollback) != 1 || rm.CommitsRollback[0] != string(in.Time) {
		t.Errorf("rollback metadata %+v %v", rm, err)
	}
	sameSet(t, "snapshot after the re-run", scanAll(t, tb, hudi.ScanOptions{}), before)
	// A write after all this rolls nothing back.
	wr, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "z", "ts": int64(1), "fare": 1.0, "city": "sf"}}), hudi.WriteOptions{})
	if err != nil || len(wr.RolledBack) != 0 {
		t.Errorf("write after: %+v %v", wr, err)
	}
}

func latestPartition(t *testing.T, tb *hudi.Table) string {
	t.Helper()
	var ps []string
	for p := range latestGroups(t, tb) {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps[0]
}

// TestClusterRefusesBucketIndex: clustering would give bucket file groups new file ids
// without their bucket numbers, so it is refused when the bucket index is configured.
func TestClusterRefusesBucketIndex(t *testing.T) {
	tb, _ := newMORTable(t)
	_, err := tb.Cluster(context.Background(), hudi.ClusterOptions{Settings: map[string]string{"hoodie.index.type": "BUCKET"}})
	if err == nil || !strings.Contains(err.Error(), "bucket") {
		t.Fatalf("clustering with the bucket index: %v", err)
	}
}
