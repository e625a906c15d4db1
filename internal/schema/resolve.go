package schema

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
)

// FileResolver reads the columns of one file, written under the InternalSchema file, as
// the columns of a query under the InternalSchema query (schema evolution on read),
// matching them by id as Java's InternalSchemaMerger does:
//
//   - a column renamed since the file was written reads the file's column of its id;
//   - a column dropped since is not read;
//   - a column added since — also one re-added under a dropped column's name, which has a
//     new id — reads as null;
//   - a column whose type changed is converted (TypeChangeAllowed's pairs);
//   - the same within structs, array elements and map values; order is the query's.
//
// A file is read in two steps: its columns, by their names in the file, conformed to
// FileSchema (Conform: the physical representation), then Resolve.
type FileResolver struct {
	file   *arrow.Schema
	target *arrow.Schema
	cols   []resolvedColumn
}

type resolvedColumn struct {
	src int // column of file; -1: none (nulls)
	// fileType and queryType are the InternalSchema types matched by id; nil for a column
	// the query's InternalSchema lacks (read by name: a meta column of a table without
	// meta fields in its InternalSchema, _hoodie_is_deleted …).
	fileType, queryType *internalschema.Type
}

// NewFileResolver plans reading a file written under file as target, the query's columns
// (top-level fields of the query's Arrow schema, as ArrowFromInternal(query) gives them).
func NewFileResolver(file, query *internalschema.Schema, target *arrow.Schema) (*FileResolver, error) {
	r := &FileResolver{target: target}
	var fields []arrow.Field
	for _, tf := range target.Fields() {
		qf, ok := topLevel(query, tf.Name)
		if !ok {
			r.cols = append(r.cols, resolvedColumn{src: len(fields)})
			fields = append(fields, tf)
			continue
		}
		ff, ok := file.FindByID(qf.ID)
		if !ok || file.ParentID(qf.ID) != -1 {
			r.cols = append(r.cols, resolvedColumn{src: -1})
			continue
		}
		at, err := ArrowTypeFromInternal(ff.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s (id %d) of the file schema (version %d): %w", ff.Name, ff.ID, file.VersionID, err)
		}
		if err := checkResolvable(ff.Type, qf.Type, tf.Name); err != nil {
			return nil, fmt.Errorf("file schema version %d: %w", file.VersionID, err)
		}
		r.cols = append(r.cols, resolvedColumn{src: len(fields), fileType: ff.Type, queryType: qf.Type})
		fields = append(fields, arrow.Field{Name: ff.Name, Type: at, Nullable: true})
	}
	r.file = arrow.NewSchema(fields, nil)
	return r, nil
}

// topLevel finds a root field of s by name: exact, else the only case-insensitive match.
func topLevel(s *internalschema.Schema, name string) (internalschema.Field, bool) {
	var fold []internalschema.Field
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
		if strings.EqualFold(f.Name, name) {
			fold = append(fold, f)
		}
	}
	if len(fold) == 1 {
		return fold[0], true
	}
	return internalschema.Field{}, false
}

// checkResolvable reports pairs of types (matched by id) that Resolve cannot convert:
// only TypeChangeAllowed's changes happen to a column, so anything else means the
// history is inconsistent.
func checkResolvable(ft, qt *internalschema.Type, path string) error {
	if ft.Kind != qt.Kind && (ft.IsNested() || qt.IsNested()) {
		return fmt.Errorf("column %s is %s in the file and %s in the table", path, ft, qt)
	}
	switch qt.Kind {
	case internalschema.Record:
		for _, qc := range qt.Fields {
			for _, fc := range ft.Fields {
				if fc.ID == qc.ID {
					if err := checkResolvable(fc.Type, qc.Type, path+"."+qc.Name); err != nil {
						return err
					}
				}
			}
		}
	case internalschema.Array:
		if ft.ElementID == qt.ElementID {
			return checkResolvable(ft.Element, qt.Element, path+".element")
		}
	case internalschema.Map:
		if ft.ValueID == qt.ValueID {
			return checkResolvable(ft.Value, qt.Value, path+".value")
		}
	default:
		if !ft.Equal(qt) && !internalschema.TypeChangeAllowed(ft, qt) {
			return fmt.Errorf("column %s is %s in the file, which cannot be read as %s", path, ft, qt)
		}
	}
	return nil
}

