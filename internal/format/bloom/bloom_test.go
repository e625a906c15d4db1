package bloom

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustNew(t testing.TB, typ Type, o Options) Filter {
	t.Helper()
	f, err := New(typ, o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func decoded(t testing.TB, f Filter) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(f.Serialize())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func be32(b []byte, off int) int32 { return int32(binary.BigEndian.Uint32(b[off:])) }

// Hudi's defaults give 2 587 966 bits and 30 hashes; a fresh DYNAMIC_V0 filter is the
// 323 534-byte / 431 380-char value observed in real footers (§5.4).
func TestDefaultSizingAndLayout(t *testing.T) {
	d := decoded(t, mustNew(t, DynamicV0, Options{}))
	if len(d) != 323534 {
		t.Errorf("dynamic default is %d bytes, want 323534", len(d))
	}
	want := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x1e, 1, 0x00, 0x27, 0x7d, 0x3e, 0, 0, 0xea, 0x60, 0, 0, 0, 0, 0, 0, 0, 1,
		0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x1e, 1, 0x00, 0x27, 0x7d, 0x3e}
	if got := d[:len(want)]; string(got) != string(want) {
		t.Errorf("dynamic header = % x\nwant            % x", got, want)
	}
	if n := len(mustNew(t, DynamicV0, Options{}).Serialize()); n != 431380 {
		t.Errorf("dynamic default base64 length %d, want 431380", n)
	}
	s := decoded(t, mustNew(t, Simple, Options{}))
	if len(s) != 13+323496 || string(s[:13]) != string(want[:13]) {
		t.Errorf("simple default: %d bytes, header % x", len(s), s[:13])
	}
}

// Bits are LSB-first within each byte, vector bytes follow the 13-byte header.
func TestBitLayout(t *testing.T) {
	f := mustNew(t, Simple, Options{NumEntries: 100, FPP: 0.01})
	f.Add("key")
	v := f.(*simpleFilter).v
	h := int32(0)
	d := decoded(t, f)
	for i := int32(0); i < v.nbHash; i++ {
		h = Hash([]byte("key"), h)
		p := position(h, v.size)
		if d[headerSize+int(p/8)]&(1<<(p%8)) == 0 {
			t.Errorf("bit %d (hash %d) not set at byte %d mask %#x", p, h, p/8, 1<<(p%8))
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		o    Options
		want string
	}{
		{Simple, Options{NumEntries: -1}, "NumEntries -1"},
		{Simple, Options{FPP: 1}, "FPP 1"},
		{Simple, Options{FPP: -0.5}, "FPP -0.5"},
		{Simple, Options{NumEntries: 1 << 30}, "more than the int32"},
		{DynamicV0, Options{MaxEntries: -3}, "MaxEntries -3"},
		{"BLOOM", Options{}, `unknown filter type "BLOOM"`},
	} {
		if _, err := New(c.typ, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%s, %+v) err = %v, want mention of %q", c.typ, c.o, err, c.want)
		}
	}
	if f, err := New("dynamic_v0", Options{}); err != nil || f.Type() != DynamicV0 {
		t.Errorf("type codes are case-insensitive like Java's equalsIgnoreCase: %v", err)
	}
}

// With nr=10 and maxNr=30, keys 0-29 fill three rows; key 30 finds the bound reached and
// goes to row 0 WITHOUT advancing the round-robin index (Java's getActiveStandardBF
// returns matrix[0] directly), so key 31 also goes to row 0, then rows 1, 2, 0, ...
func TestDynamicGrowthAndRoundRobin(t *testing.T) {
	o := Options{NumEntries: 10, FPP: 0.001, MaxEntries: 30}
	f := mustNew(t, DynamicV0, o)
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%03d", i)
		f.Add(keys[i])
		if want := min(i/10+1, 3); len(f.(*dynamicFilter).rows) != want {
			t.Fatalf("after %d keys: %d rows, want %d", i+1, len(f.(*dynamicFilter).rows), want)
		}
	}
	d := f.(*dynamicFilter)
	// Rebuild each row independently from the expected schedule.
	rowOf := func(i int) int {
		switch {
		case i < 30:
			return i / 10
		case i == 30:
			return 0
		default:
			return (i - 31) % 3
		}
	}
	for r := 0; r < 3; r++ {
		want := newVector(d.k, hashMurmur, d.size)
		for i, k := range keys {
			if rowOf(i) == r {
				want.add(k)
			}
		}
		if string(want.bits) != string(d.rows[r].bits) {
			t.Errorf("row %d bits differ from the Java schedule", r)
		}
	}
	b := decoded(t, f)
	if nr, cur, rows := be32(b, 13), be32(b, 17), be32(b, 21); nr != 10 || cur != 80 || rows != 3 {
		t.Errorf("nr=%d currentNbRecord=%d rows=%d, want 10, 80 (keeps counting past the bound), 3", nr, cur, rows)
	}
	for _, k := range keys {
		if !f.MightContain(k) {
			t.Errorf("added key %q not contained", k)
		}
	}

	ser := f.Serialize()
	g, err := Deserialize(ser, "DYNAMIC_V0")
	if err != nil {
		t.Fatal(err)
	}
	if g.Serialize() != ser {
		t.Errorf("serialize→deserialize→serialize not identical")
	}
	for _, k := range keys {
		if !g.MightContain(k) {
			t.Errorf("deserialized filter lost key %q", k)
		}
	}
	// A deserialized filter has maxNr 0 (not serialized), so it never grows: the next key
	// goes straight to row 0 of the 3.
	g.Add("after")
	if gd := g.(*dynamicFilter); len(gd.rows) != 3 || !gd.b.testPending(gd.rows[0], "after") {
		t.Errorf("deserialized filter grew to %d rows or did not add to row 0", len(gd.rows))
	}
}

