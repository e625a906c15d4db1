package index

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/spec"
)

// traits are what a write asks of its index.
type traits struct {
	global, bloom, storedKeys, logFiles bool
}

func traitsOf(idx Index) traits {
	return traits{idx.Global(), idx.PrunesByBloom(), idx.NeedsStoredKeys(), idx.IndexesLogFiles()}
}

// TestNew pins which index each hoodie.index.type value selects and what the index does,
// as write decided it from the string before (write/plan.go, write/index.go,
// write/virtualkeys.go): "" is SIMPLE (0.14's Spark default), values are read in any case
// and trimmed as config reads them, values config refuses are refused naming the key.
// HBASE and FLINK_STATE, whose locations hudi-go does not maintain, are refused as
// unsupported (they were looked up as SIMPLE before: accepted and ignored); RECORD_INDEX is
// the global index served by the metadata table's record_index partition.
func TestNew(t *testing.T) {
	simple := traits{}
	tests := []struct {
		value   Type
		want    Index
		traits  traits
		refused string // part of the error, for a refused value
		// unsupported: the refusal matches spec.ErrUnsupported (a value hudi-go does not
		// support, rather than an invalid one)
		unsupported bool
		settings    Settings
	}{
		{value: "", want: simpleIndex{}, traits: simple},
		{value: "SIMPLE", want: simpleIndex{}, traits: simple},
		{value: "simple", want: simpleIndex{}, traits: simple},
		{value: " Simple ", want: simpleIndex{}, traits: simple},
		{value: "BLOOM", want: bloomIndex{}, traits: traits{bloom: true, storedKeys: true}},
		{value: "bloom", want: bloomIndex{}, traits: traits{bloom: true, storedKeys: true}},
		{value: "GLOBAL_SIMPLE", want: globalSimpleIndex{}, traits: traits{global: true}},
		{value: "global_simple", want: globalSimpleIndex{}, traits: traits{global: true}},
		{value: "GLOBAL_BLOOM", want: globalBloomIndex{}, traits: traits{global: true, bloom: true, storedKeys: true}},
		{value: "INMEMORY", want: inMemoryIndex{}, traits: traits{logFiles: true}},
		{value: "BUCKET", settings: Settings{NumBuckets: 4, HashFields: []string{"id"}},
			want: &Bucket{NumBuckets: 4, HashFields: []string{"id"}}, traits: traits{logFiles: true}},
		{value: "Bucket", settings: Settings{NumBuckets: 256},
			want: &Bucket{NumBuckets: 256}, traits: traits{logFiles: true}},
		{value: "HBASE", refused: "hoodie.index.type=HBASE: the HBASE index keeps record locations that hudi-go does not maintain", unsupported: true},
		{value: "FLINK_STATE", refused: "hoodie.index.type=FLINK_STATE", unsupported: true},
		{value: "record_index", want: recordIndex{}, traits: traits{global: true, storedKeys: true}},
		{value: "RECORD_INDEX", want: recordIndex{}, traits: traits{global: true, storedKeys: true}},
		// Refused: not a hoodie.index.type value (config's error), and a bucket index
		// without buckets (withDefaults gives write 256 for 0).
		{value: "FOO", refused: `invalid value "FOO" for hoodie.index.type`},
		{value: "GLOBAL", refused: "hoodie.index.type"},
		{value: "BLOOM_FILTER", refused: "hoodie.index.type"},
		{value: "BUCKET", settings: Settings{NumBuckets: 0}, refused: "hoodie.bucket.index.num.buckets=0"},
		{value: "BUCKET", settings: Settings{NumBuckets: -1}, refused: "hoodie.bucket.index.num.buckets=-1"},
	}
	for _, tc := range tests {
		t.Run(string(tc.value)+"/"+tc.refused, func(t *testing.T) {
			idx, err := New(tc.value, tc.settings)
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("New(%q) = %v, %v; want an error containing %q", tc.value, idx, err, tc.refused)
				}
				if errors.Is(err, spec.ErrUnsupported) != tc.unsupported {
					t.Errorf("New(%q): errors.Is(%v, ErrUnsupported) = %v, want %v", tc.value, err, !tc.unsupported, tc.unsupported)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(idx, tc.want) {
				t.Errorf("New(%q) = %#v, want %#v", tc.value, idx, tc.want)
			}
			if got := traitsOf(idx); got != tc.traits {
				t.Errorf("New(%q) traits %+v, want %+v", tc.value, got, tc.traits)
			}
			wantType := Type(strings.ToUpper(strings.TrimSpace(string(tc.value))))
			if wantType == "" {
				wantType = TypeSimple
			}
			if idx.Type() != wantType {
				t.Errorf("Type() = %q, want %q", idx.Type(), wantType)
			}
			if global, err := IsGlobal(tc.value); err != nil || global != idx.Global() {
				t.Errorf("IsGlobal(%q) = %v, %v; Global() = %v", tc.value, global, err, idx.Global())
			}
			g, isGlobal := idx.(GlobalIndex)
			if isGlobal != idx.Global() {
				t.Errorf("implements GlobalIndex: %v, Global(): %v", isGlobal, idx.Global())
			}
			if isGlobal {
				want := map[Type]config.Key{TypeGlobalSimple: config.SimpleIndexUpdatePartitionPath, TypeGlobalBloom: config.BloomIndexUpdatePartitionPath,
					TypeRecordIndex: config.RecordIndexUpdatePartitionPath}[idx.Type()]
				if g.UpdatePartitionPathKey().Name != want.Name {
					t.Errorf("UpdatePartitionPathKey = %s, want %s", g.UpdatePartitionPathKey().Name, want.Name)
				}
			}
		})
	}
}

// Every value config accepts for hoodie.index.type selects an index of that type or is
// refused as unsupported: a value added to the registry without a decision here fails
// this test rather than a write.
func TestNewCoversConfig(t *testing.T) {
	k, ok := config.Lookup(config.IndexType.Name)
	if !ok || len(k.Enum) == 0 {
		t.Fatal("hoodie.index.type is not an enum key")
	}
	for _, v := range k.Enum {
		idx, err := New(Type(v), Settings{NumBuckets: 1})
		if errors.Is(err, spec.ErrUnsupported) {
			continue
		}
		if err != nil {
			t.Errorf("New(%s): %v", v, err)
			continue
		}
		if idx.Type() != Type(v) {
			t.Errorf("New(%s).Type() = %s", v, idx.Type())
		}
	}
	var ve *config.ValueError
	if _, err := New("nope", Settings{}); !errors.As(err, &ve) || ve.Key != config.IndexType.Name {
		t.Errorf("New(nope): %v, want config's ValueError for %s", err, config.IndexType.Name)
	}
}
