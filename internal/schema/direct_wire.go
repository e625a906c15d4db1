package schema

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Avro binary readers for the direct decoder. Each follows the rule internal/avro's
// library (twmb/avro) applies to the same bytes — varint width limits, what a boolean byte
// means, when a length or count is rejected — so that both paths accept exactly the same
// records. Every error names what was being read; none panics on any input.

func shortBuffer(what string, need, have int) error {
	return fmt.Errorf("%s: need %d bytes, %d left", what, need, have)
}

// readVarint reads a zigzag int of at most five bytes, the fifth carrying only the top
// four bits of 32.
func readVarint(src []byte, what string) (int32, []byte, error) {
	if len(src) > 0 && src[0] < 0x80 {
		u := uint32(src[0])
		return int32(u>>1) ^ -int32(u&1), src[1:], nil
	}
	var u uint32
	for i := range 4 {
		if i >= len(src) {
			return 0, nil, fmt.Errorf("%s: truncated varint", what)
		}
		c := src[i]
		u |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int32(u>>1) ^ -int32(u&1), src[i+1:], nil
		}
	}
	if len(src) <= 4 {
		return 0, nil, fmt.Errorf("%s: truncated varint", what)
	}
	if src[4] > 0x0f {
		return 0, nil, fmt.Errorf("%s: varint overflows 32 bits", what)
	}
	u |= uint32(src[4]) << 28
	return int32(u>>1) ^ -int32(u&1), src[5:], nil
}

// readVarlong reads a zigzag long of at most ten bytes, the tenth carrying only the top
// bit of 64.
func readVarlong(src []byte, what string) (int64, []byte, error) {
	if len(src) > 0 && src[0] < 0x80 {
		u := uint64(src[0])
		return int64(u>>1) ^ -int64(u&1), src[1:], nil
	}
	var u uint64
	for i := range 9 {
		if i >= len(src) {
			return 0, nil, fmt.Errorf("%s: truncated varint", what)
		}
		c := src[i]
		u |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), src[i+1:], nil
		}
	}
	if len(src) <= 9 {
		return 0, nil, fmt.Errorf("%s: truncated varint", what)
	}
	if src[9] > 1 {
		return 0, nil, fmt.Errorf("%s: varint overflows 64 bits", what)
	}
	u |= uint64(src[9]) << 63
	return int64(u>>1) ^ -int64(u&1), src[10:], nil
}

// readBool reads a boolean byte: only 1 is true, as the Java reference (and twmb/avro)
// read non-canonical bytes.
func readBool(src []byte) (bool, []byte, error) {
	if len(src) < 1 {
		return false, nil, shortBuffer("boolean", 1, 0)
	}
	return src[0] == 1, src[1:], nil
}

func readFloat(src []byte) (float32, []byte, error) {
	if len(src) < 4 {
		return 0, nil, shortBuffer("float", 4, len(src))
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(src)), src[4:], nil
}

func readDouble(src []byte) (float64, []byte, error) {
	if len(src) < 8 {
		return 0, nil, shortBuffer("double", 8, len(src))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(src)), src[8:], nil
}

// readLenBytes reads a long length and that many bytes; the result aliases src.
func readLenBytes(src []byte, what string) ([]byte, []byte, error) {
	// The length's error is wrapped only when it happens: concatenating what on the
	// good path would allocate per value.
	n, src, err := readVarlong(src, "length")
	if err != nil {
		return nil, nil, fmt.Errorf("%s %w", what, err)
	}
	if n < 0 {
		return nil, nil, fmt.Errorf("invalid negative %s length %d", what, n)
	}
	if n > int64(len(src)) {
		return nil, nil, shortBuffer(what, int(min(n, math.MaxInt32)), len(src))
	}
	return src[:n:n], src[n:], nil
}

func readEnum(src []byte, symbols int) (int32, []byte, error) {
	idx, rest, err := readVarint(src, "enum index")
	if err != nil {
		return 0, nil, err
	}
	if idx < 0 || int(idx) >= symbols {
		return 0, nil, fmt.Errorf("enum index %d out of range [0, %d)", idx, symbols)
	}
	return idx, rest, nil
}

// maxZeroByteItems caps the items of an array or map whose items take no bytes (nulls,
// empty records), which would otherwise let a count of 2^62 stand for nothing; twmb/avro
// rejects more, so the direct path does too.
const maxZeroByteItems = 4 << 10

