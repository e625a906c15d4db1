package write_test

// Soft deletes (_hoodie_is_deleted=true) and delete-operation deletes against log records
// and base records, end to end on real tables (issue 4), each rule run on copy-on-write and
// merge-on-read with both payloads, snapshot and read-optimized after every step and after
// compaction. What Java 0.14 does, which these expectations follow:
//
//   - HoodieAppendHandle writes no data record for a record whose payload is a delete: it
//     adds a DeleteRecord carrying the record's own ordering value (a Long for a BIGINT ts)
//     to the DELETE_BLOCK and counts it in numDeletes. The delete operation's
//     EmptyHoodieRecordPayload carries Integer 0.
//   - HoodieMergedLogRecordScanner merges log records with the payload's preCombine
//     (mergerToPreCombineMode): under both payloads the greater ts wins among log records
//     (ties to the later one) — a delete is kept as an empty payload with its ordering
//     value, so a later data record with a smaller ts loses to a soft delete — and a
//     delete loses to an earlier record only when that one's ts is strictly greater and
//     the delete's ordering value is not the default Integer 0.
//   - Against the base file (compaction, snapshot read) a delete record is unconditional —
//     the payloads return nothing for an empty payload — while a data record meets the
//     base through combineAndGetUpdateValue (DefaultHoodieRecordPayload keeps a base record
//     with a strictly greater ts).
//
// So merge-on-read differs from copy-on-write where a record arrives late with a smaller
// ts: a soft delete older than the base record still deletes it (COW/default keeps it); an
// update older than an earlier log update or soft delete loses (COW takes it); and an
// update after a soft delete, older than the base record, lets the base record reappear
// under the default payload.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/logfile"
)

func softDel(id, city string, ts int64) mrow {
	return mrow{id: id, city: city, ts: ts, deleted: true}
}

