package write_test

// Soft deletes of keys the table does not hold (issue 3). Java 0.14 routes them like
// inserts (the upsert partitioner gives every untagged record a file group); the handle
// they reach writes nothing for them and counts them in its write stat's numDeletes:
// HoodieCreateHandle (a new file group) and HoodieMergeHandle's insert path (a small file)
// alike, HoodieAppendHandle on merge-on-read buckets as delete records. A create handle
// opens its file when its first record arrives, so a new file group that receives only
// such deletes is still written, with no rows.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
)

func TestSoftDeleteOfMissingKeyCounted(t *testing.T) {
	tests := []struct {
		name     string
		typ      string
		settings map[string]string
		rows     []mrow
		// want: write result counts, files written, and the rows of the new base file (-1:
		// no new file group).
		wantIns, wantUpd, wantDel int64
		wantFiles                 int
		wantNewRows               int64
		wantSnapshot              []string
	}{
		{name: "cow: into a small file with an update", typ: "cow",
			rows:    []mrow{row("k1", "sf", 6, 2), softDel("k9", "sf", 6)},
			wantUpd: 1, wantDel: 1, wantFiles: 1, wantNewRows: -1, wantSnapshot: []string{"k1|sf|sf|6|2@up"}},
		{name: "cow: into a new file group with an insert", typ: "cow", settings: map[string]string{"hoodie.parquet.small.file.limit": "0"},
			rows:    []mrow{row("k2", "sf", 6, 2), softDel("k9", "sf", 6)},
			wantIns: 1, wantDel: 1, wantFiles: 1, wantNewRows: 1, wantSnapshot: []string{"k1|sf|sf|5|1@ins", "k2|sf|sf|6|2@up"}},
		{name: "cow: a new file group of deletes only is written empty", typ: "cow", settings: map[string]string{"hoodie.parquet.small.file.limit": "0"},
			rows:    []mrow{softDel("k8", "sf", 6), softDel("k9", "sf", 6)},
			wantDel: 2, wantFiles: 1, wantNewRows: 0, wantSnapshot: []string{"k1|sf|sf|5|1@ins"}},
		{name: "cow: small file of deletes only", typ: "cow",
			rows:    []mrow{softDel("k9", "sf", 6)},
			wantDel: 1, wantFiles: 1, wantNewRows: -1, wantSnapshot: []string{"k1|sf|sf|5|1@ins"}},
		{name: "mor: new file group of deletes only", typ: "mor", settings: map[string]string{"hoodie.parquet.small.file.limit": "0"},
			rows:    []mrow{softDel("k9", "sf", 6)},
			wantDel: 1, wantFiles: 1, wantNewRows: 0, wantSnapshot: []string{"k1|sf|sf|5|1@ins"}},
		// A merge-on-read insert goes into a small log-free base file, which is rewritten
		// (SparkUpsertDeltaCommitPartitioner.getSmallFileCandidates, Hudi 0.14).
		{name: "mor: small file of deletes only", typ: "mor",
			rows:    []mrow{softDel("k9", "sf", 6)},
			wantDel: 1, wantFiles: 1, wantNewRows: -1, wantSnapshot: []string{"k1|sf|sf|5|1@ins"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "cnt", Type: tc.typ, RecordKeyFields: []string{"id"}, PrecombineField: "ts",
				PartitionFields: []string{"city"}, Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"}); err != nil {
				t.Fatal(err)
			}
			stepOf := map[string]string{}
			write := func(step string, rows []mrow) *hudi.WriteResult {
				t.Helper()
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				b := buildBatch(rows, false)
				defer b.Release()
				res, err := tbl.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: "upsert", Settings: tc.settings})
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				stepOf[res.Instant] = step
				return res
			}
			write("ins", []mrow{row("k1", "sf", 5, 1)})
			res := write("up", tc.rows)
			if res.Records.Inserted != tc.wantIns || res.Records.Updated != tc.wantUpd || res.Records.Deleted != tc.wantDel || res.FilesWritten != tc.wantFiles {
				t.Errorf("result: +%d ~%d -%d in %d files, want +%d ~%d -%d in %d", res.Records.Inserted, res.Records.Updated, res.Records.Deleted,
					res.FilesWritten, tc.wantIns, tc.wantUpd, tc.wantDel, tc.wantFiles)
			}
			action := "commit"
			if tc.typ == "mor" {
				action = "deltacommit"
			}
			raw, err := os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+"."+action))
			if err != nil {
				t.Fatal(err)
			}
			var cm struct {
				PartitionToWriteStats map[string][]commitmeta.WriteStat `json:"partitionToWriteStats"`
			}
			if err := json.Unmarshal(raw, &cm); err != nil {
				t.Fatal(err)
			}
			var deletes int64
			newRows := int64(-1)
			for _, s := range cm.PartitionToWriteStats["sf"] {
				deletes += s.NumDeletes
				if s.PrevCommit == commitmeta.NullCommit {
					newRows = s.NumWrites
					if _, err := os.Stat(filepath.Join(dir, s.Path)); err != nil {
						t.Errorf("new base file: %v", err)
					}
				}
			}
			if deletes != tc.wantDel || newRows != tc.wantNewRows {
				t.Errorf("commit metadata: numDeletes %d, new file rows %d; want %d, %d\n%s", deletes, newRows, tc.wantDel, tc.wantNewRows, raw)
			}
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			got := globalRows(t, stepOf, scanRows(t, ctx, tbl, hudi.ScanOptions{}))
			if !slices.Equal(got, tc.wantSnapshot) {
				t.Errorf("snapshot %v, want %v", got, tc.wantSnapshot)
			}
		})
	}
}
