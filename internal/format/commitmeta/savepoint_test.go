package commitmeta

import (
	"errors"
	"reflect"
	"testing"
)

const javaSavepointMetadata = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieSavepointMetadata","fields":[
	{"name":"savepointedBy","type":"string"},{"name":"savepointedAt","type":"long"},{"name":"comments","type":"string"},
	{"name":"partitionMetadata","type":{"type":"map","values":{"type":"record","name":"HoodieSavepointPartitionMetadata","fields":[
		{"name":"partitionPath","type":"string"},{"name":"savepointDataFile","type":{"type":"array","items":"string"}}]}}},
	{"name":"version","type":["int","null"],"default":1}]}`

func TestSavepointMetadataRoundTrip(t *testing.T) {
	m := &SavepointMetadata{SavepointedBy: "hudi-go", SavepointedAt: 1700000000123, Comments: "before migration",
		Partitions: map[string][]string{
			"city=sf": {"f1-0_0-1-1_20240101000000001.parquet", ".f1-0_20240101000000001.log.1_0-1-1"},
			"city=ny": {},
		}, Version: SavepointMetadataVersion}
	b, err := EncodeSavepointMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSavepointMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
	files := got.Files()
	if !files["city=sf"][".f1-0_20240101000000001.log.1_0-1-1"] || len(files["city=ny"]) != 0 {
		t.Errorf("Files: %v", files)
	}
	v := resolveWith(t, b, javaSavepointMetadata)
	if v["savepointedAt"] != int64(1700000000123) || v["comments"] != "before migration" {
		t.Errorf("as Java reads it: %v", v)
	}
	if _, err := DecodeSavepointMetadata(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty: %v", err)
	}
}
