package parquet

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Writer streams Arrow records into one Parquet base file laid out like Hudi's Avro
// write path (see NewWriter). Rows are buffered in memory, encoded and compressed,
// only up to one row group. Not safe for concurrent use.
//
// Every column is written straight into the column chunk writers of a file.Writer opened
// on the Avro layout of the schema. A flat column (a primitive, string, binary, decimal
// or temporal type: no struct, list or map) gets definition levels computed here into one
// reused buffer (all 1 for a column without nulls); a nested one is shredded into its
// leaves' levels (shred.go), the levels pqarrow computes for its 3-level form with
// required elements (TestWriterNestedPagesMatchPqarrow). pqarrow's
// record path does the same through its level builder, which takes two buffers from
// arrow-go's shared page-buffer pool per column per call; those steal the pages' 2 MiB
// value buffers, so every page's buffer was grown again from 256 bytes by doubling
// (≈4 bytes allocated, 2 copied and 2 zeroed per byte of data: most of bulk_insert's
// Parquet cost beyond compression). Both paths call the same column writers with the
// same levels and values, so the files are byte-identical (TestWriterDirectMatchesPqarrow).
// pqarrow.FileWriter is used only by tests (forcePqarrow), to compare.
type Writer struct {
	sink    *countingWriter
	fw      *pqarrow.FileWriter // tests only (forcePqarrow); nil when pw is used
	schema  *arrow.Schema       // the caller's schema
	wschema *arrow.Schema       // the same with INT32/INT64 leaves marked unannotated

	// The file, its open row group and pqarrow's write context (timestamp coercion and the
	// like, as pqarrow.FileWriter uses it).
	pw       *file.Writer
	rgw      file.BufferedRowGroupWriter
	wctx     context.Context
	nullable []bool  // per top-level column: optional in the file (definition level 1)
	defs     []int16 // definition levels of a slice with nulls
	ones     []int16 // all 1: the definition levels of a slice without nulls

	keys []string
	vals map[string]string

	blockSize int64
	pageSize  int64
	numRows   int64
	rgRows    int64
	openRG    bool // a row group holds rows that are not in the sink yet
	rollRG    bool // the open row group is full: start a new one before the next rows
	leafFed   []int64
	lastEst   int64
	leafTop   []int     // top-level column of each leaf
	colRatio  []float64 // compressed/plain of each top-level column, from a sample
	codec     compress.Codec
	level     int
	sampleIn  []int64
	sampleOut []int64
	// Sample chunks not compressed yet, per top-level column, and their plain length and
	// a bound on their compressed length: the ratios are computed only once a size
	// decision depends on them (see ratiosExact).
	samplePend [][][]byte
	pendIn     []int64
	pendBound  []int64
	ratioBound []float64 // ≥ the ratio colRatio will have once the pending chunks count
	pendingAny bool

	// The file writer is opened by open: at once, or with Dictionary on the first rows,
	// which decide the dictionary columns (until then pw and fw are nil).
	props     []pq.WriterProperty
	aprops    pqarrow.ArrowWriterProperties
	psc       *schema.Schema
	dictCols  []string
	opened    bool
	forceDict []string
	mem       memory.Allocator
	dicts     []*dictColumn // per top-level column of a flat schema: its fixed dictionary, if chosen
	shred     []*shredder   // per top-level column: its level builder if it is nested

	closed bool
	err    error // sticky: pqarrow leaves a file unusable after a failed write
}

