package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Evolve checks the schema of an incoming batch against the table schema, the way Hudi's
// on-write schema evolution does (format doc §11.1 and the "Schema Evolution on Write" table of
// the Hudi docs), and returns the schema the batch must be written with — to be stored as the
// new commit schema. It runs before anything is written, so a rejected batch leaves no trace.
//
// Accepted:
//   - new nullable columns after all existing ones, at the root or at the end of a nested
//     struct (including new array/map columns and custom "_hoodie_*" columns);
//   - type changes following Hudi's promotion chart, where the result is the wider of the two
//     types: int → long → float → double → string, and string ↔ bytes keeps the table's type.
//     A narrower incoming type is widened to the table's (table long + incoming int writes
//     long), so the table's column type is never demoted;
//   - decimal precision growth at equal scale, decimal → string;
//   - the same in nested struct fields, array elements and map values;
//   - nullability differences (the result is nullable if either side is);
//   - columns of the table missing from the input, only with setNullForMissing
//     (hoodie.write.set.null.for.missing.columns) and only for nullable columns;
//   - the same columns in another order (the result keeps the table's order).
//
// Rejected, with an error naming the column, both types and the reason: new non-nullable
// columns (root or nested), new columns before existing ones or combined with reordering,
// bytes ↔ numbers, decimal scale changes, decimal ↔ non-string types, and any other change of
// kind (boolean, date, timestamp, struct, array, map). All problems are reported together.
//
// The five meta columns are ignored on both sides. A nil or empty table schema (a new table)
// accepts any incoming schema.
func Evolve(table, incoming *arrow.Schema, setNullForMissing bool) (*arrow.Schema, error) {
	return evolve(table, incoming, evolver{setNullForMissing: setNullForMissing})
}

// EvolveOnRead is Evolve for a table under schema evolution on read
// (hoodie.schema.on.read.enable with an InternalSchema): new columns may come anywhere
// among the existing ones, as Java's AvroSchemaEvolutionUtils.reconcileSchema places them
// by the input's order. The result still appends them at the end of their struct (files
// are read by name within a file); the table's InternalSchema records their positions.
func EvolveOnRead(table, incoming *arrow.Schema, setNullForMissing bool) (*arrow.Schema, error) {
	return evolve(table, incoming, evolver{setNullForMissing: setNullForMissing, anyPosition: true})
}

func evolve(table, incoming *arrow.Schema, ev evolver) (*arrow.Schema, error) {
	if incoming == nil {
		return nil, errors.New("schema evolution: nil incoming schema")
	}
	in := WithoutMetaFields(incoming)
	if table == nil || len(WithoutMetaFields(table).Fields()) == 0 {
		return evolveNewTable(in)
	}
	tbl := WithoutMetaFields(table)
	fields := ev.fields(tbl.Fields(), in.Fields(), "")
	if len(ev.errs) > 0 {
		return nil, fmt.Errorf("schema evolution rejected: %w", errors.Join(ev.errs...))
	}
	md := tbl.Metadata()
	return arrow.NewSchema(fields, &md), nil
}

func evolveNewTable(in *arrow.Schema) (*arrow.Schema, error) {
	seen := map[string]bool{}
	for _, f := range in.Fields() {
		k := strings.ToLower(f.Name)
		if seen[k] {
			return nil, fmt.Errorf("schema evolution rejected: column %q appears twice in the input", f.Name)
		}
		seen[k] = true
	}
	return in, nil
}

type evolver struct {
	setNullForMissing bool
	// anyPosition accepts new columns before existing ones (schema evolution on read).
	anyPosition bool
	errs        []error
}

func (e *evolver) fail(format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf(format, args...))
}

