package hfile

import (
	"archive/zip"
	"bytes"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/testutil"
)

// fixtureHFile is one Spark-written HFile: a metadata-table base file or the content of an
// HFILE_DATA_BLOCK of a metadata-table log file.
type fixtureHFile struct {
	table string // fixture id
	name  string // path in the zip (plus "#<block offset>" for log blocks)
	log   bool
	data  []byte
}

var (
	fixtureOnce  sync.Once
	fixtureFiles []fixtureHFile
	fixtureErr   error
)

// fixtureHFiles reads every HFile of the fixtures' metadata tables straight from the zips:
// the base files under .hoodie/metadata/<partition>/ and the HFile blocks of the log files
// there.
func fixtureHFiles(t testing.TB) []fixtureHFile {
	t.Helper()
	ids := testutil.TableIDs(t)
	dir := testutil.FixturesDir(t)
	fixtureOnce.Do(func() {
		for _, id := range ids {
			files, err := zipMetadataHFiles(filepath.Join(dir, "tables", id+".zip"), id)
			if err != nil {
				fixtureErr = err
				return
			}
			fixtureFiles = append(fixtureFiles, files...)
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureFiles
}

func zipMetadataHFiles(zipPath, id string) ([]fixtureHFile, error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var out []fixtureHFile
	for _, f := range zr.File {
		name := f.Name
		if strings.HasPrefix(name, "__MACOSX/") {
			continue
		}
		// <table>/.hoodie/metadata/<partition>/<file>: not the metadata table's own .hoodie.
		parts := strings.Split(name, "/")
		if len(parts) != 5 || parts[1] != ".hoodie" || parts[2] != "metadata" || strings.HasPrefix(parts[3], ".") {
			continue
		}
		base := parts[4]
		isBase := strings.HasSuffix(base, ".hfile")
		isLog := strings.Contains(base, ".log.")
		if !isBase && !isLog {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if isBase {
			out = append(out, fixtureHFile{table: id, name: name, data: data})
			continue
		}
		blocks, err := logfile.ReadAll(bytes.NewReader(data), int64(len(data)), name)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if b.Type == logfile.HFileDataBlock {
				out = append(out, fixtureHFile{table: id, name: name + "#" + itoa64(b.Offset), log: true, data: b.Content})
			}
		}
	}
	return out, nil
}

func itoa64(v int64) string { return string(appendInt(nil, v)) }

func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// TestFixtureHFiles reads every HFile the Spark-written metadata tables hold — base files
// and log blocks, from both HBase's writer (Hudi 1.0, v8) and hudi-io's (Hudi 1.1, v9) —
// through every access path, and checks them against each other.
func TestFixtureHFiles(t *testing.T) {
	files := fixtureHFiles(t)
	var bases, blocks, entries int
	tables := map[string]bool{}
	for _, f := range files {
		tables[f.table] = true
		if f.log {
			blocks++
		} else {
			bases++
		}
		entries += checkHFile(t, f.name, f.data, f.log)
	}
	t.Logf("read %d HFile base files and %d HFile log blocks (%d key/values) from %d fixture tables", bases, blocks, entries, len(tables))
	// The fixtures hold 183 base files and 508 HFile log blocks in 14 tables (issue 21 said
	// ">240" and ">700", counting differently); a drop means files went unread.
	if bases < 183 || blocks < 508 || len(tables) < 14 {
		t.Errorf("read %d base files, %d log blocks from %d tables; want at least 183, 508, 14", bases, blocks, len(tables))
	}
}

// checkHFile reads one file every way the Reader offers and returns its entry count.
func checkHFile(t *testing.T, name string, data []byte, log bool) int {
	t.Helper()
	r, err := OpenBytes(data, name)
	if err != nil {
		t.Errorf("open: %v", err)
		return 0
	}
	tr := r.Trailer()
	if tr.ComparatorClassName != "org.apache.hudi.io.storage.HoodieHBaseKVComparator" || tr.Codec != CodecGZ || tr.NumDataIndexLevels != 1 {
		t.Errorf("%s: trailer %+v", name, tr)
	}
	// Every block of the file verifies (checksums, sizes, decompression).
	layout, err := r.Blocks()
	if err != nil {
		t.Errorf("%s: layout: %v", name, err)
		return 0
	}
	for _, b := range layout {
		if b.Type == MetaBlock {
			continue // read through MetaBlock below
		}
		if _, err := r.ReadBlockPayload(b.Offset, b.Type); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Base files carry Hudi's bloom filter in a meta block (HoodieAvroHFileWriter); the
	// HFiles of log blocks have none (HoodieHFileDataBlock).
	if bloom, ok, err := r.MetaBlock("bloomFilter"); err != nil || ok != !log || (ok && len(bloom) == 0) {
		t.Errorf("%s: bloomFilter meta block: %v %v", name, ok, err)
	}
	if _, ok := r.FileInfo().Get("schema"); !ok {
		t.Errorf("%s: no schema in the file info", name)
	}
	type kv struct{ k, v string }
	var all []kv
	it := r.All()
	for it.Next() {
		all = append(all, kv{string(it.Key()), string(it.Value())})
	}
	if err := it.Err(); err != nil {
		t.Errorf("%s: scan: %v", name, err)
		return 0
	}
	if int64(len(all)) != r.EntryCount() {
		t.Errorf("%s: scanned %d key/values, trailer says %d", name, len(all), r.EntryCount())
	}
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].k < all[j].k }) {
		t.Errorf("%s: keys not sorted", name)
	}
	if len(all) > 0 {
		last, ok := r.LastKey()
		if !ok || string(last) != all[len(all)-1].k {
			t.Errorf("%s: LASTKEY %q, last scanned key %q", name, last, all[len(all)-1].k)
		}
	}
	for _, e := range all {
		v, ok, err := r.Get([]byte(e.k))
		if err != nil || !ok || string(v) != e.v {
			t.Errorf("%s: Get(%q) = %d bytes, %v, %v", name, e.k, len(v), ok, err)
		}
		// A key just after this one (not in the file unless it is the next key) is absent.
		if _, ok, err := r.Get([]byte(e.k + "\x00")); err != nil || ok {
			t.Errorf("%s: Get(%q+NUL) = %v, %v", name, e.k, ok, err)
		}
	}
	if _, ok, err := r.Get([]byte("")); ok || err != nil {
		t.Errorf("%s: Get(\"\") = %v, %v", name, ok, err)
	}
	// Prefix scans agree with filtering the full scan, for a prefix of each key.
	for _, e := range all {
		for _, n := range []int{1, len(e.k) / 2, len(e.k)} {
			prefix := e.k[:n]
			var want, got []string
			for _, x := range all {
				if strings.HasPrefix(x.k, prefix) {
					want = append(want, x.k)
				}
			}
			pi := r.ScanPrefix([]byte(prefix))
			for pi.Next() {
				got = append(got, string(pi.Key()))
			}
			if pi.Err() != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: ScanPrefix(%q) = %q, %v; want %q", name, prefix, got, pi.Err(), want)
			}
		}
		break // one key's prefixes per file keeps the test fast; the range test covers more
	}
	// Range scans over [k_i, k_j) return exactly the keys between.
	if len(all) >= 2 {
		i, j := len(all)/3, 2*len(all)/3+1
		sc := r.Scan([]byte(all[i].k), []byte(all[j-1].k+"\x00"))
		var got []string
		for sc.Next() {
			got = append(got, string(sc.Key()))
		}
		if sc.Err() != nil || len(got) != j-i || got[0] != all[i].k {
			t.Errorf("%s: Scan(%d..%d) = %d keys, %v", name, i, j, len(got), sc.Err())
		}
	}
	return len(all)
}
