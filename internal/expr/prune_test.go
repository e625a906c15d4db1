package expr

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestMayMatch(t *testing.T) {
	stats := map[string]ColumnStats{
		"fare":   {Min: 1.5, Max: 19.9, NullCount: 0, ValueCount: 10, HasMinMax: true},
		"id":     {Min: int64(10), Max: int64(20), NullCount: 2, ValueCount: 10, HasMinMax: true},
		"one":    {Min: int32(7), Max: int32(7), NullCount: 0, ValueCount: 3, HasMinMax: true},
		"city":   {Min: "chennai", Max: "sao_paulo", NullCount: 0, ValueCount: 10, HasMinMax: true},
		"amount": {Min: big.NewRat(-150, 100), Max: big.NewRat(1050, 100), ValueCount: 5, HasMinMax: true},
		"day":    {Min: Date(19737), Max: Date(19738), ValueCount: 5, HasMinMax: true}, // 2024-01-15..16
		"ts": {Min: TimestampMicros(1705314600000000), Max: TimestampMicros(1705314600000000), // 2024-01-15T10:30:00Z
			ValueCount: 5, HasMinMax: true},
		"tt":       {Min: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Max: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), ValueCount: 1, HasMinMax: true},
		"allnull":  {NullCount: 4, ValueCount: 4},
		"nominmax": {NullCount: 0, ValueCount: 4},
		"nocounts": {Min: int64(1), Max: int64(2), HasMinMax: true},
		"flag":     {Min: false, Max: false, ValueCount: 3, HasMinMax: true},
		"bin":      {Min: []byte("a"), Max: []byte("c"), ValueCount: 3, HasMinMax: true},
		"nan":      {Min: math.NaN(), Max: 5.0, ValueCount: 3, HasMinMax: true},
		"odd":      {Min: struct{}{}, Max: struct{}{}, ValueCount: 3, HasMinMax: true},
	}
	lookup := func(c string) (ColumnStats, bool) {
		s, ok := stats[c]
		return s, ok
	}
	cases := []struct {
		filter string
		want   bool
	}{
		{"fare > 20", false},
		{"fare > 19.9", false},
		{"fare >= 19.9", true},
		{"fare < 1.5", false},
		{"fare <= 1.5", true},
		{"fare = 10", true},
		{"fare = 25", false},
		{"fare != 10", true},
		{"20 < fare", false},
		{"fare > 20 OR city = 'chennai'", true},   // impossible OR possible
		{"fare > 20 AND city = 'chennai'", false}, // impossible AND possible
		{"NOT (fare > 20)", true},
		{"NOT (fare < 100)", true}, // floats: negations stay conservative (NaN rows)
		{"NOT (id < 100)", false},  // ints: NOT (id < 100) is id >= 100, impossible
		{"NOT (id >= 10)", false},
		{"NOT (id > 10 AND id < 20)", true},
		{"NOT (id > 5 OR id < 0)", false}, // id <= 5 AND id >= 0: id <= 5 impossible
		{"NOT NOT (id > 100)", false},
		{"id = 15", true},
		{"id = 15.5", true},
		{"id = 9", false},
		{"id IN (1, 2, 3)", false},
		{"id IN (1, 12)", true},
		{"id IN (NULL)", false},
		{"id NOT IN (1, 2)", true},
		{"one NOT IN (7)", false},
		{"one NOT IN (6, 7)", false},
		{"one NOT IN (6, 8)", true},
		{"id NOT IN (12, NULL)", false},
		{"one != 7", false},
		{"NOT (one = 7)", false},
		{"one = 7", true},
		{"id BETWEEN 21 AND 30", false},
		{"id BETWEEN 20 AND 30", true},
		{"id BETWEEN 0 AND 9", false},
		{"id NOT BETWEEN 0 AND 100", false},
		{"id NOT BETWEEN 12 AND 15", true},
		{"NOT (id BETWEEN 0 AND 100)", false},
		{"id IS NULL", true},
		{"fare IS NULL", false},
		{"NOT (fare IS NULL)", true},
		{"fare IS NOT NULL", true},
		{"allnull IS NOT NULL", false},
		{"NOT (allnull IS NULL)", false},
		{"allnull IS NULL", true},
		{"allnull = 1", false},
		{"allnull != 1", false},
		{"nominmax = 1", true},
		{"nocounts IS NULL", true}, // counts unknown
		{"nocounts = 5", false},
		{"city = 'sao_paulo'", true},
		{"city = 'zurich'", false},
		{"city < 'c'", false},
		{"city LIKE 'sao%'", true},
		{"city LIKE 'z%'", false},
		{"city LIKE 'a%'", false},
		{"city LIKE 'chennai_x%'", true},
		{"city LIKE 'chen%'", true},
		{"city LIKE '%x'", true},
		{"city LIKE 'zurich'", false},
		{"city NOT LIKE 'a%'", true},
		{"NOT (city LIKE 'a%')", true},
		{"amount > 10.5", false},
		{"amount >= 10.5", true},
		{"amount = '10.50'", true},
		{"amount < -1.5", false},
		{"day = '2024-01-17'", false},
		{"day = '2024-01-16'", true},
		{"day > '2024-01-16 00:00:01'", false},
		{"ts = '2024-01-15 10:30:00'", true},
		{"ts > '2024-01-15T10:30:00Z'", false},
		{"ts = '2024-01-15T05:30:00-05:00'", true},
		{"tt > '2024-03-01'", false},
		{"tt >= '2024-02-01'", true},
		{"flag = true", false},
		{"flag", false},
		{"NOT flag", true},
		{"bin = 'b'", true},
		{"bin = 'd'", false},
		{"nan > 100", true}, // NaN bound: undecidable
		{"odd = 1", true},   // unknown statistic type
		{"nostats = 1", true},
		{"id = 'abc'", true}, // literal does not convert: unknown
		{"id = NULL", false},
		{"fare > 20 OR nostats = 1", true},
	}
	for _, tc := range cases {
		e, err := Parse(tc.filter)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.filter, err)
			continue
		}
		if got := MayMatch(e, lookup); got != tc.want {
			t.Errorf("MayMatch(%s) = %v, want %v", tc.filter, got, tc.want)
		}
	}
}

