package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestCheckAddedColumns: ALTER TABLE ADD COLUMNS may put nullable new columns anywhere
// (Java's AlterHoodieTableAddColumnsCommand puts them before the partition columns) but
// must keep every table column with its type and nullability.
func TestCheckAddedColumns(t *testing.T) {
	f := func(name string, typ arrow.DataType, nullable bool) arrow.Field {
		return arrow.Field{Name: name, Type: typ, Nullable: nullable}
	}
	str, i64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64
	table := arrow.NewSchema([]arrow.Field{f("id", i64, false), f("v", str, true), f("city", str, true)}, nil)
	for _, tc := range []struct {
		name   string
		next   []arrow.Field
		errMsg string
	}{
		{"before the partition column", []arrow.Field{f("id", i64, false), f("v", str, true), f("note", str, true), f("city", str, true)}, ""},
		{"at the end", []arrow.Field{f("id", i64, false), f("v", str, true), f("city", str, true), f("note", str, true)}, ""},
		{"meta columns ignored", []arrow.Field{f("_hoodie_record_key", str, true), f("id", i64, false), f("v", str, true), f("city", str, true)}, ""},
		{"missing column", []arrow.Field{f("id", i64, false), f("note", str, true), f("city", str, true)}, `column "v" of the table is missing`},
		{"type change", []arrow.Field{f("id", str, false), f("v", str, true), f("city", str, true)}, `column "id" changes from`},
		{"nullability change", []arrow.Field{f("id", i64, true), f("v", str, true), f("city", str, true)}, `column "id" changes`},
		{"not null new column", []arrow.Field{f("id", i64, false), f("v", str, true), f("x", str, false), f("city", str, true)}, `new column "x" is NOT NULL`},
		{"case-only twin", []arrow.Field{f("id", i64, false), f("v", str, true), f("V", str, true), f("city", str, true)}, `differs from an existing column only in case`},
	} {
		err := CheckAddedColumns(table, arrow.NewSchema(tc.next, nil))
		switch {
		case tc.errMsg == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.errMsg != "" && (err == nil || !strings.Contains(err.Error(), tc.errMsg)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.errMsg)
		}
	}
}
