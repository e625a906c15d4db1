package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
	"github.com/hudi-go/hudi/storage/storagetest"
)

// validateMDT fails the test unless the table's metadata table lists what storage does.
func validateMDT(t *testing.T, dir, when string) {
	t.Helper()
	v, err := mdtwrite.Validate(context.Background(), local.New(dir))
	if err != nil {
		t.Fatalf("%s: validate: %v", when, err)
	}
	if !v.OK() {
		t.Fatalf("%s: metadata table differs from storage:\n%s", when, strings.Join(v.Differences, "\n"))
	}
}

// Writes with inline compaction, cleaning and archival keep the metadata table current,
// and the metadata table runs its own services as Java's does: a compaction at the latest
// deltacommit + "001" after hoodie.metadata.compact.max.delta.commits deltacommits, a clean
// at + "002" (not within 3 instants of a compaction), archival of its timeline. Archival
// of the data timeline waits for the metadata table: no commit at or after its latest
// compaction is archived (HoodieTimelineArchiver), yet archival does happen.
func TestMetadataTableKeptByWritesAndServices(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trips")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
			if err != nil {
				t.Fatal(err)
			}
			settings := map[string]string{"hoodie.metadata.compact.max.delta.commits": "3", "hoodie.keep.min.commits": "2",
				"hoodie.keep.max.commits": "3", "hoodie.cleaner.commits.retained": "1", "hoodie.compact.inline": "true",
				"hoodie.compact.inline.max.delta.commits": "2"}
			for b := 0; b < 12; b++ {
				var rows []row
				for i, city := range []string{"sf", "nyc", "la"} {
					rows = append(rows, row{"uuid": fmt.Sprintf("k%02d", i+b%4), "ts": int64(b), "fare": float64(b*10 + i), "city": city})
				}
				if _, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: "upsert", Settings: settings}); err != nil {
					t.Fatal(err)
				}
				validateMDT(t, dir, fmt.Sprintf("write %d", b))
			}
			mtl, err := timeline.Load(ctx, mdt.Storage(local.New(dir)), spec.TableVersion6, "")
			if err != nil {
				t.Fatal(err)
			}
			var compactions, cleans int
			for _, in := range mtl.Instants {
				switch {
				case in.Action == spec.ActionCommit && in.IsCompleted() && strings.HasSuffix(string(in.Time), "001"):
					compactions++
				case in.Action == spec.ActionClean && in.IsCompleted() && strings.HasSuffix(string(in.Time), "002"):
					cleans++
				}
			}
			if compactions == 0 || cleans == 0 {
				t.Errorf("metadata table services: %d compactions, %d cleans", compactions, cleans)
			}
			if arch, err := timeline.LoadArchived(ctx, mdt.Storage(local.New(dir)), timeline.LayoutV1, "archived", ""); err != nil || len(arch) == 0 {
				t.Errorf("the metadata table's timeline was not archived (%d, %v)", len(arch), err)
			}
			latest, ok, err := mdt.LatestCompaction(ctx, local.New(dir), spec.TableVersion6)
			if err != nil || !ok {
				t.Fatalf("latest metadata compaction: %v %v", ok, err)
			}
			tb, err = hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			arch, err := tb.Archived(ctx)
			if err != nil {
				t.Fatal(err)
			}
			commits := 0
			for _, a := range arch {
				if a.Instant.Action.IsDataAction() {
					commits++
					if a.Instant.Time.Compare(latest) >= 0 {
						t.Errorf("archived %s, at or after the metadata table's latest compaction %s", a.Instant.Time, latest)
					}
				}
			}
			if commits == 0 {
				t.Error("no data commit was archived")
			}
		})
	}
}

