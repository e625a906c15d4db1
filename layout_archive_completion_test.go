package hudi_test

import (
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
	"github.com/hudi-go/hudi/internal/format/jsonl"
)

// TestArchivedLogPlacedByCompletionTime: on timeline layout 2 a log file belongs to the
// slice its deltacommit's completion time falls in. A deltacommit D requested before a
// compaction C was planned but completed after it (concurrent writers; Java's
// non-blocking concurrency control makes it routine) wrote a log that C's plan did not
// read: by completion time it belongs to C's new slice. Once archival moves D and C into
// the LSM history, that completion time is only there — Java's file-system view asks
// CompletionTimeQueryViewV2, which loads it from the history. Before hudi-go did the same,
// fsview fell back to D's instant time and put the log into the slice before C's base:
// the snapshot lost D's update, a clean deleted D's log with the old slice, and a
// compaction left it out. The scenario is built with the API plus one hand edit: D's
// completed file is held back while C is planned and run, and put back with a completion
// time after C's. Checked on table versions 8 and 9 (both layout 2, both archive into the
// LSM history); every step is compared with a model.
func TestArchivedLogPlacedByCompletionTime(t *testing.T) {
	for _, version := range []hudi.TableVersion{hudi.TableVersion8, hudi.TableVersion9} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) { archivedLogPlacement(t, version) })
	}
}

