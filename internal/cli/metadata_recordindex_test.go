package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hudi metadata TABLE validate compares the record index with the snapshot's keys: it
// says how many keys it compared, and exits 1 naming a key whose entry is gone (here the
// record index's base files were deleted behind its back).
func TestMetadataValidateRecordIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trips")
	if _, stderr, code := run(t, "create", dir, "--type", "cow", "--record-key", "uuid", "--precombine", "ts", "--partition-by", "city",
		"--schema", tripsDDL); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	for i, set := range []string{"hoodie.metadata.enable=true", "hoodie.metadata.record.index.enable=true"} {
		in := writeInput(t, fmt.Sprintf(`{"ts":%d,"uuid":"u%d","rider":"r","fare":1.5,"city":"sf"}`+"\n"+`{"ts":%d,"uuid":"v%d","rider":"r","fare":2.5,"city":"la"}`, i, i, i, i))
		if _, stderr, code := run(t, "write", dir, "--op", "upsert", "--input", in, "--set", set); code != 0 {
			t.Fatalf("upsert %d: %s", i, stderr)
		}
	}
	out, stderr, code := run(t, "metadata", dir, "validate")
	if code != 0 || !strings.Contains(out, "record_index: compared 4 keys of the snapshot") {
		t.Fatalf("validate: exit %d: %s %s", code, out, stderr)
	}
	bases, _ := filepath.Glob(filepath.Join(dir, ".hoodie", "metadata", "record_index", "record-index-*.hfile"))
	if len(bases) == 0 {
		t.Fatal("no record_index base file")
	}
	for _, b := range bases {
		if err := os.Remove(b); err != nil {
			t.Fatal(err)
		}
	}
	out, _, code = run(t, "metadata", dir, "validate")
	if code != 1 || !strings.Contains(out, `record_index: key "u0"`) {
		t.Fatalf("validate after removing the index's base files: exit %d: %s", code, out)
	}
}
