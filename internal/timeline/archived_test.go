package timeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// No fixture table has archived instants, so these tests write archives with the repo's
// own encoders. The nested metadata records are real: their schemas and values come from
// timeline files Java Hudi wrote (testdata/*.avro, copied from format/commitmeta/testdata),
// and are inlined into a HoodieArchivedMetaEntry schema whose field list follows
// HoodieArchivedMetaEntry.avsc.

const hudiNS = "org.apache.hudi.avro.model"

// realFile is a Java-written timeline file: its raw bytes, writer schema and datum.
type realFile struct {
	raw    []byte
	schema any // decoded schema JSON
	value  any
}

func loadReal(t testing.TB, name string) realFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	sj, values, err := avro.ReadContainer(raw)
	if err != nil || len(values) != 1 {
		t.Fatalf("%s: %v (%d values)", name, err, len(values))
	}
	var s any
	if err := json.Unmarshal([]byte(sj), &s); err != nil {
		t.Fatal(err)
	}
	return realFile{raw: raw, schema: s, value: values[0]}
}

// placeholder is a stand-in record for a nested type no test value uses. Its fields are
// NOT Hudi's: the reader never looks inside nested records, so only the name matters.
func placeholder(name string) any {
	return map[string]any{"type": "record", "name": name, "fields": []any{
		map[string]any{"name": "placeholderField", "type": []any{"null", "string"}, "default": nil},
	}}
}

// entryFields are HoodieArchivedMetaEntry.avsc's fields in order; legacyEntryFields is the
// older 13-field version (before HoodieInflightReplaceMetadata, hoodieIndexCommitMetadata
// and stateTransitionTime).
var (
	entryFields = []string{
		"hoodieCommitMetadata", "hoodieCleanMetadata", "hoodieCompactionMetadata",
		"hoodieRollbackMetadata", "hoodieSavePointMetadata", "commitTime", "actionType", "version",
		"hoodieCompactionPlan", "hoodieCleanerPlan", "actionState", "hoodieReplaceCommitMetadata",
		"hoodieRequestedReplaceMetadata", "HoodieInflightReplaceMetadata", "hoodieIndexCommitMetadata",
		"stateTransitionTime",
	}
	legacyEntryFields = entryFields[:13]
)

