package hfile

import (
	"errors"
	"testing"
)

var fuzzSeeds = []string{"v8_files_base.hfile", "v8_empty_base.hfile", "v8_files_logblock.hfile", "v9_files_base.hfile", "v9_files_logblock.hfile"}

// FuzzReader: no input makes the reader panic or loop; every failure is a FormatError naming
// an offset inside the file, or a refusal of an unsupported feature.
func FuzzReader(f *testing.F) {
	for _, name := range fuzzSeeds {
		data := readTestdata(f, name)
		f.Add(data)
		f.Add(data[:len(data)-1])
		f.Add(data[len(data)/2:])
	}
	// A file of our writer with leaf and intermediate index levels and several data blocks.
	f.Add(writeKeys(f, WriterOptions{BlockSize: 64, IndexChunkSize: 200, MinIndexEntries: 2}, 120,
		func(i int) []byte { return []byte{byte(i)} }))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkErr := func(err error) {
			if err == nil || errors.Is(err, ErrUnsupported) {
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a FormatError: %v", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("error offset %d outside the %d-byte file: %v", fe.Offset, len(data), err)
			}
		}
		r, err := OpenBytes(data, "fuzz")
		checkErr(err)
		if err != nil {
			return
		}
		var keys [][]byte
		it := r.All()
		for n := 0; it.Next(); n++ {
			if n > len(data) {
				t.Fatalf("more key/values than bytes")
			}
			keys = append(keys, append([]byte(nil), it.Key()...))
		}
		checkErr(it.Err())
		for i, k := range keys {
			if i > 4 {
				break
			}
			_, _, err := r.Get(k)
			checkErr(err)
			p := r.ScanPrefix(k[:len(k)/2])
			for p.Next() {
			}
			checkErr(p.Err())
		}
		_, _, err = r.MetaBlock("bloomFilter")
		checkErr(err)
		blocks, err := r.Blocks()
		checkErr(err)
		for _, b := range blocks {
			_, err := r.ReadBlockPayload(b.Offset, b.Type)
			checkErr(err)
		}
	})
}
