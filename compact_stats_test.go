package hudi_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/testutil"
)

// Compaction commit stats count rows as Java's merge handle does (HoodieMergeHandle:
// numUpdateWrites = base rows replaced by their log record, numDeletes = keys whose
// merged log record is a delete; HoodieCompactor: totalUpdatedRecordsCompacted = distinct
// keys in the logs). The scenario is the Spark-written fixture
// trips-mor-avro/v8_trips_8i3u1d's (its SQL: 8 inserts, then update rider-A, delete
// rider-F, update and then delete rider-J, then compaction), replayed on a v6 table; its
// compaction commit's counts are the expected ones, partition by partition. numInserts is
// not compared: that Hudi 1.x commit counts the copied base rows as inserts, where 0.14's
// HoodieMergeHandle counts only log keys the base lacked (insertRecordsWritten, 0 here).
func TestCompactionStatsCountAsJavaMergeHandle(t *testing.T) {
	ctx := context.Background()
	fixture := testutil.Table(t, "trips-mor-avro/v8_trips_8i3u1d")
	b, err := os.ReadFile(filepath.Join(fixture, ".hoodie", "timeline", "20251220210129235_20251220210129883.commit"))
	if err != nil {
		t.Fatal(err)
	}
	javaCommit, err := commitmeta.Decode(b)
	if err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "trips")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PrecombineField: "ts", PartitionFields: []string{"city"}, HiveStyle: true,
		Schema: "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	trip := func(ts int64, uuid, rider, driver string, fare float64, city string) row {
		return row{"ts": ts, "uuid": uuid, "rider": rider, "driver": driver, "fare": fare, "city": city}
	}
	a := trip(1695159649087, "334e26e9-8355-45cc-97c6-c31daf0df330", "rider-A", "driver-K", 19.10, "san_francisco")
	f := trip(1695516137016, "e3cf430c-889d-4015-bc98-59bdce1e530c", "rider-F", "driver-P", 34.15, "sao_paulo")
	j := trip(1695115999911, "c8abbe79-8d89-47ea-b4ce-4d224bae5bfa", "rider-J", "driver-T", 17.85, "chennai")
	rows := []row{a,
		trip(1695091554788, "e96c4396-3fad-413a-a942-4cb36106d721", "rider-C", "driver-M", 27.70, "san_francisco"),
		trip(1695046462179, "9909a8b1-2d15-4d3d-8ec9-efc48c536a00", "rider-D", "driver-L", 33.90, "san_francisco"),
		trip(1695332066204, "1dced545-862b-4ceb-8b43-d2a568f6616b", "rider-E", "driver-O", 93.50, "san_francisco"),
		f,
		trip(1695376420876, "7a84095f-737f-40bc-b62f-6b69664712d2", "rider-G", "driver-Q", 43.40, "sao_paulo"),
		trip(1695173887231, "3eeb61f7-c2b0-4636-99bd-5d7a5a1d2c04", "rider-I", "driver-S", 41.06, "chennai"),
		j}
	set := map[string]string{"hoodie.parquet.small.file.limit": "0"}
	write := func(op string, rs ...row) {
		t.Helper()
		if _, err := tb.Write(ctx, batchesOf(t, tb, rs), hudi.WriteOptions{Operation: op, Settings: set}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	write("insert", rows...)
	a["fare"], j["fare"] = 0.0, 0.0
	write("upsert", a)
	write("delete", f)
	write("upsert", j)
	write("delete", j)
	res, err := tb.Compact(ctx, hudi.CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+".commit"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := commitmeta.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"city=san_francisco", "city=sao_paulo", "city=chennai"} {
		want, got := javaCommit.PartitionToWriteStats[p], ours.PartitionToWriteStats[p]
		if len(want) != 1 || len(got) != 1 {
			t.Fatalf("%s: %d Java stats, %d ours", p, len(want), len(got))
		}
		w, g := want[0], got[0]
		if g.NumUpdateWrites != w.NumUpdateWrites || g.NumDeletes != w.NumDeletes || g.TotalUpdatedRecordsCompacted != w.TotalUpdatedRecordsCompacted ||
			g.TotalLogRecords != w.TotalLogRecords || g.NumWrites != w.NumWrites || g.NumInserts != 0 {
			t.Errorf("%s: numUpdateWrites %d numDeletes %d totalUpdatedRecordsCompacted %d totalLogRecords %d numWrites %d numInserts %d; "+
				"Java: %d %d %d %d %d (numInserts 0 in 0.14)", p, g.NumUpdateWrites, g.NumDeletes, g.TotalUpdatedRecordsCompacted, g.TotalLogRecords,
				g.NumWrites, g.NumInserts, w.NumUpdateWrites, w.NumDeletes, w.TotalUpdatedRecordsCompacted, w.TotalLogRecords, w.NumWrites)
		}
	}
}
