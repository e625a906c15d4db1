package hudi_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/internal/upgrade"
)

// TestUpgradeConvertsArchivedTimeline: a version 6 table whose archive (.hoodie/archived,
// written by hudi-go's 0.14 archiver) holds commits is upgraded to 9; the archived
// instants are then in the LSM timeline (timeline/history) — same instants and actions, a
// completion time each, the commit metadata re-encoded as the layout-2 completed file (it
// decodes to the same write stats) — as SevenToEightUpgradeHandler.upgradeToLSMTimeline
// converts them; the rows are unchanged. A downgrade of the result is refused before
// anything changes, since converting the LSM timeline back is not done
// (upgrade.ErrArchivedHistory).
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
	if _, err := tb.Downgrade(ctx, hudi.VersionChangeOptions{To: 6}); !errors.Is(err, upgrade.ErrArchivedHistory) {
		t.Fatalf("downgrade with archived instants: %v", err)
	}
	if tb, _ = hudi.Open(ctx, dir); tb.Version() != 9 {
		t.Errorf("version %d after the refused downgrade", tb.Version())
	}
	if got := readRows(t, tb, "id"); !reflect.DeepEqual(got, rows) {
		t.Errorf("rows changed by the refused downgrade")
	}
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
