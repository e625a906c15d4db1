package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
)

// javaEntryFields is HoodieArchivedMetaEntry.avsc's field list as read from apache/hudi
// (the first thirteen), followed by the three later fields timeline/archived.go knows.
var javaEntryFields = []struct{ name, typ string }{
	{"hoodieCommitMetadata", "org.apache.hudi.avro.model.HoodieCommitMetadata"},
	{"hoodieCleanMetadata", "org.apache.hudi.avro.model.HoodieCleanMetadata"},
	{"hoodieCompactionMetadata", "org.apache.hudi.avro.model.HoodieCompactionMetadata"},
	{"hoodieRollbackMetadata", "org.apache.hudi.avro.model.HoodieRollbackMetadata"},
	{"hoodieSavePointMetadata", "org.apache.hudi.avro.model.HoodieSavepointMetadata"},
	{"commitTime", "string"},
	{"actionType", "string"},
	{"version", "int"},
	{"hoodieCompactionPlan", "org.apache.hudi.avro.model.HoodieCompactionPlan"},
	{"hoodieCleanerPlan", "org.apache.hudi.avro.model.HoodieCleanerPlan"},
	{"actionState", "string"},
	{"hoodieReplaceCommitMetadata", "org.apache.hudi.avro.model.HoodieReplaceCommitMetadata"},
	{"hoodieRequestedReplaceMetadata", "org.apache.hudi.avro.model.HoodieRequestedReplaceMetadata"},
	{"HoodieInflightReplaceMetadata", "org.apache.hudi.avro.model.HoodieCommitMetadata"},
	{"hoodieIndexCommitMetadata", "org.apache.hudi.avro.model.HoodieIndexCommitMetadata"},
	{"stateTransitionTime", "string"},
}

func TestEntrySchemaMatchesJava(t *testing.T) {
	sj, err := entrySchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	s, err := avro.Parse(sj)
	if err != nil {
		t.Fatalf("entry schema does not parse: %v", err)
	}
	root := s.Root()
	if root.Name != "HoodieArchivedMetaEntry" || root.Namespace != "org.apache.hudi.avro.model" {
		t.Fatalf("root %s.%s", root.Namespace, root.Name)
	}
	if len(root.Fields) != len(javaEntryFields) {
		t.Fatalf("%d fields, want %d", len(root.Fields), len(javaEntryFields))
	}
	for i, w := range javaEntryFields {
		f := root.Fields[i]
		if f.Name != w.name {
			t.Errorf("field %d is %s, want %s", i, f.Name, w.name)
			continue
		}
		// Every field is a two-branch union with null, like the .avsc.
		if f.Type.Type != "union" || len(f.Type.Branches) != 2 {
			t.Errorf("%s: not a union of two: %+v", f.Name, f.Type.Type)
			continue
		}
		var other string
		for _, b := range f.Type.Branches {
			if b.Type != "null" {
				other = b.Type
				if b.Type == "record" {
					other = b.Namespace + "." + b.Name
				}
			}
		}
		if other != w.typ {
			t.Errorf("%s: type %s, want %s", f.Name, other, w.typ)
		}
	}
}

