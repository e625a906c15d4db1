package write

import (
	"bytes"
	"sync"
	"testing"
	"unsafe"
)

// TestRecycler: buffers come back with the length and capacity asked for, zeroed, and
// their memory is reused after Free; buffers it did not hand out are never pooled.
func TestRecycler(t *testing.T) {
	r := &recycler{}
	small := r.Allocate(100)
	if len(small) != 100 || cap(small) != 100 {
		t.Fatalf("small buffer len %d cap %d", len(small), cap(small))
	}
	r.Free(small)
	b := r.Allocate(5000)
	if len(b) != 5000 || cap(b) != 5000 {
		t.Fatalf("len %d cap %d, want 5000 5000", len(b), cap(b))
	}
	for i := range b {
		b[i] = 0xAB
	}
	p := unsafe.SliceData(b)
	r.Free(b)
	c := r.Allocate(6000) // same size class (8 KiB)
	if unsafe.SliceData(c) != p {
		t.Fatal("a freed buffer of the size class was not reused")
	}
	if len(c) != 6000 || cap(c) != 6000 || !bytes.Equal(c, make([]byte, 6000)) {
		t.Fatal("reused buffer not zeroed or wrong size")
	}
	// Grown within its class: in place, old bytes kept, new bytes zero.
	c[0] = 7
	c[5999] = 9
	g := r.Reallocate(8000, c)
	if unsafe.SliceData(g) != p || len(g) != 8000 || cap(g) != 8000 || g[0] != 7 || g[5999] != 9 || g[6000] != 0 {
		t.Fatal("in-place growth wrong")
	}
	// Grown past its class: copied.
	h := r.Reallocate(20000, g)
	if len(h) != 20000 || h[0] != 7 || h[5999] != 9 || h[19999] != 0 {
		t.Fatal("growth by copy wrong")
	}
	// A buffer of another allocator is not taken.
	foreign := make([]byte, 8192)
	r.Free(foreign)
	if d := r.Allocate(8192); unsafe.SliceData(d) == unsafe.SliceData(foreign) {
		t.Fatal("a foreign buffer was pooled")
	}
	if r.pooled < 0 || r.pooled > recycleMaxPooled {
		t.Fatalf("pooled %d", r.pooled)
	}
}

// TestRecyclerConcurrent: tasks allocate and free concurrently (go test -race).
func TestRecyclerConcurrent(t *testing.T) {
	r := &recycler{}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				b := r.Allocate(4096 + (i*37)%60000)
				for k := range b {
					if b[k] != 0 {
						t.Error("not zeroed")
						return
					}
				}
				b[0], b[len(b)-1] = 1, 1
				b = r.Reallocate(len(b)+1000, b)
				r.Free(b)
			}
		}()
	}
	wg.Wait()
}
