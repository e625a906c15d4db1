package keygen

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestAutoKeys: a generator without record key fields is Java 0.14's auto-generated-key
// wrapper (AutoRecordGenWrapperKeyGenerator): its type is inferred from the partition
// fields alone (KeyGenUtils.inferKeyGeneratorTypeForAutoKeyGen), it computes partition
// paths as the wrapped generator does, and a row's key is its _hoodie_record_key (a
// prepped write) or, without one, ErrAutoKey for the writer to generate.
func TestAutoKeys(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{str("a"), str("p"), str("q")}, nil)
	for _, tc := range []struct {
		parts      []string
		kind, path string
	}{
		{nil, TypeNonPartition, ""},
		{[]string{"p"}, TypeSimple, "x"},
		{[]string{"p", "q"}, TypeComplex, "x/y"},
	} {
		g := mustNew(t, Options{PartitionFields: tc.parts}, s)
		if !g.AutoKeys() || g.Kind() != tc.kind {
			t.Errorf("%v: auto %v kind %s, want auto %s", tc.parts, g.AutoKeys(), g.Kind(), tc.kind)
		}
		rec := testRecord(t, []arrow.Field{str("a"), str("p"), str("q")}, []string{"1"}, []string{"x"}, []string{"y"})
		if p, err := g.PartitionPath(rec, 0); err != nil || p != tc.path {
			t.Errorf("%v: partition path %q, %v; want %q", tc.parts, p, err, tc.path)
		}
		if _, err := g.RecordKey(rec, 0); !errors.Is(err, ErrAutoKey) {
			t.Errorf("%v: RecordKey without _hoodie_record_key: %v, want ErrAutoKey", tc.parts, err)
		}
	}
	if mustNew(t, Options{RecordKeyFields: []string{"a"}, PartitionFields: []string{"p"}}, s).AutoKeys() {
		t.Error("a generator with key fields reports auto keys")
	}
	g := mustNew(t, Options{PartitionFields: []string{"p"}}, s)
	rec := testRecord(t, []arrow.Field{str("a"), str("p"), str(RecordKeyMetaField)},
		[]string{"1", "2", "3"}, []string{"x", "x", "x"}, []string{"20240101000000000_0_7", "<null>", ""})
	if k, err := g.RecordKey(rec, 0); err != nil || k != "20240101000000000_0_7" {
		t.Errorf("stored key: %q, %v", k, err)
	}
	for _, row := range []int{1, 2} {
		if _, err := g.RecordKey(rec, row); !errors.Is(err, ErrAutoKey) {
			t.Errorf("row %d (null or empty stored key): %v, want ErrAutoKey", row, err)
		}
	}
	// HoodieRecord.generateSequenceId: instantTime + "_" + partitionId + "_" + recordIndex.
	if k := AutoKey("20231120183300123", 0, 42); k != "20231120183300123_0_42" {
		t.Errorf("AutoKey = %q", k)
	}
	if k := AutoKey("20231120183300123", 3, 1<<40); k != "20231120183300123_3_1099511627776" {
		t.Errorf("AutoKey = %q", k)
	}
}