// StatsColumn returns the file's name of a column of the target schema when the file's
// column statistics describe it: the file holds it under the same id and of the same type
// (a column read by name is its own). It reports false for a column added, re-added under
// a dropped column's name, or re-typed since the file was written, whose statistics in the
// file (if a column of that name is there at all) are of other data.
func (r *FileResolver) StatsColumn(name string) (string, bool) {
	i := r.target.FieldIndices(name)
	if len(i) != 1 {
		return "", false
	}
	c := r.cols[i[0]]
	switch {
	case c.src < 0:
		return "", false
	case c.queryType == nil:
		return name, true
	case !c.fileType.Equal(c.queryType) || c.fileType.IsNested():
		return "", false
	}
	return r.file.Field(c.src).Name, true
}

// FileSchema is the schema to read the file's columns into (names and types as the file
// has them; only the columns the query reads).
func (r *FileResolver) FileSchema() *arrow.Schema { return r.file }

// Resolve converts a batch of FileSchema into the target schema. The caller owns the
// result.
func (r *FileResolver) Resolve(mem memory.Allocator, rec arrow.Record) (arrow.Record, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(r.cols))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range r.cols {
		tf := r.target.Field(i)
		var err error
		switch {
		case c.src < 0:
			cols[i] = array.MakeArrayOfNull(mem, tf.Type, n)
		case c.queryType == nil:
			cols[i], err = conform(mem, rec.Column(c.src), tf.Type, tf.Name)
		default:
			cols[i], err = resolveByID(mem, rec.Column(c.src), c.fileType, c.queryType, tf.Type, tf.Name)
		}
		if err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(r.target, cols, int64(n)), nil
}

