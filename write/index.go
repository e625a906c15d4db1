package write

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/format/bloom"
	"github.com/hudi-go/hudi/format/parquet"
	"github.com/hudi-go/hudi/fsview"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/schema"
	"github.com/hudi-go/hudi/storage"
)

// location is where a stored record lives: its file group's latest slice.
type location struct {
	slice *fsview.FileSlice
}

// isGlobal reports indexes that match keys across partitions.
func isGlobal(indexType string) bool {
	return indexType == IndexGlobalSimple || indexType == IndexGlobalBloom
}

// candidateFiles returns the latest base files the index must consult: those of the
// partitions the input touches, or all for a global index.
func candidateFiles(view *fsview.View, records []incoming, global bool) []*fsview.FileSlice {
	parts := map[string]bool{}
	for _, r := range records {
		parts[r.partition] = true
	}
	var out []*fsview.FileSlice
	for _, g := range view.Groups {
		if !global && !parts[g.Partition] {
			continue
		}
		if sl := g.Latest(); sl != nil && sl.Base != nil {
			out = append(out, sl)
		}
	}
	return out
}

// tagLocations finds, for each input record, the file group holding its key (index
// lookup). Only the record-key column of candidate files is read; the BLOOM indexes first
// prune files by the footer's min/max keys and bloom filter. Files are read on all cores.
func tagLocations(ctx context.Context, st storage.Storage, mem memory.Allocator, view *fsview.View, records []incoming,
	indexType string, parallelism int) (map[int]location, error) {
	global := isGlobal(indexType)
	files := candidateFiles(view, records, global)
	useBloom := indexType == IndexBloom || indexType == IndexGlobalBloom
	// keys wanted per partition ("" bucket for global lookups)
	want := map[string]map[string][]int{}
	for i, r := range records {
		p := r.partition
		if global {
			p = ""
		}
		if want[p] == nil {
			want[p] = map[string][]int{}
		}
		want[p][r.key] = append(want[p][r.key], i)
	}
	out := map[int]location{}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, max(1, parallelism))
	var wg sync.WaitGroup
	for _, sl := range files {
		p := sl.Partition
		if global {
			p = ""
		}
		keys := want[p]
		if len(keys) == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(sl *fsview.FileSlice) {
			defer wg.Done()
			defer func() { <-sem }()
			found, err := matchFile(ctx, st, mem, sl, keys, useBloom)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			for _, i := range found {
				out[i] = location{slice: sl}
			}
		}(sl)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// matchFile returns the indices of the wanted records whose keys the base file holds.
func matchFile(ctx context.Context, st storage.Storage, mem memory.Allocator, sl *fsview.FileSlice, keys map[string][]int, useBloom bool) ([]int, error) {
	f, err := st.Open(ctx, sl.Base.Path)
	if err != nil {
		return nil, fmt.Errorf("index lookup: %w", err)
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), sl.Base.Path, mem, 0)
	if err != nil {
		return nil, fmt.Errorf("index lookup: %w", err)
	}
	defer pf.Close()
	// Every index prunes by the footer's key range: it is exact (a key outside it is not
	// in the file) and costs no more than the footer already read. Java's SIMPLE index
	// reads every candidate file; the result is the same.
	if useBloom {
		keys = bloomCandidates(pf, keys)
	} else {
		keys = inKeyRange(pf, keys)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	leaves, found := pf.LeafColumns([]string{schema.MetaFields[2]})
	if len(found) == 0 {
		return nil, fmt.Errorf("index lookup: base file %s has no %s column", sl.Base.Path, schema.MetaFields[2])
	}
	var hits []int
	err = pf.ReadBatches(ctx, leaves, nil, func(rec arrow.Record) error {
		col, ok := rec.Column(0).(*array.String)
		if !ok {
			return fmt.Errorf("index lookup: %s of %s is %s, not a string", schema.MetaFields[2], sl.Base.Path, rec.Column(0).DataType())
		}
		for i := 0; i < col.Len(); i++ {
			if col.IsValid(i) {
				if idx, ok := keys[col.Value(i)]; ok {
					hits = append(hits, idx...)
				}
			}
		}
		return nil
	})
	return hits, err
}

// bloomCandidates keeps the keys within the file's min/max record keys that its bloom
// filter may contain. A file without a filter or key range keeps every key.
func bloomCandidates(pf *parquet.File, keys map[string][]int) map[string][]int {
	// Range pruning first: decoding a footer's bloom filter (~430 KB by default) is the
	// expensive step, and time-ordered keys rule most files out by range alone.
	inRange := inKeyRange(pf, keys)
	if len(inRange) == 0 {
		return nil
	}
	s, typ, ok := pf.BloomFilter()
	if !ok {
		return inRange
	}
	filter, err := bloom.Deserialize(s, typ)
	if err != nil {
		return inRange // an unreadable filter prunes nothing
	}
	out := map[string][]int{}
	for k, idx := range inRange {
		if filter.MightContain(k) {
			out[k] = idx
		}
	}
	return out
}

// inKeyRange keeps the keys within the file's footer min/max record keys, compared in
// Java's String order as Hudi wrote them. A file without a key range keeps every key.
func inKeyRange(pf *parquet.File, keys map[string][]int) map[string][]int {
	minKey, maxKey, hasRange := pf.MinMaxRecordKeys()
	if !hasRange {
		return keys
	}
	out := map[string][]int{}
	for k, idx := range keys {
		if javastr.Compare(k, minKey) >= 0 && javastr.Compare(k, maxKey) <= 0 {
			out[k] = idx
		}
	}
	return out
}