// NewWriter starts a Parquet file on w for records of schema. The layout follows
// Hudi's Avro write path (hudi-format.md §5.2): strings BINARY (String), decimals
// FIXED_LEN_BYTE_ARRAY of Java's minimal size, Arrow Int32/Int64 as INT32/INT64
// without an INT annotation (as parquet-avro writes them), timestamps INT64 TIMESTAMP
// with isAdjustedToUTC iff the Arrow type has a time zone, dates INT32 DATE, maps
// and lists and maps as parquet-avro's old list structure lays them out (layout.go): the
// 2-level list `group f (LIST) { repeated <element> array }` and `group f (MAP) { repeated
// group key_value (MAP_KEY_VALUE) { required binary key (UTF8); value } }`, as in the 2024
// files of the Spark-written cow/v6_simplekeygen_nonhivestyle fixture. A 2-level list
// cannot hold a null element: Write refuses one naming the column and row (writes refuse
// them in their input first, schema.CheckListElements). Close does not close w.
func NewWriter(w io.Writer, sc *arrow.Schema, o WriterOptions) (*Writer, error) {
	if sc == nil || sc.NumFields() == 0 {
		return nil, fmt.Errorf("parquet writer: schema has no fields")
	}
	codec, err := codecFor(o.Compression)
	if err != nil {
		return nil, err
	}
	if o.PageSize < 0 || o.BlockSize < 0 {
		return nil, fmt.Errorf("parquet writer: negative page size %d or block size %d", o.PageSize, o.BlockSize)
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	mem := o.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rootName := pq.DefaultRootName
	if avsc, ok := o.KeyValue[KeyAvroSchema]; ok {
		// parquet-avro names the message after the Avro record; Java readers parse this
		// schema, so a broken one must fail here, not there.
		if rootName, err = avroFullName(avsc); err != nil {
			return nil, err
		}
	}

	fields := make([]arrow.Field, sc.NumFields())
	for i, f := range sc.Fields() {
		// Field metadata is dropped: the footer holds only what KeyValue and AddKeyValue say.
		fields[i] = arrow.Field{Name: f.Name, Type: plainIntTypes(f.Type), Nullable: f.Nullable}
	}
	wschema := arrow.NewSchema(fields, nil)

	props := []pq.WriterProperty{
		pq.WithAllocator(mem),
		pq.WithCompression(codec),
		pq.WithDataPageSize(o.PageSize),
		pq.WithDataPageVersion(pq.DataPageV1), // parquet-mr's default, read by every Spark
		pq.WithDictionaryDefault(false),
		// Hudi hands parquet-mr its page size as the dictionary page size too
		// (HoodieBaseParquetWriter): a dictionary growing past it falls back to PLAIN.
		pq.WithDictionaryPageSizeLimit(o.PageSize),
		pq.WithStats(true),
		// Row groups are cut by bytes here, never by pqarrow's row count.
		pq.WithMaxRowGroupLength(math.MaxInt64 / 2),
		pq.WithRootName(rootName),
		pq.WithRootRepetition(pq.Repetitions.Required),
	}
	if o.CompressionLevel != 0 {
		props = append(props, pq.WithCompressionLevel(o.CompressionLevel))
	}
	wprops := pq.NewWriterProperties(props...)
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem))

	arrowLayout, err := pqarrow.ToParquet(wschema, wprops, aprops)
	if err != nil {
		return nil, fmt.Errorf("parquet writer: schema %s: %w", sc, err)
	}
	psc, err := avroLayout(arrowLayout)
	if err != nil {
		return nil, fmt.Errorf("parquet writer: schema %s: %w", sc, err)
	}
	leaves := map[string]bool{}
	for i := 0; i < psc.NumColumns(); i++ {
		leaves[psc.Column(i).Path()] = true
	}
	for _, c := range o.DictionaryColumns {
		if !leaves[c] {
			return nil, fmt.Errorf("parquet writer: dictionary column %q is not a leaf column of the schema", c)
		}
	}

	sink := &countingWriter{w: w}
	wr := &Writer{
		sink: sink, schema: sc, wschema: wschema,
		vals:      map[string]string{},
		blockSize: o.BlockSize, pageSize: o.PageSize,
		leafFed:    make([]int64, psc.NumColumns()),
		level:      o.CompressionLevel,
		colRatio:   make([]float64, sc.NumFields()),
		sampleIn:   make([]int64, sc.NumFields()),
		sampleOut:  make([]int64, sc.NumFields()),
		samplePend: make([][][]byte, sc.NumFields()),
		pendIn:     make([]int64, sc.NumFields()),
		pendBound:  make([]int64, sc.NumFields()),
		ratioBound: make([]float64, sc.NumFields()),
	}
	for i, f := range wschema.Fields() {
		wr.colRatio[i] = 1
		wr.ratioBound[i] = 1
		for range leafCount(f.Type) {
			wr.leafTop = append(wr.leafTop, i)
		}
	}
	wr.props, wr.aprops, wr.psc, wr.forceDict, wr.mem = props, aprops, psc, o.DictionaryColumns, mem
	if !o.Dictionary {
		if err := wr.open(nil); err != nil {
			return nil, err
		}
	}
	if codec != compress.Codecs.Uncompressed {
		if wr.codec, err = compress.GetCodec(codec); err != nil {
			return nil, fmt.Errorf("parquet writer: codec %s: %w", codec, err)
		}
		if wr.level == 0 {
			wr.level = compress.DefaultCompressionLevel
		}
	}
	// parquet-mr order: the Avro schema and model name first, the rest sorted so that
	// equal inputs give byte-identical files.
	ks := make([]string, 0, len(o.KeyValue))
	for k := range o.KeyValue {
		ks = append(ks, k)
	}
	rank := func(k string) int {
		switch k {
		case KeyAvroSchema:
			return 0
		case KeyWriterModelName:
			return 1
		}
		return 2
	}
	sort.Slice(ks, func(i, j int) bool {
		if ri, rj := rank(ks[i]), rank(ks[j]); ri != rj {
			return ri < rj
		}
		return ks[i] < ks[j]
	})
	for _, k := range ks {
		wr.AddKeyValue(k, o.KeyValue[k])
	}
	return wr, nil
}

