package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hudi-go/hudi/internal/avro"
)

// appendLogBlocks decodes every record of the Avro data blocks in a real log file and
// appends them to one record of the target schema.
func appendLogBlocks(t *testing.T, mem memory.Allocator, logFile string, target *arrow.Schema) arrow.Record {
	t.Helper()
	rb := array.NewRecordBuilder(mem, target)
	defer rb.Release()
	for _, blk := range readAvroLogBlocks(t, readTestdata(t, logFile)) {
		ws, err := avro.Parse(blk.schema)
		if err != nil {
			t.Fatal(err)
		}
		app, err := NewRecordAppender(blk.schema, target)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range blk.records {
			v, _, err := ws.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := app.Append(rb, v.(map[string]any)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return rb.NewRecordBatch()
}

func TestRecordAppenderRealLogs(t *testing.T) {
	t.Run("trips v6", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		target := tableSchema(t, loadAvsc(t, "trips_v6_8i1u"))
		rec := appendLogBlocks(t, mem, "trips_v6_8i1u.log", target)
		defer rec.Release()
		if rec.NumRows() != 1 {
			t.Fatalf("%d rows", rec.NumRows())
		}
		// Expected: fixtures expected/trips-mor-avro/v6_trips_8i1u/snapshot.jsonl.
		want := map[string]string{
			CommitTimeField: "20250331030645735", RecordKeyField: "9909a8b1-2d15-4d3d-8ec9-efc48c536a00",
			FileNameField: "d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0", PartitionPathField: "city=san_francisco",
			"rider": "rider-D", "driver": "driver-L", "city": "san_francisco",
		}
		for col, w := range want {
			if got := column(t, rec, col).(*array.String).Value(0); got != w {
				t.Errorf("%s = %q, want %q", col, got, w)
			}
		}
		if got := column(t, rec, "ts").(*array.Int64).Value(0); got != 1695046462179 {
			t.Errorf("ts = %d", got)
		}
		if got := column(t, rec, "fare").(*array.Float64).Value(0); got != 25.0 {
			t.Errorf("fare = %v", got)
		}
	})

	t.Run("v9 txns decimals", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		target := tableSchema(t, loadAvsc(t, "mor_avro_v9_txns_nonpart_meta"))
		rec := appendLogBlocks(t, mem, "mor_avro_v9_txns_nonpart_meta.log", target)
		defer rec.Release()
		if !rec.Schema().Equal(target) {
			t.Fatalf("schema %s", rec.Schema())
		}
		i, ok := rowsByKey(t, rec, "txn_id")["TXN-005"]
		if !ok {
			t.Fatal("TXN-005 missing")
		}
		// Expected: fixtures expected/mor-avro/v9_txns_nonpart_meta/asof_20260307162706874.jsonl.
		if got := decStr(column(t, rec, "amount"), i); got != "2500.00" {
			t.Errorf("amount = %s", got)
		}
		if got := decStr(column(t, rec, "fee_amount"), i); got != "0.00" {
			t.Errorf("fee_amount = %s", got)
		}
		if got := column(t, rec, "txn_datetime").(*array.Timestamp).Value(i); got != micros(t, "2024-01-15T22:30:00Z") {
			t.Errorf("txn_datetime = %d", got)
		}
		if got := column(t, rec, "txn_date").(*array.Date32).Value(i); got != days(t, "2024-01-15") {
			t.Errorf("txn_date = %d", got)
		}
		if got := column(t, rec, "is_international").(*array.Boolean).Value(i); got {
			t.Error("is_international = true")
		}
	})

	t.Run("v9 txns onto an evolved schema", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		// Later schema: wider decimal (same and larger scale), long → double, a new
		// column, a dropped column (merchant_name) and a case change.
		target := arrow.NewSchema([]arrow.Field{
			{Name: "TXN_ID", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "txn_ts", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			{Name: "amount", Type: dec(20, 4), Nullable: true},
			{Name: "fee_amount", Type: &arrow.Decimal256Type{Precision: 40, Scale: 2}, Nullable: true},
			{Name: "new_col", Type: arrow.BinaryTypes.String, Nullable: true},
		}, nil)
		rec := appendLogBlocks(t, mem, "mor_avro_v9_txns_nonpart_meta.log", target)
		defer rec.Release()
		i, ok := rowsByKey(t, rec, "TXN_ID")["TXN-005"]
		if !ok {
			t.Fatal("TXN-005 missing")
		}
		if got := decStr(column(t, rec, "amount"), i); got != "2500.0000" {
			t.Errorf("amount = %s", got)
		}
		if got := decStr(column(t, rec, "fee_amount"), i); got != "0.00" {
			t.Errorf("fee_amount = %s", got)
		}
		if got := column(t, rec, "txn_ts").(*array.Float64).Value(i); got != 1700200000005 {
			t.Errorf("txn_ts = %v", got)
		}
		if c := column(t, rec, "new_col"); c.NullN() != c.Len() {
			t.Error("new_col not null")
		}
	})
}

// allTypesValue is one row of the v6 all-types table schema in raw Avro generic form.
func allTypesValue() map[string]any {
	return map[string]any{
		"id": int32(2), "name": "Bob", "isActive": false, "byteField": int32(0), "shortField": int32(100),
		"intField": int32(25000), "longField": int64(9876543210), "floatField": float32(2), "doubleField": 2.71828,
		// 67890.12345 unscaled = 6789012345 = 0x01_94_A8_1B_79 in 5 bytes.
		"decimalField": []byte{0x01, 0x94, 0xa8, 0x1b, 0x79},
		"dateField":    int32(19449), "timestampField": int64(1680440520000000), "binaryField": []byte("more binary data"),
		"arrayField": []any{
			map[string]any{"arr_struct_f1": "yellow", "arr_struct_f2": int32(400)},
			nil,
			map[string]any{"arr_struct_f1": nil, "arr_struct_f2": int32(500)},
		},
		"mapField": map[string]any{
			"key4": map[string]any{"map_field_value_struct_f1": 567.89, "map_field_value_struct_f2": false},
			"key3": map[string]any{"map_field_value_struct_f1": 234.567, "map_field_value_struct_f2": true},
			"key5": nil,
		},
		"structField": map[string]any{
			"field1": "Bob", "field2": int32(40),
			"child_struct": map[string]any{"child_field1": 789.012, "child_field2": nil},
		},
	}
}

// TestRecordAppenderAllTypes round-trips hand-built values through the real v6 all-types
// schema (internal/avro Encode → Decode) and appends the decoded records.
func TestRecordAppenderAllTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	avsc := loadAvsc(t, "cow_v6_nonpartitioned")
	ws, err := avro.Parse(avsc)
	if err != nil {
		t.Fatal(err)
	}
	target := tableSchema(t, avsc)
	app, err := NewRecordAppender(avsc, target)
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(mem, target)
	defer rb.Release()
	nullRow := map[string]any{}
	for _, in := range []map[string]any{allTypesValue(), nullRow} {
		data, err := ws.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := ws.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Append(rb, v.(map[string]any)); err != nil {
			t.Fatal(err)
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()

	want, _, err := array.RecordFromJSON(mem, target, strings.NewReader(`[
	  {"id": 2, "name": "Bob", "isActive": false, "byteField": 0, "shortField": 100, "intField": 25000,
	   "longField": 9876543210, "floatField": 2, "doubleField": 2.71828, "decimalField": "67890.12345",
	   "dateField": 19449, "timestampField": 1680440520000000, "binaryField": "bW9yZSBiaW5hcnkgZGF0YQ==",
	   "arrayField": [{"arr_struct_f1": "yellow", "arr_struct_f2": 400}, null, {"arr_struct_f1": null, "arr_struct_f2": 500}],
	   "mapField": [{"key": "key3", "value": {"map_field_value_struct_f1": 234.567, "map_field_value_struct_f2": true}},
	                {"key": "key4", "value": {"map_field_value_struct_f1": 567.89, "map_field_value_struct_f2": false}},
	                {"key": "key5", "value": null}],
	   "structField": {"field1": "Bob", "field2": 40, "child_struct": {"child_field1": 789.012, "child_field2": null}}},
	  {}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if !array.RecordEqual(rec, want) {
		t.Errorf("appended:\n%v\nwant:\n%v", rec, want)
	}
	for i := 0; i < int(rec.NumCols()); i++ {
		if !rec.Column(i).IsNull(1) {
			t.Errorf("column %s of the all-null row is not null", rec.ColumnName(i))
		}
	}
	if got := decStr(column(t, rec, "decimalField"), 0); got != "67890.12345" {
		t.Errorf("decimalField = %s", got)
	}
}

// TestValueAppender covers each writer → target pairing, including the logical types and
// widenings Hudi tables meet.
func TestValueAppender(t *testing.T) {
	cases := []struct {
		name   string
		writer string
		target arrow.DataType
		values []any
		want   string // JSON of the target array
	}{
		{"int→int32", `["null","int"]`, arrow.PrimitiveTypes.Int32, []any{int32(1), nil}, `[1, null]`},
		{"int→long", `["null","int"]`, arrow.PrimitiveTypes.Int64, []any{int32(-1), nil}, `[-1, null]`},
		{"int→float", `"int"`, arrow.PrimitiveTypes.Float32, []any{int32(3)}, `[3]`},
		{"int→double", `"int"`, arrow.PrimitiveTypes.Float64, []any{int32(3)}, `[3]`},
		{"int→string", `"int"`, arrow.BinaryTypes.String, []any{int32(-3)}, `["-3"]`},
		{"long→double", `"long"`, arrow.PrimitiveTypes.Float64, []any{int64(1) << 40}, `[1099511627776]`},
		{"long→float", `"long"`, arrow.PrimitiveTypes.Float32, []any{int64(5)}, `[5]`},
		{"long→string", `["null","long"]`, arrow.BinaryTypes.String, []any{int64(1705367700000), nil}, `["1705367700000", null]`},
		{"string→long", `["null","string"]`, arrow.PrimitiveTypes.Int64, []any{"1705367700000", nil}, `[1705367700000, null]`},
		{"float→float", `"float"`, arrow.PrimitiveTypes.Float32, []any{float32(1.5)}, `[1.5]`},
		{"float→double", `"float"`, arrow.PrimitiveTypes.Float64, []any{float32(1.1)}, `[1.100000023841858]`},
		{"double", `"double"`, arrow.PrimitiveTypes.Float64, []any{2.5}, `[2.5]`},
		{"boolean", `"boolean"`, arrow.FixedWidthTypes.Boolean, []any{true, nil}, `[true, null]`},
		{"string→binary", `"string"`, arrow.BinaryTypes.Binary, []any{"hi"}, `["aGk="]`},
		{"bytes→string", `"bytes"`, arrow.BinaryTypes.String, []any{[]byte("hi")}, `["hi"]`},
		{"bytes→binary", `"bytes"`, arrow.BinaryTypes.Binary, []any{[]byte("hi"), nil}, `["aGk=", null]`},
		{"fixed→fixed", `{"type":"fixed","name":"f","size":2}`, &arrow.FixedSizeBinaryType{ByteWidth: 2}, []any{[]byte("hi")}, `["aGk="]`},
		{"enum→string", `{"type":"enum","name":"e","symbols":["A","B"]}`, arrow.BinaryTypes.String, []any{"B"}, `["B"]`},
		{"date", `{"type":"int","logicalType":"date"}`, arrow.FixedWidthTypes.Date32, []any{int32(19449)}, `[19449]`},
		{"timestamp-micros", `["null",{"type":"long","logicalType":"timestamp-micros"}]`, tsUTC(arrow.Microsecond), []any{int64(1680440520000000), nil}, `[1680440520000000, null]`},
		{"timestamp-millis ×1000", `{"type":"long","logicalType":"timestamp-millis"}`, tsUTC(arrow.Microsecond), []any{int64(1680440520123), int64(-1)}, `[1680440520123000, -1000]`},
		{"local-timestamp-millis", `{"type":"long","logicalType":"local-timestamp-millis"}`, &arrow.TimestampType{Unit: arrow.Microsecond}, []any{int64(7)}, `[7000]`},
		{"timestamp-nanos → us", `{"type":"long","logicalType":"timestamp-nanos"}`, tsUTC(arrow.Microsecond), []any{int64(1500), int64(-1500)}, `[1, -2]`},
		{"timestamp as raw long", `{"type":"long","logicalType":"timestamp-micros"}`, arrow.PrimitiveTypes.Int64, []any{int64(5)}, `[5]`},
		{"time-millis", `{"type":"int","logicalType":"time-millis"}`, arrow.FixedWidthTypes.Time64us, []any{int32(1500)}, `[1500000]`},
		{"time-micros", `{"type":"long","logicalType":"time-micros"}`, arrow.FixedWidthTypes.Time64us, []any{int64(1500)}, `[1500]`},
		{"bytes decimal", `{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`, dec(10, 2), []any{[]byte{0xff, 0x6a}, []byte{0x00, 0x96}, []byte{}}, `["-1.50", "1.50", "0.00"]`},
		{"fixed decimal rescaled", `["null",{"type":"fixed","name":"fixed","size":7,"logicalType":"decimal","precision":15,"scale":2}]`, dec(20, 4), []any{[]byte{0, 0, 0, 0, 0x03, 0xd0, 0x90}, nil}, `["2500.0000", null]`},
		{"fixed decimal → decimal256", `{"type":"fixed","name":"fixed","size":5,"logicalType":"decimal","precision":10,"scale":5}`, &arrow.Decimal256Type{Precision: 40, Scale: 5}, []any{[]byte{0x01, 0x94, 0xa8, 0x1b, 0x79}}, `["67890.12345"]`},
		{"long decimal bytes with sign extension", `{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`, dec(10, 2),
			[]any{append(make([]byte, 0, 20), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x6a)}, `["-1.50"]`},
		{"array of nullable int → list<int64>", `{"type":"array","items":["null","int"]}`, arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int64, Nullable: true}),
			[]any{[]any{int32(1), nil}, nil, []any{}}, `[[1, null], null, []]`},
		{"map sorted by key", `["null",{"type":"map","values":["null","long"]}]`, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64),
			[]any{map[string]any{"b": int64(2), "a": nil, "c": int64(3)}, nil, map[string]any{}},
			`[[{"key": "a", "value": null}, {"key": "b", "value": 2}, {"key": "c", "value": 3}], null, []]`},
		{"record by name, missing → null, case-insensitive",
			`{"type":"record","name":"r","fields":[{"name":"X","type":"int"},{"name":"gone","type":"string"},{"name":"s","type":["null","string"]}]}`,
			arrow.StructOf(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				arrow.Field{Name: "added", Type: arrow.PrimitiveTypes.Float64, Nullable: true}),
			[]any{map[string]any{"X": int32(1), "gone": "g", "s": "v"}, nil, map[string]any{"X": int32(2), "gone": "g", "s": nil}},
			`[{"s": "v", "x": 1, "added": null}, null, {"s": null, "x": 2, "added": null}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			app, err := NewValueAppender(c.writer, c.target)
			if err != nil {
				t.Fatal(err)
			}
			b := array.NewBuilder(mem, c.target)
			defer b.Release()
			for _, v := range c.values {
				if err := app.Append(b, v); err != nil {
					t.Fatal(err)
				}
			}
			got := b.NewArray()
			defer got.Release()
			want := fromJSON(t, mem, c.target, c.want)
			defer want.Release()
			if !array.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestAppenderErrors(t *testing.T) {
	compileCases := []struct {
		name, writer string
		target       arrow.DataType
		wantErr      string
	}{
		{"narrowing", `"long"`, arrow.PrimitiveTypes.Int32, "cannot read avro long as arrow int32"},
		{"string to int32", `"string"`, arrow.PrimitiveTypes.Int32, "cannot read avro string as arrow int32"},
		{"multi-branch union", `["null","int","string"]`, arrow.PrimitiveTypes.Int64, "union of several non-null types"},
		{"fixed size mismatch", `{"type":"fixed","name":"f","size":3}`, &arrow.FixedSizeBinaryType{ByteWidth: 2}, "cannot read avro fixed f"},
		{"nested path", `{"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":"boolean"}}]}`,
			arrow.StructOf(arrow.Field{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true}), "field a[]: cannot read avro boolean as arrow int32"},
	}
	for _, c := range compileCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewValueAppender(c.writer, c.target)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}

	valueCases := []struct {
		name, writer string
		target       arrow.DataType
		value        any
		wantErr      string
	}{
		{"wrong Go type", `"long"`, arrow.PrimitiveTypes.Int64, "12", "avro long value has unexpected Go type string"},
		{"unparseable string", `"string"`, arrow.PrimitiveTypes.Int64, "12x", `string "12x" is not a int64`},
		{"decimal overflow", `{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`, dec(3, 2), []byte{0x03, 0xe8}, "does not fit precision 3"},
		{"decimal scale loss", `{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`, dec(10, 1), []byte{0x00, 0x97}, "rescale decimal"},
	}
	for _, c := range valueCases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			app, err := NewValueAppender(c.writer, c.target)
			if err != nil {
				t.Fatal(err)
			}
			b := array.NewBuilder(mem, c.target)
			defer b.Release()
			err = app.Append(b, c.value)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}

	t.Run("record builder of another schema", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		avsc := loadAvsc(t, "trips_v6_8i1u")
		app, err := NewRecordAppender(avsc, tableSchema(t, avsc))
		if err != nil {
			t.Fatal(err)
		}
		rb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil))
		defer rb.Release()
		if err := app.Append(rb, map[string]any{}); err == nil {
			t.Fatal("no error for mismatched builder")
		}
	})
}

func BenchmarkRecordAppender(b *testing.B) {
	avsc := loadAvsc(b, "cow_v6_nonpartitioned")
	ws, err := avro.Parse(avsc)
	if err != nil {
		b.Fatal(err)
	}
	data, err := ws.Encode(allTypesValue())
	if err != nil {
		b.Fatal(err)
	}
	v, _, err := ws.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	rec := v.(map[string]any)
	target := tableSchema(b, avsc)
	app, err := NewRecordAppender(avsc, target)
	if err != nil {
		b.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), target)
	defer rb.Release()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := app.Append(rb, rec); err != nil {
			b.Fatal(err)
		}
		if i%4096 == 4095 {
			rb.NewRecordBatch().Release()
		}
	}
}
