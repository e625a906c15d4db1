package mdtwrite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
)

// A restore to a savepoint keeps the metadata table, as Java 0.14 does
// (HoodieBackedTableMetadataWriter.update(HoodieRestoreMetadata)): the metadata table gets
// its own restore instant (rolling back its deltacommits after the savepoint, record_index
// blocks with them) and one sync deltacommit at a new instant + "003"; files and
// record_index then validate against the restored table, and the next RECORD_INDEX upsert
// works without hoodie.metadata.record.index.enable.
func TestRestoreKeepsMetadataTable(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tb, dir := tripsTable(t, typ, 0, nil)
			rli := map[string]string{"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.record.index.enable": "true"}
			writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}, {"k2", "sf"}, {"k3", "la"}}, rli)
			writeRows(t, tb, "upsert", 2, [][2]string{{"k2", "sf"}, {"k4", "nyc"}}, rli)
			sp := lastCommit(t, dir)
			if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, sp, hudi.SavepointOptions{}); err != nil {
				t.Fatal(err)
			}
			writeRows(t, tb, "upsert", 3, [][2]string{{"k5", "la"}, {"k1", "sf"}, {"k6", "chi"}}, rli)
			writeRows(t, tb, "delete", 4, [][2]string{{"k3", "la"}}, rli)
			if _, err := tb.Savepoint(ctx, hudi.SavepointRestore, sp, hudi.SavepointOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := metadataPartitions(t, dir); got != "files,record_index" {
				t.Fatalf("after the restore hoodie.table.metadata.partitions = %q, want files,record_index", got)
			}
			mdtTimeline := filepath.Join(dir, ".hoodie", "metadata", ".hoodie")
			if m, _ := filepath.Glob(filepath.Join(mdtTimeline, "*.restore")); len(m) != 1 {
				t.Fatalf("metadata table restores: %v, want one", m)
			}
			syncs, _ := filepath.Glob(filepath.Join(mdtTimeline, "*003.deltacommit"))
			if len(syncs) != 1 || len(strings.SplitN(filepath.Base(syncs[0]), ".", 2)[0]) != 20 {
				t.Fatalf("metadata table sync deltacommits: %v, want one <instant>003", syncs)
			}
			for _, c := range []string{"*.deltacommit", "*.commit"} {
				m, _ := filepath.Glob(filepath.Join(mdtTimeline, c))
				for _, f := range m {
					if in := strings.SplitN(filepath.Base(f), ".", 2)[0]; in[:17] > sp && !strings.HasSuffix(in, "003") {
						t.Fatalf("metadata table keeps %s after the restore to %s", filepath.Base(f), sp)
					}
				}
			}
			v := mustValidate(t, dir, "restore")
			if v.RecordIndexKeys != 4 {
				t.Fatalf("validated %d record index keys after the restore, want 4", v.RecordIndexKeys)
			}
			writeRows(t, tb, "upsert", 5, [][2]string{{"k1", "sf"}, {"k7", "la"}}, map[string]string{"hoodie.index.type": "RECORD_INDEX"})
			v = mustValidate(t, dir, "upsert after the restore")
			if v.RecordIndexKeys != 5 {
				t.Fatalf("validated %d record index keys after the upsert, want 5", v.RecordIndexKeys)
			}
		})
	}
}
