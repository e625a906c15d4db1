package hudi_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/testutil"
)

// sparkClusterings are the Spark-written v9 fixtures whose timeline has a completed
// clustering (<T>.clustering.requested/.inflight, <T>_<C>.replacecommit), one
// copy-on-write and one merge-on-read.
var sparkClusterings = []struct{ id, key, instant string }{
	{"cow/v9_txns_simple_nometa", "txn_id", "20260307135709297"},
	{"mor-avro/v9_txns_simple_nometa", "txn_id", "20260307135840454"},
}

// TestLayoutTwoClusteringFilesMatchSpark: a clustering hudi-go runs on a copy of a Spark
// v9 table leaves the files Spark's own clustering left in that table (Hudi 1.x): the
// plan in <T>.clustering.requested and the completed <T>_<C>.replacecommit with Spark's
// writer schemas byte for byte and the same fields set or null; the inflight file empty.
// Before clustering was enabled on layout 2 it was refused there.
func TestLayoutTwoClusteringFilesMatchSpark(t *testing.T) {
	for _, tc := range sparkClusterings {
		t.Run(tc.id, func(t *testing.T) {
			ctx := context.Background()
			dir := testutil.Table(t, tc.id)
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := readRows(t, tb, tc.key)
			res, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true})
			if err != nil || !res.Completed {
				t.Fatalf("cluster: %+v %v", res, err)
			}
			checkLayoutTwoClusteringFiles(t, dir, res.Instant)
			ours, spark := instantFilesV2(t, dir, res.Instant), instantFilesV2(t, dir, tc.instant)
			for _, kind := range []string{"requested", "completed"} {
				gs, gf := shape(t, ours[kind])
				ws, wf := shape(t, spark[kind])
				if gs != ws {
					t.Errorf("%s: writer schema differs from Spark's:\n ours %s\nspark %s", kind, gs, ws)
				}
				if g, w := strings.Join(gf, "\n"), strings.Join(wf, "\n"); g != w {
					t.Errorf("%s: fields differ from Spark's\n got:\n%s\nwant:\n%s", kind, g, w)
				}
			}
			if b, err := os.ReadFile(spark["inflight"]); err != nil || len(b) != 0 {
				t.Fatalf("Spark's clustering inflight: %d bytes, %v", len(b), err)
			}
			tb, _ = hudi.Open(ctx, dir)
			sameRows(t, "after clustering", readRows(t, tb, tc.key), want)
		})
	}
}

// TestLayoutTwoReadsSparkClustering: our reader of a Spark v9 table treats a completed
// clustering replacecommit as Hudi does (its input file groups replaced, its output
// read) and, once the completed file is gone (the clustering pending: requested and
// inflight), reads the input file groups and ignores the uncommitted output lying in the
// partitions — the same rows each way, none twice. hudi-go then runs Spark's pending plan
// itself (rolling back Spark's inflight run first) and the rows stay the same. The
// readers passed this before clustering was enabled on layout 2 (the reader needed no
// change); executing Spark's plan was refused.
func TestLayoutTwoReadsSparkClustering(t *testing.T) {
	for _, tc := range sparkClusterings {
		t.Run(tc.id, func(t *testing.T) {
			ctx := context.Background()
			dir := testutil.Table(t, tc.id)
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			completed := scanRows(t, tb, tc.key)
			files := instantFilesV2(t, dir, tc.instant)
			if err := os.Remove(files["completed"]); err != nil {
				t.Fatal(err)
			}
			outputs, _ := filepath.Glob(filepath.Join(dir, "*", "*_"+tc.instant+".parquet"))
			if len(outputs) == 0 {
				t.Fatal("the clustering's output files are not in the table")
			}
			tb, err = hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, "clustering pending", scanRows(t, tb, tc.key), completed)

			res, err := tb.Cluster(ctx, hudi.ClusterOptions{Run: true})
			if err != nil || !res.Completed || res.Instant != tc.instant || len(res.RolledBack) != 1 {
				t.Fatalf("run Spark's pending clustering: %+v %v", res, err)
			}
			checkLayoutTwoClusteringFiles(t, dir, tc.instant)
			tb, _ = hudi.Open(ctx, dir)
			sameRows(t, "Spark's plan run by hudi-go", scanRows(t, tb, tc.key), completed)
			checkLayoutTwoTimeline(t, dir)
		})
	}
}