// open starts the file writer with the given columns dictionary-encoded, on top of
// DictionaryColumns.
func (w *Writer) open(dict []string) error {
	w.opened = true
	props := slices.Clone(w.props)
	for _, c := range slices.Concat(w.forceDict, dict) {
		props = append(props, pq.WithDictionaryFor(c, true))
	}
	w.dictCols = dict
	wprops := pq.NewWriterProperties(props...)
	if !forcePqarrow {
		// What pqarrow.NewFileWriter does, minus the ARROW:schema key (not stored: the
		// writer properties above do not ask for it) and the record path, on the Avro
		// layout of the schema (layout.go).
		pw, err := file.NewParquetWriterWithError(w.sink, w.psc.Root(), file.WithWriterProps(wprops), file.WithWriteMetadata(make(metadata.KeyValueMetadata, 0)))
		if err != nil {
			return fmt.Errorf("parquet writer: start file: %w", err)
		}
		w.pw = pw
		w.wctx = pqarrow.NewArrowWriteContext(context.Background(), &w.aprops)
		w.nullable = make([]bool, w.wschema.NumFields())
		w.shred = make([]*shredder, w.wschema.NumFields())
		for i, f := range w.wschema.Fields() {
			w.nullable[i] = f.Nullable
			if !flatType(f.Type) {
				plan, err := newShredPlan(w.psc.Root().Field(i), w.schema.Field(i).Type)
				if err != nil {
					return err
				}
				w.shred[i] = newShredder(plan, w.mem)
			}
		}
		return nil
	}
	fw, err := pqarrow.NewFileWriter(w.wschema, w.sink, wprops, w.aprops)
	if err != nil {
		return fmt.Errorf("parquet writer: start file: %w", err)
	}
	w.fw = fw
	return nil
}

// DictionaryColumns are the columns Dictionary chose to dictionary-encode (nil before
// the first rows), apart from WriterOptions.DictionaryColumns.
func (w *Writer) DictionaryColumns() []string { return w.dictCols }

// Write appends rec's rows. rec must have the writer's schema (field names, types and
// nullability; metadata is ignored). The caller keeps ownership of rec.
func (w *Writer) Write(rec arrow.Record) error {
	if w.closed {
		return fmt.Errorf("parquet writer: write after Close")
	}
	if w.err != nil {
		return w.err
	}
	if err := w.checkSchema(rec.Schema()); err != nil {
		return err
	}
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	if !w.opened {
		dict := chooseDictionary(rec, w.wschema, w.pageSize, w.forceDict)
		if err := w.fail("start file", w.open(dict)); err != nil {
			return err
		}
		if w.pw != nil {
			w.dicts = newDictColumns(rec, w.schema, dict, w.mem)
		}
	}
	var wrec arrow.Record
	if w.fw != nil {
		cols := make([]arrow.Array, rec.NumCols())
		for i, c := range rec.Columns() {
			d := retypeData(c.Data(), w.wschema.Field(i).Type)
			cols[i] = array.MakeFromData(d)
			d.Release()
		}
		wrec = array.NewRecordBatch(w.wschema, cols, n)
		for _, c := range cols {
			c.Release()
		}
		defer wrec.Release()
	}
	w.sampleRatio(rec)

	for off := int64(0); off < n; {
		if w.rollRG || (w.pw != nil && w.rgw == nil) {
			if err := w.fail("start row group", w.newRowGroup()); err != nil {
				return err
			}
			w.rollRG = false
			w.rgRows = 0
			clear(w.leafFed)
		}
		end := min(n, off+w.rowsUntilCheck())
		var err error
		if w.pw != nil {
			err = w.writeColumns(rec, off, end)
		} else {
			part := wrec.NewSlice(off, end)
			if err = w.fw.WriteBuffered(part); err == nil {
				leafPlainBytes(part.Columns(), w.leafFed)
			}
			part.Release()
		}
		if err != nil {
			return w.fail(fmt.Sprintf("write rows %d-%d", w.numRows, w.numRows+end-off), err)
		}
		w.numRows += end - off
		w.rgRows += end - off
		w.openRG = true
		if w.rowGroupBound() >= w.blockSize && w.rowGroupEstimate() >= w.blockSize {
			w.rollRG = true
		}
		off = end
	}
	return nil
}