func TestSoftDeleteMergeRules(t *testing.T) {
	ins := globalStep{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 5, 1), row("k2", "sf", 5, 20)},
		want: map[string][]string{"": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|20@ins"}}}
	up := globalStep{name: "up", op: "upsert", rows: []mrow{row("k1", "sf", 8, 2)},
		want:   map[string][]string{"": {"k1|sf|sf|8|2@up", "k2|sf|sf|5|20@ins"}},
		wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|20@ins"}}}
	compact := func(want ...string) globalStep {
		return globalStep{name: "compact", op: "compact", want: map[string][]string{"": want}}
	}
	// roBase: the read-optimized view of merge-on-read before compaction: the base file.
	roBase := map[string][]string{"mor": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|20@ins"}}
	k2 := "k2|sf|sf|5|20@ins"

	scenarios := []struct {
		name  string
		steps []globalStep
	}{{
		name: "soft delete with smaller ts than the base record",
		steps: []globalStep{ins,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 3)},
				want: map[string][]string{
					"":            {k2},
					"cow/default": {"k1|sf|sf|5|1@ins", k2}, // the payload keeps the newer stored record
				},
				wantRO: roBase,
				stats:  map[string]string{"mor": "+0 ~0 -1", "cow/owl": "+0 ~0 -1"}},
			{name: "compact", op: "compact", want: map[string][]string{"": {k2}, "cow/default": {"k1|sf|sf|5|1@ins", k2}}},
		},
	}, {
		name: "soft delete with greater ts than the base record",
		steps: []globalStep{ins,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 9)},
				want: map[string][]string{"": {k2}}, wantRO: roBase, stats: map[string]string{"": "+0 ~0 -1"}},
			compact(k2),
		},
	}, {
		name: "soft delete with smaller ts than an earlier log record",
		steps: []globalStep{ins, up,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 6)},
				want: map[string][]string{
					"":            {"k1|sf|sf|8|2@up", k2}, // the scanner ignores the delete
					"cow/owl":     {k2},
					"cow/default": {"k1|sf|sf|8|2@up", k2},
				},
				wantRO: roBase, stats: map[string]string{"mor": "+0 ~0 -1", "cow/owl": "+0 ~0 -1"}},
			{name: "compact", op: "compact", want: map[string][]string{"": {"k1|sf|sf|8|2@up", k2}, "cow/owl": {k2}}},
		},
	}, {
		name: "soft delete with equal ts to an earlier log record",
		steps: []globalStep{ins, up,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 8)},
				want: map[string][]string{"": {k2}}, wantRO: roBase, stats: map[string]string{"": "+0 ~0 -1"}},
			compact(k2),
		},
	}, {
		name: "soft delete with greater ts than an earlier log record",
		steps: []globalStep{ins, up,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 9)},
				want: map[string][]string{"": {k2}}, wantRO: roBase, stats: map[string]string{"": "+0 ~0 -1"}},
			compact(k2),
		},
	}, {
		name: "delete operation against a log record with a greater ts",
		steps: []globalStep{ins, up,
			{name: "del", op: "delete", rows: []mrow{row("k1", "sf", 0, 0)},
				want: map[string][]string{"": {k2}}, wantRO: roBase, stats: map[string]string{"": "+0 ~0 -1"}},
			compact(k2),
		},
	}, {
		name: "late update with smaller ts than an earlier log record",
		steps: []globalStep{ins, up,
			{name: "late", op: "upsert", rows: []mrow{row("k1", "sf", 6, 3)},
				want: map[string][]string{
					"":        {"k1|sf|sf|8|2@up", k2}, // preCombine in the scanner, both payloads
					"cow/owl": {"k1|sf|sf|6|3@late", k2},
				},
				wantRO: roBase},
			{name: "compact", op: "compact", want: map[string][]string{"": {"k1|sf|sf|8|2@up", k2}, "cow/owl": {"k1|sf|sf|6|3@late", k2}}},
		},
	}, {
		// 0.14's preCombine compares the delete's ordering value with the later record's.
		name: "update after a soft delete with a greater ts",
		steps: []globalStep{ins,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 9)},
				want: map[string][]string{"": {k2}}, wantRO: roBase},
			{name: "up", op: "upsert", rows: []mrow{row("k1", "sf", 7, 4)},
				want: map[string][]string{
					"cow": {"k1|sf|sf|7|4@up", k2}, // an insert
					"mor": {k2},                    // the scanner keeps the delete (9 > 7)
				},
				wantRO: map[string][]string{"cow": {"k1|sf|sf|7|4@up", k2}, "mor": {"k1|sf|sf|5|1@ins", k2}}},
			{name: "compact", op: "compact", want: map[string][]string{"cow": {"k1|sf|sf|7|4@up", k2}, "mor": {k2}}},
		},
	}, {
		name: "update after a soft delete, newer than the delete, older than the base record",
		steps: []globalStep{ins,
			{name: "sd", op: "upsert", rows: []mrow{softDel("k1", "sf", 3)},
				want:   map[string][]string{"": {k2}, "cow/default": {"k1|sf|sf|5|1@ins", k2}},
				wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins", k2}, "cow/default": {"k1|sf|sf|5|1@ins", k2}, "cow/owl": {k2}}},
			{name: "up", op: "upsert", rows: []mrow{row("k1", "sf", 4, 4)},
				want: map[string][]string{
					// owl: cow inserts it, mor's update beats the delete (4 > 3) and the base.
					"owl": {"k1|sf|sf|4|4@up", k2},
					// default: the base record (ts 5) wins against the update; on
					// merge-on-read it reappears after the soft delete had hidden it.
					"default": {"k1|sf|sf|5|1@ins", k2},
				},
				wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins", k2}, "cow/owl": {"k1|sf|sf|4|4@up", k2}, "cow/default": {"k1|sf|sf|5|1@ins", k2}}},
			{name: "compact", op: "compact", want: map[string][]string{"owl": {"k1|sf|sf|4|4@up", k2}, "default": {"k1|sf|sf|5|1@ins", k2}}},
		},
	}, {
		name: "update after a delete operation, with any ts",
		steps: []globalStep{ins,
			{name: "del", op: "delete", rows: []mrow{row("k1", "sf", 0, 0)},
				want: map[string][]string{"": {k2}}, wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins", k2}, "cow": {k2}}},
			{name: "up", op: "upsert", rows: []mrow{row("k1", "sf", 7, 4)},
				// The delete's Integer 0 does not compare with the Long ts (Java would throw
				// a ClassCastException); the later record wins.
				want:   map[string][]string{"": {"k1|sf|sf|7|4@up", k2}},
				wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins", k2}, "cow": {"k1|sf|sf|7|4@up", k2}}},
			compact("k1|sf|sf|7|4@up", k2),
		},
	}, {
		name: "soft delete after a soft delete with a greater ts",
		steps: []globalStep{ins,
			{name: "sd1", op: "upsert", rows: []mrow{softDel("k1", "sf", 9)},
				want: map[string][]string{"": {k2}}, wantRO: roBase},
			{name: "sd2", op: "upsert", rows: []mrow{softDel("k1", "sf", 6)},
				want: map[string][]string{"": {k2}}, wantRO: map[string][]string{"cow": {k2}, "mor": {"k1|sf|sf|5|1@ins", k2}}},
			// mor: the first delete (9) stayed and beats the update; cow: an insert.
			{name: "up", op: "upsert", rows: []mrow{row("k1", "sf", 7, 4)},
				want:   map[string][]string{"cow": {"k1|sf|sf|7|4@up", k2}, "mor": {k2}},
				wantRO: map[string][]string{"cow": {"k1|sf|sf|7|4@up", k2}, "mor": {"k1|sf|sf|5|1@ins", k2}}},
			{name: "compact", op: "compact", want: map[string][]string{"cow": {"k1|sf|sf|7|4@up", k2}, "mor": {k2}}},
		},
	}}
	for _, sc := range scenarios {
		for _, mor := range []bool{false, true} {
			for _, def := range []bool{false, true} {
				v := globalVariant{mor: mor, update: true, defaultPayload: def, index: "SIMPLE"}
				t.Run(sc.name+"/"+strings.Join(v.tags(), "/"), func(t *testing.T) {
					runGlobalScenario(t, v, sc.steps)
				})
			}
		}
	}
}

// TestMORSoftDeleteBlock checks what a merge-on-read soft delete writes: no data block,
// a DELETE_BLOCK whose record carries the row's ordering value with the wrapper of its
// type (LongWrapper for a BIGINT ts, IntWrapper for INT, StringWrapper for STRING), and
// re-encodes byte for byte; the delete operation's records carry IntWrapper(0) as
// Spark's do (format/logfile's golden test of trips-mor-avro/v8_trips_8i3u1d).
func TestMORSoftDeleteBlock(t *testing.T) {
	tests := []struct {
		name, tsType string
		tsValue      any // ordering value of the soft-deleted row
		op           string
		want         any
	}{
		{"bigint ts", "BIGINT", int64(3), "upsert", int64(3)},
		{"bigint ts zero is a real Long", "BIGINT", int64(0), "upsert", int64(0)},
		{"int ts", "INT", int32(3), "upsert", int32(3)},
		{"string ts", "STRING", "2024-01-01", "upsert", "2024-01-01"},
		{"double ts", "DOUBLE", float64(2.5), "upsert", float64(2.5)},
		{"delete operation", "BIGINT", int64(3), "delete", int32(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			ddl := "id STRING, city STRING, ts " + tc.tsType + ", _hoodie_is_deleted BOOLEAN"
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "sd", Type: "mor", RecordKeyFields: []string{"id"},
				PrecombineField: "ts", PartitionFields: []string{"city"}, Schema: ddl}); err != nil {
				t.Fatal(err)
			}
			sc, err := schemaFromDDL(ddl)
			if err != nil {
				t.Fatal(err)
			}
			write := func(deleted bool, op string) *hudi.WriteResult {
				t.Helper()
				rec := recordOf(t, sc, []any{"k1", "sf", tc.tsValue, deleted})
				defer rec.Release()
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				res, err := tbl.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: op})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			write(false, "upsert")
			res := write(tc.op == "upsert", tc.op)
			if res.Records.Deleted != 1 || res.Records.Updated != 0 {
				t.Errorf("write result %+v, want one delete", res.Records)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "sf", ".*.log.*"))
			if len(logs) != 1 {
				t.Fatalf("log files %v, want 1", logs)
			}
			blocks := readLog(t, logs[0])
			if len(blocks) != 1 || blocks[0].Type != logfile.DeleteBlock {
				t.Fatalf("blocks %v, want one DELETE_BLOCK", blocks)
			}
			dels, err := logfile.DecodeDeleteBlock(blocks[0].Content)
			if err != nil {
				t.Fatal(err)
			}
			if len(dels) != 1 || dels[0].RecordKey != "k1" || dels[0].PartitionPath != "sf" {
				t.Fatalf("delete records %#v", dels)
			}
			if got := dels[0].OrderingValue; got != tc.want {
				t.Errorf("ordering value %#v (%T), want %#v (%T)", got, got, tc.want, tc.want)
			}
			again, err := logfile.EncodeDeleteBlock(dels)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(blocks[0].Content) {
				t.Errorf("delete block does not re-encode byte for byte")
			}
			b, err := os.ReadFile(filepath.Join(dir, ".hoodie", res.Instant+".deltacommit"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"numDeletes" : 1`) || !strings.Contains(string(b), `"numWrites" : 0`) {
				t.Errorf("deltacommit stats: want numDeletes 1, numWrites 0:\n%s", b)
			}
		})
	}
}

// recordOf builds a one-row batch of sc from Go values (string, int32, int64, float64, bool).
func recordOf(t *testing.T, sc *arrow.Schema, vals []any) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, v := range vals {
		switch fb := b.Field(i).(type) {
		case *array.StringBuilder:
			fb.Append(v.(string))
		case *array.Int32Builder:
			fb.Append(v.(int32))
		case *array.Int64Builder:
			fb.Append(v.(int64))
		case *array.Float64Builder:
			fb.Append(v.(float64))
		case *array.BooleanBuilder:
			fb.Append(v.(bool))
		default:
			t.Fatalf("column %d: builder %T", i, fb)
		}
	}
	return b.NewRecord()
}
