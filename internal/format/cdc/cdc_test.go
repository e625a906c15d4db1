package cdc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
)

// tripsSchema is the seed guide's CDC example table (ts, uuid, rider, driver, fare, city)
// as Spark's HoodieSparkSqlWriter names it: record <table>_record in hoodie.<table>.
const tripsSchema = `{"type":"record","name":"hudi_table_record","namespace":"hoodie.hudi_table","fields":[` +
	`{"name":"ts","type":"long"},{"name":"uuid","type":["null","string"],"default":null},` +
	`{"name":"rider","type":["null","string"],"default":null},{"name":"driver","type":["null","string"],"default":null},` +
	`{"name":"fare","type":"double"},{"name":"city","type":["null","string"],"default":null}]}`

// The CDC record schemas, pinned as golden files: the field names, their order, the
// nullable unions (["null",x] from AvroSchemaUtils.createNullableSchema, but ["string","null"]
// in the OP_KEY_ONLY constant), doc "" and default null of each field
// (HoodieCDCUtils.schemaBySupplementalLoggingMode / createCDCSchema /
// CDC_SCHEMA_OP_AND_RECORDKEY_STRING). Run with -update to rewrite them.
func TestSchemaGolden(t *testing.T) {
	for _, mode := range []Mode{OpKeyOnly, DataBefore, DataBeforeAfter} {
		t.Run(mode.String(), func(t *testing.T) {
			got, err := Schema(mode, tripsSchema)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := avro.Parse(got); err != nil {
				t.Fatalf("schema does not parse: %v\n%s", err, got)
			}
			golden := filepath.Join("testdata", "schema_"+strings.ToLower(mode.String())+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got+"\n" != string(want) {
				t.Errorf("schema =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestSchemaFieldOrder(t *testing.T) {
	// HoodieCDCUtils.createCDCSchema: op, ts_ms, before, after with the after image;
	// op, record_key, before without it.
	for mode, want := range map[Mode]string{
		OpKeyOnly:       `"op" "record_key"`,
		DataBefore:      `"op" "record_key" "before"`,
		DataBeforeAfter: `"op" "ts_ms" "before" "after"`,
	} {
		s, err := Schema(mode, tripsSchema)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, part := range strings.Split(s, `{"name":`)[1:] {
			n := part[:strings.IndexByte(part[1:], '"')+2]
			if n == `"op"` || n == `"ts_ms"` || n == `"record_key"` || n == `"before"` || n == `"after"` {
				names = append(names, n)
			}
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s fields = %s, want %s", mode, got, want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": DataBeforeAfter, "op_key_only": OpKeyOnly, "DATA_BEFORE": DataBefore,
		"data_before_after": DataBeforeAfter, " Data_Before ": DataBefore} {
		got, err := ParseMode(in)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"KEY_OP", "cdc_op_key", "data_after"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) accepted", bad)
		}
	}
}

// AppendRecord writes the same bytes as a generic Avro encoder given the schema of Schema:
// the hand-written union branches and image embedding are those of the schema.
func TestAppendRecordMatchesSchema(t *testing.T) {
	table, err := avro.Parse(tripsSchema)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]any{"ts": int64(1695158649187), "uuid": "334e26e9", "rider": "rider-A", "driver": "driver-K", "fare": 19.1, "city": "san_francisco"}
	after := map[string]any{"ts": int64(1695158649187), "uuid": "334e26e9", "rider": "rider-A", "driver": "driver-K", "fare": 191.0, "city": "san_francisco"}
	enc := func(v map[string]any) []byte {
		if v == nil {
			return nil
		}
		b, err := table.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const instant = "20240101000000000"
	cases := []struct {
		mode          Mode
		op            Op
		key           string
		before, after map[string]any
		generic       map[string]any
	}{
		{OpKeyOnly, Update, "334e26e9", before, after, map[string]any{"op": "u", "record_key": "334e26e9"}},
		{DataBefore, Delete, "334e26e9", before, nil, map[string]any{"op": "d", "record_key": "334e26e9", "before": before}},
		{DataBefore, Insert, "334e26e9", nil, after, map[string]any{"op": "i", "record_key": "334e26e9", "before": nil}},
		{DataBeforeAfter, Update, instant, before, after, map[string]any{"op": "u", "ts_ms": instant, "before": before, "after": after}},
		{DataBeforeAfter, Insert, instant, nil, after, map[string]any{"op": "i", "ts_ms": instant, "before": nil, "after": after}},
		{DataBeforeAfter, Delete, instant, before, nil, map[string]any{"op": "d", "ts_ms": instant, "before": before, "after": nil}},
	}
	for _, tc := range cases {
		sch, err := Schema(tc.mode, tripsSchema)
		if err != nil {
			t.Fatal(err)
		}
		s, err := avro.Parse(sch)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.Encode(tc.generic)
		if err != nil {
			t.Fatalf("%s %c: generic encode: %v", tc.mode, tc.op, err)
		}
		got := AppendRecord(nil, tc.mode, tc.op, tc.key, enc(tc.before), enc(tc.after))
		if !bytes.Equal(got, want) {
			t.Errorf("%s %c: AppendRecord = %x, generic = %x", tc.mode, tc.op, got, want)
		}
		// And it decodes back.
		d, err := NewDecoder(tc.mode, sch, tripsSchema)
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.Decode(got)
		if err != nil {
			t.Fatalf("%s %c: decode: %v", tc.mode, tc.op, err)
		}
		if r.Op != tc.op || r.Key != tc.key {
			t.Errorf("%s: decoded op %c key %q", tc.mode, r.Op, r.Key)
		}
		if tc.mode.StoresBefore() && (r.Before == nil) != (tc.before == nil || tc.op == Insert) {
			t.Errorf("%s %c: before = %v", tc.mode, tc.op, r.Before)
		}
	}
}

// A block written when the table had fewer columns decodes in the current schema's shape,
// the new column null (Java reads CDC blocks with the latest table schema's CDC schema).
func TestDecodeEvolvedSchema(t *testing.T) {
	old := `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[{"name":"id","type":"string"}]}`
	cur := `{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[{"name":"id","type":"string"},{"name":"v","type":["null","long"],"default":null}]}`
	oldTable, _ := avro.Parse(old)
	img, err := oldTable.Encode(map[string]any{"id": "k1"})
	if err != nil {
		t.Fatal(err)
	}
	writer, _ := Schema(DataBeforeAfter, old)
	d, err := NewDecoder(DataBeforeAfter, writer, cur)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Decode(AppendRecord(nil, DataBeforeAfter, Delete, "20240101000000000", img, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Before["id"] != "k1" || r.Before["v"] != nil || r.After != nil {
		t.Errorf("decoded %+v", r)
	}
}

func TestDecoderRefusesOtherMode(t *testing.T) {
	writer, _ := Schema(DataBefore, tripsSchema)
	if _, err := NewDecoder(DataBeforeAfter, writer, tripsSchema); err == nil || !strings.Contains(err.Error(), "DATA_BEFORE_AFTER") {
		t.Errorf("a DATA_BEFORE block read as DATA_BEFORE_AFTER: err = %v", err)
	}
	if _, err := NewDecoder(OpKeyOnly, "not json", tripsSchema); err == nil {
		t.Error("a non-schema header was accepted")
	}
}
