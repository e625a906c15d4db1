package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/cli"
)

// archiveTable creates a COW table and commits n single-row upserts through the facade,
// one simulated second apart, with automatic archival off so the test drives it. It
// returns the table path and the instants in order.
func archiveTable(t *testing.T, n int) (string, []string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "arch", Type: "cow", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	var instants []string
	for i := 0; i < n; i++ {
		clock = clock.Add(time.Second)
		now := clock
		res, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": fmt.Sprintf("k%d", i%3), "ts": json.Number(fmt.Sprint(i)), "v": fmt.Sprint("v", i)}}),
			hudi.WriteOptions{Operation: "upsert", Now: func() time.Time { return now },
				Settings: map[string]string{"hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false"}})
		if err != nil {
			t.Fatal(err)
		}
		instants = append(instants, res.Instant)
	}
	return dir, instants
}

func activeInstants(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, ".hoodie"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && len(e.Name()) > 17 && e.Name()[17] == '.' {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestArchive(t *testing.T) {
	small := map[string]string{"hoodie.keep.min.commits": "4", "hoodie.keep.max.commits": "6", "hoodie.cleaner.commits.retained": "2",
		"hoodie.commits.archival.batch": "4"}
	for _, tc := range []struct {
		name string
		// prepare edits the table after the 10 commits; it returns the indexes of the
		// commits expected to be archived.
		prepare func(t *testing.T, dir string, in []string) []int
	}{
		{"plain", func(t *testing.T, dir string, in []string) []int {
			return []int{0, 1, 2, 3, 4, 5} // 10 completed > 6: archive down to 4
		}},
		{"pending instant", func(t *testing.T, dir string, in []string) []int {
			// An inflight commit between commits 3 and 4 (by time): commit 3, the latest
			// completed before it, and everything after stay.
			ts := in[3][:14] + "999"
			for _, f := range []string{ts + ".commit.requested", ts + ".inflight"} {
				writeFile(t, filepath.Join(dir, ".hoodie", f), nil)
			}
			return []int{0, 1, 2}
		}},
		{"savepoint", func(t *testing.T, dir string, in []string) []int {
			writeFile(t, filepath.Join(dir, ".hoodie", in[2]+".savepoint.inflight"), nil)
			writeFile(t, filepath.Join(dir, ".hoodie", in[2]+".savepoint"), []byte("{}"))
			return []int{0, 1}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir, in := archiveTable(t, 10)
			want := tc.prepare(t, dir, in)
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			dry, err := tb.Archive(ctx, hudi.ArchiveOptions{DryRun: true, Settings: small})
			if err != nil {
				t.Fatal(err)
			}
			var wantTimes []string
			for _, i := range want {
				wantTimes = append(wantTimes, in[i])
			}
			if got := archivedTimes(dry); !slices.Equal(got, wantTimes) {
				t.Fatalf("dry run archives %v, want %v", got, wantTimes)
			}
			if before := activeInstants(t, dir); len(before) != 30+extraFiles(tc.name) {
				t.Fatalf("dry run changed the timeline: %d files", len(before))
			}
			res, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: small})
			if err != nil {
				t.Fatal(err)
			}
			if got := archivedTimes(res); !slices.Equal(got, wantTimes) || res.FilesWritten != 1 {
				t.Fatalf("archived %v (%d files), want %v", got, res.FilesWritten, wantTimes)
			}
			for _, f := range activeInstants(t, dir) {
				for _, w := range wantTimes {
					if strings.HasPrefix(f, w) {
						t.Errorf("%s is still in the active timeline", f)
					}
				}
			}
			// The reader sees exactly the archived commits, each completed.
			tb, _ = hudi.Open(ctx, dir)
			arch, err := tb.Archived(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range arch {
				got = append(got, string(a.Instant.Time))
				if !a.Instant.IsCompleted() || a.Instant.Action != "commit" || a.Metadata == nil || a.Instant.Requested != "commit" {
					t.Errorf("archived %s: %+v metadata=%d", a.Instant.Time, a.Instant, len(a.Metadata))
				}
			}
			if !slices.Equal(got, wantTimes) {
				t.Errorf("archived timeline %v, want %v", got, wantTimes)
			}
			// Nothing more to archive: 10-len(want) completed commits remain.
			again, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: small})
			if err != nil || len(again.InstantsArchived) != 0 {
				t.Errorf("second archive: %v %+v", err, again)
			}
		})
	}
}