// entrySchema builds the HoodieArchivedMetaEntry writer schema JSON as Java would put it in
// the SCHEMA header: every nested type inlined at its first use.
func buildEntrySchema(t testing.TB, fields []string) string {
	t.Helper()
	real := map[string]string{
		"hoodieCommitMetadata":           "v9_cow_commit_insert.avro",
		"hoodieRollbackMetadata":         "v6_mor_rollback.avro",
		"hoodieCompactionPlan":           "v8_mor_compaction_requested.avro",
		"hoodieReplaceCommitMetadata":    "v9_cow_replacecommit_clustering.avro",
		"hoodieRequestedReplaceMetadata": "v9_cow_clustering_requested.avro",
	}
	placeholders := map[string]string{
		"hoodieCleanMetadata":       "HoodieCleanMetadata",
		"hoodieCompactionMetadata":  "HoodieCompactionMetadata",
		"hoodieSavePointMetadata":   "HoodieSavepointMetadata",
		"hoodieCleanerPlan":         "HoodieCleanerPlan",
		"hoodieIndexCommitMetadata": "HoodieIndexCommitMetadata",
	}
	seen := map[string]bool{}
	var out []any
	for _, f := range fields {
		var typ any
		switch {
		case real[f] != "":
			typ = []any{"null", avro.DedupeNamedTypes(loadReal(t, real[f]).schema, hudiNS, seen)}
		case placeholders[f] != "":
			typ = []any{"null", avro.DedupeNamedTypes(placeholder(placeholders[f]), hudiNS, seen)}
		case f == "HoodieInflightReplaceMetadata":
			typ = []any{"null", "HoodieCommitMetadata"}
		case f == "version":
			out = append(out, map[string]any{"name": f, "type": []any{"int", "null"}, "default": 1})
			continue
		default:
			typ = []any{"null", "string"}
		}
		out = append(out, map[string]any{"name": f, "type": typ, "default": nil})
	}
	b, err := json.Marshal(map[string]any{"type": "record", "name": "HoodieArchivedMetaEntry", "namespace": hudiNS, "fields": out})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entry builds one HoodieArchivedMetaEntry value over the given schema fields; state ""
// leaves actionState null, as very old archives do.
func entry(fields []string, ts, action, state string, set map[string]any) map[string]any {
	m := map[string]any{}
	for _, f := range fields {
		m[f] = nil
	}
	m["version"] = int32(1)
	m["commitTime"] = ts
	m["actionType"] = action
	if state != "" {
		m["actionState"] = state
	}
	for k, v := range set {
		m[k] = v
	}
	return m
}

// avroBlock is one AVRO_DATA_BLOCK of archived entries, framed, with only the SCHEMA header
// (what Java's archiver puts on its blocks is UNVERIFIED; the reader needs only SCHEMA).
func avroBlock(t testing.TB, schemaJSON string, entries ...map[string]any) []byte {
	t.Helper()
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, e := range entries {
		b, err := s.Encode(e)
		if err != nil {
			t.Fatalf("encode entry %v/%v: %v", e["commitTime"], e["actionType"], err)
		}
		recs = append(recs, b)
	}
	return rawBlock(t, schemaJSON, logfile.EncodeAvroDataBlock(recs))
}

func rawBlock(t testing.TB, schemaJSON string, content []byte) []byte {
	t.Helper()
	b, err := logfile.AppendBlock(nil, &logfile.Block{
		Type:    logfile.AvroDataBlock,
		Header:  map[logfile.HeaderKey]string{logfile.Schema: schemaJSON},
		Content: content,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func writeTree(t testing.TB, files map[string][]byte) string {
	t.Helper()
	root := t.TempDir()
	for p, b := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if b == nil { // a directory
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type wantInstant struct {
	ts        spec.InstantTime
	action    spec.Action
	state     spec.State
	requested spec.Action
	meta      bool
	plan      bool
}

func checkInstants(t *testing.T, got []ArchivedInstant, want []wantInstant) {
	t.Helper()
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("got %s %s %s requested=%s meta=%d plan=%d", g.Instant.Time, g.Instant.Action, g.Instant.State, g.Instant.Requested, len(g.Metadata), len(g.Plan))
		}
		t.Fatalf("got %d instants, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Instant.Time != w.ts || g.Instant.Action != w.action || g.Instant.State != w.state ||
			g.Instant.Requested != w.requested || (g.Metadata != nil) != w.meta || (g.Plan != nil) != w.plan {
			t.Errorf("instant %d = %s %s %s requested=%s meta=%v plan=%v, want %+v", i, g.Instant.Time, g.Instant.Action,
				g.Instant.State, g.Instant.Requested, g.Metadata != nil, g.Plan != nil, w)
		}
	}
}

const archived = ".hoodie/archived/"

func TestLoadArchivedLayout1(t *testing.T) {
	schema := buildEntrySchema(t, entryFields)
	legacy := buildEntrySchema(t, legacyEntryFields)
	commit := loadReal(t, "v9_cow_commit_insert.avro").value
	compactionPlan := loadReal(t, "v8_mor_compaction_requested.avro").value
	rollback := loadReal(t, "v6_mor_rollback.avro").value
	replace := loadReal(t, "v9_cow_replacecommit_clustering.avro").value
	requestedReplace := loadReal(t, "v9_cow_clustering_requested.avro").value
	e := func(ts, action, state string, set map[string]any) map[string]any {
		return entry(entryFields, ts, action, state, set)
	}

	// A commit archived in its three states, as 0.x archival writes it.
	commitEntries := []map[string]any{
		e("20240101000000001", "commit", "REQUESTED", nil),
		e("20240101000000001", "commit", "INFLIGHT", map[string]any{"hoodieCommitMetadata": commit}),
		e("20240101000000001", "commit", "COMPLETED", map[string]any{"hoodieCommitMetadata": commit, "stateTransitionTime": "20240101000000099"}),
	}
	// A compaction: requested/inflight as compaction, completed as commit.
	compactionEntries := []map[string]any{
		e("20240101000000002", "compaction", "REQUESTED", map[string]any{"hoodieCompactionPlan": compactionPlan}),
		e("20240101000000002", "compaction", "INFLIGHT", nil),
		e("20240101000000002", "commit", "COMPLETED", map[string]any{"hoodieCommitMetadata": commit}),
	}
	rollbackEntries := []map[string]any{
		e("20240101000000003", "rollback", "REQUESTED", nil),
		e("20240101000000003", "rollback", "COMPLETED", map[string]any{"hoodieRollbackMetadata": rollback}),
	}
	replaceEntries := []map[string]any{
		e("20240101000000004", "replacecommit", "REQUESTED", map[string]any{"hoodieRequestedReplaceMetadata": requestedReplace}),
		e("20240101000000004", "replacecommit", "INFLIGHT", map[string]any{"HoodieInflightReplaceMetadata": commit}),
		e("20240101000000004", "replacecommit", "COMPLETED", map[string]any{"hoodieReplaceCommitMetadata": replace}),
	}
	// Entries of a very old archive: legacy schema, no actionState (read as completed).
	oldEntry := entry(legacyEntryFields, "20231231000000000", "deltacommit", "", map[string]any{"hoodieCommitMetadata": commit})

	good := avroBlock(t, schema, commitEntries...)
	second := avroBlock(t, schema, rollbackEntries...)
	// A block whose size field is wrong fails the frame check and becomes a corrupt block.
	damaged := avroBlock(t, schema, e("20240101000000009", "commit", "COMPLETED", nil))
	damaged[6+7]++
	undecodable := rawBlock(t, schema, logfile.EncodeAvroDataBlock([][]byte{{0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}))
	mergePlanSchema, err := avro.Parse(`{"type":"record","name":"HoodieMergeArchiveFilePlan","namespace":"org.apache.hudi.avro.model","fields":[
		{"name":"candidate","type":["null",{"type":"array","items":"string"}],"default":null},
		{"name":"mergedArchiveFileName","type":["null","string"],"default":null}]}`)
	if err != nil {
		t.Fatal(err)
	}
	mergePlan, err := avro.WriteContainer(mergePlanSchema, map[string]any{
		"candidate":             []any{".commits_.archive.1_1-0-1"},
		"mergedArchiveFileName": ".commits_.archive.3_1-0-1",
	})
	if err != nil {
		t.Fatal(err)
	}

	commitWant := wantInstant{"20240101000000001", spec.ActionCommit, spec.StateCompleted, spec.ActionCommit, true, false}
	compactionWant := wantInstant{"20240101000000002", spec.ActionCommit, spec.StateCompleted, spec.ActionCompaction, true, true}
	rollbackWant := wantInstant{"20240101000000003", spec.ActionRollback, spec.StateCompleted, spec.ActionRollback, true, false}
	replaceWant := wantInstant{"20240101000000004", spec.ActionReplaceCommit, spec.StateCompleted, spec.ActionReplaceCommit, true, true}

	tests := []struct {
		name    string
		folder  string
		files   map[string][]byte
		want    []wantInstant
		wantErr []string
	}{
		{name: "missing folder", files: map[string][]byte{".hoodie/hoodie.properties": []byte("x")}},
		{name: "empty folder", files: map[string][]byte{".hoodie/archived": nil}},
		{
			name: "unrelated files only",
			files: map[string][]byte{
				archived + "mergeArchivePlan":               mergePlan,
				archived + "commits.txt":                    []byte("x"),
				archived + "..commits_.archive.1_1-0-1.crc": []byte("crc"),
			},
		},
		{
			name: "several files, old name format and legacy schema",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": concat(good, avroBlock(t, schema, compactionEntries...)),
				archived + ".commits_.archive.2_1-0-1": concat(second, avroBlock(t, schema, replaceEntries...)),
				archived + ".commits_.archive.3":       avroBlock(t, legacy, oldEntry),
			},
			want: []wantInstant{
				{"20231231000000000", spec.ActionDeltaCommit, spec.StateCompleted, spec.ActionDeltaCommit, true, false},
				commitWant, compactionWant, rollbackWant, replaceWant,
			},
		},
		{
			name:   "custom archive folder",
			folder: "old_archive",
			files:  map[string][]byte{".hoodie/old_archive/.commits_.archive.1_1-0-1": good},
			want:   []wantInstant{commitWant},
		},
		{
			name: "states of one instant split across files",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": avroBlock(t, schema, compactionEntries[:2]...),
				archived + ".commits_.archive.2_1-0-1": avroBlock(t, schema, compactionEntries[2]),
			},
			want: []wantInstant{compactionWant},
		},
		{
			name: "corrupt and truncated blocks are skipped",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": concat(good, damaged, second),
				archived + ".commits_.archive.2_1-0-1": concat([]byte("garbage"), avroBlock(t, schema, replaceEntries...), good[:len(good)/2]),
			},
			want: []wantInstant{commitWant, rollbackWant, replaceWant},
		},
		{
			name: "non-avro blocks are ignored",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": concat(func() []byte {
					b, err := logfile.AppendBlock(nil, &logfile.Block{Type: logfile.CommandBlock, Header: map[logfile.HeaderKey]string{
						logfile.InstantTime: "1", logfile.TargetInstantTime: "0", logfile.CommandBlockType: logfile.RollbackCommand}})
					if err != nil {
						t.Fatal(err)
					}
					return b
				}(), good),
			},
			want: []wantInstant{commitWant},
		},
		{
			name: "duplicates from a merged file and its sources",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": good,
				archived + ".commits_.archive.2_1-0-1": concat(good, second),
			},
			want: []wantInstant{commitWant, rollbackWant},
		},
		{
			name: "unknown and pending actions are kept",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": avroBlock(t, schema,
					e("20240101000000005", "frobnicate", "COMPLETED", nil),
					e("20240101000000006", "clean", "REQUESTED", map[string]any{"hoodieCleanerPlan": map[string]any{"placeholderField": "x"}}),
					e("20240101000000007", "commit", "NIL", nil)),
			},
			want: []wantInstant{
				{"20240101000000005", "frobnicate", spec.StateCompleted, "frobnicate", false, false},
				{"20240101000000006", spec.ActionClean, spec.StateRequested, spec.ActionClean, false, true},
			},
		},
		{
			name:    "undecodable record",
			files:   map[string][]byte{archived + ".commits_.archive.3_1-0-1": undecodable},
			wantErr: []string{".hoodie/archived/.commits_.archive.3_1-0-1", "offset 0", "archived entry 0 of 1"},
		},
		{
			name: "undecodable half-merged file named by mergeArchivePlan is skipped",
			files: map[string][]byte{
				archived + ".commits_.archive.1_1-0-1": good,
				archived + ".commits_.archive.3_1-0-1": undecodable,
				archived + "mergeArchivePlan":          mergePlan,
			},
			want: []wantInstant{commitWant},
		},
		{
			name: "unknown state",
			files: map[string][]byte{archived + ".commits_.archive.1_1-0-1": avroBlock(t, schema,
				e("20240101000000005", "commit", "DONE", nil))},
			wantErr: []string{".commits_.archive.1_1-0-1", `unknown actionState "DONE"`},
		},
		{
			name: "no commit time",
			files: map[string][]byte{archived + ".commits_.archive.1_1-0-1": avroBlock(t, schema,
				e("", "commit", "COMPLETED", nil))},
			wantErr: []string{".commits_.archive.1_1-0-1", "no commitTime"},
		},
		{
			name:    "block without schema",
			files:   map[string][]byte{archived + ".commits_.archive.1_1-0-1": rawBlock(t, "", logfile.EncodeAvroDataBlock(nil))},
			wantErr: []string{".commits_.archive.1_1-0-1", "no SCHEMA header"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.files)
			got, err := LoadArchived(context.Background(), local.New(root), LayoutV1, tc.folder, "")
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, got %d instants", len(got))
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInstants(t, got, tc.want)
		})
	}
}

