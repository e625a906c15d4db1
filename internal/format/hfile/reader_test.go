package hfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVLong(t *testing.T) {
	// Hadoop WritableUtils.writeVLong encodings.
	tests := []struct {
		v    int64
		want string
	}{
		{0, "00"}, {1, "01"}, {127, "7f"}, {-112, "90"}, {128, "8f80"}, {255, "8fff"},
		{256, "8e0100"}, {-113, "8770"}, {-256, "87ff"}, {-257, "860100"},
		{1 << 40, "8a010000000000"}, {-1 << 63, "807fffffffffffffff"},
	}
	for _, tt := range tests {
		got := appendVLong(nil, tt.v)
		if hexs(got) != tt.want {
			t.Errorf("appendVLong(%d) = %s, want %s", tt.v, hexs(got), tt.want)
		}
		v, n, err := readVLong(append(got, 0xaa))
		if err != nil || v != tt.v || n != len(got) {
			t.Errorf("readVLong(%s) = %d, %d, %v", tt.want, v, n, err)
		}
		if _, _, err := readVLong(got[:len(got)-1]); len(got) > 1 && err == nil {
			t.Errorf("readVLong(truncated %s) succeeded", tt.want)
		}
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	for _, c := range b {
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}

// TestGoldenFiles pins what each kind of Spark-written HFile holds.
func TestGoldenFiles(t *testing.T) {
	tests := []struct {
		file       string
		minor      int
		present    uint32
		checksum   ChecksumType
		layout     []BlockType
		entries    int64
		keys       []string
		bloom      bool
		createTime string // hfile.CREATE_TIME_TS, hex
	}{
		{"v8_files_base.hfile", 3, HBaseTrailerFields, ChecksumCRC32C,
			[]BlockType{DataBlock, MetaBlock, RootIndexBlock, RootIndexBlock, FileInfoBlock}, 4,
			[]string{"__all_partitions__", "city=chennai", "city=san_francisco", "city=sao_paulo"}, true, "0000000000000000"},
		{"v8_empty_base.hfile", 3, HBaseTrailerFields, ChecksumCRC32C,
			[]BlockType{MetaBlock, RootIndexBlock, RootIndexBlock, FileInfoBlock}, 0, nil, true, "0000000000000000"},
		{"v8_files_logblock.hfile", 3, HBaseTrailerFields, ChecksumCRC32C,
			[]BlockType{DataBlock, RootIndexBlock, RootIndexBlock, FileInfoBlock}, 2,
			[]string{"__all_partitions__", "city=sao_paulo"}, false, "0000000000000000"},
		{"v9_files_base.hfile", 0, HBaseTrailerFields &^ (1 << tfTotalUncompressedBytes), ChecksumNull,
			[]BlockType{DataBlock, MetaBlock, RootIndexBlock, RootIndexBlock, FileInfoBlock}, 4,
			[]string{"__all_partitions__", "region=apac", "region=eu", "region=us"}, true, ""},
		{"v9_files_logblock.hfile", 0, HBaseTrailerFields &^ (1 << tfTotalUncompressedBytes), ChecksumNull,
			[]BlockType{DataBlock, RootIndexBlock, RootIndexBlock, FileInfoBlock}, 3,
			[]string{"__all_partitions__", "region=eu", "region=us"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := OpenBytes(readTestdata(t, tt.file), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			tr := r.Trailer()
			if tr.MajorVersion != 3 || tr.MinorVersion != tt.minor || tr.Present != tt.present || tr.Codec != CodecGZ ||
				tr.EntryCount != tt.entries || tr.ComparatorClassName != "org.apache.hudi.io.storage.HoodieHBaseKVComparator" {
				t.Errorf("trailer %+v", tr)
			}
			blocks, err := r.Blocks()
			if err != nil {
				t.Fatal(err)
			}
			var types []BlockType
			for _, b := range blocks {
				types = append(types, b.Type)
				if b.ChecksumType != tt.checksum || b.BytesPerChecksum != DefaultBytesPerChecksum {
					t.Errorf("block at %d: checksum %v/%d", b.Offset, b.ChecksumType, b.BytesPerChecksum)
				}
			}
			if !equalTypes(types, tt.layout) {
				t.Errorf("layout %v, want %v", types, tt.layout)
			}
			var keys []string
			for it := r.All(); it.Next(); {
				keys = append(keys, string(it.Key()))
			}
			if strings.Join(keys, ",") != strings.Join(tt.keys, ",") {
				t.Errorf("keys %q, want %q", keys, tt.keys)
			}
			if _, ok, _ := r.MetaBlock("bloomFilter"); ok != tt.bloom {
				t.Errorf("bloom filter meta block present = %v", ok)
			}
			ct, ok := r.FileInfo().Get(InfoCreateTimeTS)
			if tt.createTime != "" && (!ok || hexs(ct) != tt.createTime) {
				t.Errorf("%s = %x", InfoCreateTimeTS, ct)
			}
			if v, ok := r.FileInfo().Get("schema"); !ok || !bytes.Contains(v, []byte(`"name":"HoodieMetadataRecord"`)) {
				t.Errorf("schema file info missing")
			}
		})
	}
}

func equalTypes(a, b []BlockType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTrailerRoundTrip re-encodes the trailers of Java-written files byte for byte.
func TestTrailerRoundTrip(t *testing.T) {
	for _, name := range []string{"v8_files_base.hfile", "v8_empty_base.hfile", "v9_files_base.hfile", "v9_files_logblock.hfile"} {
		data := readTestdata(t, name)
		tb := data[len(data)-TrailerSize:]
		tr, err := parseTrailer(name, tb, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, tb) {
			t.Errorf("%s: re-encoded trailer differs", name)
		}
	}
}

// withTrailer returns data with its trailer replaced by the result of edit.
func withTrailer(t *testing.T, data []byte, edit func(*Trailer)) []byte {
	t.Helper()
	tr, err := parseTrailer("x", data[len(data)-TrailerSize:], 0)
	if err != nil {
		t.Fatal(err)
	}
	edit(&tr)
	tb, err := tr.encode()
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte(nil), data[:len(data)-TrailerSize]...), tb...)
}

// TestCorruptFiles checks that damaged files fail with an error naming the offset of the
// damaged structure, and that unsupported features are refused by name.
func TestCorruptFiles(t *testing.T) {
	base := readTestdata(t, "v8_files_base.hfile")
	r, err := OpenBytes(base, "x")
	if err != nil {
		t.Fatal(err)
	}
	dataOff := r.DataIndex()[0].Offset
	loo := r.Trailer().LoadOnOpenOffset
	flip := func(off int) []byte {
		b := append([]byte(nil), base...)
		b[off] ^= 0x40
		return b
	}
	tests := []struct {
		name        string
		data        []byte
		scan        bool // the damage shows when the data block is read
		offset      int64
		msg         string
		unsupported bool
	}{
		{"payload byte", flip(int(dataOff) + HeaderSize + 5), true, dataOff, "CRC32C checksum mismatch", false},
		{"checksum byte", flip(int(dataOff) + int(r.DataIndex()[0].Size) - 1), true, dataOff, "checksum mismatch", false},
		{"data magic", flip(int(dataOff)), true, dataOff, "invalid block magic", false},
		{"root index magic", flip(int(loo)), false, loo, "invalid block magic", false},
		{"trailer magic", flip(len(base) - TrailerSize), false, int64(len(base) - TrailerSize), "trailer: magic", false},
		{"major version", flip(len(base) - 1), false, int64(len(base) - 4), "major version", false},
		{"too short", base[:100], false, 0, "shorter than the 4096-byte trailer", false},
		{"load-on-open past end", withTrailer(t, base, func(tr *Trailer) { tr.LoadOnOpenOffset = 1 << 40 }), false, int64(len(base) - TrailerSize), "load-on-open offset", false},
		{"snappy", withTrailer(t, base, func(tr *Trailer) { tr.Codec = CodecSnappy }), false, -1, "compression SNAPPY", true},
		{"zstd", withTrailer(t, base, func(tr *Trailer) { tr.Codec = CodecZSTD }), false, -1, "compression ZSTD", true},
		{"codec none on gzip data", withTrailer(t, base, func(tr *Trailer) { tr.Codec = CodecNone }), false, loo, "uncompressed block holds", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := OpenBytes(tt.data, "f.hfile")
			if err == nil && tt.scan {
				it := r.All()
				for it.Next() {
				}
				err = it.Err()
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "f.hfile") {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			if tt.unsupported != errors.Is(err, ErrUnsupported) {
				t.Errorf("errors.Is(%v, ErrUnsupported) = %v", err, !tt.unsupported)
			}
			var fe *FormatError
			if tt.offset >= 0 && (!errors.As(err, &fe) || fe.Offset != tt.offset) {
				t.Errorf("error %v: want a FormatError at offset %d", err, tt.offset)
			}
		})
	}
}

// TestIndexBounds: a data index deeper than HBase ever writes, or whose entries do not
// point at blocks in increasing order, is refused before it is walked (a corrupt index could
// otherwise point back at itself).
func TestIndexBounds(t *testing.T) {
	base := readTestdata(t, "v8_files_base.hfile")
	if _, err := OpenBytes(withTrailer(t, base, func(tr *Trailer) { tr.NumDataIndexLevels = 17 }), "f"); err == nil || !strings.Contains(err.Error(), "levels (at most 16)") {
		t.Errorf("17 levels: %v", err)
	}
	// An uncompressed file without checksums whose second root entry is made to point at
	// the first block.
	data := writeKeys(t, WriterOptions{BlockSize: 64, Codec: CodecNone, NullChecksum: true}, 20, func(int) []byte { return []byte("v") })
	r, err := OpenBytes(data, "f")
	if err != nil {
		t.Fatal(err)
	}
	loo := r.Trailer().LoadOnOpenOffset
	first := r.RootIndex()[0]
	pos := int(loo) + HeaderSize + 12 + 1 + len(first.Key) // the second entry's offset field
	bad := append([]byte(nil), data...)
	binary.BigEndian.PutUint64(bad[pos:], uint64(first.Offset))
	_, err = OpenBytes(bad, "f")
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "does not follow entry 0") {
		t.Errorf("repeated offset: %v", err)
	}
}

// TestMVCCAndTagsRefused: hudi-io's HFileInfo refuses files with MVCC timestamps, and it
// cannot parse cell tags; such files are refused by name rather than misread.
func TestMVCCAndTagsRefused(t *testing.T) {
	base := readTestdata(t, "v8_files_base.hfile")
	r, err := OpenBytes(base, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ key, msg string }{{InfoMaxMemstoreTS, "MVCC"}, {InfoMaxTagsLen, "tags"}} {
		r.info = FileInfo{}
		for i, k := range []string{InfoKeyValueVer, InfoMaxMemstoreTS} {
			r.info.Keys = append(r.info.Keys, k)
			r.info.Values = append(r.info.Values, [][]byte{{0, 0, 0, 1}, make([]byte, 8)}[i])
		}
		if tt.key == InfoMaxMemstoreTS {
			binary.BigEndian.PutUint64(r.info.Values[1], 7)
		} else {
			r.info.Keys = append(r.info.Keys, InfoMaxTagsLen)
			r.info.Values = append(r.info.Values, []byte{0, 0, 0, 0})
		}
		if err := r.checkFileInfo(); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v", tt.key, err)
		}
	}
}

func TestParseCodec(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Codec
		ok   bool
	}{{"GZ", CodecGZ, true}, {"gz", CodecGZ, true}, {"NONE", CodecNone, true}, {"snappy", CodecSnappy, true}, {"zip", 0, false}} {
		c, err := ParseCodec(tt.in)
		if (err == nil) != tt.ok || (tt.ok && c != tt.want) {
			t.Errorf("ParseCodec(%q) = %v, %v", tt.in, c, err)
		}
	}
}
