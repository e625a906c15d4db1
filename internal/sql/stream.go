package sql

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/hudi-go/hudi"
)

// Rows that need hudi-go's reader — merged MOR slices, incremental and time-travel reads
// of them, tables without meta fields — stream into DuckDB through a table function,
// hudi_scan(handle): DuckDB pulls a chunk (2048 rows) at a time, the scan runs on its own
// goroutines a few batches ahead, and only the columns DuckDB asks for (projection
// pushdown) are decoded. Nothing is materialised: memory is bounded by the scan's batches.
// A table function rather than duckdb-go's Arrow RegisterView: that path returns wrong
// results when a query projects or filters (duckdb-go#24) and needs a build tag.

// scanFunction is the table function's name in the DuckDB session.
const scanFunction = "hudi_scan"

// streamSpec is a planned scan one statement may read, once or several times (a
// self-join binds the function twice): each binding runs the scan anew.
type streamSpec struct {
	ctx  context.Context
	scan *hudi.Scan
}

// streams holds the scans of the running statement by handle, and every source started
// from them, so the statement's end stops their goroutines.
type streams struct {
	mu      sync.Mutex
	next    int64
	specs   map[int64]*streamSpec
	sources []*scanSource
}

func (s *streams) add(sp *streamSpec) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.specs == nil {
		s.specs = map[int64]*streamSpec{}
	}
	s.next++
	s.specs[s.next] = sp
	return s.next
}

func (s *streams) remove(h int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.specs, h)
}

// stopAll stops every source started so far.
func (s *streams) stopAll() {
	s.mu.Lock()
	srcs := s.sources
	s.sources = nil
	s.mu.Unlock()
	for _, src := range srcs {
		src.stop()
	}
}

// bind makes the source DuckDB reads one binding of handle h from.
func (s *streams) bind(_ map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
	if len(args) != 1 {
		return nil, errors.New("hudi_scan takes one argument")
	}
	h, ok := args[0].(int64)
	if !ok {
		return nil, fmt.Errorf("hudi_scan: bad handle %v", args[0])
	}
	s.mu.Lock()
	sp := s.specs[h]
	s.mu.Unlock()
	if sp == nil {
		return nil, errors.New("hudi_scan: the table's scan ended with its statement")
	}
	sc := sp.scan.Schema()
	infos := make([]duckdb.ColumnInfo, sc.NumFields())
	for i, f := range sc.Fields() {
		ti, err := duckTypeInfo(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		infos[i] = duckdb.ColumnInfo{Name: f.Name, T: ti}
	}
	src := &scanSource{spec: sp, infos: infos}
	s.mu.Lock()
	s.sources = append(s.sources, src)
	s.mu.Unlock()
	return src, nil
}

// registerScanFunction registers hudi_scan in the session.
func registerScanFunction(conn *gosql.Conn, s *streams) error {
	bigint, err := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	if err != nil {
		return err
	}
	return duckdb.RegisterTableUDF(conn, scanFunction, duckdb.ChunkTableFunction{
		Config:        duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{bigint}},
		BindArguments: s.bind,
	})
}

// scanSource is one binding of a scan: it runs the scan, projected to the columns DuckDB
// reads, and copies its batches into DuckDB's chunks.
type scanSource struct {
	spec  *streamSpec
	infos []duckdb.ColumnInfo

	once    sync.Once
	started bool
	cols    []int // projected columns of the scan schema, in chunk column order
	writers []colWriter
	cancel  context.CancelFunc
	recs    chan arrow.Record
	errc    chan error
	cur     arrow.Record
	off     int
	done    bool
}

func (s *scanSource) ColumnInfos() []duckdb.ColumnInfo     { return s.infos }
func (s *scanSource) Cardinality() *duckdb.CardinalityInfo { return nil }
func (s *scanSource) Init()                                {}

// start learns the projection from the chunk and starts the scan.
func (s *scanSource) start(chunk duckdb.DataChunk) error {
	s.started = true
	sc := s.spec.scan.Schema()
	var names []string
	for i := range s.infos {
		if _, err := chunk.GetVector(i); err == nil {
			s.cols = append(s.cols, i)
			names = append(names, sc.Field(i).Name)
		}
	}
	if len(names) == 0 {
		// count(*) and the like read no column: the cheapest one gives the row count.
		names = []string{sc.Field(0).Name}
	}
	scan, err := s.spec.scan.Project(names)
	if err != nil {
		return err
	}
	for _, i := range s.cols {
		w, err := newColWriter(sc.Field(i).Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", sc.Field(i).Name, err)
		}
		s.writers = append(s.writers, w)
	}
	ctx, cancel := context.WithCancel(s.spec.ctx)
	s.cancel = cancel
	s.recs = make(chan arrow.Record, 2)
	s.errc = make(chan error, 1)
	go func() {
		err := scan.Run(ctx, func(rec arrow.Record) error {
			rec.Retain()
			select {
			case s.recs <- rec:
				return nil
			case <-ctx.Done():
				rec.Release()
				return ctx.Err()
			}
		})
		close(s.recs)
		s.errc <- err
	}()
	return nil
}