// TestArchivedLayout1Contents checks that the metadata and plans come back as the records
// the entries held, readable by the commitmeta decoders.
func TestArchivedLayout1Contents(t *testing.T) {
	schema := buildEntrySchema(t, entryFields)
	commit := loadReal(t, "v9_cow_commit_insert.avro")
	plan := loadReal(t, "v8_mor_compaction_requested.avro")
	rollback := loadReal(t, "v6_mor_rollback.avro")
	replace := loadReal(t, "v9_cow_replacecommit_clustering.avro")
	requested := loadReal(t, "v9_cow_clustering_requested.avro")
	e := func(ts, action, state string, set map[string]any) map[string]any {
		return entry(entryFields, ts, action, state, set)
	}
	root := writeTree(t, map[string][]byte{archived + ".commits_.archive.1_1-0-1": avroBlock(t, schema,
		e("20240101000000002", "compaction", "REQUESTED", map[string]any{"hoodieCompactionPlan": plan.value}),
		e("20240101000000002", "commit", "COMPLETED", map[string]any{"hoodieCommitMetadata": commit.value, "stateTransitionTime": "20240101000000099"}),
		e("20240101000000003", "rollback", "COMPLETED", map[string]any{"hoodieRollbackMetadata": rollback.value}),
		e("20240101000000004", "replacecommit", "REQUESTED", map[string]any{"hoodieRequestedReplaceMetadata": requested.value}),
		e("20240101000000004", "replacecommit", "COMPLETED", map[string]any{"hoodieReplaceCommitMetadata": replace.value}),
	)})
	got, err := LoadArchived(context.Background(), local.New(root), LayoutV1, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d instants", len(got))
	}
	same := func(what string, data []byte, want realFile) {
		t.Helper()
		sj, values, err := avro.ReadContainer(data)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !reflect.DeepEqual(values, []any{want.value}) {
			t.Errorf("%s: datum differs from the archived record", what)
		}
		// The container's schema is the field's record schema, standing alone.
		var s map[string]any
		if err := json.Unmarshal([]byte(sj), &s); err != nil || s["name"] != want.schema.(map[string]any)["name"] {
			t.Errorf("%s: container schema is %.80s…", what, sj)
		}
	}
	compaction, rb, rc := got[0], got[1], got[2]
	same("compaction commit metadata", compaction.Metadata, commit)
	same("compaction plan", compaction.Plan, plan)
	same("rollback metadata", rb.Metadata, rollback)
	same("replace metadata", rc.Metadata, replace)
	same("requested replace metadata", rc.Plan, requested)
	if compaction.StateTransitionTime != "20240101000000099" || compaction.Instant.Completion != "" {
		t.Errorf("transition time %q, completion %q", compaction.StateTransitionTime, compaction.Instant.Completion)
	}
	if compaction.Source != ".hoodie/archived/.commits_.archive.1_1-0-1" {
		t.Errorf("source %q", compaction.Source)
	}

	// What the wrapped bytes decode to must equal what the original Java files decode to.
	wantCM, err := commitmeta.Decode(commit.raw)
	if err != nil {
		t.Fatal(err)
	}
	gotCM, err := commitmeta.Decode(compaction.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotCM, wantCM) {
		t.Error("commit metadata decodes differently from the original file")
	}
	wantPlan, err := commitmeta.DecodeCompactionPlan(plan.raw)
	if err != nil {
		t.Fatal(err)
	}
	gotPlan, err := commitmeta.DecodeCompactionPlan(compaction.Plan)
	if err != nil || !reflect.DeepEqual(gotPlan, wantPlan) {
		t.Errorf("compaction plan: %v", err)
	}
	if _, err := commitmeta.DecodeRollback(rb.Metadata); err != nil {
		t.Error(err)
	}
	if _, err := commitmeta.DecodeRequestedReplace(rc.Plan); err != nil {
		t.Error(err)
	}
	// The datums are the archived bytes themselves, not a re-encoding of decoded values
	// (which would reorder Avro maps), so they appear verbatim in the archive file.
	file, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(archived+".commits_.archive.1_1-0-1")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]byte{compaction.Metadata, compaction.Plan, rb.Metadata, rc.Metadata, rc.Plan} {
		if d := containerDatum(t, c); len(d) < 100 || !bytes.Contains(file, d) {
			t.Errorf("container datum (%d bytes) is not the archived bytes", len(d))
		}
	}
	// The output is deterministic.
	again, err := LoadArchived(context.Background(), local.New(root), LayoutV1, "", "")
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("second load differs (%v)", err)
	}
}

