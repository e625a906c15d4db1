package hudi_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
)

// TestUpgradeConvertsArchivedTimeline: a version 6 table whose archive (.hoodie/archived,
// written by hudi-go's 0.14 archiver) holds commits is upgraded to 9; the archived
// instants are then in the LSM timeline (timeline/history) — same instants and actions, a
// completion time each, the commit metadata re-encoded as the layout-2 completed file (it
// decodes to the same write stats) — as SevenToEightUpgradeHandler.upgradeToLSMTimeline
// converts them; the rows are unchanged. A downgrade converts them back, and an upgrade
// after it gives the active instants their completion times again.
func TestUpgradeConvertsArchivedTimeline(t *testing.T) {
	ctx := context.Background()
	dir, _ := archiveTable(t, 10)
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: map[string]string{"hoodie.keep.min.commits": "4",
		"hoodie.keep.max.commits": "6", "hoodie.cleaner.commits.retained": "2", "hoodie.commits.archival.batch": "4"}}); err != nil {
		t.Fatal(err)
	}
	before, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 6 {
		t.Fatalf("%d archived instants before the upgrade, want 6", len(before))
	}
	rows := readRows(t, tb, "id")
	// Two instants per LSM file: three layer-0 files.
	res, err := tb.Upgrade(ctx, hudi.VersionChangeOptions{To: 9, Settings: map[string]string{"hoodie.commits.archival.batch": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Archived != 6 {
		t.Errorf("%d archived instants converted, want 6", res.Archived)
	}
	tb, _ = hudi.Open(ctx, dir)
	if tb.Version() != 9 {
		t.Fatalf("version %d", tb.Version())
	}
	after, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d archived instants after the upgrade, %d before", len(after), len(before))
	}
	for i := range before {
		b, a := before[i], after[i]
		if a.Instant.Time != b.Instant.Time || a.Instant.Action != b.Instant.Action || !a.Instant.IsCompleted() {
			t.Errorf("archived %d: %s %s %v, want %s %s", i, a.Instant.Time, a.Instant.Action, a.Instant.State, b.Instant.Time, b.Instant.Action)
		}
		if a.Instant.Completion == "" || a.Instant.Completion.Less(a.Instant.Time) {
			t.Errorf("archived %s: completion time %q", a.Instant.Time, a.Instant.Completion)
		}
		if a.Instant.Action != spec.ActionCommit {
			continue
		}
		mb, err := commitmeta.Decode(b.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		ma, err := commitmeta.Decode(a.Metadata)
		if err != nil {
			t.Fatalf("archived %s: %v", a.Instant.Time, err)
		}
		if !reflect.DeepEqual(ma.PartitionToWriteStats, mb.PartitionToWriteStats) || ma.OperationType != mb.OperationType {
			t.Errorf("archived %s: metadata differs after the conversion", a.Instant.Time)
		}
	}
	if got := readRows(t, tb, "id"); !reflect.DeepEqual(got, rows) {
		t.Errorf("rows changed: %v, want %v", got, rows)
	}

	// Downgrade back to 6: the LSM history becomes a version-6 archive log again
	// (EightToSevenDowngradeHandler.downgradeFromLSMTimeline), one completed entry per
	// instant with its completion time as stateTransitionTime, and each completed instant
	// file gets its completion time as modification time.
	completions := map[string]string{}
	for _, in := range tb.Timeline().Instants {
		if in.IsCompleted() {
			completions[string(in.Time)] = string(in.Completion)
		}
	}
	dres, err := tb.Downgrade(ctx, hudi.VersionChangeOptions{To: 6, Settings: map[string]string{"hoodie.commits.archival.batch": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if dres.Archived != len(after) {
		t.Errorf("%d archived instants converted by the downgrade, want %d", dres.Archived, len(after))
	}
	if tb, _ = hudi.Open(ctx, dir); tb.Version() != 6 {
		t.Fatalf("version %d after the downgrade", tb.Version())
	}
	down, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(down) != len(after) {
		t.Fatalf("%d archived instants after the downgrade, %d before", len(down), len(after))
	}
	newest := newestArchiveLog(t, dir)
	for i := range after {
		a, d := after[i], down[i]
		if d.Instant.Time != a.Instant.Time || d.Instant.Action != a.Instant.Action || !d.Instant.IsCompleted() {
			t.Errorf("archived %d after the downgrade: %s %s %v, want %s %s", i, d.Instant.Time, d.Instant.Action, d.Instant.State, a.Instant.Time, a.Instant.Action)
		}
		if a.Instant.Action != spec.ActionCommit {
			continue
		}
		ma, _ := commitmeta.Decode(a.Metadata)
		md, err := commitmeta.Decode(d.Metadata)
		if err != nil {
			t.Fatalf("archived %s after the downgrade: %v", d.Instant.Time, err)
		}
		if !reflect.DeepEqual(md.PartitionToWriteStats, ma.PartitionToWriteStats) || md.OperationType != ma.OperationType {
			t.Errorf("archived %s: metadata differs after the downgrade", d.Instant.Time)
		}
	}
	// The new log alone holds every instant, with its completion time.
	logged := archivedIn(t, newest)
	for _, a := range after {
		if got := logged[string(a.Instant.Time)]; got != string(a.Instant.Completion) {
			t.Errorf("the downgrade's archive log has %s with stateTransitionTime %q, want its completion time %s", a.Instant.Time, got, a.Instant.Completion)
		}
	}
	zone := time.Local
	for ts, c := range completions {
		fi, err := os.Stat(filepath.Join(dir, ".hoodie", ts+".commit"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := spec.InstantTime(c).Time(zone)
		if !fi.ModTime().Equal(want) {
			t.Errorf("%s.commit: modification time %s, want its completion time %s", ts, fi.ModTime(), want)
		}
	}
	if got := readRows(t, tb, "id"); !reflect.DeepEqual(got, rows) {
		t.Errorf("rows changed by the downgrade")
	}
	// Upgraded again, the instants get their completion times back (from the modification
	// times), as a 1.x reader of the downgraded table sees them.
	if _, err := tb.Upgrade(ctx, hudi.VersionChangeOptions{To: 9}); err != nil {
		t.Fatal(err)
	}
	tb, _ = hudi.Open(ctx, dir)
	for _, in := range tb.Timeline().Instants {
		if in.IsCompleted() && completions[string(in.Time)] != string(in.Completion) {
			t.Errorf("instant %s: completion time %s after downgrade and upgrade, was %s", in.Time, in.Completion, completions[string(in.Time)])
		}
	}
}

// newestArchiveLog is the path of the highest-versioned archive log of a version 6 table.
func newestArchiveLog(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "archived", ".commits_.archive.*"))
	best, bestV := "", -1
	for _, l := range logs {
		v, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(l), ".commits_.archive."), "_", 2)[0])
		if err == nil && v > bestV {
			best, bestV = l, v
		}
	}
	if best == "" {
		t.Fatalf("no archive log in %s", dir)
	}
	return best
}

// archivedIn reads one archive log alone: instant time → stateTransitionTime.
func archivedIn(t *testing.T, path string) map[string]string {
	t.Helper()
	one := t.TempDir()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(one, ".hoodie", "archived"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one, ".hoodie", "archived", filepath.Base(path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := timeline.LoadArchived(context.Background(), local.New(one), timeline.LayoutV1, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, in := range ins {
		out[string(in.Instant.Time)] = in.StateTransitionTime
	}
	return out
}

// TestUpgradedInstantFilesMatchSpark: the instant files of a Spark-written version 6
// table upgraded to 9 have the structure of Spark's own version 9 files
// (cow/v9_txns_simple_nometa's last upsert): the completed commit and the inflight file of
// the v6 table's last upsert (cow/v6_simplekeygen_nonhivestyle, a base-file merge) have
// Spark's writer schemas and their fields set or null where Spark's are, for the write-stat
// kinds both have; the requested file is empty like Spark's.
func TestUpgradedInstantFilesMatchSpark(t *testing.T) {
	ctx := context.Background()
	sparkDir := testutil.Table(t, "cow/v9_txns_simple_nometa")
	stb, err := hudi.Open(ctx, sparkDir)
	if err != nil {
		t.Fatal(err)
	}
	spark := instantFilesV2(t, sparkDir, latestDataInstant(t, stb))
	dir := testutil.Table(t, "cow/v6_simplekeygen_nonhivestyle")
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	last := latestDataInstant(t, tb)
	if _, err := tb.Upgrade(ctx, hudi.VersionChangeOptions{To: 9}); err != nil {
		t.Fatal(err)
	}
	ours := instantFilesV2(t, dir, last)
	if b, err := os.ReadFile(ours["requested"]); err != nil || len(b) != 0 {
		t.Errorf("requested file: %d bytes, %v; Spark's is empty", len(b), err)
	}
	for _, kind := range []string{"inflight", "completed"} {
		gs, gf := shape(t, ours[kind])
		ws, wf := shape(t, spark[kind])
		if gs != ws {
			t.Errorf("%s: writer schema differs from Spark's", kind)
		}
		g, w := common(gf, wf), common(wf, gf)
		if kindsOf(g) == "" {
			t.Errorf("%s: no write-stat kind in common with Spark's (%s vs %s)", kind, kindsOf(gf), kindsOf(wf))
		}
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s: fields differ from Spark's\n got:\n%s\nwant:\n%s", kind, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}
