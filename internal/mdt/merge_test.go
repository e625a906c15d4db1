package mdt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage/local"
)

// rec is a metadata record to write in a test: a files record (files != nil), a
// record_index entry (fileID != ""), or a delete (del).
type rec struct {
	key    string
	files  map[string]FileInfo
	fileID string
	del    bool
}

func encodeRecord(t *testing.T, s *avro.Schema, r rec) []byte {
	t.Helper()
	m := map[string]any{
		"_hoodie_commit_time": nil, "_hoodie_commit_seqno": nil, "_hoodie_record_key": nil,
		"_hoodie_partition_path": nil, "_hoodie_file_name": nil,
		"key":                 "", // Java blanks the key field: the HFile key holds it
		"BloomFilterMetadata": nil, "ColumnStatsMetadata": nil, "recordIndexMetadata": nil,
		"SecondaryIndexMetadata": nil, "filesystemMetadata": nil,
	}
	if r.files != nil {
		m["type"] = TypeFileList
		if r.key == AllPartitionsKey {
			m["type"] = TypePartitionList
		}
		fm := map[string]any{}
		for k, v := range r.files {
			fm[k] = map[string]any{"size": v.Size, "isDeleted": v.IsDeleted}
		}
		m["filesystemMetadata"] = fm
	} else {
		m["type"] = TypeRecordIndex
		m["recordIndexMetadata"] = map[string]any{"partitionName": "p", "fileIdHighBits": nil, "fileIdLowBits": nil,
			"fileIndex": nil, "fileId": r.fileID, "instantTime": int64(0), "fileIdEncoding": int32(1), "position": nil}
	}
	b, err := s.Encode(m)
	if err != nil {
		t.Fatalf("encode %+v: %v", r, err)
	}
	return b
}

// hfileOf writes records as an HFile the way Hudi does (keys sorted, schema file info).
func hfileOf(t *testing.T, s *avro.Schema, recs []rec) []byte {
	t.Helper()
	sort.Slice(recs, func(i, j int) bool { return recs[i].key < recs[j].key })
	var buf bytes.Buffer
	w, err := hfile.NewWriter(&buf, hfile.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Append([]byte(r.key), encodeRecord(t, s, r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AppendFileInfo(hfile.InfoSchema, []byte(s.String())); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// blk is a log block to write: records of an instant (HFile data block, plus a delete
// block for deletes), or a rollback of target.
type blk struct {
	instant  string
	recs     []rec
	rollback string
}

// mergeCase is a file slice of a metadata-table partition and what merging it gives.
type mergeCase struct {
	name      string
	data, mdt []string // timeline file names (layout 2 form)
	base      []rec
	logs      []blk
	want      string // merged records, one "key: content" per record, sorted
}

func TestMergeRules(t *testing.T) {
	const t1, t2, t3 = "20240101000000001", "20240101000000002", "20240101000000003"
	completed := func(ts ...string) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x+".deltacommit.requested", x+".deltacommit.inflight", x+"_"+x+".deltacommit")
		}
		return out
	}
	f := func(size int64) FileInfo { return FileInfo{Size: size} }
	del := FileInfo{IsDeleted: true}
	tests := []mergeCase{
		{
			name: "a log entry deletes a base file and adds one (HoodieMetadataPayload.combineFileSystemMetadata)",
			data: completed(t1), mdt: completed(t1),
			base: []rec{{key: "p1", files: map[string]FileInfo{"a": f(10), "b": f(20)}}},
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": del, "c": f(30)}}}}},
			want: "p1: b=20 c=30",
		},
		{
			name: "a file's size is the largest recorded",
			data: completed(t1, t2), mdt: completed(t1, t2),
			base: []rec{{key: "p1", files: map[string]FileInfo{"a": f(10)}}},
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": f(5)}}}},
				{instant: t2, recs: []rec{{key: "p1", files: map[string]FileInfo{"b": f(7)}}}}},
			want: "p1: a=10 b=7",
		},
		{
			name: "a tombstone for a file the logs never listed stays until merged over the base",
			data: completed(t1, t2), mdt: completed(t1, t2),
			base: []rec{{key: "p1", files: map[string]FileInfo{"a": f(10), "b": f(1)}}},
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": del}}}},
				{instant: t2, recs: []rec{{key: "p1", files: map[string]FileInfo{"c": f(3)}}}}},
			want: "p1: b=1 c=3",
		},
		{
			name: "Java quirk: a log add then delete of a base file cancel out before the base merge, so the base's entry stays",
			data: completed(t1, t2), mdt: completed(t1, t2),
			base: []rec{{key: "p1", files: map[string]FileInfo{"a": f(10)}}},
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": f(20)}}}},
				{instant: t2, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": del}}}}},
			want: "p1: a=10",
		},
		{
			name: "the block of a data write that did not complete is skipped (getValidInstantTimestamps)",
			data: append(completed(t1), t2+".deltacommit.requested", t2+".deltacommit.inflight"), mdt: completed(t1, t2),
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": f(1)}}}},
				{instant: t2, recs: []rec{{key: "p1", files: map[string]FileInfo{"b": f(2)}}}}},
			want: "p1: a=1",
		},
		{
			name: "the block of a metadata deltacommit that did not complete is skipped",
			data: completed(t1, t2), mdt: append(completed(t1), t2+".deltacommit.requested"),
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": f(1)}}}},
				{instant: t2, recs: []rec{{key: "p1", files: map[string]FileInfo{"b": f(2)}}}}},
			want: "p1: a=1",
		},
		{
			name: "the metadata table's own instants (initialization) are valid without a data instant",
			data: completed(t1), mdt: completed("00000000000000000", t1),
			logs: []blk{{instant: "00000000000000000", recs: []rec{{key: "p1", files: map[string]FileInfo{"a": f(1)}}}},
				{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"b": f(2)}}}}},
			want: "p1: a=1 b=2",
		},
		{
			name: "a rollback command block drops the earlier blocks of its target",
			data: completed(t1, t2, t3), mdt: completed(t1, t2, t3),
			logs: []blk{{instant: t1, recs: []rec{{key: "p1", files: map[string]FileInfo{"a": f(1)}}}},
				{instant: t2, recs: []rec{{key: "p1", files: map[string]FileInfo{"b": f(2)}}}},
				{instant: t3, rollback: t2}},
			want: "p1: a=1",
		},
		{
			name: "record index: the newest mapping wins, a delete removes the key, a later insert brings it back",
			data: completed(t1, t2, t3), mdt: completed(t1, t2, t3),
			base: []rec{{key: "k1", fileID: "f1"}, {key: "k2", fileID: "f1"}, {key: "k3", fileID: "f1"}},
			logs: []blk{{instant: t1, recs: []rec{{key: "k1", fileID: "f2"}, {key: "k2", del: true}, {key: "k3", del: true}}},
				{instant: t2, recs: []rec{{key: "k3", fileID: "f3"}}}},
			want: "k1: f2\nk3: f3",
		},
	}
	schema, err := avro.Parse(avroschema.MetadataRecordV8.JSON())
	if err != nil {
		t.Fatal(err)
	}
	// Each case runs on both timeline layouts: a Hudi 0.14 metadata table (layout 1, the
	// completed instant file without completion time) and a 1.x one.
	layout1 := func(names []string) []string {
		var out []string
		for _, n := range names {
			if i := strings.IndexByte(n, '_'); i > 0 {
				n = n[:i] + n[strings.IndexByte(n, '.'):]
			}
			out = append(out, n)
		}
		return out
	}
	for _, layout := range []int{1, 2} {
		for _, tt := range tests {
			runMergeCase(t, schema, layout, layout1, tt)
		}
	}
}

