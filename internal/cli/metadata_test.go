package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
)

// hudi metadata TABLE describe|validate|delete|init: writes build the metadata table
// (hoodie.metadata.enable defaults to true), validate passes on it and exits 1 naming the
// difference once storage changes behind its back, delete drops it, init rebuilds it and
// refuses a second time; a bad operation is a usage error.
func TestMetadataCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	if _, stderr, code := run(t, "create", dir, "--type", "mor", "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city",
		"--hive-style", "--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	for i := 0; i < 3; i++ {
		in := writeInput(t, fmt.Sprintf(`{"ts":%d,"uuid":"u%d","rider":"r","fare":1.5,"city":"sf"}`+"\n"+`{"ts":%d,"uuid":"u0","rider":"r","fare":2.5,"city":"sf"}`, i, i, i))
		if _, stderr, code := run(t, "write", dir, "--op", "upsert", "--input", in); code != 0 {
			t.Fatalf("upsert %d: %s", i, stderr)
		}
	}
	out, stderr, code := run(t, "metadata", dir, "describe", "--format", "json")
	if code != 0 {
		t.Fatalf("describe: exit %d: %s", code, stderr)
	}
	var info struct {
		Partitions []string       `json:"partitions"`
		Exists     bool           `json:"exists"`
		Instants   map[string]int `json:"instants"`
		DataFiles  int            `json:"data_files"`
		FileGroups []struct {
			FileID string `json:"file_id"`
		} `json:"file_groups"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	if !info.Exists || strings.Join(info.Partitions, ",") != "files" || info.Instants["deltacommit"] != 4 || info.DataFiles < 3 ||
		len(info.FileGroups) != 1 || info.FileGroups[0].FileID != "files-0000-0" {
		t.Errorf("describe: %s", out)
	}
	if out, stderr, code := run(t, "metadata", dir, "validate"); code != 0 || !strings.Contains(out, " 0 differences") {
		t.Fatalf("validate: exit %d: %s %s", code, out, stderr)
	}
	// A file changed behind the metadata table's back is a difference (its size).
	files, _ := filepath.Glob(filepath.Join(dir, "city=sf", "*.parquet"))
	if len(files) == 0 {
		t.Fatal("no base file")
	}
	orig, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], append(append([]byte{}, orig...), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run(t, "metadata", dir, "validate", "--format", "json")
	if code != ExitRuntime || !strings.Contains(out, filepath.Base(files[0])) || !strings.Contains(stderr, "differs from storage") {
		t.Fatalf("validate after growing %s: exit %d: %s %s", files[0], code, out, stderr)
	}
	if err := os.WriteFile(files[0], orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := run(t, "metadata", dir, "delete"); code != 0 || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: exit %d: %s %s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hoodie", "metadata")); !os.IsNotExist(err) {
		t.Error(".hoodie/metadata survived delete")
	}
	if out, _, code := run(t, "metadata", dir, "describe"); code != 0 || !strings.Contains(out, "no metadata table") {
		t.Errorf("describe after delete: exit %d: %s", code, out)
	}
	if _, stderr, code := run(t, "metadata", dir, "validate"); code != ExitRuntime || !strings.Contains(stderr, "no metadata table") {
		t.Errorf("validate without a metadata table: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, "metadata", dir, "init"); code != 0 || !strings.Contains(out, "partitions (hoodie.table.metadata.partitions): files") {
		t.Fatalf("init: exit %d: %s %s", code, out, stderr)
	}
	if out, stderr, code := run(t, "metadata", dir, "validate"); code != 0 {
		t.Fatalf("validate after init: exit %d: %s %s", code, out, stderr)
	}
	if _, stderr, code := run(t, "metadata", dir, "init"); code != ExitRuntime || !strings.Contains(stderr, "has a metadata table") {
		t.Errorf("second init: exit %d: %s", code, stderr)
	}
	if _, _, code := run(t, "metadata", dir, "rebuild"); code != ExitUsage {
		t.Errorf("bad operation: exit %d", code)
	}
}

// validate passes on a Spark-written table with a metadata table (Hudi 1.0, version 8).
func TestMetadataValidateSparkTable(t *testing.T) {
	dir := testutil.Table(t, "trips-mor-avro/v8_trips_8i3u1d")
	out, stderr, code := run(t, "metadata", dir, "validate")
	if code != 0 || !strings.Contains(out, " 0 differences") {
		t.Fatalf("validate: exit %d: %s %s", code, out, stderr)
	}
}
