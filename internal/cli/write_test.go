package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const tripsDDL = "ts BIGINT, uuid STRING, rider STRING, fare DOUBLE, city STRING"

func createTrips(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "trips")
	_, stderr, code := run(t, "create", dir, "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city", "--hive-style", "--schema", tripsDDL)
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	return dir
}

func writeInput(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	return p
}

// snapshotFiles lists every file under the table, so a test can check that a failed write
// left the table untouched.
func snapshotFiles(t *testing.T, dir string) string {
	t.Helper()
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return strings.Join(files, "\n")
}

func TestWriteRoundTrip(t *testing.T) {
	dir := createTrips(t)
	in := writeInput(t,
		`{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`,
		`{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"nyc"}`)
	out, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in, "--format", "json")
	if code != 0 || !strings.Contains(out, `"inserted":2`) {
		t.Fatalf("insert: exit %d: %s %s", code, out, stderr)
	}
	up := writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":99.0,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--input", up); code != 0 {
		t.Fatalf("upsert: %s", stderr)
	}
	got, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid,fare")
	lines := canonicalLines(t, got)
	want := []string{`{"fare":20.0,"uuid":"b"}`, `{"fare":99.0,"uuid":"a"}`}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("after upsert:\n%s", strings.Join(lines, "\n"))
	}
	// The output of read feeds back as input (meta columns ignored).
	back := filepath.Join(t.TempDir(), "back.jsonl")
	full, _, _ := run(t, "read", dir, "--format", "jsonl")
	os.WriteFile(back, []byte(full), 0o644)
	if out, stderr, code := run(t, "write", dir, "--input", back, "--format", "json"); code != 0 || !strings.Contains(out, `"updated":2`) {
		t.Errorf("re-upsert of read output: exit %d %s %s", code, out, stderr)
	}
}

func TestWriteBadInputLeavesTableUntouched(t *testing.T) {
	dir := createTrips(t)
	good := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", good); code != 0 {
		t.Fatal(stderr)
	}
	before := snapshotFiles(t, dir)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"malformed JSON line", []string{"write", dir, "--input", writeInput(t, `{"ts":1,"uuid":"b","rider":null,"fare":null,"city":"sf"}`, `{"ts":2,"uuid":`)}, ExitRuntime, "line 2"},
		{"missing record key", []string{"write", dir, "--input", writeInput(t, `{"ts":1,"rider":"x","city":"sf"}`)}, ExitRuntime, "uuid"},
		{"null record key", []string{"write", dir, "--input", writeInput(t, `{"ts":1,"uuid":null,"rider":null,"fare":null,"city":"sf"}`)}, ExitRuntime, "uuid"},
		{"unknown column", []string{"write", dir, "--input", writeInput(t, `{"ts":1,"uuid":"c","city":"sf","color":"red"}`)}, ExitRuntime, "color"},
		{"incompatible type", []string{"write", dir, "--input", writeInput(t, `{"ts":"yesterday","uuid":"c","rider":null,"fare":null,"city":"sf"}`)}, ExitRuntime, "ts"},
		{"unknown op", []string{"write", dir, "--op", "merge", "--input", good}, ExitRuntime, "unknown write operation"},
		{"bad setting value", []string{"write", dir, "--input", good, "--set", "hoodie.parquet.max.file.size=huge"}, ExitRuntime, "hoodie.parquet.max.file.size"},
		{"malformed --set", []string{"write", dir, "--input", good, "--set", "nokey"}, ExitUsage, "key=value"},
		{"missing input", []string{"write", dir}, ExitUsage, "--input"},
		{"not a table", []string{"write", t.TempDir(), "--input", good}, ExitRuntime, "not a Hudi table"},
	}
	for _, tc := range tests {
		_, stderr, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", tc.name, code, stderr, tc.code, tc.msg)
		}
		if after := snapshotFiles(t, dir); after != before {
			t.Errorf("%s changed the table:\nbefore:\n%s\nafter:\n%s", tc.name, before, after)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	dir := createTrips(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"exists", []string{"create", dir, "--record-key", "uuid", "--schema", tripsDDL}, ExitRuntime, "already exists"},
		{"no schema", []string{"create", filepath.Join(t.TempDir(), "x"), "--record-key", "uuid"}, ExitUsage, "--schema"},
		{"bad DDL", []string{"create", filepath.Join(t.TempDir(), "x"), "--record-key", "uuid", "--schema", "uuid STRANG"}, ExitRuntime, "schema"},
		{"key not in schema", []string{"create", filepath.Join(t.TempDir(), "x"), "--record-key", "id", "--schema", tripsDDL}, ExitRuntime, "id"},
	}
	for _, tc := range tests {
		_, stderr, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", tc.name, code, stderr, tc.code, tc.msg)
		}
	}
}

