package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/testutil"
)

// TestReadTableStreams checks that --format table sizes its columns from the first
// tableSampleRows rows and streams the rest: a longer value after the sample widens only
// its own line, not the header (a buffered table would size every line by it). One row
// says "(1 row)".
func TestReadTableStreams(t *testing.T) {
	dir := createTrips(t)
	var lines []string
	n := tableSampleRows + 200
	for i := 0; i < n; i++ {
		rider := "r"
		if i == n-1 {
			rider = strings.Repeat("x", 40)
		}
		lines = append(lines, fmt.Sprintf(`{"ts":%d,"uuid":"k%05d","rider":%q,"fare":1.5,"city":"sf"}`, i, i, rider))
	}
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", writeInput(t, lines...)); code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	out, stderr, code := run(t, "read", dir, "--format", "table", "--columns", "uuid,rider,fare")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(rows) != n+2 {
		t.Fatalf("%d lines, want %d", len(rows), n+2)
	}
	if want := "uuid   | rider | fare"; rows[0] != want {
		t.Errorf("header %q, want %q (widths from the sample)", rows[0], want)
	}
	long := 0
	for _, r := range rows[2:] {
		if strings.Contains(r, strings.Repeat("x", 40)) {
			long++
		} else if len(r) != len(rows[0]) {
			t.Errorf("row %q not aligned with the header", r)
			break
		}
	}
	if long != 1 {
		t.Errorf("%d rows hold the long value, want 1", long)
	}
	if !strings.Contains(stderr, fmt.Sprintf("(%d rows)", n)) {
		t.Errorf("stderr %q lacks the row count", stderr)
	}
	_, stderr, _ = run(t, "read", dir, "--format", "table", "--limit", "1")
	if !strings.Contains(stderr, "(1 row)") {
		t.Errorf("one row: stderr %q, want (1 row)", stderr)
	}
}

// TestReadVertical pins the vertical format: a block per row, names aligned.
func TestReadVertical(t *testing.T) {
	dir := createTrips(t)
	in := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in); code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	out, stderr, code := run(t, "read", dir, "--format", "vertical", "--columns", "uuid,rider,fare,city")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "-[ RECORD 1 ]-------\nuuid  | a\nrider | r1\nfare  | 10.5\ncity  | sf\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestRootHelpVersionAndWarnings: the root help says what hudi does, --version prints the
// version, and warnings are plain lines, not slog's time=… level=WARN records.
func TestRootHelpVersionAndWarnings(t *testing.T) {
	out, _, code := run(t, "--help")
	if code != 0 || strings.Contains(out, "read, describe and inspect") || !strings.Contains(out, "hudi sql") {
		t.Errorf("help (exit %d):\n%s", code, out)
	}
	out, _, code = run(t, "--version")
	if code != 0 || out != "hudi "+Version+"\n" {
		t.Errorf("--version (exit %d): %q", code, out)
	}
	dir := createTrips(t)
	in := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	_, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in, "--set", "hoodie.unknown.key=1")
	if code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	if !strings.Contains(stderr, "hudi: warning: ") || strings.Contains(stderr, "level=WARN") {
		t.Errorf("warning lines: %q", stderr)
	}
}

// TestTimelineStatsAndDescribeTypes: timeline shows each commit's operation and the stats
// of hudi-cli's `commits show`, and on a v6 table the completion time from the completed
// file's modification time (Java's v6 timeline); describe prints Spark SQL types and the
// table properties in text form too. On the Spark-written cow/v6_nonpartitioned fixture.
func TestTimelineStatsAndDescribeTypes(t *testing.T) {
	dir := testutil.Table(t, "cow/v6_nonpartitioned")
	mod := time.Date(2024, 4, 18, 17, 35, 52, 123_000_000, time.Local)
	if err := os.Chtimes(filepath.Join(dir, ".hoodie", "20240418173551906.commit"), mod, mod); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "timeline", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var entries []map[string]any
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	var last map[string]any
	for _, en := range entries {
		if en["instant"] == "20240418173551906" && en["state"] == "completed" {
			last = en
		}
	}
	if last == nil || last["completion_time"] != "20240418173552123" || last["operation"] != "UPSERT" ||
		last["total_records_written"] != 4.0 || last["total_update_records_written"] != 1.0 || last["total_files_updated"] != 1.0 {
		t.Errorf("timeline entry: %v", last)
	}
	text, _, _ := run(t, "timeline", dir)
	if !strings.Contains(text, "OPERATION") || !strings.Contains(text, "upsert") {
		t.Errorf("timeline text:\n%s", text)
	}
	desc, _, code := run(t, "describe", dir)
	for _, want := range []string{"decimalField            decimal(10,5)", "arrayField              array<struct<", "Properties:", "hoodie.table.name"} {
		if code != 0 || !strings.Contains(desc, want) {
			t.Errorf("describe lacks %q:\n%s", want, desc)
		}
	}
	// A table without a record key (Hudi 0.14's generated keys) says so.
	auto := filepath.Join(t.TempDir(), "auto")
	if _, stderr, code := run(t, "create", auto, "--partition-by", "city", "--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	if desc, _, _ := run(t, "describe", auto); !strings.Contains(desc, "Record key:      (none: keys are generated)") {
		t.Errorf("describe of a table with generated keys:\n%s", desc)
	}
}

// TestDeletePartitionReports: hudi write --op delete_partition reports the partitions it
// dropped (text and JSON), and a partition that names no existing one fails without a
// commit.
func TestDeletePartitionReports(t *testing.T) {
	dir := createTrips(t)
	in := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`, `{"ts":1,"uuid":"b","rider":"r2","fare":1,"city":"nyc"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", in); code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	before := snapshotFiles(t, dir)
	_, stderr, code := run(t, "write", dir, "--op", "delete_partition", "--set", "hoodie.datasource.write.partitions.to.delete=city=paris")
	if code == 0 || !strings.Contains(stderr, `"city=paris" names no partition`) {
		t.Errorf("missing partition: exit %d, %s", code, stderr)
	}
	if after := snapshotFiles(t, dir); after != before {
		t.Errorf("a failed delete_partition changed the table:\n%s\n%s", before, after)
	}
	// The same for input rows naming a partition that does not exist, alone or beside one
	// that does.
	for _, rows := range [][]string{{`{"uuid":"x","city":"paris"}`}, {`{"uuid":"a","city":"sf"}`, `{"uuid":"x","city":"paris"}`}} {
		_, stderr, code := run(t, "write", dir, "--op", "delete_partition", "--input", writeInput(t, rows...))
		if code == 0 || !strings.Contains(stderr, `"city=paris" names no partition`) {
			t.Errorf("rows %v: exit %d, %s", rows, code, stderr)
		}
		if after := snapshotFiles(t, dir); after != before {
			t.Errorf("a failed delete_partition changed the table:\n%s\n%s", before, after)
		}
	}
	out, stderr, code := run(t, "write", dir, "--op", "delete_partition", "--set", "hoodie.datasource.write.partitions.to.delete=city=sf")
	if code != 0 || !strings.Contains(out, "dropped 1 partition(s): city=sf") {
		t.Errorf("delete_partition: exit %d: %s %s", code, out, stderr)
	}
	out, _, code = run(t, "write", dir, "--op", "delete_partition", "--format", "json", "--set", "hoodie.datasource.write.partitions.to.delete=city=*")
	if code != 0 || !strings.Contains(out, `"partitions":["city=nyc"]`) {
		t.Errorf("delete_partition json: %s", out)
	}
}
