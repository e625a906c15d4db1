package commit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// field is one field of a record schema as the .avsc declares it: its name and its type
// in a compact notation.
type field struct{ name, typ string }

// shape renders an Avro schema (parsed JSON) compactly: named records by name after
// their first appearance, arrays as array<…>, maps as map<…>, unions as a|b.
func shape(v any, seen map[string]bool) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		out := ""
		for i, b := range s {
			if i > 0 {
				out += "|"
			}
			out += shape(b, seen)
		}
		return out
	case map[string]any:
		switch s["type"] {
		case "array":
			return "array<" + shape(s["items"], seen) + ">"
		case "map":
			return "map<" + shape(s["values"], seen) + ">"
		case "record":
			name := s["name"].(string)
			seen[name] = true
			return name
		default:
			return shape(s["type"], seen)
		}
	}
	return "?"
}

func recordFields(t *testing.T, schema map[string]any) []field {
	t.Helper()
	var out []field
	for _, f := range schema["fields"].([]any) {
		m := f.(map[string]any)
		out = append(out, field{m["name"].(string), shape(m["type"], map[string]bool{})})
	}
	return out
}

// writerSchema returns the schema embedded in an Avro container Java would read.
func writerSchema(t *testing.T, data []byte) map[string]any {
	t.Helper()
	ws, _, err := avro.ReadContainer(data)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(ws), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sampleRollback(target string) *commitmeta.RollbackMetadata {
	return &commitmeta.RollbackMetadata{StartRollbackTime: "20250101000000100", TimeTakenInMillis: 12, TotalFilesDeleted: 1,
		CommitsRollback: []string{target}, Version: 1,
		PartitionMetadata: map[string]commitmeta.RollbackPartitionMetadata{"city=sf": {PartitionPath: "city=sf",
			SuccessDeleteFiles: []string{"/t/city=sf/f1-0_0-0-0_" + target + ".parquet"}, FailedDeleteFiles: []string{},
			RollbackLogFiles:         map[string]int64{"/t/city=sf/.f2-0_20250101000000000.log.2_1-0-1": 105},
			LogFilesFromFailedCommit: map[string]int64{"/t/city=sf/.f2-0_20250101000000000.log.1_0-0-1": 900}}},
		InstantsRollback: []commitmeta.InstantInfo{{CommitTime: target, Action: "deltacommit"}}}
}

// The restore plan and metadata carry Java 0.14's schemas (HoodieRestorePlan.avsc,
// HoodieRestoreMetadata.avsc, with HoodieRollbackMetadata and HoodieInstantInfo inlined)
// and decode back field by field.
func TestRestoreAvroSchemas(t *testing.T) {
	plan, err := encodeContainer(avroschema.RestorePlan.JSON(), map[string]any{"instantsToRollback": []any{
		map[string]any{"commitTime": "20250101000000003", "action": "compaction"},
		map[string]any{"commitTime": "20250101000000002", "action": "deltacommit"}}, "version": int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	ps := writerSchema(t, plan)
	if ps["name"] != "HoodieRestorePlan" || ps["namespace"] != "org.apache.hudi.avro.model" {
		t.Errorf("plan schema %v", ps)
	}
	if got, want := recordFields(t, ps), []field{{"instantsToRollback", "array<HoodieInstantInfo>"}, {"version", "int|null"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("plan fields %v, want %v", got, want)
	}
	p, err := DecodeRestorePlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 1 || !reflect.DeepEqual(p.InstantsToRollback, []commitmeta.InstantInfo{{CommitTime: "20250101000000003", Action: "compaction"}, {CommitTime: "20250101000000002", Action: "deltacommit"}}) {
		t.Errorf("plan %+v", p)
	}

	want := &RestoreMetadata{StartRestoreTime: "20250101000000050", TimeTakenInMillis: 77, InstantsToRollback: []string{"20250101000000002"},
		Rollbacks: map[string][]*commitmeta.RollbackMetadata{"20250101000000002": {sampleRollback("20250101000000002")}}, Version: 1,
		RestoreInstantInfo: []commitmeta.InstantInfo{{CommitTime: "20250101000000002", Action: "deltacommit"}}}
	body, err := encodeContainer(avroschema.RestoreMetadata.JSON(), restoreMetadataValue(want))
	if err != nil {
		t.Fatal(err)
	}
	ms := writerSchema(t, body)
	wantFields := []field{{"startRestoreTime", "string"}, {"timeTakenInMillis", "long"}, {"instantsToRollback", "array<string>"},
		{"hoodieRestoreMetadata", "map<array<null|HoodieRollbackMetadata>>"}, {"version", "int|null"}, {"restoreInstantInfo", "array<HoodieInstantInfo>"}}
	if got := recordFields(t, ms); !reflect.DeepEqual(got, wantFields) {
		t.Errorf("restore metadata fields %v, want %v", got, wantFields)
	}
	got, err := DecodeRestoreMetadata(body)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("restore metadata round trip\n got %s\nwant %s", gj, wj)
	}
	// The nested rollback metadata keeps HoodieRollbackMetadata's fields, as in the
	// Spark-written fixture's schema.
	rb, err := encodeContainer(avroschema.RollbackMetadata.JSON(), rollbackMetadataValue(sampleRollback("x")))
	if err != nil {
		t.Fatal(err)
	}
	wantRollback := []field{{"startRollbackTime", "string"}, {"timeTakenInMillis", "long"}, {"totalFilesDeleted", "int"},
		{"commitsRollback", "array<string>"}, {"partitionMetadata", "map<HoodieRollbackPartitionMetadata>"}, {"version", "int|null"},
		{"instantsRollback", "array<HoodieInstantInfo>"}}
	if got := recordFields(t, writerSchema(t, rb)); !reflect.DeepEqual(got, wantRollback) {
		t.Errorf("rollback metadata fields %v, want %v", got, wantRollback)
	}
}

// A rollback of a completed instant that died after its plan (the target still
// completed) is finished by the next writer from the plan: the files it names go and the
// target leaves the timeline.
func TestInterruptedRollbackOfCompletedInstant(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	target := spec.InstantTime("20250101000000001")
	base := "f1-0_0-0-0_" + string(target) + ".parquet"
	os.WriteFile(filepath.Join(dir, base), []byte("data"), 0o644)
	for _, n := range []string{".commit.requested", ".inflight", ".commit"} {
		os.WriteFile(filepath.Join(dir, ".hoodie", string(target)+n), []byte("{}"), 0o644)
	}
	tl := load(t, dir)
	in := tl.Instants[0]
	w, err := filesOfInstant(ctx, st, tl, in, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.deletes[""]) != 1 || w.deletes[""][0] != base {
		t.Fatalf("files of the commit: %+v", w.deletes)
	}
	// Write only the plan: same code path with a rollback that cannot get further.
	rb := spec.InstantTime("20250101000000009")
	body, err := encodeContainer(avroschema.RollbackPlan.JSON(), map[string]any{
		"instantToRollback": map[string]any{"commitTime": string(target), "action": "commit"},
		"RollbackRequests": []any{map[string]any{"partitionPath": "", "fileId": "", "latestBaseInstant": "",
			"filesToBeDeleted": []any{absPath(st, "", base)}, "logBlocksToBeDeleted": map[string]any{}}},
		"version": int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".hoodie", string(rb)+".rollback.requested"), body, 0o644)
	now := func() time.Time { return time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC) }
	rolled, err := handle(st, now, HeartbeatOptions{}).RollbackFailedWrites(ctx, load(t, dir))
	if err != nil || len(rolled) != 1 || rolled[0] != target {
		t.Fatalf("rolled %v, %v", rolled, err)
	}
	if _, err := os.Stat(filepath.Join(dir, base)); !os.IsNotExist(err) {
		t.Error("the commit's base file survived")
	}
	tl = load(t, dir)
	if len(tl.Instants) != 1 || tl.Instants[0].Time != rb || !tl.Instants[0].IsCompleted() {
		t.Errorf("timeline %+v", tl.Instants)
	}
}

// TestPendingRestoreRefusesEverythingElse: while <R>.restore.requested/inflight is on the
// timeline, new writes, compaction/clean/clustering requests and failed-write rollbacks are
// refused with ErrPendingRestore naming the restore and the savepoint to finish it with,
// as Java 0.14's BaseHoodieWriteClient.startCommit refuses a commit ("Found pending restore
// in active timeline"). The savepoint is inferred (latest savepoint before the plan's
// earliest instant): plan version 1 does not record it.
func TestPendingRestoreRefusesEverythingElse(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	sp, c2, rs := "20250101000000001", "20250101000000002", "20250101000000003"
	for _, n := range []string{sp + ".commit.requested", sp + ".inflight", sp + ".commit", sp + ".savepoint.inflight", sp + ".savepoint",
		c2 + ".commit.requested", c2 + ".inflight", c2 + ".commit"} {
		os.WriteFile(filepath.Join(dir, ".hoodie", n), []byte("{}"), 0o644)
	}
	plan, err := encodeContainer(avroschema.RestorePlan.JSON(), map[string]any{
		"instantsToRollback": []any{map[string]any{"commitTime": c2, "action": "commit"}}, "version": int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".hoodie", rs+".restore.requested"), plan, 0o644)
	os.WriteFile(filepath.Join(dir, ".hoodie", rs+".restore.inflight"), nil, 0o644)
	tl := load(t, dir)
	p := PendingRestore(ctx, st, tl)
	if p == nil || p.Instant != spec.InstantTime(rs) || p.Savepoint != spec.InstantTime(sp) || p.Earliest != spec.InstantTime(c2) {
		t.Fatalf("PendingRestore = %+v", p)
	}
	now := func() time.Time { return time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC) }
	for name, run := range map[string]func() error{
		"commit": func() error {
			_, err := handle(st, now, HeartbeatOptions{}).Begin(ctx, tl, spec.ActionCommit, nil, &commitmeta.CommitMetadata{})
			return err
		},
		"compaction request": func() error {
			_, err := handle(st, now, HeartbeatOptions{}).RequestCompaction(ctx, tl, []byte("x"))
			return err
		},
		"clean request": func() error {
			_, err := handle(st, now, HeartbeatOptions{}).RequestClean(ctx, tl, []byte("x"))
			return err
		},
		"clustering request": func() error {
			_, err := handle(st, now, HeartbeatOptions{}).RequestClustering(ctx, tl, []byte("x"))
			return err
		},
		"rollback of failed writes": func() error {
			_, err := handle(st, now, HeartbeatOptions{}).RollbackFailedWrites(ctx, tl)
			return err
		},
	} {
		err := run()
		if !errors.Is(err, ErrPendingRestore) || !strings.Contains(err.Error(), rs) || !strings.Contains(err.Error(), "restore "+sp) {
			t.Errorf("%s with a pending restore: %v, want ErrPendingRestore naming %s and savepoint %s", name, err, rs, sp)
		}
	}
	if after := load(t, dir); len(after.Instants) != len(tl.Instants) {
		t.Errorf("a refused operation changed the timeline: %d instants, had %d", len(after.Instants), len(tl.Instants))
	}
}