func runMergeCase(t *testing.T, schema *avro.Schema, layout int, layout1 func([]string) []string, tt mergeCase) {
	const t1 = "20240101000000001"
	ctx := context.Background()
	tlDir, data, mdtNames := ".hoodie/timeline", tt.data, tt.mdt
	if layout == 1 {
		tlDir, data, mdtNames = ".hoodie", layout1(data), layout1(mdtNames)
	}
	tlLayout, _ := timeline.LayoutByVersion(layout)
	t.Run(fmt.Sprintf("layout%d/%s", layout, tt.name), func(t *testing.T) {
		dir := t.TempDir()
		tbl := &Table{
			mst:          local.New(dir),
			DataTimeline: timeline.FromFileNames(tlLayout, tlDir, data),
			Timeline:     timeline.FromFileNames(tlLayout, tlDir, mdtNames),
		}
		var err error
		if tbl.valid, err = tbl.validInstants(ctx); err != nil {
			t.Fatal(err)
		}
		var slice fsview.FileSlice
		if tt.base != nil {
			name := "fg-0000-0_0-1-1_" + t1 + ".hfile"
			if err := os.WriteFile(filepath.Join(dir, name), hfileOf(t, schema, tt.base), 0o644); err != nil {
				t.Fatal(err)
			}
			slice.Base = &fsview.BaseFile{Path: name}
		}
		for i, b := range tt.logs {
			var content []byte
			var blocks []*logfile.Block
			if b.rollback != "" {
				blocks = append(blocks, &logfile.Block{Type: logfile.CommandBlock, Version: logfile.FormatVersion,
					Header: map[logfile.HeaderKey]string{logfile.InstantTime: b.instant, logfile.TargetInstantTime: b.rollback,
						logfile.CommandBlockType: logfile.RollbackCommand}})
			} else {
				var live []rec
				var dels []logfile.DeleteRecord
				for _, r := range b.recs {
					if r.del {
						dels = append(dels, logfile.DeleteRecord{RecordKey: r.key, PartitionPath: "p", OrderingValue: int32(0)})
					} else {
						live = append(live, r)
					}
				}
				if live != nil {
					blocks = append(blocks, &logfile.Block{Type: logfile.HFileDataBlock, Version: logfile.FormatVersion, Content: hfileOf(t, schema, live),
						Header: map[logfile.HeaderKey]string{logfile.InstantTime: b.instant, logfile.Schema: schema.String()}})
				}
				if dels != nil {
					c, err := logfile.EncodeDeleteBlock(dels)
					if err != nil {
						t.Fatal(err)
					}
					blocks = append(blocks, &logfile.Block{Type: logfile.DeleteBlock, Version: logfile.FormatVersion, Content: c,
						Header: map[logfile.HeaderKey]string{logfile.InstantTime: b.instant, logfile.Schema: schema.String()}})
				}
			}
			for _, bl := range blocks {
				if content, err = logfile.AppendBlock(content, bl); err != nil {
					t.Fatal(err)
				}
			}
			name := ".fg-0000-0_" + b.instant + ".log." + string(rune('1'+i)) + "_0-1-1"
			if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
				t.Fatal(err)
			}
			slice.Logs = append(slice.Logs, fsview.LogFile{Path: name})
		}
		got, err := tbl.readSlice(ctx, slice, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := describe(got); s != tt.want {
			t.Errorf("merged:\n%s\nwant:\n%s", s, tt.want)
		}
		// Point lookups (ReadKeys' path) give the same records, and nothing for an
		// absent key.
		keys := []string{"absent"}
		for _, r := range tt.base {
			keys = append(keys, r.key)
		}
		for _, b := range tt.logs {
			for _, r := range b.recs {
				keys = append(keys, r.key)
			}
		}
		sort.Strings(keys)
		looked, err := tbl.readSlice(ctx, slice, slicesCompact(keys))
		if err != nil {
			t.Fatal(err)
		}
		if s := describe(looked); s != tt.want {
			t.Errorf("looked up:\n%s\nwant:\n%s", s, tt.want)
		}
	})
}

