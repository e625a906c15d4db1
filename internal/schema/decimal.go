package schema

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Avro decimals (and Parquet FIXED_LEN_BYTE_ARRAY / BINARY decimals) store the unscaled value
// as big-endian two's complement of any length; these helpers decode them without big.Int
// for the common ≤16-byte case.

// decimal128FromBigEndian decodes a big-endian two's-complement integer. It fails when the
// value does not fit in 128 bits.
func decimal128FromBigEndian(b []byte) (decimal128.Num, error) {
	if len(b) == 0 {
		return decimal128.Num{}, nil
	}
	neg := b[0]&0x80 != 0
	if len(b) > 16 {
		// Longer encodings are legal when the extra leading bytes are pure sign extension.
		ext := byte(0)
		if neg {
			ext = 0xff
		}
		for _, c := range b[:len(b)-16] {
			if c != ext {
				return decimal128.Num{}, fmt.Errorf("decimal of %d bytes does not fit in 128 bits", len(b))
			}
		}
		b = b[len(b)-16:]
		if (b[0]&0x80 != 0) != neg {
			return decimal128.Num{}, fmt.Errorf("decimal of %d bytes does not fit in 128 bits", len(b))
		}
	}
	var buf [16]byte
	if neg {
		for i := range buf {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(b):], b)
	var hi, lo uint64
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(buf[i])
		lo = lo<<8 | uint64(buf[8+i])
	}
	return decimal128.New(int64(hi), lo), nil
}

// decimal256FromBigEndian decodes a big-endian two's-complement integer of up to 32 bytes
// (longer ones only when the extra bytes are sign extension).
func decimal256FromBigEndian(b []byte) (decimal256.Num, error) {
	if len(b) <= 16 {
		n, err := decimal128FromBigEndian(b)
		return decimal256.FromDecimal128(n), err
	}
	v := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		// Two's complement: subtract 2^(8·len).
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if v.BitLen() > 255 {
		return decimal256.Num{}, fmt.Errorf("decimal of %d bytes does not fit in 256 bits", len(b))
	}
	return decimal256.FromBigInt(v), nil
}

// rescale128 moves an unscaled value from one scale to another and checks it against the
// target precision. Lowering the scale fails rather than rounds: a reader must not silently
// change stored values.
func rescale128(n decimal128.Num, from, to, prec int32) (decimal128.Num, error) {
	if from != to {
		if !rescaleSafe(from, to, decimal128.MaxScale) || to > from && (to-from >= decimal128.MaxScale || !n.FitsInPrecision(decimal128.MaxScale-(to-from))) {
			if err := rescaleGuard(n.BigInt(), from, to, decimal128.MaxScale, 127); err != nil {
				return n, err
			}
		}
		var err error
		if n, err = n.Rescale(from, to); err != nil {
			return n, fmt.Errorf("rescale decimal %s from scale %d to %d: %w", n.ToString(from), from, to, err)
		}
	}
	if !n.FitsInPrecision(prec) {
		return n, fmt.Errorf("decimal %s does not fit precision %d", n.ToString(to), prec)
	}
	return n, nil
}

func rescale256(n decimal256.Num, from, to, prec int32) (decimal256.Num, error) {
	if from != to {
		if !rescaleSafe(from, to, decimal256.MaxScale) || to > from && (to-from >= decimal256.MaxScale || !n.FitsInPrecision(decimal256.MaxScale-(to-from))) {
			if err := rescaleGuard(n.BigInt(), from, to, decimal256.MaxScale, 255); err != nil {
				return n, err
			}
		}
		var err error
		if n, err = n.Rescale(from, to); err != nil {
			return n, fmt.Errorf("rescale decimal %s from scale %d to %d: %w", n.ToString(from), from, to, err)
		}
	}
	if !n.FitsInPrecision(prec) {
		return n, fmt.Errorf("decimal %s does not fit precision %d", n.ToString(to), prec)
	}
	return n, nil
}

// rescaleSafe: both scales are within the type's range, so arrow's Rescale and ToString
// index their power-of-ten tables in bounds.
func rescaleSafe(from, to, maxScale int32) bool {
	return from >= 0 && from <= maxScale && to >= 0 && to <= maxScale
}

// rescaleGuard rejects the rescales arrow's Rescale does not fail cleanly on: scales
// beyond the type's range index past its power-of-ten table, and raising the scale of a
// value so large that the product leaves the type's bits panics (128-bit) or wraps
// (256-bit). Such values come only from corrupt or mismatched input and must be an error,
// not a crash. Callers skip it when the value is more than to−from digits below the
// type's limit, where the product cannot overflow; bits is the magnitude bits the type holds.
func rescaleGuard(x *big.Int, from, to, maxScale int32, bits int) error {
	if !rescaleSafe(from, to, maxScale) {
		return fmt.Errorf("rescale decimal from scale %d to %d: scale out of range [0, %d]", from, to, maxScale)
	}
	if to <= from {
		return nil
	}
	if new(big.Int).Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to-from)), nil)).BitLen() > bits {
		return fmt.Errorf("rescale decimal %s from scale %d to %d: value does not fit %d bits", x, from, to, bits+1)
	}
	return nil
}

// decimal256To128 narrows a 256-bit value, failing when it does not fit.
func decimal256To128(n decimal256.Num) (decimal128.Num, error) {
	v := n.BigInt()
	if v.BitLen() > 127 {
		return decimal128.Num{}, fmt.Errorf("decimal %s does not fit in 128 bits", v)
	}
	return decimal128.FromBigInt(v), nil
}
