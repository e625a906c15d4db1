package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
)

func readProps(t *testing.T, dir string) *props.Properties {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ".hoodie", "hoodie.properties"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := props.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkSnapshot reads the table through the CLI and compares it with want (JSON lines).
func checkSnapshot(t *testing.T, what, dir, want string) {
	t.Helper()
	out, stderr, code := run(t, "read", dir, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("%s: read: exit %d: %s", what, code, stderr)
	}
	got, exp := canonicalLines(t, out), canonicalLines(t, want)
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Fatalf("%s: snapshot differs:\ngot:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(exp, "\n"))
	}
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("hudi %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// instantFiles lists the timeline file names directly in dir.
func instantFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, ok := spec.ParseInstantFileName(e.Name()); ok && !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// checkLayoutTwoFiles checks an upgraded table's timeline: nothing left under .hoodie,
// completed files named with a completion time not before the instant, and every commit
// file exactly what hudi-go's layout-2 encoder writes (pinned against Spark's v8/v9 files
// by format/commitmeta TestEncodeAvro*).
func checkLayoutTwoFiles(t *testing.T, dir string) {
	t.Helper()
	if left := instantFiles(t, filepath.Join(dir, ".hoodie")); len(left) > 0 {
		t.Fatalf("layout-1 timeline files left under .hoodie: %v", left)
	}
	tdir := filepath.Join(dir, ".hoodie", "timeline")
	names := instantFiles(t, tdir)
	if _, err := os.Stat(filepath.Join(tdir, "history")); err != nil {
		t.Fatalf("timeline/history: %v", err)
	}
	for _, n := range names {
		f, _ := spec.ParseInstantFileName(n)
		data, err := os.ReadFile(filepath.Join(tdir, n))
		if err != nil {
			t.Fatal(err)
		}
		if f.State == spec.StateCompleted && (f.Completion == "" || f.Completion.Less(f.Instant)) {
			t.Errorf("%s: completed file without a completion time at or after its instant", n)
		}
		if f.Action == spec.ActionReplaceCommit && f.State != spec.StateCompleted {
			// insert_overwrite plans keep the replacecommit name; only clusterings move.
			if m, err := commitmeta.DecodeRequestedReplace(data); err == nil && m.OperationType == "CLUSTER" {
				t.Errorf("%s: a clustering plan kept the replacecommit name", n)
			}
		}
		isCommit := f.Action == spec.ActionCommit || f.Action == spec.ActionDeltaCommit ||
			(f.State == spec.StateCompleted && f.Action == spec.ActionReplaceCommit)
		if !isCommit || len(data) == 0 {
			continue
		}
		if !bytes.HasPrefix(data, []byte("Obj\x01")) {
			t.Errorf("%s: not an Avro object container", n)
			continue
		}
		if _, err := commitmeta.Decode(data); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		schema, _, err := avro.ReadContainer(data)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		kind := "commit"
		switch {
		case f.State == spec.StateInflight:
			kind = "inflight"
		case f.Action == spec.ActionReplaceCommit:
			kind = "replacecommit"
		}
		if want := sparkSchemas(t)[kind]; schema != want {
			t.Errorf("%s: writer schema differs from Spark's v9 %s file:\n%s\nwant\n%s", n, kind, schema, want)
		}
	}
}

// sparkSchemas are the writer schemas of Spark's v9 completed commit, completed
// replacecommit and inflight commit files (cow/v9_txns_simple_nometa).
func sparkSchemas(t *testing.T) map[string]string {
	t.Helper()
	sparkSchemaOnce.Do(func() {
		dir := filepath.Join(testutil.Table(t, "cow/v9_txns_simple_nometa"), ".hoodie", "timeline")
		sparkSchemaMap = map[string]string{}
		for _, n := range instantFiles(t, dir) {
			f, _ := spec.ParseInstantFileName(n)
			kind := ""
			switch {
			case f.State == spec.StateInflight && f.Action == spec.ActionCommit:
				kind = "inflight"
			case f.State == spec.StateCompleted && f.Action == spec.ActionCommit:
				kind = "commit"
			case f.State == spec.StateCompleted && f.Action == spec.ActionReplaceCommit:
				kind = "replacecommit"
			default:
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			s, _, err := avro.ReadContainer(data)
			if err != nil {
				t.Fatal(err)
			}
			sparkSchemaMap[kind] = s
		}
	})
	return sparkSchemaMap
}

var (
	sparkSchemaOnce sync.Once
	sparkSchemaMap  map[string]string
)

// sparkV9Keys are the keys of a Spark-written v9 table's hoodie.properties
// (cow/v9_txns_simple_nometa) with their values where they do not depend on the table.
func sparkV9Keys(t *testing.T) *props.Properties {
	return readProps(t, testutil.Table(t, "cow/v9_txns_simple_nometa"))
}

// TestUpgradeSparkFixtures upgrades a copy of every Spark-written version 6 fixture with
// Parquet base files to version 9 (hudi upgrade), reads it back equal to the fixture's
// expected snapshot, compares its hoodie.properties with the keys Hudi 1.x's
// SevenToEight/EightToNine handlers write and with a Spark-written v9 table's, checks the
// timeline files, then downgrades it to 6 and reads it back equal again.
func TestUpgradeSparkFixtures(t *testing.T) {
	fx := testutil.FixturesDir(t)
	spark := sparkV9Keys(t)
	// Keys a Spark-created v9 table has and an upgraded one does not: Java's upgrade does
	// not add them (hoodie.table.format and hoodie.timeline.history.path are create-time
	// defaults), or the v6 table had no value (create schema, partition and ordering
	// fields of some fixtures).
	notAdded := map[string]bool{"hoodie.table.format": true, "hoodie.timeline.history.path": true,
		"hoodie.table.create.schema": true, "hoodie.table.partition.fields": true, "hoodie.table.ordering.fields": true}
	// Keys an upgraded table has and a Spark-created v9 one does not: Java's upgrade keeps
	// the key generator class next to its new type, records the payload class as the
	// legacy payload class, keeps the initial version 6, and leaves 0.14-only keys.
	extra := map[string]bool{"hoodie.table.keygenerator.class": true, "hoodie.legacy.payload.class": true,
		"hoodie.populate.meta.fields": true}
	var ids []string
	for _, id := range testutil.TableIDs(t) {
		if strings.HasPrefix(id, "cow/v6_") || strings.HasPrefix(id, "mor-parquet/v6_") || strings.HasPrefix(id, "trips-mor-avro/v6_") {
			ids = append(ids, id)
		}
	}
	if len(ids) < 10 {
		t.Fatalf("found %d v6 fixtures: %v", len(ids), ids)
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(fx, "expected", id, "snapshot.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			dir := testutil.Table(t, id)
			before := readProps(t, dir)
			nBefore := len(instantFiles(t, filepath.Join(dir, ".hoodie")))
			out := runOK(t, "upgrade", dir, "--to", "9", "--format", "json")
			var res map[string]any
			if err := json.Unmarshal([]byte(out), &res); err != nil || res["from"] != float64(6) || res["to"] != float64(9) {
				t.Fatalf("upgrade result %s (%v)", out, err)
			}
			p := readProps(t, dir)
			// SevenToEight + EightToNine, field by field.
			precombine, _ := before.Get("hoodie.table.precombine.field")
			typ, _ := before.Get("hoodie.table.type")
			wantMode, wantLegacy := "EVENT_TIME_ORDERING", "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
			if typ == "MERGE_ON_READ" && precombine == "" {
				// OverwriteWithLatestAvroPayload without an ordering field: commit time.
				wantMode, wantLegacy = "COMMIT_TIME_ORDERING", "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
			}
			wantKeys := map[string]string{"hoodie.table.version": "9", "hoodie.timeline.layout.version": "2",
				"hoodie.timeline.path": "timeline", "hoodie.table.initial.version": "6",
				"hoodie.record.merge.mode": wantMode, "hoodie.legacy.payload.class": wantLegacy}
			if precombine != "" {
				wantKeys["hoodie.table.ordering.fields"] = precombine
			}
			for k, v := range wantKeys {
				if got, _ := p.Get(k); got != v {
					t.Errorf("%s=%q, want %q", k, got, v)
				}
			}
			for _, k := range []string{"hoodie.table.precombine.field", "hoodie.compaction.payload.class",
				"hoodie.record.merge.strategy.id", "hoodie.compaction.record.merger.strategy"} {
				if v, ok := p.Get(k); ok {
					t.Errorf("%s=%s is still there", k, v)
				}
			}
			if c, _ := before.Get("hoodie.table.keygenerator.class"); c != "" {
				if typ, _ := p.Get("hoodie.table.keygenerator.type"); typ == "" {
					t.Errorf("no hoodie.table.keygenerator.type for %s", c)
				}
			}
			if err := props.VerifyChecksum(p); err != nil {
				t.Error(err)
			}
			for _, k := range spark.Keys() {
				if _, ok := p.Get(k); !ok && !notAdded[k] {
					t.Errorf("Spark's v9 table has %s, the upgraded one not", k)
				}
			}
			for _, k := range p.Keys() {
				if _, ok := spark.Get(k); !ok && !extra[k] {
					t.Errorf("the upgraded table has %s, Spark's v9 table not", k)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, ".hoodie", "metadata")); !os.IsNotExist(err) {
				t.Errorf("metadata table still there: %v", err)
			}
			checkLayoutTwoFiles(t, dir)
			if n := len(instantFiles(t, filepath.Join(dir, ".hoodie", "timeline"))); n < nBefore {
				t.Errorf("%d timeline files after the upgrade, %d before", n, nBefore)
			}
			checkSnapshot(t, "after upgrade", dir, string(want))

			// Upgrading again changes nothing.
			if out := runOK(t, "upgrade", dir, "--to", "9"); !strings.Contains(out, "version 9 already") {
				t.Errorf("second upgrade: %s", out)
			}

			runOK(t, "downgrade", dir, "--to", "6")
			p = readProps(t, dir)
			for _, k := range []string{"hoodie.table.initial.version", "hoodie.record.merge.mode", "hoodie.table.keygenerator.type",
				"hoodie.table.ordering.fields", "hoodie.legacy.payload.class"} {
				if v, ok := p.Get(k); ok {
					t.Errorf("after downgrade %s=%s is still there", k, v)
				}
			}
			if v, _ := p.Get("hoodie.table.version"); v != "6" {
				t.Errorf("after downgrade version %s", v)
			}
			if v, _ := p.Get("hoodie.timeline.layout.version"); v != "1" {
				t.Errorf("after downgrade layout %s", v)
			}
			if precombine != "" {
				if v, _ := p.Get("hoodie.table.precombine.field"); v != precombine {
					t.Errorf("after downgrade precombine %q, want %q", v, precombine)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, ".hoodie", "timeline")); !os.IsNotExist(err) {
				t.Errorf(".hoodie/timeline after downgrade: %v", err)
			}
			for _, n := range instantFiles(t, filepath.Join(dir, ".hoodie")) {
				f, _ := spec.ParseInstantFileName(n)
				if f.Completion != "" || f.Action == spec.ActionClustering {
					t.Errorf("after downgrade: %s", n)
				}
			}
			checkSnapshot(t, "after downgrade", dir, string(want))
		})
	}
}

// TestDowngradeSparkTables downgrades copies of Spark-written version 8 and 9 tables to
// version 6 and reads them back equal to their expected snapshots.
func TestDowngradeSparkTables(t *testing.T) {
	fx := testutil.FixturesDir(t)
	for _, id := range []string{"cow/v8_nonpartitioned", "cow/v9_txns_simple_nometa", "trips-mor-avro/v8_trips_8i3u1d", "mor-avro/v9_txns_simple_nometa"} {
		t.Run(id, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(fx, "expected", id, "snapshot.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			dir := testutil.Table(t, id)
			runOK(t, "downgrade", dir, "--to", "6")
			if v, _ := readProps(t, dir).Get("hoodie.table.version"); v != "6" {
				t.Fatalf("version %s", v)
			}
			checkSnapshot(t, "after downgrade", dir, string(want))
			runOK(t, "upgrade", dir, "--to", "9")
			checkSnapshot(t, "after upgrade again", dir, string(want))
		})
	}
}

// TestUpgradedTableTakesWrites upgrades the Spark trips table to 9, upserts and deletes
// through the CLI and reads back equal to a model (the expected snapshot with the same
// changes); then downgrades it to 6 and reads the same rows.
func TestUpgradedTableTakesWrites(t *testing.T) {
	fx := testutil.FixturesDir(t)
	id := "trips-mor-avro/v6_trips_8i1u"
	dir := testutil.Table(t, id)
	runOK(t, "upgrade", dir, "--to", "9")
	rows := canonicalLines(t, runOK(t, "read", dir, "--format", "jsonl", "--no-meta"))
	want, _ := os.ReadFile(filepath.Join(fx, "expected", id, "snapshot.jsonl"))
	if strings.Join(rows, "\n") != strings.Join(canonicalLines(t, string(want)), "\n") {
		t.Fatal("upgraded table differs from the expected snapshot")
	}
	model := map[string]map[string]any{}
	var keys []string
	for _, l := range rows {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		k := m["uuid"].(string)
		model[k] = m
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Upsert two rows with a later ts and a new fare; delete a third.
	var up bytes.Buffer
	for _, k := range keys[:2] {
		m := model[k]
		ts, _ := m["ts"].(json.Number).Int64()
		m["ts"] = json.Number(json.Number(strings.TrimSpace(jsonInt(ts + 1000))))
		m["fare"] = json.Number("999.5")
		b, _ := json.Marshal(m)
		up.Write(append(b, '\n'))
	}
	in := filepath.Join(t.TempDir(), "up.jsonl")
	if err := os.WriteFile(in, up.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "write", dir, "--op", "upsert", "--input", in)
	del := keys[2]
	b, _ := json.Marshal(model[del])
	din := filepath.Join(t.TempDir(), "del.jsonl")
	if err := os.WriteFile(din, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "write", dir, "--op", "delete", "--input", din)
	delete(model, del)
	var exp strings.Builder
	for _, m := range model {
		b, _ := json.Marshal(m)
		exp.Write(append(b, '\n'))
	}
	checkSnapshot(t, "after writes", dir, exp.String())
	if v, _ := readProps(t, dir).Get("hoodie.table.version"); v != "9" {
		t.Fatalf("version %s after writes", v)
	}
	checkLayoutTwoFiles(t, dir)
	runOK(t, "downgrade", dir, "--to", "6")
	checkSnapshot(t, "after downgrade", dir, exp.String())
}

func jsonInt(v int64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDowngradeTableWeWrote: a version 9 merge-on-read table written by hudi-go (log files
// named by their deltacommits, Avro metadata, completion times) is downgraded to 6 and
// reads back the same rows; a version 6 write then lands on it, and an upgrade back to 9
// reads the same again.
func TestDowngradeTableWeWrote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	runOK(t, "create", dir, "--table-version", "9", "--type", "mor", "--record-key", "id", "--precombine", "ts",
		"--partition-by", "p", "--schema", "id STRING, ts BIGINT, v STRING, p STRING")
	write := func(op string, lines ...string) {
		t.Helper()
		in := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runOK(t, "write", dir, "--op", op, "--input", in)
	}
	write("upsert", `{"id":"a","ts":1,"v":"a1","p":"x"}`, `{"id":"b","ts":1,"v":"b1","p":"x"}`, `{"id":"c","ts":1,"v":"c1","p":"y"}`)
	write("upsert", `{"id":"a","ts":2,"v":"a2","p":"x"}`, `{"id":"c","ts":0,"v":"c0","p":"y"}`)
	write("delete", `{"id":"b","ts":3,"v":"b1","p":"x"}`)
	want := `{"id":"a","ts":2,"v":"a2","p":"x"}` + "\n" + `{"id":"c","ts":1,"v":"c1","p":"y"}`
	checkSnapshot(t, "version 9", dir, want)
	runOK(t, "downgrade", dir, "--to", "6")
	if v, _ := readProps(t, dir).Get("hoodie.table.version"); v != "6" {
		t.Fatalf("version %s", v)
	}
	checkSnapshot(t, "after downgrade", dir, want)
	write("upsert", `{"id":"d","ts":1,"v":"d1","p":"y"}`)
	want += "\n" + `{"id":"d","ts":1,"v":"d1","p":"y"}`
	checkSnapshot(t, "after a version 6 write", dir, want)
	runOK(t, "upgrade", dir, "--to", "9")
	checkSnapshot(t, "after upgrade", dir, want)
}
