package hudi_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/mdt"
	"github.com/hudi-go/hudi/mdt/mdtwrite"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage/local"
	"github.com/hudi-go/hudi/timeline"
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
