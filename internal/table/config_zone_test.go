package table

import (
	"testing"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/props"
)

// TestTimelineZone pins the one reading of hoodie.table.timeline.timezone: UTC in any
// case is UTC, anything else (LOCAL, unset) the local zone. Savepoints compared the value
// with == before it was the one function, so a table with "utc" made savepoint and
// restore instants in local time while every other action used UTC.
func TestTimelineZone(t *testing.T) {
	for _, tc := range []struct {
		value string // "" = unset
		want  *time.Location
	}{
		{"", time.Local}, {"LOCAL", time.Local}, {"local", time.Local},
		{"UTC", time.UTC}, {"utc", time.UTC}, {" Utc ", time.UTC},
	} {
		p := props.New()
		if tc.value != "" {
			p.Set(KeyTimelineTimezone, tc.value)
		}
		if got := (&Config{Props: p}).TimelineZone(); got != tc.want {
			t.Errorf("%s=%q: zone %v, want %v", KeyTimelineTimezone, tc.value, got, tc.want)
		}
	}
}

// TestTableKeysInConfig: every hoodie.properties key the table package reads is named in
// package config, and the v6 ones are registered there with their defaults.
// hoodie.record.merge.mode (v8+) is registered too: creates of v8/v9 tables take it.
func TestTableKeysInConfig(t *testing.T) {
	// Keys only versions 8/9 have, which no write takes; hoodie.record.merge.mode is
	// registered: a create of version 8/9 takes it.
	v8plus := map[string]bool{KeyTimelinePath: true, KeyTimelineHistoryPath: true, KeyOrderingFields: true,
		KeyKeyGeneratorType: true}
	for _, k := range []string{KeyName, KeyDatabase, KeyType, KeyVersion, KeyTimelineLayout, KeyTimelinePath,
		KeyArchiveLogFolder, KeyTimelineHistoryPath, KeyRecordKeyFields, KeyPartitionFields, KeyPrecombineField,
		KeyOrderingFields, KeyKeyGeneratorClass, KeyKeyGeneratorType, KeyHiveStyle, KeyURLEncodePartition,
		KeyDropPartitionColumns, KeyPopulateMetaFields, KeyBaseFileFormat, KeyCreateSchema, KeyTimelineTimezone,
		KeyPayloadClass, KeyMergeMode, KeyMetadataPartitions, KeyCDCEnabled, KeyCDCLoggingMode} {
		if _, ok := config.Lookup(k); ok == v8plus[k] {
			t.Errorf("%s: registered in config = %v, want %v", k, ok, !v8plus[k])
		}
	}
}
