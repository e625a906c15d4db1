package mdtwrite_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/mdt"
)

// rowsByKey reads the snapshot as key → partition path (a key held twice lists both,
// sorted). With update.partition.path=false a global update keeps the stored partition
// path while the row takes the incoming city (createNewTaggedHoodieRecord).
func rowsByKey(t *testing.T, dir string) map[string]string {
	t.Helper()
	ctx := context.Background()
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tb.Scan(ctx, hudi.ScanOptions{Columns: []string{"uuid", "_hoodie_partition_path"}})
	if err != nil {
		t.Fatal(err)
	}
	multi := map[string][]string{}
	err = sc.Run(ctx, func(rec arrow.Record) error {
		k, c := rec.Column(0).(*array.String), rec.Column(1).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			multi[k.Value(i)] = append(multi[k.Value(i)], c.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, cs := range multi {
		sort.Strings(cs)
		out[k] = strings.Join(cs, "+")
	}
	return out
}

func wantRows(t *testing.T, dir, when string, want map[string]string) {
	t.Helper()
	got := rowsByKey(t, dir)
	if len(got) != len(want) {
		t.Fatalf("%s: rows %v, want %v", when, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: rows %v, want %v", when, got, want)
		}
	}
}

// hoodie.index.type=RECORD_INDEX (Java 0.14's SparkMetadataTableRecordIndex) on COW and
// MOR: a global index — an update of a key arriving with another partition updates it in
// its stored partition (hoodie.record.index.update.partition.path=false, the default) or
// moves it (true) — whose lookups read the record_index partition; deletes of keys in any
// partition; the metadata table validates after each write.
func TestRecordIndexTagsWrites(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			tb, dir := tripsTable(t, typ, 0, nil)
			rli := map[string]string{"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.record.index.enable": "true"}
			writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}, {"k2", "sf"}, {"k3", "la"}}, rli)
			wantRows(t, dir, "insert", map[string]string{"k1": "sf", "k2": "sf", "k3": "la"})
			mustValidate(t, dir, "insert")
			// Global: k1 arrives with nyc and stays in sf (update.partition.path=false).
			writeRows(t, tb, "upsert", 2, [][2]string{{"k1", "nyc"}, {"k4", "nyc"}}, rli)
			wantRows(t, dir, "global update", map[string]string{"k1": "sf", "k2": "sf", "k3": "la", "k4": "nyc"})
			mustValidate(t, dir, "global update")
			move := map[string]string{"hoodie.index.type": "RECORD_INDEX", "hoodie.record.index.update.partition.path": "true"}
			writeRows(t, tb, "upsert", 3, [][2]string{{"k2", "la"}}, move)
			wantRows(t, dir, "partition move", map[string]string{"k1": "sf", "k2": "la", "k3": "la", "k4": "nyc"})
			mustValidate(t, dir, "partition move")
			// A delete names the key with any partition: the index finds it.
			writeRows(t, tb, "delete", 4, [][2]string{{"k3", "sf"}, {"k4", "sf"}}, rli)
			wantRows(t, dir, "delete", map[string]string{"k1": "sf", "k2": "la"})
			mustValidate(t, dir, "delete")
		})
	}
}

// The lookup reads the record index, not the base files: with k1's entry removed from the
// index, an upsert of k1 inserts it again (a GLOBAL_SIMPLE lookup would find and update
// it) — pinning where RECORD_INDEX looks. A key the index maps to a file group the table
// does not have stops the write.
func TestRecordIndexLookupReadsTheIndex(t *testing.T) {
	tb, dir := tripsTable(t, "cow", 0, nil)
	rli := map[string]string{"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.record.index.enable": "true"}
	writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}, {"k2", "la"}}, nil)
	writeRows(t, tb, "upsert", 2, [][2]string{{"k3", "la"}}, rli) // builds the index from the snapshot (k1, k2 in base files)
	rewriteIndex(t, dir, func(recs []*mdt.Record) []*mdt.Record {
		var keep []*mdt.Record
		for _, r := range recs {
			if r.Key != "k1" {
				keep = append(keep, r)
			}
		}
		return keep
	})
	writeRows(t, tb, "upsert", 3, [][2]string{{"k1", "la"}}, rli)
	wantRows(t, dir, "upsert of a key the index lacks", map[string]string{"k1": "la+sf", "k2": "la", "k3": "la"})

	rewriteIndex(t, dir, func(recs []*mdt.Record) []*mdt.Record {
		for _, r := range recs {
			if r.Key == "k2" {
				c := *r.RecordIndex
				c.FileIDHighBits++
				r.RecordIndex = &c
			}
		}
		return recs
	})
	err := writeRowsErr(tb, "upsert", 4, [][2]string{{"k2", "la"}}, rli)
	if err == nil || !strings.Contains(err.Error(), `record index: key "k2" maps to file group la/`) {
		t.Fatalf("error %v, want one naming the stale entry of k2", err)
	}
}

// RECORD_INDEX where the table has no record index and the write would not build one is
// refused before anything is written: without hoodie.metadata.record.index.enable, and with
// the metadata table off. Java falls back to GLOBAL_SIMPLE lookups there (hudi-go's choice
// to refuse; with the index enabled but not built yet, hudi-go falls back as Java does).
func TestRecordIndexRefusedWithoutTheIndex(t *testing.T) {
	tb, dir := tripsTable(t, "cow", 0, nil)
	writeRows(t, tb, "upsert", 1, [][2]string{{"k1", "sf"}}, nil)
	before, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
	for _, tc := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"hoodie.index.type": "RECORD_INDEX"}, "has no record index (hoodie.table.metadata.partitions lacks record_index): set hoodie.metadata.record.index.enable=true"},
		{map[string]string{"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.record.index.enable": "true", "hoodie.metadata.enable": "false"},
			"the record index lives in the metadata table, which hoodie.metadata.enable=false turns off"},
	} {
		err := writeRowsErr(tb, "upsert", 2, [][2]string{{"k1", "la"}}, tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%v: error %v, want one containing %q", tc.settings, err, tc.want)
		}
		after, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
		if len(after) != len(before) {
			t.Fatalf("%v: the refused write changed .hoodie", tc.settings)
		}
	}
	wantRows(t, dir, "after the refusals", map[string]string{"k1": "sf"})
	mustValidate(t, dir, "after the refusals")
}

// rewriteIndex rewrites every base file of the record index through edit.
func rewriteIndex(t *testing.T, dir string, edit func([]*mdt.Record) []*mdt.Record) {
	t.Helper()
	enc, _ := mdt.NewEncoder()
	bases, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", "record_index", "record-index-*.hfile"))
	if len(bases) == 0 {
		t.Fatal("no record_index base file")
	}
	for _, b := range bases {
		recs, err := mdt.DecodeHFile(mustRead(t, b), b)
		if err != nil {
			t.Fatal(err)
		}
		body, err := enc.BuildHFile(edit(recs), mdt.BaseFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