// The BUCKET index puts each key in the file group of its bucket (file ids start with the
// 8-digit bucket number) and updates it there without any lookup.
func TestBucketIndexWrites(t *testing.T) {
	dir := createTrips(t)
	bucket := []string{"--set", "hoodie.index.type=BUCKET", "--set", "hoodie.bucket.index.num.buckets=4"}
	var lines []string
	for i := 0; i < 40; i++ {
		lines = append(lines, `{"ts":1,"uuid":"k`+strconv.Itoa(i)+`","rider":"r","fare":1.0,"city":"sf"}`)
	}
	if _, stderr, code := run(t, append([]string{"write", dir, "--input", writeInput(t, lines...)}, bucket...)...); code != 0 {
		t.Fatal(stderr)
	}
	up := writeInput(t, `{"ts":2,"uuid":"k7","rider":"r","fare":7.0,"city":"sf"}`, `{"ts":2,"uuid":"k99","rider":"r","fare":9.0,"city":"sf"}`)
	out, stderr, code := run(t, append([]string{"write", dir, "--input", up, "--format", "json"}, bucket...)...)
	if code != 0 || !strings.Contains(out, `"updated":1`) || !strings.Contains(out, `"inserted":1`) {
		t.Fatalf("bucket upsert: exit %d %s %s", code, out, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "city=sf", "*.parquet"))
	groups := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		if !regexp.MustCompile(`^0000000[0-3]-`).MatchString(name) {
			t.Errorf("file %s is not named after a bucket", name)
		}
		groups[name[:8]] = true
	}
	if len(groups) > 4 {
		t.Errorf("%d buckets for 4 configured", len(groups))
	}
	got, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid")
	if n := len(canonicalLines(t, got)); n != 41 {
		t.Errorf("rows = %d, want 41", n)
	}
}

// hoodie.datasource.insert.dup.policy: none inserts a stored key again, drop skips it,
// fail refuses the write (and leaves the table untouched).
func TestInsertDupPolicy(t *testing.T) {
	dir := createTrips(t)
	first := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":1.0,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", first); code != 0 {
		t.Fatal(stderr)
	}
	again := writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":2.0,"city":"sf"}`, `{"ts":2,"uuid":"b","rider":"r2","fare":3.0,"city":"sf"}`)
	before := snapshotFiles(t, dir)
	_, stderr, code := run(t, "write", dir, "--op", "insert", "--input", again, "--set", "hoodie.datasource.insert.dup.policy=fail")
	if code != ExitRuntime || !strings.Contains(stderr, `"a"`) {
		t.Errorf("fail policy: exit %d, %s", code, stderr)
	}
	if snapshotFiles(t, dir) != before {
		t.Error("fail policy changed the table")
	}
	out, stderr, code := run(t, "write", dir, "--op", "insert", "--input", again, "--set", "hoodie.datasource.write.insert.drop.duplicates=true", "--format", "json")
	if code != 0 || !strings.Contains(out, `"inserted":1`) {
		t.Fatalf("drop policy: exit %d %s %s", code, out, stderr)
	}
	got, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid,fare")
	want := []string{`{"fare":1.0,"uuid":"a"}`, `{"fare":3.0,"uuid":"b"}`}
	if lines := canonicalLines(t, got); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("after drop policy:\n%s", strings.Join(lines, "\n"))
	}
}

