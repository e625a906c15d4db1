package fsview

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

// build is Build with a background context, failing the test on an error.
func build(t *testing.T, l *Listing, tl *timeline.Timeline, opts Options) *View {
	t.Helper()
	v, err := Build(context.Background(), l, tl, opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Instant times used by the tests are ts(n) = "20250101000000" + %03d n, printed back as n.
const tsPrefix = "20250101000000"

func ts(n int) spec.InstantTime       { return spec.InstantTime(fmt.Sprintf("%s%03d", tsPrefix, n)) }
func short(t spec.InstantTime) string { return strings.TrimPrefix(string(t), tsPrefix) }

func baseName(fg string, n int) string { return fmt.Sprintf("%s_0-1-1_%s.parquet", fg, ts(n)) }
func baseTok(fg, tok string, n int) string {
	return fmt.Sprintf("%s_%s_%s.parquet", fg, tok, ts(n))
}
func logName(fg string, n, ver int) string { return fmt.Sprintf(".%s_%s.log.%d_0-1-1", fg, ts(n), ver) }

// v1 timeline file names (layout 1).
func v1Commit(n int) []string {
	return []string{fmt.Sprintf("%s.commit.requested", ts(n)), fmt.Sprintf("%s.inflight", ts(n)), fmt.Sprintf("%s.commit", ts(n))}
}
func v1Inflight(n int) []string {
	return []string{fmt.Sprintf("%s.commit.requested", ts(n)), fmt.Sprintf("%s.inflight", ts(n))}
}
func v1Requested(n int) []string { return []string{fmt.Sprintf("%s.commit.requested", ts(n))} }
func v1Delta(n int) []string {
	return []string{fmt.Sprintf("%s.deltacommit.requested", ts(n)), fmt.Sprintf("%s.deltacommit.inflight", ts(n)), fmt.Sprintf("%s.deltacommit", ts(n))}
}
func v1DeltaInflight(n int) []string {
	return []string{fmt.Sprintf("%s.deltacommit.requested", ts(n)), fmt.Sprintf("%s.deltacommit.inflight", ts(n))}
}
func v1CompactionPending(n int) []string {
	return []string{fmt.Sprintf("%s.compaction.requested", ts(n))}
}
func v1CompactionDone(n int) []string {
	return []string{fmt.Sprintf("%s.compaction.requested", ts(n)), fmt.Sprintf("%s.compaction.inflight", ts(n)), fmt.Sprintf("%s.commit", ts(n))}
}
func v1Replace(n int) []string {
	return []string{fmt.Sprintf("%s.replacecommit.requested", ts(n)), fmt.Sprintf("%s.replacecommit.inflight", ts(n)), fmt.Sprintf("%s.replacecommit", ts(n))}
}
func v1Clean(n int) []string {
	return []string{fmt.Sprintf("%s.clean.requested", ts(n)), fmt.Sprintf("%s.clean.inflight", ts(n)), fmt.Sprintf("%s.clean", ts(n))}
}

// v2 timeline file names (layout 2).
func v2Done(n, completion int, action string) []string {
	return []string{fmt.Sprintf("%s.%s.requested", ts(n), action), fmt.Sprintf("%s_%s.%s", ts(n), ts(completion), action)}
}
func v2Delta(n, c int) []string { return v2Done(n, c, "deltacommit") }
func v2Commit(n, c int) []string {
	return []string{fmt.Sprintf("%s.commit.requested", ts(n)), fmt.Sprintf("%s.commit.inflight", ts(n)), fmt.Sprintf("%s_%s.commit", ts(n), ts(c))}
}
func v2DeltaPending(n int) []string {
	return []string{fmt.Sprintf("%s.deltacommit.requested", ts(n)), fmt.Sprintf("%s.deltacommit.inflight", ts(n))}
}
func v2CompactionPending(n int) []string {
	return []string{fmt.Sprintf("%s.compaction.requested", ts(n)), fmt.Sprintf("%s.compaction.inflight", ts(n))}
}
func v2CompactionDone(n, c int) []string {
	return []string{fmt.Sprintf("%s.compaction.requested", ts(n)), fmt.Sprintf("%s.compaction.inflight", ts(n)), fmt.Sprintf("%s_%s.commit", ts(n), ts(c))}
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func listing(partition string, names ...string) *Listing {
	pf := PartitionFiles{Path: partition}
	pf.Files = append(pf.Files, storage.FileInfo{Name: PartitionMetadataFile, Size: 10})
	for i, n := range names {
		pf.Files = append(pf.Files, storage.FileInfo{Name: n, Size: int64(100 + i)})
	}
	return &Listing{Partitions: []PartitionFiles{pf}}
}

// describe renders a view as fileID -> slices, each slice "<baseInstant>:b<baseFileInstant>|l<logInstant>.<ver>,…"
// ("-" for no base file). Instants are printed in their short form.
func describe(t *testing.T, v *View) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, g := range v.Groups {
		key := string(g.FileID)
		if g.Partition != "" {
			key = g.Partition + "/" + key
		}
		if _, dup := out[key]; dup {
			t.Errorf("file group %s appears twice", key)
		}
		var slices []string
		for _, s := range g.Slices {
			if s.FileID != g.FileID || s.Partition != g.Partition {
				t.Errorf("slice %+v has wrong group identity (group %s/%s)", s, g.Partition, g.FileID)
			}
			b := "-"
			if s.Base != nil {
				b = "b" + short(s.Base.Name.Instant)
				if s.Base.Name.Instant != s.BaseInstant {
					t.Errorf("slice base instant %s but base file %s", s.BaseInstant, s.Base.Name)
				}
				if want := storage.Join(g.Partition, s.Base.Name.String()); s.Base.Path != want {
					t.Errorf("base path %q, want %q", s.Base.Path, want)
				}
				if s.Base.Size <= 0 {
					t.Errorf("base %s: size %d not carried from the listing", s.Base.Path, s.Base.Size)
				}
			}
			var logs []string
			for _, l := range s.Logs {
				logs = append(logs, fmt.Sprintf("l%s.%d", short(l.Name.Instant), l.Name.Version))
				if want := storage.Join(g.Partition, l.Name.String()); l.Path != want {
					t.Errorf("log path %q, want %q", l.Path, want)
				}
			}
			d := short(s.BaseInstant) + ":" + b
			if len(logs) > 0 {
				d += "|" + strings.Join(logs, ",")
			}
			slices = append(slices, d)
		}
		out[key] = slices
	}
	return out
}

type viewCase struct {
	name     string
	timeline []string
	files    []string
	opts     Options
	want     map[string][]string
}

func runViewCases(t *testing.T, layout int, dir string, cases []viewCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := timeline.FromFileNames(layoutOf(t, layout), dir, c.timeline)
			v := build(t, listing("p", c.files...), tl, c.opts)
			got := describe(t, v)
			want := map[string][]string{}
			for k, s := range c.want {
				want["p/"+k] = s
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("view mismatch\n got %v\nwant %v", got, want)
			}
			// Groups are sorted by partition then file ID.
			if !sort.SliceIsSorted(v.Groups, func(i, j int) bool { return v.Groups[i].FileID < v.Groups[j].FileID }) {
				t.Errorf("groups not sorted by file ID")
			}
		})
	}
}

