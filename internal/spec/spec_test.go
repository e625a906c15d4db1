package spec

import (
	"testing"
	"time"
)

func TestParseBaseFileName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		want BaseFileName
	}{
		{"6d3d1d6e-2298-4080-a0c1-494877d6f40a-0_0-13-60_20250618054711154.parquet", true,
			BaseFileName{"6d3d1d6e-2298-4080-a0c1-494877d6f40a-0", "0-13-60", "20250618054711154", "parquet"}},
		{"files-0000-0_0-6-6_00000000000000.hfile", true, BaseFileName{"files-0000-0", "0-6-6", "00000000000000", "hfile"}},
		{".hoodie_partition_metadata", false, BaseFileName{}},
		{"x_1-2-3_2025.parquet", false, BaseFileName{}},
		{"a.parquet.crc", false, BaseFileName{}},
		{".0712-0_20250126040823628.log.1_0-33-43", false, BaseFileName{}},
	}
	for _, tc := range tests {
		got, ok := ParseBaseFileName(tc.name)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseBaseFileName(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.name {
			t.Errorf("String() = %q, want %q", got.String(), tc.name)
		}
	}
}

func TestParseLogFileName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		want LogFileName
	}{
		{".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.2_1-0-1", true,
			LogFileName{FileID: "0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0", Instant: "20250126040823628", Extension: "log", Version: 2, WriteToken: "1-0-1"}},
		{".files-0000-0_00000000000000000.log.1_0-5-5", true,
			LogFileName{FileID: "files-0000-0", Instant: "00000000000000000", Extension: "log", Version: 1, WriteToken: "0-5-5"}},
		{".abc-0_20250126040823628.log.3", true, LogFileName{FileID: "abc-0", Instant: "20250126040823628", Extension: "log", Version: 3}},
		{".abc-0_20250126040823628.log.1_0-1-2.cdc", true, LogFileName{FileID: "abc-0", Instant: "20250126040823628", Extension: "log", Version: 1, WriteToken: "0-1-2", CDCSuffix: ".cdc"}},
		// Hudi 0.14's CDC log name: HoodieCDCUtils.CDC_LOGFILE_SUFFIX "-cdc" glued to the
		// write token by HoodieLogFormat.WriterBuilder.
		{".abc-0_20250126040823628.log.1_0-1-2-cdc", true, LogFileName{FileID: "abc-0", Instant: "20250126040823628", Extension: "log", Version: 1, WriteToken: "0-1-2", CDCSuffix: "-cdc"}},
		{".hoodie_partition_metadata", false, LogFileName{}},
		{"abc_0-1-2_20250126040823628.parquet", false, LogFileName{}},
		{".abc_20250126040823628.log.x_1-2-3", false, LogFileName{}},
		// the temp file of an atomic create is not a log file
		{"..33f80777-0_20261129161412142.log.1_20-1-20.tmp-123456", false, LogFileName{}},
		{".abc-0_20250126040823628.log.1_0-1-2.tmp-9", false, LogFileName{}},
	}
	for _, tc := range tests {
		got, ok := ParseLogFileName(tc.name)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseLogFileName(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.name {
			t.Errorf("String() = %q, want %q", got.String(), tc.name)
		}
	}
}

