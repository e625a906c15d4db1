package timeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// lsmInstants are rows for the writer tests: real Avro metadata and plans from the v8/v9
// fixtures, an instant without metadata and one without completion time.
func lsmInstants(t *testing.T, from, n int) []LSMInstant {
	t.Helper()
	commit := loadReal(t, "v9_cow_commit_insert.avro").raw
	plan := loadReal(t, "v8_mor_compaction_requested.avro").raw
	var out []LSMInstant
	for i := from; i < from+n; i++ {
		ts := spec.InstantTime("202401010000000" + string(rune('0'+i/10)) + string(rune('0'+i%10)))
		r := LSMInstant{Time: ts, Action: spec.ActionCommit, Metadata: commit}
		r.Completion = spec.InstantTime(strings.Replace(string(ts), "2024", "2025", 1))
		switch i % 3 {
		case 1:
			r.Plan = plan // a compaction
		case 2:
			r.Action, r.Metadata = spec.ActionClean, nil
		}
		out = append(out, r)
	}
	return out
}

// TestWriteLSMFileIsReadBack: what the LSM writer writes, our reader of Java's LSM
// timeline reads back row for row, and the files are laid out as Hudi 1.x's
// LSMTimelineWriter lays them out: <first>_<last>_0.parquet, manifest_1 then manifest_2
// in Jackson's pretty-printed form with each file's length, _version_ naming the latest,
// and the parquet schema parquet-avro derives from HoodieLSMTimelineInstant with the Avro
// schema and writer.model.name in the footer. UNVERIFIED against a Java-written history
// (no fixture has one): the expected schema is parquet-avro's documented mapping.
func TestWriteLSMFileIsReadBack(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st := local.New(root)
	dir := ".hoodie/timeline/history"
	first, second := lsmInstants(t, 1, 3), lsmInstants(t, 4, 2)
	p1, n1, written, err := WriteLSMFile(ctx, st, dir, first, LSMWriteOptions{})
	if err != nil || !written {
		t.Fatal(written, err)
	}
	if want := dir + "/20240101000000001_20240101000000003_0.parquet"; p1 != want {
		t.Errorf("file %s, want %s", p1, want)
	}
	p2, n2, _, err := WriteLSMFile(ctx, st, dir, second, LSMWriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sizes := map[string][]byte{filepath.Base(p1): make([]byte, n1), filepath.Base(p2): make([]byte, n2)}
	if got, want := read("manifest_1"), string(manifestJSON(sizes, filepath.Base(p1))); got != want {
		t.Errorf("manifest_1:\n%s\nwant\n%s", got, want)
	}
	if got, want := read("manifest_2"), string(manifestJSON(sizes, filepath.Base(p1), filepath.Base(p2))); got != want {
		t.Errorf("manifest_2:\n%s\nwant\n%s", got, want)
	}
	if got := read("_version_"); got != "2" {
		t.Errorf("_version_ = %q, want 2", got)
	}
	fi, _ := os.Stat(filepath.Join(root, p1))
	if fi.Size() != n1 {
		t.Errorf("manifest length %d, file %d", n1, fi.Size())
	}

	got, err := LoadArchived(ctx, st, LayoutV2, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(first), second...)
	if len(got) != len(want) {
		t.Fatalf("%d instants read back, want %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Instant.Time != w.Time || g.Instant.Completion != w.Completion || g.Instant.Action != w.Action ||
			!bytes.Equal(g.Metadata, w.Metadata) || !bytes.Equal(g.Plan, w.Plan) || g.Instant.State != spec.StateCompleted {
			t.Errorf("row %d: %+v, want %+v", i, g.Instant, w)
		}
	}

	// The parquet layout parquet-avro gives HoodieLSMTimelineInstant.
	f, err := os.Open(filepath.Join(root, p1))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	var sb strings.Builder
	pqschema.PrintSchema(pr.MetaData().Schema.Root(), &sb, 2)
	const wantSchema = `required group field_id=-1 org.apache.hudi.avro.model.HoodieLSMTimelineInstant {
  optional byte_array field_id=-1 instantTime (String);
  optional byte_array field_id=-1 completionTime (String);
  optional byte_array field_id=-1 action (String);
  optional byte_array field_id=-1 metadata;
  optional byte_array field_id=-1 plan;
  required int32 field_id=-1 version;
}`
	if strings.TrimSpace(sb.String()) != wantSchema {
		t.Errorf("parquet schema:\n%s\nwant\n%s", sb.String(), wantSchema)
	}
	kv := map[string]string{}
	for _, e := range pr.MetaData().KeyValueMetadata().Keys() {
		kv[e] = *pr.MetaData().KeyValueMetadata().FindValue(e)
	}
	if !reflect.DeepEqual(kv, map[string]string{"parquet.avro.schema": avroschema.LSMTimelineInstant.JSON(), "writer.model.name": "avro"}) {
		t.Errorf("footer %v", kv)
	}
	cc, err := pr.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Compression().String() != "GZIP" {
		t.Errorf("compression %s, want Hudi's default gzip", cc.Compression())
	}
}

// TestWriteLSMFileAfterACrash: an archival killed after publishing its file (before the
// instants left the active timeline) runs again with the same instants; the published
// file is kept and no new snapshot is made. A file a killed write left unpublished is
// replaced. (LSMTimelineWriter.write's isFileCommitted check.)
func TestWriteLSMFileAfterACrash(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st := local.New(root)
	dir := ".hoodie/timeline/history"
	rows := lsmInstants(t, 1, 2)
	p, n, _, err := WriteLSMFile(ctx, st, dir, rows, LSMWriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p2, n2, written, err := WriteLSMFile(ctx, st, dir, rows, LSMWriteOptions{})
	if err != nil || written || p2 != p || n2 != n {
		t.Fatalf("rewrite of a published file: %s %d %v %v", p2, n2, written, err)
	}
	if _, err := os.Stat(filepath.Join(root, dir, "manifest_2")); !os.IsNotExist(err) {
		t.Errorf("a second snapshot was published: %v", err)
	}
	// An unpublished leftover of the next archival.
	more := lsmInstants(t, 3, 2)
	left := filepath.Join(root, dir, LSMFileName(more[0].Time, more[1].Time, 0))
	if err := os.WriteFile(left, []byte("PAR1 torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, written, err := WriteLSMFile(ctx, st, dir, more, LSMWriteOptions{}); err != nil || !written {
		t.Fatalf("write over a leftover: %v %v", written, err)
	}
	got, err := LoadArchived(ctx, st, LayoutV2, "", "")
	if err != nil || len(got) != 4 {
		t.Fatalf("read back %d instants, %v", len(got), err)
	}
}

// TestCompactAndCleanLSM follows Java's LSMTimelineWriter.compactAndClean with a batch of
// 3: the third layer-0 file triggers a merge of the three into one layer-1 file (a new
// snapshot without them); cleaning keeps the newest 3 snapshots plus one per merge, and
// deletes older manifests and every parquet file no kept snapshot lists. Every instant
// reads back once throughout.
func TestCompactAndCleanLSM(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st := local.New(root)
	dir := ".hoodie/timeline/history"
	o := LSMWriteOptions{CompactionBatch: 3}
	names := func() []string {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	total := 0
	step := func(i int, want []string) {
		t.Helper()
		rows := lsmInstants(t, 2*i+1, 2)
		if _, _, _, err := WriteLSMFile(ctx, st, dir, rows, o); err != nil {
			t.Fatal(err)
		}
		if _, err := CompactAndCleanLSM(ctx, st, dir, o); err != nil {
			t.Fatal(err)
		}
		total += len(rows)
		slices.Sort(want)
		if got := names(); !slices.Equal(got, want) {
			t.Errorf("after archival %d:\n got %v\nwant %v", i+1, got, want)
		}
		got, err := LoadArchived(ctx, st, LayoutV2, "", "")
		if err != nil || len(got) != total {
			t.Fatalf("after archival %d: %d instants read back (%v), want %d", i+1, len(got), err, total)
		}
	}
	const (
		f1 = "20240101000000001_20240101000000002_0.parquet"
		f2 = "20240101000000003_20240101000000004_0.parquet"
		f3 = "20240101000000005_20240101000000006_0.parquet"
		f4 = "20240101000000007_20240101000000008_0.parquet"
		f5 = "20240101000000009_20240101000000010_0.parquet"
		m1 = "20240101000000001_20240101000000006_1.parquet"
	)
	step(0, []string{f1, "_version_", "manifest_1"})
	step(1, []string{f1, f2, "_version_", "manifest_1", "manifest_2"})
	// f3 makes three: merged into m1 (manifest_4); 4 snapshots, 3 + 1 kept.
	step(2, []string{f1, f2, f3, m1, "_version_", "manifest_1", "manifest_2", "manifest_3", "manifest_4"})
	// 5 snapshots, 3 kept: manifests 1 and 2 go; manifest_3 still lists f1-f3.
	step(3, []string{f1, f2, f3, m1, f4, "_version_", "manifest_3", "manifest_4", "manifest_5"})
	step(4, []string{m1, f4, f5, "_version_", "manifest_4", "manifest_5", "manifest_6"})
	b, _ := os.ReadFile(filepath.Join(root, dir, "manifest_6"))
	for _, n := range []string{m1, f4, f5} {
		if !strings.Contains(string(b), `"fileName" : "`+n+`"`) {
			t.Errorf("manifest_6 lacks %s:\n%s", n, b)
		}
	}
}