func extraFiles(name string) int {
	switch name {
	case "pending instant", "savepoint":
		return 2
	}
	return 0
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func archivedTimes(r *hudi.ArchiveResult) []string {
	var out []string
	for _, a := range r.InstantsArchived {
		out = append(out, a.Instant)
	}
	return out
}

// Automatic archival after writes keeps the timeline bounded; time travel to an archived
// instant whose files still exist reads its data, and `hudi timeline --archived` lists it.
func TestInlineArchiveAndTimeTravel(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "arch", Type: "cow", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	// Without a metadata table: archival waits for the metadata table's compaction
	// otherwise (TestArchiveBoundedByMetadataTable).
	settings := map[string]string{"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "4",
		"hoodie.cleaner.commits.retained": "2", "hoodie.clean.automatic": "false", "hoodie.metadata.enable": "false"}
	clock := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	var instants []string
	for i := 0; i < 6; i++ {
		clock = clock.Add(time.Second)
		now := clock
		// each commit adds a new key, so every base file version survives (no cleaning)
		res, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": fmt.Sprint("k", i), "ts": json.Number("1"), "v": "x"}}),
			hudi.WriteOptions{Operation: "insert", Now: func() time.Time { return now }, Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		instants = append(instants, res.Instant)
	}
	// after commit 5 (5 > 4): archive down to 3 → commits 0, 1; after commit 6: 4 commits, none.
	tb, _ = hudi.Open(ctx, dir)
	arch, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range arch {
		got = append(got, string(a.Instant.Time))
	}
	if want := instants[:2]; !slices.Equal(got, want) {
		t.Fatalf("archived %v, want %v", got, want)
	}
	var out, errb bytes.Buffer
	if code := cli.Main(ctx, []string{"timeline", dir, "--archived", "--format", "json"}, &out, &errb, false); code != 0 {
		t.Fatalf("timeline: %d %s", code, errb.String())
	}
	var entries []map[string]any
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	archivedSeen := map[string]bool{}
	for _, e := range entries {
		if e["archived"] == true {
			archivedSeen[e["instant"].(string)] = true
		}
	}
	if !archivedSeen[instants[0]] || !archivedSeen[instants[1]] || len(archivedSeen) != 2 {
		t.Errorf("timeline --archived shows %v archived", archivedSeen)
	}
	checkTimeTravel(t, tb, instants[1], 2)
}

func TestArchiveRejectsBadBounds(t *testing.T) {
	ctx := context.Background()
	dir, _ := archiveTable(t, 1)
	tb, _ := hudi.Open(ctx, dir)
	for _, s := range []map[string]string{
		{"hoodie.keep.min.commits": "5", "hoodie.keep.max.commits": "5", "hoodie.cleaner.commits.retained": "2"},
		{"hoodie.keep.min.commits": "5", "hoodie.keep.max.commits": "8", "hoodie.cleaner.commits.retained": "5"},
	} {
		if _, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: s}); err == nil || !strings.Contains(err.Error(), "must be greater than") {
			t.Errorf("%v: err = %v", s, err)
		}
	}
}

