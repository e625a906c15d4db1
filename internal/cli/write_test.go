package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
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

// A setting an inline table service would refuse after the commit refuses the write
// before its instant is created (Java validates these when it builds the write config:
// HoodieWriteConfig.Builder.validate, HoodieClusteringConfig.Builder.validate; the clean,
// archive, clustering and compaction option checks are hudi-go's own, run early).
func TestWriteRefusesServiceSettingsBeforeTheInstant(t *testing.T) {
	dir := createTrips(t)
	good := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", good); code != 0 {
		t.Fatal(stderr)
	}
	before := snapshotFiles(t, dir)
	tests := []struct {
		name string
		sets []string
		msg  string
	}{
		{"commits retained 0", []string{"hoodie.cleaner.commits.retained=0"}, "hoodie.cleaner.commits.retained=0"},
		{"keep.min > keep.max", []string{"hoodie.keep.min.commits=40", "hoodie.keep.max.commits=30"}, "hoodie.keep.max.commits=30"},
		{"keep.min <= retained", []string{"hoodie.cleaner.commits.retained=25"}, "hoodie.keep.min.commits=20"},
		{"keep.min > keep.max with auto archive off (Java validates always)", []string{"hoodie.archive.automatic=false", "hoodie.keep.min.commits=40", "hoodie.keep.max.commits=30"}, "hoodie.keep.max.commits=30"},
		{"file versions retained 0", []string{"hoodie.cleaner.policy=KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained=0"}, "hoodie.cleaner.fileversions.retained=0"},
		{"archival batch 0", []string{"hoodie.commits.archival.batch=0"}, "hoodie.commits.archival.batch=0"},
		{"inline and schedule-inline compaction", []string{"hoodie.compact.inline=true", "hoodie.compact.schedule.inline=true"}, "hoodie.compact.schedule.inline"},
		{"inline and schedule-inline clustering", []string{"hoodie.clustering.inline=true", "hoodie.clustering.schedule.inline=true"}, "hoodie.clustering.schedule.inline"},
		{"inline clustering, unsupported plan strategy", []string{"hoodie.clustering.inline=true", "hoodie.clustering.plan.strategy.class=x.SparkSingleFileSortPlanStrategy"}, "hoodie.clustering.plan.strategy.class"},
		{"inline clustering of a bucket table", []string{"hoodie.clustering.inline=true", "hoodie.index.type=BUCKET"}, "BUCKET"},
	}
	for _, tc := range tests {
		args := []string{"write", dir, "--input", good, "--format", "json"}
		for _, s := range tc.sets {
			args = append(args, "--set", s)
		}
		out, stderr, code := run(t, args...)
		if code != ExitRuntime || !strings.Contains(stderr, tc.msg) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 mentioning %q", tc.name, code, out, stderr, tc.msg)
		}
		if after := snapshotFiles(t, dir); after != before {
			t.Errorf("%s changed the table:\nbefore:\n%s\nafter:\n%s", tc.name, before, after)
		}
	}
}

// A merge-on-read write refuses compaction settings its inline compaction would refuse.
func TestWriteRefusesInlineCompactionSettingsBeforeTheInstant(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mor")
	if _, stderr, code := run(t, "create", dir, "--type", "mor", "--record-key", "uuid", "--precombine", "ts", "--schema", tripsDDL); code != 0 {
		t.Fatal(stderr)
	}
	before := snapshotFiles(t, dir)
	in := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	_, stderr, code := run(t, "write", dir, "--input", in, "--set", "hoodie.compact.inline=true",
		"--set", "hoodie.compaction.strategy=org.apache.hudi.table.action.compact.strategy.DayBasedCompactionStrategy")
	if code != ExitRuntime || !strings.Contains(stderr, "hoodie.compaction.strategy") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if after := snapshotFiles(t, dir); after != before {
		t.Errorf("the refused write changed the table:\n%s", after)
	}
}