// A filter below its bound keeps filling the last row; maxNr smaller than nr means one row.
func TestDynamicBoundBelowRow(t *testing.T) {
	f := mustNew(t, DynamicV0, Options{NumEntries: 10, FPP: 0.01, MaxEntries: 5})
	for i := 0; i < 50; i++ {
		f.Add(fmt.Sprint(i))
	}
	if n := len(f.(*dynamicFilter).rows); n != 1 {
		t.Errorf("rows = %d, want 1", n)
	}
}

func TestFalsePositiveRate(t *testing.T) {
	const n, probes = 10000, 100000
	for _, typ := range []Type{Simple, DynamicV0} {
		for _, fpp := range []float64{0.01, 0.001} {
			f := mustNew(t, typ, Options{NumEntries: n, FPP: fpp, MaxEntries: n})
			rng := rand.New(rand.NewPCG(1, uint64(fpp*1e6)))
			for i := 0; i < n; i++ {
				f.Add(fmt.Sprintf("present-%016x", rng.Uint64()))
			}
			fp := 0
			for i := 0; i < probes; i++ {
				if f.MightContain(fmt.Sprintf("absent-%016x", rng.Uint64())) {
					fp++
				}
			}
			rate := float64(fp) / probes
			t.Logf("%s fpp=%v: observed %.5f", typ, fpp, rate)
			if rate > 5*fpp {
				t.Errorf("%s fpp=%v: false-positive rate %.5f exceeds 5×", typ, fpp, rate)
			}
		}
	}
}

func TestSimpleRoundTripAndEmptyKey(t *testing.T) {
	f := mustNew(t, Simple, Options{NumEntries: 50, FPP: 0.01})
	for _, k := range []string{"a", "日本語", "id:1,name:Alice", "\xff\x80"} {
		f.Add(k)
	}
	f.Add("") // Java throws on empty keys; ignoring them keeps the bits Java-identical
	before := f.Serialize()
	g, err := Deserialize(before, "")
	if err != nil {
		t.Fatal(err)
	}
	if g.Type() != Simple || g.Serialize() != before {
		t.Errorf("round trip changed the filter")
	}
	for _, k := range []string{"a", "日本語", "id:1,name:Alice", "\xff\x80", ""} {
		if !g.MightContain(k) {
			t.Errorf("MightContain(%q) = false", k)
		}
	}
	// Java's decoder accepts missing padding.
	if _, err := Deserialize(strings.TrimRight(before, "="), "SIMPLE"); err != nil {
		t.Errorf("unpadded base64 rejected: %v", err)
	}
}

