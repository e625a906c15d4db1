package commitmeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/testutil"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeFile(t *testing.T, name string) *CommitMetadata {
	t.Helper()
	m, err := Decode(readTestdata(t, name))
	if err != nil {
		t.Fatalf("Decode(%s): %v", name, err)
	}
	return m
}

// checkSchema asserts that the commit schema is a JSON Avro record with the given name.
func checkSchema(t *testing.T, m *CommitMetadata, wantName string) {
	t.Helper()
	var s struct {
		Type   string `json:"type"`
		Name   string `json:"name"`
		Fields []any  `json:"fields"`
	}
	if err := json.Unmarshal([]byte(m.Schema()), &s); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if s.Type != "record" || s.Name != wantName || len(s.Fields) == 0 {
		t.Fatalf("schema: type %q name %q with %d fields, want record %q", s.Type, s.Name, len(s.Fields), wantName)
	}
}

func onlyStat(t *testing.T, m *CommitMetadata, partition string) *WriteStat {
	t.Helper()
	stats := m.PartitionToWriteStats[partition]
	if len(stats) != 1 {
		t.Fatalf("partition %q has %d stats, want 1", partition, len(stats))
	}
	return &stats[0]
}

func TestDecodeV6Commit(t *testing.T) {
	m := decodeFile(t, "v6_cow_commit_insert.json")
	if m.OperationType != "UPSERT" || m.Compacted || m.IsReplace() {
		t.Errorf("operation %q compacted %v replace %v", m.OperationType, m.Compacted, m.IsReplace())
	}
	checkSchema(t, m, "v6_nonpartitioned_record")
	s := onlyStat(t, m, "")
	want := WriteStat{
		FileID:          "a079bdb3-731c-4894-b855-abfcd6921007-0",
		Path:            "a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet",
		PrevCommit:      "null",
		NumWrites:       3,
		NumInserts:      3,
		TotalWriteBytes: 441382,
		FileSizeInBytes: 441382,
		RuntimeStats:    s.RuntimeStats,
	}
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("stat:\n got %+v\nwant %+v", *s, want)
	}
	if s.RuntimeStats == nil || s.PrevCommitInstant() != "" || s.IsLogWrite() || s.MinEventTime != nil {
		t.Errorf("runtimeStats %v prevCommitInstant %q log %v minEventTime %v", s.RuntimeStats, s.PrevCommitInstant(), s.IsLogWrite(), s.MinEventTime)
	}
	if got := m.FileIDs(); !slices.Equal(got, []string{"a079bdb3-731c-4894-b855-abfcd6921007-0"}) {
		t.Errorf("FileIDs = %v", got)
	}
}

func TestDecodeV6DeltaCommitLogWrite(t *testing.T) {
	m := decodeFile(t, "v6_mor_deltacommit_logwrite.json")
	if m.OperationType != "UPSERT_PREPPED" || m.ExtraMetadata["_hoodie.spark.sql.writes.prepped"] != "true" || len(m.ExtraMetadata) != 2 {
		t.Errorf("operation %q extra %v", m.OperationType, m.ExtraMetadata)
	}
	checkSchema(t, m, "v6_trips_8i1u_record")
	s := onlyStat(t, m, "city=san_francisco")
	if !s.IsLogWrite() || s.LogVersion != 1 || s.LogOffset != 0 ||
		s.BaseFile != "d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0_0-13-60_20250331030642808.parquet" ||
		!slices.Equal(s.LogFiles, []string{".d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0_20250331030642808.log.1_0-26-85"}) ||
		s.PrevCommitInstant() != "20250331030642808" || s.FileSizeInBytes != 1148 || s.NumUpdateWrites != 1 {
		t.Errorf("log stat: %+v", *s)
	}
	if s.RuntimeStats == nil || s.RuntimeStats.TotalUpsertTime != 296 {
		t.Errorf("runtimeStats %+v", s.RuntimeStats)
	}

	// After a rollback the slice has three log files, the third written here.
	m = decodeFile(t, "v6_mor_deltacommit_after_rollback.json")
	checkSchema(t, m, "v6_nonpartitioned_rollback_record")
	s = onlyStat(t, m, "")
	if s.LogVersion != 3 || len(s.LogFiles) != 3 || s.TotalWriteBytes != 11835 || s.PrevCommit != "20250126040823628" ||
		s.Path != ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.3_0-13-9" {
		t.Errorf("log stat: %+v", *s)
	}
}