// containerDatum returns the single datum of a one-block container: after the header's
// sync marker come the datum count, its byte size and the datum, then the marker again.
func containerDatum(t *testing.T, c []byte) []byte {
	t.Helper()
	sync := c[len(c)-16:]
	rest := c[bytes.Index(c, sync)+16:]
	if n, k := binary.Varint(rest); n != 1 || k <= 0 {
		t.Fatalf("block holds %d datums", n)
	} else {
		rest = rest[k:]
	}
	size, k := binary.Varint(rest)
	if k <= 0 || int(size) != len(rest)-k-16 {
		t.Fatalf("bad block size %d", size)
	}
	return rest[k : k+int(size)]
}

// ---------------------------------------------------------------------------------------
// Layout 2

type lsmRow struct {
	ts, completion, action *string
	metadata, plan         []byte
}

func str(s string) *string { return &s }

// lsmParquet writes rows with HoodieLSMTimelineInstant's columns as parquet-avro lays them
// out: strings as UTF8 binary, bytes as binary, version a required int32.
func lsmParquet(t testing.TB, rows ...lsmRow) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "instantTime", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "completionTime", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "action", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "metadata", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "plan", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "version", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		for i, s := range []*string{r.ts, r.completion, r.action} {
			if s == nil {
				b.Field(i).AppendNull()
			} else {
				b.Field(i).(*array.StringBuilder).Append(*s)
			}
		}
		for i, v := range [][]byte{r.metadata, r.plan} {
			if v == nil {
				b.Field(3 + i).AppendNull()
			} else {
				b.Field(3 + i).(*array.BinaryBuilder).Append(v)
			}
		}
		b.Field(5).(*array.Int32Builder).Append(1)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, pq.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// manifestJSON renders a manifest the way Jackson's default pretty printer does.