func TestBuildLayout1(t *testing.T) {
	cowTimeline := concat(v1Commit(1), v1Commit(2), v1Inflight(3), v1Requested(5), v1Commit(7))
	cowFiles := []string{
		baseName("A", 1), baseName("A", 2), baseName("A", 3), baseName("A", 5), baseName("A", 6), baseName("A", 7),
		baseName("B", 0), // older than the first active instant: archived, counts as committed
		baseName("C", 3), // only an uncommitted version: no group at all
		"A_0-1-1_" + string(ts(2)) + ".parquet.crc", ".hoodie_partition_metadata.crc", "junk.txt",
	}
	morTimeline := concat(v1Commit(1), v1Delta(2), v1Delta(3), v1CompactionPending(4), v1Delta(5), v1DeltaInflight(6))
	morFiles := []string{
		baseName("M", 1), logName("M", 1, 1), logName("M", 1, 2), logName("M", 1, 10),
		baseName("M", 4),                       // partial output of the pending compaction: uncommitted
		logName("M", 4, 1),                     // written by deltacommit 5 against the pending compaction
		logName("L", 2, 1), logName("L", 2, 2), // log-only group
		logName("M", 1, 3) + ".cdc", // CDC logs are not data
		logName("M", 1, 4) + "-cdc", // nor are Hudi 0.14's
	}
	morDoneTimeline := concat(v1Commit(1), v1Delta(2), v1Delta(3), v1CompactionDone(4), v1Delta(5))
	runViewCases(t, 1, ".hoodie", []viewCase{
		{
			name:     "cow committed versions only",
			timeline: cowTimeline,
			files:    cowFiles,
			want: map[string][]string{
				"A": {"001:b001", "002:b002", "007:b007"},
				"B": {"000:b000"},
			},
		},
		{
			name:     "cow as of 2",
			timeline: cowTimeline,
			files:    cowFiles,
			opts:     Options{AsOf: ts(2)},
			want: map[string][]string{
				"A": {"001:b001", "002:b002"},
				"B": {"000:b000"},
			},
		},
		{
			name:     "cow as of 1",
			timeline: cowTimeline,
			files:    cowFiles,
			opts:     Options{AsOf: ts(1)},
			want:     map[string][]string{"A": {"001:b001"}, "B": {"000:b000"}},
		},
		{
			name:     "cow replaced group excluded",
			timeline: concat(cowTimeline, v1Replace(8)),
			files:    append(append([]string{}, cowFiles...), baseName("R", 8), logName("A", 7, 1)),
			opts:     Options{Replaced: map[string]map[spec.FileID]bool{"p": {"A": true}, "other": {"B": true}}},
			want:     map[string][]string{"B": {"000:b000"}, "R": {"008:b008"}},
		},
		{
			name:     "retried task: two base files of one instant",
			timeline: cowTimeline,
			files:    []string{baseTok("A", "0-1-1", 2), baseTok("A", "0-1-2", 2)},
			want:     map[string][]string{"A": {"002:b002"}},
		},
		{
			name:     "clean instant first: older files still archived-committed",
			timeline: concat(v1Clean(1), v1Commit(2)),
			files:    []string{baseName("A", 0), baseName("A", 2), baseName("B", 1)},
			// Java asks the write timeline (which starts at 002) whether 001 is before the
			// start: a clean or rollback does not start it (archival moves those by their own
			// rules and may leave one older than archived commits), so 001 counts as archived.
			want: map[string][]string{"A": {"000:b000", "002:b002"}, "B": {"001:b001"}},
		},
		{
			name:     "mor pending compaction merges into previous slice",
			timeline: morTimeline,
			files:    morFiles,
			want: map[string][]string{
				"M": {"001:b001|l001.1,l001.2,l001.10,l004.1"},
				"L": {"002:-|l002.1,l002.2"},
			},
		},
		{
			name:     "mor compaction committed forms new slice",
			timeline: morDoneTimeline,
			files:    morFiles,
			want: map[string][]string{
				"M": {"001:b001|l001.1,l001.2,l001.10", "004:b004|l004.1"},
				"L": {"002:-|l002.1,l002.2"},
			},
		},
		{
			name:     "mor compaction committed, as of 3",
			timeline: morDoneTimeline,
			files:    morFiles,
			opts:     Options{AsOf: ts(3)},
			want: map[string][]string{
				// the compacted base file is later than the query: the pending-compaction view
				"M": {"001:b001|l001.1,l001.2,l001.10,l004.1"},
				"L": {"002:-|l002.1,l002.2"},
			},
		},
	})
}

