package write

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycler is the memory.Allocator of one write's Arrow and Parquet buffers: a freed
// buffer is kept (up to recycleMaxPooled bytes) and handed out again for a later
// allocation of its size class, instead of being left to the garbage collector.
//
// Why: a bulk_insert allocates and frees the same buffers chunk after chunk (gathered
// data columns, Parquet page and level buffers). Left to the collector, that garbage
// grows until the heap doubles its live size, and the live heap is mostly the caller's
// input, so the write's peak heap grew with the input however little it kept per row.
// Recycled, those buffers are allocated once per write.
//
// Buffers are rounded up to a power of two (at least recycleMin bytes; smaller ones go
// to the Go allocator and are not kept) but handed out with the length and capacity
// asked for, as the Go allocator does (Arrow's buffer builders take the capacity of a
// buffer for its size); the recycler remembers each buffer's real capacity by address.
// A reused buffer is zeroed, as fresh Go memory is: Arrow code may rely on zeroed padding.
type recycler struct {
	mu     sync.Mutex
	free   [64][][]byte    // by size class: full-capacity buffers (1<<class bytes)
	pooled int             // bytes in free
	owned  map[uintptr]int // address → real capacity of the buffers handed out or pooled
}

const (
	recycleMin       = 4 << 10
	recycleMaxPooled = 64 << 20
)

var _ memory.Allocator = (*recycler)(nil)

// sizeClass is the least c with 1<<c >= n.
func sizeClass(n int) int { return bits.Len(uint(n - 1)) }

func (r *recycler) Allocate(n int) []byte {
	if n < recycleMin {
		return memory.DefaultAllocator.Allocate(n)
	}
	c := sizeClass(n)
	r.mu.Lock()
	if l := r.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		r.free[c] = l[:len(l)-1]
		r.pooled -= cap(b)
		r.mu.Unlock()
		clear(b)
		return b[:n:n]
	}
	r.mu.Unlock()
	b := memory.DefaultAllocator.Allocate(1 << c)
	r.mu.Lock()
	if r.owned == nil {
		r.owned = map[uintptr]int{}
	}
	// The key is an address, not a pointer, so that a buffer the caller drops without
	// Free is still collected.
	r.owned[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = cap(b)
	r.mu.Unlock()
	return b[:n:n]
}

// full returns b's whole buffer if b is one the recycler handed out, else nil.
func (r *recycler) full(b []byte) []byte {
	if cap(b) < recycleMin {
		return nil
	}
	p := unsafe.SliceData(b)
	c, ok := r.owned[uintptr(unsafe.Pointer(p))]
	if !ok || c != 1<<sizeClass(cap(b)) {
		return nil
	}
	return unsafe.Slice(p, c)
}

func (r *recycler) Reallocate(n int, b []byte) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	r.mu.Lock()
	full := r.full(b)
	r.mu.Unlock()
	if len(full) >= n {
		// Grown in place; the bytes past b are zero, as in a new Go buffer.
		nb := full[:n:n]
		clear(nb[len(b):])
		return nb
	}
	nb := r.Allocate(n)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free keeps b for reuse if it is one of the recycler's buffers and the pool has room.
func (r *recycler) Free(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	full := r.full(b)
	if full == nil {
		return
	}
	if r.pooled+len(full) > recycleMaxPooled {
		delete(r.owned, uintptr(unsafe.Pointer(unsafe.SliceData(full))))
		return
	}
	c := sizeClass(len(full))
	r.free[c] = append(r.free[c], full)
	r.pooled += len(full)
}
