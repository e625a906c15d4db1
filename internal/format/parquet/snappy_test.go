package parquet

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/snappy"
)

// Pages are compressed with the reference Snappy level (s2.EncodeSnappy), not arrow-go's
// default "better" encoder, and stay plain Snappy that any Snappy decoder reads.
func TestSnappyCodecIsReferenceLevel(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Snappy)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{
		nil,
		[]byte("a"),
		bytes.Repeat([]byte("hoodie-record-key-000123,"), 5000),
		[]byte("20250101000000000_0_1" + string(make([]byte, 70000))),
	} {
		got := codec.Encode(nil, data)
		if want := s2.EncodeSnappy(nil, data); !bytes.Equal(got, want) {
			t.Fatalf("snappy page of %d bytes: %d bytes encoded, want s2.EncodeSnappy's %d", len(data), len(got), len(want))
		}
		if lvl := codec.EncodeLevel(nil, data, 0); !bytes.Equal(lvl, got) {
			t.Fatalf("EncodeLevel differs from Encode for %d bytes", len(data))
		}
		back, err := snappy.Decode(nil, got)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("reference snappy decode of %d bytes: %v (equal %v)", len(data), err, bytes.Equal(back, data))
		}
		back, err = codec.(interface {
			DecodeWithError(dst, src []byte) ([]byte, error)
		}).DecodeWithError(nil, got)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("codec decode of %d bytes: %v", len(data), err)
		}
	}
	// A corrupt page is an error, not a panic.
	if _, err := compress.Decode(codec, nil, []byte{0xff, 0xff, 0xff, 0x01, 0x00}); err == nil {
		t.Fatal("decoding a corrupt snappy page succeeded")
	}
	if _, ok := codec.(compress.ErrorCodec); !ok {
		t.Fatal("the snappy codec lost DecodeWithError: corrupt pages would be caught only by recover")
	}
}
