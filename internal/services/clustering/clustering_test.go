package clustering_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/services/clustering"
	"github.com/hudi-go/hudi/internal/table"
)

// newTable writes, per partition, one insert per entry of sizes with that many rows, so
// the file groups differ in size (more rows, bigger file).
func newTable(t *testing.T, typ string, sizes map[string][]int) *hudi.Table {
	t.Helper()
	return newTableVersion(t, typ, 0, sizes)
}

// newTableVersion is newTable of a table version (0: the default).
func newTableVersion(t *testing.T, typ string, version int, sizes map[string][]int) *hudi.Table {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.Create(ctx, filepath.Join(t.TempDir(), "t"), hudi.CreateOptions{Name: "t", Type: typ, TableVersion: version, RecordKeyFields: []string{"id"},
		PartitionFields: []string{"p"}, PrecombineField: "ts", Schema: "id STRING, ts BIGINT, payload STRING, p STRING"})
	if err != nil {
		t.Fatal(err)
	}
	avroSchema, _ := tb.SchemaAt(ctx, "")
	sc, err := schema.FromAvro(avroSchema)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for p := range sizes {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	for _, p := range parts {
		for b, n := range sizes[p] {
			var buf bytes.Buffer
			for i := 0; i < n; i++ {
				line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("%s-%d-%d", p, b, i), "ts": 1, "payload": strings.Repeat("x", 200), "p": p})
				buf.Write(append(line, '\n'))
			}
			var recs []arrow.Record
			for rec, err := range jsonl.Decode(&buf, sc, memory.DefaultAllocator, 0) {
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, rec)
			}
			if _, err := tb.Write(ctx, recs, hudi.WriteOptions{Operation: "insert", Settings: map[string]string{"hoodie.parquet.small.file.limit": "0"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tb
}

func open(t *testing.T, tb *hudi.Table) (*table.Table, *fsview.View) {
	t.Helper()
	ctx := context.Background()
	m, err := table.Open(ctx, tb.Storage())
	if err != nil {
		t.Fatal(err)
	}
	l, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.View(ctx, l, "")
	if err != nil {
		t.Fatal(err)
	}
	return m, v
}

func sizesOf(v *fsview.View, partition string) []int64 {
	var out []int64
	for _, g := range v.Groups {
		if g.Partition == partition {
			out = append(out, g.Latest().Base.Size)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out
}

func groupShape(t *testing.T, m *commitmeta.RequestedReplaceMetadata) string {
	t.Helper()
	if m == nil {
		return "none"
	}
	var out []string
	for _, g := range m.ClusteringPlan.InputGroups {
		out = append(out, fmt.Sprintf("%s:%d>%d", g.Slices[0].PartitionPath, len(g.Slices), g.NumOutputFileGroups))
	}
	return strings.Join(out, " ")
}

func TestPlanSizeBasedRules(t *testing.T) {
	ctx := context.Background()
	tb := newTable(t, "cow", map[string][]int{"a": {5, 40, 10, 30, 20}, "b": {7}, "c": {3, 4}})
	m, v := open(t, tb)
	a := sizesOf(v, "a")
	plan := func(o clustering.Options) *commitmeta.RequestedReplaceMetadata {
		t.Helper()
		o.SingleGroup = o.SingleGroup || o.PartitionFilterMode == "keep-single"
		if o.PartitionFilterMode == "keep-single" {
			o.PartitionFilterMode = ""
		}
		p, err := clustering.Plan(ctx, m, o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Defaults: every partition is one group of all its small files; single-file
	// partition b is kept because single-group clustering is on (the 0.14 default).
	def := plan(clustering.Options{SingleGroup: true, PreserveCommitMetadata: true})
	if got := groupShape(t, def); got != "a:5>1 b:1>1 c:2>1" {
		t.Errorf("default plan %s", got)
	}
	// Slices of a group are largest first; paths are absolute; metrics in whole MB.
	g := def.ClusteringPlan.InputGroups[0]
	root := "file:" + strings.TrimSuffix(m.Storage.Root(), "/") // Java's Path.toString form
	for i, s := range g.Slices {
		if !strings.HasPrefix(s.DataFilePath, root+"/a/") || s.Version != 1 || s.BootstrapFilePath != "" || len(s.DeltaFilePaths) != 0 {
			t.Errorf("slice %d: %+v", i, s)
		}
	}
	// Largest first; files of equal size may come in either order.
	sizeOf := map[string]int64{}
	for _, gr := range v.Groups {
		if gr.Partition == "a" {
			sizeOf[string(gr.FileID)] = gr.Latest().Base.Size
		}
	}
	var got []int64
	seen := map[string]bool{}
	for _, s := range g.Slices {
		sz, ok := sizeOf[s.FileID]
		if !ok || seen[s.FileID] {
			t.Errorf("slice %s is not a file group of partition a, or is listed twice", s.FileID)
		}
		seen[s.FileID] = true
		got = append(got, sz)
	}
	if len(got) != len(sizeOf) || !slices.IsSortedFunc(got, func(x, y int64) int { return cmp.Compare(y, x) }) {
		t.Errorf("slice sizes %v, want all %d files of partition a by size descending (sizes %v)", got, len(sizeOf), a)
	}
	var sum int64
	for _, sz := range a {
		sum += sz
	}
	if g.Metrics[clustering.MetricTotalIOReadMB] != float64(sum>>20) || g.Metrics[clustering.MetricTotalIOWriteMB] != float64(sum>>20) ||
		g.Metrics[clustering.MetricTotalIOMB] != float64(2*(sum>>20)) || g.Metrics[clustering.MetricTotalLogFiles] != 0 || len(g.Metrics) != 5 {
		t.Errorf("metrics %v", g.Metrics)
	}
	p := def.ClusteringPlan
	if p.Version != 1 || !p.PreserveHoodieMetadata || p.Strategy.StrategyClassName != config.ClusteringExecutionStrategyClass.Default || len(p.Strategy.StrategyParams) != 0 {
		t.Errorf("plan header %+v %+v", p, p.Strategy)
	}

	// max.bytes.per.group: the two largest of a fit together, then the next two, then one.
	perGroup := a[0] + a[1]
	if got := groupShape(t, plan(clustering.Options{MaxBytesPerGroup: perGroup, SingleGroup: true})); got != "a:2>1 a:2>1 a:1>1 b:1>1 c:2>1" {
		t.Errorf("max bytes per group %d (sizes %v): %s", perGroup, a, got)
	}
	// Without single-group clustering, a trailing group of one slice is dropped.
	if got := groupShape(t, plan(clustering.Options{MaxBytesPerGroup: perGroup})); got != "a:2>1 a:2>1 c:2>1" {
		t.Errorf("single group off: %s", got)
	}
	// Sort columns keep single groups even then, and are recorded as a strategy param.
	sorted := plan(clustering.Options{SortColumns: []string{"id", "ts"}})
	if got := groupShape(t, sorted); got != "a:5>1 b:1>1 c:2>1" || sorted.ClusteringPlan.Strategy.StrategyParams[config.ClusteringSortColumns.Name] != "id,ts" {
		t.Errorf("sort columns: %s %v", got, sorted.ClusteringPlan.Strategy.StrategyParams)
	}
	// max.num.groups caps the plan.
	if got := groupShape(t, plan(clustering.Options{MaxBytesPerGroup: perGroup, MaxNumGroups: 2, SingleGroup: true})); got != "a:2>1 a:2>1" {
		t.Errorf("max num groups: %s", got)
	}
	// small.file.limit: the largest file of a is not small.
	if got := groupShape(t, plan(clustering.Options{SmallFileLimit: a[0], SingleGroup: true})); got != "a:4>1 b:1>1 c:2>1" {
		t.Errorf("small file limit: %s", got)
	}
	// target.file.max.bytes sets the output file groups: ceil(bytes / target).
	total := int64(0)
	for _, sz := range a {
		total += sz
	}
	if got := groupShape(t, plan(clustering.Options{TargetFileMaxBytes: (total + 2) / 3, SingleGroup: true})); !strings.HasPrefix(got, "a:5>3 ") {
		t.Errorf("target file size: %s", got)
	}
	// Partition filters.
	for _, c := range []struct {
		o    clustering.Options
		want string
	}{
		{clustering.Options{PartitionFilterMode: "RECENT_DAYS", LookbackPartitions: 1, SingleGroup: true}, "c:2>1"},
		{clustering.Options{PartitionFilterMode: "RECENT_DAYS", LookbackPartitions: 2, SkipFromLatest: 1, SingleGroup: true}, "b:1>1 a:5>1"},
		{clustering.Options{PartitionFilterMode: "SELECTED_PARTITIONS", BeginPartition: "b", EndPartition: "c", SingleGroup: true}, "b:1>1 c:2>1"},
		{clustering.Options{PartitionRegex: "a|c", SingleGroup: true}, "a:5>1 c:2>1"},
		{clustering.Options{PartitionSelected: "c", SingleGroup: true}, "c:2>1"},
	} {
		if got := groupShape(t, plan(c.o)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.o, got, c.want)
		}
	}
	if _, err := clustering.Plan(ctx, m, clustering.Options{PartitionFilterMode: "DAY_ROLLING"}); err == nil {
		t.Error("DAY_ROLLING accepted")
	}

	// Scheduled groups are not planned again while pending.
	inst, _, err := clustering.Schedule(ctx, m.Storage, clustering.Options{PartitionSelected: "c", SingleGroup: true})
	if err != nil || inst == "" {
		t.Fatal(inst, err)
	}
	m, _ = open(t, tb)
	if got := groupShape(t, plan(clustering.Options{SingleGroup: true})); got != "a:5>1 b:1>1" {
		t.Errorf("with c pending: %s", got)
	}
	if n, err := clustering.CommitsSinceLastClustering(ctx, m); err != nil || n != 0 {
		t.Errorf("commits since a pending replacecommit: %d", n)
	}
	// Executing with several output file groups writes that many files.
	res, err := clustering.Execute(ctx, m.Storage, "", clustering.Options{})
	if err != nil || len(res) != 1 || res[0].FilesWritten != 1 {
		t.Fatalf("execute: %+v %v", res, err)
	}
	inst, pl, err := clustering.Schedule(ctx, m.Storage, clustering.Options{PartitionSelected: "a", TargetFileMaxBytes: (total + 2) / 3})
	if err != nil || groupShape(t, pl) != "a:5>3" {
		t.Fatal(inst, groupShape(t, pl), err)
	}
	res, err = clustering.Execute(ctx, m.Storage, inst, clustering.Options{})
	if err != nil || len(res) != 1 || res[0].FilesWritten != 3 {
		t.Fatalf("execute a: %+v %v", res, err)
	}
	_, v = open(t, tb)
	if n := len(sizesOf(v, "a")); n != 3 {
		t.Errorf("a has %d file groups, want 3", n)
	}
}

// Merge-on-read slices with log files are planned with their logs (absolute paths and
// log metrics) and their merged rows are written.
func TestPlanMORLogs(t *testing.T) {
	ctx := context.Background()
	tb := newTable(t, "mor", map[string][]int{"a": {3, 3}})
	avroSchema, _ := tb.SchemaAt(ctx, "")
	sc, _ := schema.FromAvro(avroSchema)
	var recs []arrow.Record
	for rec, err := range jsonl.Decode(strings.NewReader(`{"id":"a-0-0","ts":2,"payload":"updated","p":"a"}`+"\n"), sc, memory.DefaultAllocator, 0) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if _, err := tb.Write(ctx, recs, hudi.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m, _ := open(t, tb)
	p, err := clustering.Plan(ctx, m, clustering.Options{})
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	g := p.ClusteringPlan.InputGroups[0]
	logs := 0
	for _, s := range g.Slices {
		for _, d := range s.DeltaFilePaths {
			// Java's Path.toString form, with the scheme (HoodieSliceInfo.deltaFilePaths).
			if !strings.HasPrefix(d, "file:"+strings.TrimSuffix(m.Storage.Root(), "/")+"/a/.") {
				t.Errorf("delta path %s", d)
			}
			logs++
		}
	}
	if logs != 1 || g.Metrics[clustering.MetricTotalLogFiles] != 1 || g.Metrics[clustering.MetricTotalLogFilesSize] <= 0 {
		t.Errorf("logs %d, metrics %v", logs, g.Metrics)
	}
	res, err := tb.Cluster(ctx, hudi.ClusterOptions{})
	if err != nil || !res.Completed {
		t.Fatal(res, err)
	}
	scan, err := tb.Scan(ctx, hudi.ScanOptions{ReadOptimized: true, Filter: "id = 'a-0-0'", Columns: []string{"payload"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = scan.Run(ctx, func(r arrow.Record) error {
		for i := 0; i < int(r.NumRows()); i++ {
			got = append(got, r.Column(0).ValueStr(i))
		}
		return nil
	})
	if len(got) != 1 || got[0] != "updated" {
		t.Errorf("read-optimized after clustering: %v", got)
	}
}

// TestCommitsSinceLastClusteringByLayout: what counts as the last clustering when inline
// clustering decides whether it is due. Layout 1 (Hudi 0.14): the last replacecommit in
// any state, an insert_overwrite or a pending plan included. Layout 2 (Hudi 1.x's
// getLastClusteringInstant): the last replacecommit that is a clustering — a completed
// clustering; neither an insert_overwrite nor a pending clustering (action "clustering")
// counts.
func TestCommitsSinceLastClusteringByLayout(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		version                   int
		afterOverwrite, afterPlan int
	}{
		{6, 0, 0},
		{9, 2, 2},
	} {
		t.Run(fmt.Sprint("version", tc.version), func(t *testing.T) {
			tb := newTableVersion(t, "COPY_ON_WRITE", tc.version, map[string][]int{"a": {2, 2}})
			res, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true})
			if err != nil || !res.Completed {
				t.Fatalf("cluster: %+v %v", res, err)
			}
			m, _ := open(t, tb)
			if n, err := clustering.CommitsSinceLastClustering(ctx, m); err != nil || n != 0 {
				t.Fatalf("right after clustering: %d %v", n, err)
			}
			more := newTableVersion(t, "COPY_ON_WRITE", tc.version, map[string][]int{"a": {1}})
			scan, err := more.Scan(ctx, hudi.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var recs []arrow.Record
			if err := scan.Run(ctx, func(r arrow.Record) error { r.Retain(); recs = append(recs, r); return nil }); err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"insert", "insert_overwrite"} {
				if _, err := tb.Write(ctx, recs, hudi.WriteOptions{Operation: op}); err != nil {
					t.Fatalf("%s: %v", op, err)
				}
			}
			m, _ = open(t, tb)
			if n, err := clustering.CommitsSinceLastClustering(ctx, m); err != nil || n != tc.afterOverwrite {
				t.Errorf("after an insert and an insert_overwrite: %d (%v), want %d", n, err, tc.afterOverwrite)
			}
			if inst, _, err := clustering.Schedule(ctx, m.Storage, clustering.Options{SingleGroup: true}); err != nil || inst == "" {
				t.Fatalf("schedule: %q %v", inst, err)
			}
			m, _ = open(t, tb)
			if n, err := clustering.CommitsSinceLastClustering(ctx, m); err != nil || n != tc.afterPlan {
				t.Errorf("with a pending plan: %d (%v), want %d", n, err, tc.afterPlan)
			}
		})
	}
}
