package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/testutil"
)

// checkConformed asserts that rec has exactly the target schema, field by field, including
// nested names (list element, struct children) that arrow.TypeEqual ignores.
func checkConformed(t *testing.T, rec arrow.Record, target *arrow.Schema) {
	t.Helper()
	if rec.NumCols() != int64(target.NumFields()) {
		t.Fatalf("conformed record has %d columns, target %d", rec.NumCols(), target.NumFields())
	}
	for i, f := range target.Fields() {
		got := rec.Column(i).DataType()
		if !arrow.TypeEqual(got, f.Type) || got.String() != f.Type.String() {
			t.Errorf("column %s: type %s, want %s", f.Name, got, f.Type)
		}
		if rec.Schema().Field(i).Name != f.Name {
			t.Errorf("column %d named %s, want %s", i, rec.Schema().Field(i).Name, f.Name)
		}
	}
}

func days(t *testing.T, ymd string) arrow.Date32 {
	t.Helper()
	d, err := time.Parse("2006-01-02", ymd)
	if err != nil {
		t.Fatal(err)
	}
	return arrow.Date32FromTime(d)
}

func micros(t *testing.T, rfc string) arrow.Timestamp {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, rfc)
	if err != nil {
		t.Fatal(err)
	}
	return arrow.Timestamp(ts.UnixMicro())
}