func TestBuildLayout2(t *testing.T) {
	tlBase := concat(
		v2Commit(1, 2),     // base of E
		v2Delta(3, 4),      // log .E_003
		v2DeltaPending(5),  // log .E_005: uncommitted
		v2Delta(6, 11),     // requested before the compaction, completed after it
		v2Delta(8, 9),      // requested and completed while the compaction ran
		v2DeltaPending(12), // uncommitted
		v2Delta(13, 14),    // after the compaction completed
	)
	files := []string{
		baseName("E", 1), logName("E", 3, 1), logName("E", 5, 1), logName("E", 6, 1), logName("E", 8, 1),
		logName("E", 12, 1), logName("E", 13, 1),
		baseName("E", 7),                       // compaction output
		logName("F", 3, 1), logName("F", 5, 1), // log-only group
		logName("G", 5, 1), // log-only group, uncommitted only: no group
		baseName("H", 0),   // older than the active timeline: archived, committed
	}
	done := concat(tlBase, v2CompactionDone(7, 10))
	pending := concat(tlBase, v2CompactionPending(7))
	runViewCases(t, 2, ".hoodie/timeline", []viewCase{
		{
			name:     "compaction committed",
			timeline: done,
			files:    files,
			want: map[string][]string{
				"E": {"001:b001|l003.1", "007:b007|l008.1,l006.1,l013.1"},
				"F": {"003:-|l003.1"},
				"H": {"000:b000"},
			},
		},
		{
			name:     "compaction pending",
			timeline: pending,
			files:    files,
			want: map[string][]string{
				"E": {"001:b001|l003.1,l008.1,l006.1,l013.1"},
				"F": {"003:-|l003.1"},
				"H": {"000:b000"},
			},
		},
		{
			name:     "as of 4",
			timeline: done,
			files:    files,
			opts:     Options{AsOf: ts(4)},
			want: map[string][]string{
				"E": {"001:b001|l003.1"},
				"F": {"003:-|l003.1"},
				"H": {"000:b000"},
			},
		},
		{
			name:     "as of 3 (requested time of the deltacommit)",
			timeline: done,
			files:    files,
			opts:     Options{AsOf: ts(3)},
			want: map[string][]string{
				"E": {"001:b001|l003.1"},
				"F": {"003:-|l003.1"},
				"H": {"000:b000"},
			},
		},
		{
			name:     "as of 2",
			timeline: done,
			files:    files,
			opts:     Options{AsOf: ts(2)},
			want:     map[string][]string{"E": {"001:b001"}, "H": {"000:b000"}},
		},
		{
			name:     "as of 8",
			timeline: done,
			files:    files,
			opts:     Options{AsOf: ts(8)},
			want: map[string][]string{
				"E": {"001:b001|l003.1", "007:b007|l008.1,l006.1"},
				"F": {"003:-|l003.1"},
				"H": {"000:b000"},
			},
		},
		{
			name:     "replaced",
			timeline: done,
			files:    files,
			opts:     Options{Replaced: map[string]map[spec.FileID]bool{"p": {"E": true}}},
			want:     map[string][]string{"F": {"003:-|l003.1"}, "H": {"000:b000"}},
		},
	})
}

