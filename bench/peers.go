package main

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/duckdb/duckdb-go/v2"

	hudiparquet "github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
)

func openDuckDB() (*sql.DB, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: temp tables stay visible
	if _, err := db.Exec(fmt.Sprintf("SET threads = %d", runtime.GOMAXPROCS(0))); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (r *runner) exec(ctx context.Context, q string, args ...any) error {
	_, err := r.db.ExecContext(ctx, q, args...)
	if err != nil {
		short := q
		if len(short) > 300 {
			short = short[:300] + "…"
		}
		return fmt.Errorf("duckdb: %w\n  in: %s", err, short)
	}
	return nil
}

// queryRow returns the first row's values as strings.
func (r *runner) queryRow(q string, args ...any) ([]string, error) {
	rows, err := r.db.QueryContext(r.ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w\n  in: %s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return nil, fmt.Errorf("duckdb: no row from %s", q)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([]string, len(cols))
	for i, v := range vals {
		out[i] = fmt.Sprint(v)
	}
	return out, rows.Err()
}

// sqlList renders file paths as a DuckDB list literal.
func sqlList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// fingerprint summarizes Parquet files the same way for any writer: rows, distinct keys,
// sum of a numeric column, min and max key.
func (r *runner) fingerprint(paths []string, key, num string) (string, error) {
	if len(paths) == 0 {
		return "", fmt.Errorf("no files")
	}
	v, err := r.queryRow(fmt.Sprintf(`SELECT count(*), count(DISTINCT %[2]s), round(sum(%[3]s), 3), min(%[2]s), max(%[2]s)
		FROM read_parquet(%[1]s, union_by_name = true)`, sqlList(paths), key, num))
	if err != nil {
		return "", err
	}
	return strings.Join(v, " "), nil
}

// parquetFiles lists the Parquet files under dir (skipping .hoodie).
func parquetFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// cloneTable copies a table cheaply: data files are hard-linked (Hudi never rewrites a
// data file in place), .hoodie is copied.
func cloneTable(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !strings.Contains(rel, ".hoodie"+string(filepath.Separator)) && !strings.HasPrefix(rel, ".hoodie") {
			if err := os.Link(p, target); err == nil {
				return nil
			}
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// baseFilesOf returns, for a table directory, every base file by name.
func baseFilesOf(dir string) (map[string]spec.BaseFileName, error) {
	files, err := parquetFiles(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]spec.BaseFileName{}
	for _, f := range files {
		if bf, ok := spec.ParseBaseFileName(filepath.Base(f)); ok {
			out[f] = bf
		}
	}
	return out, nil
}

// touchedFiles returns the base files written by instant and the previous versions of the
// same file groups (the files a "rewrite only the touched files" job reads).
func touchedFiles(dir, instant string) (written, previous []string, err error) {
	all, err := baseFilesOf(dir)
	if err != nil {
		return nil, nil, err
	}
	groups := map[string]bool{}
	for p, bf := range all {
		if string(bf.Instant) == instant {
			written = append(written, p)
			groups[filepath.Dir(p)+"/"+string(bf.FileID)] = true
		}
	}
	// the latest older version of each touched group
	latest := map[string]string{}
	for p, bf := range all {
		g := filepath.Dir(p) + "/" + string(bf.FileID)
		if !groups[g] || string(bf.Instant) >= instant {
			continue
		}
		if q, ok := latest[g]; !ok || string(all[q].Instant) < string(bf.Instant) {
			latest[g] = p
		}
	}
	for _, p := range latest {
		previous = append(previous, p)
	}
	return written, previous, nil
}

// logGroups returns the latest base file of every file group that has log files.
func logGroupBases(dir string) ([]string, error) {
	withLogs := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir
		}
		if lf, ok := spec.ParseLogFileName(d.Name()); ok && !d.IsDir() {
			withLogs[filepath.Dir(p)+"/"+string(lf.FileID)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	all, err := baseFilesOf(dir)
	if err != nil {
		return nil, err
	}
	latest := map[string]string{}
	for p, bf := range all {
		g := filepath.Dir(p) + "/" + string(bf.FileID)
		if !withLogs[g] {
			continue
		}
		if q, ok := latest[g]; !ok || string(all[q].Instant) < string(bf.Instant) {
			latest[g] = p
		}
	}
	var out []string
	for _, p := range latest {
		out = append(out, p)
	}
	return out, nil
}

func codecOf(name string) compress.Compression {
	switch name {
	case "snappy":
		return compress.Codecs.Snappy
	case "zstd":
		return compress.Codecs.Zstd
	case "uncompressed", "none":
		return compress.Codecs.Uncompressed
	}
	return compress.Codecs.Gzip
}

// writerProps are the Parquet settings hudi-go's base-file writer uses (format/parquet):
// statistics on, 1 MiB pages and dictionary pages, data page v1, and a dictionary for
// the columns dict (the ones hudi-go's writer chooses on a file's first rows, with
// Hudi's default hoodie.parquet.dictionary.enabled=true), PLAIN for the others.
func writerProps(codec string, dict []string) *pq.WriterProperties {
	props := []pq.WriterProperty{pq.WithCompression(codecOf(codec)), pq.WithDictionaryDefault(false), pq.WithStats(true),
		pq.WithDataPageSize(1 << 20), pq.WithDictionaryPageSizeLimit(1 << 20), pq.WithDataPageVersion(pq.DataPageV1), pq.WithMaxRowGroupLength(1 << 40)}
	for _, c := range dict {
		props = append(props, pq.WithDictionaryFor(c, true))
	}
	return pq.NewWriterProperties(props...)
}

// arrowWritePartitioned is the arrow-go peer of bulk_insert: rows are grouped by the
// partition column into one Parquet file per partition; with meta it prepends the five
// _hoodie_* columns holding the values Hudi writes: the commit time, the sequence number
// "<instant>_<task>_<n>" (task = the partition's rank in path order, n = the row's
// position in its file), the key, the partition path and a file name of Hudi's form
// ("<file id>-0_<task>-1-<task>_<instant>.parquet"), so both sides encode and compress
// the same bytes. Every file is one row group, as hudi-go's (and Hudi's) files of less
// than hoodie.parquet.block.size (120 MiB) are: pqarrow's WriteBuffered. (A row group per
// batch and partition, pqarrow's Write, was this peer's first layout: smaller column
// chunks that each fit one page; hudi-go took 0.73× its time at 5M rows, docs/performance.md.)
// Files are written GOMAXPROCS at a time, as hudi-go's are; until this session the peer
// wrote them one batch at a time on one goroutine, and hudi-go's lead over it (0.64×) was
// its parallelism (both spent the same CPU time).
func arrowWritePartitioned(ctx context.Context, dir string, batches []arrow.Record, keyCol, partCol int, withMeta bool, codec, instant string) error {
	sc := batches[0].Schema()
	partName := sc.Field(partCol).Name
	if withMeta {
		sc = schema.WithMetaFields(sc)
	}
	// Tasks are numbered in partition path order, as hudi-go's write tasks are.
	var paths []string
	seen := map[string]bool{}
	for _, rec := range batches {
		part := rec.Column(partCol).(*array.String)
		for i := 0; i < part.Len(); i++ {
			if v := part.Value(i); !seen[v] {
				seen[v] = true
				paths = append(paths, strings.Clone(v))
			}
		}
	}
	sort.Strings(paths)
	task := map[string]int{}
	for i, p := range paths {
		task[p] = i
	}
	// One goroutine per partition file takes its rows of each batch, builds the meta
	// columns and encodes them, as hudi-go writes its partitions' files concurrently: the
	// peer is the same library doing the same work with the same parallelism. Batches are
	// split here, in input order, so each file's rows (and seqnos) are in input order.
	mem := memory.DefaultAllocator
	type part struct {
		rows chan partRows
		err  error
		done chan struct{}
	}
	parts := map[string]*part{}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	writeFile := func(pv string, in <-chan partRows) error {
		t := task[pv]
		h := fnv.New64a()
		h.Write([]byte(pv))
		id := h.Sum64()
		fileName := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x-0_%d-1-%d_%s.parquet",
			uint32(id), uint16(id>>32), (id>>48)&0xfff, t, id&0xffffffffffff, t, t, instant)
		pdir := filepath.Join(dir, partName+"="+pv)
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(pdir, fileName))
		if err != nil {
			return err
		}
		defer f.Close()
		// Opened on the first rows, which choose the dictionary columns as hudi-go's
		// writer does (parquet.DictionaryColumnsFor).
		var w *pqarrow.FileWriter
		n := 0
		for pr := range in {
			err := func() error {
				sem <- struct{}{}
				defer func() { <-sem }()
				defer pr.rec.Release()
				ib := array.NewInt32Builder(mem)
				ib.AppendValues(pr.rows, nil)
				ia := ib.NewInt32Array()
				ib.Release()
				defer ia.Release()
				var cols []arrow.Array
				if withMeta {
					keys := pr.rec.Column(keyCol).(*array.String)
					sbs := make([]*array.StringBuilder, 5)
					for k := range sbs {
						sbs[k] = array.NewStringBuilder(mem)
						sbs[k].Reserve(len(pr.rows))
					}
					prefix := instant + "_" + strconv.Itoa(t) + "_"
					for _, row := range pr.rows {
						sbs[0].Append(instant)
						sbs[1].Append(prefix + strconv.Itoa(n))
						sbs[2].Append(keys.Value(int(row)))
						sbs[3].Append(partName + "=" + pv)
						sbs[4].Append(fileName)
						n++
					}
					for _, b := range sbs {
						cols = append(cols, b.NewArray())
						b.Release()
					}
				}
				for c := 0; c < int(pr.rec.NumCols()); c++ {
					taken, err := compute.TakeArray(ctx, pr.rec.Column(c), ia)
					if err != nil {
						return err
					}
					cols = append(cols, taken)
				}
				out := array.NewRecord(sc, cols, int64(len(pr.rows)))
				for _, c := range cols {
					c.Release()
				}
				defer out.Release()
				if w == nil {
					props := writerProps(codec, hudiparquet.DictionaryColumnsFor(out, 1<<20))
					var err error
					if w, err = pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem))); err != nil {
						return err
					}
				}
				return w.WriteBuffered(out)
			}()
			if err != nil {
				for pr := range in { // drain, so the splitter never blocks
					pr.rec.Release()
				}
				if w != nil {
					w.Close()
				}
				return err
			}
		}
		if w == nil {
			return nil
		}
		sem <- struct{}{}
		defer func() { <-sem }()
		return w.Close()
	}
	for _, rec := range batches {
		pcol := rec.Column(partCol).(*array.String)
		idx := map[string][]int32{}
		var order []string
		for i := 0; i < int(rec.NumRows()); i++ {
			v := pcol.Value(i)
			if _, ok := idx[v]; !ok {
				order = append(order, v)
			}
			idx[v] = append(idx[v], int32(i))
		}
		for _, pv := range order {
			p := parts[pv]
			if p == nil {
				p = &part{rows: make(chan partRows, 4), done: make(chan struct{})}
				parts[pv] = p
				go func() {
					defer close(p.done)
					p.err = writeFile(pv, p.rows)
				}()
			}
			rec.Retain()
			p.rows <- partRows{rec: rec, rows: idx[pv]}
		}
	}
	var firstErr error
	for _, p := range parts {
		close(p.rows)
		<-p.done
		if firstErr == nil {
			firstErr = p.err
		}
	}
	return firstErr
}

// partRows are the rows of one batch that belong to one partition's file.
type partRows struct {
	rec  arrow.Record
	rows []int32
}

// arrowReadFiles is the arrow-go peer of a scan: it reads every file fully with
// GOMAXPROCS files at a time and calls fn on each batch (fn must be concurrency-safe).
func arrowReadFiles(ctx context.Context, paths []string, fn func(arrow.Record) error) error {
	work := make(chan string)
	errs := make(chan error, len(paths)+1)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if err := arrowReadFile(ctx, p, fn); err != nil {
					errs <- fmt.Errorf("%s: %w", p, err)
				}
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

func arrowReadFile(ctx context.Context, p string, fn func(arrow.Record) error) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return err
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.Record()); err != nil {
			return err
		}
	}
	return rr.Err()
}
