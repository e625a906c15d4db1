package upgrade

import (
	"errors"
	"reflect"
	"testing"

	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
)

func propsOf(kv map[string]string) *props.Properties {
	p := props.New()
	for k, v := range kv {
		p.Set(k, v)
	}
	return p
}

// TestPropertiesFollowJavaHandlers pins the hoodie.properties changes of Hudi 1.x's
// SevenToEightUpgradeHandler.upgradeMergeMode/setInitialVersion/upgradeKeyGeneratorType,
// EightToNineUpgradeHandler (strategy id dropped, payload class → legacy payload class,
// precombine field → ordering fields), NineToEightDowngradeHandler and
// EightToSevenDowngradeHandler.unsetRecordMergeMode/downgradeKeyGeneratorType.
func TestPropertiesFollowJavaHandlers(t *testing.T) {
	const (
		simple = "org.apache.hudi.keygen.SimpleKeyGenerator"
	)
	morV6 := map[string]string{"hoodie.table.name": "t", "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "6",
		"hoodie.timeline.layout.version": "1", "hoodie.table.precombine.field": "ts",
		"hoodie.compaction.payload.class": payloadOverwrite, "hoodie.compaction.record.merger.strategy": eventTimeStrategy,
		"hoodie.table.keygenerator.class": simple}
	cowV6 := map[string]string{"hoodie.table.name": "t", "hoodie.table.type": "COPY_ON_WRITE", "hoodie.table.version": "6",
		"hoodie.timeline.layout.version": "1", "hoodie.table.keygenerator.class": simple}
	cases := []struct {
		name     string
		in       map[string]string
		from, to spec.TableVersion
		want     map[string]string
		err      error
	}{
		{"mor with precombine to 8: event time, DefaultHoodieRecordPayload", morV6, 6, 8, map[string]string{
			"hoodie.table.name": "t", "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "8",
			"hoodie.timeline.layout.version": "2", "hoodie.timeline.path": "timeline", "hoodie.table.initial.version": "6",
			"hoodie.table.precombine.field": "ts", "hoodie.compaction.payload.class": payloadDefault,
			"hoodie.record.merge.mode": mergeEventTime, "hoodie.record.merge.strategy.id": eventTimeStrategy,
			"hoodie.compaction.record.merger.strategy": eventTimeStrategy,
			"hoodie.table.keygenerator.class":          simple, "hoodie.table.keygenerator.type": "SIMPLE"}, nil},
		{"mor with precombine to 9", morV6, 6, 9, map[string]string{
			"hoodie.table.name": "t", "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "9",
			"hoodie.timeline.layout.version": "2", "hoodie.timeline.path": "timeline", "hoodie.table.initial.version": "6",
			"hoodie.table.ordering.fields": "ts", "hoodie.legacy.payload.class": payloadDefault,
			"hoodie.record.merge.mode":        mergeEventTime,
			"hoodie.table.keygenerator.class": simple, "hoodie.table.keygenerator.type": "SIMPLE"}, nil},
		// A 0.14 copy-on-write table records no payload class: 1.x's getPayloadClass says
		// DefaultHoodieRecordPayload, so event time even without an ordering field.
		{"cow without payload class to 9", cowV6, 6, 9, map[string]string{
			"hoodie.table.name": "t", "hoodie.table.type": "COPY_ON_WRITE", "hoodie.table.version": "9",
			"hoodie.timeline.layout.version": "2", "hoodie.timeline.path": "timeline", "hoodie.table.initial.version": "6",
			"hoodie.legacy.payload.class": payloadDefault, "hoodie.record.merge.mode": mergeEventTime,
			"hoodie.table.keygenerator.class": simple, "hoodie.table.keygenerator.type": "SIMPLE"}, nil},
		{"mor without precombine: commit time", map[string]string{"hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "6",
			"hoodie.compaction.payload.class": payloadOverwrite}, 6, 8, map[string]string{
			"hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "8", "hoodie.timeline.layout.version": "2",
			"hoodie.timeline.path": "timeline", "hoodie.table.initial.version": "6", "hoodie.compaction.payload.class": payloadOverwrite,
			"hoodie.record.merge.mode": mergeCommitTime, "hoodie.record.merge.strategy.id": commitTimeStrategy,
			"hoodie.compaction.record.merger.strategy": commitTimeStrategy}, nil},
		{"custom payload refused", map[string]string{"hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "6",
			"hoodie.compaction.payload.class": "com.acme.MyPayload"}, 6, 9, nil, ErrCustomMerge},
		// Spark's v9 table (cow/v9_txns_simple_nometa's keys) to 6.
		{"spark v9 to 6", map[string]string{"hoodie.table.type": "COPY_ON_WRITE", "hoodie.table.version": "9",
			"hoodie.table.initial.version": "9", "hoodie.timeline.layout.version": "2", "hoodie.timeline.path": "timeline",
			"hoodie.timeline.history.path": "history", "hoodie.table.keygenerator.type": "SIMPLE",
			"hoodie.table.ordering.fields": "txn_ts", "hoodie.record.merge.mode": mergeEventTime, "hoodie.table.format": "native"},
			9, 6, map[string]string{"hoodie.table.type": "COPY_ON_WRITE", "hoodie.table.version": "6",
				"hoodie.timeline.layout.version": "1", "hoodie.timeline.path": "timeline", "hoodie.timeline.history.path": "history",
				"hoodie.table.keygenerator.class": simple, "hoodie.table.precombine.field": "txn_ts",
				"hoodie.compaction.payload.class": payloadDefault, "hoodie.table.format": "native"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Properties(propsOf(c.in), c.from, c.to)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Map(), c.want) {
				t.Errorf("got  %v\nwant %v", got.Map(), c.want)
			}
		})
	}
}

