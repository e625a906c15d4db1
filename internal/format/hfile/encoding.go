package hfile

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// This file holds the two variable-length integer encodings an HFile mixes: protobuf
// varints (the trailer and the file info are protobuf messages) and Hadoop's
// WritableUtils vlong (root index key lengths, memstore timestamps).

var errTruncated = errors.New("truncated")

// uvarint decodes a protobuf varint from b, returning the value and the bytes consumed.
func uvarint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	if n == 0 {
		return 0, 0, errTruncated
	}
	if n < 0 {
		return 0, 0, errors.New("varint overflows 64 bits")
	}
	return v, n, nil
}

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// Protobuf wire types used by the HFile messages.
const (
	wireVarint = 0
	wireBytes  = 2
)

// pbField is one decoded protobuf field: a varint or a length-delimited byte slice.
type pbField struct {
	num   int
	wire  int
	v     uint64
	bytes []byte
}

// parsePB decodes the fields of a protobuf message. Only the wire types the HFile messages
// use (varint, length-delimited) are accepted; fixed32/64 are skipped by size so a newer
// writer's extra fields do not break reading.
func parsePB(b []byte) ([]pbField, error) {
	var out []pbField
	for len(b) > 0 {
		tag, n, err := uvarint(b)
		if err != nil {
			return nil, errors.New("protobuf tag: " + err.Error())
		}
		b = b[n:]
		f := pbField{num: int(tag >> 3), wire: int(tag & 7)}
		if f.num <= 0 {
			return nil, errors.New("protobuf field number 0")
		}
		switch f.wire {
		case wireVarint:
			f.v, n, err = uvarint(b)
			if err != nil {
				return nil, errors.New("protobuf varint field: " + err.Error())
			}
			b = b[n:]
		case wireBytes:
			l, n, err := uvarint(b)
			if err != nil {
				return nil, errors.New("protobuf length: " + err.Error())
			}
			b = b[n:]
			if l > uint64(len(b)) {
				return nil, errors.New("protobuf bytes field runs past the message")
			}
			f.bytes = b[:l]
			b = b[l:]
		case 1: // fixed64
			if len(b) < 8 {
				return nil, errors.New("protobuf fixed64 field truncated")
			}
			b = b[8:]
		case 5: // fixed32
			if len(b) < 4 {
				return nil, errors.New("protobuf fixed32 field truncated")
			}
			b = b[4:]
		default:
			return nil, errors.New("protobuf wire type " + strconv.Itoa(f.wire) + " not supported")
		}
		out = append(out, f)
	}
	return out, nil
}

func appendPBVarint(b []byte, num int, v uint64) []byte {
	b = appendUvarint(b, uint64(num)<<3|wireVarint)
	return appendUvarint(b, v)
}

func appendPBBytes(b []byte, num int, v []byte) []byte {
	b = appendUvarint(b, uint64(num)<<3|wireBytes)
	b = appendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// readVLong decodes Hadoop's WritableUtils variable-length long: one byte for values in
// [-112, 127]; otherwise a length byte (-113..-120 positive, -121..-128 negative) followed by
// the big-endian magnitude bytes (negative values store their one's complement).
func readVLong(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, errTruncated
	}
	first := int8(b[0])
	if first >= -112 {
		return int64(first), 1, nil
	}
	var size int
	if first < -120 {
		size = int(-119 - int(first))
	} else {
		size = int(-111 - int(first))
	}
	if len(b) < size {
		return 0, 0, errTruncated
	}
	var v int64
	for i := 1; i < size; i++ {
		v = v<<8 | int64(b[i])
	}
	if first < -120 {
		v = ^v
	}
	return v, size, nil
}

// appendVLong encodes v as Hadoop's WritableUtils.writeVLong does.
func appendVLong(b []byte, v int64) []byte {
	if v >= -112 && v <= 127 {
		return append(b, byte(int8(v)))
	}
	l := -112
	if v < 0 {
		v = ^v
		l = -120
	}
	for tmp := v; tmp != 0; tmp >>= 8 {
		l--
	}
	b = append(b, byte(int8(l)))
	if l < -120 {
		l = -(l + 120)
	} else {
		l = -(l + 112)
	}
	for i := l; i != 0; i-- {
		b = append(b, byte(v>>((i-1)*8)))
	}
	return b
}