// newRowGroup closes the open row group (if any) and starts a buffered one.
func (w *Writer) newRowGroup() error {
	if w.fw != nil {
		return w.fw.NewBufferedRowGroupChecked()
	}
	rgw, err := w.pw.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
	w.rgw = rgw
	for _, d := range w.dicts {
		if d != nil {
			d.put, d.dense = false, false
		}
	}
	return nil
}

// writeColumns writes rows [off, end) of rec into the open row group, column by column,
// as pqarrow's record path would (same column writers, levels and values).
func (w *Writer) writeColumns(rec arrow.Record, off, end int64) (err error) {
	defer func() {
		// the column writers report some failures by panicking, as in pqarrow
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	leaf := 0
	for i, c := range rec.Columns() {
		col := c
		if off != 0 || end != int64(c.Len()) {
			col = array.NewSlice(c, off, end)
			defer col.Release()
		}
		if sh := w.shred[i]; sh != nil {
			if err := w.writeNested(sh, col, leaf); err != nil {
				return err
			}
			leaf = addLeafBytes(col, w.leafFed, leaf)
			continue
		}
		cw, err := w.rgw.Column(leaf)
		if err != nil {
			return err
		}
		var defs []int16
		if w.nullable[i] {
			defs = w.defLevels(col)
		}
		if w.dicts != nil && w.dicts[i] != nil {
			d := w.dicts[i]
			if ids := d.encode(col); ids != nil {
				err := pqarrow.WriteArrowToColumn(w.wctx, cw, ids, defs, nil, w.nullable[i])
				ids.Release()
				if err != nil {
					return fmt.Errorf("column %s: %w", w.schema.Field(i).Name, err)
				}
				d.put = true
				leaf = addLeafBytes(col, w.leafFed, leaf)
				continue
			}
			if !d.put {
				d.dense = true
			}
		}
		if err := pqarrow.WriteArrowToColumn(w.wctx, cw, col, defs, nil, w.nullable[i]); err != nil {
			return fmt.Errorf("column %s: %w", w.schema.Field(i).Name, err)
		}
		leaf = addLeafBytes(col, w.leafFed, leaf)
	}
	return nil
}

// writeNested writes a nested top-level column whose first leaf is leaf: its levels and
// values per leaf column, as shredded on the file's (Avro layout) schema.
func (w *Writer) writeNested(sh *shredder, col arrow.Array, leaf int) error {
	if err := sh.shred(col, w.numRows); err != nil {
		return err
	}
	for k := range sh.leaves {
		cw, err := w.rgw.Column(leaf + k)
		if err != nil {
			return err
		}
		vals, err := sh.values(k)
		if err != nil {
			return err
		}
		l := &sh.leaves[k]
		var rep []int16
		if cw.Descr().MaxRepetitionLevel() > 0 {
			rep = l.rep
		}
		var def []int16
		if cw.Descr().MaxDefinitionLevel() > 0 {
			def = l.def
		}
		nullable := cw.Descr().SchemaNode().RepetitionType() == pq.Repetitions.Optional
		err = pqarrow.WriteArrowToColumn(w.wctx, cw, vals, def, rep, nullable)
		vals.Release()
		if err != nil {
			return fmt.Errorf("column %s: %w", cw.Descr().Path(), err)
		}
	}
	return nil
}

// defLevels returns the definition levels of a top-level optional column: 1 for a
// value, 0 for a null (what pqarrow's level builder computes for a flat column).
func (w *Writer) defLevels(a arrow.Array) []int16 {
	n := a.Len()
	if a.NullN() == 0 {
		if len(w.ones) < n {
			w.ones = make([]int16, max(n, 2*len(w.ones)))
			for i := range w.ones {
				w.ones[i] = 1
			}
		}
		return w.ones[:n]
	}
	if cap(w.defs) < n {
		w.defs = make([]int16, n, max(n, 2*cap(w.defs)))
	}
	defs := w.defs[:n]
	for i := range defs {
		if a.IsValid(i) {
			defs[i] = 1
		} else {
			defs[i] = 0
		}
	}
	return defs
}

// forcePqarrow makes NewWriter use pqarrow's record path for every schema (tests
// compare the two paths).
var forcePqarrow = false

// allFlat reports whether every top-level field of sc is a single leaf column without
// nesting.
func allFlat(sc *arrow.Schema) bool {
	for _, f := range sc.Fields() {
		if !flatType(f.Type) {
			return false
		}
	}
	return true
}

// flatType reports whether dt is a single leaf column without nesting, which Writer
// writes with its own definition levels (0/1); nested ones go through the shredder.
func flatType(dt arrow.DataType) bool {
	if et, ok := dt.(arrow.ExtensionType); ok {
		dt = et.StorageType()
	}
	switch dt.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY,
		arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// AddKeyValue sets a footer key/value; it may be called any time before Close (Hudi
// decides the bloom filter and min/max record keys after the data). Setting a key
// again replaces its value. After Close it has no effect.
func (w *Writer) AddKeyValue(k, v string) {
	if _, ok := w.vals[k]; !ok {
		w.keys = append(w.keys, k)
	}
	w.vals[k] = v
}

// NumRows is the number of rows written so far.
func (w *Writer) NumRows() int64 { return w.numRows }

// Close flushes the last row group and writes the footer. It does not close the
// io.Writer given to NewWriter. Calling it again returns the first call's result.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer func() {
		for _, d := range w.dicts {
			if d != nil {
				d.release()
			}
		}
		for _, sh := range w.shred {
			if sh != nil {
				sh.release()
			}
		}
	}()
	if w.err != nil {
		return w.err
	}
	if !w.opened {
		if err := w.fail("start file", w.open(nil)); err != nil {
			return err
		}
	}
	if w.pw != nil {
		return w.closeDirect()
	}
	for _, k := range w.keys {
		if err := w.fw.AppendKeyValueMetadata(k, w.vals[k]); err != nil {
			w.err = fmt.Errorf("parquet writer: footer key %q: %w", k, err)
			w.fw.Close()
			return w.err
		}
	}
	if err := w.fw.Close(); err != nil {
		w.err = fmt.Errorf("parquet writer: close after %d rows (flush last row group, write footer): %w", w.numRows, err)
	}
	return w.err
}

