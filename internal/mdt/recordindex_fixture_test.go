package mdt_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
)

// TestRecordIndexLikeSparkFixtures proves the record_index encoding against the records
// Java wrote in the 14 Spark fixtures with a metadata table (Hudi 1.x, whose record carries
// two fields 0.14 lacks — HoodieRecordIndexInfo.position and SecondaryIndexMetadata, both
// null, one zero byte each, at the end): each record decodes, and NewRecordIndexEntry
// rebuilt from the decoded location (partition, file ID, instant millis) encodes to the
// fixture's value less those two bytes. A record of a log block written by instant X holds
// X as its instant (an insert or a move made by X): InstantMillis(X) must give the same
// epoch milliseconds but for the zone the fixture's writer ran in (its timeline zone is
// LOCAL): one whole-quarter-hour offset per fixture. Hudi 1.x base files (compactions of
// the metadata table) also carry _hoodie_file_name, which 0.14's metadata table, without
// meta fields, leaves null (UNVERIFIED for 0.14: no 0.14 metadata table in the fixtures);
// it is blanked before comparing.
func TestRecordIndexLikeSparkFixtures(t *testing.T) {
	enc, err := mdt.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	var records, instants int
	offsets := map[string]int64{} // per fixture: its timeline zone's offset from UTC, in ms
	for id, base := range mdtFixtures(t) {
		dir := filepath.Join(base, ".hoodie", "metadata", mdt.PartitionRecordIndex)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue // a fixture whose metadata table has no record index
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			type hf struct {
				content []byte
				instant spec.InstantTime // the log block's instant, "" for a base file
			}
			var files []hf
			switch {
			case strings.HasSuffix(e.Name(), ".hfile"):
				files = append(files, hf{content: b})
			case strings.Contains(e.Name(), ".log."):
				blocks, err := logfile.ReadAll(bytes.NewReader(b), int64(len(b)), p)
				if err != nil {
					t.Fatal(err)
				}
				for _, bl := range blocks {
					if bl.Type == logfile.HFileDataBlock {
						files = append(files, hf{content: bl.Content, instant: spec.InstantTime(bl.InstantTime())})
					}
				}
			}
			for _, f := range files {
				recs, err := mdt.DecodeHFile(f.content, p)
				if err != nil {
					t.Fatalf("%s: %s: %v", id, e.Name(), err)
				}
				r, err := hfile.OpenBytes(f.content, p)
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					ri := rec.RecordIndex
					if rec.Type != mdt.TypeRecordIndex || ri == nil {
						t.Fatalf("%s: %s: record %q of type %d", id, e.Name(), rec.Key, rec.Type)
					}
					ours, err := mdt.NewRecordIndexEntry(rec.Key, ri.PartitionName, spec.FileID(ri.FileGroupID()), ri.InstantTime, ri.FileIDEncoding)
					if err != nil {
						t.Fatalf("%s: %s: %v", id, e.Name(), err)
					}
					got, err := enc.Encode(ours)
					if err != nil {
						t.Fatal(err)
					}
					want, _, err := r.Get([]byte(rec.Key))
					if err != nil {
						t.Fatal(err)
					}
					if f.instant == "" {
						want = withoutFileName(t, want)
					}
					if !bytes.Equal(append(got, 0, 0), want) {
						t.Fatalf("%s: %s: record %q:\n ours %x (+0000)\n Java %x", id, e.Name(), rec.Key, got, want)
					}
					records++
					if f.instant != "" {
						ms, err := mdt.InstantMillis(f.instant, time.UTC)
						if err != nil {
							t.Fatal(err)
						}
						off, seen := offsets[id]
						if !seen {
							off, offsets[id] = ms-ri.InstantTime, ms-ri.InstantTime
						}
						if ms-ri.InstantTime != off || off%(15*60*1000) != 0 {
							t.Errorf("%s: %s: record %q: instant %s is %d ms in UTC, the record holds %d (zone offset %d ms, the fixture's first %d)",
								id, e.Name(), rec.Key, f.instant, ms, ri.InstantTime, ms-ri.InstantTime, off)
						}
						instants++
					}
				}
			}
		}
	}
	if records < 100 || instants == 0 {
		t.Fatalf("compared %d records (%d with their block's instant): the fixtures should hold more", records, instants)
	}
	t.Logf("%d record_index records equal to Java's bytes, %d instants checked", records, instants)
}

// NewRecordIndexEntry splits a UUID file ID as java.util.UUID does and refuses what is not
// one under the UUID encoding.
func TestNewRecordIndexEntry(t *testing.T) {
	for _, tc := range []struct {
		id      string
		enc     int32
		want    mdt.RecordIndexInfo
		wantErr bool
	}{
		{"e1479c0a-9f83-4188-9cc7-19d5f4ba7fd3-0", 0, mdt.RecordIndexInfo{PartitionName: "p", FileIDHighBits: -2213629122389524088, FileIDLowBits: -7149717476702781485, FileIndex: 0, InstantTime: 7}, false},
		{"e1479c0a-9f83-4188-9cc7-19d5f4ba7fd3", 0, mdt.RecordIndexInfo{PartitionName: "p", FileIDHighBits: -2213629122389524088, FileIDLowBits: -7149717476702781485, FileIndex: -1, InstantTime: 7}, false},
		{"e1479c0a-9f83-4188-9cc7-19d5f4ba7fd3-12", 0, mdt.RecordIndexInfo{PartitionName: "p", FileIDHighBits: -2213629122389524088, FileIDLowBits: -7149717476702781485, FileIndex: 12, InstantTime: 7}, false},
		{"files-0000-0", 0, mdt.RecordIndexInfo{}, true},
		{"not-a-uuid", 1, mdt.RecordIndexInfo{PartitionName: "p", FileIDHighBits: -1, FileIDLowBits: -1, FileIndex: -1, FileID: "not-a-uuid", InstantTime: 7, FileIDEncoding: 1}, false},
	} {
		r, err := mdt.NewRecordIndexEntry("k", "p", spec.FileID(tc.id), 7, tc.enc)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: err %v", tc.id, err)
		}
		if err != nil {
			continue
		}
		if *r.RecordIndex != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.id, *r.RecordIndex, tc.want)
		}
		if got := r.RecordIndex.FileGroupID(); got != tc.id {
			t.Errorf("%s: FileGroupID %s", tc.id, got)
		}
	}
	// 14-digit instants take Java's ".999" (DEFAULT_MILLIS_EXT).
	a, _ := mdt.InstantMillis("20240101000000", time.UTC)
	b, _ := mdt.InstantMillis("20240101000000999", time.UTC)
	if a != b || a != time.Date(2024, 1, 1, 0, 0, 0, 999e6, time.UTC).UnixMilli() {
		t.Errorf("InstantMillis: %d %d", a, b)
	}
}

// withoutFileName returns a Hudi 1.x base-file record value with its _hoodie_file_name
// (the fifth meta field, a ["null","string"] union) set to null.
func withoutFileName(t *testing.T, v []byte) []byte {
	t.Helper()
	if len(v) < 5 || !bytes.Equal(v[:4], []byte{0, 0, 0, 0}) || v[4] != 2 {
		return v
	}
	n, k := binary.Varint(v[5:])
	if k <= 0 || n < 0 || 5+k+int(n) > len(v) {
		t.Fatalf("malformed _hoodie_file_name in %x", v)
	}
	return append([]byte{0, 0, 0, 0, 0}, v[5+k+int(n):]...)
}
