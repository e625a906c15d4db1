package write_test

// Change-data capture on copy-on-write writes (hoodie.table.cdc.enabled=true): a merge that
// changes a file group writes a CDC log file next to its new base file and lists it in the
// write stat's cdcStats (HoodieMergeHandleWithChangeLog, HoodieCDCLogger, Hudi 0.14).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/spec"
)

// cdcRecord is a decoded CDC record in a comparable form: op, key (record key, or ts_ms in
// DATA_BEFORE_AFTER) and the images' (id, val), "-" for none.
type cdcRecord struct{ op, key, before, after string }

func (r cdcRecord) String() string { return r.op + " " + r.key + " " + r.before + " " + r.after }

func imageText(m map[string]any) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("%v=%v", m["id"], m["val"])
}

// cdcFile is one CDC log file of a commit, decoded.
type cdcFile struct {
	path    string // relative to the table
	size    int64
	headers []map[logfile.HeaderKey]string
	records []cdcRecord
}

// readCDCFiles decodes the CDC log files the commit instant listed in its cdcStats,
// checking that they are all there is of that instant and that their sizes match.
func readCDCFiles(t *testing.T, dir, instant string, mode cdc.Mode) []cdcFile {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, ".hoodie", instant+".commit"))
	if err != nil {
		body, err = os.ReadFile(filepath.Join(dir, ".hoodie", instant+".replacecommit"))
	}
	if err != nil {
		t.Fatal(err)
	}
	cm, err := commitmeta.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	tableSchema := cm.ExtraMetadata["schema"]
	var out []cdcFile
	listed := map[string]bool{}
	for _, stats := range cm.PartitionToWriteStats {
		for _, st := range stats {
			for p, size := range st.CDCStats {
				listed[p] = true
				full := filepath.Join(dir, filepath.FromSlash(p))
				data, err := os.ReadFile(full)
				if err != nil {
					t.Fatalf("cdcStats lists %s: %v", p, err)
				}
				if int64(len(data)) != size {
					t.Errorf("cdcStats says %s has %d bytes; it has %d", p, size, len(data))
				}
				name, ok := spec.ParseLogFileName(filepath.Base(p))
				if !ok || name.CDCSuffix != "-cdc" || name.Instant != spec.InstantTime(instant) || name.Version != 1 ||
					string(name.FileID) != st.FileID {
					t.Errorf("CDC log file name %s: want .%s_%s.log.1_<token>-cdc", p, st.FileID, instant)
				}
				blocks, err := logfile.ReadAll(strings.NewReader(string(data)), int64(len(data)), p)
				if err != nil {
					t.Fatal(err)
				}
				f := cdcFile{path: p, size: size}
				for _, b := range blocks {
					if b.Type != logfile.CDCDataBlock {
						t.Fatalf("%s holds a %s", p, b.Type)
					}
					f.headers = append(f.headers, b.Header)
					d, err := cdc.NewDecoder(mode, b.Header[logfile.Schema], tableSchema)
					if err != nil {
						t.Fatal(err)
					}
					datums, err := logfile.DecodeAvroDataBlock(b.Content)
					if err != nil {
						t.Fatal(err)
					}
					for _, datum := range datums {
						r, err := d.Decode(datum)
						if err != nil {
							t.Fatal(err)
						}
						f.records = append(f.records, cdcRecord{op: r.Op.String(), key: r.Key, before: imageText(r.Before), after: imageText(r.After)})
					}
				}
				out = append(out, f)
			}
		}
	}
	// No CDC file of this instant is left out of cdcStats.
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, "-cdc") && strings.Contains(filepath.Base(p), "_"+instant+".log.") {
			rel, _ := filepath.Rel(dir, p)
			if !listed[filepath.ToSlash(rel)] {
				t.Errorf("CDC file %s is not in the commit's cdcStats", rel)
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func createCDCTable(t *testing.T, ctx context.Context, dir, typ string, settings map[string]string) {
	t.Helper()
	s := map[string]string{"hoodie.table.cdc.enabled": "true"}
	for k, v := range settings {
		s[k] = v
	}
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "cdc", Type: typ, RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		PartitionFields: []string{"city"}, Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN",
		Settings: s}); err != nil {
		t.Fatal(err)
	}
}

