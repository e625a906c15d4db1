package hudi_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
)

// dataFiles lists a partition's base and log files by kind.
func dataFiles(t *testing.T, dir, partition string) (bases, logs []string, groups map[string]bool) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, partition))
	if err != nil {
		t.Fatal(err)
	}
	groups = map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".parquet"):
			bases = append(bases, n)
			groups[n[:strings.Index(n, "_")]] = true
		case strings.Contains(n, ".log."):
			logs = append(logs, n)
			groups[strings.TrimPrefix(n[:strings.Index(n, "_")], ".")] = true
		}
	}
	sort.Strings(bases)
	return bases, logs, groups
}

// Merge-on-read upserts route inserts into small base files without log files and
// rewrite them, as Java 0.14's SparkUpsertDeltaCommitPartitioner.getSmallFileCandidates
// and BaseSparkDeltaCommitActionExecutor.handleUpdate do for indexes that cannot index log
// files; the rewritten file's bloom filter holds the inserted keys, so a later BLOOM
// lookup finds them. A slice with log files is no candidate; at most
// hoodie.merge.small.file.group.candidates.limit (1) files per partition take inserts.
func TestMORInsertsGoIntoSmallLogFreeBaseFiles(t *testing.T) {
	ctx := context.Background()
	for _, index := range []string{"SIMPLE", "BLOOM"} {
		t.Run(index, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trips")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]string{"hoodie.index.type": index}
			write := func(op string, rows ...row) *hudi.WriteResult {
				t.Helper()
				res, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Operation: op, Settings: set})
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				return res
			}
			write("insert", row{"uuid": "a", "ts": 1, "fare": 1.0, "city": "sf"}, row{"uuid": "b", "ts": 1, "fare": 2.0, "city": "sf"})
			bases, logs, groups := dataFiles(t, dir, "sf")
			if len(bases) != 1 || len(logs) != 0 {
				t.Fatalf("after the insert: %v %v", bases, logs)
			}
			// An upsert of a new key and an update: both go into the small file's group,
			// merged into its next base file version (no log file, no new group).
			res := write("upsert", row{"uuid": "c", "ts": 2, "fare": 3.0, "city": "sf"}, row{"uuid": "a", "ts": 2, "fare": 10.0, "city": "sf"})
			if res.Records.Inserted != 1 || res.Records.Updated != 1 {
				t.Errorf("upsert result %+v", res.Records)
			}
			bases2, logs2, groups2 := dataFiles(t, dir, "sf")
			if len(groups2) != len(groups) || len(bases2) != 2 || len(logs2) != 0 {
				t.Fatalf("after the upsert: groups %v (before %v), base files %v, logs %v; want the small file's group rewritten", groups2, groups, bases2, logs2)
			}
			// The rewritten file indexes the inserted key: updating it appends to the
			// group's log instead of creating another group.
			res = write("upsert", row{"uuid": "c", "ts": 3, "fare": 30.0, "city": "sf"})
			if res.Records.Updated != 1 || res.Records.Inserted != 0 {
				t.Errorf("update of the routed key: %+v", res.Records)
			}
			_, logs3, groups3 := dataFiles(t, dir, "sf")
			if len(groups3) != len(groups) || len(logs3) != 1 {
				t.Errorf("after updating the routed key: groups %v, logs %v", groups3, logs3)
			}
			// The slice now has a log file: no longer a candidate, so the next insert
			// starts a new file group.
			write("upsert", row{"uuid": "d", "ts": 4, "fare": 4.0, "city": "sf"})
			if _, _, groups4 := dataFiles(t, dir, "sf"); len(groups4) != len(groups)+1 {
				t.Errorf("insert next to a slice with logs: groups %v", groups4)
			}
			got := readRows(t, tb, "uuid")
			want := map[string]string{`"a"`: "10", `"b"`: "2", `"c"`: "30", `"d"`: "4"}
			if len(got) != len(want) {
				t.Errorf("rows %v", got)
			}
			for k, fare := range want {
				if r, ok := got[k]; !ok || string(mustJSON(r["fare"])) != fare && string(mustJSON(r["fare"])) != fare+".0" {
					t.Errorf("row %s: %v, want fare %s", k, r, fare)
				}
			}
		})
	}
}

// Only hoodie.merge.small.file.group.candidates.limit small files per partition (default
// 1, the smallest) take inserts on a merge-on-read table.
func TestMORSmallFileCandidatesLimit(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "trips")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: "mor", RecordKeyFields: []string{"uuid"},
		PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
	if err != nil {
		t.Fatal(err)
	}
	// Two small files: inserts split across two groups (small-file handling off).
	off := map[string]string{"hoodie.parquet.small.file.limit": "0"}
	for _, k := range []string{"a", "b"} {
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": k, "ts": 1, "fare": 1.0, "city": "sf"}}), hudi.WriteOptions{Operation: "insert", Settings: off}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, before := dataFiles(t, dir, "sf")
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "c", "ts": 1, "fare": 1.0, "city": "sf"}}), hudi.WriteOptions{Operation: "upsert"}); err != nil {
		t.Fatal(err)
	}
	bases, _, after := dataFiles(t, dir, "sf")
	if len(before) != 2 || len(after) != 2 || len(bases) != 3 {
		t.Errorf("groups before %v after %v, base files %v: want one of the two small files rewritten", before, after, bases)
	}
}