// A decoded entry, field by field, against the Java schema: commit metadata converted
// from v6 JSON as MetadataConversionUtils does, a compaction plan, a clean, a rollback.
func TestEncodeEntriesFieldByField(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	meta := filepath.Join(root, ".hoodie")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	commitJSON := `{"partitionToWriteStats":{"p1":[{"fileId":"f1","path":"p1/f1_1-0-1_20240101000000001.parquet","prevCommit":"null",` +
		`"numWrites":3,"numDeletes":0,"numUpdateWrites":1,"numInserts":2,"totalWriteBytes":100,"totalWriteErrors":0,` +
		`"partitionPath":"p1","fileSizeInBytes":100,"minEventTime":null,"runtimeStats":{"totalScanTime":0,"totalUpsertTime":5,"totalCreateTime":0},"unknownProp":7}]},` +
		`"compacted":false,"extraMetadata":{"schema":"{}"},"operationType":"UPSERT"}`
	rollback, err := os.ReadFile("../../format/commitmeta/testdata/v6_mor_rollback.avro")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile("../../format/commitmeta/testdata/v8_mor_compaction_requested.avro")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"20240101000000001.commit.requested":     nil,
		"20240101000000001.inflight":             []byte(commitJSON),
		"20240101000000001.commit":               []byte(commitJSON),
		"20240101000000002.compaction.requested": plan,
		"20240101000000002.compaction.inflight":  nil,
		"20240101000000002.commit":               nil, // empty completed file: entry without metadata
		"20240101000000003.rollback":             rollback,
	}
	var names []string
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(meta, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	tl := timeline.FromFileNames(timeline.LayoutV1, ".hoodie", names)
	content, err := EncodeEntries(ctx, local.New(root), tl.Instants, 4)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := logfile.ReadAll(bytes.NewReader(content), int64(len(content)), "archive")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 { // 7 records in batches of 4
		t.Fatalf("%d blocks, want 2", len(blocks))
	}
	type got struct {
		ts, action, state string
		fields            map[string]any
	}
	var entries []got
	for _, b := range blocks {
		if b.Type != logfile.AvroDataBlock || len(b.Header) != 1 {
			t.Fatalf("block %s with header %v", b.Type, b.Header)
		}
		s, err := avro.Parse(b.Header[logfile.Schema])
		if err != nil {
			t.Fatal(err)
		}
		recs, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			v, rest, err := s.Decode(r)
			if err != nil || len(rest) != 0 {
				t.Fatalf("decode entry: %v (%d bytes left)", err, len(rest))
			}
			m := v.(map[string]any)
			entries = append(entries, got{m["commitTime"].(string), m["actionType"].(string), m["actionState"].(string), m})
		}
	}
	want := []struct{ ts, action, state, field string }{
		{"20240101000000001", "commit", "REQUESTED", "hoodieCommitMetadata"},
		{"20240101000000001", "commit", "INFLIGHT", "hoodieCommitMetadata"},
		{"20240101000000001", "commit", "COMPLETED", "hoodieCommitMetadata"},
		{"20240101000000002", "compaction", "REQUESTED", "hoodieCompactionPlan"},
		{"20240101000000002", "compaction", "INFLIGHT", ""},
		{"20240101000000002", "commit", "COMPLETED", ""},
		{"20240101000000003", "rollback", "COMPLETED", "hoodieRollbackMetadata"},
	}
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(entries), len(want))
	}
	for i, w := range want {
		e := entries[i]
		if e.ts != w.ts || e.action != w.action || e.state != w.state {
			t.Errorf("entry %d = %s %s %s, want %+v", i, e.ts, e.action, e.state, w)
		}
		for _, f := range javaEntryFields {
			set := e.fields[f.name] != nil
			switch f.name {
			case "commitTime", "actionType", "actionState":
				if !set {
					t.Errorf("entry %d: %s is null", i, f.name)
				}
			default:
				if set != (f.name == w.field) {
					t.Errorf("entry %d (%s %s): %s set=%v", i, w.action, w.state, f.name, set)
				}
			}
		}
	}
	// The completed commit, as Jackson would convert it.
	cm := entries[2].fields["hoodieCommitMetadata"].(map[string]any)
	if cm["operationType"] != "UPSERT" || cm["compacted"] != false || cm["version"] != nil {
		t.Errorf("commit metadata top level: %v %v %v", cm["operationType"], cm["compacted"], cm["version"])
	}
	if x := cm["extraMetadata"].(map[string]any); x["schema"] != "{}" || x["ROLLING_STAT"] != "" {
		t.Errorf("extraMetadata %v", x)
	}
	ws := cm["partitionToWriteStats"].(map[string]any)["p1"].([]any)[0].(map[string]any)
	for k, v := range map[string]any{"fileId": "f1", "prevCommit": "null", "numWrites": int64(3), "numInserts": int64(2),
		"numUpdateWrites": int64(1), "fileSizeInBytes": int64(100), "partitionPath": "p1", "minEventTime": nil, "logVersion": nil} {
		if ws[k] != v {
			t.Errorf("write stat %s = %#v, want %#v", k, ws[k], v)
		}
	}
	if rs := ws["runtimeStats"].(map[string]any); rs["totalUpsertTime"] != int64(5) {
		t.Errorf("runtimeStats %v", rs)
	}
	// The empty requested commit is an empty HoodieCommitMetadata (operation UNKNOWN).
	if rq := entries[0].fields["hoodieCommitMetadata"].(map[string]any); rq["operationType"] != "UNKNOWN" ||
		len(rq["partitionToWriteStats"].(map[string]any)) != 0 {
		t.Errorf("requested commit metadata %v", rq)
	}
	// The plan and rollback keep their values through the schema change.
	_, pv, _ := avro.ReadContainer(plan)
	wantOps := pv[0].(map[string]any)["operations"].([]any)
	gotOps := entries[3].fields["hoodieCompactionPlan"].(map[string]any)["operations"].([]any)
	if !jsonEqual(t, gotOps, wantOps) {
		t.Errorf("compaction plan operations differ:\n got %v\nwant %v", gotOps, wantOps)
	}
	_, rv, _ := avro.ReadContainer(rollback)
	if !jsonEqual(t, entries[6].fields["hoodieRollbackMetadata"], rv[0]) {
		t.Errorf("rollback metadata differs")
	}

	// And timeline/archived.go reads what was written.
	if err := os.MkdirAll(filepath.Join(meta, "archived"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(meta, "archived", ".commits_.archive.1_1-0-1"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	arch, err := timeline.LoadArchived(ctx, local.New(root), timeline.LayoutV1, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(arch) != 3 {
		t.Fatalf("reader sees %d instants", len(arch))
	}
	if a := arch[1]; a.Instant.Action != spec.ActionCommit || a.Instant.Requested != spec.ActionCompaction || a.Plan == nil || a.Metadata != nil {
		t.Errorf("archived compaction read as %+v plan=%d meta=%d", a.Instant, len(a.Plan), len(a.Metadata))
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}