// TestDropPartitionColumnsCLI creates a table with
// --set hoodie.datasource.write.drop.partition.columns=true and writes to it twice: the
// second write's input is decoded with the commit schema, which lacks the partition
// column, so the column must be added back for the rows to land in their partitions. The
// read returns the partition column from the partition path.
func TestDropPartitionColumnsCLI(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trips")
			_, stderr, code := run(t, "create", dir, "--type", typ, "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city",
				"--schema", tripsDDL, "--set", "hoodie.datasource.write.drop.partition.columns=true")
			if code != 0 {
				t.Fatalf("create: exit %d: %s", code, stderr)
			}
			for _, in := range []string{
				writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`, `{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"nyc"}`),
				writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":99.0,"city":"sf"}`, `{"ts":2,"uuid":"c","rider":"r3","fare":5.0,"city":"la"}`),
			} {
				if out, stderr, code := run(t, "write", dir, "--input", in, "--format", "json"); code != 0 {
					t.Fatalf("write: exit %d: %s %s", code, out, stderr)
				}
			}
			got, _, _ := run(t, "read", dir, "--format", "jsonl", "--columns", "uuid,fare,city")
			want := []string{
				`{"city":"la","fare":5.0,"uuid":"c"}`,
				`{"city":"nyc","fare":20.0,"uuid":"b"}`,
				`{"city":"sf","fare":99.0,"uuid":"a"}`,
			}
			if lines := canonicalLines(t, got); strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Errorf("read:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// bulk_insert streams its input (Table.WriteReader) from JSON Lines and from Parquet: the
// rows land as written; a bad line after good ones fails the write and commits nothing,
// and the next write rolls the pending instant back.
func TestBulkInsertStreamsInput(t *testing.T) {
	dir := createTrips(t)
	var lines []string
	for i := 0; i < 3000; i++ {
		lines = append(lines, fmt.Sprintf(`{"ts":%d,"uuid":"k%04d","rider":"r","fare":1.5,"city":"%s"}`, i, i, []string{"sf", "nyc", "la"}[i%3]))
	}
	out, stderr, code := run(t, "write", dir, "--op", "bulk_insert", "--input", writeInput(t, lines...), "--format", "json")
	if code != 0 || !strings.Contains(out, `"inserted":3000`) || !strings.Contains(out, `"files_written":3`) {
		t.Fatalf("bulk_insert jsonl: exit %d: %s %s", code, out, stderr)
	}
	// One of the base files just written, as Parquet input (meta columns ignored): its
	// keys again, as new rows of a second bulk_insert.
	files, _ := filepath.Glob(filepath.Join(dir, "city=sf", "*.parquet"))
	if len(files) != 1 {
		t.Fatalf("files in city=sf: %v", files)
	}
	out, stderr, code = run(t, "write", dir, "--op", "bulk_insert", "--input", files[0], "--format", "json")
	if code != 0 || !strings.Contains(out, `"inserted":1000`) {
		t.Fatalf("bulk_insert parquet: exit %d: %s %s", code, out, stderr)
	}
	got, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid")
	if n := len(canonicalLines(t, got)); n != 4000 {
		t.Fatalf("rows = %d, want 4000", n)
	}

	bad := append(append([]string(nil), lines[:2000]...), `{"ts":1,"uuid":`)
	_, stderr, code = run(t, "write", dir, "--op", "bulk_insert", "--input", writeInput(t, bad...))
	if code != ExitRuntime || !strings.Contains(stderr, "line 2001") {
		t.Fatalf("bad input: exit %d, stderr %q", code, stderr)
	}
	got, _, _ = run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid")
	if n := len(canonicalLines(t, got)); n != 4000 {
		t.Fatalf("after the failed bulk_insert: rows = %d, want 4000", n)
	}
	// The failed writer ran in this process, so its heartbeat would count as a running
	// writer until it expires; expire it as time would.
	if err := os.RemoveAll(filepath.Join(dir, ".hoodie", ".heartbeat")); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run(t, "write", dir, "--op", "bulk_insert", "--input", writeInput(t, lines[0]), "--format", "json")
	if code != 0 || !strings.Contains(out, `"inserted":1`) {
		t.Fatalf("write after the failure: exit %d: %s %s", code, out, stderr)
	}
	tl, _, _ := run(t, "timeline", dir, "--format", "json")
	if !strings.Contains(tl, `"rollback"`) {
		t.Errorf("the failed bulk_insert was not rolled back:\n%s", tl)
	}
}
