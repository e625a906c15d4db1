package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteMissingColumnsRefused: an input row that lacks table columns is refused — a JSON
// Lines row naming its line and the columns, a Parquet input naming the column — and the
// table is untouched, unless hoodie.write.set.null.for.missing.columns=true (Java 0.14
// refuses an input schema without a table column in HoodieSparkSqlWriter.deduceWriterSchema
// unless that setting adds it as null). A delete needs only the keys.
func TestWriteMissingColumnsRefused(t *testing.T) {
	dir := createTrips(t)
	first := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--input", first); code != 0 {
		t.Fatalf("first write: %s", stderr)
	}
	before := snapshotFiles(t, dir)

	partial := writeInput(t,
		`{"ts":2,"uuid":"b","rider":"r2","fare":1,"city":"sf"}`,
		`{"ts":2,"uuid":"c","city":"sf"}`)
	_, stderr, code := run(t, "write", dir, "--input", partial)
	if code == 0 || !strings.Contains(stderr, `line 2: missing column(s) "rider", "fare"`) || !strings.Contains(stderr, "hoodie.write.set.null.for.missing.columns=true") {
		t.Fatalf("JSON Lines row without columns: exit %d, stderr %q", code, stderr)
	}
	if after := snapshotFiles(t, dir); after != before {
		t.Fatalf("the refused write changed the table:\n%s\n---\n%s", before, after)
	}

	// A Parquet input without the fare column: a base file of a table without it.
	other := filepath.Join(t.TempDir(), "nofare")
	if _, stderr, code := run(t, "create", other, "--record-key", "uuid", "--precombine", "ts", "--schema", "ts BIGINT, uuid STRING, rider STRING, city STRING"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "write", other, "--input", writeInput(t, `{"ts":3,"uuid":"d","rider":"r4","city":"sf"}`)); code != 0 {
		t.Fatal(stderr)
	}
	files, _ := filepath.Glob(filepath.Join(other, "*.parquet"))
	if len(files) != 1 {
		t.Fatalf("base files: %v", files)
	}
	_, stderr, code = run(t, "write", dir, "--input", files[0])
	if code == 0 || !strings.Contains(stderr, `column "fare" (double) is missing from the input`) {
		t.Fatalf("Parquet input without a column: exit %d, stderr %q", code, stderr)
	}
	if after := snapshotFiles(t, dir); after != before {
		t.Fatalf("the refused write changed the table")
	}

	// With the setting the missing columns are null.
	if _, stderr, code := run(t, "write", dir, "--input", partial, "--set", "hoodie.write.set.null.for.missing.columns=true"); code != 0 {
		t.Fatalf("with set.null.for.missing.columns: %s", stderr)
	}
	got, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid,rider,fare")
	if !strings.Contains(got, `{"uuid":"c","rider":null,"fare":null}`) {
		t.Errorf("read: %s", got)
	}
	// So with hoodie.datasource.write.reconcile.schema=true (Java's legacy reconciliation
	// keeps the table schema for an input that lacks columns).
	if _, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":3,"uuid":"e","city":"la"}`), "--set", "hoodie.datasource.write.reconcile.schema=true"); code != 0 {
		t.Fatalf("with reconcile.schema: %s", stderr)
	}
	if _, stderr, code := run(t, "write", dir, "--input", files[0], "--set", "hoodie.datasource.write.reconcile.schema=true"); code != 0 {
		t.Fatalf("Parquet input with reconcile.schema: %s", stderr)
	}
	got, _, _ = run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid,rider,fare")
	for _, want := range []string{`{"uuid":"e","rider":null,"fare":null}`, `{"uuid":"d","rider":"r4","fare":null}`} {
		if !strings.Contains(got, want) {
			t.Errorf("read lacks %s: %s", want, got)
		}
	}
	// A delete needs only the record key and partition columns.
	if _, stderr, code := run(t, "write", dir, "--op", "delete", "--input", writeInput(t, `{"uuid":"c","city":"sf"}`)); code != 0 {
		t.Fatalf("delete with keys only: %s", stderr)
	}
}

// TestDeleteNeedsPartitionColumns_HudiGoChoice: a JSON Lines delete row without the
// partition column is refused under the default (non-global) index, naming the line and
// column, instead of reporting 0 deleted; with a global index the key is enough.
func TestDeleteNeedsPartitionColumns_HudiGoChoice(t *testing.T) {
	dir := createTrips(t)
	if _, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)); code != 0 {
		t.Fatal(stderr)
	}
	before := snapshotFiles(t, dir)
	_, stderr, code := run(t, "write", dir, "--op", "delete", "--input", writeInput(t, `{"uuid":"a"}`))
	if code == 0 || !strings.Contains(stderr, `line 1: missing column(s) "city"`) {
		t.Fatalf("delete without city: exit %d, %q", code, stderr)
	}
	if after := snapshotFiles(t, dir); after != before {
		t.Fatalf("the refused delete changed the table")
	}
	out, stderr, code := run(t, "write", dir, "--op", "delete", "--input", writeInput(t, `{"uuid":"a"}`), "--set", "hoodie.index.type=GLOBAL_SIMPLE", "--format", "json")
	if code != 0 || !strings.Contains(out, `"deleted":1`) {
		t.Fatalf("global delete: exit %d, %s %s", code, out, stderr)
	}
	// RECORD_INDEX is global too (Java 0.14's SparkMetadataTableRecordIndex.isGlobal).
	if _, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":2,"uuid":"b","rider":"r2","fare":1,"city":"sf"}`),
		"--set", "hoodie.metadata.record.index.enable=true"); code != 0 {
		t.Fatal(stderr)
	}
	out, stderr, code = run(t, "write", dir, "--op", "delete", "--input", writeInput(t, `{"uuid":"b"}`),
		"--set", "hoodie.index.type=RECORD_INDEX", "--set", "hoodie.metadata.record.index.enable=true", "--format", "json")
	if code != 0 || !strings.Contains(out, `"deleted":1`) {
		t.Fatalf("record-index delete without the partition column: exit %d, %s %s", code, out, stderr)
	}
}

// TestPartialUpdateMissingColumnsCLI: with PartialUpdateAvroPayload a JSON Lines row may
// leave columns out; they count as null, so the stored values stay (copy-on-write).
func TestPartialUpdateMissingColumnsCLI(t *testing.T) {
	dir := createTrips(t)
	if _, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "write", dir, "--input", writeInput(t, `{"ts":2,"uuid":"a","fare":12.5,"city":"sf"}`),
		"--set", "hoodie.datasource.write.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload"); code != 0 {
		t.Fatalf("partial update: %s", stderr)
	}
	got, _, _ := run(t, "read", dir, "--format", "jsonl", "--no-meta", "--columns", "uuid,ts,rider,fare")
	if strings.TrimSpace(got) != `{"uuid":"a","ts":2,"rider":"r1","fare":12.5}` {
		t.Errorf("read: %s", got)
	}
}
