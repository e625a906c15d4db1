package logfile

import (
	"bytes"
	"testing"
)

// TestAvroDataBlockBuilder holds the incremental builder to EncodeAvroDataBlock's bytes,
// including records started and never ended (a failed encode), which are left out.
func TestAvroDataBlockBuilder(t *testing.T) {
	for _, tt := range []struct {
		name string
		recs [][]byte
	}{
		{"none", nil},
		{"one empty", [][]byte{{}}},
		{"several", [][]byte{[]byte("a"), {}, bytes.Repeat([]byte{7}, 300), {0, 0, 0, 0}}},
		{"many", func() [][]byte {
			var r [][]byte
			for i := range 1000 {
				r = append(r, bytes.Repeat([]byte{byte(i)}, i%17))
			}
			return r
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := EncodeAvroDataBlock(tt.recs)
			for _, abandon := range []bool{false, true} {
				var b AvroDataBlockBuilder
				if len(tt.recs) > 2 {
					b.Grow(10)
				}
				for _, r := range tt.recs {
					if abandon {
						_ = append(b.StartRecord(), "partial datum"...)
					}
					if err := b.EndRecord(append(b.StartRecord(), r...)); err != nil {
						t.Fatal(err)
					}
				}
				if abandon {
					_ = append(b.StartRecord(), 1, 2, 3)
				}
				got, err := b.Content()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("abandon=%v: content %x, want %x", abandon, got, want)
				}
				recs, err := DecodeAvroDataBlock(got)
				if err != nil || len(recs) != len(tt.recs) {
					t.Errorf("abandon=%v: decoded %d records (%v), want %d", abandon, len(recs), err, len(tt.recs))
				}
			}
		})
	}
	var b AvroDataBlockBuilder
	if err := b.EndRecord(nil); err == nil {
		t.Error("EndRecord without StartRecord accepted")
	}
}
