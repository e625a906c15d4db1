//go:build unix

package objstoretest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/internal/testutil"
)

// ciFixtures are the checks the fixture checker runs through S3 in CI: table versions 6,
// 8 and 9, copy-on-write and merge-on-read (Avro and Parquet log blocks), partitioned and
// not, with time travel, incremental, read-optimized and rollback checks. HUDI_SOAK=1 (or
// HUDI_FIXTURES_S3=all) runs every check. (Each check is a process that uploads its table
// once and one that reads it: the 9 table prefixes of before were 35 checks and 94 s on
// a loaded machine; these 8 checks of 6 tables keep the kinds of table.)
var ciFixtures = []string{
	"cow/v6_simplekeygen_nonhivestyle/snapshot",
	"cow/v6_simplekeygen_nonhivestyle/incr_20240418172802262_20240418172804498",
	"cow/v8_complexkeygen_hivestyle/asof_20250713010139392",
	"cow/v9_txns_simple_meta/incr_19700101000000000",
	"mor-avro/v9_txns_complex_meta/asof_20260307162641811",
	"mor-parquet/v6_nonpartitioned_rollback/snapshot", "mor-parquet/v6_nonpartitioned_rollback/ro",
	"trips-mor-avro/v6_trips_8i1u/snapshot",
}

var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed`)

// TestFixturesThroughS3 uploads each Spark-written fixture table to the S3 server and runs
// ../shared/fixtures/check with `hudi read s3://…` as the reader.
func TestFixturesThroughS3(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	root := testutil.RepoRoot(t)
	checker := root + "/../shared/fixtures/check"
	if _, err := os.Stat(checker); err != nil {
		t.Fatalf("the fixture checker: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{checker, "--cmd", self + " {table} --format jsonl"}
	all := os.Getenv("HUDI_SOAK") != "" || os.Getenv("HUDI_FIXTURES_S3") == "all"
	if !all {
		for _, f := range ciFixtures {
			args = append(args, "--only", f)
		}
	}
	var kv []string
	for k, v := range settings {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	cmd := exec.Command("python3", args...)
	cmd.Env = append(os.Environ(), "HUDI_OBJSTORE_READER=1", "HUDI_BIN="+hudiBin,
		"HUDI_OBJSTORE_URL=s3a://"+bucket+"/fixtures", "HUDI_OBJSTORE_SETTINGS="+strings.Join(kv, "\n"))
	out, err := cmd.CombinedOutput()
	m := summary.FindSubmatch(out)
	if m == nil {
		t.Fatalf("the checker printed no summary (%v):\n%s", err, tail(string(out), 60))
	}
	passed, _ := strconv.Atoi(string(m[1]))
	failed, _ := strconv.Atoi(string(m[2]))
	t.Logf("fixtures through S3 (all=%v): %d passed, %d failed", all, passed, failed)
	if failed > 0 || err != nil || passed == 0 {
		t.Fatalf("fixture check through S3: %d passed, %d failed (%v):\n%s", passed, failed, err, tail(string(out), 60))
	}
	if all && passed < 356 {
		t.Fatalf("only %d checks ran, want all 356", passed)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d lines …", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