func describe(recs map[string]*Record) string {
	var lines []string
	for k, r := range recs {
		line := k + ":"
		if r.RecordIndex != nil {
			line += " " + r.RecordIndex.FileGroupID()
		}
		var names []string
		for n, fi := range liveFiles(r.Files) {
			names = append(names, n+"="+itoa(fi))
		}
		sort.Strings(names)
		if len(names) > 0 {
			line += " " + strings.Join(names, " ")
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestFileGroupID pins HoodieTableMetadataUtil.getLocationFromRecordIndexInfo: a UUID file
// ID from its 128 bits (java.util.UUID.toString) and file index, or the raw ID.
func TestFileGroupID(t *testing.T) {
	hi, lo := uint64(0x49b8b3c89e5d4731), uint64(0xf9d51a2e8b59c7f3)
	tests := []struct {
		info RecordIndexInfo
		want string
	}{
		{RecordIndexInfo{FileIDHighBits: int64(hi), FileIDLowBits: int64(lo), FileIndex: 0}, "49b8b3c8-9e5d-4731-f9d5-1a2e8b59c7f3-0"},
		{RecordIndexInfo{FileIDHighBits: 1, FileIDLowBits: 2, FileIndex: -1}, "00000000-0000-0001-0000-000000000002"},
		{RecordIndexInfo{FileIDEncoding: 1, FileID: "some-raw-file-id"}, "some-raw-file-id"},
	}
	for _, tt := range tests {
		if got := tt.info.FileGroupID(); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.info, got, tt.want)
		}
	}
}

// TestFileGroupIndex pins HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex: Java's
// String.hashCode over UTF-16 units, Math.abs (which leaves Integer.MIN_VALUE negative), %,
// Math.abs.
func TestFileGroupIndex(t *testing.T) {
	tests := []struct {
		key  string
		n    int
		want int
	}{
		{"", 10, 0},
		{"a", 10, 7},                  // 97
		{"polygenelubricants", 10, 8}, // hashCode is Integer.MIN_VALUE: abs stays negative, % gives -8
		{"é", 10, 3},                  // U+00E9 = 233
		{"\U0001F600", 10, 9},         // surrogate pair D83D DE00: 1772899
		{"__all_partitions__", 1, 0},
	}
	for _, tt := range tests {
		if got := FileGroupIndex(tt.key, tt.n); got != tt.want {
			t.Errorf("FileGroupIndex(%q, %d) = %d, want %d", tt.key, tt.n, got, tt.want)
		}
	}
}