func TestLayout2LogCompletion(t *testing.T) {
	tl := timeline.FromFileNames(timeline.LayoutV2, ".hoodie/timeline", concat(v2Commit(1, 2), v2Delta(6, 11), v2Delta(8, 9)))
	v := build(t, listing("", baseName("E", 1), logName("E", 6, 1), logName("E", 8, 1)), tl, Options{})
	if len(v.Groups) != 1 {
		t.Fatalf("groups: %d", len(v.Groups))
	}
	s := v.Groups[0].Latest()
	if s.Base == nil || s.Base.Path != baseName("E", 1) {
		t.Fatalf("non-partitioned base path: %+v", s.Base)
	}
	var got []string
	for _, l := range s.Logs {
		got = append(got, short(l.Name.Instant)+"@"+short(l.Completion))
	}
	if want := []string{"008@009", "006@011"}; !reflect.DeepEqual(got, want) {
		t.Errorf("logs %v, want %v (ordered by completion time)", got, want)
	}
	if p := v.Partitions(); !reflect.DeepEqual(p, []string{""}) {
		t.Errorf("partitions %q", p)
	}
}

func TestVisibility(t *testing.T) {
	tl1 := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", concat(v1Commit(2), v1Inflight(3), v1Delta(4), v1Clean(5), v1CompactionPending(6), v1Replace(7)))
	tl2 := timeline.FromFileNames(timeline.LayoutV2, ".hoodie/timeline", concat(v2Commit(2, 3), v2DeltaPending(4), v2Delta(5, 9)))
	for _, c := range []struct {
		tl        *timeline.Timeline
		asOf      spec.InstantTime
		n         int
		committed bool
		completed spec.InstantTime
	}{
		{tl1, "", 1, true, ts(1)}, // before start: archived
		{tl1, "", 2, true, ts(2)},
		{tl1, "", 3, false, ts(3)},
		{tl1, "", 4, true, ts(4)},
		{tl1, "", 5, false, ts(5)}, // clean: not a data instant
		{tl1, "", 6, false, ts(6)}, // pending compaction
		{tl1, "", 7, true, ts(7)},
		{tl1, "", 8, false, ts(8)},
		{tl1, ts(2), 4, false, ts(4)},
		{tl1, ts(4), 4, true, ts(4)},
		{tl1, ts(2), 1, true, ts(1)},
		{tl2, "", 1, true, ts(1)}, // before start: archived, on layout 2 as well
		{tl2, "", 2, true, ts(3)},
		{tl2, "", 4, false, ts(4)},
		{tl2, "", 5, true, ts(9)},
		{tl2, ts(8), 5, true, ts(9)}, // as-of compares requested time
		{tl2, ts(4), 5, false, ts(9)},
	} {
		v := NewVisibility(c.tl, c.asOf)
		if got := v.Committed(ts(c.n)); got != c.committed {
			t.Errorf("layout %d asOf %q: Committed(%03d) = %v, want %v", c.tl.Layout.Version(), c.asOf, c.n, got, c.committed)
		}
		if got, err := v.CompletionTime(context.Background(), ts(c.n)); err != nil || got != c.completed {
			t.Errorf("layout %d: CompletionTime(%03d) = %s, want %s", c.tl.Layout.Version(), c.n, got, c.completed)
		}
	}
}

