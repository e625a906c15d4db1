package sql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/props"
)

// TestRepairCorruptedCleanFiles: repair_corrupted_clean_files deletes the timeline file of
// each pending clean whose plan does not decode in its current state (an empty file
// included) and keeps good ones, returning result = true (RepairCorruptedCleanFilesProcedure).
func TestRepairCorruptedCleanFiles(t *testing.T) {
	e := newTrips(t, "cow")
	hoodie := filepath.Join(e.cat.defaultPath("default", "trips"), ".hoodie")
	plan, err := commitmeta.EncodeCleanerPlan(&commitmeta.CleanerPlan{Policy: "KEEP_LATEST_COMMITS", Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"20990101000000001.clean.requested": plan,                      // good, pending
		"20990101000000002.clean.requested": []byte("not avro at all"), // corrupt
		"20990101000000003.clean.requested": plan,                      // good requested …
		"20990101000000003.clean.inflight":  {},                        // … but the current state is an empty inflight
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(hoodie, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := query(t, e, "CALL repair_corrupted_clean_files(table => 'trips')"); got != `{"result":true}` {
		t.Errorf("result: %s", got)
	}
	for name, kept := range map[string]bool{
		"20990101000000001.clean.requested": true,
		"20990101000000002.clean.requested": false,
		"20990101000000003.clean.requested": true,
		"20990101000000003.clean.inflight":  false,
	} {
		_, err := os.Stat(filepath.Join(hoodie, name))
		if kept != (err == nil) {
			t.Errorf("%s: kept = %v, want %v", name, err == nil, kept)
		}
	}
	if got := query(t, e, "SELECT count(*) AS n FROM trips"); got != `{"n":4}` {
		t.Errorf("after the repair the table reads %s", got)
	}
}

// TestRepairOverwriteHoodieProps: repair_overwrite_hoodie_props replaces hoodie.properties
// with a file's properties and lists each key with its old and new value ("null" for a
// missing side), sorted (RepairOverwriteHoodiePropsProcedure). A file that changes the
// table's type or version, lacks the table name, or cannot be read is refused before
// anything is written (hudi-go's checks).
func TestRepairOverwriteHoodieProps(t *testing.T) {
	e := newTrips(t, "cow")
	root := e.cat.defaultPath("default", "trips")
	propsFile := filepath.Join(root, ".hoodie", "hoodie.properties")
	orig, err := os.ReadFile(propsFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := props.Parse(strings.NewReader(string(orig)))
	if err != nil {
		t.Fatal(err)
	}
	oldArchive, ok := p.Get("hoodie.archivelog.folder")
	if !ok {
		t.Fatalf("hoodie.properties has no hoodie.archivelog.folder:\n%s", orig)
	}
	writeProps := func(name string, change func(*props.Properties)) string {
		q := p.Clone()
		change(q)
		var b strings.Builder
		if err := props.Store(&b, q, "", time.Now()); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	for _, tc := range []struct {
		name   string
		change func(*props.Properties)
		want   string
	}{
		{"type", func(q *props.Properties) { q.Set("hoodie.table.type", "MERGE_ON_READ") }, "changing the table type is refused"},
		{"version", func(q *props.Properties) { q.Set("hoodie.table.version", "8") }, "changing the table version is refused"},
		{"name", func(q *props.Properties) { q.Delete("hoodie.table.name") }, "hoodie.table.name is missing"},
	} {
		path := writeProps(tc.name, tc.change)
		err := runErr(t, e, "CALL repair_overwrite_hoodie_props(table => 'trips', new_props_file_path => '"+path+"')")
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
	}
	if err := runErr(t, e, "CALL repair_overwrite_hoodie_props(table => 'trips', new_props_file_path => '/nonexistent/x.properties')"); !strings.Contains(err.Error(), "/nonexistent/x.properties") {
		t.Errorf("missing file: %v", err)
	}
	if now, _ := os.ReadFile(propsFile); string(now) != string(orig) {
		t.Fatalf("a refused call changed hoodie.properties:\n%s", now)
	}

	path := writeProps("good", func(q *props.Properties) {
		q.Delete("hoodie.archivelog.folder")
		q.Set("hoodie.datasource.write.hive_style_partitioning", "true")
		q.Set("hoodie.table.checksum", "1") // a stale checksum is replaced
	})
	got := query(t, e, "CALL repair_overwrite_hoodie_props(table => 'trips', new_props_file_path => '"+path+"')")
	checksum, _ := p.Get("hoodie.table.checksum")
	for _, want := range []string{
		`{"property":"hoodie.archivelog.folder","old_value":"` + oldArchive + `","new_value":"null"}`,
		`{"property":"hoodie.table.checksum","old_value":"` + checksum + `","new_value":"` + checksum + `"}`,
		`{"property":"hoodie.table.name","old_value":"trips","new_value":"trips"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	lines := strings.Split(got, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i-1] >= lines[i] {
			t.Errorf("rows not sorted by property: %s then %s", lines[i-1], lines[i])
		}
	}
	now, err := os.ReadFile(propsFile)
	if err != nil {
		t.Fatal(err)
	}
	q, err := props.Parse(strings.NewReader(string(now)))
	if err != nil {
		t.Fatal(err)
	}
	if err := props.VerifyChecksum(q); err != nil {
		t.Errorf("new hoodie.properties: %v", err)
	}
	if _, ok := q.Get("hoodie.archivelog.folder"); ok {
		t.Errorf("hoodie.archivelog.folder kept:\n%s", now)
	}
	if got := query(t, e, "SELECT count(*) AS n FROM trips"); got != `{"n":4}` {
		t.Errorf("after the repair the table reads %s", got)
	}
}