func TestDecodeV6Inflight(t *testing.T) {
	m := decodeFile(t, "v6_mor_deltacommit_inflight.json")
	stats := m.PartitionToWriteStats[""]
	if len(stats) != 2 || stats[0].FileID != "" || stats[0].Path != "" || stats[0].PartitionPath != "" || stats[0].RuntimeStats != nil {
		t.Fatalf("inflight stats: %+v", stats)
	}
	if stats[1].NumUpdateWrites != 1 || !slices.Equal(m.FileIDs(), []string{"0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0"}) {
		t.Errorf("inflight: %+v / %v", stats[1], m.FileIDs())
	}
	if len(m.ExtraMetadata) != 0 || m.ExtraMetadata == nil {
		t.Errorf("extraMetadata %v: want empty, non-nil", m.ExtraMetadata)
	}
}

func TestDecodeV6ReplaceCommit(t *testing.T) {
	m := decodeFile(t, "v6_cow_replacecommit_overwrite_table.json")
	if !m.IsReplace() || m.OperationType != "INSERT_OVERWRITE_TABLE" {
		t.Fatalf("replace %v operation %q", m.IsReplace(), m.OperationType)
	}
	for p, id := range map[string]string{
		"30": "d398fae1-c0e6-4098-8124-f55f7098bdba-0",
		"20": "88163884-fef0-4aab-865d-c72327a8a1d5-0",
		"10": "4f2685a3-614f-49ca-9b2b-e1cb9fb61f27-0",
	} {
		if got := m.ReplacedFileIDs(p); !slices.Equal(got, []string{id}) {
			t.Errorf("ReplacedFileIDs(%s) = %v", p, got)
		}
	}
	if m.ReplacedFileIDs("40") != nil {
		t.Error("unknown partition must have no replaced files")
	}
	n := 0
	for p, s := range m.WriteStats() {
		n++
		if p != "30" || s.FileID != "ebcb261d-62d3-4895-90ec-5b3c9622dff4-0" || s.NumInserts != 1 {
			t.Errorf("stat %s %+v", p, *s)
		}
	}
	if n != 1 {
		t.Errorf("%d stats", n)
	}
	checkSchema(t, m, "v6_simplekeygen_nonhivestyle_overwritetable_record")
}

// TestEncodeJSONGolden re-encodes Java-written v6 metadata and expects Java's bytes,
// including the HashMap order of the replaced partitions ("30", "20", "10").
func TestEncodeJSONGolden(t *testing.T) {
	for _, name := range []string{"v6_cow_commit_insert.json", "v6_mor_deltacommit_logwrite.json",
		"v6_mor_deltacommit_after_rollback.json", "v6_cow_replacecommit_overwrite_table.json"} {
		data := readTestdata(t, name)
		m, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := EncodeJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, data) {
			t.Errorf("%s: EncodeJSON differs from Java's bytes\n got %s\nwant %s", name, out, data)
		}
	}
}

