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
	"github.com/hudi-go/hudi/merge"
)

// TestPartialUpdatePayloadRefused: PartialUpdateAvroPayload merges field by field, which
// hudi-go does not implement yet; instead of merging with overwrite semantics (it was
// accepted and ignored), writes with it are refused before any instant, and so are the
// merging reads and compactions of a merge-on-read table whose payload it is (a
// read-optimized read, which merges nothing, still works).
func TestPartialUpdatePayloadRefused(t *testing.T) {
	ctx := context.Background()
	partial := map[string]string{"hoodie.datasource.write.payload.class": merge.PartialUpdatePayload}
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			dir := createAmtTable(t, ctx, mor, "DOUBLE")
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 1, 1.0}}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 2, 2.0}}, nil); err != nil {
				t.Fatal(err)
			}
			before := instantFiles(t, dir)
			_, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 3, nil}}, partial)
			if !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Fatalf("write with PartialUpdateAvroPayload: %v", err)
			}
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("timeline changed: %v -> %v", before, after)
			}
			if !mor {
				return
			}
			// A table whose hoodie.properties names the payload (as Java writes it).
			pp := filepath.Join(dir, ".hoodie", "hoodie.properties")
			b, err := os.ReadFile(pp)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(string(b), "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload", merge.PartialUpdatePayload)
			if !strings.Contains(text, merge.PartialUpdatePayload) {
				t.Fatalf("no payload class in hoodie.properties:\n%s", b)
			}
			if err := os.WriteFile(pp, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Scan(ctx, hudi.ScanOptions{}); !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Errorf("snapshot read: %v", err)
			}
			if got, _ := amtScan(t, ctx, dir, hudi.ScanOptions{ReadOptimized: true}); strings.Join(got, ",") != "a|sf|1|1" {
				t.Errorf("read-optimized: %v", got)
			}
			before = instantFiles(t, dir)
			if _, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true}); !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Errorf("compaction: %v", err)
			}
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("the refused compaction changed the timeline: %v -> %v", before, after)
			}
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 3, 3.0}}, nil); !errors.Is(err, merge.ErrUnsupportedPayload) {
				t.Errorf("write to the table: %v", err)
			}
		})
	}
}