// fields evolves one level of columns (root or a struct's children).
func (e *evolver) fields(table, incoming []arrow.Field, parent string) []arrow.Field {
	out := make([]arrow.Field, len(table))
	copy(out, table)
	matched := make([]bool, len(table))
	var added []arrow.Field
	lastIdx := -1      // table index of the last matched incoming column
	reordered := false // an existing column came after one that follows it in the table
	firstNew := ""     // first new column, reported if an existing one follows it
	newReported := false
	for _, f := range incoming {
		path := joinPath(parent, f.Name)
		ti := foldIndex(table, f.Name)
		if i := exactIndex(table, f.Name); i >= 0 {
			ti = i
		}
		if ti < 0 {
			if !f.Nullable {
				e.fail("column %q: new column of type %s is NOT NULL; Hudi can only add nullable columns because existing records have no value for it", path, typeName(f.Type))
			}
			if firstNew == "" {
				firstNew = path
			}
			f.Type = canonicalType(f.Type)
			added = append(added, f)
			continue
		}
		if matched[ti] {
			e.fail("column %q appears twice in the input (Spark resolves names case-insensitively)", path)
			continue
		}
		matched[ti] = true
		if firstNew != "" && !newReported && !e.anyPosition {
			e.fail("column %q: new column is placed before existing column %q; Hudi on-write evolution only appends columns at the end (reordering needs schema-on-read)", firstNew, joinPath(parent, table[ti].Name))
			newReported = true
		}
		if ti < lastIdx {
			reordered = true
		}
		lastIdx = max(lastIdx, ti)
		out[ti] = e.field(table[ti], f, joinPath(parent, table[ti].Name))
	}
	if reordered && len(added) > 0 && !e.anyPosition {
		e.fail("columns under %s are reordered while column %q is added; Hudi rejects adding columns together with a reordering (reads fail on files not rewritten)", pathOrTop(parent), joinPath(parent, added[0].Name))
	}
	for i, f := range table {
		if matched[i] {
			continue
		}
		path := joinPath(parent, f.Name)
		switch {
		case !e.setNullForMissing:
			e.fail("column %q (%s) is missing from the input; set hoodie.write.set.null.for.missing.columns=true to write nulls for it", path, typeName(f.Type))
		case !f.Nullable:
			e.fail("column %q (%s) is missing from the input and NOT NULL, so it cannot be filled with nulls", path, typeName(f.Type))
		}
	}
	return append(out, added...)
}

func exactIndex(fields []arrow.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// field evolves an existing column: the table's name and metadata, the promoted type, and
// nullable if either side is (Hudi canonicalizes the incoming nullability to the table's and a
// nullable reader can read non-null data).
func (e *evolver) field(tf, in arrow.Field, path string) arrow.Field {
	out := tf
	out.Nullable = tf.Nullable || in.Nullable
	out.Type = e.typ(tf.Type, in.Type, path)
	return out
}

type typeKind int

const (
	kindOther typeKind = iota
	kindNull
	kindBool
	kindInt // Avro int: Int8/16/32 (Hudi has no narrower integer)
	kindLong
	kindFloat
	kindDouble
	kindString
	kindBytes
	kindDecimal
	kindDate
	kindTimestamp    // with time zone (Spark TIMESTAMP)
	kindTimestampNTZ // without (Spark TIMESTAMP_NTZ)
	kindFixed
	kindStruct
	kindList
	kindMap
)

func kindOf(dt arrow.DataType) typeKind {
	switch t := dt.(type) {
	case *arrow.NullType:
		return kindNull
	case *arrow.BooleanType:
		return kindBool
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Uint8Type, *arrow.Uint16Type:
		return kindInt
	case *arrow.Int64Type, *arrow.Uint32Type:
		return kindLong
	case *arrow.Float32Type:
		return kindFloat
	case *arrow.Float64Type:
		return kindDouble
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return kindString
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return kindBytes
	case arrow.DecimalType:
		return kindDecimal
	case *arrow.Date32Type, *arrow.Date64Type:
		return kindDate
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return kindTimestampNTZ
		}
		return kindTimestamp
	case *arrow.FixedSizeBinaryType:
		return kindFixed
	case *arrow.StructType:
		return kindStruct
	case *arrow.MapType:
		return kindMap
	case arrow.ListLikeType:
		return kindList
	case *arrow.DictionaryType:
		return kindOf(t.ValueType)
	}
	return kindOther
}

// promotionRank orders the types of Hudi's promotion chart; the result of a change is the
// higher of the two.
var promotionRank = map[typeKind]int{kindInt: 1, kindLong: 2, kindFloat: 3, kindDouble: 4, kindString: 5}

