//go:build !nosql

package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
)

func TestSQLCommand(t *testing.T) {
	wh := t.TempDir()
	out, stderr, code := run(t, "sql", "--warehouse", wh, "--timezone", "UTC", "-e", `
CREATE TABLE t (id INT, name STRING, at_ts TIMESTAMP) USING HUDI TBLPROPERTIES (primaryKey = 'id', preCombineField = 'id');
INSERT INTO t VALUES (1, 'a', TIMESTAMP '2024-01-02 03:04:05'), (2, 'b', NULL);
SELECT id, name, at_ts FROM t ORDER BY id`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"CREATE TABLE default.t: created", "INSERT INTO default.t: 2 row(s) affected; committed commit",
		"|id|name|                      at_ts|", "| 1|   a|2024-01-02T03:04:05.000000Z|", "(2 rows)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The catalog persists between runs; jsonl prints the canonical encoding, summaries go
	// to stderr.
	out, stderr, code = run(t, "sql", "--warehouse", wh, "--format", "jsonl", "-e", "UPDATE t SET name = 'z' WHERE id = 2; SELECT id, name FROM t ORDER BY id")
	if code != 0 || out != "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"z\"}\n" || !strings.Contains(stderr, "UPDATE default.t: 1 row(s)") {
		t.Errorf("jsonl (exit %d):\n%s\nstderr: %s", code, out, stderr)
	}
	script := filepath.Join(t.TempDir(), "s.sql")
	os.WriteFile(script, []byte("SELECT count(*) AS n FROM t;\n"), 0o644)
	out, _, code = run(t, "sql", "--warehouse", wh, "--format", "csv", "-f", script)
	if code != 0 || out != "n\n2\n" {
		t.Errorf("-f (exit %d): %q", code, out)
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown table", []string{"-e", "SELECT * FROM nope"}, ExitRuntime, "table default.nope not found (warehouse " + wh + ")"},
		{"unknown column", []string{"-e", "UPDATE t SET nope = 1"}, ExitRuntime, `column "nope" not found`},
		{"syntax error", []string{"-e", "SELECT 1;\n  FROB t"}, ExitRuntime, "syntax error at line 2, column 3"},
		{"-e and -f", []string{"-e", "SELECT 1", "-f", script}, ExitUsage, "cannot be combined"},
		{"bad format", []string{"--format", "xml", "-e", "SELECT 1"}, ExitUsage, "--format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, append([]string{"sql", "--warehouse", wh}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

func TestSQLOnFixtureTableByPath(t *testing.T) {
	dir := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
	out, stderr, code := run(t, "sql", "--warehouse", t.TempDir(), "--format", "csv", "-e",
		"SELECT city, count(*) AS n FROM hudi.`"+dir+"` GROUP BY city ORDER BY city")
	if code != 0 || out != "city,n\nchennai,2\nsan_francisco,4\nsao_paulo,2\n" {
		t.Errorf("exit %d: %q %s", code, out, stderr)
	}
}

func TestQuickstartCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wh")
	out, stderr, code := run(t, "quickstart", "--dir", dir, "--timezone", "UTC")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	for _, want := range []string{"Hudi quick start in warehouse " + dir, "MERGE INTO default.trips: 4 row(s) affected",
		"(2 updated, 2 inserted, 0 deleted)", "hudi sql --warehouse " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if _, _, code := run(t, "quickstart", "--dir", dir); code != ExitUsage {
		t.Errorf("quickstart into a used directory: exit %d, want %d", code, ExitUsage)
	}
}

func TestStatementComplete(t *testing.T) {
	for s, want := range map[string]bool{
		"SELECT 1;":                      true,
		"SELECT 1":                       false,
		"SELECT ';'":                     false,
		"SELECT ';';  \n":                true,
		"SELECT 1; -- done":              true,
		"SELECT 1 -- not yet;":           false,
		"SELECT /* ; */ 1":               false,
		"SELECT `a;b` FROM t;":           true,
		"INSERT INTO t VALUES ('it''s';": true,
	} {
		if got := statementComplete(s); got != want {
			t.Errorf("statementComplete(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestNoSQLBuild checks that `go build -tags nosql ./cmd/hudi` builds without cgo and that
// its sql and quickstart commands say why they are missing.
func TestNoSQLBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not in PATH")
	}
	bin := filepath.Join(t.TempDir(), "hudi")
	cmd := exec.Command(gobin, "build", "-tags", "nosql", "-o", bin, "./cmd/hudi")
	cmd.Dir = testutil.RepoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build -tags nosql: %v\n%s", err, out)
	}
	for _, sub := range []string{"sql", "quickstart"} {
		out, err := exec.Command(bin, sub, "-e", "SELECT 1").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitRuntime || !strings.Contains(string(out), "built without SQL (-tags nosql)") {
			t.Errorf("hudi %s in a nosql build: %v %s", sub, err, out)
		}
	}
}

// TestSQLScriptStopsAtBadStatement: a piped script runs the statements before a bad one
// (here a syntax error on line 3), stops there with an error naming the line, and runs
// nothing after it — as spark-sql does.
func TestSQLScriptStopsAtBadStatement(t *testing.T) {
	wh := t.TempDir()
	_, stderr, code := run(t, "sql", "--warehouse", wh, "-e", `CREATE TABLE t (id INT, name STRING) USING HUDI TBLPROPERTIES (primaryKey = 'id');
INSERT INTO t VALUES (1, 'a');
INSRT INTO t VALUES (2, 'b');
INSERT INTO t VALUES (3, 'c')`)
	if code != ExitRuntime || !strings.Contains(stderr, "syntax error at line 3") {
		t.Fatalf("exit %d, stderr %q; want a syntax error at line 3", code, stderr)
	}
	out, stderr, code := run(t, "sql", "--warehouse", wh, "--format", "csv", "-e", "SELECT id FROM t ORDER BY id")
	if code != 0 || out != "id\n1\n" {
		t.Errorf("after the script (exit %d, %s): %q, want only the row inserted before the bad statement", code, stderr, out)
	}
}

// TestProgressLines: with --progress always, SQL statements and table services print
// progress lines on stderr (stdout keeps only results); never prints none.
func TestProgressLines(t *testing.T) {
	wh := t.TempDir()
	out, stderr, code := run(t, "sql", "--warehouse", wh, "--progress", "always", "--format", "csv", "-e", `CREATE TABLE t (id INT, name STRING) USING HUDI TBLPROPERTIES (primaryKey = 'id', type = 'mor');
INSERT INTO t VALUES (1, 'a');
UPDATE t SET name = 'b' WHERE id = 1;
SELECT count(*) AS n FROM t`)
	if code != 0 || out != "n\n1\n" {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	for _, want := range []string{"INSERT INTO t (line 2)", "hudi: ", "query (line 4)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr, code = run(t, "compact", filepath.Join(wh, "t"), "--progress", "always")
	if code != 0 || !strings.Contains(stderr, "hudi:    0.0s compact ") || !strings.Contains(stderr, ": done") {
		t.Errorf("compact: exit %d, stderr %q", code, stderr)
	}
	_, stderr, _ = run(t, "sql", "--warehouse", wh, "--progress", "never", "-e", "SELECT 1")
	if strings.Contains(stderr, "hudi: ") {
		t.Errorf("--progress never printed %q", stderr)
	}
}
