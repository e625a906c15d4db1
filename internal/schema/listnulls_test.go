package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CheckListElements finds a null list element at any depth and names the input row,
// column path and index (parquet-avro's old-list writer refuses null elements).
func TestCheckListElements(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	listOf := func(dt arrow.DataType) arrow.DataType {
		return arrow.ListOfField(arrow.Field{Name: "element", Type: dt, Nullable: true})
	}
	tests := []struct {
		name string
		typ  arrow.DataType
		json string
		want string // "" = accepted
	}{
		{"no nulls", listOf(arrow.BinaryTypes.String), `[["a"], null, []]`, ""},
		{"null list is fine", listOf(arrow.BinaryTypes.String), `[null]`, ""},
		{"top level", listOf(arrow.BinaryTypes.String), `[["a"], ["b", null]]`, "input row 12, column c: the array contains a null element at index 1"},
		{"list of lists, inner", listOf(listOf(arrow.PrimitiveTypes.Int32)), `[[[1]], [[2], [3, null]]]`, "input row 12, column c[]: the array contains a null element at index 1"},
		{"list of lists, outer", listOf(listOf(arrow.PrimitiveTypes.Int32)), `[[[1], null]]`, "input row 11, column c: the array contains a null element at index 1"},
		{"struct field", arrow.StructOf(arrow.Field{Name: "xs", Type: listOf(arrow.PrimitiveTypes.Int64), Nullable: true}),
			`[{"xs": [1]}, null, {"xs": [null]}]`, "input row 13, column c.xs: the array contains a null element at index 0"},
		{"map value", arrow.MapOf(arrow.BinaryTypes.String, listOf(arrow.PrimitiveTypes.Int64)),
			`[[{"key": "k", "value": [1, null]}]]`, "input row 11, column c.value: the array contains a null element at index 1"},
		{"null map value is fine", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), `[[{"key": "k", "value": null}]]`, ""},
	}
	for _, tc := range tests {
		arr, _, err := array.FromJSON(mem, tc.typ, strings.NewReader(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "c", Type: tc.typ, Nullable: true}}, nil), []arrow.Array{arr}, int64(arr.Len()))
		err = CheckListElements(rec, 10)
		rec.Release()
		arr.Release()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