// TestPropertiesRoundTrip: 6 → 9 → 6 of a 0.14 merge-on-read table keeps what a 0.14
// reader needs, with Java's changes: the payload class becomes DefaultHoodieRecordPayload
// (the upgrade's event-time mode) and the 0.14 merger strategy key is gone.
func TestPropertiesRoundTrip(t *testing.T) {
	in := propsOf(map[string]string{"hoodie.table.name": "t", "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "6",
		"hoodie.timeline.layout.version": "1", "hoodie.table.precombine.field": "ts",
		"hoodie.compaction.payload.class": payloadOverwrite, "hoodie.compaction.record.merger.strategy": eventTimeStrategy})
	up, err := Properties(in, 6, 9)
	if err != nil {
		t.Fatal(err)
	}
	down, err := Properties(up, 9, 6)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"hoodie.table.name": "t", "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "6",
		"hoodie.timeline.layout.version": "1", "hoodie.table.precombine.field": "ts", "hoodie.timeline.path": "timeline",
		"hoodie.compaction.payload.class": payloadDefault}
	if !reflect.DeepEqual(down.Map(), want) {
		t.Errorf("got  %v\nwant %v", down.Map(), want)
	}
}

// TestWriterPartitionFields pins SevenToEightUpgradeHandler.upgradePartitionFields and
// EightToSevenDowngradeHandler.downgradePartitionFields: only a CUSTOM (or CUSTOM_AVRO)
// key generator with the writer's partition path field set changes the table's partition
// fields — to the writer's, types included, on upgrade; to the names alone on downgrade.
func TestWriterPartitionFields(t *testing.T) {
	const custom = "org.apache.hudi.keygen.CustomKeyGenerator"
	cases := []struct {
		name     string
		in       map[string]string
		from, to spec.TableVersion
		writer   string
		want     string
	}{
		{"upgrade custom", map[string]string{keyKeyGenClass: custom, keyPartitionFields: "region,ts"}, 6, 9, "region:SIMPLE,ts:TIMESTAMP", "region:SIMPLE,ts:TIMESTAMP"},
		{"upgrade custom avro to 8", map[string]string{keyKeyGenClass: "org.apache.hudi.keygen.CustomAvroKeyGenerator", keyPartitionFields: "ts"}, 6, 8, "ts:TIMESTAMP", "ts:TIMESTAMP"},
		{"upgrade custom without writer field", map[string]string{keyKeyGenClass: custom, keyPartitionFields: "region,ts"}, 6, 9, "", "region,ts"},
		{"upgrade simple", map[string]string{keyKeyGenClass: "org.apache.hudi.keygen.SimpleKeyGenerator", keyPartitionFields: "region"}, 6, 9, "region:SIMPLE", "region"},
		{"downgrade custom by type", map[string]string{keyKeyGenType: "CUSTOM", keyPartitionFields: "region:SIMPLE,ts:TIMESTAMP"}, 9, 6, "region:SIMPLE,ts:TIMESTAMP", "region,ts"},
		{"downgrade custom without writer field", map[string]string{keyKeyGenClass: custom, keyPartitionFields: "region:SIMPLE"}, 9, 6, "", "region:SIMPLE"},
		{"8 to 9 leaves them", map[string]string{keyKeyGenClass: custom, keyPartitionFields: "region:SIMPLE"}, 8, 9, "other:SIMPLE", "region:SIMPLE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := propsOf(tc.in)
			WriterPartitionFields(p, tc.from, tc.to, tc.writer)
			if got, _ := p.Get(keyPartitionFields); got != tc.want {
				t.Errorf("partition fields %q, want %q", got, tc.want)
			}
		})
	}
}