// An inline service that fails after the commit (here: a pending clean whose plan cannot
// be read) exits 3, not 1, and the result says the write committed, with its instant
// (hudi-go's CLI contract; Java has no CLI exit status for it).
func TestWriteInlineServiceFailureAfterCommitExits3(t *testing.T) {
	dir := createTrips(t)
	good := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", good); code != 0 {
		t.Fatal(stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hoodie", "20000101000000000.clean.requested"), []byte("not avro"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "text"} {
		out, stderr, code := run(t, "write", dir, "--input", good, "--format", format)
		if code != ExitServiceFailed {
			t.Fatalf("%s: exit %d, want %d; stdout %q stderr %q", format, code, ExitServiceFailed, out, stderr)
		}
		inst := regexp.MustCompile(`\d{17}`).FindString(out)
		if inst == "" || !strings.Contains(stderr, "committed") || !strings.Contains(stderr, inst) {
			t.Errorf("%s: stdout %q stderr %q: want the committed instant in both", format, out, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", inst+".commit")); err != nil {
			t.Errorf("%s: the write is not committed: %v", format, err)
		}
		if format == "json" && (!strings.Contains(out, `"committed":true`) || !strings.Contains(out, `"service_error":`) || !strings.Contains(out, `"instant":"`+inst+`"`)) {
			t.Errorf("json result %q: want instant, committed and service_error", out)
		}
		if format == "text" && !strings.HasPrefix(out, "committed commit "+inst) {
			t.Errorf("text result %q", out)
		}
	}
}

// A --set that contradicts the table or the operation fails, naming both values. Java's
// rules (HoodieWriterUtils.validateTableConfig, 0.14): a key hoodie.properties holds,
// the record key, precombine and key generator settings. hudi-go's own (Java 0.14 takes
// the table's value): the table type, the partition path fields and the operation.
func TestWriteRefusesSettingsThatContradictTheTable(t *testing.T) {
	dir := createTrips(t)
	good := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", good); code != 0 {
		t.Fatal(stderr)
	}
	before := snapshotFiles(t, dir)
	tests := []struct {
		name string
		args []string
		want []string // both values, named in the error
	}{
		{"operation vs --op", []string{"--op", "insert", "--set", "hoodie.datasource.write.operation=upsert"}, []string{"hoodie.datasource.write.operation=upsert", "insert"}},
		{"record key (Java)", []string{"--set", "hoodie.datasource.write.recordkey.field=rider"}, []string{"recordkey.field=rider", "hoodie.table.recordkey.fields=uuid"}},
		{"precombine (Java)", []string{"--set", "hoodie.datasource.write.precombine.field=fare"}, []string{"precombine.field=fare", "hoodie.table.precombine.field=ts"}},
		{"key generator (Java)", []string{"--set", "hoodie.datasource.write.keygenerator.class=org.apache.hudi.keygen.ComplexKeyGenerator"},
			[]string{"ComplexKeyGenerator", "hoodie.table.keygenerator.class=org.apache.hudi.keygen.SimpleKeyGenerator"}},
		{"table key in hoodie.properties (Java)", []string{"--set", "hoodie.table.type=MERGE_ON_READ"}, []string{"hoodie.table.type=MERGE_ON_READ", "COPY_ON_WRITE"}},
		{"hive style in hoodie.properties (Java)", []string{"--set", "hoodie.datasource.write.hive_style_partitioning=false"}, []string{"hive_style_partitioning=false", "true"}},
		{"writer table type", []string{"--set", "hoodie.datasource.write.table.type=MERGE_ON_READ"}, []string{"hoodie.datasource.write.table.type=MERGE_ON_READ", "COPY_ON_WRITE"}},
		{"partition path fields", []string{"--set", "hoodie.datasource.write.partitionpath.field=rider"}, []string{"partitionpath.field=rider", "hoodie.table.partition.fields=city"}},
	}
	for _, tc := range tests {
		args := append([]string{"write", dir, "--input", good}, tc.args...)
		_, stderr, code := run(t, args...)
		if code != ExitRuntime {
			t.Errorf("%s: exit %d, want 1 (stderr %q)", tc.name, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q does not name %q", tc.name, stderr, w)
			}
		}
		if after := snapshotFiles(t, dir); after != before {
			t.Errorf("%s changed the table", tc.name)
		}
	}
	// Settings that agree with the table are accepted (table keys case-insensitively),
	// and the operation setting names the operation when --op is not given.
	out, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":1,"uuid":"b","rider":"r2","fare":1.5,"city":"sf"}`), "--format", "json",
		"--set", "hoodie.table.type=copy_on_write", "--set", "hoodie.datasource.write.recordkey.field=uuid",
		"--set", "hoodie.datasource.write.partitionpath.field=city", "--set", "hoodie.datasource.write.operation=insert")
	if code != 0 || !strings.Contains(out, `"operation":"insert"`) {
		t.Errorf("agreeing settings: exit %d, %s %s", code, out, stderr)
	}
}

