package mdt_test

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

// mdtFixtures unzips the Spark-written fixtures that carry a metadata table (found by
// their zip's entries, so the others are not unzipped).
func mdtFixtures(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range testutil.TableIDs(t) {
		zr, err := zip.OpenReader(filepath.Join(testutil.FixturesDir(t), "tables", id+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, f := range zr.File {
			if !strings.HasPrefix(f.Name, "__MACOSX/") && strings.HasSuffix(f.Name, "/.hoodie/metadata/.hoodie/hoodie.properties") {
				has = true
			}
		}
		zr.Close()
		if has {
			out[id] = testutil.Table(t, id)
		}
	}
	if len(out) != 14 {
		t.Fatalf("%d fixtures with a metadata table, want 14", len(out))
	}
	return out
}

// TestMetadataTableFixtures runs the checks below on every fixture with a metadata table.
func TestMetadataTableFixtures(t *testing.T) {
	var slices, keys, structural int
	for id, base := range mdtFixtures(t) {
		t.Run(id+"/files", func(t *testing.T) { slices += checkFilesPartition(t, base) })
		t.Run(id+"/record_index", func(t *testing.T) {
			n, lance := checkRecordIndex(t, base)
			keys += n
			if lance {
				structural++
			}
		})
	}
	t.Logf("planned %d latest file slices from the files partition; found %d snapshot keys in the record index; %d Lance fixtures checked structurally",
		slices, keys, structural)
}

// sliceFiles describes a view's latest file slices: partition, file group, base file and
// log files with sizes, one line per slice.
func sliceFiles(v *fsview.View) []string {
	var out []string
	for _, s := range v.LatestSlices() {
		line := fmt.Sprintf("%s/%s:", s.Partition, s.FileID)
		if s.Base != nil {
			line += fmt.Sprintf(" %s(%d)", s.Base.Name.String(), s.Base.Size)
		}
		for _, l := range s.Logs {
			line += fmt.Sprintf(" %s(%d)", l.Name.String(), l.Size)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// checkFilesPartition: the files partition (base HFiles and HFile log blocks merged) lists
// the partitions a directory listing finds, each partition's files read by point lookup
// equal the full read's, and planning from it gives the same latest file slices — base files, log
// files and sizes — as planning from the listing. Both go through the same file-system view
// (committed instants only, replaced file groups retired), which is how Java's
// HoodieMetadataTableValidator compares them: files of rolled-back or failed writes are on
// disk but in no committed slice, and files of archived instants count as committed.
func checkFilesPartition(t *testing.T, base string) int {
	ctx := context.Background()
	st := local.New(base)
	m, err := mdt.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !m.IsAvailable(mdt.PartitionFiles) {
		t.Fatalf("files partition not in %v", m.Available)
	}
	tbl, err := table.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := tbl.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fromMDT, err := m.Listing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var dirParts, mdtParts []string
	for _, p := range dir.Partitions {
		dirParts = append(dirParts, p.Path)
	}
	parts, err := m.Partitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range fromMDT.Partitions {
		mdtParts = append(mdtParts, p.Path)
	}
	if strings.Join(dirParts, ",") != strings.Join(mdtParts, ",") || strings.Join(parts, ",") != strings.Join(mdtParts, ",") {
		t.Errorf("partitions: listing %q, metadata table %q (%q)", dirParts, mdtParts, parts)
	}
	dv, err := tbl.View(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	mv, err := tbl.View(ctx, fromMDT, "")
	if err != nil {
		t.Fatal(err)
	}
	// Each partition's files by point lookup (ReadKeys: the key hashed to its file group)
	// equal the full read's.
	for _, p := range fromMDT.Partitions {
		files, err := m.PartitionFiles(ctx, p.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(p.Files) {
			t.Errorf("partition %q: %d files by lookup, %d by the full read", p.Path, len(files), len(p.Files))
		}
		for _, f := range p.Files {
			if size, ok := files[f.Name]; !ok || size != f.Size {
				t.Errorf("partition %q: file %s by lookup: %d %v, full read %d", p.Path, f.Name, size, ok, f.Size)
			}
		}
	}
	want, got := sliceFiles(dv), sliceFiles(mv)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("latest file slices differ\nfrom the listing:\n  %s\nfrom the metadata table:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
	}
	return len(got)
}

// checkRecordIndex: the record_index partition maps every record key of the latest
// snapshot to its partition and file group, and holds no other key; point lookups of every
// key (and of absent keys) agree with the full read. Two fixtures (v9_timebasedkeygen_*) hold a key twice in
// one partition (Spark's second INSERT duplicated it); the index maps it to one of its
// file groups. hudi-go does not read Lance base files, so for the six Lance fixtures the
// snapshot cannot be read: there every index entry must name a partition and a file group
// of the latest file slices (a weaker check, said in the subtest's log).
func checkRecordIndex(t *testing.T, base string) (keys int, lance bool) {
	ctx := context.Background()
	st := local.New(base)
	m, err := mdt.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !m.IsAvailable(mdt.PartitionRecordIndex) {
		t.Fatalf("record_index not in %v", m.Available)
	}
	ri, err := m.RecordIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ri) == 0 {
		t.Fatal("empty record index")
	}
	// Point lookups read only the file group each key hashes to: a wrong hash would miss.
	probe := []string{"no-such-key", ""}
	for k := range ri {
		probe = append(probe, k)
	}
	looked, err := m.LookupRecordIndex(ctx, probe)
	if err != nil {
		t.Fatal(err)
	}
	if len(looked) != len(ri) {
		t.Errorf("lookup found %d of %d keys", len(looked), len(ri))
	}
	for k, v := range ri {
		if looked[k] != v {
			t.Errorf("key %q: lookup %+v, full read %+v", k, looked[k], v)
		}
	}
	snap, err := snapshotLocations(base)
	if err != nil && strings.Contains(err.Error(), "LANCE is not supported") {
		groups := latestGroups(t, st)
		for k, info := range ri {
			if loc := info.PartitionName + "/" + info.FileGroupID(); !groups[loc] {
				t.Errorf("key %q: record index names %s, not a file group of the latest slices", k, loc)
			}
		}
		t.Logf("Lance base files: checked only that the %d index entries name live file groups", len(ri))
		return 0, true
	}
	if err != nil {
		t.Fatal(err)
	}
	for k, locs := range snap {
		got, ok := ri[k]
		if !ok {
			t.Errorf("key %q (%v) not in the record index", k, locs)
			continue
		}
		if loc := got.PartitionName + "/" + got.FileGroupID(); !locs[loc] {
			t.Errorf("key %q: record index says %s, snapshot %v", k, loc, locs)
		}
	}
	if len(ri) != len(snap) {
		var extra []string
		for k := range ri {
			if _, ok := snap[k]; !ok {
				extra = append(extra, k)
			}
		}
		t.Errorf("record index has %d keys, snapshot %d; not in the snapshot: %q", len(ri), len(snap), extra)
	}
	return len(snap), false
}

// latestGroups returns "partition/fileID" of every latest file slice, planned from a
// directory listing.
func latestGroups(t *testing.T, st *local.FS) map[string]bool {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tbl.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tbl.View(ctx, l, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, s := range v.LatestSlices() {
		out[s.Partition+"/"+string(s.FileID)] = true
	}
	return out
}

// snapshotLocations reads the latest snapshot's record keys, each with the
// "partition/fileID" of the file groups that hold it (from the meta columns).
func snapshotLocations(base string) (map[string]map[string]bool, error) {
	ctx := context.Background()
	tb, err := hudi.Open(ctx, base)
	if err != nil {
		return nil, err
	}
	sc, err := tb.Scan(ctx, hudi.ScanOptions{Columns: []string{"_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"}})
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	err = sc.Run(ctx, func(rec arrow.Record) error {
		keys := rec.Column(0).(*array.String)
		parts := rec.Column(1).(*array.String)
		names := rec.Column(2).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			id, ok := fileIDOf(names.Value(i))
			if !ok {
				return fmt.Errorf("row %d: file name %q", i, names.Value(i))
			}
			k := keys.Value(i)
			if out[k] == nil {
				out[k] = map[string]bool{}
			}
			out[k][parts.Value(i)+"/"+string(id)] = true
		}
		return nil
	})
	return out, err
}

// fileIDOf returns the file group of a _hoodie_file_name value: a base or log file name,
// or (records Hudi 1.x wrote to log files) the file ID itself.
func fileIDOf(name string) (spec.FileID, bool) {
	if b, ok := spec.ParseBaseFileName(name); ok {
		return b.FileID, true
	}
	if l, ok := spec.ParseLogFileName(name); ok {
		return l.FileID, true
	}
	if name != "" && !strings.ContainsAny(name, "._/") {
		return spec.FileID(name), true
	}
	return "", false
}

// TestOpenWithoutMetadataTable: a table without a metadata table says so with
// ErrNoMetadataTable (callers then list directories).
func TestOpenWithoutMetadataTable(t *testing.T) {
	base := testutil.Table(t, "cow/v6_nonpartitioned")
	if _, err := mdt.Open(context.Background(), local.New(base)); !errors.Is(err, mdt.ErrNoMetadataTable) {
		t.Fatalf("Open: %v, want ErrNoMetadataTable", err)
	}
}