func TestMultiplePartitionsSorted(t *testing.T) {
	tl := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", v1Commit(1))
	l := &Listing{}
	for _, p := range []string{"a=1", "a=2"} {
		l.Partitions = append(l.Partitions, PartitionFiles{Path: p, Files: []storage.FileInfo{
			{Name: baseName("Z", 1)}, {Name: baseName("Y", 1)},
		}})
	}
	v := build(t, l, tl, Options{Replaced: map[string]map[spec.FileID]bool{"a=2": {"Y": true}}})
	var got []string
	for _, g := range v.Groups {
		got = append(got, g.Partition+"/"+string(g.FileID))
	}
	if want := []string{"a=1/Y", "a=1/Z", "a=2/Z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	if p := v.Partitions(); !reflect.DeepEqual(p, []string{"a=1", "a=2"}) {
		t.Errorf("partitions %v", p)
	}
	ls := v.LatestSlices()
	if len(ls) != 3 || ls[0].Base.Path != "a=1/"+baseName("Y", 1) {
		t.Errorf("latest slices %+v", ls)
	}
}

func writeFile(t *testing.T, root, rel string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func listingSummary(l *Listing) map[string][]string {
	out := map[string][]string{}
	for _, p := range l.Partitions {
		var names []string
		for _, f := range p.Files {
			names = append(names, f.Name)
		}
		sort.Strings(names)
		out[p.Path] = names
	}
	return out
}

func TestListPartitions(t *testing.T) {
	pm := PartitionMetadataFile
	cases := []struct {
		name  string
		files []string
		dirs  []string
		want  map[string][]string
		order []string
	}{
		{
			name: "hive style nested",
			files: []string{
				".hoodie/hoodie.properties", ".hoodie/20250101000000001.commit",
				".hoodie/metadata/files/" + pm, ".hoodie/metadata/files/x.hfile", // MDT partitions live under .hoodie
				"year=2024/month=01/" + pm, "year=2024/month=01/" + baseName("A", 1), "year=2024/month=01/" + logName("A", 1, 1),
				"year=2024/month=02/" + pm + ".parquet", "year=2024/month=02/" + baseName("B", 1),
				"year=2023/month=12/" + pm, // empty partition: still a partition
				"year=2024/notes.txt",      // intermediate directory, no metadata
				"nometa/" + baseName("C", 1),
				".hidden/x=1/" + pm, ".hidden/x=1/" + baseName("D", 1),
				"_tmp/" + pm,                   // "_" directories are not hidden
				"year=2024/month=01/sub/" + pm, // below a partition: not searched
			},
			dirs: []string{"year=2024/month=03", "emptydir"},
			want: map[string][]string{
				"_tmp":               {pm},
				"year=2023/month=12": {pm},
				"year=2024/month=01": {logName("A", 1, 1), pm, baseName("A", 1)},
				"year=2024/month=02": {pm + ".parquet", baseName("B", 1)},
			},
			order: []string{"_tmp", "year=2023/month=12", "year=2024/month=01", "year=2024/month=02"},
		},
		{
			name: "non-partitioned root",
			files: []string{
				".hoodie/hoodie.properties", pm, baseName("A", 1), logName("A", 1, 1),
				".hoodie/metadata/files/" + pm,
			},
			want:  map[string][]string{"": {logName("A", 1, 1), pm, baseName("A", 1)}},
			order: []string{""},
		},
		{
			name:  "no partitions",
			files: []string{".hoodie/hoodie.properties", "a/b.parquet"},
			want:  map[string][]string{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range c.files {
				writeFile(t, root, f)
			}
			for _, d := range c.dirs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			l, err := ListPartitions(context.Background(), local.New(root))
			if err != nil {
				t.Fatal(err)
			}
			got := listingSummary(l)
			for k, v := range c.want {
				sort.Strings(v)
				c.want[k] = v
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("partitions\n got %v\nwant %v", got, c.want)
			}
			var order []string
			for _, p := range l.Partitions {
				order = append(order, p.Path)
				for _, f := range p.Files {
					if f.IsDir {
						t.Errorf("partition %q lists directory %q as a file", p.Path, f.Name)
					}
				}
			}
			if !reflect.DeepEqual(order, c.order) {
				t.Errorf("partition order %q, want %q", order, c.order)
			}
			// Listing the known partitions directly gives the same result; a missing
			// directory and one without partition metadata are left out.
			asked := append([]string{"missing", "year=2024", "nometa"}, c.order...)
			some, err := ListPartitionsIn(context.Background(), local.New(root), append(asked, c.order...))
			if err != nil {
				t.Fatal(err)
			}
			if got := listingSummary(some); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ListPartitionsIn(%q)\n got %v\nwant %v", asked, got, c.want)
			}
		})
	}
}