func TestDeserializeLenient(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	// Bits beyond vectorSize in the last byte are dropped, as Java's BitSet read does.
	f, err := Deserialize(enc(append(filterHeader(2, 1, 3), 0xff)), "")
	if err != nil {
		t.Fatal(err)
	}
	if d := decoded(t, f); d[13] != 0x07 {
		t.Errorf("stray high bits kept: %#x", d[13])
	}
	// Trailing bytes are ignored and not re-emitted.
	f, err = Deserialize(enc(append(filterHeader(2, 1, 8), 0x01, 0xde, 0xad)), "simple")
	if err != nil {
		t.Fatal(err)
	}
	if d := decoded(t, f); len(d) != 14 {
		t.Errorf("trailing bytes re-emitted: %d bytes", len(d))
	}
	// Legacy unversioned header: first int is nbHash, hashing is Jenkins, no hash-type byte.
	legacy := newVector(3, hashJenkins, 64)
	legacy.add("legacy-key")
	raw := append(appendInt32(appendInt32(nil, 3), 64), legacy.bits...)
	f, err = Deserialize(enc(raw), "")
	if err != nil {
		t.Fatal(err)
	}
	if !f.MightContain("legacy-key") {
		t.Errorf("legacy Jenkins filter does not contain its key")
	}
	// Java re-writes a legacy filter in the versioned format with hashType 0.
	if d := decoded(t, f); string(d[:13]) != string(filterHeader(3, 0, 64)) {
		t.Errorf("legacy re-serialized header % x", d[:13])
	}
}

func TestDeserializeErrors(t *testing.T) {
	for _, c := range malformedFilters() {
		_, err := Deserialize(c.in, c.typ)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Deserialize(%.40q, %q) err = %v, want mention of %q", c.in, c.typ, err, c.want)
		}
	}
	row := append(filterHeader(30, 1, 16), 0, 0)
	if _, err := Deserialize(base64.StdEncoding.EncodeToString(dynamicFilterBytes(2, row, row)), "DYNAMIC_V0"); err != nil {
		t.Errorf("valid two-row filter rejected: %v", err)
	}
}

// filterHeader is a serialized InternalBloomFilter header (versioned).
func filterHeader(k int32, ht byte, size int32) []byte {
	b := appendInt32(nil, version)
	b = appendInt32(b, k)
	b = append(b, ht)
	return appendInt32(b, size)
}

// dynamicFilterBytes is a DYNAMIC_V0 filter with the given row count and rows.
func dynamicFilterBytes(rows int32, body ...[]byte) []byte {
	b := filterHeader(30, 1, 16)
	b = appendInt32(b, 10)
	b = appendInt32(b, 0)
	b = appendInt32(b, rows)
	for _, x := range body {
		b = append(b, x...)
	}
	return b
}

// malformedFilters are footer values Deserialize and NewProbe must refuse, with what the
// error must mention.
func malformedFilters() []struct{ in, typ, want string } {
	enc := base64.StdEncoding.EncodeToString
	hdr, dyn := filterHeader, dynamicFilterBytes
	row := append(hdr(30, 1, 16), 0, 0)
	return []struct{ in, typ, want string }{
		{"", "", "version (4 bytes) at offset 0"},
		{"!!!!", "", "invalid base64"},
		{"AAAAA", "", "invalid base64"},
		{"AAAA", "BLOOM", `unknown filter type code "BLOOM"`},
		{enc(appendInt32(nil, -2)), "", "unsupported version -2"},
		{enc(hdr(0, 1, 8)), "", "nbHash 0 out of range"},
		{enc(hdr(1<<20, 1, 8)), "", "nbHash 1048576 out of range"},
		{enc(hdr(3, 7, 8)), "", "unknown hashType 7"},
		{enc(hdr(3, 0xff, 8)), "", "unknown hashType -1"},
		{enc(hdr(3, 1, 0)), "", "vectorSize 0"},
		{enc(hdr(3, 1, -5)), "", "vectorSize -5"},
		{enc(hdr(3, 1, 1<<30)), "", "bit vector of 1073741824 bits (134217728 bytes) at offset 13, only 0 bytes left"},
		{enc(hdr(3, 1, 64)[:9]), "", "vectorSize (4 bytes) at offset 9"},
		{enc(dyn(0)), "DYNAMIC_V0", "row count 0 at offset 21"},
		{enc(dyn(-1)), "DYNAMIC_V0", "row count -1"},
		{enc(dyn(1 << 30)), "DYNAMIC_V0", "row count 1073741824 at offset 21 cannot fit in the remaining 0 bytes"},
		{enc(dyn(2, row, row[:5])), "DYNAMIC_V0", "row 1 nbHash (4 bytes) at offset 44"},
		{enc(hdr(3, 1, 16)[:15]), "DYNAMIC_V0", "nr (keys per row) (4 bytes) at offset 13"},
	}
}