func decStr(a arrow.Array, i int) string {
	switch d := a.(type) {
	case *array.Decimal128:
		return d.Value(i).ToString(d.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return d.Value(i).ToString(d.DataType().(*arrow.Decimal256Type).Scale)
	}
	return "<not a decimal: " + a.DataType().String() + ">"
}

// TestConformRealParquet reads real base files (gzip-compressed copies: the originals are
// mostly bloom-filter padding) and conforms them onto the table schema from commit metadata.
func TestConformRealParquet(t *testing.T) {
	cases := []struct {
		name   string // testdata/<name>.parquet.gz
		schema string // testdata/<schema>.avsc
		check  func(t *testing.T, rec arrow.Record)
	}{
		{
			// Spark row-writer layout: INT64 decimals, 3-level lists.
			name: "mor_parquet_v6_nonpartitioned", schema: "mor_parquet_v6_nonpartitioned",
			check: func(t *testing.T, rec arrow.Record) { checkV6AllTypes(t, rec, "Bob") },
		},
		{
			// Avro write path: FIXED decimals, legacy 2-level lists ("array" element),
			// partition column moved last in the file.
			name: "cow_v6_no_metafields", schema: "cow_v6_no_metafields",
			check: func(t *testing.T, rec arrow.Record) {
				checkV6AllTypes(t, rec, "Carol")
				rows := rowsByKey(t, rec, "name")
				if got := column(t, rec, "byteField").(*array.Int32).Value(rows["Carol"]); got != 10 {
					t.Errorf("byteField = %d", got)
				}
				// populate.meta.fields=false: only the file name is filled.
				if !column(t, rec, RecordKeyField).IsNull(0) || column(t, rec, FileNameField).IsNull(0) {
					t.Error("meta columns of a no-meta table")
				}
			},
		},
		{
			name: "mor_avro_v9_txns_nonpart_meta", schema: "mor_avro_v9_txns_nonpart_meta",
			check: func(t *testing.T, rec arrow.Record) {
				rows := rowsByKey(t, rec, "txn_id")
				i, ok := rows["TXN-001"]
				if !ok {
					t.Fatalf("TXN-001 missing: %v", rows)
				}
				// Expected values: fixtures expected/mor-avro/v9_txns_nonpart_meta/asof_20260307162714722.jsonl
				if got := decStr(column(t, rec, "amount"), i); got != "1250.00" {
					t.Errorf("amount = %s", got)
				}
				if got := decStr(column(t, rec, "fee_amount"), i); got != "0.00" {
					t.Errorf("fee_amount = %s", got)
				}
				if got := column(t, rec, "txn_datetime").(*array.Timestamp).Value(i); got != micros(t, "2024-01-15T16:30:00Z") {
					t.Errorf("txn_datetime = %d", got)
				}
				if got := column(t, rec, "txn_date").(*array.Date32).Value(i); got != days(t, "2024-01-15") {
					t.Errorf("txn_date = %v", got)
				}
			},
		},
		{
			// Written when ts_millis was still LONG, read with the later STRING schema.
			name: "cow_v9_epochmillis_long", schema: "cow_v9_epochmillis_last",
			check: func(t *testing.T, rec arrow.Record) {
				if got := column(t, rec, "ts_millis").(*array.String).Value(0); got != "1705367700000" {
					t.Errorf("ts_millis = %q", got)
				}
				if got := decStr(column(t, rec, "amount"), 0); got != "450.75" {
					t.Errorf("amount = %s", got)
				}
			},
		},
		{
			// The UPDATE rewrote ts_millis as STRING; read with the original LONG schema.
			name: "cow_v9_epochmillis_string", schema: "cow_v9_epochmillis_first",
			check: func(t *testing.T, rec arrow.Record) {
				if got := column(t, rec, "ts_millis").(*array.Int64).Value(0); got != 1705367700000 {
					t.Errorf("ts_millis = %d", got)
				}
				if got := column(t, rec, "txn_datetime").(*array.Timestamp).Value(0); got != 1705371300000000 {
					t.Errorf("txn_datetime = %d", got)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			target := tableSchema(t, loadAvsc(t, c.schema))
			recs := readParquet(t, mem, readTestdata(t, c.name+".parquet.gz"))
			defer releaseAll(recs)
			if len(recs) == 0 {
				t.Fatal("no record batches")
			}
			for _, rec := range recs {
				out, err := ConformRecord(mem, rec, target)
				if err != nil {
					t.Fatal(err)
				}
				checkConformed(t, out, target)
				c.check(t, out)
				out.Release()
			}
		})
	}
}

// checkV6AllTypes checks one row of the v6 all-types tables (the same rows exist in the COW
// and MOR fixtures; see their .sql).
func checkV6AllTypes(t *testing.T, rec arrow.Record, who string) {
	t.Helper()
	type row struct {
		id        int32
		long      int64
		dec       string
		date      string
		ts        arrow.Timestamp
		bin       string
		arr       []string // arr_struct_f1:arr_struct_f2
		mapKeys   []string
		mapF1     []float64
		structF2  int32
		childF1   float64
		childBool bool
	}
	rows := map[string]row{
		"Bob": {id: 2, long: 9876543210, dec: "67890.12345", date: "2023-04-02", ts: 1680440520000000,
			bin: "more binary data", arr: []string{"yellow:400", "purple:500"}, mapKeys: []string{"key3", "key4"},
			mapF1: []float64{234.567, 567.89}, structF2: 40, childF1: 789.012, childBool: false},
		"Carol": {id: 3, long: 1928374650, dec: "11111.22222", date: "2023-04-03", ts: 1680548580000000,
			bin: "even more binary data", arr: []string{"black:600", "white:700", "pink:800"}, mapKeys: []string{"key5", "key6"},
			mapF1: []float64{345.678, 654.321}, structF2: 25, childF1: 456.789, childBool: true},
	}
	want := rows[who]
	i, ok := rowsByKey(t, rec, "name")[who]
	if !ok {
		t.Fatalf("row %s missing", who)
	}
	if got := column(t, rec, "id").(*array.Int32).Value(i); got != want.id {
		t.Errorf("id = %d", got)
	}
	if got := column(t, rec, "longField").(*array.Int64).Value(i); got != want.long {
		t.Errorf("longField = %d", got)
	}
	if got := decStr(column(t, rec, "decimalField"), i); got != want.dec {
		t.Errorf("decimalField = %s, want %s", got, want.dec)
	}
	if got := column(t, rec, "dateField").(*array.Date32).Value(i); got != days(t, want.date) {
		t.Errorf("dateField = %v, want %s", got.ToTime(), want.date)
	}
	if got := column(t, rec, "timestampField").(*array.Timestamp).Value(i); got != want.ts {
		t.Errorf("timestampField = %d, want %d", got, want.ts)
	}
	if got := string(column(t, rec, "binaryField").(*array.Binary).Value(i)); got != want.bin {
		t.Errorf("binaryField = %q", got)
	}

	list := column(t, rec, "arrayField").(*array.List)
	elems := list.ListValues().(*array.Struct)
	f1 := elems.Field(0).(*array.String)
	f2 := elems.Field(1).(*array.Int32)
	start, end := list.ValueOffsets(i)
	var gotArr []string
	for j := start; j < end; j++ {
		gotArr = append(gotArr, f1.Value(int(j))+":"+strconv.Itoa(int(f2.Value(int(j)))))
	}
	if strings.Join(gotArr, ",") != strings.Join(want.arr, ",") {
		t.Errorf("arrayField = %v, want %v", gotArr, want.arr)
	}

	m := column(t, rec, "mapField").(*array.Map)
	keys := m.Keys().(*array.String)
	items := m.Items().(*array.Struct)
	start, end = m.ValueOffsets(i)
	for j := start; j < end; j++ {
		k := int(j - start)
		if k >= len(want.mapKeys) || keys.Value(int(j)) != want.mapKeys[k] ||
			items.Field(0).(*array.Float64).Value(int(j)) != want.mapF1[k] {
			t.Errorf("mapField entry %d = %s → %v", k, keys.Value(int(j)), items.Field(0).(*array.Float64).Value(int(j)))
		}
	}
	if int(end-start) != len(want.mapKeys) {
		t.Errorf("mapField has %d entries", end-start)
	}

	st := column(t, rec, "structField").(*array.Struct)
	if got := st.Field(0).(*array.String).Value(i); got != who {
		t.Errorf("structField.field1 = %s", got)
	}
	if got := st.Field(1).(*array.Int32).Value(i); got != want.structF2 {
		t.Errorf("structField.field2 = %d", got)
	}
	child := st.Field(2).(*array.Struct)
	if got := child.Field(0).(*array.Float64).Value(i); got != want.childF1 {
		t.Errorf("child_field1 = %v", got)
	}
	if got := child.Field(1).(*array.Boolean).Value(i); got != want.childBool {
		t.Errorf("child_field2 = %v", got)
	}
}

// TestConformFixtureTables conforms every Parquet base file of several fixture tables onto
// the table schema of the latest commit, as a snapshot reader does.
func TestConformFixtureTables(t *testing.T) {
	if testing.Short() {
		t.Skip("unzips fixture tables")
	}
	for _, id := range []string{
		"cow/v6_nonpartitioned", "cow/v8_complexkeygen_hivestyle", "cow/v9_timebasedkeygen_epochmillis",
		"cow/v9_txns_simple_meta", "mor-parquet/v6_complexkeygen_hivestyle", "mor-avro/v9_txns_complex_meta",
		"trips-mor-avro/v8_trips_8i3u1d",
	} {
		t.Run(id, func(t *testing.T) {
			base := testutil.Table(t, id)
			target := tableSchema(t, latestCommitSchema(t, base))
			var files []string
			err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() && d.Name() == ".hoodie" {
					return filepath.SkipDir
				}
				if strings.HasSuffix(p, ".parquet") {
					files = append(files, p)
				}
				return nil
			})
			if err != nil || len(files) == 0 {
				t.Fatalf("no base files: %v", err)
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				recs := readParquet(t, mem, data)
				for _, rec := range recs {
					out, err := ConformRecord(mem, rec, target)
					if err != nil {
						t.Fatalf("%s: %v", filepath.Base(f), err)
					}
					checkConformed(t, out, target)
					out.Release()
				}
				releaseAll(recs)
				mem.AssertSize(t, 0)
			}
		})
	}
}