// resolveByID converts arr (of the Arrow type of ft) into target (the Arrow type of qt).
func resolveByID(mem memory.Allocator, arr arrow.Array, ft, qt *internalschema.Type, target arrow.DataType, path string) (arrow.Array, error) {
	if arr.DataType().ID() == arrow.NULL || (arr.Len() > 0 && arr.NullN() == arr.Len()) {
		return array.MakeArrayOfNull(mem, target, arr.Len()), nil
	}
	switch qt.Kind {
	case internalschema.Record:
		a, ok := arr.(*array.Struct)
		st, ok2 := target.(*arrow.StructType)
		if !ok || !ok2 || ft.Kind != internalschema.Record {
			return nil, fmt.Errorf("resolve %s: %s is not a struct", fieldLabel(path), arr.DataType())
		}
		n := a.Len()
		children := make([]arrow.Array, 0, len(qt.Fields))
		release := func() {
			for _, c := range children {
				c.Release()
			}
		}
		for i, qc := range qt.Fields {
			tc := st.Field(i)
			j := -1
			for k, fc := range ft.Fields {
				if fc.ID == qc.ID {
					j = k
					break
				}
			}
			if j < 0 || j >= a.NumField() {
				children = append(children, array.MakeArrayOfNull(mem, tc.Type, n))
				continue
			}
			c, err := resolveByID(mem, a.Field(j), ft.Fields[j].Type, qc.Type, tc.Type, joinPath(path, qc.Name))
			if err != nil {
				release()
				return nil, err
			}
			children = append(children, c)
		}
		return newArray(target, n, a.NullN(), []*memory.Buffer{validity(mem, a)}, children), nil
	case internalschema.Array:
		a, ok := arr.(array.ListLike)
		lt, ok2 := target.(*arrow.ListType)
		if !ok || !ok2 || ft.Kind != internalschema.Array {
			return nil, fmt.Errorf("resolve %s: %s is not a list", fieldLabel(path), arr.DataType())
		}
		return rebuildList(mem, a, target, func(values arrow.Array) (arrow.Array, error) {
			if ft.ElementID != qt.ElementID {
				return array.MakeArrayOfNull(mem, lt.Elem(), values.Len()), nil
			}
			return resolveByID(mem, values, ft.Element, qt.Element, lt.Elem(), path+"[]")
		})
	case internalschema.Map:
		a, ok := arr.(*array.Map)
		mt, ok2 := target.(*arrow.MapType)
		if !ok || !ok2 || ft.Kind != internalschema.Map {
			return nil, fmt.Errorf("resolve %s: %s is not a map", fieldLabel(path), arr.DataType())
		}
		return rebuildList(mem, a, target, func(values arrow.Array) (arrow.Array, error) {
			st, ok := values.(*array.Struct)
			if !ok || st.NumField() != 2 {
				return nil, fmt.Errorf("resolve %s: map entries of type %s are not a key/value struct", fieldLabel(path), values.DataType())
			}
			keys, err := conform(mem, st.Field(0), mt.KeyType(), path+".key")
			if err != nil {
				return nil, err
			}
			var items arrow.Array
			if ft.ValueID == qt.ValueID {
				items, err = resolveByID(mem, st.Field(1), ft.Value, qt.Value, mt.ItemType(), path+".value")
			} else {
				items = array.MakeArrayOfNull(mem, mt.ItemType(), st.Len())
			}
			if err != nil {
				keys.Release()
				return nil, err
			}
			return newArray(mt.Elem(), st.Len(), st.NullN(), []*memory.Buffer{validity(mem, st)}, []arrow.Array{keys, items}), nil
		})
	}
	if ft.Equal(qt) {
		return conform(mem, arr, target, path)
	}
	return castChanged(mem, arr, ft, qt, target, path)
}

// rebuildList converts a list or map array's referenced values with conv and re-bases its
// offsets to start at 0 (32-bit).
func rebuildList(mem memory.Allocator, a array.ListLike, target arrow.DataType, conv func(arrow.Array) (arrow.Array, error)) (arrow.Array, error) {
	n := a.Len()
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((n + 1) * 4)
	offs := arrow.GetData[int32](offBuf.Bytes())[:n+1]
	var first, last int64
	if n > 0 {
		first, _ = a.ValueOffsets(0)
		_, last = a.ValueOffsets(n - 1)
	}
	if last-first > int64(^uint32(0)>>1) {
		offBuf.Release()
		return nil, fmt.Errorf("%d list values exceed 32-bit offsets", last-first)
	}
	for i := 0; i < n; i++ {
		start, _ := a.ValueOffsets(i)
		offs[i] = int32(start - first)
	}
	offs[n] = int32(last - first)
	values := array.NewSlice(a.ListValues(), first, last)
	defer values.Release()
	child, err := conv(values)
	if err != nil {
		offBuf.Release()
		return nil, err
	}
	return newArray(target, n, a.NullN(), []*memory.Buffer{validity(mem, a), offBuf}, []arrow.Array{child}), nil
}