// FillChunk copies up to a chunk of rows; a chunk of 0 rows ends the scan.
func (s *scanSource) FillChunk(chunk duckdb.DataChunk) error {
	if s.done {
		return chunk.SetSize(0)
	}
	if !s.started {
		if err := s.start(chunk); err != nil {
			s.done = true
			return err
		}
	}
	capacity := duckdb.GetDataChunkCapacity()
	n := 0
	for n < capacity {
		if s.cur == nil || s.off >= int(s.cur.NumRows()) {
			if s.cur != nil {
				s.cur.Release()
				s.cur = nil
			}
			rec, ok := <-s.recs
			if !ok {
				s.done = true
				if err := <-s.errc; err != nil {
					return err
				}
				break
			}
			s.cur, s.off = rec, 0
			continue
		}
		take := min(capacity-n, int(s.cur.NumRows())-s.off)
		for j, w := range s.writers {
			// The projected scan's column j is the function's column s.cols[j], which
			// duckdb-go maps to its place in the chunk.
			arr, col := s.cur.Column(j), s.cols[j]
			for r := 0; r < take; r++ {
				if err := w(chunk, col, n+r, arr, s.off+r); err != nil {
					return err
				}
			}
		}
		n += take
		s.off += take
	}
	return chunk.SetSize(n)
}

// stop cancels the scan and frees what it holds.
func (s *scanSource) stop() {
	s.once.Do(func() {
		if !s.started || s.cancel == nil {
			return
		}
		s.cancel()
		for rec := range s.recs {
			rec.Release()
		}
		if s.cur != nil {
			s.cur.Release()
			s.cur = nil
		}
	})
}

// colWriter copies value i of arr into row of the chunk's column col.
type colWriter func(chunk duckdb.DataChunk, col, row int, arr arrow.Array, i int) error

func setNull(chunk duckdb.DataChunk, col, row int) error { return chunk.SetValue(col, row, nil) }

// newColWriter returns the writer of a column of type t: typed for flat columns (no
// boxing), through Go values for nested ones.
func newColWriter(t arrow.DataType) (colWriter, error) {
	if _, err := duckTypeInfo(t); err != nil {
		return nil, err
	}
	switch t.(type) {
	case *arrow.BooleanType:
		return flat(func(a *array.Boolean, i int) bool { return a.Value(i) }), nil
	case *arrow.Int8Type:
		return flat(func(a *array.Int8, i int) int8 { return a.Value(i) }), nil
	case *arrow.Int16Type:
		return flat(func(a *array.Int16, i int) int16 { return a.Value(i) }), nil
	case *arrow.Int32Type:
		return flat(func(a *array.Int32, i int) int32 { return a.Value(i) }), nil
	case *arrow.Int64Type:
		return flat(func(a *array.Int64, i int) int64 { return a.Value(i) }), nil
	case *arrow.Float32Type:
		return flat(func(a *array.Float32, i int) float32 { return a.Value(i) }), nil
	case *arrow.Float64Type:
		return flat(func(a *array.Float64, i int) float64 { return a.Value(i) }), nil
	case *arrow.StringType:
		return flat(func(a *array.String, i int) string { return a.Value(i) }), nil
	case *arrow.LargeStringType:
		return flat(func(a *array.LargeString, i int) string { return a.Value(i) }), nil
	}
	return func(chunk duckdb.DataChunk, col, row int, arr arrow.Array, i int) error {
		if arr.IsNull(i) {
			return setNull(chunk, col, row)
		}
		v, err := goValue(arr, i)
		if err != nil {
			return err
		}
		return chunk.SetValue(col, row, v)
	}, nil
}

// flat is the writer of a flat column whose arrays are A with values of type V.
func flat[A arrow.Array, V any](get func(A, int) V) colWriter {
	return func(chunk duckdb.DataChunk, col, row int, arr arrow.Array, i int) error {
		if arr.IsNull(i) {
			return setNull(chunk, col, row)
		}
		a, ok := arr.(A)
		if !ok {
			return fmt.Errorf("unexpected %s array", arr.DataType())
		}
		return duckdb.SetChunkValue(chunk, col, row, get(a, i))
	}
}

