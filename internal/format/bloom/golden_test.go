package bloom

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/testutil"
)

// footerFile is one Spark-written base file's bloom footer and its record keys in file order.
type footerFile struct {
	path       string
	serialized string
	typeCode   string
	keys       []string
}

// readFooterFiles returns every base file under a fixture table that carries a bloom filter.
func readFooterFiles(t *testing.T, table string) []footerFile {
	t.Helper()
	base := testutil.Table(t, table)
	var out []footerFile
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir // metadata table files are not base files
		}
		if d.IsDir() || !strings.HasSuffix(p, ".parquet") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parquet.OpenBytes(b, p, memory.DefaultAllocator, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		ser, tc, ok := f.BloomFilter()
		if !ok {
			return nil
		}
		leaf := f.LeafIndex("_hoodie_record_key")
		if leaf < 0 {
			t.Fatalf("%s: bloom filter but no _hoodie_record_key column", p)
		}
		var keys []string
		err = f.ReadBatches(context.Background(), []int{leaf}, nil, func(rec arrow.Record) error {
			keys = appendStrings(t, keys, rec.Column(0))
			return nil
		})
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		out = append(out, footerFile{path: table + "/" + rel, serialized: ser, typeCode: tc, keys: keys})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func appendStrings(t *testing.T, dst []string, col arrow.Array) []string {
	t.Helper()
	type valuer interface{ Value(int) string }
	switch c := col.(type) {
	case *array.String, *array.LargeString, *array.StringView:
		v := c.(valuer)
		for i := 0; i < col.Len(); i++ {
			dst = append(dst, v.Value(i))
		}
	case *array.Binary:
		for i := 0; i < col.Len(); i++ {
			dst = append(dst, string(c.Value(i)))
		}
	default:
		t.Fatalf("_hoodie_record_key has unexpected Arrow type %s", col.DataType())
	}
	return dst
}

// optionsFromFooter recovers what New needs to rebuild a footer: Hudi wrote all fixtures
// with the default numEntries/fpp, and DYNAMIC_V0 also serializes nr (= numEntries).
func optionsFromFooter(t *testing.T, ff footerFile) Options {
	t.Helper()
	o := Options{NumEntries: DefaultNumEntries, FPP: DefaultFPP, MaxEntries: DefaultMaxEntries}
	if canonicalType(ff.typeCode) == DynamicV0 {
		raw, err := base64.StdEncoding.DecodeString(ff.serialized)
		if err != nil || len(raw) < headerSize+4 {
			t.Fatalf("%s: footer not decodable: %v", ff.path, err)
		}
		o.NumEntries = int(int32(binary.BigEndian.Uint32(raw[headerSize:])))
	}
	return o
}

// TestGoldenSparkFooters checks, for every base file of the listed fixture tables, that
// the footer deserializes, holds every record key of the file, and that a filter rebuilt
// from those keys in file order serializes to the identical footer string.
func TestGoldenSparkFooters(t *testing.T) {
	tables := []string{
		"cow/v6_nonpartitioned",
		"cow/v6_simplekeygen_nonhivestyle",
		"cow/v6_simplekeygen_nonhivestyle_overwritetable",
		"cow/v8_complexkeygen_hivestyle",
		"cow/v8_nonpartitioned",
		"cow/v8_simplekeygen_nonhivestyle",
		"cow/v9_timebasedkeygen_epochmillis",
		"cow/v9_timebasedkeygen_nonhivestyle",
		"cow/v9_txns_complex_meta",
		"cow/v9_txns_simple_meta",
		"cow/v9_txns_simple_overwrite",
		"mor-avro/v9_txns_complex_meta",
		"mor-avro/v9_txns_nonpart_meta",
		"mor-parquet/v6_complexkeygen_hivestyle",
		"mor-parquet/v6_nonpartitioned",
		"mor-parquet/v6_nonpartitioned_rollback",
		"mor-parquet/v6_simplekeygen_nonhivestyle",
		"trips-mor-avro/v6_trips_8i1u",
		"trips-mor-avro/v8_trips_8i3u1d",
	}
	// Tables that must contribute at least one verified file, so a fixture change
	// cannot silently turn this into a no-op.
	required := map[string]bool{
		"cow/v6_nonpartitioned":                  true,
		"mor-parquet/v6_complexkeygen_hivestyle": true,
		"cow/v8_complexkeygen_hivestyle":         true,
		"trips-mor-avro/v8_trips_8i3u1d":         true,
		"cow/v9_txns_complex_meta":               true,
		"mor-avro/v9_txns_complex_meta":          true,
	}
	var files, keys, tailKeys, nonASCII int
	types := map[string]int{}
	for i, table := range tables {
		t.Run(table, func(t *testing.T) {
			testutil.RaceSample(t, i)
			ffs := readFooterFiles(t, table)
			if required[table] && len(ffs) == 0 {
				t.Fatalf("no base file with a bloom filter found")
			}
			for _, ff := range ffs {
				checkFooter(t, ff)
				files++
				types[ff.typeCode]++
				keys += len(ff.keys)
				for _, k := range ff.keys {
					if Hash([]byte(k), 0) != canonicalMurmur2([]byte(k), 0) {
						tailKeys++
					}
					if !isASCII(k) {
						nonASCII++
					}
				}
			}
		})
	}
	t.Logf("verified %d footers %v, %d keys (%d that C MurmurHash2 hashes differently, %d non-ASCII)", files, types, keys, tailKeys, nonASCII)
	// Under -race a sample of the tables runs, which need not hold such a key.
	if tailKeys == 0 && !testutil.Race {
		t.Errorf("no key exercises the Java tail-order quirk")
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func checkFooter(t *testing.T, ff footerFile) {
	t.Helper()
	f, err := Deserialize(ff.serialized, ff.typeCode)
	if err != nil {
		t.Errorf("%s: Deserialize: %v", ff.path, err)
		return
	}
	if want := canonicalType(ff.typeCode); ff.typeCode != "" && f.Type() != want {
		t.Errorf("%s: Type() = %s, footer type code %q", ff.path, f.Type(), ff.typeCode)
	}
	for _, k := range ff.keys {
		if !f.MightContain(k) {
			t.Errorf("%s: footer filter does not contain record key %q", ff.path, k)
		}
	}
	// Re-serializing what was read must reproduce the footer (no trailing bytes in Java output).
	if got := f.Serialize(); got != ff.serialized {
		t.Errorf("%s: Deserialize→Serialize differs from footer (len %d vs %d)", ff.path, len(got), len(ff.serialized))
	}
	typ := Simple
	if ff.typeCode != "" {
		typ = canonicalType(ff.typeCode)
	}
	nf, err := New(typ, optionsFromFooter(t, ff))
	if err != nil {
		t.Fatalf("%s: New: %v", ff.path, err)
	}
	for _, k := range ff.keys {
		nf.Add(k)
	}
	if got := nf.Serialize(); got != ff.serialized {
		t.Errorf("%s: filter rebuilt from %d keys differs from footer: %s", ff.path, len(ff.keys), firstDiff(got, ff.serialized))
	}
}

func firstDiff(got, want string) string {
	g, _ := base64.StdEncoding.DecodeString(got)
	w, _ := base64.StdEncoding.DecodeString(want)
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("first differing byte at offset %d (got %#02x, want %#02x)", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d bytes", len(g), len(w))
}