func TestMayMatchPartition(t *testing.T) {
	cases := []struct {
		filter string
		values map[string]string
		want   bool
	}{
		{"city = 'sao_paulo'", map[string]string{"city": "sao_paulo"}, true},
		{"city = 'sao_paulo'", map[string]string{"city": "chennai"}, false},
		{"city != 'sao_paulo'", map[string]string{"city": "sao_paulo"}, false},
		{"NOT city = 'sao_paulo'", map[string]string{"city": "sao_paulo"}, false},
		{"city IN ('a', 'chennai')", map[string]string{"city": "chennai"}, true},
		{"city LIKE 'sao%'", map[string]string{"city": "san_francisco"}, false},
		{"City = 'chennai'", map[string]string{"city": "chennai"}, true},
		{"city = 'sao_paulo' AND fare > 20", map[string]string{"city": "sao_paulo"}, true},
		{"city = 'sao_paulo' AND fare > 20", map[string]string{"city": "chennai"}, false},
		{"city = 'sao_paulo' OR fare > 20", map[string]string{"city": "chennai"}, true}, // fare unknown
		{"fare > 20", map[string]string{"city": "chennai"}, true},
		// Numeric partition values compare numerically as well as textually.
		{"byteField = 10", map[string]string{"byteField": "10"}, true},
		{"byteField > 9", map[string]string{"byteField": "10"}, true},
		{"byteField > '9'", map[string]string{"byteField": "10"}, true},
		{"byteField < 9", map[string]string{"byteField": "10"}, true}, // "10" < "9" as text
		{"byteField = 11", map[string]string{"byteField": "10"}, false},
		{"byteField = 10.0", map[string]string{"byteField": "10"}, true},
		{"byteField BETWEEN 1 AND 5", map[string]string{"byteField": "10"}, true}, // text: "1" <= "10" <= "5"
		{"byteField BETWEEN 11 AND 20", map[string]string{"byteField": "10"}, false},
		{"flag = true", map[string]string{"flag": "false"}, false},
		{"dt >= '2024-01-15'", map[string]string{"dt": "2024-01-14"}, false},
		{"dt >= '2024-01-15'", map[string]string{"dt": "2024-01-15"}, true},
		// The Hive default partition holds nulls.
		{"city IS NULL", map[string]string{"city": HiveDefaultPartition}, true},
		{"city = 'x'", map[string]string{"city": HiveDefaultPartition}, false},
		{"city IS NOT NULL", map[string]string{"city": HiveDefaultPartition}, false},
		{"city IS NULL", map[string]string{"city": "x"}, false},
		{"city IS NOT NULL", map[string]string{"city": "x"}, true},
	}
	for _, tc := range cases {
		e, err := Parse(tc.filter)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.filter, err)
			continue
		}
		if got := MayMatchPartition(e, tc.values); got != tc.want {
			t.Errorf("MayMatchPartition(%s, %v) = %v, want %v", tc.filter, tc.values, got, tc.want)
		}
	}
}