func FuzzDeserialize(f *testing.F) {
	for _, typ := range []Type{Simple, DynamicV0} {
		flt, _ := New(typ, Options{NumEntries: 3, FPP: 0.1, MaxEntries: 6})
		for i := 0; i < 8; i++ {
			flt.Add(fmt.Sprint(i))
		}
		f.Add(flt.Serialize(), string(typ))
	}
	f.Add(base64.StdEncoding.EncodeToString([]byte{0, 0, 0, 2, 0, 0, 0, 9, 0xff, 0x01}), "")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, s, typeCode string) {
		flt, err := Deserialize(s, typeCode)
		if err != nil {
			if flt != nil {
				t.Fatal("filter returned with an error")
			}
			return
		}
		flt.MightContain("probe")
		flt.Add("added")
		if !flt.MightContain("added") {
			t.Fatal("added key not contained")
		}
		out := flt.Serialize()
		// Allocation stays proportional to the input: a row's 8-byte legacy header grows
		// to 13 bytes on re-serialization, nothing else can grow.
		if len(out) > 2*len(s)+64 {
			t.Fatalf("re-serialized %d chars from %d input chars", len(out), len(s))
		}
		again, err := Deserialize(out, string(flt.Type()))
		if err != nil {
			t.Fatalf("re-serialized filter does not parse: %v", err)
		}
		if again.Serialize() != out {
			t.Fatal("second round trip differs")
		}
	})
}

func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%08x-6fd2-4b7a-a9d6-5ff632f79224", i) // 36-byte UUID-shaped keys
	}
	return keys
}

func benchFilters(b *testing.B) map[string]Options {
	b.Helper()
	return map[string]Options{
		"SIMPLE/1M@1e-9":     {NumEntries: 1_000_000, FPP: 1e-9},
		"DYNAMIC_V0/default": {},
	}
}

func BenchmarkAdd(b *testing.B) {
	keys := benchKeys(1_000_000)
	for name, o := range benchFilters(b) {
		typ := Type(strings.Split(name, "/")[0])
		b.Run(name, func(b *testing.B) {
			f := mustNew(b, typ, o)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f.Add(keys[i%len(keys)])
			}
		})
	}
}

func BenchmarkMightContain(b *testing.B) {
	keys := benchKeys(1_000_000)
	for name, o := range benchFilters(b) {
		typ := Type(strings.Split(name, "/")[0])
		b.Run(name, func(b *testing.B) {
			f := mustNew(b, typ, o)
			for _, k := range keys {
				f.Add(k)
			}
			absent := make([]string, len(keys))
			for i, k := range keys {
				absent[i] = "x" + k[1:]
			}
			b.ReportAllocs()
			b.ResetTimer()
			hits := 0
			for i := 0; i < b.N; i++ {
				// Alternate members and non-members: members hash all k times, most
				// non-members stop at the first clear bit.
				k := keys[i%len(keys)]
				if i&1 == 1 {
					k = absent[i%len(keys)]
				}
				if f.MightContain(k) {
					hits++
				}
			}
			_ = hits
		})
	}
}