// castChanged converts a column whose type was changed by ALTER COLUMN … TYPE, with the
// semantics of Java's read of such a file (Spark's Cast for base files,
// HoodieAvroUtils.rewritePrimaryTypeWithDiffSchemaType for log records, which agree on
// these):
//
//   - int/long/float → wider numbers, numbers → string: as Conform (Java's widening;
//     Integer/Long/Float/Double.toString);
//   - int/long/float/double/string → decimal(p,s): the value's decimal text
//     (BigDecimal(value.toString())) rounded HALF_UP to scale s; a value that does not fit
//     precision p, or a string that is not a number, fails the read (Spark would read
//     null, Java's log reader fails);
//   - decimal → decimal: rescaled (the chart only widens); decimal → string:
//     BigDecimal.toString;
//   - date → string: yyyy-MM-dd; string → date: yyyy-[m]m-[d]d (java.sql.Date.valueOf),
//     anything else fails the read.
func castChanged(mem memory.Allocator, arr arrow.Array, ft, qt *internalschema.Type, target arrow.DataType, path string) (arrow.Array, error) {
	fail := func(i int, format string, args ...any) error {
		return fmt.Errorf("read %s as %s: row %d: %s", fieldLabel(path), qt, i, fmt.Sprintf(format, args...))
	}
	switch {
	case qt.Kind == internalschema.Decimal && ft.Kind != internalschema.Decimal:
		text, err := textOf(arr, ft)
		if err != nil {
			return nil, fmt.Errorf("read %s as %s: %w", fieldLabel(path), qt, err)
		}
		return buildDecimal(mem, arr, target, func(i int) (*big.Int, error) {
			v, err := decimalHalfUp(strings.TrimSpace(text(i)), qt.Scale, qt.Precision)
			if err != nil {
				return nil, fail(i, "%v", err)
			}
			return v, nil
		})
	case qt.Kind == internalschema.String && ft.Kind == internalschema.Decimal:
		return buildStrings(mem, arr, func(i int) (string, error) { return javaBigDecimalString(decimalBig(arr, i), int32(ft.Scale)), nil })
	case qt.Kind == internalschema.String && ft.Kind == internalschema.Date:
		d, ok := arr.(*array.Date32)
		if !ok {
			return nil, fmt.Errorf("read %s: a date column holds %s", fieldLabel(path), arr.DataType())
		}
		return buildStrings(mem, arr, func(i int) (string, error) { return formatDate(int32(d.Value(i))), nil })
	case qt.Kind == internalschema.Date && ft.Kind == internalschema.String:
		sv, ok := stringValues(arr)
		if !ok {
			return nil, fmt.Errorf("read %s: a string column holds %s", fieldLabel(path), arr.DataType())
		}
		b := array.NewDate32Builder(mem)
		defer b.Release()
		b.Reserve(arr.Len())
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			days, ok := parseJavaSQLDate(sv(i))
			if !ok {
				return nil, fail(i, "%q is not a date (yyyy-mm-dd)", sv(i))
			}
			b.Append(arrow.Date32(days))
		}
		return b.NewArray(), nil
	}
	return conform(mem, arr, target, path)
}

// textOf returns each value's Java text (Integer/Long/Float/Double.toString, or the
// string itself), from which Java builds the BigDecimal.
func textOf(arr arrow.Array, ft *internalschema.Type) (func(int) string, error) {
	switch a := arr.(type) {
	case *array.Int32:
		return func(i int) string { return fmt.Sprint(a.Value(i)) }, nil
	case *array.Int64:
		return func(i int) string { return fmt.Sprint(a.Value(i)) }, nil
	case *array.Float32:
		return func(i int) string { return javastr.FormatFloat(a.Value(i)) }, nil
	case *array.Float64:
		return func(i int) string { return javastr.FormatDouble(a.Value(i)) }, nil
	}
	if sv, ok := stringValues(arr); ok && ft.Kind == internalschema.String {
		return sv, nil
	}
	return nil, fmt.Errorf("%s values held as %s cannot become decimals", ft, arr.DataType())
}

var decimalText = regexp.MustCompile(`^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$`)

