package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hudi-defaults.conf in $HUDI_CONF_DIR (Java's DFSPropertiesConfiguration) reaches every
// command under --set: its hoodie.* keys configure writes and services (here a key that
// contradicts the table makes the write fail, naming both values; --set overrides it),
// reads take only its storage keys (fs.*), and a malformed file fails naming itself.
func TestHudiDefaultsConf(t *testing.T) {
	dir := createTrips(t)
	good := writeInput(t, `{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "insert", "--input", good); code != 0 {
		t.Fatal(stderr)
	}
	conf := t.TempDir()
	t.Setenv("HUDI_CONF_DIR", conf)
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(conf, "hudi-defaults.conf"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# defaults\nhoodie.datasource.write.precombine.field   fare\nfs.s3a.endpoint http://127.0.0.1:1\n")
	_, stderr, code := run(t, "write", dir, "--op", "upsert", "--input", good)
	if code != ExitRuntime || !strings.Contains(stderr, "precombine.field=fare") {
		t.Fatalf("a write must take the file's settings: exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, "write", dir, "--op", "upsert", "--input", good, "--set", "hoodie.datasource.write.precombine.field=ts"); code != 0 {
		t.Fatalf("--set must win over the file: exit %d, %s", code, stderr)
	}
	for _, cmd := range [][]string{{"read", dir, "--format", "jsonl"}, {"describe", dir}, {"timeline", dir}} {
		if _, stderr, code := run(t, cmd...); code != 0 {
			t.Fatalf("%s must ignore the file's write settings: exit %d, %s", cmd[0], code, stderr)
		}
	}
	write("hoodie.cleaner.commits.retained=notanumber\n")
	_, stderr, code = run(t, "clean", dir)
	if code == 0 || !strings.Contains(stderr, filepath.Join(conf, "hudi-defaults.conf")) || !strings.Contains(stderr, "line 1") {
		t.Fatalf("a malformed file: exit %d, %s", code, stderr)
	}
}