func archivedLogPlacement(t *testing.T, version hudi.TableVersion) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "late", Type: "mor", TableVersion: int(version), RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	tlDir := filepath.Join(dir, ".hoodie", "timeline")
	off := map[string]string{"hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false", "hoodie.compact.inline": "false"}
	clock := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	tick := func() func() time.Time {
		clock = clock.Add(time.Second)
		now := clock
		return func() time.Time { return now }
	}
	model := map[string]row{}
	write := func(op string, rows ...row) string {
		t.Helper()
		res, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: op, Now: tick(), Settings: off})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			model[r["id"].(string)] = r
		}
		return res.Instant
	}
	r := func(id string, ts int, v string) row { return row{"id": id, "ts": json.Number(fmt.Sprint(ts)), "v": v} }

	write("insert", r("k0", 0, "v0"), r("k1", 0, "v0"), r("k2", 0, "v0"))
	write("upsert", r("k1", 1, "x")) // a log for C to compact
	late := model["k0"]
	d := write("upsert", r("k0", 1, "d"))
	model["k0"] = late // D's update is not visible while D is held back
	dLog := filesWith(t, dir, "_"+d+".log.")
	if len(dLog) != 1 {
		t.Fatalf("deltacommit %s wrote logs %v, want one", d, dLog)
	}
	// Hold D's completed file back: C is planned and run while D is in flight.
	dDone := filesWith(t, tlDir, d+"_")
	if len(dDone) != 1 {
		t.Fatalf("completed files of %s: %v", d, dDone)
	}
	body, err := os.ReadFile(filepath.Join(tlDir, dDone[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(tlDir, dDone[0])); err != nil {
		t.Fatal(err)
	}
	tb = reopen(t, dir)
	cres, err := tb.Compact(ctx, hudi.CompactOptions{Now: tick(), Settings: off})
	if err != nil || !cres.Completed {
		t.Fatalf("compaction: %+v %v", cres, err)
	}
	c := cres.Instant
	if !(d < c) {
		t.Fatalf("compaction %s is not after deltacommit %s", c, d)
	}
	// D completes now, after C did.
	completion := tick()().Format("20060102150405") + "000"
	if err := os.WriteFile(filepath.Join(tlDir, d+"_"+completion+".deltacommit"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	model["k0"] = r("k0", 1, "d")
	tb = reopen(t, dir)
	sameRows(t, "D completed after C, both active", readRows(t, tb, "id"), model)

	for i := 0; i < 2; i++ {
		write("upsert", r("k2", i+1, fmt.Sprint("w", i)))
	}
	// Time travel to every data instant and incremental reads between consecutive ones:
	// their answers must not change when the instants move into the LSM history.
	tb = reopen(t, dir)
	before := timeQueries(t, tb, nil)
	ares, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: map[string]string{"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
		"hoodie.cleaner.commits.retained": "1", "hoodie.compact.inline.max.delta.commits": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := archivedTimes(ares); !slices.Contains(got, d) || !slices.Contains(got, c) {
		t.Fatalf("archived %v: want %s (D) and %s (C) among them", got, d, c)
	}
	tb = reopen(t, dir)
	sameRows(t, "D and C archived", readRows(t, tb, "id"), model)
	after := timeQueries(t, tb, before)
	for q, want := range before {
		if after[q] != want {
			t.Errorf("%s after D and C were archived:\n%s\nwant (before)\n%s", q, after[q], want)
		}
	}
	if !strings.Contains(before["as of "+d], `"v":"d"`) {
		t.Errorf("time travel to D should see D's update: %s", before["as of "+d])
	}
	view, err := tb.View(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range view.Groups {
		for _, sl := range g.Slices {
			for _, l := range sl.Logs {
				if l.Name.String() == dLog[0] && (string(sl.BaseInstant) != c || string(l.Completion) != completion) {
					t.Errorf("D's log %s is in the slice of %s with completion time %s, want the slice of C (%s) and %s",
						dLog[0], sl.BaseInstant, l.Completion, c, completion)
				}
			}
		}
	}

	// The clean drops the slice before C: D's log is not part of it.
	if _, err := tb.Clean(ctx, hudi.CleanOptions{Now: tick(), Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, dLog[0])); err != nil {
		t.Errorf("the clean deleted D's log: %v", err)
	}
	tb = reopen(t, dir)
	sameRows(t, "after a clean", readRows(t, tb, "id"), model)

	// A compaction now reads D's log with the others of C's slice.
	cres, err = tb.Compact(ctx, hudi.CompactOptions{Now: tick(), Settings: off})
	if err != nil || !cres.Completed {
		t.Fatalf("second compaction: %+v %v", cres, err)
	}
	tb = reopen(t, dir)
	sameRows(t, "after the second compaction", readRows(t, tb, "id"), model)
}

// timeQueries answers a time travel to each data instant of the table's active timeline
// (or, with keys, to the instants those keys name) and an incremental read between each
// two consecutive ones, as sorted JSON lines by query.
func timeQueries(t *testing.T, tb *hudi.Table, keys map[string]string) map[string]string {
	t.Helper()
	ctx := context.Background()
	var instants []string
	if keys == nil {
		for _, in := range tb.Timeline().Instants {
			if in.IsCompleted() && in.Action.IsDataAction() {
				instants = append(instants, string(in.Time))
			}
		}
	} else {
		for q := range keys {
			if ts, ok := strings.CutPrefix(q, "as of "); ok {
				instants = append(instants, ts)
			}
		}
		slices.Sort(instants)
	}
	out := map[string]string{}
	run := func(q string, o hudi.ScanOptions) {
		scan, err := tb.Scan(ctx, o)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var buf strings.Builder
		enc := jsonl.NewEncoder(&buf, jsonl.Options{DropMetaColumns: true})
		if err := scan.Run(ctx, func(r arrow.Record) error { return enc.WriteRecord(r) }); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		enc.Flush()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		slices.Sort(lines)
		out[q] = strings.Join(lines, "\n")
	}
	for i, ts := range instants {
		run("as of "+ts, hudi.ScanOptions{AsOf: ts})
		if i > 0 {
			run("incremental "+instants[i-1]+" "+ts, hudi.ScanOptions{Incremental: true, Begin: instants[i-1], End: ts})
		}
	}
	return out
}

// filesWith lists the names in dir containing s.
func filesWith(t *testing.T, dir, s string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), s) {
			out = append(out, e.Name())
		}
	}
	return out
}

// reopen opens the table again, to see files changed by hand.
func reopen(t *testing.T, dir string) *hudi.Table {
	t.Helper()
	tb, err := hudi.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}