func writeRows(t *testing.T, ctx context.Context, dir, op string, rows []mrow, settings map[string]string) *hudi.WriteResult {
	t.Helper()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var batches []arrow.Record
	if b := buildBatch(rows, op == "delete"); b != nil {
		defer b.Release()
		batches = append(batches, b)
	}
	res, err := tbl.Write(ctx, batches, hudi.WriteOptions{Operation: op, Settings: settings})
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return res
}

func TestCDCWriteLogsMergedChanges(t *testing.T) {
	base := []mrow{row("k9", "sf", 5, 90), row("k2", "sf", 5, 20), row("k3", "sf", 5, 30)}
	tests := []struct {
		name     string
		op       string
		rows     []mrow
		settings map[string]string
		// want: the CDC records with key "" standing for the instant (ts_ms), in file
		// order; nil = no CDC file.
		want []cdcRecord
	}{
		// An update of k9 and an insert of k1 routed into the small file. Java puts k9 (the
		// base file's order) then k1 into a HashMap, which iterates k1 (String.hashCode 3366,
		// bucket 6) before k9 (3374, bucket 14): the block holds k1 first.
		{name: "upsert", op: "upsert", rows: []mrow{row("k9", "sf", 6, 91), row("k1", "sf", 6, 10)},
			want: []cdcRecord{{"i", "k1", "-", "k1=10"}, {"u", "k9", "k9=90", "k9=91"}}},
		{name: "soft delete", op: "upsert", rows: []mrow{softDel("k2", "sf", 6)},
			want: []cdcRecord{{"d", "k2", "k2=20", "-"}}},
		{name: "delete", op: "delete", rows: []mrow{row("k3", "sf", 0, 0), row("k2", "sf", 0, 0)},
			want: []cdcRecord{{"d", "k2", "k2=20", "-"}, {"d", "k3", "k3=30", "-"}}},
		// With DefaultHoodieRecordPayload a stored record newer by ordering value is kept:
		// no change, nothing logged, but the other key's update is (Java's
		// writeUpdateRecord drops an update whose merge chose the stored record).
		{name: "older update ignored", op: "upsert", rows: []mrow{row("k9", "sf", 4, 99), row("k2", "sf", 6, 21)},
			settings: map[string]string{"hoodie.datasource.write.payload.class": "org.apache.hudi.common.model.DefaultHoodieRecordPayload"},
			want:     []cdcRecord{{"u", "k2", "k2=20", "k2=21"}}},
		// Every stored record deleted: the new base file is empty, and Java writes no CDC
		// file (CDC queries take the previous base file's records as deleted).
		{name: "delete all", op: "delete", rows: []mrow{row("k9", "sf", 0, 0), row("k2", "sf", 0, 0), row("k3", "sf", 0, 0)}},
		// New file groups (a create handle) and replaced ones get no CDC file.
		{name: "insert into a new group", op: "insert", rows: []mrow{row("k5", "la", 6, 50)}},
		{name: "insert_overwrite", op: "insert_overwrite", rows: []mrow{row("k5", "sf", 6, 50)}},
		{name: "delete_partition", op: "delete_partition", settings: map[string]string{"hoodie.datasource.write.partitions.to.delete": "sf"}},
	}
	for _, mode := range []cdc.Mode{cdc.OpKeyOnly, cdc.DataBefore, cdc.DataBeforeAfter} {
		for _, tc := range tests {
			if tc.want == nil && mode != cdc.DataBeforeAfter {
				continue // writing no CDC file does not depend on the mode: one run is enough
			}
			t.Run(mode.String()+"/"+tc.name, func(t *testing.T) {
				ctx := context.Background()
				dir := t.TempDir()
				createCDCTable(t, ctx, dir, "cow", map[string]string{"hoodie.table.cdc.supplemental.logging.mode": strings.ToLower(mode.String())})
				writeRows(t, ctx, dir, "insert", base, nil)
				res := writeRows(t, ctx, dir, tc.op, tc.rows, tc.settings)
				files := readCDCFiles(t, dir, res.Instant, mode)
				if tc.want == nil {
					if len(files) != 0 {
						t.Fatalf("%s wrote CDC files %v", tc.op, files)
					}
					return
				}
				if len(files) != 1 {
					t.Fatalf("%d CDC files, want 1", len(files))
				}
				f := files[0]
				var want []string
				for _, r := range tc.want {
					switch mode {
					case cdc.OpKeyOnly:
						r.before, r.after = "-", "-"
					case cdc.DataBefore:
						r.after = "-"
					case cdc.DataBeforeAfter:
						r.key = res.Instant
					}
					want = append(want, r.String())
				}
				var got []string
				for _, r := range f.records {
					got = append(got, r.String())
				}
				if !slices.Equal(got, want) {
					t.Errorf("CDC records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				// One block with the instant and the mode's schema for the commit's table
				// schema (HoodieCDCLogger's cdcDataBlockHeader), and nothing else.
				if len(f.headers) != 1 || f.headers[0][logfile.InstantTime] != res.Instant || len(f.headers[0]) != 2 {
					t.Errorf("headers %v: want INSTANT_TIME %s and SCHEMA", f.headers, res.Instant)
				}
				if _, err := avro.Parse(f.headers[0][logfile.Schema]); err != nil {
					t.Errorf("SCHEMA header does not parse: %v", err)
				}
			})
		}
	}
}

// The CDC record block is byte for byte what Java's HoodieCDCLogger writes for the same
// records, given the header order (Java's is a HashMap of enum keys, whose order varies
// between JVM runs; ours is ascending ordinal): the block framing, the Avro data block
// layout of HoodieCDCDataBlock (extends HoodieAvroDataBlock: version 3, record count,
// length-prefixed datums) and the CDC record encoding.
func TestCDCLogFileBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	createCDCTable(t, ctx, dir, "cow", nil)
	writeRows(t, ctx, dir, "insert", []mrow{row("k9", "sf", 5, 90)}, nil)
	res := writeRows(t, ctx, dir, "upsert", []mrow{row("k9", "sf", 6, 91)}, nil)
	files := readCDCFiles(t, dir, res.Instant, cdc.DataBeforeAfter)
	if len(files) != 1 {
		t.Fatalf("%d CDC files", len(files))
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(files[0].path)))
	if err != nil {
		t.Fatal(err)
	}
	schemaHeader := files[0].headers[0][logfile.Schema]
	// The images: id, city, ts, val, _hoodie_is_deleted, each ["null", x] (branch 1).
	image := func(id string, ts, val int64) []byte {
		var b []byte
		str := func(s string) { b = append(b, 2, byte(2*len(s))); b = append(b, s...) }
		long := func(v int64) { b = append(b, 2); b = zz(b, v) }
		str(id)
		str("sf")
		long(ts)
		long(val)
		b = append(b, 2, 0) // false
		return b
	}
	rec := []byte{2, 2, 'u', 2, 34}
	rec = append(rec, res.Instant...)
	rec = append(rec, 2)
	rec = append(rec, image("k9", 5, 90)...)
	rec = append(rec, 2)
	rec = append(rec, image("k9", 6, 91)...)
	content := []byte{0, 0, 0, 3, 0, 0, 0, 1}
	content = append(content, be32(len(rec))...)
	content = append(content, rec...)
	hdr := []byte{0, 0, 0, 2}
	hdr = append(hdr, be32(0)...)
	hdr = append(hdr, be32(len(res.Instant))...)
	hdr = append(hdr, res.Instant...)
	hdr = append(hdr, be32(2)...)
	hdr = append(hdr, be32(len(schemaHeader))...)
	hdr = append(hdr, schemaHeader...)
	body := []byte{0, 0, 0, 1, 0, 0, 0, 6} // format version 1, CDC_DATA_BLOCK (6)
	body = append(body, hdr...)
	body = append(body, be64(len(content))...)
	body = append(body, content...)
	body = append(body, 0, 0, 0, 0) // empty footer
	want := []byte("#HUDI#")
	want = append(want, be64(len(body)+8)...)
	want = append(want, body...)
	want = append(want, be64(len(want))...)
	if string(data) != string(want) {
		t.Errorf("CDC log file\n%x\nwant\n%x", data, want)
	}
	// The SCHEMA header is the CDC schema of the commit's table schema.
	body2, _ := os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+".commit"))
	var cm struct {
		ExtraMetadata map[string]string `json:"extraMetadata"`
	}
	json.Unmarshal(body2, &cm)
	if s, _ := cdc.Schema(cdc.DataBeforeAfter, cm.ExtraMetadata["schema"]); s != schemaHeader {
		t.Errorf("SCHEMA header\n%s\nwant\n%s", schemaHeader, s)
	}
}