// Reads and writes plan from the files partition of the metadata table when
// hoodie.properties lists it and it is current: no data partition is listed, and the rows
// are those a listing gives. When the metadata table is not current (here: a data instant
// whose metadata deltacommit went missing, as if a writer that does not maintain it had
// committed) they plan from a listing, and still see that instant's rows.
func TestPlanningFromMetadataTable(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trips")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]row{}
			write := func(tb *hudi.Table, b int) {
				var rows []row
				for i, city := range []string{"sf", "nyc", "la"} {
					r := row{"uuid": fmt.Sprintf("%s-%d", city, (i+b)%4), "ts": json.Number(fmt.Sprint(b)), "fare": json.Number(fmt.Sprintf("%d.5", b*10+i)), "city": city}
					rows = append(rows, r)
					want[string(mustJSON(r["uuid"]))] = r
				}
				if _, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: "upsert"}); err != nil {
					t.Fatal(err)
				}
			}
			for b := 0; b < 3; b++ {
				write(tb, b)
			}
			watch := storagetest.NewListCounter(local.New(dir))
			wt, err := hudi.OpenStorage(ctx, watch)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, "read planned from the metadata table", readRows(t, wt, "uuid"), want)
			if n := watch.DataLists(); n != 0 {
				t.Errorf("the read listed data partitions %d times: %v", n, watch.Lists())
			}
			write(wt, 3)
			if n := watch.DataLists(); n != 0 {
				t.Errorf("the write listed data partitions %d times: %v", n, watch.Lists())
			}
			validateMDT(t, dir, "after the write planned from the metadata table")

			// The metadata table loses its record of the latest instant.
			wt, _ = hudi.Open(ctx, dir)
			latest := latestDataInstant(t, wt)
			for _, f := range []string{latest + ".deltacommit", latest + ".deltacommit.inflight", latest + ".deltacommit.requested"} {
				if err := os.Remove(filepath.Join(dir, ".hoodie", "metadata", ".hoodie", f)); err != nil {
					t.Fatal(err)
				}
			}
			watch = storagetest.NewListCounter(local.New(dir))
			wt, err = hudi.OpenStorage(ctx, watch)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, "read of a stale metadata table's table", readRows(t, wt, "uuid"), want)
			if watch.DataLists() == 0 {
				t.Error("a stale metadata table was planned from")
			}
			filesLog(t, dir, "planning from a listing of storage: the metadata table is behind the data timeline",
				"data instant "+latest)

			// hoodie.properties lists the files partition, the metadata table is gone.
			if err := os.RemoveAll(filepath.Join(dir, ".hoodie", "metadata")); err != nil {
				t.Fatal(err)
			}
			filesLog(t, dir, "planning from a listing of storage: hoodie.table.metadata.partitions lists the files partition but the table has no metadata table")
			wt, _ = hudi.Open(ctx, dir)
			sameRows(t, "read of a table whose metadata table is missing", readRows(t, wt, "uuid"), want)
		})
	}
}