func (e *evolver) typ(tt, it arrow.DataType, path string) arrow.DataType {
	tt, it = undict(tt), undict(it)
	tk, ik := kindOf(tt), kindOf(it)
	mismatch := func(why string) arrow.DataType {
		e.fail("column %q: cannot change type from %s (table) to %s (incoming): %s", path, typeName(tt), typeName(it), why)
		return tt
	}
	switch {
	case ik == kindNull:
		// An all-null input column carries no values that could conflict.
		return tt
	case tk == kindNull:
		return canonicalType(it)
	case tk == kindStruct && ik == kindStruct:
		st := tt.(*arrow.StructType)
		fields := e.fields(st.Fields(), it.(*arrow.StructType).Fields(), path)
		return arrow.StructOf(fields...)
	case tk == kindList && ik == kindList:
		te := tt.(arrow.ListLikeType).ElemField()
		ie := it.(arrow.ListLikeType).ElemField()
		elem := te
		elem.Nullable = te.Nullable || ie.Nullable
		elem.Type = e.typ(te.Type, ie.Type, path+"[]")
		return arrow.ListOfField(elem)
	case tk == kindMap && ik == kindMap:
		tm, im := tt.(*arrow.MapType), it.(*arrow.MapType)
		if kindOf(tm.KeyType()) != kindOf(im.KeyType()) {
			return mismatch("map key types differ")
		}
		ti, ii := tm.ItemField(), im.ItemField()
		vt := e.typ(ti.Type, ii.Type, path+"{}")
		mt := arrow.MapOf(tm.KeyType(), vt)
		mt.SetItemNullable(ti.Nullable || ii.Nullable)
		return mt
	case tk == kindDecimal && ik == kindDecimal:
		td, id := tt.(arrow.DecimalType), it.(arrow.DecimalType)
		if td.GetScale() != id.GetScale() {
			return mismatch("decimal scale cannot change (only the precision may grow at equal scale)")
		}
		if id.GetPrecision() <= td.GetPrecision() {
			return tt
		}
		dt, err := decimalType(id.GetPrecision(), id.GetScale(), path)
		if err != nil {
			return mismatch(err.Error())
		}
		return dt
	case tk == ik && tk == kindFixed:
		if tt.(*arrow.FixedSizeBinaryType).ByteWidth != it.(*arrow.FixedSizeBinaryType).ByteWidth {
			return mismatch("fixed sizes differ")
		}
		return tt
	case tk == ik && tk == kindOther:
		if arrow.TypeEqual(tt, it) {
			return tt
		}
		return mismatch("unsupported type")
	case tk == ik:
		// Same Avro type (e.g. Int16 vs Int32, both Avro int): the table's spelling wins.
		return tt
	case (tk == kindString && ik == kindBytes) || (tk == kindBytes && ik == kindString):
		// string ↔ bytes: both are Avro byte sequences; the table's type is kept.
		return tt
	case tk == kindDecimal && ik == kindString, tk == kindString && ik == kindDecimal:
		return arrow.BinaryTypes.String
	}
	tr, tok := promotionRank[tk]
	ir, iok := promotionRank[ik]
	if tok && iok {
		if tr >= ir {
			return tt
		}
		return canonicalType(it)
	}
	switch {
	case (tk == kindBytes && iok) || (ik == kindBytes && tok):
		return mismatch("bytes and numeric types do not convert into each other")
	case tk == kindDecimal || ik == kindDecimal:
		return mismatch("decimals only evolve to a larger precision at equal scale, or to string")
	}
	return mismatch("not a promotion Hudi's on-write schema evolution allows (int→long→float→double→string, string↔bytes, decimal precision growth)")
}

