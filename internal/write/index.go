package write

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write/index"
	"github.com/hudi-go/hudi/storage"
)

// location is where a stored record lives: its file group's latest slice.
type location struct {
	slice *fsview.FileSlice
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
// lookup). Only the record-key column of candidate files is read (with virtual keys, the
// key fields' columns, keys rebuilt by sk's key generator); the BLOOM indexes first prune
// files by the footer's min/max keys and bloom filter. Files are read on all cores.
func tagLocations(ctx context.Context, t *table.Table, mem memory.Allocator, view *fsview.View, records []incoming,
	idx index.Index, useMetadata bool, parallelism int, sk storedKeys, logger *slog.Logger) (map[int]location, error) {
	global := idx.Global()
	files := candidateFiles(view, records, global)
	blooms, err := newBloomCheck(ctx, t, idx, useMetadata, files, logger)
	if err != nil {
		return nil, err
	}
	// Keys wanted per partition ("" bucket for global lookups). Each partition's map is
	// sized from a first count: growing a 50k-key map is rehashed a dozen times.
	bucket := func(r incoming) string {
		if global {
			return ""
		}
		return r.partition
	}
	counts := map[string]int{}
	for _, r := range records {
		counts[bucket(r)]++
	}
	want := make(map[string]*wantedKeys, len(counts))
	for p, n := range counts {
		want[p] = newWantedKeys(n)
	}
	for i, r := range records {
		want[bucket(r)].add(r.key, i)
	}
	wanted := func(sl *fsview.FileSlice) *wantedKeys {
		if global {
			return want[""]
		}
		return want[sl.Partition]
	}
	out := map[int]location{}
	err = scanBaseFiles(ctx, t, mem, files, wanted, blooms, "", parallelism, sk, func(sl *fsview.FileSlice, hits []storedHit) {
		for _, h := range hits {
			for _, i := range h.recs {
				out[i] = location{slice: sl}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// storedHit is a wanted key found in a base file.
type storedHit struct {
	recs []int // the input records with the key
	// ordering is the stored record's ordering value, when the lookup asked for the
	// ordering column (a global index deciding a partition move by event time).
	ordering merge.Ordering
}

// scanBaseFiles looks the keys wanted(slice) up in each file's key column (pruned by key
// range and, with useBloom, bloom filter), parallelism files at a time, and hands each
// file's hits to found (called under a lock, one file at a time). orderingCol, if set, is
// read along with the keys. Footer keys come from t's cache when a previous lookup
// through t (or the handle it was reopened from) read them.
func scanBaseFiles(ctx context.Context, t *table.Table, mem memory.Allocator, files []*fsview.FileSlice,
	wanted func(*fsview.FileSlice) *wantedKeys, useBloom bloomCheck, orderingCol string, parallelism int, sk storedKeys,
	found func(*fsview.FileSlice, []storedHit)) error {
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, max(1, parallelism))
	var wg sync.WaitGroup
	for _, sl := range files {
		keys := wanted(sl)
		if keys == nil || keys.len() == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(sl *fsview.FileSlice) {
			defer wg.Done()
			defer func() { <-sem }()
			hits, err := matchFile(ctx, t, mem, sl, keys, useBloom, orderingCol, sk)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			if len(hits) > 0 {
				found(sl, hits)
			}
		}(sl)
	}
	wg.Wait()
	return firstErr
}

// matchFile returns the wanted keys the base file holds, with their stored ordering values
// when orderingCol is set.
func matchFile(ctx context.Context, t *table.Table, mem memory.Allocator, sl *fsview.FileSlice, wanted *wantedKeys,
	useBloom bloomCheck, orderingCol string, sk storedKeys) ([]storedHit, error) {
	// The file is opened only when needed: a file whose footer keys are cached and whose
	// key range holds none of the wanted keys (all but one or two of a table's files for
	// a batch of recent keys) costs no I/O at all.
	lf := &lazyFile{ctx: ctx, st: t.Storage, path: sl.Base.Path}
	defer lf.close()
	// Every index prunes by the footer's key range: it is exact (a key outside it is not
	// in the file). Java's SIMPLE index reads every candidate file; the result is the same.
	// BLOOM then reads the file only if its filter may hold one of the keys in range.
	// Virtual-key files have neither (no keys in the footer): every key may be there.
	// The footer's key/values are read without decoding the whole footer (parquet.Open
	// copies the ~570 KB bloom filter value through thrift), so the files a lookup rules
	// out are never opened as Parquet.
	keys := wanted.recs
	if !sk.virtual() {
		fk, ok := t.FooterKeys(sl.Base.Path, sl.Base.Size)
		if !ok {
			f, err := lf.open()
			if err != nil {
				return nil, fmt.Errorf("index lookup: %w", table.MissingFile(err))
			}
			if fk, err = parquet.ReadFooterKeys(f, f.Size()); err != nil {
				fk = parquet.FooterKeys{} // prune nothing; parquet.Open below reports a bad file
			} else if f.Size() == sl.Base.Size {
				t.SetFooterKeys(sl.Base.Path, sl.Base.Size, fk)
			}
		}
		candidates := fileCandidates(lf, fk, wanted, useBloom.on, useBloom.meta.filter(sl))
		if len(candidates) == 0 {
			return nil, nil
		}
		if len(candidates) < len(keys) {
			// A map of this file's candidates only: probing the whole batch's map for each of
			// the file's keys misses the CPU caches (bench W3's scattered deltacommit spent a
			// third of its lookup there).
			keys = make(map[string][]int, len(candidates))
			for _, k := range candidates {
				keys[k] = wanted.recs[k]
			}
		}
	}
	f, err := lf.open()
	if err != nil {
		return nil, fmt.Errorf("index lookup: %w", table.MissingFile(err))
	}
	pf, err := parquet.Open(f, f.Size(), sl.Base.Path, mem, 0)
	if err != nil {
		return nil, fmt.Errorf("index lookup: %w", table.MissingFile(err))
	}
	defer pf.Close()
	// Only the key's columns are read: _hoodie_record_key, or with virtual keys the key
	// fields the key generator reads (Java's ParquetUtils.fetchHoodieKeys projection).
	keyCols := sk.columns()
	leaves, found := pf.LeafColumns(keyCols)
	if len(found) != len(keyCols) {
		return nil, fmt.Errorf("index lookup: base file %s lacks key columns %v (has %v)", sl.Base.Path, keyCols, found)
	}
	if orderingCol != "" && !contains(keyCols, orderingCol) {
		ord, _ := pf.LeafColumns([]string{orderingCol}) // absent in files older than the column
		leaves = append(leaves, ord...)
	}
	var hits []storedHit
	defer func() {
		if len(hits) > 0 && f.Size() == sl.Base.Size {
			t.StashFooter(sl.Base.Path, sl.Base.Size, pf.Footer()) // for the merge of this file
		}
	}()
	if !sk.virtual() && orderingCol == "" {
		// Sized once for every candidate the file can hold: a file whose rows are all
		// updated (bench W2's clustered batch: 50k hits) otherwise regrows the slice a
		// dozen times, ~10% of that upsert's CPU.
		hits = make([]storedHit, 0, min(int64(len(keys)), pf.NumRows()))
		// Only the stored keys are needed: test each against the candidates straight from
		// the decoded pages. Building Arrow string arrays for this was most of a scattered
		// MOR deltacommit's CPU (bench W3), where every file's keys are confirmed.
		err = pf.ScanStrings(ctx, leaves[0], func(v []byte, valid bool) error {
			if !valid {
				return nil
			}
			if idx, ok := keys[string(v)]; ok { // no allocation: the compiler looks up []byte as string
				hits = append(hits, storedHit{recs: idx})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("index lookup: %w", table.MissingFile(err))
		}
		return hits, nil
	}
	err = pf.ReadBatches(ctx, leaves, nil, func(rec arrow.Record) error {
		var ordCol arrow.Array // nil: an older file without the ordering column
		if orderingCol != "" {
			if c := rec.Schema().FieldIndices(orderingCol); len(c) > 0 {
				ordCol = rec.Column(c[0])
			}
		}
		keyOf, err := sk.keyer(rec, sl.Base.Path)
		if err != nil {
			return fmt.Errorf("index lookup: %w", table.MissingFile(err))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			key, valid, err := keyOf(i)
			if err != nil {
				return fmt.Errorf("index lookup: %w", table.MissingFile(err))
			}
			if !valid {
				continue
			}
			if idx, ok := keys[key]; ok {
				h := storedHit{recs: idx}
				if ordCol != nil {
					h.ordering = detachedOrdering(ordCol, i)
				}
				hits = append(hits, h)
			}
		}
		return nil
	})
	return hits, err
}

// lazyFile is a base file opened on its first read (io.ReaderAt for the bloom filter).
type lazyFile struct {
	ctx  context.Context
	st   storage.Storage
	path string
	f    storage.File
}

func (l *lazyFile) open() (storage.File, error) {
	if l.f == nil {
		f, err := l.st.Open(l.ctx, l.path)
		if err != nil {
			return nil, err
		}
		l.f = f
	}
	return l.f, nil
}

func (l *lazyFile) ReadAt(p []byte, off int64) (int, error) {
	f, err := l.open()
	if err != nil {
		return 0, err
	}
	return f.ReadAt(p, off)
}

func (l *lazyFile) close() {
	if l.f != nil {
		l.f.Close()
	}
}

// detachedOrdering is merge.OrderingAt with string and binary values copied out of the
// Arrow buffers, which are released after the batch is read.
func detachedOrdering(arr arrow.Array, i int) merge.Ordering {
	if arr.IsNull(i) {
		return merge.Ordering{}
	}
	switch a := arr.(type) {
	case *array.String:
		return merge.OrderingOf(strings.Clone(a.Value(i)))
	case *array.Binary:
		return merge.OrderingOf(bytes.Clone(a.Value(i)))
	}
	return merge.OrderingAt(arr, i)
}

// fileCandidates returns the wanted keys the base file may hold: those within the
// footer's min/max record keys, or none when, with useBloom, the file's bloom filter
// contains none of them — the metadata table's filter of the file when meta is set, else
// the footer's. A file without a key range or filter prunes nothing by it.
// Keys the filter rules out are not removed one by one: the file's stored keys are
// matched against the candidates anyway, and one probe that passes decides that the file
// must be read (a scattered batch puts hundreds of keys in every file's range).
func fileCandidates(r io.ReaderAt, fk parquet.FooterKeys, wanted *wantedKeys, useBloom bool, meta *mdt.BloomFilterInfo) []string {
	candidates := wanted.all()
	// Range pruning first: reading and probing a footer's bloom filter is the expensive
	// step, and time-ordered keys rule most files out by range alone.
	if fk.HasRange {
		candidates = wanted.inRange(fk.MinKey, fk.MaxKey)
	}
	if len(candidates) == 0 || !useBloom || !fk.HasBloom && meta == nil {
		return candidates
	}
	var text, typ string
	if meta != nil {
		text, typ = string(meta.Filter), meta.Type
	} else {
		var err error
		if text, err = fk.BloomFilterText(r); err != nil {
			return candidates
		}
		typ = fk.BloomType
	}
	// A few probes decide (see above): only the bytes they read are decoded.
	filter, err := bloom.NewProbe(text, typ)
	if err != nil {
		return candidates // an unreadable filter prunes nothing
	}
	for _, k := range candidates {
		if filter.MightContain(k) {
			return candidates
		}
	}
	return nil
}