func manifestJSON(files map[string][]byte, names ...string) []byte {
	var entries []string
	for _, n := range names {
		entries = append(entries, "{\n    \"fileName\" : \""+n+"\",\n    \"fileLen\" : "+strconv.Itoa(len(files[n]))+"\n  }")
	}
	return []byte("{\n  \"files\" : [ " + strings.Join(entries, ", ") + " ]\n}")
}

const history = ".hoodie/timeline/history/"

func TestLoadArchivedLayout2(t *testing.T) {
	commit := loadReal(t, "v9_cow_commit_insert.avro")
	plan := loadReal(t, "v8_mor_compaction_requested.avro")
	replace := loadReal(t, "v9_cow_replacecommit_clustering.avro")
	requested := loadReal(t, "v9_cow_clustering_requested.avro")

	const (
		file1 = "20240101000000001_20240101000000003_0.parquet"
		file2 = "20240101000000004_20240101000000005_0.parquet"
	)
	parquetFiles := map[string][]byte{
		file1: lsmParquet(t,
			lsmRow{ts: str("20240101000000001"), completion: str("20240101000000011"), action: str("commit"), metadata: commit.raw},
			lsmRow{ts: str("20240101000000002"), completion: str("20240101000000012"), action: str("commit"), metadata: commit.raw, plan: plan.raw},
			lsmRow{ts: str("20240101000000003"), completion: str("20240101000000013"), action: str("clean")},
		),
		file2: lsmParquet(t,
			lsmRow{ts: str("20240101000000005"), completion: str("20240101000000015"), action: str("replacecommit"), metadata: replace.raw, plan: requested.raw},
			lsmRow{ts: str("20240101000000004"), completion: str("20240101000000014"), action: str("deltacommit"), metadata: []byte{}},
		),
	}
	base := func(extra map[string][]byte) map[string][]byte {
		m := map[string][]byte{
			history + file1:        parquetFiles[file1],
			history + file2:        parquetFiles[file2],
			history + "manifest_1": manifestJSON(parquetFiles, file1),
			history + "manifest_2": manifestJSON(parquetFiles, file1, file2),
			history + "_version_":  []byte("2"),
		}
		for k, v := range extra {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	w := func(ts string, action, requested spec.Action, meta, plan bool) wantInstant {
		return wantInstant{spec.InstantTime(ts), action, spec.StateCompleted, requested, meta, plan}
	}
	first := []wantInstant{
		w("20240101000000001", spec.ActionCommit, spec.ActionCommit, true, false),
		w("20240101000000002", spec.ActionCommit, spec.ActionCompaction, true, true),
		w("20240101000000003", spec.ActionClean, spec.ActionClean, false, false),
	}
	all := append(append([]wantInstant{}, first...),
		w("20240101000000004", spec.ActionDeltaCommit, spec.ActionDeltaCommit, false, false),
		w("20240101000000005", spec.ActionReplaceCommit, spec.ActionReplaceCommit, true, true),
	)

	tests := []struct {
		name     string
		files    map[string][]byte
		history  string
		timeline string
		want     []wantInstant
		wantErr  []string
	}{
		{name: "missing history folder", files: map[string][]byte{".hoodie/timeline": nil}},
		{name: "no manifest yet", files: map[string][]byte{".hoodie/timeline/history": nil}},
		{name: "version file names latest manifest", files: base(nil), want: all},
		{name: "version file missing: max manifest", files: base(map[string][]byte{history + "_version_": nil}), want: all},
		{name: "version file names an older manifest", files: base(map[string][]byte{history + "_version_": []byte("1")}), want: first},
		{
			// Java's Integer.parseInt rejects "1\n", so the listing decides.
			name:  "unparsable version file: max manifest",
			files: base(map[string][]byte{history + "_version_": []byte("1\n")}),
			want:  all,
		},
		{name: "negative version: no snapshot", files: base(map[string][]byte{history + "_version_": []byte("-1")})},
		{name: "empty manifest", files: base(map[string][]byte{history + "manifest_2": []byte{}})},
		{
			name: "custom timeline and history folders",
			files: map[string][]byte{
				".hoodie/tl/hist/" + file1:       parquetFiles[file1],
				".hoodie/tl/hist/manifest_7":     manifestJSON(parquetFiles, file1),
				".hoodie/tl/hist/manifest_3":     []byte("not json"),
				".hoodie/tl/hist/manifest_x":     []byte("ignored"),
				".hoodie/tl/hist/manifest_3.tmp": []byte("ignored"),
			},
			history: "hist", timeline: "tl", want: first,
		},
		{
			name:    "manifest names a missing file",
			files:   base(map[string][]byte{history + file2: nil}),
			wantErr: []string{"manifest_2", file2, "does not exist"},
		},
		{
			name:    "version names a missing manifest",
			files:   base(map[string][]byte{history + "_version_": []byte("9")}),
			wantErr: []string{".hoodie/timeline/history/manifest_9"},
		},
		{
			name:    "manifest names a path outside the folder",
			files:   base(map[string][]byte{history + "manifest_2": []byte(`{"files":[{"fileName":"../../hoodie.properties","fileLen":1}]}`)}),
			wantErr: []string{"manifest_2", `"../../hoodie.properties"`},
		},
		{
			name:    "not a parquet file",
			files:   base(map[string][]byte{history + file2: []byte("PAR1 but not really")}),
			wantErr: []string{file2},
		},
		{
			name: "row without instant time",
			files: base(map[string][]byte{history + file2: lsmParquet(t,
				lsmRow{completion: str("20240101000000015"), action: str("commit")})}),
			wantErr: []string{file2, "row 0 has no instantTime"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.files)
			got, err := LoadArchived(context.Background(), local.New(root), LayoutV2, tc.history, tc.timeline)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, got %d instants", len(got))
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInstants(t, got, tc.want)
			for _, g := range got {
				if g.Instant.Completion == "" || g.Instant.Completion[:15] != g.Instant.Time[:15] {
					t.Errorf("instant %s completion %q", g.Instant.Time, g.Instant.Completion)
				}
			}
		})
	}

	// The bytes come back exactly as stored.
	root := writeTree(t, base(nil))
	got, err := LoadArchived(context.Background(), local.New(root), LayoutV2, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[1].Metadata, commit.raw) || !bytes.Equal(got[1].Plan, plan.raw) || !bytes.Equal(got[4].Plan, requested.raw) {
		t.Error("layout 2 metadata or plan bytes differ from what was stored")
	}
	if got[1].Source != history+file1 || got[4].Source != history+file2 {
		t.Errorf("sources %q, %q", got[1].Source, got[4].Source)
	}
	if _, err := commitmeta.Decode(got[4].Metadata); err != nil {
		t.Error(err)
	}
}

func TestLoadArchivedCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := writeTree(t, map[string][]byte{archived + ".commits_.archive.1_1-0-1": []byte("x")})
	if _, err := LoadArchived(ctx, local.New(root), LayoutV1, "", ""); err == nil {
		t.Error("no error from a canceled context")
	}
}

