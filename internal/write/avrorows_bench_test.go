package write

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/schema"
)

// tripsRows is a trips-like batch with meta fields filled, as a deltacommit's log block
// encodes it: every 7th fare is null, as is every 11th rider.
func tripsRows(tb testing.TB, n int) (arrow.Record, string) {
	tb.Helper()
	avroSchema, err := schema.ToAvro(benchdata.TripsSchema, "trips")
	if err != nil {
		tb.Fatal(err)
	}
	withMeta, err := schema.WithMetaFieldsAvro(avroSchema)
	if err != nil {
		tb.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema.WithMetaFields(benchdata.TripsSchema))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append("20261130214500123")
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("20261130214500123_0_%d", i))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("key-%08d", i))
		b.Field(3).(*array.StringBuilder).Append("city=san_francisco")
		b.Field(4).(*array.StringBuilder).Append("8f2c6a0e-1b5d-4c77-9a1e-3d0f5e6b7a80-0")
		b.Field(5).(*array.Int64Builder).Append(1_700_000_000_000 + int64(i)*997)
		b.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("334e26e9-8355-45cc-97c6-%012d", i))
		if i%11 == 0 {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("rider-%03d", i%1000))
		}
		b.Field(8).(*array.StringBuilder).Append("driver-K")
		if i%7 == 0 {
			b.Field(9).AppendNull()
		} else {
			b.Field(9).(*array.Float64Builder).Append(float64(i%5000) * 1.37)
		}
		b.Field(10).(*array.StringBuilder).Append("san_francisco")
	}
	return b.NewRecord(), withMeta
}

// BenchmarkAvroRowEncoder is the per-row cost of the Avro records of an AVRO_DATA_BLOCK
// for trips rows: one datum per row through the generic route (the encoder before the
// direct appenders) and the direct one, and whole block contents built as dataBlock did
// (a [][]byte then logfile.EncodeAvroDataBlock) and does (in place).
//
//	go test ./write -run '^$' -bench BenchmarkAvroRowEncoder -benchtime=20x -count=5
func BenchmarkAvroRowEncoder(b *testing.B) {
	const rows = 4096
	rec, avroSchema := tripsRows(b, rows)
	defer rec.Release()
	env := &writeEnv{avroWithMeta: avroSchema, outSchema: rec.Schema()}
	enc, err := env.rowEncoder()
	if err != nil {
		b.Fatal(err)
	}
	perRow := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
	}
	b.Run("datum/generic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range rows {
				if _, err := enc.appendGeneric(nil, rec, i); err != nil {
					b.Fatal(err)
				}
			}
		}
		perRow(b)
	})
	b.Run("datum/direct", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			for i := range rows {
				if buf, err = enc.appendRecord(buf[:0], rec, i); err != nil {
					b.Fatal(err)
				}
			}
		}
		perRow(b)
	})
	b.Run("block/generic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var recs [][]byte
			for i := range rows {
				d, err := enc.appendGeneric(nil, rec, i)
				if err != nil {
					b.Fatal(err)
				}
				recs = append(recs, d)
			}
			_ = logfile.EncodeAvroDataBlock(recs)
		}
		perRow(b)
	})
	b.Run("block/direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := env.dataBlock([]arrow.Record{rec}, nil); err != nil {
				b.Fatal(err)
			}
		}
		perRow(b)
	})
}