// compileSkip compiles a reader that consumes one value of t without decoding it, and
// returns the least number of bytes a value takes. Recursive types are left to the
// generic path: their minimum size and skip depth are unbounded by the schema.
func compileSkip(t *avroType, visiting map[*avroType]bool) (skipFunc, int, error) {
	switch t.kind {
	case "null":
		return func(src []byte) ([]byte, error) { return src, nil }, 0, nil
	case "boolean":
		return func(src []byte) ([]byte, error) {
			_, rest, err := readBool(src)
			return rest, err
		}, 1, nil
	case "int":
		return func(src []byte) ([]byte, error) {
			_, rest, err := readVarint(src, "int")
			return rest, err
		}, 1, nil
	case "long":
		return func(src []byte) ([]byte, error) {
			_, rest, err := readVarlong(src, "long")
			return rest, err
		}, 1, nil
	case "float":
		return func(src []byte) ([]byte, error) {
			_, rest, err := readFloat(src)
			return rest, err
		}, 4, nil
	case "double":
		return func(src []byte) ([]byte, error) {
			_, rest, err := readDouble(src)
			return rest, err
		}, 8, nil
	case "string", "bytes":
		what := t.kind
		return func(src []byte) ([]byte, error) {
			_, rest, err := readLenBytes(src, what)
			return rest, err
		}, 1, nil
	case "fixed":
		size := t.size
		return func(src []byte) ([]byte, error) {
			if len(src) < size {
				return nil, shortBuffer("fixed", size, len(src))
			}
			return src[size:], nil
		}, size, nil
	case "enum":
		symbols := len(t.symbols)
		return func(src []byte) ([]byte, error) {
			_, rest, err := readEnum(src, symbols)
			return rest, err
		}, 1, nil
	case "union":
		return compileSkipUnion(t, visiting)
	case "record":
		return compileSkipRecord(t, visiting)
	case "array":
		item, itemMin, err := compileSkip(t.items, visiting)
		if err != nil {
			return nil, 0, err
		}
		return skipBlocks("array", item, itemMin), 1, nil
	case "map":
		val, valMin, err := compileSkip(t.values, visiting)
		if err != nil {
			return nil, 0, err
		}
		entry := func(src []byte) ([]byte, error) {
			_, rest, err := readLenBytes(src, "map key")
			if err != nil {
				return nil, err
			}
			return val(rest)
		}
		return skipBlocks("map", entry, 1+valMin), 1, nil
	}
	return nil, 0, fmt.Errorf("%w: avro type %s", ErrNotDirect, t.describe())
}

func compileSkipUnion(t *avroType, visiting map[*avroType]bool) (skipFunc, int, error) {
	branches := make([]skipFunc, len(t.branches))
	for i, b := range t.branches {
		s, _, err := compileSkip(b, visiting)
		if err != nil {
			return nil, 0, err
		}
		branches[i] = s
	}
	return func(src []byte) ([]byte, error) {
		idx, rest, err := readVarint(src, "union index")
		if err != nil {
			return nil, err
		}
		if idx < 0 || int(idx) >= len(branches) {
			return nil, fmt.Errorf("union index %d out of range [0, %d)", idx, len(branches))
		}
		return branches[idx](rest)
	}, 1, nil
}

func compileSkipRecord(t *avroType, visiting map[*avroType]bool) (skipFunc, int, error) {
	if visiting[t] {
		return nil, 0, fmt.Errorf("%w: recursive record %s", ErrNotDirect, t.name)
	}
	visiting[t] = true
	defer delete(visiting, t)
	fields := make([]skipFunc, len(t.fields))
	total := 0
	for i, f := range t.fields {
		s, n, err := compileSkip(f.typ, visiting)
		if err != nil {
			return nil, 0, err
		}
		fields[i], total = s, total+n
	}
	return func(src []byte) ([]byte, error) {
		var err error
		for i, s := range fields {
			if src, err = s(src); err != nil {
				return nil, fmt.Errorf("field %s: %w", t.fields[i].name, err)
			}
		}
		return src, nil
	}, total, nil
}

// skipBlocks skips an array or map: blocks of a long count and that many items, ended by a
// zero count; a negative count is followed by the block's byte size. The items are walked
// rather than jumped over with that size, since the generic decode walks them and so
// rejects what a jump would miss. Counts are bounded by the bytes left, as the generic
// decode bounds them, so that a forged count cannot spin.
func skipBlocks(what string, item skipFunc, itemMin int) skipFunc {
	return func(src []byte) ([]byte, error) {
		var total int64
		for {
			count, rest, err := readVarlong(src, "block count")
			if err != nil {
				return nil, fmt.Errorf("%s %w", what, err)
			}
			src = rest
			if count == 0 {
				return src, nil
			}
			if count < 0 {
				if count == math.MinInt64 {
					return nil, fmt.Errorf("invalid %s block count", what)
				}
				count = -count
				if _, src, err = readVarlong(src, "block size"); err != nil {
					return nil, fmt.Errorf("%s %w", what, err)
				}
			}
			if itemMin > 0 {
				if count > int64(len(src))/int64(itemMin) {
					return nil, fmt.Errorf("%s block count %d exceeds remaining buffer length %d", what, count, len(src))
				}
			} else if count > maxZeroByteItems-total {
				return nil, fmt.Errorf("%s of zero-byte items exceeds %d-element limit", what, maxZeroByteItems)
			}
			total += count
			for i := int64(0); i < count; i++ {
				if src, err = item(src); err != nil {
					return nil, fmt.Errorf("%s item %d: %w", what, i, err)
				}
			}
		}
	}
}