// decimalHalfUp parses a decimal text as java.math.BigDecimal(String) does and returns
// its unscaled value at scale, rounded HALF_UP (setScale(scale, RoundingMode.HALF_UP)),
// failing when the result has more than precision digits.
func decimalHalfUp(s string, scale, precision int) (*big.Int, error) {
	m := decimalText.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	digits := m[2] + m[3]
	exp := -len(m[3])
	if m[4] != "" {
		var e int
		if _, err := fmt.Sscan(m[4], &e); err != nil || e > 10000 || e < -10000 {
			return nil, fmt.Errorf("%q: exponent out of range", s)
		}
		exp += e
	}
	v, _ := new(big.Int).SetString(digits, 10)
	shift := exp + scale // v * 10^shift is the unscaled value at scale
	ten := big.NewInt(10)
	if shift >= 0 {
		v.Mul(v, new(big.Int).Exp(ten, big.NewInt(int64(shift)), nil))
	} else {
		div := new(big.Int).Exp(ten, big.NewInt(int64(-shift)), nil)
		q, r := new(big.Int).QuoRem(v, div, new(big.Int))
		if r.Mul(r, big.NewInt(2)).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		v = q
	}
	if m[1] == "-" {
		v.Neg(v)
	}
	if len(new(big.Int).Abs(v).String()) > precision && v.Sign() != 0 {
		return nil, fmt.Errorf("%s does not fit decimal(%d, %d)", s, precision, scale)
	}
	return v, nil
}

func buildDecimal(mem memory.Allocator, arr arrow.Array, target arrow.DataType, value func(int) (*big.Int, error)) (arrow.Array, error) {
	switch dt := target.(type) {
	case *arrow.Decimal128Type:
		b := array.NewDecimal128Builder(mem, dt)
		defer b.Release()
		b.Reserve(arr.Len())
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, err := value(i)
			if err != nil {
				return nil, err
			}
			b.Append(decimal128.FromBigInt(v))
		}
		return b.NewArray(), nil
	case *arrow.Decimal256Type:
		b := array.NewDecimal256Builder(mem, dt)
		defer b.Release()
		b.Reserve(arr.Len())
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, err := value(i)
			if err != nil {
				return nil, err
			}
			b.Append(decimal256.FromBigInt(v))
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("decimal target is %s", target)
}

func buildStrings(mem memory.Allocator, arr arrow.Array, text func(int) (string, error)) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		s, err := text(i)
		if err != nil {
			return nil, err
		}
		b.Append(s)
	}
	return b.NewArray(), nil
}

// decimalBig returns a decimal column's unscaled value at row i.
func decimalBig(arr arrow.Array, i int) *big.Int {
	switch a := arr.(type) {
	case *array.Decimal128:
		return a.Value(i).BigInt()
	case *array.Decimal256:
		return a.Value(i).BigInt()
	}
	return new(big.Int)
}

// javaBigDecimalString prints unscaled×10^-scale as java.math.BigDecimal.toString does:
// plain unless the adjusted exponent is below -6 (then d.dddE-n).
func javaBigDecimalString(unscaled *big.Int, scale int32) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	adjusted := len(digits) - 1 - int(scale)
	var s string
	switch {
	case scale == 0:
		s = digits
	case scale > 0 && adjusted >= -6:
		if len(digits) <= int(scale) {
			s = "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
		} else {
			s = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
		}
	default:
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "E"
		if adjusted >= 0 {
			s += "+"
		}
		s += fmt.Sprint(adjusted)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// formatDate prints days since the epoch as java.time.LocalDate.toString (yyyy-MM-dd,
// a sign and more digits outside years 0…9999).
func formatDate(days int32) string {
	t := time.Unix(int64(days)*86400, 0).UTC()
	y := t.Year()
	switch {
	case y > 9999:
		return fmt.Sprintf("+%d-%02d-%02d", y, t.Month(), t.Day())
	case y < 0:
		return fmt.Sprintf("-%04d-%02d-%02d", -y, t.Month(), t.Day())
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, t.Month(), t.Day())
}

var sqlDate = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})$`)

// parseJavaSQLDate parses yyyy-[m]m-[d]d as java.sql.Date.valueOf accepts it, into days
// since the epoch.
func parseJavaSQLDate(s string) (int32, bool) {
	m := sqlDate.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	var y, mo, d int
	fmt.Sscan(m[1], &y)
	fmt.Sscan(m[2], &mo)
	fmt.Sscan(m[3], &d)
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return 0, false // 2024-02-31
	}
	return int32(t.Unix() / 86400), true
}