func TestParseManifest(t *testing.T) {
	tests := []struct {
		in      string
		want    []manifestFile
		wantErr string
	}{
		{in: ""},
		{in: `{}`},
		{in: `{"files":null}`},
		{in: `{"files":[]}`},
		{in: "{\n  \"files\" : [ {\n    \"fileName\" : \"1_2_0.parquet\",\n    \"fileLen\" : 12\n  } ]\n}", want: []manifestFile{{"1_2_0.parquet", 12}}},
		{in: `{"files":[{"fileName":"a","fileLen":"7","extra":1},{"fileName":"b"}],"other":true}`, want: []manifestFile{{"a", 7}, {"b", 0}}},
		{in: `{"Files":[{"fileName":"a"}]}`}, // Jackson matches names exactly
		{in: ` `, wantErr: "not a JSON object"},
		{in: `[]`, wantErr: "not a JSON object"},
		{in: `{"files":{}}`, wantErr: `"files" is not an array`},
		{in: `{"files":[1]}`, wantErr: "files[0] is not an object"},
		{in: `{"files":[null]}`, wantErr: "files[0] is not an object"},
		{in: `{"files":[{"FileName":"a"}]}`, wantErr: "files[0] has no fileName"},
		{in: `{"files":[{"fileName":3}]}`, wantErr: "files[0].fileName is not a string"},
		{in: `{"files":[{"fileName":"a/b"}]}`, wantErr: `"a/b" is not a file name`},
		{in: `{"files":[{"fileName":".."}]}`, wantErr: `".." is not a file name`},
		{in: `{"files":[{"fileName":"a","fileLen":1.5}]}`, wantErr: "files[0].fileLen: 1.5 is not a long"},
	}
	for _, tc := range tests {
		got, err := parseManifest([]byte(tc.in), "m")
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "manifest m") {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if len(got) != len(tc.want) || (len(got) > 0 && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: got %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"files":null}`,
		"{\n  \"files\" : [ {\n    \"fileName\" : \"20240101000000001_20240101000000010_0.parquet\",\n    \"fileLen\" : 4521\n  } ]\n}",
		`{"files":[{"fileName":"a","fileLen":"7"},{"fileName":"b"}]}`,
		`{"files":[{"fileName":"../x"}]}`, `{"files":[{"fileName":"a","fileLen":-1e3}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := parseManifest(data, "fuzz")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz") {
				t.Fatalf("error does not name the manifest: %v", err)
			}
			return
		}
		type entry struct {
			FileName string `json:"fileName"`
			FileLen  int64  `json:"fileLen"`
		}
		var again []entry
		for _, mf := range files {
			if !isPlainFileName(mf.Name) {
				t.Fatalf("accepted file name %q", mf.Name)
			}
			again = append(again, entry{mf.Name, mf.Len})
		}
		// What was accepted re-encodes to a manifest that parses to the same entries.
		b, err := json.Marshal(map[string]any{"files": again})
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseManifest(b, "fuzz")
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(back) != len(files) || (len(files) > 0 && !reflect.DeepEqual(back, files)) {
			t.Fatalf("round trip: %+v != %+v", back, files)
		}
	})
}
