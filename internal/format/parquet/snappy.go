package parquet

import (
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/s2"
)

// snappyCodec is arrow-go's snappy codec with the reference Snappy encoder's level:
// arrow-go encodes with klauspost's snappy.Encode, which is s2.EncodeSnappyBetter, about
// half the speed for a few percent smaller pages. parquet-mr (Hudi's writer) compresses
// with xerial snappy-java, the reference C++ Snappy, whose speed and ratio s2.EncodeSnappy
// matches. Either output is valid Snappy; decoding is unchanged.
type snappyCodec struct{ compress.ErrorCodec }

func (snappyCodec) Encode(dst, src []byte) []byte { return s2.EncodeSnappy(dst, src) }

func (snappyCodec) EncodeLevel(dst, src []byte, _ int) []byte { return s2.EncodeSnappy(dst, src) }

func init() {
	// arrow-go keeps codecs in a process-wide registry; this replaces only the encoder.
	// Decoding stays arrow-go's, including DecodeWithError, which turns corrupt pages into
	// errors instead of panics.
	std, err := compress.GetCodec(compress.Codecs.Snappy)
	if ec, ok := std.(compress.ErrorCodec); err == nil && ok {
		compress.RegisterCodec(compress.Codecs.Snappy, snappyCodec{ec})
	}
}
