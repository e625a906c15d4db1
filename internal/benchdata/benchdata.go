// Package benchdata generates the deterministic data sets of the benchmarks (the Go
// benchmarks in write, read and internal/crosscheck, and the bench command): a trips table
// like Hudi's quickstart and a 40-column table. Every value is a function of the row index
// and a seed, and the same functions are given as DuckDB SQL, so a peer can generate the
// very same rows inside DuckDB without a Go→DuckDB transfer.
package benchdata

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TripsSchema is the quickstart trips schema (user columns).
var TripsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "rider", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "driver", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// TripsDDL is TripsSchema as Spark DDL (hudi.CreateOptions.Schema).
const TripsDDL = "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"

// Cities are the partition values of the trips table (row i is in Cities[i%4]).
var Cities = []string{"san_francisco", "sao_paulo", "chennai", "new_york"}

// TripsKey is the record key of row i. Keys are time-ordered: they sort as i does.
func TripsKey(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*7919) }

// TripsTs is the ts (precombine) value of row i.
func TripsTs(i int) int64 { return 1700000000000 + int64(i) }

// TripsFare is the fare of row i.
func TripsFare(i, seed int) float64 { return float64((i+seed)%1000) / 10 }

// Trips returns rows [0, n) in batches of at most batch rows.
func Trips(n, batch, seed int) []arrow.Record { return TripsRange(0, n, batch, seed) }

// TripsRange returns rows [from, to) in batches of at most batch rows.
func TripsRange(from, to, batch, seed int) []arrow.Record {
	var out []arrow.Record
	for start := from; start < to; start += batch {
		idx := make([]int, 0, min(batch, to-start))
		for i := start; i < min(to, start+batch); i++ {
			idx = append(idx, i)
		}
		out = append(out, TripsRows(idx, seed, 0, -1))
	}
	return out
}

// TripsReader yields rows [0, n) as Trips(n, batch, seed) does, each batch built only
// when the reader is advanced to it (and released on the next Next), so a streaming
// writer's memory can be measured without the input held: at most one batch of it is
// live at a time.
func TripsReader(n, batch, seed int) array.RecordReader {
	return array.ReaderFromIter(TripsSchema, func(yield func(arrow.RecordBatch, error) bool) {
		for start := 0; start < n; start += batch {
			idx := make([]int, 0, min(batch, n-start))
			for i := start; i < min(n, start+batch); i++ {
				idx = append(idx, i)
			}
			if !yield(TripsRows(idx, seed, 0, -1), nil) {
				return
			}
		}
	})
}

// TripsRows builds one batch of the given rows. tsBump is added to ts; a fare >= 0
// replaces every fare (an update batch).
func TripsRows(idx []int, seed int, tsBump int64, fare float64) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, TripsSchema)
	defer b.Release()
	b.Reserve(len(idx))
	ts := b.Field(0).(*array.Int64Builder)
	uuid := b.Field(1).(*array.StringBuilder)
	rider := b.Field(2).(*array.StringBuilder)
	driver := b.Field(3).(*array.StringBuilder)
	fares := b.Field(4).(*array.Float64Builder)
	city := b.Field(5).(*array.StringBuilder)
	for _, i := range idx {
		ts.Append(TripsTs(i) + tsBump)
		uuid.Append(TripsKey(i))
		rider.Append("rider-" + strconv.Itoa((i+seed)%100))
		driver.Append("driver-" + strconv.Itoa((i+seed)%50))
		if fare >= 0 {
			fares.Append(fare)
		} else {
			fares.Append(TripsFare(i, seed))
		}
		city.Append(Cities[i%len(Cities)])
	}
	return b.NewRecord()
}

// TripsSQL is a DuckDB SELECT producing the same rows [0, n) as Trips(n, _, seed).
func TripsSQL(n, seed int) string { return TripsSQLRange(0, n, 1, seed, 0, -1) }

// TripsSQLRange is a DuckDB SELECT producing the rows range(from, to, step) as TripsRows
// does: tsBump is added to ts and a fare >= 0 replaces every fare.
func TripsSQLRange(from, to, step, seed int, tsBump int64, fare float64) string {
	fareSQL := fmt.Sprintf("((i + %d) %% 1000)::DOUBLE / 10", seed)
	if fare >= 0 {
		fareSQL = fmt.Sprintf("%v::DOUBLE", fare)
	}
	return fmt.Sprintf(`SELECT 1700000000000 + i + %[5]d AS ts,
		printf('%%08x-0000-4000-8000-%%012x', i, i*7919) AS uuid, 'rider-' || ((i + %[4]d) %% 100) AS rider,
		'driver-' || ((i + %[4]d) %% 50) AS driver, %[6]s AS fare,
		['san_francisco','sao_paulo','chennai','new_york'][(i %% 4) + 1] AS city FROM range(%[1]d, %[2]d, %[3]d) t(i)`,
		from, to, step, seed, tsBump, fareSQL)
}

