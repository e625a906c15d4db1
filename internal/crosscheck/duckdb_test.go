package crosscheck_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
)

// Requirement 3: every Parquet file hudi-go writes is read by an independent reader
// (DuckDB's Parquet reader, through duckdb-go) to the same rows as hudi-go's own reader
// (format/parquet); DuckDB also sees the Hudi footer keys and the same schema tree.

const allTypesDDL = `id INT, name STRING, flag BOOLEAN, tiny TINYINT, small SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE,
 dec DECIMAL(10,5), dec18 DECIMAL(18,2), dec38 DECIMAL(38,10), dt DATE, ts TIMESTAMP, bin BINARY,
 arr ARRAY<STRUCT<a: STRING, b: INT>>, longs ARRAY<BIGINT>, strs ARRAY<STRING>,
 m MAP<STRING, STRUCT<x: DOUBLE, y: BOOLEAN>>, mi MAP<STRING, INT>,
 st STRUCT<f1: STRING, f2: INT, c: STRUCT<c1: DOUBLE, c2: BOOLEAN, dd: DECIMAL(10,5)>>,
 lol ARRAY<ARRAY<STRING>>, lom ARRAY<MAP<STRING, INT>>, mol MAP<STRING, ARRAY<BIGINT>>,
 sl STRUCT<ts: ARRAY<TIMESTAMP>, ds: MAP<STRING, ARRAY<DATE>>>,
 part STRING, ver BIGINT`

// genRow renders row k (version v) in the canonical JSON encoding; about one value in
// seven is null, and nested values hold nulls too.
func genRow(k, v int, part string) string {
	null := func(n int) bool { return (k*5+n*3+v)%7 == 0 }
	val := func(n int, s string) string {
		if null(n) {
			return "null"
		}
		return s
	}
	ts := time.Date(2023, 4, 1+k%28, k%24, k%60, k%60, (k*1237)%1000000*1000, time.UTC)
	dt := time.Date(1969+k%60, time.Month(1+k%12), 1+k%28, 0, 0, 0, 0, time.UTC)
	var arr, longs, strs, m, mi []string
	for j := 0; j < k%4; j++ {
		// No null elements: Hudi 0.14's Avro write path refuses them (schema.TestCheckListElements).
		if (k+j)%5 == 0 {
			arr = append(arr, `{"a":null,"b":null}`)
		} else {
			arr = append(arr, fmt.Sprintf(`{"a":%s,"b":%d}`, val(20+j, strconv.Quote(fmt.Sprintf("c%d_%d", k, j))), k*10+j))
		}
		longs = append(longs, fmt.Sprint(int64(k)<<(30+j)))
		strs = append(strs, strconv.Quote(fmt.Sprintf("s%d-%d ü", k, j)))
		m = append(m, fmt.Sprintf(`{"key":"k%d","value":%s}`, j, val(50+j, fmt.Sprintf(`{"x":%g,"y":%v}`, float64(k)+0.25*float64(j), j%2 == 0))))
		mi = append(mi, fmt.Sprintf(`{"key":"n%02d","value":%s}`, j, val(60+j, fmt.Sprint(j-k))))
	}
	list := func(n int, l []string) string { return val(n, "["+strings.Join(l, ",")+"]") }
	// Lists of lists and of maps, maps of lists (parquet-avro's 2-level forms), with empty
	// inner lists and maps, null map values, and a list and a map of lists in a struct.
	var lol, lom, mol, tsl, dsm []string
	for j := 0; j < k%3; j++ {
		var inner, im, il, dl []string
		for i := 0; i < (k+j)%3; i++ {
			inner = append(inner, strconv.Quote(fmt.Sprintf("i%d.%d.%d", k, j, i)))
			im = append(im, fmt.Sprintf(`{"key":"q%d","value":%s}`, i, val(80+i+j, fmt.Sprint(k*i-j))))
			il = append(il, fmt.Sprint(int64(k+i)<<(33+j)))
			dl = append(dl, `"`+time.Date(2020+j, time.Month(1+i), 1+k%28, 0, 0, 0, 0, time.UTC).Format("2006-01-02")+`"`)
		}
		lol = append(lol, "["+strings.Join(inner, ",")+"]")
		lom = append(lom, "["+strings.Join(im, ",")+"]")
		mol = append(mol, fmt.Sprintf(`{"key":"w%d","value":%s}`, j, val(90+j, "["+strings.Join(il, ",")+"]")))
		tsl = append(tsl, `"`+ts.Add(time.Duration(j)*time.Hour).Format("2006-01-02T15:04:05.000000Z")+`"`)
		dsm = append(dsm, fmt.Sprintf(`{"key":"d%d","value":%s}`, j, val(95+j, "["+strings.Join(dl, ",")+"]")))
	}
	sl := fmt.Sprintf(`{"ts":%s,"ds":%s}`, list(96, tsl), list(97, dsm))
	neg := 1
	if k%3 == 0 {
		neg = -1
	}
	st := fmt.Sprintf(`{"f1":%s,"f2":%s,"c":%s}`, val(70, strconv.Quote(fmt.Sprintf("n%d", k))), val(71, fmt.Sprint(k*3)),
		val(72, fmt.Sprintf(`{"c1":%g,"c2":%v,"dd":%s}`, float64(k)/8, k%2 == 1, val(73, fmt.Sprintf(`"%d.%05d"`, k, k*7)))))
	fields := []string{
		fmt.Sprintf(`"id":%d`, k),
		`"name":` + val(1, strconv.Quote(fmt.Sprintf("name %d v%d", k, v))),
		`"flag":` + val(2, fmt.Sprint((k+v)%2 == 0)),
		`"tiny":` + val(3, fmt.Sprint(int8(k*9))),
		`"small":` + val(4, fmt.Sprint(int16(k*1000-20000))),
		`"i":` + val(5, fmt.Sprint(int32(neg*k*100003))),
		`"l":` + val(6, fmt.Sprint(int64(neg)*int64(k)*9876543210123)),
		`"f":` + val(7, strconv.FormatFloat(float64(float32(k)*1.1), 'g', -1, 32)),
		`"d":` + val(8, strconv.FormatFloat(float64(k)*3.14159+float64(v), 'g', -1, 64)),
		`"dec":` + val(9, fmt.Sprintf(`"%s%d.%05d"`, map[bool]string{true: "-", false: ""}[neg < 0], k*123%99999, k*4567%100000)),
		`"dec18":` + val(10, fmt.Sprintf(`"%d.%02d"`, int64(neg)*int64(k)*1234567890123, k%100)),
		`"dec38":` + val(11, fmt.Sprintf(`"%d%014d.%010d"`, k+1, k*98765, k*13)),
		`"dt":` + val(12, `"`+dt.Format("2006-01-02")+`"`),
		`"ts":` + val(13, `"`+ts.Format("2006-01-02T15:04:05.000000Z")+`"`),
		`"bin":` + val(14, `"`+base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("bin\x00\xff%d", k)))+`"`),
		`"arr":` + list(15, arr),
		`"longs":` + list(16, longs),
		`"strs":` + list(17, strs),
		`"m":` + list(18, m),
		`"mi":` + list(19, mi),
		`"st":` + val(21, st),
		`"lol":` + list(22, lol),
		`"lom":` + list(23, lom),
		`"mol":` + list(24, mol),
		`"sl":` + val(25, sl),
		`"part":"` + part + `"`,
		fmt.Sprintf(`"ver":%d`, v),
	}
	return "{" + strings.Join(fields, ",") + "}"
}