// canonicalType maps a type to the Arrow type FromAvro would produce for its Avro form, so the
// evolved schema stays in the package's canonical shape (e.g. Int16 → Int32, LargeString →
// String, list element named "element").
func canonicalType(dt arrow.DataType) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Uint8Type, *arrow.Uint16Type:
		return arrow.PrimitiveTypes.Int32
	case *arrow.Uint32Type:
		return arrow.PrimitiveTypes.Int64
	case *arrow.LargeStringType, *arrow.StringViewType:
		return arrow.BinaryTypes.String
	case *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return arrow.BinaryTypes.Binary
	case *arrow.Date64Type:
		return arrow.FixedWidthTypes.Date32
	case *arrow.DictionaryType:
		return canonicalType(t.ValueType)
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			f.Type = canonicalType(f.Type)
			fields[i] = f
		}
		return arrow.StructOf(fields...)
	case *arrow.MapType:
		mt := arrow.MapOf(canonicalType(t.KeyType()), canonicalType(t.ItemField().Type))
		mt.SetItemNullable(t.ItemField().Nullable)
		return mt
	case arrow.ListLikeType:
		e := t.ElemField()
		return arrow.ListOfField(arrow.Field{Name: ListElementName, Type: canonicalType(e.Type), Nullable: e.Nullable, Metadata: e.Metadata})
	}
	return dt
}

// undict strips dictionary encoding, an in-memory detail that does not reach the files.
func undict(dt arrow.DataType) arrow.DataType {
	for {
		d, ok := dt.(*arrow.DictionaryType)
		if !ok {
			return dt
		}
		dt = d.ValueType
	}
}

// typeName names a type in Hudi/Avro terms for error messages.
func typeName(dt arrow.DataType) string {
	dt = undict(dt)
	switch kindOf(dt) {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindInt:
		return "int"
	case kindLong:
		return "long"
	case kindFloat:
		return "float"
	case kindDouble:
		return "double"
	case kindString:
		return "string"
	case kindBytes:
		return "bytes"
	case kindDecimal:
		d := dt.(arrow.DecimalType)
		return fmt.Sprintf("decimal(%d,%d)", d.GetPrecision(), d.GetScale())
	case kindDate:
		return "date"
	case kindTimestamp:
		return "timestamp"
	case kindTimestampNTZ:
		return "timestamp_ntz"
	case kindFixed:
		return fmt.Sprintf("fixed(%d)", dt.(*arrow.FixedSizeBinaryType).ByteWidth)
	case kindStruct:
		st := dt.(*arrow.StructType)
		parts := make([]string, st.NumFields())
		for i, f := range st.Fields() {
			parts[i] = f.Name + ":" + typeName(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case kindMap:
		return "map<" + typeName(dt.(*arrow.MapType).ItemField().Type) + ">"
	case kindList:
		return "array<" + typeName(dt.(arrow.ListLikeType).ElemField().Type) + ">"
	}
	return dt.String()
}

// CheckAddedColumns checks a schema that adds columns to a table's (ALTER TABLE ADD
// COLUMNS): every table column is in next, by its exact name and with its type and
// nullability, and every other column of next is nullable. Unlike Evolve it allows the new
// columns anywhere: Java's AlterHoodieTableAddColumnsCommand puts them before the partition
// columns. Meta columns are ignored.
func CheckAddedColumns(table, next *arrow.Schema) error {
	table, next = WithoutMetaFields(table), WithoutMetaFields(next)
	var errs []error
	for _, f := range table.Fields() {
		i := exactIndex(next.Fields(), f.Name)
		switch {
		case i < 0:
			errs = append(errs, fmt.Errorf("column %q of the table is missing", f.Name))
		case !arrow.TypeEqual(next.Field(i).Type, f.Type) || next.Field(i).Nullable != f.Nullable:
			errs = append(errs, fmt.Errorf("column %q changes from %s to %s", f.Name, typeName(f.Type), typeName(next.Field(i).Type)))
		}
	}
	for _, f := range next.Fields() {
		if exactIndex(table.Fields(), f.Name) >= 0 {
			continue
		}
		if foldIndex(table.Fields(), f.Name) >= 0 {
			errs = append(errs, fmt.Errorf("column %q differs from an existing column only in case", f.Name))
		} else if !f.Nullable {
			errs = append(errs, fmt.Errorf("new column %q is NOT NULL; Hudi can only add nullable columns", f.Name))
		}
	}
	return errors.Join(errs...)
}
