//go:build unix

// Package concurrencytest runs several real `hudi` processes against one table at once —
// writers, and writers beside table services — and checks that no write a process
// acknowledged (exit 0 with its counts) is lost, that a write that failed left none of its
// rows, and that the table reads afterwards.
//
// The binary is built once by TestMain (HUDI_BIN overrides it). Tests that need ZooKeeper
// read its address from HUDI_TEST_ZK (host:port, as .ci/run starts it); they skip when it
// is unset, except in CI (CI set), where a missing ZooKeeper fails them.
package concurrencytest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/testutil"
)

var hudiBin string

func TestMain(m *testing.M) {
	os.Exit(testutil.RunWithHudiBinary(m, "concurrencytest", &hudiBin))
}

// zkAddress is the ZooKeeper the tests may use (host:port), or skips the test without one
// (fails it in CI, where .ci/run always starts one).
func zkAddress(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("HUDI_TEST_ZK")
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HUDI_TEST_ZK is not set in CI: .ci/run must start ZooKeeper and export its address")
		}
		t.Skip("HUDI_TEST_ZK is not set: start ZooKeeper on 127.0.0.1 (see .ci/run) and export HUDI_TEST_ZK=127.0.0.1:PORT to run this test")
	}
	return addr
}

// hudi runs the binary to completion and returns its stdout.
func hudi(args ...string) (string, error) {
	cmd := exec.Command(hudiBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("hudi %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// proc is a started `hudi` process.
type proc struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
	dur            time.Duration
}

func start(name string, args ...string) (*proc, error) {
	p := &proc{name: name, cmd: exec.Command(hudiBin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	begin := time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = p.cmd.Wait()
		p.dur = time.Since(begin)
		close(p.done)
	}()
	return p, nil
}

func (p *proc) wait() error {
	<-p.done
	return p.err
}

// writeResult is `hudi write --format json`'s object.
type writeResult struct {
	Instant string `json:"instant"`
	Action  string `json:"action"`
	Records struct {
		Inserted int64 `json:"inserted"`
		Updated  int64 `json:"updated"`
		Deleted  int64 `json:"deleted"`
	} `json:"records"`
}

func (p *proc) result() (writeResult, error) {
	var r writeResult
	err := json.Unmarshal(bytes.TrimSpace(p.stdout.Bytes()), &r)
	return r, err
}

// readTable reads a snapshot: record key → row.
func readTable(table string) (map[string]map[string]any, error) {
	out, err := hudi("read", table, "--format", "jsonl")
	if err != nil {
		return nil, err
	}
	rows := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("read output line %q: %w", sc.Text(), err)
		}
		k, _ := r["uuid"].(string)
		if _, dup := rows[k]; dup {
			return nil, fmt.Errorf("record key %q is returned twice", k)
		}
		rows[k] = r
	}
	return rows, sc.Err()
}

// inputRow is one input row of the tests' tables.
type inputRow struct {
	TS    int64   `json:"ts"`
	UUID  string  `json:"uuid"`
	Rider string  `json:"rider"`
	Fare  float64 `json:"fare"`
	City  string  `json:"city"`
}

const tableSchema = "ts BIGINT, uuid STRING, rider STRING, fare DOUBLE, city STRING"

func writeInput(t *testing.T, path string, rows []inputRow) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// keyRange makes the rows of keys [from, to) in city, all with rider.
func keyRange(from, to int, city, rider string, ts int64) []inputRow {
	out := make([]inputRow, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, inputRow{TS: ts, UUID: fmt.Sprintf("k%07d", i), Rider: rider, Fare: float64(i), City: city})
	}
	return out
}

// newTable creates a table (type cow or mor, partitioned by city) and bulk-inserts rows
// into it, so that each city's rows are one file group.
func newTable(t *testing.T, typ string, rows []inputRow, sets ...string) string {
	t.Helper()
	return newTableAt(t, filepath.Join(t.TempDir(), "t"), typ, rows, sets...)
}

// newTableAt is newTable at a given location (a folder or a URL).
func newTableAt(t *testing.T, table, typ string, rows []inputRow, sets ...string) string {
	t.Helper()
	args := []string{"create", table, "--name", "t", "--type", typ, "--record-key", "uuid", "--precombine", "ts",
		"--partition-by", "city", "--schema", tableSchema}
	if _, err := hudi(args...); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "initial.jsonl")
	writeInput(t, in, rows)
	wargs := []string{"write", table, "--op", "bulk_insert", "--input", in, "--format", "json"}
	for _, s := range sets {
		wargs = append(wargs, "--set", s)
	}
	if _, err := hudi(wargs...); err != nil {
		t.Fatal(err)
	}
	return table
}
