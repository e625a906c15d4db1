package mdt

import (
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// FuzzDecodeRecord: no value bytes make decodeRecord panic (they come from files).
func FuzzDecodeRecord(f *testing.F) {
	schema, err := avro.Parse(avroschema.MetadataRecordV8.JSON())
	if err != nil {
		f.Fatal(err)
	}
	t := &testing.T{}
	for _, r := range []rec{
		{key: "p1", files: map[string]FileInfo{"a": {Size: 10}, "b": {IsDeleted: true}}},
		{key: AllPartitionsKey, files: map[string]FileInfo{"p1": {}}},
		{key: "k1", fileID: "f1"},
	} {
		f.Add(encodeRecord(t, schema, r))
	}
	f.Add(columnStatsSeed(f, schema))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, value []byte) {
		r, err := decodeRecord(schema, "k", value)
		if err == nil && r.Key != "k" {
			t.Fatalf("key %q", r.Key)
		}
	})
}
