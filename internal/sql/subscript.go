package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/sql/parser"
)

// subscriptKinds decides each column subscript of text (parser.Subscript) from the
// schemas of the Hudi tables the text reads: Spark's [i] is 0-based on an array column
// and a key lookup on a map column; a column of another type is refused. A column found
// nowhere, or of different types in different tables, is subscripted by the type of the
// column DuckDB binds the name to (Subscript.DynamicText), never guessed.
func (b *binder) subscriptKinds(ctx context.Context, text parser.SQLText) (map[int]string, error) {
	var subs []int
	for k, ref := range text.Refs {
		if ref.Subscript != nil {
			subs = append(subs, k)
		}
	}
	if len(subs) == 0 {
		return nil, nil
	}
	schemas, err := b.refSchemas(ctx, text)
	if err != nil {
		return nil, err
	}
	schemas = append(schemas, b.columnsOf...)
	out := map[int]string{}
	for _, k := range subs {
		s := text.Refs[k].Subscript
		kinds := map[string]bool{}
		var other arrow.DataType
		for _, sc := range schemas {
			for _, dt := range columnTypes(sc, s.Column, s.Keyed) {
				switch dt.ID() {
				case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
					kinds["array"] = true
				case arrow.MAP:
					kinds["map"] = true
				default:
					kinds["other"], other = true, dt
				}
			}
		}
		col := s.String()
		switch {
		case len(kinds) == 0 || len(kinds) > 1:
			// Not a column of these tables (an alias of a subquery column, a lambda
			// variable), or of different types in different tables: DuckDB knows which
			// column the name binds to, so the subscript is decided by its type there.
			out[k] = s.DynamicText()
		case kinds["other"]:
			return nil, fmt.Errorf("line %d, column %d: %s is %s, which has no [index]", s.Pos.Line, s.Pos.Col, col, other)
		case kinds["array"]:
			out[k] = s.ArrayText()
		default:
			out[k] = s.MapText()
		}
	}
	return out, nil
}

// refSchemas returns the schemas of the Hudi tables text reads.
func (b *binder) refSchemas(ctx context.Context, text parser.SQLText) ([]*arrow.Schema, error) {
	var schemas []*arrow.Schema
	for _, ref := range text.Refs {
		if ref.Subscript != nil {
			continue
		}
		if ref.Changes != nil && strings.EqualFold(ref.Changes.Format, "cdc") {
			continue // rows op, ts_ms, before, after: no column of the table
		}
		if ref.Name.Path == "" {
			db, name, err := b.e.splitName(ref.Name)
			if err != nil {
				return nil, err
			}
			ent, err := b.e.cat.lookup(db, name)
			if err != nil {
				return nil, err
			}
			if ent == nil {
				continue // a CTE or a DuckDB name: its columns come from tables seen here or not at all
			}
		}
		h, err := b.e.resolve(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		sc, err := h.schema(ctx)
		if err != nil {
			return nil, err
		}
		schemas = append(schemas, sc)
	}
	return schemas, nil
}

// columnTypes returns the types path may name in sc: path[n:] read as column, struct
// field or map key (keyed elements, m['k']), … after n qualifiers (table alias, database)
// for n = 0, 1, 2; a keyed element is never a qualifier or the column. Names compare
// case-insensitively, as Spark resolves them.
func columnTypes(sc *arrow.Schema, path []string, keyed []bool) []arrow.DataType {
	var out []arrow.DataType
	for n := 0; n <= 2 && n < len(path); n++ {
		if slices.Contains(keyed[:n+1], true) {
			break
		}
		var dt arrow.DataType
		for p, name := range path[n:] {
			var fields []arrow.Field
			switch t := dt.(type) {
			case nil:
				if p == 0 {
					fields = sc.Fields()
				}
			case *arrow.StructType:
				fields = t.Fields()
			case *arrow.MapType:
				if keyed[n+p] {
					dt = t.ItemType()
					continue
				}
			}
			dt = nil
			for _, f := range fields {
				if strings.EqualFold(f.Name, name) {
					dt = f.Type
					break
				}
			}
			if dt == nil {
				break
			}
		}
		if dt != nil {
			out = append(out, dt)
		}
	}
	return out
}
