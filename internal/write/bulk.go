package write

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/hudi-go/hudi/internal/write/index"
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

// Compact input for operations that only create files (bulk_insert without a sort mode,
// insert_overwrite): instead of a 48-byte incoming record per input row, kept alive
// through the write, the input is one global row number (uint32) per live row, grouped
// by partition, plus while grouping one partition number (uint32) per row. Keys are
// computed again, a chunk at a time, when the rows are written (rowSource). Their heap is
// then 4 bytes per input row during the write (8 while grouping) instead of 48 (96).

// compactInput reports whether a write's records can stay compact: the operation hands
// every live record, in input order per partition, to createFiles, with no step that
// needs all keys at once (a sort, precombining, a duplicate check against the index).
func compactInput(o Options) bool {
	switch o.Operation {
	case BulkInsert:
		switch strings.ToUpper(o.BulkInsertSortMode) {
		case "GLOBAL_SORT", "PARTITION_SORT":
			return false
		}
		if p := strings.ToLower(o.InsertDupPolicy); p != "" && p != DupPolicyNone {
			return false
		}
	case InsertOverwrite, InsertOverwriteTable:
		// The rows are routed to their buckets (plan). Called before the write chooses
		// its index (streams): an invalid type is refused by the write it falls back to.
		if typ, err := index.ParseType(string(o.IndexType)); err != nil || typ == index.TypeBucket {
			return false
		}
	default:
		return false
	}
	return o.CombineBeforeInsert == nil || !*o.CombineBeforeInsert
}

// groupedRows is the compact input: the live rows of each partition.
type groupedRows struct {
	paths []string   // partition paths of the input rows (deleted ones too), sorted
	rows  [][]uint32 // per path: global row numbers in input order (one shared array)
	total int        // live rows
}

// rowGrouper numbers rows' partitions while collect walks the input.
type rowGrouper struct {
	ids   map[string]uint32
	paths []string
	pids  []uint32 // per input row: its partition's number, or deletedRow
}

// deletedRow marks a row that writes nothing (a soft delete of a new key).
const deletedRow = ^uint32(0)

// add numbers a row's partition. A deleted row still names its partition: an
// insert_overwrite replaces the partitions of its input, deletes included.
func (g *rowGrouper) add(path string, deleted bool) {
	id, ok := g.ids[path]
	if !ok {
		if g.ids == nil {
			g.ids = map[string]uint32{}
		}
		id = uint32(len(g.paths))
		g.ids[path] = id
		g.paths = append(g.paths, path)
	}
	if deleted {
		id = deletedRow
	}
	g.pids = append(g.pids, id)
}

// group returns the rows grouped by partition (a counting sort of the row numbers by
// partition, paths in path order) and drops the per-row partition numbers.
func (g *rowGrouper) group() *groupedRows {
	order := make([]uint32, len(g.paths)) // path number → rank in path order
	sorted := append([]string(nil), g.paths...)
	sort.Strings(sorted)
	for rank, p := range sorted {
		order[g.ids[p]] = uint32(rank)
	}
	counts := make([]int, len(sorted)+1)
	for _, id := range g.pids {
		if id != deletedRow {
			counts[order[id]+1]++
		}
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	all := make([]uint32, counts[len(sorted)])
	next := append([]int(nil), counts[:len(sorted)]...)
	for row, id := range g.pids {
		if id != deletedRow {
			r := order[id]
			all[next[r]] = uint32(row)
			next[r]++
		}
	}
	out := &groupedRows{paths: sorted, rows: make([][]uint32, len(sorted)), total: len(all)}
	for i := range sorted {
		out.rows[i] = all[counts[i]:counts[i+1]:counts[i+1]]
	}
	g.pids, g.ids = nil, nil
	return out
}

// recordSource is the records a createFiles task writes, materialised a chunk at a time.
type recordSource interface {
	len() int
	// chunk returns records [start, end); it may reuse buf's array.
	chunk(buf []incoming, start, end int) ([]incoming, error)
}

// recordSlice is a recordSource over records already built.
type recordSlice []incoming

func (s recordSlice) len() int { return len(s) }

func (s recordSlice) chunk(_ []incoming, start, end int) ([]incoming, error) {
	return s[start:end:end], nil
}

// rowSource is a recordSource over a partition's compact rows: records are built per
// chunk, their keys computed from the full input batches (partition columns included)
// as collect did.
type rowSource struct {
	in        *inputSet
	partition string
	rows      []uint32
}

func (s rowSource) len() int { return len(s.rows) }

func (s rowSource) chunk(buf []incoming, start, end int) ([]incoming, error) {
	in := s.in
	buf = buf[:0]
	rows := s.rows[start:end]
	if len(rows) == 0 {
		return buf, nil
	}
	// Rows ascend: find the first row's batch, then move forward.
	b := sort.Search(len(in.starts)-1, func(i int) bool { return in.starts[i+1] > int64(rows[0]) })
	for _, g := range rows {
		for int64(g) >= in.starts[b+1] {
			b++
		}
		row := int(int64(g) - in.starts[b])
		key, err := in.keys.key(in.full[b], row, int64(g))
		if err != nil {
			return nil, fmt.Errorf("input row %d: %w", int64(g)+1, err)
		}
		buf = append(buf, incoming{batch: int32(b), row: int32(row), key: key, partition: s.partition})
	}
	return buf, nil
}