func zz(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

func be32(n int) []byte { return []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)} }
func be64(n int) []byte { return append([]byte{0, 0, 0, 0}, be32(n)...) }

// cdcFilesOf lists the CDC log files in the table whose name carries instant.
func cdcFilesOf(t *testing.T, dir, instant string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if l, ok := spec.ParseLogFileName(info.Name()); ok && l.CDC() && string(l.Instant) == instant {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Rolling back a completed commit, and restoring a savepoint before it, delete its CDC
// log files with its base files (a CDC log file is named after the instant that wrote it,
// which ListingBasedRollbackStrategy takes as the instant's own slice).
func TestCDCFilesRolledBackAndRestored(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"rollback", "restore"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			createCDCTable(t, ctx, dir, "cow", nil)
			first := writeRows(t, ctx, dir, "insert", []mrow{row("k1", "sf", 5, 1), row("k2", "sf", 5, 2)}, nil)
			if how == "restore" {
				tbl, _ := hudi.Open(ctx, dir)
				if _, err := tbl.Savepoint(ctx, hudi.SavepointCreate, first.Instant, hudi.SavepointOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			res := writeRows(t, ctx, dir, "upsert", []mrow{row("k1", "sf", 6, 10)}, nil)
			if len(cdcFilesOf(t, dir, res.Instant)) != 1 {
				t.Fatalf("the upsert wrote CDC files %v, want 1", cdcFilesOf(t, dir, res.Instant))
			}
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if how == "rollback" {
				_, err = tbl.Rollback(ctx, res.Instant, hudi.RollbackOptions{})
			} else {
				_, err = tbl.Savepoint(ctx, hudi.SavepointRestore, first.Instant, hudi.SavepointOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if left := cdcFilesOf(t, dir, res.Instant); len(left) > 0 {
				t.Errorf("CDC files of the undone commit remain: %v", left)
			}
		})
	}
}

// An update of many records read in several batches: each CDC record pairs the before and
// after image of its own key (the logger's keys are copied out of the batches, whose
// buffers are reused).
func TestCDCManyUpdates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	createCDCTable(t, ctx, dir, "cow", nil)
	var base, upd []mrow
	for i := range 20000 {
		base = append(base, row(fmt.Sprintf("key-%05d", i), "sf", 5, int64(i)))
		if i%3 == 0 {
			upd = append(upd, row(fmt.Sprintf("key-%05d", i), "sf", 6, int64(i)+1000000))
		}
	}
	writeRows(t, ctx, dir, "insert", base, nil)
	res := writeRows(t, ctx, dir, "upsert", upd, nil)
	files := readCDCFiles(t, dir, res.Instant, cdc.DataBeforeAfter)
	n := 0
	for _, f := range files {
		for _, r := range f.records {
			id, val, _ := strings.Cut(r.before, "=")
			if r.op != "u" || r.after != fmt.Sprintf("%s=%d", id, mustAtoi(t, val)+1000000) {
				t.Fatalf("CDC record %v: want an update of its own key", r)
			}
			n++
		}
	}
	if n != len(upd) {
		t.Errorf("%d CDC records, want %d", n, len(upd))
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	var v int64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