func TestListPartitionsMissingRoot(t *testing.T) {
	_, err := ListPartitions(context.Background(), local.New(filepath.Join(t.TempDir(), "missing")))
	if err == nil {
		t.Fatal("listing a missing table root succeeded")
	}
}

// TestBuildFromListing runs ListPartitions and Build together on a small layout-1 table.
func TestBuildFromListing(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"a=1/" + PartitionMetadataFile, "a=1/" + baseName("A", 1), "a=1/" + logName("A", 1, 1),
		"a=2/" + PartitionMetadataFile, "a=2/" + baseName("B", 2),
	} {
		writeFile(t, root, f)
	}
	l, err := ListPartitions(context.Background(), local.New(root))
	if err != nil {
		t.Fatal(err)
	}
	tl := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", concat(v1Commit(1), v1Inflight(2)))
	got := describe(t, build(t, l, tl, Options{}))
	want := map[string][]string{"a=1/A": {"001:b001|l001.1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func layoutOf(t *testing.T, n int) timeline.Layout {
	t.Helper()
	l, ok := timeline.LayoutByVersion(n)
	if !ok {
		t.Fatalf("no timeline layout %d", n)
	}
	return l
}

// TestBuildLayout2ArchivedCompletion: the log of a deltacommit older than the active
// timeline joins the slice its completion time, read from the LSM history, falls in
// (HoodieFileGroup.getBaseInstantTime asking CompletionTimeQueryViewV2). Deltacommit 3 was
// requested before compaction 5 and completed at 8, after it: its log belongs to the slice
// of 5. Deltacommit 2 completed at 4, before: the slice of 1. Both, and the compaction, are
// archived. Before the archived completion times were read, the log of 3 fell back to its
// instant time and joined the slice of 1, which the snapshot no longer reads. A timeline
// without an archive keeps that fallback; a view with no log older than the active
// timeline never reads the history (a broken one does not fail it); one that needs it and
// cannot read it fails, naming the log.
func TestBuildLayout2ArchivedCompletion(t *testing.T) {
	ctx := context.Background()
	st := local.New(t.TempDir())
	history := timeline.LayoutV2.ArchiveDir("", "")
	rows := []timeline.LSMInstant{
		{Time: ts(1), Completion: ts(2), Action: spec.ActionCommit},
		{Time: ts(2), Completion: ts(4), Action: spec.ActionDeltaCommit},
		{Time: ts(3), Completion: ts(8), Action: spec.ActionDeltaCommit},
		{Time: ts(5), Completion: ts(6), Action: spec.ActionCommit},
	}
	if _, _, _, err := timeline.WriteLSMFile(ctx, st, history, rows, timeline.LSMWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	active := concat(v2Delta(9, 10), v2Delta(11, 12))
	files := []string{baseName("E", 1), logName("E", 2, 1), logName("E", 3, 1), baseName("E", 5), logName("E", 9, 1)}
	tl := timeline.FromFileNames(timeline.LayoutV2, ".hoodie/timeline", active)

	got := describe(t, build(t, listing("p", files...), tl.Clone().WithArchive(st, history), Options{}))
	want := map[string][]string{"p/E": {"001:b001|l002.1", "005:b005|l003.1,l009.1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the archive: %v, want %v", got, want)
	}
	got = describe(t, build(t, listing("p", files...), tl, Options{}))
	want = map[string][]string{"p/E": {"001:b001|l002.1,l003.1", "005:b005|l009.1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("without an archive: %v, want %v (the instant-time fallback)", got, want)
	}

	// A broken history: read only when a log needs it.
	if err := st.Put(ctx, storage.Join(history, "_version_"), []byte("7")); err != nil {
		t.Fatal(err)
	}
	recent := []string{baseName("E", 5), logName("E", 9, 1)}
	if _, err := Build(ctx, listing("p", recent...), tl.Clone().WithArchive(st, history), Options{}); err != nil {
		t.Errorf("no archived log, yet the history was read: %v", err)
	}
	_, err := Build(ctx, listing("p", files...), tl.Clone().WithArchive(st, history), Options{})
	if err == nil || !strings.Contains(err.Error(), logName("E", 2, 1)) || !strings.Contains(err.Error(), "manifest_7") {
		t.Errorf("broken history: %v, want an error naming the log and the manifest", err)
	}
}