// TestMayMatchAgreesWithEvaluate checks soundness on real rows: with statistics describing a
// single row exactly, MayMatch must be true whenever Evaluate selects that row.
func TestMayMatchAgreesWithEvaluate(t *testing.T) {
	mem := checkedMem(t)
	rec := testRecord(t, mem)
	defer rec.Release()
	filters := []string{
		"id = 1", "id != 1", "id > 2.5", "NOT (id > 1)", "NOT id IN (1, 2)", "id NOT BETWEEN 2 AND 5",
		"fare > 20", "fare != 20", "NOT (fare < 100)", "NOT (fare = 25)", "city LIKE 'sa%'", "NOT (city LIKE 's%')",
		"city NOT IN ('chennai')", "amount BETWEEN -2 AND 0", "NOT (amount > 0)", "day > '2024-01-15 10:00:00'",
		"ts >= '2024-01-15'", "NOT (ts < '2024-01-15')", "ok", "NOT ok", "id IS NULL", "NOT (city IS NULL)",
		"(id > 1 OR city = 'x') AND NOT (amount = 10.5)",
	}
	for row := range int(rec.NumRows()) {
		one := rec.NewSlice(int64(row), int64(row+1))
		lookup := func(col string) (ColumnStats, bool) {
			k := one.Schema().FieldIndices(col)
			if len(k) == 0 {
				return ColumnStats{}, false
			}
			arr := one.Column(k[0])
			if arr.IsNull(0) {
				return ColumnStats{NullCount: 1, ValueCount: 1}, true
			}
			var v any
			switch a := arr.(type) {
			case *array.Int32:
				v = int64(a.Value(0))
			case *array.Float64:
				v = a.Value(0)
			case *array.String:
				v = a.Value(0)
			case *array.Decimal128:
				v = new(big.Rat).SetFrac(a.Value(0).BigInt(), big.NewInt(100))
			case *array.Date32:
				v = Date(a.Value(0))
			case *array.Timestamp:
				v = TimestampMicros(a.Value(0))
			case *array.Boolean:
				v = a.Value(0)
			default:
				return ColumnStats{}, false
			}
			return ColumnStats{Min: v, Max: v, ValueCount: 1, HasMinMax: true}, true
		}
		for _, f := range filters {
			e, err := Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			mask, err := Evaluate(e, one)
			if err != nil {
				t.Fatal(err)
			}
			if mask[0] && !MayMatch(e, lookup) {
				t.Errorf("row %d selected by %s, but MayMatch says no", row+1, f)
			}
		}
		one.Release()
	}
}
