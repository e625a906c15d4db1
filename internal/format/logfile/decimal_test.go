package logfile

import (
	"bytes"
	"math/big"
	"testing"
)

// NewDecimalValue gives BigInteger.toByteArray's bytes: minimal, two's complement, with a
// sign byte only where the top bit would say otherwise (values from Java's documentation of
// toByteArray and its boundary cases).
func TestNewDecimalValueIsJavaToByteArray(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want []byte
	}{
		{0, []byte{0x00}}, {1, []byte{0x01}}, {127, []byte{0x7f}}, {128, []byte{0x00, 0x80}},
		{255, []byte{0x00, 0xff}}, {256, []byte{0x01, 0x00}}, {-1, []byte{0xff}},
		{-128, []byte{0x80}}, {-129, []byte{0xff, 0x7f}}, {-256, []byte{0xff, 0x00}},
		{-257, []byte{0xfe, 0xff}}, {-32768, []byte{0x80, 0x00}}, {-32769, []byte{0xff, 0x7f, 0xff}},
	} {
		if got := NewDecimalValue(big.NewInt(c.n)); !bytes.Equal(got, c.want) {
			t.Errorf("NewDecimalValue(%d) = % x, want % x", c.n, []byte(got), c.want)
		}
	}
}
