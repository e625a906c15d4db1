package cdc

import (
	"flag"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// FuzzDecode feeds arbitrary datums to the decoder of each mode: it returns records or
// errors, never panics.
func FuzzDecode(f *testing.F) {
	f.Add(byte(0), AppendRecord(nil, OpKeyOnly, Insert, "k", nil, nil))
	f.Add(byte(1), AppendRecord(nil, DataBefore, Delete, "k", []byte{0, 2, 'a', 2, 'b', 2, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 'x'}, nil))
	f.Add(byte(2), AppendRecord(nil, DataBeforeAfter, Update, "20240101000000000", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, nil))
	f.Add(byte(2), []byte{0x02, 0x02, 'z', 0x01})
	decoders := map[Mode]*Decoder{}
	for _, m := range []Mode{OpKeyOnly, DataBefore, DataBeforeAfter} {
		s, err := Schema(m, tripsSchema)
		if err != nil {
			f.Fatal(err)
		}
		d, err := NewDecoder(m, s, tripsSchema)
		if err != nil {
			f.Fatal(err)
		}
		decoders[m] = d
	}
	f.Fuzz(func(t *testing.T, mode byte, datum []byte) {
		d := decoders[Mode(mode%3)]
		r, err := d.Decode(datum)
		if err == nil && r.Op != Insert && r.Op != Update && r.Op != Delete {
			t.Errorf("decoded op %q", r.Op)
		}
	})
}
