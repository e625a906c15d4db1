package write

import (
	"runtime"
	"sort"
	"sync"
	"unsafe"
)

// groupByPartition groups the input's records by partition path: each partition's
// records contiguous and in input order, partitions in path order. It returns each
// partition's sub-slice and the sorted paths, and replaces in.records by the grouped
// slice, so the ungrouped one is garbage as soon as the caller drops it.
//
// It is plan's byPartition for operations that hand every record to a file-creating
// task (bulk_insert, insert_overwrite): one slice for all partitions instead of one per
// partition, and no second copy of the records kept alive during the write (48 bytes a
// record: the largest allocation of a bulk_insert after the input itself). A record's
// path is numbered by its string's address (collect keeps one string per distinct path),
// not by a map lookup per record.
func (in *inputSet) groupByPartition() (map[string][]incoming, []string) {
	recs := in.records
	// Records are split into GOMAXPROCS ranges counted and moved concurrently: range r's
	// records of a partition go after range r-1's, so the order within a partition is
	// the input order. Moving a record is a write-barriered copy (it holds strings), the
	// bulk of this serial step.
	ranges := min(runtime.GOMAXPROCS(0), max(1, len(recs)/groupRangeMin))
	var ids partitionIDs
	for i := range recs {
		ids.id(recs[i].partition)
	}
	order := ids.sorted()
	bounds := make([]int, ranges+1)
	for r := range bounds {
		bounds[r] = len(recs) * r / ranges
	}
	// counts[r][p]: records of partition p in range r; then each range's first slot.
	counts := make([][]int, ranges)
	idsOf := make([]partitionIDs, ranges)
	for r := range idsOf {
		idsOf[r] = ids.clone()
	}
	var wg sync.WaitGroup
	for r := 0; r < ranges; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := make([]int, len(order))
			for i := bounds[r]; i < bounds[r+1]; i++ {
				c[idsOf[r].id(recs[i].partition)]++
			}
			counts[r] = c
		}()
	}
	wg.Wait()
	starts := make([]int, len(order)+1)
	next := make([][]int, ranges)
	for r := range next {
		next[r] = make([]int, len(order))
	}
	pos := 0
	for p := range order {
		starts[p] = pos
		for r := 0; r < ranges; r++ {
			next[r][p] = pos
			pos += counts[r][p]
		}
	}
	starts[len(order)] = pos
	out := make([]incoming, len(recs))
	for r := 0; r < ranges; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nx := next[r]
			for i := bounds[r]; i < bounds[r+1]; i++ {
				id := idsOf[r].id(recs[i].partition)
				out[nx[id]] = recs[i]
				nx[id]++
			}
		}()
	}
	wg.Wait()
	in.records = out
	m := make(map[string][]incoming, len(order))
	for i, p := range order {
		m[p] = out[starts[i]:starts[i+1]:starts[i+1]]
	}
	return m, order
}

// groupRangeMin is the least number of records per concurrently grouped range.
const groupRangeMin = 64 << 10

// partitionIDs numbers partition paths. Records share one string per distinct path
// (collect interns them), so a path is first looked up by its string's address among
// the few seen (no hashing of the path per record); a path not interned still finds its
// number through the map.
type partitionIDs struct {
	byPtr []ptrID
	byStr map[string]int
	paths []string
}

type ptrID struct {
	ptr *byte
	n   int
	id  int
}

const partitionPtrCache = 16

func (p *partitionIDs) id(path string) int {
	ptr := unsafe.StringData(path)
	for _, e := range p.byPtr {
		if e.ptr == ptr && e.n == len(path) {
			return e.id
		}
	}
	if p.byStr == nil {
		p.byStr = map[string]int{}
	}
	id, ok := p.byStr[path]
	if !ok {
		id = len(p.paths)
		p.byStr[path] = id
		p.paths = append(p.paths, path)
	}
	if len(p.byPtr) < partitionPtrCache {
		p.byPtr = append(p.byPtr, ptrID{ptr: ptr, n: len(path), id: id})
	}
	return id
}

// clone returns an independent copy (a goroutine's own address cache).
func (p *partitionIDs) clone() partitionIDs {
	c := partitionIDs{byPtr: append([]ptrID(nil), p.byPtr...), byStr: make(map[string]int, len(p.byStr)), paths: append([]string(nil), p.paths...)}
	for k, v := range p.byStr {
		c.byStr[k] = v
	}
	return c
}

// sorted renumbers the paths seen so far in path order and returns them in that order.
func (p *partitionIDs) sorted() []string {
	order := append([]string(nil), p.paths...)
	sort.Strings(order)
	for i, path := range order {
		p.byStr[path] = i
	}
	for k := range p.byPtr {
		p.byPtr[k].id = p.byStr[unsafe.String(p.byPtr[k].ptr, p.byPtr[k].n)]
	}
	return order
}
