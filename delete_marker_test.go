package hudi_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/schema"
)

// TestDeleteMarkerUpsertsAndDeletesInOneCommit: with WriteOptions.DeleteMarker, marked rows
// delete their key and the rest are upserted — one commit, the marker column never reaches
// the table schema. COW and MOR.
func TestDeleteMarkerUpsertsAndDeletesInOneCommit(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "trips")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"uuid"},
				PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "uuid STRING, ts BIGINT, fare DOUBLE, city STRING"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Write(ctx, batchesOf(t, tb, []row{
				{"uuid": "a", "ts": 1, "fare": 1.0, "city": "sf"}, {"uuid": "b", "ts": 1, "fare": 2.0, "city": "sf"},
				{"uuid": "c", "ts": 1, "fare": 3.0, "city": "la"}}), hudi.WriteOptions{Operation: "insert"}); err != nil {
				t.Fatal(err)
			}
			before := len(tb.Timeline().Instants)
			marked := markedBatch(t, `{"uuid":"a","ts":2,"fare":10.0,"city":"sf","del":false}
{"uuid":"b","ts":0,"fare":0.0,"city":"sf","del":true}
{"uuid":"d","ts":2,"fare":4.0,"city":"la","del":false}
{"uuid":"zz","ts":2,"fare":0.0,"city":"la","del":true}`)
			res, err := tb.Write(ctx, marked, hudi.WriteOptions{DeleteMarker: "del"})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(tb.Timeline().Instants); n != before+1 {
				t.Errorf("%d instants after the write, want one more than %d", n, before)
			}
			if res.Records.Inserted != 1 || res.Records.Updated != 1 || res.Records.Deleted != 1 {
				t.Errorf("records %+v, want 1 inserted, 1 updated, 1 deleted (the absent key deletes nothing)", res.Records)
			}
			got := scanAll(t, tb, hudi.ScanOptions{Columns: []string{"_hoodie_record_key", "fare"}})
			if len(got) != 3 || got["b"] != "" || !strings.Contains(got["a"], "10") || got["d"] == "" || got["c"] == "" {
				t.Errorf("rows after the marked write: %v", got)
			}
			sc, err := tb.SchemaAt(ctx, "")
			if err != nil || strings.Contains(sc, `"del"`) {
				t.Errorf("the marker column reached the table schema: %v", err)
			}
			if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"uuid": "a", "ts": 3, "fare": 1.0, "city": "sf"}}),
				hudi.WriteOptions{DeleteMarker: "del"}); err == nil || !strings.Contains(err.Error(), `"del"`) {
				t.Errorf("input without the marker column: %v", err)
			}
		})
	}
}

func markedBatch(t *testing.T, lines string) []arrow.Record {
	t.Helper()
	sc, err := schema.ParseDDL("uuid STRING, ts BIGINT, fare DOUBLE, city STRING, del BOOLEAN")
	if err != nil {
		t.Fatal(err)
	}
	var out []arrow.Record
	for rec, err := range jsonl.Decode(bytes.NewReader([]byte(lines+"\n")), sc, memory.DefaultAllocator, 0) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}
