package commitmeta

import (
	"reflect"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// The schema we embed is byte-for-byte the one Java 0.14 embedded in the fixture's
// replacecommit.requested, so Java reads our plans with its own field order and defaults.
func TestEncodeRequestedReplaceUsesJavaSchema(t *testing.T) {
	javaSchema, _, err := avro.ReadContainer(readTestdata(t, "v6_cow_replacecommit_requested_overwrite.avro"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncodeRequestedReplace(avroschema.RequestedReplaceMetadata, &RequestedReplaceMetadata{OperationType: "CLUSTER", ExtraMetadata: map[string]string{}, Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	ours, _, err := avro.ReadContainer(b)
	if err != nil {
		t.Fatal(err)
	}
	if ours != javaSchema {
		t.Errorf("writer schema differs from Java 0.14's:\n ours %s\njava %s", ours, javaSchema)
	}
}

// A Java-written clustering plan (1.x, v9 fixture) decodes, re-encodes with the 0.14
// schema (which lacks missingSchedulePartitions) and decodes again to the same values,
// field by field.
func TestEncodeRequestedReplaceRoundTripsJavaPlan(t *testing.T) {
	java, err := DecodeRequestedReplace(readTestdata(t, "v9_cow_clustering_requested.avro"))
	if err != nil {
		t.Fatal(err)
	}
	java.ClusteringPlan.MissingSchedulePartitions = nil
	b, err := EncodeRequestedReplace(avroschema.RequestedReplaceMetadata, java)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequestedReplace(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, java) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, java)
	}
	// Field by field against the generic Avro decoding of our bytes.
	_, values, err := avro.ReadContainer(b)
	if err != nil || len(values) != 1 {
		t.Fatalf("container: %v", err)
	}
	top := values[0].(map[string]any)
	plan := top["clusteringPlan"].(map[string]any)
	if top["operationType"] != "CLUSTER" || top["version"] != int32(1) || len(top["extraMetadata"].(map[string]any)) != 0 {
		t.Errorf("top level %v", top)
	}
	if plan["version"] != int32(1) || plan["preserveHoodieMetadata"] != true {
		t.Errorf("plan %v", plan)
	}
	strategy := plan["strategy"].(map[string]any)
	if strategy["strategyClassName"] != "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy" || strategy["version"] != int32(1) {
		t.Errorf("strategy %v", strategy)
	}
	groups := plan["inputGroups"].([]any)
	if len(groups) != 3 {
		t.Fatalf("%d groups", len(groups))
	}
	g0 := groups[0].(map[string]any)
	if g0["numOutputFileGroups"] != int32(1) || g0["extraMetadata"] != nil || g0["metrics"].(map[string]any)["TOTAL_IO_MB"] != 0.0 {
		t.Errorf("group 0 %v", g0)
	}
	s0 := g0["slices"].([]any)[0].(map[string]any)
	if s0["fileId"] != "7dcb7583-60a5-4c3e-b173-87f1d23ee9e0-0" || s0["partitionPath"] != "region=apac" || s0["bootstrapFilePath"] != "" ||
		len(s0["deltaFilePaths"].([]any)) != 0 || s0["version"] != int32(1) ||
		s0["dataFilePath"] != "file:/tmp/v9-gen/warehouse/v9_txns_cow_simple_meta/region=apac/7dcb7583-60a5-4c3e-b173-87f1d23ee9e0-0_0-223-548_20260307162453568.parquet" {
		t.Errorf("slice 0 %v", s0)
	}
}

func TestEncodeRequestedReplaceRejectsV8Fields(t *testing.T) {
	_, err := EncodeRequestedReplace(avroschema.RequestedReplaceMetadata, &RequestedReplaceMetadata{ClusteringPlan: &ClusteringPlan{MissingSchedulePartitions: []string{"p"}}})
	if err == nil {
		t.Error("missingSchedulePartitions accepted")
	}
	if _, err := EncodeRequestedReplace(avroschema.RequestedReplaceMetadata, nil); err == nil {
		t.Error("nil accepted")
	}
}

// Under Hudi 1.x's schema (table versions 8 and 9) a Spark-written clustering plan (the
// v9 fixture's clustering.requested) re-encodes to the same bytes: same writer schema,
// same datum, missingSchedulePartitions included.
func TestEncodeRequestedReplaceLayoutTwoIsSparks(t *testing.T) {
	spark := readTestdata(t, "v9_cow_clustering_requested.avro")
	m, err := DecodeRequestedReplace(spark)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncodeRequestedReplace(avroschema.ArchivedRequestedReplaceMetadata, m)
	if err != nil {
		t.Fatal(err)
	}
	ws, wv, err := avro.ReadContainer(spark)
	if err != nil {
		t.Fatal(err)
	}
	gs, gv, err := avro.ReadContainer(b)
	if err != nil {
		t.Fatal(err)
	}
	if gs != ws {
		t.Errorf("writer schema differs from Spark's:\n ours %s\nspark %s", gs, ws)
	}
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("datum differs from Spark's:\n ours %v\nspark %v", gv, wv)
	}
	// A plan without missing partitions still writes the empty array Spark writes.
	m.ClusteringPlan.MissingSchedulePartitions = nil
	if b, err = EncodeRequestedReplace(avroschema.ArchivedRequestedReplaceMetadata, m); err != nil {
		t.Fatal(err)
	}
	if _, gv, err = avro.ReadContainer(b); err != nil {
		t.Fatal(err)
	}
	if got := gv[0].(map[string]any)["clusteringPlan"].(map[string]any)["missingSchedulePartitions"]; !reflect.DeepEqual(got, []any{}) {
		t.Errorf("missingSchedulePartitions = %#v, want []", got)
	}
	m.ClusteringPlan.MissingSchedulePartitions = []string{"p"}
	if _, err := EncodeRequestedReplace(avroschema.ArchivedRequestedReplaceMetadata, m); err != nil {
		t.Errorf("missingSchedulePartitions refused under the 1.x schema: %v", err)
	}
}
