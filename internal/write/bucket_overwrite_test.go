package write_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
)

// An insert_overwrite of a bucket-indexed table writes its records into bucket file groups
// (SparkInsertOverwriteSimpleBucketIndexPartitioner, Hudi 0.14, HUDI-5857), so that a later
// upsert of the same key finds it in its bucket instead of creating a second bucket group
// and a duplicate (found by TestCDCModelReplay).
func TestBucketInsertOverwriteKeepsBuckets(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "b", Type: typ, RecordKeyFields: []string{"id"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"}); err != nil {
				t.Fatal(err)
			}
			s := map[string]string{"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"}
			for _, w := range []struct {
				op   string
				rows []mrow
			}{
				{"upsert", []mrow{row("k1", "sf", 1, 1), row("k2", "sf", 1, 2)}},
				{"insert_overwrite", []mrow{row("k9", "sf", 2, 9)}},
				{"upsert", []mrow{row("k9", "sf", 3, 90)}},
			} {
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				b := buildBatch(w.rows, false)
				_, err = tbl.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: w.op, Settings: s})
				b.Release()
				if err != nil {
					t.Fatalf("%s: %v", w.op, err)
				}
			}
			tbl, _ := hudi.Open(ctx, dir)
			got := scanRows(t, ctx, tbl, hudi.ScanOptions{})
			if len(got) != 1 || !strings.Contains(got[0], "|id=k9|city=sf|ts=3|val=90|") {
				t.Errorf("snapshot %v: want k9 once, updated", got)
			}
		})
	}
}
