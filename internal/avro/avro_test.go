package avro

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRawLogicalValues(t *testing.T) {
	s, err := Parse(`{"type":"record","name":"r","fields":[
	 {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},
	 {"name":"dec","type":["null",{"type":"fixed","name":"fixed","size":5,"logicalType":"decimal","precision":10,"scale":2}]},
	 {"name":"day","type":{"type":"int","logicalType":"date"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Encode(map[string]any{"ts": int64(5), "dec": []byte{0, 0, 0, 1, 2}, "day": int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := s.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if _, ok := m["ts"].(int64); !ok {
		t.Errorf("timestamp-micros decoded as %T, want int64", m["ts"])
	}
	if _, ok := m["dec"].([]byte); !ok {
		t.Errorf("decimal decoded as %T, want []byte", m["dec"])
	}
	if _, ok := m["day"].(int32); !ok {
		t.Errorf("date decoded as %T, want int32", m["day"])
	}
}

func TestReadContainerRoundTrip(t *testing.T) {
	s, err := Parse(`{"type":"record","name":"r","fields":[{"name":"a","type":"string"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	data, err := WriteContainer(s, map[string]any{"a": "x"}, map[string]any{"a": "y"})
	if err != nil {
		t.Fatal(err)
	}
	_, vals, err := ReadContainer(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 2 || vals[1].(map[string]any)["a"] != "y" {
		t.Fatalf("got %v", vals)
	}
	if _, _, err := ReadContainer([]byte("nope")); err != ErrNotContainer {
		t.Fatalf("want ErrNotContainer, got %v", err)
	}
}

// A real v9 commit file written by Hudi 1.1 decodes with its embedded schema.
func TestReadContainerSparkWritten(t *testing.T) {
	p := filepath.Join("testdata", "v9.commit")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, vals, err := ReadContainer(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 1 {
		t.Fatalf("want 1 datum, got %d", len(vals))
	}
	if op := vals[0].(map[string]any)["operationType"]; op != "INSERT" {
		t.Errorf("operationType = %v", op)
	}
}
