package write_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/table"
)

// latestDataFile returns the newest base (COW) or log (MOR) file of partition sf.
func latestDataFile(t *testing.T, dir string, mor bool) string {
	t.Helper()
	pattern := "*.parquet"
	if mor {
		pattern = ".*.log.*"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sf", pattern))
	if len(files) == 0 {
		t.Fatalf("no %s in %s/sf", pattern, dir)
	}
	latest := files[0]
	for _, f := range files[1:] {
		// Base file names end with their instant; log names carry a version: the longest
		// or lexically largest name among one group's files is the newest.
		if filepath.Base(f) > filepath.Base(latest) {
			latest = f
		}
	}
	return latest
}

// TestMissingLatestFileFailsReadsAndWrites: a base (COW) or log (MOR) file that the latest
// completed commit wrote, removed from storage, makes snapshot and read-optimized reads and
// the next write fail with an error naming the file — it was silently skipped: the read
// served the older version and the next write made that permanent. (Java's file-system
// view lists storage and would serve the older slice too; failing is hudi-go's choice.)
//
// Planned from a listing (hoodie.metadata.enable=false), the view finds the file missing
// before anything is written: the write leaves no instant. Planned from the metadata table,
// which lists the file, nothing lists storage: the file is found missing when it is opened,
// with the same error. A copy-on-write upsert opens it in its index lookup, before its
// instant starts; a merge-on-read upsert appends a new log file without opening the old
// one, and goes ahead — the missing file stays named by the metadata table, so reads keep
// failing rather than serve an older version.
func TestMissingLatestFileFailsReadsAndWrites_HudiGoChoice(t *testing.T) {
	for _, mode := range []string{"listing", "metadata table"} {
		var settings map[string]string
		if mode == "listing" {
			settings = map[string]string{"hoodie.metadata.enable": "false"}
		}
		for _, mor := range []bool{false, true} {
			t.Run(mode+"/"+map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
				ctx := context.Background()
				dir := createAmtTable(t, ctx, mor, "DOUBLE")
				if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 1, 1.0}, {"b", "sf", 1, 2.0}}, settings); err != nil {
					t.Fatal(err)
				}
				if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 2, 10.0}}, settings); err != nil {
					t.Fatal(err)
				}
				victim := latestDataFile(t, dir, mor)
				if err := os.Remove(victim); err != nil {
					t.Fatal(err)
				}
				name := filepath.Base(victim)
				reads := map[string]hudi.ScanOptions{"snapshot": {Settings: settings}}
				if !mor {
					reads["read-optimized"] = hudi.ScanOptions{ReadOptimized: true, Settings: settings}
				}
				checkReads := func(when string) {
					t.Helper()
					for what, o := range reads {
						tbl, err := hudi.Open(ctx, dir)
						if err != nil {
							t.Fatal(err)
						}
						s, err := tbl.Scan(ctx, o)
						if err == nil {
							err = s.Run(ctx, func(arrow.Record) error { return nil })
						}
						if !errors.Is(err, table.ErrMissingFile) || !strings.Contains(err.Error(), name) {
							t.Errorf("%s, %s: got %v, want an error naming %s", when, what, err, name)
						}
					}
				}
				checkReads("before the write")
				before := instantFiles(t, dir)
				_, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"b", "sf", 3, 3.0}}, settings)
				if mode == "metadata table" && mor {
					if err != nil {
						t.Fatalf("write: %v", err)
					}
					checkReads("after the write")
					return
				}
				if !errors.Is(err, table.ErrMissingFile) || !strings.Contains(err.Error(), name) {
					t.Errorf("write: got %v, want an error naming %s", err, name)
				}
				if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
					t.Errorf("timeline changed: %v -> %v", before, after)
				}
			})
		}
	}
}

// TestLegitimatelyAbsentFilesRead: files that are absent for a reason — older slices the
// cleaner removed, files of a rolled-back commit, file groups an insert_overwrite replaced
// and the cleaner removed — do not fail reads or writes.
func TestLegitimatelyAbsentFilesRead(t *testing.T) {
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			ctx := context.Background()
			dir := createAmtTable(t, ctx, mor, "DOUBLE")
			for i := int64(1); i <= 4; i++ {
				if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", i, float64(i)}, {"b", "la", i, float64(i)}}, nil); err != nil {
					t.Fatal(err)
				}
				if mor && i == 2 {
					tbl, _ := hudi.Open(ctx, dir)
					if _, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true}); err != nil {
						t.Fatal(err)
					}
				}
			}
			last, err := amtWrite(t, ctx, dir, "insert_overwrite", arrow.PrimitiveTypes.Float64, []amtRow{{"c", "la", 5, 5.0}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Rollback(ctx, last.Instant, hudi.RollbackOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := amtWrite(t, ctx, dir, "insert_overwrite", arrow.PrimitiveTypes.Float64, []amtRow{{"d", "la", 6, 6.0}}, nil); err != nil {
				t.Fatal(err)
			}
			tbl, _ = hudi.Open(ctx, dir)
			res, err := tbl.Clean(ctx, hudi.CleanOptions{Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("clean: %+v", res)
			got, _ := amtScan(t, ctx, dir, hudi.ScanOptions{})
			if strings.Join(got, ",") != "a|sf|4|4,d|la|6|6" {
				t.Errorf("snapshot: %v", got)
			}
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 7, 7.0}}, nil); err != nil {
				t.Fatalf("write after clean and rollback: %v", err)
			}
		})
	}
}