// goValue is value i of arr as the Go value duckdb-go stores in a column of the matching
// DuckDB type (duckTypeInfo).
func goValue(arr arrow.Array, i int) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Binary:
		return a.Value(i), nil
	case *array.LargeBinary:
		return a.Value(i), nil
	case *array.FixedSizeBinary:
		return a.Value(i), nil
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC(), nil
	case *array.Date64:
		return time.UnixMilli(int64(a.Value(i))).UTC(), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC(), nil
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return decimalValue(a.Value(i), dt.Precision, dt.Scale), nil
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := goValue(a.ListValues(), int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Map:
		start, end := a.ValueOffsets(i)
		var m duckdb.OrderedMap
		for j := start; j < end; j++ {
			k, err := goValue(a.Keys(), int(j))
			if err != nil {
				return nil, err
			}
			v, err := goValue(a.Items(), int(j))
			if err != nil {
				return nil, err
			}
			m.Set(k, v)
		}
		return m, nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		out := make(map[string]any, st.NumFields())
		for f := 0; f < st.NumFields(); f++ {
			v, err := goValue(a.Field(f), i)
			if err != nil {
				return nil, err
			}
			out[st.Field(f).Name] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("no DuckDB value for %s", arr.DataType())
}

// decimalValue is a DECIMAL value: its unscaled integer, as DuckDB stores it.
func decimalValue(n decimal128.Num, precision, scale int32) duckdb.Decimal {
	return duckdb.Decimal{Width: uint8(precision), Scale: uint8(scale), Value: n.BigInt()}
}

// duckTypeInfo is the DuckDB type of an Arrow column, as duckType names it.
func duckTypeInfo(t arrow.DataType) (duckdb.TypeInfo, error) {
	simple := func(tt duckdb.Type) (duckdb.TypeInfo, error) { return duckdb.NewTypeInfo(tt) }
	switch t := t.(type) {
	case *arrow.BooleanType:
		return simple(duckdb.TYPE_BOOLEAN)
	case *arrow.Int8Type:
		return simple(duckdb.TYPE_TINYINT)
	case *arrow.Int16Type:
		return simple(duckdb.TYPE_SMALLINT)
	case *arrow.Int32Type:
		return simple(duckdb.TYPE_INTEGER)
	case *arrow.Int64Type:
		return simple(duckdb.TYPE_BIGINT)
	case *arrow.Float32Type:
		return simple(duckdb.TYPE_FLOAT)
	case *arrow.Float64Type:
		return simple(duckdb.TYPE_DOUBLE)
	case *arrow.StringType, *arrow.LargeStringType:
		return simple(duckdb.TYPE_VARCHAR)
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType:
		return simple(duckdb.TYPE_BLOB)
	case *arrow.Date32Type, *arrow.Date64Type:
		return simple(duckdb.TYPE_DATE)
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return simple(duckdb.TYPE_TIMESTAMP)
		}
		return simple(duckdb.TYPE_TIMESTAMP_TZ)
	case *arrow.Decimal128Type:
		if t.Precision > 38 {
			return nil, fmt.Errorf("DECIMAL(%d,%d) is wider than DuckDB's DECIMAL(38)", t.Precision, t.Scale)
		}
		return duckdb.NewDecimalInfo(uint8(t.Precision), uint8(t.Scale))
	case *arrow.ListType:
		e, err := duckTypeInfo(t.Elem())
		if err != nil {
			return nil, err
		}
		return duckdb.NewListInfo(e)
	case *arrow.MapType:
		k, err := duckTypeInfo(t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := duckTypeInfo(t.ItemType())
		if err != nil {
			return nil, err
		}
		return duckdb.NewMapInfo(k, v)
	case *arrow.StructType:
		entries := make([]duckdb.StructEntry, t.NumFields())
		for i, f := range t.Fields() {
			ft, err := duckTypeInfo(f.Type)
			if err != nil {
				return nil, err
			}
			if entries[i], err = duckdb.NewStructEntry(ft, f.Name); err != nil {
				return nil, err
			}
		}
		if len(entries) == 0 {
			return nil, errors.New("a struct without fields has no DuckDB type")
		}
		return duckdb.NewStructInfo(entries[0], entries[1:]...)
	}
	return nil, fmt.Errorf("no DuckDB type for %s", t)
}