// Wide table: 40 columns — id (key), ts, region (partition), 12 BIGINT, 12 DOUBLE and 13
// STRING columns.
const (
	wideInts    = 12
	wideDoubles = 12
	wideStrings = 13
)

// WideSchema is the 40-column table's schema.
var WideSchema = func() *arrow.Schema {
	fs := []arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	for j := 0; j < wideInts; j++ {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("i%02d", j), Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	for j := 0; j < wideDoubles; j++ {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("d%02d", j), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	for j := 0; j < wideStrings; j++ {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("s%02d", j), Type: arrow.BinaryTypes.String, Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}()

// WideDDL is WideSchema as Spark DDL.
var WideDDL = func() string {
	var parts []string
	for _, f := range WideSchema.Fields() {
		t := "STRING"
		switch f.Type.ID() {
		case arrow.INT64:
			t = "BIGINT"
		case arrow.FLOAT64:
			t = "DOUBLE"
		}
		parts = append(parts, f.Name+" "+t)
	}
	return strings.Join(parts, ", ")
}()

// WideKey is the record key of wide row i (time-ordered).
func WideKey(i int) string { return fmt.Sprintf("w%010d", i) }

func wideInt(i, j, seed int) int64 { return int64((i + seed) * (2*j + 3) * 2654435761 % 1000003) }
func wideStr(i, j, seed int) string {
	return "v" + strconv.Itoa((i+seed)*(2*j+5)%997)
}

// Wide returns wide rows [0, n) in batches of at most batch rows.
func Wide(n, batch, seed int) []arrow.Record {
	var out []arrow.Record
	for start := 0; start < n; start += batch {
		out = append(out, wideRows(start, min(n, start+batch), seed))
	}
	return out
}

// WideReader yields the rows of Wide(n, batch, seed), each batch built only when the
// reader is advanced to it (see TripsReader).
func WideReader(n, batch, seed int) array.RecordReader {
	return array.ReaderFromIter(WideSchema, func(yield func(arrow.RecordBatch, error) bool) {
		for start := 0; start < n; start += batch {
			if !yield(wideRows(start, min(n, start+batch), seed), nil) {
				return
			}
		}
	})
}

// wideRows builds wide rows [start, end) as one batch.
func wideRows(start, end, seed int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, WideSchema)
	defer b.Release()
	b.Reserve(end - start)
	for i := start; i < end; i++ {
		b.Field(0).(*array.StringBuilder).Append(WideKey(i))
		b.Field(1).(*array.Int64Builder).Append(TripsTs(i))
		b.Field(2).(*array.StringBuilder).Append(Cities[i%len(Cities)])
		c := 3
		for j := 0; j < wideInts; j++ {
			b.Field(c).(*array.Int64Builder).Append(wideInt(i, j, seed))
			c++
		}
		for j := 0; j < wideDoubles; j++ {
			b.Field(c).(*array.Float64Builder).Append(float64(wideInt(i, j+wideInts, seed)) / 100)
			c++
		}
		for j := 0; j < wideStrings; j++ {
			b.Field(c).(*array.StringBuilder).Append(wideStr(i, j, seed))
			c++
		}
	}
	return b.NewRecord()
}

// WideSQL is a DuckDB SELECT producing the same rows as Wide(n, _, seed).
func WideSQL(n, seed int) string {
	cols := []string{"printf('w%010d', i) AS id", "1700000000000 + i AS ts",
		"['san_francisco','sao_paulo','chennai','new_york'][(i % 4) + 1] AS region"}
	for j := 0; j < wideInts; j++ {
		cols = append(cols, fmt.Sprintf("((i + %d) * %d * 2654435761) %% 1000003 AS i%02d", seed, 2*j+3, j))
	}
	for j := 0; j < wideDoubles; j++ {
		cols = append(cols, fmt.Sprintf("(((i + %d) * %d * 2654435761) %% 1000003)::DOUBLE / 100 AS d%02d", seed, 2*(j+wideInts)+3, j))
	}
	for j := 0; j < wideStrings; j++ {
		cols = append(cols, fmt.Sprintf("'v' || (((i + %d) * %d) %% 997) AS s%02d", seed, 2*j+5, j))
	}
	return "SELECT " + strings.Join(cols, ", ") + fmt.Sprintf(" FROM range(%d) t(i)", n)
}

// Release releases every record.
func Release(rs []arrow.Record) {
	for _, r := range rs {
		r.Release()
	}
}