// checkTimeTravel reads the table as of an archived instant whose files still exist.
func checkTimeTravel(t *testing.T, tb *hudi.Table, asOf string, want int64) {
	t.Helper()
	ctx := context.Background()
	scan, err := tb.Scan(ctx, hudi.ScanOptions{AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	if err := scan.Run(ctx, func(r arrow.Record) error { rows += r.NumRows(); return nil }); err != nil {
		t.Fatal(err)
	}
	if rows != want {
		t.Errorf("time travel to archived %s read %d rows, want %d", asOf, rows, want)
	}
}

// TestReadRetriesWhenArchivalMovesAnInstant (issue 25): a reader lists the timeline, then a
// concurrent writer's archival moves instants it listed (here a replacecommit, whose
// metadata every snapshot reads for the replaced file groups) before it reads them. The
// read reloads the timeline and succeeds instead of failing with "file does not exist".
// Java's readers fail in this race; the bounded retry is ours (read.Plan).
func TestReadRetriesWhenArchivalMovesAnInstant(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "arch", Type: "cow", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{"hoodie.archive.automatic": "false", "hoodie.cleaner.commits.retained": "1"}
	for i := 0; i < 8; i++ {
		op := "insert"
		if i == 0 {
			op = "insert_overwrite_table"
		}
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": fmt.Sprint("k", i), "ts": json.Number("1"), "v": "x"}}),
			hudi.WriteOptions{Operation: op, Settings: settings}); err != nil {
			t.Fatal(err)
		}
	}
	stale, err := hudi.Open(ctx, dir) // the reader's timeline
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: map[string]string{"hoodie.keep.min.commits": "3",
		"hoodie.keep.max.commits": "4", "hoodie.cleaner.commits.retained": "2"}})
	if err != nil || len(res.InstantsArchived) == 0 {
		t.Fatalf("archive: %+v %v", res, err)
	}
	scan, err := stale.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		t.Fatalf("a read whose timeline archival changed: %v", err)
	}
	n := 0
	if err := scan.Run(ctx, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 8 {
		t.Errorf("read %d rows, want 8", n)
	}
}

// TestArchiveBoundedByMetadataTable pins Java 0.14's bound on archival of a table with a
// metadata table (HoodieTimelineArchiver.getInstantsToArchive): no instant at or after the
// metadata table's latest compaction leaves the active timeline — cleans and rollbacks
// included, not only commits. A metadata reader takes the log blocks of the data instants
// it finds completed on the active timeline; a clean archived before a compaction merged
// its block would bring the files it deleted back into the listing (found by
// internal/concurrencytest: reads failed with a missing base file).
func TestArchiveBoundedByMetadataTable(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "arch", Type: "cow", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	// Every upsert rewrites the one file group and the inline clean deletes the version
	// before; the metadata table compacts during the first three writes only.
	for i := 0; i < 9; i++ {
		clock = clock.Add(time.Second)
		now := clock
		compactEvery := "100"
		if i < 3 {
			compactEvery = "2"
		}
		settings := map[string]string{"hoodie.cleaner.commits.retained": "1", "hoodie.keep.min.commits": "2",
			"hoodie.keep.max.commits": "3", "hoodie.archive.automatic": "false", "hoodie.metadata.compact.max.delta.commits": compactEvery}
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "k", "ts": json.Number(fmt.Sprint(i)), "v": fmt.Sprint("v", i)}}),
			hudi.WriteOptions{Operation: "upsert", Now: func() time.Time { return now }, Settings: settings}); err != nil {
			t.Fatal(err)
		}
	}
	info, err := tb.MetadataDescribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.LatestCompaction == "" {
		t.Fatal("the metadata table never compacted: the test needs one compaction")
	}
	var cleansAfter int
	for _, in := range tb.Timeline().Instants {
		if in.Action == "clean" && in.IsCompleted() && string(in.Time) > info.LatestCompaction {
			cleansAfter++
		}
	}
	if cleansAfter <= 2 {
		t.Fatalf("%d cleans after the metadata table's compaction %s: the test needs more than hoodie.keep.min.commits", cleansAfter, info.LatestCompaction)
	}
	res, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: map[string]string{"hoodie.cleaner.commits.retained": "1",
		"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InstantsArchived) == 0 {
		t.Fatal("nothing archived: the test needs cleans before the compaction to archive")
	}
	for _, a := range res.InstantsArchived {
		if a.Instant >= info.LatestCompaction {
			t.Errorf("archived %s %s, at or after the metadata table's latest compaction %s", a.Action, a.Instant, info.LatestCompaction)
		}
	}
	v, err := tb.MetadataValidate(ctx)
	if err != nil {
		t.Fatalf("after archival: %v", err)
	}
	if len(v.Differences) > 0 {
		t.Errorf("after archival the metadata table differs from storage: %v", v.Differences)
	}
	got := scanAll(t, tb, hudi.ScanOptions{})
	if len(got) != 1 || !strings.Contains(got["k"], `"v":"v8"`) {
		t.Errorf("after archival the table reads %v, want the one row of the last upsert", got)
	}
}