// Writer-level key generator settings are honoured on a table whose hoodie.properties
// lacks them, as Spark 0.14 leaves hoodie.keygen.timebased.* out of it (no v6 fixture
// uses TimestampBasedKeyGenerator, so the table is made here and its properties stripped
// the way Spark writes them).
func TestWriteHonoursWriterKeygenSettingsMissingFromTheTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tb")
	ts := []string{"--set", "hoodie.keygen.timebased.timestamp.type=DATE_STRING",
		"--set", "hoodie.keygen.timebased.input.dateformat=yyyy-MM-dd HH:mm:ss",
		"--set", "hoodie.keygen.timebased.output.dateformat=yyyy/MM/dd"}
	args := append([]string{"create", dir, "--record-key", "id", "--precombine", "ts", "--partition-by", "ev",
		"--schema", "id STRING, ts BIGINT, ev STRING",
		"--set", "hoodie.datasource.write.keygenerator.class=org.apache.hudi.keygen.TimestampBasedKeyGenerator"}, ts...)
	if _, stderr, code := run(t, args...); code != 0 {
		t.Fatal(stderr)
	}
	propsPath := filepath.Join(dir, ".hoodie", "hoodie.properties")
	b, err := os.ReadFile(propsPath)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "hoodie.keygen.timebased.") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(propsPath, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	in := writeInput(t, `{"id":"a","ts":1,"ev":"2024-03-05 10:11:12"}`)
	if _, stderr, code := run(t, "write", dir, "--input", in); code != ExitRuntime || !strings.Contains(stderr, "hoodie.keygen.timebased.timestamp.type") {
		t.Fatalf("without the settings: exit %d, %s; want the missing key named", code, stderr)
	}
	out, stderr, code := run(t, append([]string{"write", dir, "--input", in, "--format", "json"}, ts...)...)
	if code != 0 {
		t.Fatalf("with the settings: exit %d: %s %s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "2024", "03", "05", ".hoodie_partition_metadata")); err != nil {
		t.Errorf("partition 2024/03/05 not written: %v", err)
	}
	// A setting the table does hold must agree with it (HoodieWriterUtils.validateTableConfig).
	_, stderr, code = run(t, "write", dir, "--input", in, "--set", "hoodie.table.partition.fields=id")
	if code != ExitRuntime || !strings.Contains(stderr, "hoodie.table.partition.fields=id") {
		t.Errorf("contradicting table key: exit %d %s", code, stderr)
	}
}

// hudi create persists the table-level keys Java persists when they are given
// (HoodieTableMetaClient.PropertyBuilder, Hudi 0.14), takes table keys given as settings
// where no flag names them, and refuses settings it cannot honour or that contradict a flag.
func TestCreatePersistsTableLevelSettings(t *testing.T) {
	readProps := func(t *testing.T, dir string) map[string]string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, ".hoodie", "hoodie.properties"))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") {
				m[k] = v
			}
		}
		return m
	}
	dir := filepath.Join(t.TempDir(), "tz")
	if _, stderr, code := run(t, "create", dir, "--record-key", "uuid", "--schema", tripsDDL,
		"--set", "hoodie.table.timeline.timezone=utc", "--set", "hoodie.table.base.file.format=parquet",
		"--set", "hoodie.table.cdc.enabled=false", "--set", "hoodie.table.type=MERGE_ON_READ",
		"--set", "hoodie.table.name=renamed"); code != 0 {
		t.Fatal(stderr)
	}
	p := readProps(t, dir)
	for k, want := range map[string]string{"hoodie.table.timeline.timezone": "UTC", "hoodie.table.base.file.format": "PARQUET",
		"hoodie.table.cdc.enabled": "false", "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.name": "renamed"} {
		if p[k] != want {
			t.Errorf("hoodie.properties %s=%q, want %q", k, p[k], want)
		}
	}
	// The writer then generates instants in UTC.
	before := time.Now().UTC().Format("20060102150405")
	out, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`), "--format", "json")
	after := time.Now().UTC().Format("20060102150405")
	inst := regexp.MustCompile(`"instant":"(\d{17})"`).FindStringSubmatch(out)
	if code != 0 || inst == nil || inst[1][:14] < before || inst[1][:14] > after {
		t.Errorf("write on a UTC table: exit %d %s %s; want an instant between %s and %s", code, out, stderr, before, after)
	}

	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"CDC without meta fields", []string{"--set", "hoodie.table.cdc.enabled=true", "--set", "hoodie.populate.meta.fields=false"},
			"change-data capture without meta fields"},
		{"CDC bad mode", []string{"--set", "hoodie.table.cdc.enabled=true", "--set", "hoodie.table.cdc.supplemental.logging.mode=KEY_OP"},
			"hoodie.table.cdc.supplemental.logging.mode"},
		{"bootstrap", []string{"--set", "hoodie.bootstrap.base.path=/data/src"}, "hoodie.bootstrap.base.path"},
		{"ORC", []string{"--set", "hoodie.table.base.file.format=ORC"}, "hoodie.table.base.file.format=ORC"},
		{"metafile in base format", []string{"--set", "hoodie.partition.metafile.use.base.format=true"}, "hoodie.partition.metafile.use.base.format=true"},
		{"bad timezone", []string{"--set", "hoodie.table.timeline.timezone=PST"}, "hoodie.table.timeline.timezone"},
		{"type vs --type", []string{"--type", "cow", "--set", "hoodie.table.type=MERGE_ON_READ"}, "hoodie.table.type=MERGE_ON_READ contradicts the table type COPY_ON_WRITE"},
		{"record key vs --record-key", []string{"--set", "hoodie.table.recordkey.fields=rider"}, "hoodie.table.recordkey.fields=rider contradicts the record key fields uuid"},
	} {
		d := filepath.Join(t.TempDir(), "bad")
		args := append([]string{"create", d, "--record-key", "uuid", "--schema", tripsDDL}, tc.args...)
		_, stderr, code := run(t, args...)
		if code != ExitRuntime || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d %q; want exit 1 naming %q", tc.name, code, stderr, tc.msg)
		}
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s: a refused create left %s behind", tc.name, d)
		}
	}
}

// A null list element is refused with the column, row and index, before the instant,
// on copy-on-write and merge-on-read tables and on the streaming bulk_insert: Java 0.14's
// Avro write path (parquet-avro, old 2-level lists) cannot write one, and a file holding
// one breaks Java's later merges of its file group.
func TestWriteRefusesNullListElements(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		dir := filepath.Join(t.TempDir(), typ)
		if _, stderr, code := run(t, "create", dir, "--type", typ, "--record-key", "id", "--precombine", "ts",
			"--schema", "id STRING, ts BIGINT, tags ARRAY<STRING>, s STRUCT<xs: ARRAY<INT>>, m MAP<STRING, ARRAY<INT>>"); code != 0 {
			t.Fatal(stderr)
		}
		good := writeInput(t, `{"id":"a","ts":1,"tags":["x"],"s":{"xs":[1]},"m":[{"key":"k","value":[1]}]}`)
		if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", good); code != 0 {
			t.Fatalf("%s: %s", typ, stderr)
		}
		before := snapshotFiles(t, dir)
		for _, tc := range []struct {
			name, line, op, msg string
		}{
			{"top-level", `{"id":"b","ts":1,"tags":["x",null]}`, "upsert", "input row 2, column tags: the array contains a null element at index 1"},
			{"in a struct", `{"id":"a","ts":2,"s":{"xs":[null]}}`, "upsert", "input row 2, column s.xs: the array contains a null element at index 0"},
			{"in a map value", `{"id":"a","ts":2,"m":[{"key":"k","value":[1,2,null]}]}`, "upsert", "null element at index 2"},
			{"streaming bulk_insert", `{"id":"c","ts":1,"tags":[null]}`, "bulk_insert", "input row 2, column tags: the array contains a null element at index 0"},
		} {
			in := writeInput(t, `{"id":"z","ts":1}`, tc.line)
			// The rows leave columns out: nulls for them are asked for explicitly (a missing
			// column is refused otherwise).
			_, stderr, code := run(t, "write", dir, "--op", tc.op, "--input", in, "--set", "hoodie.write.set.null.for.missing.columns=true")
			if code != ExitRuntime || !strings.Contains(stderr, tc.msg) {
				t.Errorf("%s %s: exit %d %q; want exit 1 with %q", typ, tc.name, code, stderr, tc.msg)
			}
			if tc.op != "bulk_insert" {
				if after := snapshotFiles(t, dir); after != before {
					t.Errorf("%s %s changed the table", typ, tc.name)
				}
			}
		}
	}
}

// A merge-on-read table without meta fields (hoodie.populate.meta.fields=false) rebuilds
// its record keys with its key generator when it is read. Writer-level
// key generator settings that hoodie.properties lacks (Spark 0.14 keeps
// hoodie.keygen.timebased.* out of it) are honoured there too, given with --set, as writes
// honour them; without them the read fails naming the missing key, and a value contradicting the
// table's is refused naming both. A read takes only hoodie.keygen.* settings, and only on a
// table without meta fields: any other --set is refused (hudi-go's choice: Java's readers
// take no such options). Java 0.14 (and hudi-go) write tables without meta fields only with
// the simple, complex or non-partitioned key generators ("Only simple, non-partitioned or
// complex key generator are supported when meta-fields are disabled"), so the table is
// written with SimpleKeyGenerator and its hoodie.properties then names
// TimestampBasedKeyGenerator without its settings, as a table written by another writer
// would (UNVERIFIED: no fixture has such a table).
func TestReadHonoursWriterKeygenSettingsOnVirtualKeyTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vk")
	ts := []string{"--set", "hoodie.keygen.timebased.timestamp.type=DATE_STRING",
		"--set", "hoodie.keygen.timebased.input.dateformat=yyyy-MM-dd",
		"--set", "hoodie.keygen.timebased.output.dateformat=yyyy/MM/dd"}
	if _, stderr, code := run(t, "create", dir, "--type", "mor", "--record-key", "id", "--precombine", "ts", "--partition-by", "ev",
		"--schema", "id STRING, ts BIGINT, ev STRING, v STRING", "--set", "hoodie.populate.meta.fields=false"); code != 0 {
		t.Fatal(stderr)
	}
	for i, row := range []string{`{"id":"a","ts":1,"ev":"2024-03-05","v":"one"}`, `{"id":"a","ts":2,"ev":"2024-03-05","v":"two"}`} {
		if out, stderr, code := run(t, "write", dir, "--op", "upsert", "--input", writeInput(t, row)); code != 0 {
			t.Fatalf("write %d: exit %d: %s %s", i, code, out, stderr)
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "2024-03-05", ".*.log.*")); len(logs) == 0 {
		t.Fatal("the update went to no log file")
	}
	propsPath := filepath.Join(dir, ".hoodie", "hoodie.properties")
	b, err := os.ReadFile(propsPath)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "hoodie.table.keygenerator.class=") {
			l = "hoodie.table.keygenerator.class=org.apache.hudi.keygen.TimestampBasedKeyGenerator"
		}
		if !strings.HasPrefix(l, "hoodie.keygen.timebased.") && !strings.HasPrefix(l, "hoodie.table.checksum=") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(propsPath, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}

	// Reads: without the settings the key generator cannot be built.
	if _, stderr, code := run(t, "read", dir, "--format", "jsonl"); code != ExitRuntime || !strings.Contains(stderr, "hoodie.keygen.timebased.timestamp.type") {
		t.Fatalf("read without the settings: exit %d, %s; want the missing key named", code, stderr)
	}
	out, stderr, code := run(t, append([]string{"read", dir, "--format", "jsonl", "--columns", "id,v"}, ts...)...)
	if code != 0 || strings.TrimSpace(out) != `{"id":"a","v":"two"}` {
		t.Fatalf("read with the settings: exit %d: %q %s", code, out, stderr)
	}
	for _, bad := range []string{"hoodie.compact.inline=true", "hoodie.keygen.timebased.timestamp.type=NOPE", "no.such.key=1"} {
		_, stderr, code := run(t, append([]string{"read", dir, "--format", "jsonl"}, append(ts, "--set", bad)...)...)
		if code == 0 || !strings.Contains(stderr, strings.SplitN(bad, "=", 2)[0]) {
			t.Errorf("read --set %s: exit %d %s; want it refused naming the key", bad, code, stderr)
		}
	}

	// Compaction of such a table is refused whatever the settings, as Java's write client
	// refuses it (HoodieTableMetaClient.validateTableProperties): a compaction of a table
	// without meta fields only ever builds a simple, complex or non-partitioned key
	// generator, which takes no hoodie.keygen.timebased.* settings. (It is handed the
	// compaction's settings all the same, through the same table.Config.KeyGen.)
	if _, stderr, code := run(t, append([]string{"compact", dir}, ts...)...); code == 0 || !strings.Contains(stderr, "Only simple, non-partitioned or complex key generator") {
		t.Fatalf("compact: exit %d, %s; want Java's refusal", code, stderr)
	}

	// A value the table does hold must agree with it.
	if err := os.WriteFile(propsPath, []byte(strings.Join(kept, "\n")+"\nhoodie.keygen.timebased.timestamp.type=DATE_STRING\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = run(t, "read", dir, "--set", "hoodie.keygen.timebased.timestamp.type=EPOCHMILLISECONDS")
	if code == 0 || !strings.Contains(stderr, "hoodie.keygen.timebased.timestamp.type=EPOCHMILLISECONDS contradicts") || !strings.Contains(stderr, "DATE_STRING") {
		t.Errorf("contradicting read setting: exit %d %s", code, stderr)
	}
}

// A read of a table with meta fields refuses key generator settings: it reads its keys
// from _hoodie_record_key and would not use them.
func TestReadRefusesKeygenSettingsOnTablesWithMetaFields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	if _, stderr, code := run(t, "create", dir, "--record-key", "id", "--schema", "id STRING, v STRING"); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := run(t, "read", dir, "--set", "hoodie.keygen.timebased.timestamp.type=DATE_STRING")
	if code == 0 || !strings.Contains(stderr, "hoodie.populate.meta.fields=false") {
		t.Errorf("exit %d %s", code, stderr)
	}
}

// TestCreateWithoutRecordKey: `hudi create` without --record-key makes a table whose
// record keys are generated (Hudi 0.14's auto keys): an insert gives each row
// "<instant>_0_<row>", and a delete through `hudi write` is refused (its rows name no
// stored record).
func TestCreateWithoutRecordKey(t *testing.T) {
	dir := t.TempDir() + "/t"
	if _, stderr, code := run(t, "create", dir, "--partition-by", "city", "--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	in := t.TempDir() + "/in.jsonl"
	rows := `{"ts":1,"uuid":"a","rider":"r1","fare":1.5,"city":"sf"}
{"ts":2,"uuid":"b","rider":"r2","fare":2.5,"city":"la"}
`
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in, "--format", "json")
	if code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	var res struct{ Instant string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Instant == "" {
		t.Fatalf("write result %q: %v", out, err)
	}
	out, stderr, code = run(t, "read", dir, "--format", "jsonl", "--columns", "_hoodie_record_key,uuid")
	if code != 0 {
		t.Fatalf("read: %s", stderr)
	}
	for _, want := range []string{`"_hoodie_record_key":"` + res.Instant + `_0_0","uuid":"a"`, `"_hoodie_record_key":"` + res.Instant + `_0_1","uuid":"b"`} {
		if !strings.Contains(out, want) {
			t.Errorf("read:\n%s\nwant %s", out, want)
		}
	}
	if _, stderr, code := run(t, "write", dir, "--op", "delete", "--input", in); code == 0 || !strings.Contains(stderr, "_hoodie_record_key") {
		t.Errorf("delete: code %d, %s", code, stderr)
	}
}