func TestEncodeJSONConventions(t *testing.T) {
	min := int64(-5)
	m := &CommitMetadata{
		PartitionToWriteStats: map[string][]WriteStat{
			"p": {{FileID: "f", Path: "p/f.parquet", PartitionPath: "p", MinEventTime: &min, CDCStats: map[string]int64{}}},
			"q": {},
		},
		ExtraMetadata:             map[string]string{"schema": "{\"a\":\"\\u2028/é\"}\t\x01"},
		OperationType:             "INSERT",
		PartitionToReplaceFileIDs: map[string][]string{},
	}
	out, err := EncodeJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`"prevCommit" : "null"`, `"tempPath" : null`, `"minEventTime" : -5`, `"maxEventTime" : null`,
		`"runtimeStats" : null`, `"cdcStats" : { }`, `"q" : [ ]`, `"partitionToReplaceFileIds" : { }`,
		`"schema" : "{\"a\":\"\\u2028/é\"}\t\u0001"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	if strings.Contains(s, "logVersion") || strings.Contains(s, "numUpdates") {
		t.Errorf("base-file stat must not carry log or v8-only fields:\n%s", s)
	}
	back, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.ExtraMetadata["schema"] != m.ExtraMetadata["schema"] || *back.PartitionToWriteStats["p"][0].MinEventTime != -5 {
		t.Errorf("round trip: %+v", back)
	}
	if _, err := EncodeJSON(nil); err == nil {
		t.Error("EncodeJSON(nil) must fail")
	}
}

func TestJavaHashMapOrder(t *testing.T) {
	// Observed in a Java-written replacecommit.
	if got := javaHashMapOrder(map[string]int{"10": 0, "20": 0, "30": 0}); !slices.Equal(got, []string{"30", "20", "10"}) {
		t.Errorf("order = %v", got)
	}
	if javaStringHash("hello") != 99162322 {
		t.Errorf("hash(hello) = %d", javaStringHash("hello"))
	}
}

func TestDecodeV9Commit(t *testing.T) {
	m := decodeFile(t, "v9_cow_commit_insert.avro")
	if m.OperationType != "INSERT" || m.Compacted || m.IsReplace() || m.Version != 0 {
		t.Errorf("operation %q compacted %v replace %v version %d", m.OperationType, m.Compacted, m.IsReplace(), m.Version)
	}
	checkSchema(t, m, "v9_txns_cow_simple_meta_record")
	if got := m.Partitions(); !slices.Equal(got, []string{"region=apac", "region=eu", "region=us"}) {
		t.Errorf("partitions %v", got)
	}
	wantIDs := []string{"07838327-b037-4532-a9df-3c5b05dd823d-0", "2578f9c2-93be-4911-bb29-cda3106b5623-0", "c7bbe63e-fa43-40ba-94a9-03158165edc6-0"}
	if got := m.FileIDs(); !slices.Equal(got, wantIDs) {
		t.Errorf("FileIDs %v", got)
	}
	var inserts int64
	for _, s := range m.WriteStats() {
		inserts += s.NumInserts
		if s.IsLogWrite() || s.LogFiles != nil || s.PrevCommit != NullCommit || s.RuntimeStats == nil {
			t.Errorf("stat %+v", *s)
		}
	}
	if inserts != 8 {
		t.Errorf("inserts = %d, want 8", inserts)
	}
	s := onlyStat(t, m, "region=apac")
	if s.Path != "region=apac/07838327-b037-4532-a9df-3c5b05dd823d-0_2-27-57_20260307162434124.parquet" || s.FileSizeInBytes != 438523 || s.RuntimeStats.TotalCreateTime != 76 {
		t.Errorf("apac stat %+v", *s)
	}

	// The inflight profile has the same schema, with empty file IDs.
	m = decodeFile(t, "v9_cow_commit_inflight.avro")
	if len(m.FileIDs()) != 0 || len(m.PartitionToWriteStats) != 3 || m.OperationType != "INSERT" {
		t.Errorf("inflight: %+v", m)
	}
}

func TestDecodeV8Compaction(t *testing.T) {
	m := decodeFile(t, "v8_mor_commit_compaction.avro")
	if !m.Compacted || m.OperationType != "COMPACT" {
		t.Errorf("compacted %v operation %q", m.Compacted, m.OperationType)
	}
	s := onlyStat(t, m, "city=chennai")
	if s.FileID != "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0" || s.TotalLogFilesCompacted != 2 || s.TotalLogSizeCompacted != 2117 ||
		s.TotalLogRecords != 2 || s.TotalLogReadTimeMs != 5 || s.NumDeletes != 1 || s.PrevCommit != "20251220210108078" ||
		s.PrevBaseFile != "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_2-986-2794_20251220210108078.parquet" {
		t.Errorf("compaction stat %+v", *s)
	}

	p, err := DecodeCompactionPlan(readTestdata(t, "v8_mor_compaction_requested.avro"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 2 || len(p.Operations) != 3 || p.Strategy != nil || p.PreserveHoodieMetadata ||
		p.MissingSchedulePartitions == nil || len(p.MissingSchedulePartitions) != 0 ||
		p.ExtraMetadata["_hoodie.spark.sql.writes.prepped"] != "true" {
		t.Errorf("plan %+v", p)
	}
	op := p.Operations[0]
	want := CompactionOperation{
		BaseInstantTime: "20251220210108078",
		DeltaFilePaths: []string{
			".6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_20251220210127080.log.1_0-1072-3078",
			".6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_20251220210128625.log.1_0-1097-3150",
		},
		DataFilePath:  "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_2-986-2794_20251220210108078.parquet",
		FileID:        "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0",
		PartitionPath: "city=chennai",
		Metrics: map[string]float64{"TOTAL_IO_MB": 0, "TOTAL_IO_READ_MB": 0, "TOTAL_IO_WRITE_MB": 0,
			"TOTAL_LOG_FILES": 2, "TOTAL_LOG_FILES_SIZE": 2117},
	}
	if !reflect.DeepEqual(op, want) {
		t.Errorf("operation:\n got %+v\nwant %+v", op, want)
	}
}

func TestDecodeV8DeltaCommitLogWrite(t *testing.T) {
	m := decodeFile(t, "v8_mor_deltacommit_logwrite.avro")
	if m.OperationType != "UPSERT_PREPPED" {
		t.Errorf("operation %q", m.OperationType)
	}
	s := onlyStat(t, m, "city=sao_paulo")
	// v8+ log writes name their own instant as prevCommit and leave baseFile empty.
	if !s.IsLogWrite() || s.LogVersion != 1 || s.BaseFile != "" || s.PrevCommit != "20251220210130911" ||
		!slices.Equal(s.LogFiles, []string{".8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_20251220210130911.log.1_0-1139-3316"}) ||
		s.FileSizeInBytes != 1145 || s.NumWrites != 1 {
		t.Errorf("log stat %+v", *s)
	}
}

func TestDecodeV9ReplaceCommits(t *testing.T) {
	m := decodeFile(t, "v9_cow_replacecommit_insert_overwrite.avro")
	if !m.IsReplace() || m.OperationType != "INSERT_OVERWRITE" {
		t.Fatalf("replace %v operation %q", m.IsReplace(), m.OperationType)
	}
	if got := m.ReplacedFileIDs("region=eu"); !slices.Equal(got, []string{"68aaee55-008d-4f10-a3a4-83dcb5910069-0", "2578f9c2-93be-4911-bb29-cda3106b5623-0"}) {
		t.Errorf("replaced %v", got)
	}
	if s := onlyStat(t, m, "region=eu"); s.FileID != "d28b4196-9d69-4bce-953f-848063c813b9-0" || s.NumInserts != 2 {
		t.Errorf("stat %+v", *s)
	}

	m = decodeFile(t, "v9_cow_replacecommit_clustering.avro")
	if m.OperationType != "CLUSTER" {
		t.Errorf("operation %q", m.OperationType)
	}
	want := map[string][]string{
		"region=apac": {"7dcb7583-60a5-4c3e-b173-87f1d23ee9e0-0", "07838327-b037-4532-a9df-3c5b05dd823d-0"},
		"region=eu":   {"d28b4196-9d69-4bce-953f-848063c813b9-0"},
		"region=us":   {"a4ab4ec1-e213-4941-a4eb-5679f437421f-0", "c7bbe63e-fa43-40ba-94a9-03158165edc6-0"},
	}
	if !reflect.DeepEqual(m.PartitionToReplaceFileIDs, want) {
		t.Errorf("replaced %v", m.PartitionToReplaceFileIDs)
	}
	if got := m.FileIDs(); len(got) != 3 || !slices.Contains(got, "e1d239c0-049d-43de-a138-e1915a3e29a7-0") {
		t.Errorf("FileIDs %v", got)
	}
}

func TestDecodeRequestedReplace(t *testing.T) {
	// insert_overwrite writes an all-null requested file, in v6 and v9 alike.
	for _, name := range []string{"v6_cow_replacecommit_requested_overwrite.avro", "v9_cow_replacecommit_requested_insert_overwrite.avro"} {
		m, err := DecodeRequestedReplace(readTestdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*m, RequestedReplaceMetadata{}) || m.InputFileIDs() != nil {
			t.Errorf("%s: %+v", name, *m)
		}
	}

	m, err := DecodeRequestedReplace(readTestdata(t, "v9_cow_clustering_requested.avro"))
	if err != nil {
		t.Fatal(err)
	}
	if m.OperationType != "CLUSTER" || m.Version != 1 || m.ClusteringPlan == nil {
		t.Fatalf("%+v", *m)
	}
	p := m.ClusteringPlan
	if len(p.InputGroups) != 3 || !p.PreserveHoodieMetadata || p.Strategy == nil ||
		p.Strategy.StrategyClassName != "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy" {
		t.Errorf("plan %+v", *p)
	}
	g := p.InputGroups[0]
	if g.NumOutputFileGroups != 1 || g.Metrics["TOTAL_LOG_FILES"] != 0 || len(g.Slices) != 2 || g.ExtraMetadata != nil {
		t.Errorf("group %+v", g)
	}
	want := SliceInfo{
		DataFilePath:   "file:/tmp/v9-gen/warehouse/v9_txns_cow_simple_meta/region=apac/7dcb7583-60a5-4c3e-b173-87f1d23ee9e0-0_0-223-548_20260307162453568.parquet",
		DeltaFilePaths: []string{},
		FileID:         "7dcb7583-60a5-4c3e-b173-87f1d23ee9e0-0",
		PartitionPath:  "region=apac",
		Version:        1,
	}
	if !reflect.DeepEqual(g.Slices[0], want) {
		t.Errorf("slice:\n got %+v\nwant %+v", g.Slices[0], want)
	}
	ids := m.InputFileIDs()
	if len(ids) != 3 || !slices.Equal(ids["region=us"], []string{"a4ab4ec1-e213-4941-a4eb-5679f437421f-0", "c7bbe63e-fa43-40ba-94a9-03158165edc6-0"}) {
		t.Errorf("InputFileIDs %v", ids)
	}
	// The completed clustering replaces exactly the planned inputs.
	done := decodeFile(t, "v9_cow_replacecommit_clustering.avro")
	for part, in := range ids {
		got := slices.Clone(done.ReplacedFileIDs(part))
		slices.Sort(got)
		if !slices.Equal(got, in) {
			t.Errorf("%s: replaced %v, planned %v", part, got, in)
		}
	}
}

func TestDecodeRollback(t *testing.T) {
	m, err := DecodeRollback(readTestdata(t, "v6_mor_rollback.avro"))
	if err != nil {
		t.Fatal(err)
	}
	const base = "/opt/data/external_tables/v6_nonpartitioned_rollback/"
	const logFile = ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log."
	want := RollbackMetadata{
		StartRollbackTime: "20250126040936578",
		TimeTakenInMillis: 195,
		TotalFilesDeleted: 1,
		CommitsRollback:   []string{"20250126040826878"},
		PartitionMetadata: map[string]RollbackPartitionMetadata{"": {
			SuccessDeleteFiles:       []string{base + "cd329d8f-0ce4-4654-84ab-2f769aae5034-0_1-33-44_20250126040826878.parquet"},
			FailedDeleteFiles:        []string{},
			RollbackLogFiles:         map[string]int64{"file:" + base + logFile + "2_1-0-1": 105},
			LogFilesFromFailedCommit: map[string]int64{"file:" + base + logFile + "1_0-33-43": 11828},
		}},
		Version:          1,
		InstantsRollback: []InstantInfo{{CommitTime: "20250126040826878", Action: "deltacommit"}},
	}
	if !reflect.DeepEqual(*m, want) {
		t.Errorf("rollback:\n got %+v\nwant %+v", *m, want)
	}

	p, err := DecodeRollbackPlan(readTestdata(t, "v6_mor_rollback_requested.avro"))
	if err != nil {
		t.Fatal(err)
	}
	if p.InstantToRollback == nil || *p.InstantToRollback != (InstantInfo{"20250126040826878", "deltacommit"}) || p.Version != 1 || len(p.RollbackRequests) != 2 {
		t.Fatalf("plan %+v", *p)
	}
	r0, r1 := p.RollbackRequests[0], p.RollbackRequests[1]
	if r0.FileID != "" || !slices.Equal(r0.FilesToBeDeleted, want.PartitionMetadata[""].SuccessDeleteFiles) || len(r0.LogBlocksToBeDeleted) != 0 {
		t.Errorf("request 0 %+v", r0)
	}
	if r1.FileID != "0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0" || r1.LatestBaseInstant != "20250126040823628" ||
		!reflect.DeepEqual(r1.LogBlocksToBeDeleted, want.PartitionMetadata[""].LogFilesFromFailedCommit) {
		t.Errorf("request 1 %+v", r1)
	}

	// Rollback files are Avro, but the mapping accepts the same fields in JSON.
	j, err := DecodeRollback([]byte(`{"startRollbackTime":"1","commitsRollback":["0"],"partitionMetadata":{"p":{"partitionPath":"p","rollbackLogFiles":null}},"totalFilesDeleted":2}`))
	if err != nil || j.TotalFilesDeleted != 2 || j.PartitionMetadata["p"].PartitionPath != "p" {
		t.Errorf("JSON rollback: %+v, %v", j, err)
	}
}

func TestEmptyFiles(t *testing.T) {
	for _, name := range []string{"v6_mor_rollback_inflight_empty", "v9_cow_clustering_inflight_empty"} {
		data := readTestdata(t, name)
		m, err := Decode(data)
		if err != nil || m.PartitionToWriteStats != nil || m.Schema() != "" || len(m.FileIDs()) != 0 {
			t.Errorf("Decode(%s) = %+v, %v", name, m, err)
		}
		r, err := DecodeRequestedReplace(data)
		if err != nil || r.ClusteringPlan != nil {
			t.Errorf("DecodeRequestedReplace(%s) = %+v, %v", name, r, err)
		}
		if _, err := DecodeRollback(data); !errors.Is(err, ErrEmpty) {
			t.Errorf("DecodeRollback(empty) error %v", err)
		}
		if _, err := DecodeRollbackPlan(data); !errors.Is(err, ErrEmpty) {
			t.Errorf("DecodeRollbackPlan(empty) error %v", err)
		}
		if _, err := DecodeCompactionPlan(data); !errors.Is(err, ErrEmpty) {
			t.Errorf("DecodeCompactionPlan(empty) error %v", err)
		}
		if _, err := DecodeClean(data); !errors.Is(err, ErrEmpty) {
			t.Errorf("DecodeClean(empty) error %v", err)
		}
	}
	if m, err := Decode([]byte(" \n")); err != nil || m == nil {
		t.Errorf("whitespace-only: %v", err)
	}
}

func TestDecodeJSONEdgeCases(t *testing.T) {
	// Longs above 2^53 must not pass through float64.
	m, err := Decode([]byte(`{"partitionToWriteStats":{"p":[{"numWrites":9007199254740993,"minEventTime":-9223372036854775808,
		"prevCommit":null,"runtimeStats":null,"unknownField":{"x":[1,2]}}]},"compacted":null,"extraMetadata":{"k":null},
		"operationType":"INSERT","somethingNew":true}`))
	if err != nil {
		t.Fatal(err)
	}
	s := m.PartitionToWriteStats["p"][0]
	if s.NumWrites != 9007199254740993 || s.MinEventTime == nil || *s.MinEventTime != -9223372036854775808 || s.PrevCommit != "" {
		t.Errorf("stat %+v", s)
	}
	if v, ok := m.ExtraMetadata["k"]; !ok || v != "" {
		t.Errorf("null extraMetadata value: %q %v", v, ok)
	}

	for in, wantInErr := range map[string]string{
		`{"partitionToWriteStats":{"p":[{"numWrites":"3"}]}}`:         `partitionToWriteStats.p[0].numWrites: expected integer`,
		`{"partitionToWriteStats":{"p":[{"numWrites":1.5}]}}`:         `numWrites: expected integer`,
		`{"partitionToWriteStats":{"p":[{"logVersion":1e10}]}}`:       `logVersion: expected integer`,
		`{"partitionToWriteStats":{"p":[{"logVersion":4294967296}]}}`: `logVersion: expected 32-bit integer`,
		`{"partitionToWriteStats":{"p":{}}}`:                          `partitionToWriteStats.p: expected array of records`,
		`{"partitionToWriteStats":{"p":[1]}}`:                         `partitionToWriteStats.p[0]: expected record`,
		`{"partitionToReplaceFileIds":{"p":[1]}}`:                     `partitionToReplaceFileIds.p[0]: expected string`,
		`{"compacted":"yes"}`:                                         `compacted: expected boolean`,
		`{"extraMetadata":[]}`:                                        `extraMetadata: expected map`,
		`[1,2]`:                                                       `top-level value is array`,
		`null`:                                                        `top-level value is null`,
		`{"partitionToWriteStats":`:                                   `decode commit metadata JSON`,
	} {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), wantInErr) || !strings.HasPrefix(err.Error(), "decode commit metadata") {
			t.Errorf("Decode(%s): error %v, want it to contain %q", in, err, wantInErr)
		}
	}
}

func TestDecodeCorruptAvro(t *testing.T) {
	data := readTestdata(t, "v9_cow_commit_insert.avro")
	for _, n := range []int{4, 20, len(data) / 2, len(data) - 1} {
		if _, err := Decode(data[:n]); err == nil {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
	// A rollback file decoded as commit metadata: every field is unknown, so it maps to
	// empty metadata rather than failing (field sets are open).
	m, err := Decode(readTestdata(t, "v6_mor_rollback.avro"))
	if err != nil || len(m.PartitionToWriteStats) != 0 {
		t.Errorf("rollback as commit: %+v, %v", m, err)
	}
	// But a compaction plan's "operations" array is not a rollback's type.
	if _, err := DecodeRollbackPlan(readTestdata(t, "v9_cow_commit_insert.avro")); err != nil {
		t.Errorf("unrelated record must map to an empty plan: %v", err)
	}
}

// cleanSchema is HoodieCleanMetadata as described in the format document (§3.7), with the
// partition record inlined, as Java writes it into container headers.
const cleanSchema = `{"type":"record","name":"HoodieCleanMetadata","namespace":"org.apache.hudi.avro.model","fields":[
 {"name":"startCleanTime","type":"string"},
 {"name":"timeTakenInMillis","type":"long"},
 {"name":"totalFilesDeleted","type":"int"},
 {"name":"earliestCommitToRetain","type":"string"},
 {"name":"lastCompletedCommitTimestamp","type":"string","default":""},
 {"name":"partitionMetadata","type":{"type":"map","values":{"type":"record","name":"HoodieCleanPartitionMetadata","fields":[
   {"name":"partitionPath","type":"string"},
   {"name":"policy","type":"string"},
   {"name":"deletePathPatterns","type":{"type":"array","items":"string"}},
   {"name":"successDeleteFiles","type":{"type":"array","items":"string"}},
   {"name":"failedDeleteFiles","type":{"type":"array","items":"string"}},
   {"name":"isPartitionDeleted","type":["null","boolean"],"default":null}]}}},
 {"name":"version","type":["int","null"],"default":1},
 {"name":"bootstrapPartitionMetadata","type":["null",{"type":"map","values":"HoodieCleanPartitionMetadata"}],"default":null}]}`

func TestDecodeCleanSynthetic(t *testing.T) {
	schema, err := avro.Parse(cleanSchema)
	if err != nil {
		t.Fatal(err)
	}
	data, err := avro.WriteContainer(schema, map[string]any{
		"startCleanTime":               "20250101000000000",
		"timeTakenInMillis":            int64(12),
		"totalFilesDeleted":            int32(2),
		"earliestCommitToRetain":       "20241231000000000",
		"lastCompletedCommitTimestamp": "20250101000000001",
		"partitionMetadata": map[string]any{"p=1": map[string]any{
			"partitionPath":      "p=1",
			"policy":             "KEEP_LATEST_COMMITS",
			"deletePathPatterns": []any{"a.parquet", "b.parquet"},
			"successDeleteFiles": []any{"a.parquet", "b.parquet"},
			"failedDeleteFiles":  []any{},
			"isPartitionDeleted": false,
		}},
		"version":                    int32(2),
		"bootstrapPartitionMetadata": nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := DecodeClean(data)
	if err != nil {
		t.Fatal(err)
	}
	want := CleanMetadata{
		StartCleanTime: "20250101000000000", TimeTakenInMillis: 12, TotalFilesDeleted: 2,
		EarliestCommitToRetain: "20241231000000000", LastCompletedCommitTimestamp: "20250101000000001",
		PartitionMetadata: map[string]CleanPartitionMetadata{"p=1": {
			PartitionPath: "p=1", Policy: "KEEP_LATEST_COMMITS",
			DeletePathPatterns: []string{"a.parquet", "b.parquet"}, SuccessDeleteFiles: []string{"a.parquet", "b.parquet"},
			FailedDeleteFiles: []string{},
		}},
		Version: 2,
	}
	if !reflect.DeepEqual(*m, want) {
		t.Errorf("clean:\n got %+v\nwant %+v", *m, want)
	}
}

// TestAllFixtureTimelines decodes every timeline file of every fixture table (data and
// metadata tables) with the decoder its name calls for.
func TestAllFixtureTimelines(t *testing.T) {
	if testing.Short() {
		t.Skip("unzips every fixture table")
	}
	counts := map[string]int{}
	for _, id := range testutil.TableIDs(t) {
		base := testutil.Table(t, id)
		err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) == "history" {
				return err
			}
			dir := filepath.Base(filepath.Dir(path))
			if dir != ".hoodie" && dir != "timeline" {
				return nil
			}
			name := d.Name()
			if name == "" || name[0] < '0' || name[0] > '9' {
				return nil
			}
			kind := name[strings.IndexByte(name, '.')+1:]
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			switch kind {
			case "commit", "deltacommit", "replacecommit", "inflight", "deltacommit.inflight", "replacecommit.inflight",
				"commit.requested", "deltacommit.requested":
				_, err = Decode(data)
			case "rollback":
				_, err = DecodeRollback(data)
			case "rollback.requested":
				_, err = DecodeRollbackPlan(data)
			case "compaction.requested":
				_, err = DecodeCompactionPlan(data)
			case "replacecommit.requested", "clustering.requested":
				_, err = DecodeRequestedReplace(data)
			case "clean":
				_, err = DecodeClean(data)
			default:
				return nil
			}
			if err != nil {
				t.Errorf("%s %s: %v", id, name, err)
			}
			counts[kind]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("decoded: %v", counts)
	for _, kind := range []string{"commit", "deltacommit", "replacecommit", "inflight", "rollback", "rollback.requested",
		"compaction.requested", "clustering.requested", "replacecommit.requested"} {
		if counts[kind] == 0 {
			t.Errorf("no %s file decoded", kind)
		}
	}
}

func FuzzDecode(f *testing.F) {
	// Seeds stay small because the fuzzer spends long minimizing large inputs.
	f.Add([]byte(`{"partitionToWriteStats":{"p":[{"fileId":"f","numWrites":1,"logVersion":2,"logFiles":["a"],"runtimeStats":{"totalScanTime":1}}]},"compacted":false,"extraMetadata":{"schema":"{}"},"operationType":"UPSERT","partitionToReplaceFileIds":{"p":["x"]}}`))
	f.Add([]byte(`{"partitionToWriteStats":{"":[{"prevCommit":"null","minEventTime":null,"cdcStats":{"c":1}}]}}`))
	f.Add([]byte(""))
	f.Add(readTestdata(f, "v9_cow_replacecommit_requested_insert_overwrite.avro"))
	f.Add(readTestdata(f, "v6_mor_rollback_requested.avro"))
	schema, err := avro.Parse(`{"type":"record","name":"HoodieCommitMetadata","fields":[
		{"name":"partitionToWriteStats","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"S","fields":[
			{"name":"fileId","type":["null","string"]},{"name":"numWrites","type":["null","long"]},{"name":"logVersion","type":["null","int"]}]}}}]},
		{"name":"compacted","type":["null","boolean"]},{"name":"operationType","type":["null","string"]}]}`)
	if err != nil {
		f.Fatal(err)
	}
	small, err := avro.WriteContainer(schema, map[string]any{
		"partitionToWriteStats": map[string]any{"p": []any{map[string]any{"fileId": "f", "numWrites": int64(3), "logVersion": int32(1)}}},
		"compacted":             true, "operationType": "INSERT",
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeRequestedReplace(data)
		_, _ = DecodeCompactionPlan(data)
		_, _ = DecodeClean(data)
		m, err := Decode(data)
		if err != nil {
			return
		}
		// Encoding is deterministic and stable after one round trip (the first may
		// normalise, e.g. invalid UTF-8 or v8-only fields).
		var prev []byte
		for i := range 3 {
			out, err := EncodeJSON(m)
			if err != nil {
				t.Fatalf("EncodeJSON: %v", err)
			}
			if i == 2 && !bytes.Equal(out, prev) {
				t.Fatalf("EncodeJSON not stable:\n%s\n%s", prev, out)
			}
			prev = out
			if m, err = Decode(out); err != nil {
				t.Fatalf("re-decode of EncodeJSON output: %v\n%s", err, out)
			}
		}
	})
}

func FuzzDecodeRollback(f *testing.F) {
	f.Add(readTestdata(f, "v6_mor_rollback.avro"))
	f.Add(readTestdata(f, "v6_mor_rollback_requested.avro"))
	f.Add([]byte(`{"startRollbackTime":"1","partitionMetadata":{"p":{"rollbackLogFiles":{"a":1}}},"instantsRollback":[{"commitTime":"0"}]}`))
	f.Add([]byte(`{"instantToRollback":{"commitTime":"1","action":"commit"},"RollbackRequests":[{"fileId":"f","logBlocksToBeDeleted":{"x":2}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeRollback(data)
		_, _ = DecodeRollbackPlan(data)
	})
}