// latestCommitSchema returns extraMetadata.schema of the newest completed commit-like
// instant (v6 JSON in .hoodie, v8+ Avro in .hoodie/timeline).
func latestCommitSchema(t *testing.T, base string) string {
	t.Helper()
	var best, bestSchema string
	consider := func(name, schema string) {
		if schema != "" && name > best {
			best, bestSchema = name, schema
		}
	}
	for _, dir := range []string{filepath.Join(base, ".hoodie"), filepath.Join(base, ".hoodie", "timeline")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			n := e.Name()
			ext := filepath.Ext(n)
			if ext != ".commit" && ext != ".deltacommit" && ext != ".replacecommit" {
				continue
			}
			if strings.Contains(n, ".requested") || strings.Contains(n, ".inflight") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			if _, vals, err := avro.ReadContainer(data); err == nil {
				em, _ := vals[0].(map[string]any)["extraMetadata"].(map[string]any)
				s, _ := em["schema"].(string)
				consider(n, s)
				continue
			}
			var md struct {
				ExtraMetadata map[string]string `json:"extraMetadata"`
			}
			if err := json.Unmarshal(data, &md); err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			consider(n, md.ExtraMetadata["schema"])
		}
	}
	if bestSchema == "" {
		t.Fatalf("no commit schema under %s", base)
	}
	return bestSchema
}
