package mdt

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
)

// describe renders records as "key(type): name=size name=DEL …", sorted.
func describeRecs(recs []*Record) string {
	var out []string
	for _, r := range recs {
		var fs []string
		for name, fi := range r.Files {
			if fi.IsDeleted {
				fs = append(fs, name+"=DEL")
			} else {
				fs = append(fs, fmt.Sprintf("%s=%d", name, fi.Size))
			}
		}
		sort.Strings(fs)
		out = append(out, fmt.Sprintf("%s(%d): %s", r.Key, r.Type, strings.Join(fs, " ")))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// The files-partition records of each kind of data-table instant, as Java 0.14's
// HoodieTableMetadataUtil makes them.
func TestInstantRecords(t *testing.T) {
	tests := []struct {
		name string
		recs []*Record
		want string
	}{{
		name: "commit: every partition with stats is (re)added; a file's largest size wins; CDC logs are listed; a stat without path is skipped (convertMetadataToFilesPartitionRecords)",
		recs: CommitRecords(&commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{
			"city=sf": {{Path: "city=sf/f1_0-1-0_1.parquet", FileSizeInBytes: 10}, {Path: "city=sf/.f2_1.log.1_0-1-0", FileSizeInBytes: 5},
				{Path: "city=sf/.f2_1.log.1_0-1-0", FileSizeInBytes: 7, CDCStats: map[string]int64{"city=sf/.f2_1.log.1_0-1-0-cdc": 3}}},
			"city=la": {{Path: ""}},
		}}),
		want: "__all_partitions__(1): city=la=0 city=sf=0\ncity=la(2): \ncity=sf(2): .f2_1.log.1_0-1-0-cdc=3 .f2_1.log.1_0-1-0=7 f1_0-1-0_1.parquet=10",
	}, {
		name: "commit on a non-partitioned table: the partition is \".\" (NON_PARTITIONED_NAME)",
		recs: CommitRecords(&commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{
			"": {{Path: "f1_0-1-0_1.parquet", FileSizeInBytes: 10}}}}),
		want: ".(2): f1_0-1-0_1.parquet=10\n__all_partitions__(1): .=0",
	}, {
		name: "replacecommit: only the files written; replaced file groups stay until cleaned",
		recs: CommitRecords(&commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{
			"p": {{Path: "p/new_0-1-0_2.parquet", FileSizeInBytes: 4}}}, PartitionToReplaceFileIDs: map[string][]string{"p": {"old"}}}),
		want: "__all_partitions__(1): p=0\np(2): new_0-1-0_2.parquet=4",
	}, {
		name: "clean: deleted files become tombstones by name; deleted partitions leave __all_partitions__ (convertMetadataToFilesPartitionRecords(HoodieCleanMetadata))",
		recs: CleanRecords(&commitmeta.CleanMetadata{PartitionMetadata: map[string]commitmeta.CleanPartitionMetadata{
			"a": {DeletePathPatterns: []string{"f1_0-1-0_1.parquet", ".f1_1.log.1_0-1-0"}},
			"b": {DeletePathPatterns: []string{"g_0-1-0_1.parquet"}, IsPartitionDeleted: true},
		}}),
		want: "__all_partitions__(1): b=DEL\na(2): .f1_1.log.1_0-1-0=DEL f1_0-1-0_1.parquet=DEL\nb(2): g_0-1-0_1.parquet=DEL",
	}, {
		name: "rollback: the command-block logs and the failed commit's logs are added (the larger size), only where command blocks were written; deleted files are not recorded (processRollbackMetadata)",
		recs: RollbackRecords(&commitmeta.RollbackMetadata{PartitionMetadata: map[string]commitmeta.RollbackPartitionMetadata{
			"a": {PartitionPath: "a", SuccessDeleteFiles: []string{"/t/a/x_0-1-0_2.parquet"},
				RollbackLogFiles:         map[string]int64{"file:/t/a/.f_1.log.3_1-0-1": 80},
				LogFilesFromFailedCommit: map[string]int64{"file:/t/a/.f_1.log.2_0-1-0": 500, "file:/t/a/.f_1.log.3_1-0-1": 10}},
			"b": {PartitionPath: "b", SuccessDeleteFiles: []string{"/t/b/y_0-1-0_2.parquet"}},
			"":  {PartitionPath: "", RollbackLogFiles: map[string]int64{"file:/t/.g_1.log.2_1-0-1": 80}},
		}}),
		want: ".(2): .g_1.log.2_1-0-1=80\na(2): .f_1.log.2_0-1-0=500 .f_1.log.3_1-0-1=80",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeRecs(tt.recs); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// MergeRecords folds one instant's records of a key into one: file maps union (a
// tombstone stays one, so that it still removes the file from the slice's older records),
// sizes take the maximum.
func TestMergeRecordsOfOneInstant(t *testing.T) {
	got, err := MergeRecords([]*Record{
		PartitionFilesRecord("p", map[string]int64{"a": 1, "b": 5}, nil),
		PartitionFilesRecord("p", map[string]int64{"a": 3}, []string{"c"}),
		PartitionListRecord([]string{"p"}, false),
		PartitionListRecord([]string{"q"}, false),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "__all_partitions__(1): p=0 q=0\np(2): a=3 b=5 c=DEL"; describeRecs(got) != want {
		t.Errorf("got\n%s\nwant\n%s", describeRecs(got), want)
	}
	if got[0].Key != AllPartitionsKey || got[1].Key != "p" {
		t.Errorf("not sorted by key: %s, %s", got[0].Key, got[1].Key)
	}
}

// Encode → BuildHFile → DecodeHFile returns the records (every type hudi-go writes), and
// the HFile refuses a key given twice.
func TestEncodeRoundTrip(t *testing.T) {
	enc, err := NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	recs := []*Record{
		PartitionListRecord([]string{"", "b"}, false),
		PartitionFilesRecord("b", map[string]int64{"f": 7}, []string{"g"}),
		{Key: "k1", Type: TypeRecordIndex, RecordIndex: &RecordIndexInfo{PartitionName: "b", FileID: "raw-id", FileIndex: -1, InstantTime: 5, FileIDEncoding: 1}},
		{Key: "k2", Type: TypeRecordIndex, RecordIndex: &RecordIndexInfo{PartitionName: "b", FileIDHighBits: -3, FileIDLowBits: 9, FileIndex: 0, InstantTime: 6}},
	}
	for _, kind := range []HFileKind{LogBlock, BaseFile} {
		b, err := enc.BuildHFile(recs, kind)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeHFile(b, "round trip")
		if err != nil {
			t.Fatal(err)
		}
		if describeRecs(back) != describeRecs(recs) || len(back) != len(recs) {
			t.Errorf("kind %d: got\n%s\nwant\n%s", kind, describeRecs(back), describeRecs(recs))
		}
		for _, r := range back {
			if r.RecordIndex != nil {
				var want *RecordIndexInfo
				for _, o := range recs {
					if o.Key == r.Key {
						want = o.RecordIndex
					}
				}
				if *r.RecordIndex != *want {
					t.Errorf("record index %q: got %+v, want %+v", r.Key, *r.RecordIndex, *want)
				}
			}
		}
	}
	if _, err := enc.BuildHFile([]*Record{recs[0], recs[0]}, LogBlock); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate key: %v", err)
	}
}
