package clean_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/read"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/services/clean"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage/local"
)

type row = map[string]any

// fixture is a table written by the facade with a controlled clock: commit i happens at
// base + i hours, so instants, slices and the BY_HOURS cutoff are predictable.
type fixture struct {
	t       *testing.T
	dir     string
	tb      *hudi.Table
	clock   time.Time
	commits []string // instants of the data commits, in order (1-based in the helpers)
}

var base = time.Date(2024, 5, 1, 10, 0, 0, 0, time.Local)

func newFixture(t *testing.T, typ string) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(context.Background(), dir, hudi.CreateOptions{Name: "tbl", Type: typ, RecordKeyFields: []string{"id"},
		PartitionFields: []string{"city"}, HiveStyle: true, PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v BIGINT, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, dir: dir, tb: tb, clock: base}
}

func (f *fixture) now() time.Time { return f.clock }

func (f *fixture) batches(rows []row) []arrow.Record {
	f.t.Helper()
	av, err := f.tb.SchemaAt(context.Background(), "")
	if err != nil {
		f.t.Fatal(err)
	}
	sc, err := schema.FromAvro(av)
	if err != nil {
		f.t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, r := range rows {
		b, _ := json.Marshal(r)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	var out []arrow.Record
	for rec, err := range jsonl.Decode(&buf, sc, memory.DefaultAllocator, 0) {
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// write commits one operation an hour after the previous one, with automatic cleaning
// off so each test decides when to clean.
func (f *fixture) write(op string, rows []row, extra ...string) string {
	f.t.Helper()
	f.clock = f.clock.Add(time.Hour)
	settings := map[string]string{"hoodie.clean.automatic": "false"}
	for i := 0; i+1 < len(extra); i += 2 {
		settings[extra[i]] = extra[i+1]
	}
	res, err := f.tb.Write(context.Background(), f.batches(rows), hudi.WriteOptions{Operation: op, Settings: settings, Now: f.now})
	if err != nil {
		f.t.Fatalf("%s: %v", op, err)
	}
	f.commits = append(f.commits, res.Instant)
	return res.Instant
}

func (f *fixture) upsert(v int, keys ...string) string {
	var rows []row
	for _, k := range keys {
		city := "sf"
		if strings.HasPrefix(k, "b") {
			city = "ny"
		}
		rows = append(rows, row{"id": k, "ts": v, "v": v, "city": city})
	}
	return f.write("upsert", rows)
}

// files returns the data files of the table (relative paths), with base files named
// "<partition>/base@<commit#>" and log files "<partition>/log@<base commit#>.<version>"
// when their instant is one of the fixture's commits, so expectations read easily.
func (f *fixture) files() []string {
	f.t.Helper()
	idx := map[string]string{}
	for i, c := range f.commits {
		idx[c] = fmt.Sprint(i + 1)
	}
	var out []string
	for _, part := range []string{"sf", "ny"} {
		entries, err := os.ReadDir(filepath.Join(f.dir, "city="+part))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if b, ok := spec.ParseBaseFileName(e.Name()); ok {
				out = append(out, part+"/base@"+name(idx, b.Instant))
			} else if l, ok := spec.ParseLogFileName(e.Name()); ok {
				out = append(out, fmt.Sprintf("%s/log@%s.%d", part, name(idx, l.Instant), l.Version))
			}
		}
	}
	sort.Strings(out)
	return out
}

func name(idx map[string]string, in spec.InstantTime) string {
	if n, ok := idx[string(in)]; ok {
		return n
	}
	return string(in)
}

func (f *fixture) clean(settings ...string) *hudi.CleanResult {
	f.t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(settings); i += 2 {
		m[settings[i]] = settings[i+1]
	}
	f.clock = f.clock.Add(30 * time.Minute)
	res, err := f.tb.Clean(context.Background(), hudi.CleanOptions{Settings: m, Now: f.now})
	if err != nil {
		f.t.Fatalf("clean %v: %v", settings, err)
	}
	return res
}

func minus(all, gone []string) []string {
	drop := map[string]bool{}
	for _, g := range gone {
		drop[g] = true
	}
	var out []string
	for _, a := range all {
		if !drop[a] {
			out = append(out, a)
		}
	}
	return out
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// cowHistory writes five commits: a (partition sf) changes in every commit, b (ny) in the
// first and fourth. Group a has slices @1..@5, group b @1 and @4.
func cowHistory(t *testing.T) *fixture {
	f := newFixture(t, "cow")
	f.write("insert", []row{{"id": "a", "ts": 1, "v": 1, "city": "sf"}, {"id": "b", "ts": 1, "v": 1, "city": "ny"}})
	f.upsert(2, "a")
	f.upsert(3, "a")
	f.upsert(4, "a", "b")
	f.upsert(5, "a")
	want := []string{"ny/base@1", "ny/base@4", "sf/base@1", "sf/base@2", "sf/base@3", "sf/base@4", "sf/base@5"}
	if got := f.files(); !equal(got, want) {
		t.Fatalf("history files %v, want %v", got, want)
	}
	return f
}

func TestPolicies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings []string
		deleted  []string
		earliest int // commit # recorded as earliestInstantToRetain, 0 = none
	}{
		// earliest = 4th commit: keep the latest slice, the slice a query at @4 reads
		// (@4 itself for a; @1 for b: its latest before @4) and everything from @4 on.
		{"commits=2", []string{"hoodie.cleaner.commits.retained", "2"}, []string{"sf/base@1", "sf/base@2"}, 4},
		{"commits=3", []string{"hoodie.cleaner.commits.retained", "3"}, []string{"sf/base@1"}, 3},
		{"commits=4", []string{"hoodie.cleaner.commits.retained", "4"}, nil, 2},
		{"commits=5 (not enough commits)", []string{"hoodie.cleaner.commits.retained", "5"}, nil, 0},
		{"commits=10 (default)", nil, nil, 0},
		{"explicit policy", []string{"hoodie.cleaner.policy", "KEEP_LATEST_COMMITS", "hoodie.cleaner.commits.retained", "1"},
			[]string{"ny/base@1", "sf/base@1", "sf/base@2", "sf/base@3"}, 5},
		{"versions=2", []string{"hoodie.cleaner.fileversions.retained", "2"}, []string{"sf/base@1", "sf/base@2", "sf/base@3"}, 0},
		{"versions=1", []string{"hoodie.cleaner.policy", "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained", "1"},
			[]string{"ny/base@1", "sf/base@1", "sf/base@2", "sf/base@3", "sf/base@4"}, 0},
		// Commits at 11:00 … 15:00, the clean at 15:30: 2 hours back is 13:30, and the
		// 4th commit (14:00) is the first inside.
		{"hours=2", []string{"hoodie.cleaner.hours.retained", "2"}, []string{"sf/base@1", "sf/base@2"}, 4},
		{"hours=100", []string{"hoodie.cleaner.hours.retained", "100"}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := cowHistory(t)
			before := f.files()
			res := f.clean(tc.settings...)
			if got, want := f.files(), minus(before, tc.deleted); !equal(got, want) {
				t.Errorf("kept %v\nwant %v", got, want)
			}
			if res.FilesDeleted != len(tc.deleted) || (len(tc.deleted) > 0) != (res.BytesDeleted > 0) {
				t.Errorf("result %+v", res)
			}
			wantEarliest := ""
			if tc.earliest > 0 {
				wantEarliest = f.commits[tc.earliest-1]
			}
			if len(tc.deleted) == 0 {
				if res.Instant != "" || !hasNoCleanFiles(t, f.dir) {
					t.Errorf("a clean that deletes nothing wrote instant %q", res.Instant)
				}
				return
			}
			m := cleanMetadata(t, f.dir, res.Instant)
			if m.EarliestCommitToRetain != wantEarliest || int(m.TotalFilesDeleted) != len(tc.deleted) ||
				m.LastCompletedCommitTimestamp != f.commits[4] || m.Version != 2 || m.StartCleanTime != res.Instant {
				t.Errorf("clean metadata %+v (want earliest %s)", m, wantEarliest)
			}
			// A second clean right away has nothing to do: no commit since the last.
			if again := f.clean(tc.settings...); again.Instant != "" || again.FilesDeleted != 0 {
				t.Errorf("second clean: %+v", again)
			}
		})
	}
}

func hasNoCleanFiles(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(filepath.Join(dir, ".hoodie"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".clean") {
			return false
		}
	}
	return true
}

func cleanMetadata(t *testing.T, dir, instant string) *commitmeta.CleanMetadata {
	t.Helper()
	for _, suffix := range []string{".clean.requested", ".clean.inflight"} {
		b, err := os.ReadFile(filepath.Join(dir, ".hoodie", instant+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := commitmeta.DecodeCleanerPlan(b); err != nil {
			t.Fatalf("%s%s: %v", instant, suffix, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ".hoodie", instant+".clean"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := commitmeta.DecodeClean(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPlanFileRecordsSelection checks the plan Java would read: absolute paths per
// partition, every scanned partition listed, earliest instant with action and state.
func TestPlanFileRecordsSelection(t *testing.T) {
	f := cowHistory(t)
	res := f.clean("hoodie.cleaner.commits.retained", "2")
	b, err := os.ReadFile(filepath.Join(f.dir, ".hoodie", res.Instant+".clean.requested"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := commitmeta.DecodeCleanerPlan(b)
	if err != nil {
		t.Fatal(err)
	}
	inflight, _ := os.ReadFile(filepath.Join(f.dir, ".hoodie", res.Instant+".clean.inflight"))
	if !bytes.Equal(inflight, b) {
		t.Error("clean.inflight does not hold the plan")
	}
	e := p.EarliestInstantToRetain
	if e == nil || e.Timestamp != f.commits[3] || e.Action != "commit" || e.State != "COMPLETED" || p.Policy != "KEEP_LATEST_COMMITS" ||
		p.Version != 2 || p.LastCompletedCommitTimestamp != f.commits[4] {
		t.Errorf("plan header %+v %+v", p, e)
	}
	if len(p.FilePathsToBeDeletedPerPartition) != 2 || len(p.FilePathsToBeDeletedPerPartition["city=ny"]) != 0 {
		t.Errorf("plan partitions %v", p.FilePathsToBeDeletedPerPartition)
	}
	for _, fi := range p.FilePathsToBeDeletedPerPartition["city=sf"] {
		// Java's Path.toString form: the absolute path with the scheme (CleanFileInfo).
		if !strings.HasPrefix(fi.FilePath, "file:/") || !strings.HasPrefix(fi.FilePath, "file:"+f.dir+"/city=sf/") {
			t.Errorf("plan path %q is not absolute under the table", fi.FilePath)
		}
	}
	m := cleanMetadata(t, f.dir, res.Instant)
	pm := m.PartitionMetadata["city=sf"]
	if len(pm.SuccessDeleteFiles) != 2 || len(pm.DeletePathPatterns) != 2 || len(pm.FailedDeleteFiles) != 0 || pm.Policy != "KEEP_LATEST_COMMITS" ||
		strings.Contains(pm.SuccessDeleteFiles[0], "/") {
		t.Errorf("partition metadata %+v", pm)
	}
}

// TestSavepointKeepsFiles: a completed savepoint's files survive every policy.
func TestSavepointKeepsFiles(t *testing.T) {
	f := cowHistory(t)
	// Savepoint the second commit: its latest slices are a@2 and b@1.
	sp := &commitmeta.SavepointMetadata{SavepointedBy: "test", SavepointedAt: 1, Comments: "",
		Partitions: map[string][]string{}, Version: 1}
	for _, rel := range dataFiles(t, f.dir) {
		b, ok := spec.ParseBaseFileName(filepath.Base(rel))
		if ok && (b.Instant == spec.InstantTime(f.commits[1]) || (b.Instant == spec.InstantTime(f.commits[0]) && strings.HasPrefix(rel, "city=ny"))) {
			part := filepath.Dir(rel)
			sp.Partitions[part] = append(sp.Partitions[part], filepath.Base(rel))
		}
	}
	body, err := commitmeta.EncodeSavepointMetadata(sp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, ".hoodie", f.commits[1]+".savepoint"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	before := f.files()
	f.clean("hoodie.cleaner.policy", "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained", "1")
	if got, want := f.files(), minus(before, []string{"sf/base@1", "sf/base@3", "sf/base@4"}); !equal(got, want) {
		t.Errorf("kept %v\nwant %v", got, want)
	}
}

func dataFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir
		}
		if _, ok := spec.ParseBaseFileName(d.Name()); ok {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// requestedClusteringSchema is the part of HoodieRequestedReplaceMetadata a cleaner reads.
const requestedClusteringSchema = `{"type":"record","name":"HoodieRequestedReplaceMetadata","namespace":"org.apache.hudi.avro.model","fields":[
	{"name":"operationType","type":["null","string"],"default":null},
	{"name":"clusteringPlan","type":["null",{"type":"record","name":"HoodieClusteringPlan","fields":[
		{"name":"inputGroups","type":["null",{"type":"array","items":{"type":"record","name":"HoodieClusteringGroup","fields":[
			{"name":"slices","type":["null",{"type":"array","items":{"type":"record","name":"HoodieSliceInfo","fields":[
				{"name":"dataFilePath","type":["null","string"],"default":null},
				{"name":"deltaFilePaths","type":["null",{"type":"array","items":"string"}],"default":null},
				{"name":"fileId","type":["null","string"]},
				{"name":"partitionPath","type":["null","string"],"default":null}]}}],"default":null}]}}],"default":null}]}],"default":null},
	{"name":"version","type":["int","null"],"default":1}]}`

// TestPendingClustering: a pending clustering is a pending replacecommit, so the earliest
// commit to retain stops before it (Java's CleanerUtils), and the plan's input files are
// never deleted.
func TestPendingClustering(t *testing.T) {
	f := cowHistory(t)
	var a2 string
	for _, rel := range dataFiles(t, f.dir) {
		if b, ok := spec.ParseBaseFileName(filepath.Base(rel)); ok && b.Instant == spec.InstantTime(f.commits[1]) {
			a2 = rel
		}
	}
	s, err := avro.Parse(requestedClusteringSchema)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := avro.WriteContainer(s, map[string]any{"operationType": "CLUSTER", "version": int32(1),
		"clusteringPlan": map[string]any{"inputGroups": []any{map[string]any{"slices": []any{map[string]any{
			"dataFilePath": f.dir + "/" + a2, "deltaFilePaths": []any{}, "fileId": "x", "partitionPath": "city=sf"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	// Requested between the 3rd and 4th commits.
	c3, _ := spec.InstantTime(f.commits[2]).Time(time.Local)
	pending := string(spec.InstantTimeOf(c3.Add(time.Minute), time.Local))
	if err := os.WriteFile(filepath.Join(f.dir, ".hoodie", pending+".replacecommit.requested"), plan, 0o644); err != nil {
		t.Fatal(err)
	}
	before := f.files()
	res := f.clean("hoodie.cleaner.commits.retained", "1")
	// Without the clustering: earliest @5, deleting ny@1, sf@1..3. With it: earliest @3
	// (the last commit before it), and a@2 is its input: only sf@1 goes.
	if got, want := f.files(), minus(before, []string{"sf/base@1"}); !equal(got, want) {
		t.Errorf("kept %v\nwant %v", got, want)
	}
	if res.EarliestInstantToRetain != f.commits[2] {
		t.Errorf("earliest %s, want %s", res.EarliestInstantToRetain, f.commits[2])
	}
}

// TestReplacedGroups: insert_overwrite replaces a group; it is deleted whole once its
// replacecommit is older than the earliest commit to retain; a partition left with
// nothing but replaced groups is deleted after delete_partition.
func TestReplacedGroups(t *testing.T) {
	f := cowHistory(t)
	f.write("insert_overwrite", []row{{"id": "b2", "ts": 6, "v": 6, "city": "ny"}}) // 6
	f.upsert(7, "a")                                                                // 7
	before := f.files()
	f.clean("hoodie.cleaner.commits.retained", "2") // earliest @6: the replace is not older
	if got, want := f.files(), minus(before, []string{"sf/base@1", "sf/base@2", "sf/base@3", "sf/base@4"}); !equal(got, want) {
		t.Errorf("after first clean %v\nwant %v", got, want)
	}
	f.upsert(8, "a") // 8
	before = f.files()
	f.clean("hoodie.cleaner.commits.retained", "2") // earliest @7 > @6: b's old group goes (a@5 is what @7's predecessor reads)
	if got, want := f.files(), minus(before, []string{"ny/base@1", "ny/base@4"}); !equal(got, want) {
		t.Errorf("after second clean %v\nwant %v", got, want)
	}

	f.write("delete_partition", nil, "hoodie.datasource.write.partitions.to.delete", "city=ny") // 9
	f.upsert(10, "a")
	f.upsert(11, "a")
	res := f.clean("hoodie.cleaner.commits.retained", "2") // earliest @10 > @9
	if _, err := os.Stat(filepath.Join(f.dir, "city=ny")); !os.IsNotExist(err) {
		t.Errorf("partition city=ny not deleted: %v (%+v)", err, res)
	}
	if len(res.PartitionsDeleted) != 1 || res.PartitionsDeleted[0] != "city=ny" {
		t.Errorf("result %+v", res)
	}
	m := cleanMetadata(t, f.dir, res.Instant)
	if !m.PartitionMetadata["city=ny"].IsPartitionDeleted {
		t.Errorf("clean metadata does not record the partition deletion: %+v", m.PartitionMetadata)
	}
	rows := scan(t, f.dir, read.Options{})
	if len(rows) != 1 {
		t.Errorf("snapshot after cleaning %d rows, want 1 (a)", len(rows))
	}
}

// TestMORPendingCompaction: merge-on-read slices are deleted whole (base + logs), and the
// slice a pending compaction reads stays.
func TestMORPendingCompaction(t *testing.T) {
	f := newFixture(t, "mor")
	f.write("insert", []row{{"id": "a", "ts": 1, "v": 1, "city": "sf"}}) // 1: base a@1
	f.upsert(2, "a")                                                     // 2: log on @1
	f.clock = f.clock.Add(time.Hour)
	cres, err := f.tb.Compact(context.Background(), hudi.CompactOptions{Now: f.now}) // 3: base a@3
	if err != nil || !cres.Completed {
		t.Fatalf("compact: %v %+v", err, cres)
	}
	f.commits = append(f.commits, cres.Instant)
	f.upsert(4, "a") // 4: log on @3
	f.clock = f.clock.Add(time.Hour)
	sched, err := f.tb.Compact(context.Background(), hudi.CompactOptions{Schedule: true, Now: f.now}) // 5: pending, base @3
	if err != nil || sched.Scheduled == "" {
		t.Fatalf("schedule compaction: %v %+v", err, sched)
	}
	f.commits = append(f.commits, sched.Scheduled)
	f.upsert(6, "a") // 6: log on the pending compaction @5
	want := []string{"sf/base@1", "sf/base@3", "sf/log@1.1", "sf/log@3.1", "sf/log@5.1"}
	if got := f.files(); !equal(got, want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	for _, tc := range []struct {
		name     string
		settings []string
		deleted  []string
	}{
		// Slices: @3 (base + log, needed by the pending compaction) and @1. The pending
		// compaction's own slice @5 is not committed and never a candidate.
		{"versions=1", []string{"hoodie.cleaner.fileversions.retained", "1"}, []string{"sf/base@1", "sf/log@1.1"}},
		{"versions=2", []string{"hoodie.cleaner.fileversions.retained", "2"}, nil},
		// 5 completed commits; the 5th from the end is @6, but the pending compaction @5
		// caps the earliest commit to retain at @4.
		{"commits=1", []string{"hoodie.cleaner.commits.retained", "1"}, []string{"sf/base@1", "sf/log@1.1"}},
		{"commits=4", []string{"hoodie.cleaner.commits.retained", "4"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := *f
			g.t = t
			g.dir = filepath.Join(t.TempDir(), "tbl")
			if err := os.CopyFS(g.dir, os.DirFS(f.dir)); err != nil {
				t.Fatal(err)
			}
			var err error
			if g.tb, err = hudi.Open(context.Background(), g.dir); err != nil {
				t.Fatal(err)
			}
			before := g.files()
			res := g.clean(tc.settings...)
			if got, want := g.files(), minus(before, tc.deleted); !equal(got, want) {
				t.Errorf("kept %v\nwant %v", got, want)
			}
			if tc.name == "commits=1" && res.EarliestInstantToRetain != f.commits[3] {
				t.Errorf("earliest %s, want %s", res.EarliestInstantToRetain, f.commits[3])
			}
			if rows := scan(t, g.dir, read.Options{}); len(rows) != 1 || !strings.Contains(rows[0], `"v":6`) {
				t.Errorf("snapshot after clean: %v", rows)
			}
		})
	}
}

func scan(t *testing.T, dir string, o read.Options) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.Open(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	s, err := read.Plan(ctx, tbl, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := jsonl.NewEncoder(&buf, jsonl.Options{DropMetaColumns: true})
	if err := s.Run(ctx, func(r arrow.Record) error { return enc.WriteRecord(r) }); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	return strings.Fields(buf.String())
}

// TestDryRunChangesNothing, and the read guard: a time travel to before the retention
// fails naming the earliest instant that can be queried.
func TestDryRunAndReadGuard(t *testing.T) {
	f := cowHistory(t)
	before := f.files()
	hoodie := func() []string {
		entries, _ := os.ReadDir(filepath.Join(f.dir, ".hoodie"))
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	tl := hoodie()
	res, err := f.tb.Clean(context.Background(), hudi.CleanOptions{DryRun: true, Settings: map[string]string{"hoodie.cleaner.commits.retained": "2"}, Now: f.now})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || res.FilesDeleted != 2 || len(res.Files) != 2 || res.BytesDeleted <= 0 || res.Instant != "" ||
		!strings.HasPrefix(res.Files[0], "city=sf/") || res.EarliestInstantToRetain != f.commits[3] {
		t.Errorf("dry run %+v", res)
	}
	if !equal(f.files(), before) || !equal(hoodie(), tl) {
		t.Error("dry run changed the table")
	}

	asOf := func(i int) error {
		ctx := context.Background()
		tbl, err := table.Open(ctx, local.New(f.dir))
		if err != nil {
			t.Fatal(err)
		}
		_, err = read.Plan(ctx, tbl, read.Options{AsOf: spec.InstantTime(f.commits[i-1])})
		return err
	}
	if err := asOf(2); err != nil {
		t.Fatalf("time travel before any clean: %v", err)
	}
	f.clean("hoodie.cleaner.commits.retained", "2")
	err = asOf(3)
	if !errors.Is(err, read.ErrCleaned) || !strings.Contains(err.Error(), f.commits[3]) || !strings.Contains(err.Error(), f.commits[2]) {
		t.Errorf("time travel to a cleaned instant: %v", err)
	}
	if err := asOf(4); err != nil {
		t.Errorf("time travel to the earliest retained instant: %v", err)
	}
	ctx := context.Background()
	tbl, _ := table.Open(ctx, local.New(f.dir))
	_, err = read.Plan(ctx, tbl, read.Options{Incremental: true, Begin: spec.ZeroInstant, End: spec.InstantTime(f.commits[1])})
	if !errors.Is(err, read.ErrCleaned) || !strings.Contains(err.Error(), "incremental") {
		t.Errorf("incremental query ending at a cleaned instant: %v", err)
	}
	// From before the retention up to now is fine: it reads the latest state.
	if _, err := read.Plan(ctx, tbl, read.Options{Incremental: true, Begin: spec.ZeroInstant}); err != nil {
		t.Errorf("incremental query to the latest instant: %v", err)
	}
	if got := scan(t, f.dir, read.Options{AsOf: spec.InstantTime(f.commits[3])}); len(got) != 2 {
		t.Errorf("time travel to @4 after clean: %v", got)
	}
}

// TestInterruptedClean: a clean killed after writing its plan is finished by the next
// run, and files already gone count as failed deletes, as in Java.
func TestInterruptedClean(t *testing.T) {
	f := cowHistory(t)
	st := local.New(f.dir)
	o := clean.Options{CommitsRetained: 2, Now: f.now}
	inst, sel, err := clean.Schedule(context.Background(), st, o)
	if err != nil || inst == "" || len(sel.Files) != 2 {
		t.Fatalf("schedule: %v %q %+v", err, inst, sel)
	}
	if err := os.Remove(filepath.Join(f.dir, sel.Files[0].Path)); err != nil {
		t.Fatal(err)
	}
	res, err := clean.Run(context.Background(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instant != string(inst) || res.FilesDeleted != 1 || res.FailedDeletes != 1 {
		t.Errorf("finished clean %+v", res)
	}
	m := cleanMetadata(t, f.dir, string(inst))
	if pm := m.PartitionMetadata["city=sf"]; len(pm.FailedDeleteFiles) != 1 || len(pm.SuccessDeleteFiles) != 1 {
		t.Errorf("partition metadata %+v", pm)
	}
}

func TestOptionsFromSettings(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]string
		want     clean.Policy
		err      bool
	}{
		{nil, clean.KeepLatestCommits, false},
		{map[string]string{"hoodie.cleaner.fileversions.retained": "2"}, clean.KeepLatestFileVersions, false},
		{map[string]string{"hoodie.cleaner.hours.retained": "2"}, clean.KeepLatestByHours, false},
		{map[string]string{"hoodie.cleaner.hours.retained": "2", "hoodie.cleaner.commits.retained": "3"}, clean.KeepLatestCommits, false},
		{map[string]string{"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.commits.retained": "3"}, clean.KeepLatestFileVersions, false},
		{map[string]string{"hoodie.cleaner.commits.retained": "0"}, "", true},
	} {
		f := newFixture(t, "cow")
		_, err := f.tb.Clean(context.Background(), hudi.CleanOptions{DryRun: true, Settings: tc.settings})
		if (err != nil) != tc.err {
			t.Errorf("%v: error %v", tc.settings, err)
			continue
		}
		if err == nil {
			res, _ := f.tb.Clean(context.Background(), hudi.CleanOptions{DryRun: true, Settings: tc.settings})
			if res.Policy != string(tc.want) {
				t.Errorf("%v: policy %s, want %s", tc.settings, res.Policy, tc.want)
			}
		}
	}
}

// TestAutomaticClean: with Hudi's defaults a clean runs after every write and keeps ten
// commits.
func TestAutomaticClean(t *testing.T) {
	f := newFixture(t, "cow")
	for i := 1; i <= 12; i++ {
		f.clock = f.clock.Add(time.Hour)
		res, err := f.tb.Write(context.Background(), f.batches([]row{{"id": "a", "ts": i, "v": i, "city": "sf"}}),
			hudi.WriteOptions{Now: f.now})
		if err != nil {
			t.Fatal(err)
		}
		f.commits = append(f.commits, res.Instant)
	}
	// After commit 11 the earliest retained is @2 (deleting nothing: @1 is the slice a
	// query at @2 reads); after commit 12 it is @3, and @1 goes.
	want := []string{}
	for i := 2; i <= 12; i++ {
		want = append(want, fmt.Sprintf("sf/base@%d", i))
	}
	sort.Strings(want)
	if got := f.files(); !equal(got, want) {
		t.Errorf("files %v\nwant %v", got, want)
	}
}