func TestParseInstantFileName(t *testing.T) {
	tests := []struct {
		name   string
		ok     bool
		want   InstantFileName
		layout int
	}{
		{"20240418173550988.commit", true, InstantFileName{Instant: "20240418173550988", Action: ActionCommit, State: StateCompleted}, 1},
		{"20240418173550988.inflight", true, InstantFileName{Instant: "20240418173550988", Action: ActionCommit, State: StateInflight}, 1},
		{"20240418173550988.commit.requested", true, InstantFileName{Instant: "20240418173550988", Action: ActionCommit, State: StateRequested}, 1},
		{"20250126040823628.deltacommit.inflight", true, InstantFileName{Instant: "20250126040823628", Action: ActionDeltaCommit, State: StateInflight}, 1},
		{"20260307162434124_20260307162438653.commit", true, InstantFileName{Instant: "20260307162434124", Completion: "20260307162438653", Action: ActionCommit, State: StateCompleted}, 2},
		{"20260307162454799.clustering.requested", true, InstantFileName{Instant: "20260307162454799", Action: ActionClustering, State: StateRequested}, 2},
		{"hoodie.properties", false, InstantFileName{}, 1},
		{"20240418173550988.commit.crc", false, InstantFileName{}, 1},
		{"20240418173550988_x.commit", false, InstantFileName{}, 2},
	}
	for _, tc := range tests {
		got, ok := ParseInstantFileName(tc.name)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseInstantFileName(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
		if ok && got.FileName(tc.layout) != tc.name {
			t.Errorf("FileName(%d) = %q, want %q", tc.layout, got.FileName(tc.layout), tc.name)
		}
	}
}

func TestParseInstantArg(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"20240418173550988", "20240418173550988", true},
		{"20240418173550", "20240418173550", true},
		{"2024-04-18 17:35:50.988", "20240418173550988", true},
		{"2024-04-18 17:35:50", "20240418173550000", true},
		{"2024-04-18", "20240418000000000", true},
		{"2024/04/18", "", false},
		{"yesterday", "", false},
	}
	for _, tc := range tests {
		got, err := ParseInstantArg(tc.in)
		if (err == nil) != tc.ok || string(got) != tc.want {
			t.Errorf("ParseInstantArg(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestInstantCompareAndTime(t *testing.T) {
	if !InstantTime("20240418173550").Less("20240418173550001") {
		t.Error("14-digit instant must sort as if padded with 000")
	}
	if InstantTime("20240418173550").Compare("20240418173550000") != 0 {
		t.Error("14-digit instant equals its 000-padded form")
	}
	ts, err := InstantTime("20240418173550988").Time(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if got := InstantTimeOf(ts, time.UTC); got != "20240418173550988" {
		t.Errorf("round trip = %s", got)
	}
}

func FuzzParseNames(f *testing.F) {
	f.Add(".abc-0_20250126040823628.log.1_0-1-2.cdc")
	f.Add(".abc-0_20250126040823628.log.1_0-1-2-cdc")
	f.Add("abc_0-1-2_20250126040823628.parquet")
	f.Add("20260307162434124_20260307162438653.commit")
	f.Fuzz(func(t *testing.T, s string) {
		if l, ok := ParseLogFileName(s); ok {
			if l2, ok2 := ParseLogFileName(l.String()); !ok2 || l2 != l {
				t.Errorf("log name %q does not round trip: %q", s, l.String())
			}
		}
		if b, ok := ParseBaseFileName(s); ok {
			if b2, ok2 := ParseBaseFileName(b.String()); !ok2 || b2 != b {
				t.Errorf("base name %q does not round trip", s)
			}
		}
		ParseInstantFileName(s)
		ParseInstantArg(s)
	})
}

// TestMetadataTableInstants pins the instants Java 0.14 gives metadata-table operations
// (HoodieTableMetadataUtil: data instant + 3-digit suffix): file names carrying them parse,
// user input does not take them, and they order as strings.
func TestMetadataTableInstants(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"20240101120000000010.deltacommit", true},          // partition initialization
		{"20240101120000000001.compaction.requested", true}, // compaction
		{"20240101120000000010001.commit", true},            // compaction after an initialization
		{"00000000000000010.deltacommit.inflight", true},    // initialization of a new table
		{"2024010112000000001.deltacommit", false},          // 19 digits
		{"2024010112000000000x1.deltacommit", false},
	} {
		_, ok := ParseInstantFileName(tc.name)
		if ok != tc.ok {
			t.Errorf("ParseInstantFileName(%q) ok = %v, want %v", tc.name, ok, tc.ok)
		}
	}
	if b, ok := ParseBaseFileName("files-0000-0_0-1-0_20240101120000000010.hfile"); !ok || b.Instant != "20240101120000000010" || b.FileID != "files-0000-0" {
		t.Errorf("ParseBaseFileName = %+v, %v", b, ok)
	}
	if l, ok := ParseLogFileName(".files-0000-0_20240101120000000010.log.1_0-0-0"); !ok || l.Instant != "20240101120000000010" || l.FileID != "files-0000-0" {
		t.Errorf("ParseLogFileName = %+v, %v", l, ok)
	}
	if _, err := ParseInstantTime("20240101120000000010"); err == nil {
		t.Error("ParseInstantTime took a metadata-table instant as user input")
	}
	if !InstantTime("20240101120000000").Less("20240101120000000010") || !InstantTime("20240101120000000010").Less("20240101120000001") {
		t.Error("metadata-table instants must order as strings between their data instant and the next")
	}
	if tm, err := InstantTime("20240101120000123010").Time(time.UTC); err != nil || tm.Nanosecond() != 123e6 {
		t.Errorf("Time of a suffixed instant = %v, %v", tm, err)
	}
}