// filesLog plans the table at dir (table.Files) and checks the log says each of want.
func filesLog(t *testing.T, dir string, want ...string) {
	t.Helper()
	tt, err := table.Open(context.Background(), local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	l, err := tt.Files(context.Background(), table.FilesOptions{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Partitions) != 3 {
		t.Errorf("the listing has %d partitions, want 3", len(l.Partitions))
	}
	for _, w := range want {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("the log does not say %q:\n%s", w, buf.String())
		}
	}
}

// scanLines scans tb and returns its rows (meta columns included) as sorted JSON lines.
func scanLines(t *testing.T, tb *hudi.Table, o hudi.ScanOptions) []string {
	t.Helper()
	ctx := context.Background()
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
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	sort.Strings(lines)
	return lines
}

// On each of the 14 Spark-written tables with a metadata table (Hudi 1.x, versions 8/9),
// a scan plans from its files partition — no data partition is listed — and returns the
// rows a scan planned from a listing of storage (hoodie.metadata.enable=false on the read)
// returns: snapshot, and read-optimized on merge-on-read tables.
func TestPlanningFromSparkMetadataTables(t *testing.T) {
	ctx := context.Background()
	ids := testutil.MetadataTableIDs(t)
	if len(ids) != 14 {
		t.Fatalf("%d fixtures with a metadata table, want 14", len(ids))
	}
	rows := 0
	for i, id := range ids {
		t.Run(id, func(t *testing.T) {
			testutil.RaceSample(t, i)
			dir := testutil.Table(t, id)
			watch := storagetest.NewListCounter(local.New(dir))
			// The plan: the latest file slices planned from the metadata table are those
			// planned from a listing (every fixture, Lance ones included).
			tt, err := table.Open(ctx, watch)
			if err != nil {
				t.Fatal(err)
			}
			fromMDT, err := tt.Files(ctx, table.FilesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := watch.DataLists(); n != 0 {
				t.Errorf("planning listed data partitions %d times: %v", n, watch.Lists())
			}
			listed, err := tt.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			watch.Reset()
			if g, w := slicesOf(t, tt, fromMDT), slicesOf(t, tt, listed); g != w {
				t.Errorf("file slices planned from the metadata table:\n%s\nfrom a listing:\n%s", g, w)
			}
			if f := tt.Config.BaseFileFormat(); f != "PARQUET" {
				t.Logf("base files are %s: rows not compared (hudi-go reads Parquet base files)", f)
				return
			}
			tb, err := hudi.OpenStorage(ctx, watch)
			if err != nil {
				t.Fatal(err)
			}
			queries := []hudi.ScanOptions{{}}
			if tb.Type() == spec.MergeOnRead {
				queries = append(queries, hudi.ScanOptions{ReadOptimized: true})
			}
			for _, q := range queries {
				got := scanLines(t, tb, q)
				if n := watch.DataLists(); n != 0 {
					t.Errorf("read-optimized %v: the scan listed data partitions %d times: %v", q.ReadOptimized, n, watch.Lists())
				}
				q.Settings = map[string]string{"hoodie.metadata.enable": "false"}
				want := scanLines(t, tb, q)
				if watch.DataLists() == 0 {
					t.Errorf("read-optimized %v: a scan with hoodie.metadata.enable=false listed no partition", q.ReadOptimized)
				}
				watch.Reset()
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("read-optimized %v: planned from the metadata table: %d rows, from a listing: %d rows\n got: %.2000s\nwant: %.2000s",
						q.ReadOptimized, len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				rows += len(got)
			}
		})
	}
	t.Logf("compared %d rows", rows)
}

// slicesOf describes the latest file slices of the view built from listing.
func slicesOf(t *testing.T, tt *table.Table, listing *fsview.Listing) string {
	t.Helper()
	v, err := tt.View(context.Background(), listing, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sl := range v.LatestSlices() {
		line := fmt.Sprintf("%s/%s@%s", sl.Partition, sl.FileID, sl.BaseInstant)
		if sl.Base != nil {
			line += fmt.Sprintf(" base %s %d", sl.Base.Path, sl.Base.Size)
		}
		for _, l := range sl.Logs {
			line += fmt.Sprintf(" log %s %d", l.Path, l.Size)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// A read takes hoodie.enable.data.skipping (Spark's key): with it the scan prunes file
// slices by the metadata table's column_stats (internal/read TestDataSkippingOnSparkFixtures
// counts them) and returns the rows of a read without it; a value that is not a boolean is
// refused.
func TestScanDataSkippingSetting(t *testing.T) {
	ctx := context.Background()
	tb, err := hudi.Open(ctx, testutil.Table(t, "cow/v9_txns_simple_meta"))
	if err != nil {
		t.Fatal(err)
	}
	for _, filter := range []string{"account_id = 'ACC-E'", "txn_date = '2024-01-16' and amount > 100"} {
		want := scanLines(t, tb, hudi.ScanOptions{Filter: filter})
		got := scanLines(t, tb, hudi.ScanOptions{Filter: filter, Settings: map[string]string{"hoodie.enable.data.skipping": "true"}})
		if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d rows with data skipping, %d without", filter, len(got), len(want))
		}
	}
	if _, err := tb.Scan(ctx, hudi.ScanOptions{Filter: "txn_id = 'x'", Settings: map[string]string{"hoodie.enable.data.skipping": "maybe"}}); err == nil {
		t.Error("hoodie.enable.data.skipping=maybe accepted")
	}
}
