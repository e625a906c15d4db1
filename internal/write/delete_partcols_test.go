package write_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
)

// TestDeleteWithoutPartitionColumnsRefused_HudiGoChoice: a delete whose rows lack the
// partition column, under a non-global index, is refused naming the column (it used to
// find nothing and report 0 deleted; Java computes the default partition for the missing
// value and silently deletes nothing, so refusing is hudi-go's choice). With a global
// index the key alone finds the record.
func TestDeleteWithoutPartitionColumnsRefused_HudiGoChoice(t *testing.T) {
	keys := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			ctx := context.Background()
			dir := createAmtTable(t, ctx, mor, "DOUBLE")
			if _, err := amtWrite(t, ctx, dir, "upsert", arrow.PrimitiveTypes.Float64, []amtRow{{"a", "sf", 1, 1.0}, {"b", "la", 1, 2.0}}, nil); err != nil {
				t.Fatal(err)
			}
			before := instantFiles(t, dir)
			rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, keys, strings.NewReader(`[{"id":"a"}]`))
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, idx := range []string{"SIMPLE", "BLOOM"} {
				_, err = tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: "delete", Settings: map[string]string{"hoodie.index.type": idx}})
				if err == nil || !strings.Contains(err.Error(), "lack the partition column(s) city") {
					t.Fatalf("%s index: got %v", idx, err)
				}
			}
			if after := instantFiles(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("timeline changed: %v -> %v", before, after)
			}
			res, err := tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: "delete", Settings: map[string]string{"hoodie.index.type": "GLOBAL_SIMPLE"}})
			if err != nil || res.Records.Deleted != 1 {
				t.Fatalf("global index delete: %+v %v", res, err)
			}
			if got, _ := amtScan(t, ctx, dir, hudi.ScanOptions{}); strings.Join(got, ",") != "b|la|1|2" {
				t.Errorf("after the delete: %v", got)
			}
		})
	}
}