func rowsJSONL(keys []int, v int, part func(int) string) []byte {
	var b bytes.Buffer
	for _, k := range keys {
		b.WriteString(genRow(k, v, part(k)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func span(a, b int) []int {
	var out []int
	for k := a; k < b; k++ {
		out = append(out, k)
	}
	return out
}

func openDuckDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var v string
	if err := db.QueryRow("SELECT version()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Logf("DuckDB %s", v)
	return db
}

func TestDuckDBReadsOurFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "alltypes")
	_, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "alltypes", Database: "default", RecordKeyFields: []string{"id"},
		PartitionFields: []string{"part"}, PrecombineField: "ver", Schema: allTypesDDL})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.ParseDDL(allTypesDDL)
	if err != nil {
		t.Fatal(err)
	}
	part := func(k int) string { return []string{"p0", "p1", "p2"}[k%3] }
	now := steppingClock()
	// Each write reopens the table (see TestWriteTwiceOnOneHandle).
	steps := []struct {
		op   string
		rows []byte
		set  map[string]string
	}{
		{"insert", rowsJSONL(span(0, 40), 1, part), nil},
		{"upsert", rowsJSONL(append(span(0, 12), span(40, 50)...), 2, part), nil},
		{"delete", rowsJSONL(span(12, 18), 2, part), nil},
		{"insert_overwrite", rowsJSONL([]int{100, 103, 106, 109}, 3, func(int) string { return "p1" }), nil},
		{"bulk_insert", rowsJSONL(span(200, 230), 1, func(k int) string { return "p3" }), nil},
		// A second file group in p0: small-file handling off and a tiny split size.
		{"insert", rowsJSONL(span(300, 330), 1, func(int) string { return "p0" }),
			map[string]string{"hoodie.parquet.small.file.limit": "0", "hoodie.copyonwrite.insert.auto.split": "false", "hoodie.copyonwrite.insert.split.size": "10"}},
	}
	for _, s := range steps {
		tbl := openTable(t, dir)
		res := write(t, tbl, decodeRows(t, s.rows, sc), s.op, now, s.set)
		t.Logf("%s: %+v", s.op, *res)
	}

	// Sanity: 40 inserted, +10 by the upsert, -6 deleted, p1's 15 replaced by 4, +30, +30.
	n := 0
	scan, err := openTable(t, dir).Scan(ctx, hudi.ScanOptions{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := scan.Run(ctx, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 93 {
		t.Errorf("snapshot has %d rows, want 93", n)
	}

	db := openDuckDB(t)
	files := baseFiles(t, dir)
	if len(files) < 8 {
		t.Fatalf("only %d base files written: %v", len(files), files)
	}
	rows := 0
	for _, f := range files {
		t.Run(strings.ReplaceAll(f, "/", "_"), func(t *testing.T) {
			rows += crossReadFile(t, db, filepath.Join(dir, f))
		})
	}
	t.Logf("%d base files, %d rows compared", len(files), rows)
}

// crossReadFile compares one file as read by format/parquet and by DuckDB, and returns
// the number of rows compared.
func crossReadFile(t *testing.T, db *sql.DB, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	pf, err := parquet.OpenBytes(b, path, mem, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fsc := pf.Schema()
	var ours []string
	err = pf.ReadBatches(context.Background(), nil, nil, func(rec arrow.Record) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			row := map[string]any{}
			for c := 0; c < int(rec.NumCols()); c++ {
				row[fsc.Field(c).Name] = canonJSON(t, jsonl.AppendValue(nil, rec.Column(c), i))
			}
			ours = append(ours, mustJSON(t, row))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	q := "'" + strings.ReplaceAll(path, "'", "''") + "'"
	rs, err := db.Query("SELECT * FROM read_parquet(" + q + ")")
	if err != nil {
		t.Fatalf("DuckDB: %v", err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	if len(cols) != fsc.NumFields() {
		t.Fatalf("DuckDB sees columns %v, ours %d", cols, fsc.NumFields())
	}
	var theirs []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := map[string]any{}
		for c, name := range cols {
			if name != fsc.Field(c).Name {
				t.Fatalf("column %d: DuckDB %q, ours %q", c, name, fsc.Field(c).Name)
			}
			row[name] = canon(fromDuck(t, vals[c], fsc.Field(c).Type))
		}
		theirs = append(theirs, mustJSON(t, row))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ours) != len(theirs) || int64(len(ours)) != pf.NumRows() {
		t.Fatalf("rows: ours %d, DuckDB %d, footer %d", len(ours), len(theirs), pf.NumRows())
	}
	for i := range ours {
		if ours[i] != theirs[i] {
			t.Errorf("row %d differs:\n ours   %s\n duckdb %s", i, ours[i], theirs[i])
		}
	}

	// Footer key/values as DuckDB sees them.
	kv := map[string]string{}
	krs, err := db.Query("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" + q + ")")
	if err != nil {
		t.Fatal(err)
	}
	for krs.Next() {
		var k, v string
		if err := krs.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		kv[k] = v
	}
	krs.Close()
	for _, k := range []string{kAvroSchema, kModel, kBloom, kBloomType, kMinKey, kMaxKey} {
		want, ok := pf.Metadata(k)
		if !ok {
			t.Errorf("our reader finds no footer key %s", k)
		}
		if kv[k] != want {
			t.Errorf("DuckDB footer %s = %.80q, our reader %.80q", k, kv[k], want)
		}
	}
	if kv[kBloomType] != "DYNAMIC_V0" || kv[kModel] != "avro" {
		t.Errorf("footer: %s=%s %s=%s", kBloomType, kv[kBloomType], kModel, kv[kModel])
	}
	if kv[kMinKey] > kv[kMaxKey] {
		t.Errorf("min key %q > max key %q", kv[kMinKey], kv[kMaxKey])
	}

	// Schema tree as DuckDB sees it (pre-order, root first) against arrow-go's.
	srs, err := db.Query("SELECT name, type, repetition_type, num_children, converted_type, logical_type FROM parquet_schema(" + q + ")")
	if err != nil {
		t.Fatal(err)
	}
	var duck []string
	for srs.Next() {
		var name string
		var typ, rep, conv, logical sql.NullString
		var nchild sql.NullInt64
		if err := srs.Scan(&name, &typ, &rep, &nchild, &conv, &logical); err != nil {
			t.Fatal(err)
		}
		duck = append(duck, fmt.Sprintf("%s %s %s %d %s", name, typ.String, rep.String, nchild.Int64, conv.String))
	}
	srs.Close()
	if got, want := duck[1:], rawSchema(t, path); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parquet_schema:\n%s", lineDiff(want, got))
	}
	if testing.Verbose() && len(ours) > 0 {
		t.Logf("%d rows; first row (both readers):\n%s\nschema (both): %d nodes, e.g. %q", len(ours), ours[0], len(duck)-1, duck[len(duck)-1])
	}
	return len(ours)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// canonJSON decodes canonical JSON text and normalizes its numbers (see canon).
func canonJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return canon(v)
}

// canon normalizes numbers: integers stay as written, others become the shortest float64
// text (so 1.0 and 1 compare equal, and a float32 printed at float32 precision compares
// with the same value printed by the other side).
func canon(v any) any {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return x
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return x
		}
		if f == float64(int64(f)) {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case []any:
		for i := range x {
			x[i] = canon(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = canon(x[k])
		}
	}
	return v
}

// fromDuck renders a value duckdb-go scanned in the canonical encoding, guided by the
// Arrow type our reader gives the column.
func fromDuck(t *testing.T, v any, dt arrow.DataType) any {
	t.Helper()
	if v == nil {
		return nil
	}
	bad := func() any { t.Fatalf("DuckDB value %T %v for %s", v, v, dt); return nil }
	switch d := dt.(type) {
	case *arrow.BooleanType:
		if b, ok := v.(bool); ok {
			return b
		}
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		switch n := v.(type) {
		case int8, int16, int32, int64:
			return json.Number(fmt.Sprint(n))
		}
	case *arrow.Float32Type:
		if f, ok := v.(float32); ok {
			return json.Number(strconv.FormatFloat(float64(f), 'g', -1, 32))
		}
	case *arrow.Float64Type:
		if f, ok := v.(float64); ok {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case *arrow.StringType:
		if s, ok := v.(string); ok {
			return s
		}
	case *arrow.BinaryType:
		if b, ok := v.([]byte); ok {
			return base64.StdEncoding.EncodeToString(b)
		}
	case *arrow.Decimal128Type:
		if x, ok := v.(duckdb.Decimal); ok {
			if int32(x.Scale) != d.Scale {
				t.Errorf("DuckDB decimal scale %d, column %s", x.Scale, dt)
			}
			return decimalText(x.Value, int(x.Scale))
		}
	case *arrow.Date32Type:
		if tm, ok := v.(time.Time); ok {
			return tm.Format("2006-01-02")
		}
	case *arrow.TimestampType:
		if tm, ok := v.(time.Time); ok {
			return tm.UTC().Format("2006-01-02T15:04:05.000000Z")
		}
	case *arrow.ListType:
		if l, ok := v.([]any); ok {
			out := make([]any, len(l))
			for i, e := range l {
				out[i] = fromDuck(t, e, d.Elem())
			}
			return out
		}
	case *arrow.StructType:
		if m, ok := v.(map[string]any); ok {
			if len(m) != d.NumFields() {
				t.Errorf("DuckDB struct %v for %s", m, dt)
			}
			out := map[string]any{}
			for _, f := range d.Fields() {
				out[f.Name] = fromDuck(t, m[f.Name], f.Type)
			}
			return out
		}
	case *arrow.MapType:
		if m, ok := v.(duckdb.OrderedMap); ok {
			// Canonical maps are sorted by key (jsonl.AppendValue sorts too).
			out := []any{}
			ks, vs := m.Keys(), m.Values()
			for i := range ks {
				out = append(out, map[string]any{"key": fromDuck(t, ks[i], d.KeyType()), "value": fromDuck(t, vs[i], d.ItemType())})
			}
			sort.SliceStable(out, func(i, j int) bool {
				return fmt.Sprint(out[i].(map[string]any)["key"]) < fmt.Sprint(out[j].(map[string]any)["key"])
			})
			return out
		}
	}
	return bad()
}

func decimalText(v *big.Int, scale int) string {
	s := new(big.Int).Abs(v).String()
	for len(s) <= scale {
		s = "0" + s
	}
	if scale > 0 {
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}