// closeDirect is Close for flat schemas, in pqarrow.FileWriter.Close's order: the row
// group, then the footer.
func (w *Writer) closeDirect() error {
	for _, k := range w.keys {
		if err := w.pw.AppendKeyValueMetadata(k, w.vals[k]); err != nil {
			w.err = fmt.Errorf("parquet writer: footer key %q: %w", k, err)
			w.pw.Close()
			return w.err
		}
	}
	if w.rgw != nil {
		if err := w.rgw.Close(); err != nil {
			w.err = fmt.Errorf("parquet writer: close after %d rows (flush last row group): %w", w.numRows, err)
			w.pw.Close()
			return w.err
		}
	}
	if err := w.pw.Close(); err != nil {
		w.err = fmt.Errorf("parquet writer: close after %d rows (write footer): %w", w.numRows, err)
	}
	return w.err
}

func (w *Writer) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	w.err = fmt.Errorf("parquet writer: %s: %w", what, err)
	return w.err
}

func (w *Writer) checkSchema(sc *arrow.Schema) error {
	if sc.NumFields() != w.schema.NumFields() {
		return fmt.Errorf("parquet writer: record has %d fields, the file %d", sc.NumFields(), w.schema.NumFields())
	}
	for i, f := range sc.Fields() {
		want := w.schema.Field(i)
		if f.Name != want.Name || f.Nullable != want.Nullable || !arrow.TypeEqual(f.Type, want.Type) {
			return fmt.Errorf("parquet writer: record field %d is %s, the file's is %s", i, f, want)
		}
	}
	return nil
}
