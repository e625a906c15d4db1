package expr

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Three-valued logic values, one byte per row.
const (
	vFalse uint8 = 0
	vTrue  uint8 = 1
	vNull  uint8 = 2
)

// Evaluate returns one bool per row of rec: true where e is TRUE (FALSE and NULL rows are not
// selected). Columns are looked up by exact name, then case-insensitively (Spark and Hudi treat
// names case-insensitively); a dotted name that is not a top-level column walks struct fields,
// and a null parent struct makes the field null.
//
// Literals are converted to the column's type: numbers compare exactly with integer, decimal
// and float columns (strings holding numbers are accepted too); string columns compare with the
// literal text (a number as written); date columns take 'YYYY-MM-DD' (a literal with a time of
// day falls between days); timestamp columns take '2024-01-15 10:30:00[.ffffff]', '2024-01-15'
// or RFC 3339 with any offset, all as UTC instants regardless of the column's time zone; a
// number literal against a date/timestamp/time column is a raw count of the column's units;
// boolean columns take TRUE/FALSE; binary columns compare bytes with the string literal.
// An unknown column, or a literal that cannot be converted, is an error naming both.
func Evaluate(e Expr, rec arrow.RecordBatch) ([]bool, error) {
	ev := evaluator{rec: rec, n: int(rec.NumRows())}
	tri, err := ev.eval(e)
	if err != nil {
		return nil, err
	}
	mask := make([]bool, len(tri))
	for i, v := range tri {
		mask[i] = v == vTrue
	}
	return mask, nil
}

// Filter returns a new record holding the rows of rec selected by e. The caller must Release
// it. Buffers come from the allocator in ctx (compute/exec.WithAllocator), else the default.
func Filter(ctx context.Context, e Expr, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	mask, err := Evaluate(e, rec)
	if err != nil {
		return nil, err
	}
	selected := 0
	for _, m := range mask {
		if m {
			selected++
		}
	}
	switch selected {
	case len(mask):
		rec.Retain()
		return rec, nil
	case 0:
		return rec.NewSlice(0, 0), nil
	}
	b := array.NewBooleanBuilder(exec.GetAllocator(ctx))
	defer b.Release()
	b.AppendValues(mask, nil)
	filter := b.NewArray()
	defer filter.Release()
	out, err := compute.FilterRecordBatch(ctx, rec, filter, compute.DefaultFilterOptions())
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	return out, nil
}

type evaluator struct {
	rec arrow.RecordBatch
	n   int
}

func (ev *evaluator) eval(e Expr) ([]uint8, error) {
	switch e := e.(type) {
	case *And:
		l, err := ev.eval(e.Left)
		if err != nil {
			return nil, err
		}
		r, err := ev.eval(e.Right)
		if err != nil {
			return nil, err
		}
		for i := range l {
			switch {
			case l[i] == vFalse || r[i] == vFalse:
				l[i] = vFalse
			case l[i] == vTrue && r[i] == vTrue:
				l[i] = vTrue
			default:
				l[i] = vNull
			}
		}
		return l, nil
	case *Or:
		l, err := ev.eval(e.Left)
		if err != nil {
			return nil, err
		}
		r, err := ev.eval(e.Right)
		if err != nil {
			return nil, err
		}
		for i := range l {
			switch {
			case l[i] == vTrue || r[i] == vTrue:
				l[i] = vTrue
			case l[i] == vFalse && r[i] == vFalse:
				l[i] = vFalse
			default:
				l[i] = vNull
			}
		}
		return l, nil
	case *Not:
		v, err := ev.eval(e.Expr)
		if err != nil {
			return nil, err
		}
		negate3(v)
		return v, nil
	case *Between:
		// SQL defines BETWEEN as the conjunction, which also settles NULL bounds.
		conj := &And{
			&Compare{Column: e.Column, Op: OpGe, Value: e.Low},
			&Compare{Column: e.Column, Op: OpLe, Value: e.High},
		}
		v, err := ev.eval(conj)
		if err != nil {
			return nil, err
		}
		if e.Not {
			negate3(v)
		}
		return v, nil
	}
	return ev.leaf(e)
}

func negate3(v []uint8) {
	for i, x := range v {
		if x != vNull {
			v[i] = 1 - x
		}
	}
}

// column is a resolved column: its (possibly dictionary-decoded) values, a row → value index
// mapping and a validity test that includes parent structs.
type column struct {
	values arrow.Array
	index  func(i int) int // nil: identity
	valid  func(i int) bool
}

func (ev *evaluator) resolve(name string) (*column, error) {
	schema := ev.rec.Schema()
	arr := lookupField(schema.Fields(), name, func(k int) arrow.Array { return ev.rec.Column(k) })
	var parents []arrow.Array
	if arr == nil && strings.Contains(name, ".") {
		parts := strings.Split(name, ".")
		arr = lookupField(schema.Fields(), parts[0], func(k int) arrow.Array { return ev.rec.Column(k) })
		for _, part := range parts[1:] {
			st, ok := arr.(*array.Struct)
			if !ok {
				arr = nil
				break
			}
			parents = append(parents, st)
			fields := st.DataType().(*arrow.StructType).Fields()
			arr = lookupField(fields, part, st.Field)
		}
	}
	if arr == nil {
		return nil, fmt.Errorf("filter: unknown column %q (columns: %s)", name, columnList(schema))
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	c := &column{values: arr}
	leaf := arr
	if d, ok := arr.(*array.Dictionary); ok {
		c.values = d.Dictionary()
		c.index = d.GetValueIndex
	}
	values, index := c.values, c.index
	c.valid = func(i int) bool {
		if leaf.IsNull(i) {
			return false
		}
		if index != nil && values.IsNull(index(i)) {
			return false
		}
		for _, p := range parents {
			if p.IsNull(i) {
				return false
			}
		}
		return true
	}
	return c, nil
}

// lookupField finds name among fields, exactly first, then case-insensitively.
func lookupField(fields []arrow.Field, name string, get func(int) arrow.Array) arrow.Array {
	for k, f := range fields {
		if f.Name == name {
			return get(k)
		}
	}
	for k, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return get(k)
		}
	}
	return nil
}

func columnList(schema *arrow.Schema) string {
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func (ev *evaluator) leaf(e Expr) ([]uint8, error) {
	var name string
	switch e := e.(type) {
	case *Compare:
		name = e.Column
	case *In:
		name = e.Column
	case *Like:
		name = e.Column
	case *IsNull:
		name = e.Column
	default:
		return nil, fmt.Errorf("filter: unsupported expression %T", e)
	}
	col, err := ev.resolve(name)
	if err != nil {
		return nil, err
	}
	out := make([]uint8, ev.n)
	switch e := e.(type) {
	case *IsNull:
		for i := range out {
			if col.valid(i) == e.Not {
				out[i] = vTrue
			}
		}
		return out, nil
	case *Compare:
		if e.Value.Kind == LitNull {
			fill(out, vNull) // x op NULL is unknown for every row
			return out, nil
		}
		cmp, err := comparator(col.values, e.Value)
		if err != nil {
			return nil, fmt.Errorf("filter: column %q (%s) %s %s: %w", name, col.values.DataType(), e.Op, e.Value, err)
		}
		for i := range out {
			if !col.valid(i) {
				out[i] = vNull
			} else if holds(e.Op, cmp(col.idx(i))) {
				out[i] = vTrue
			}
		}
		return out, nil
	case *In:
		var cmps []func(int) int
		hasNull := false
		for _, v := range e.Values {
			if v.Kind == LitNull {
				hasNull = true
				continue
			}
			cmp, err := comparator(col.values, v)
			if err != nil {
				return nil, fmt.Errorf("filter: column %q (%s) IN (..., %s, ...): %w", name, col.values.DataType(), v, err)
			}
			cmps = append(cmps, cmp)
		}
		for i := range out {
			if !col.valid(i) {
				out[i] = vNull
				continue
			}
			j := col.idx(i)
			found := false
			for _, cmp := range cmps {
				if cmp(j) == 0 {
					found = true
					break
				}
			}
			switch {
			case found:
				out[i] = vTrue
			case hasNull:
				out[i] = vNull // x IN (..., NULL) is unknown when no value matched
			}
		}
		if e.Not {
			negate3(out)
		}
		return out, nil
	case *Like:
		get, ok := stringGetter(col.values)
		if !ok {
			return nil, fmt.Errorf("filter: column %q (%s) LIKE: LIKE needs a string column", name, col.values.DataType())
		}
		match, err := compileLike(e.Pattern)
		if err != nil {
			return nil, fmt.Errorf("filter: column %q LIKE %s: %w", name, Literal{Kind: LitString, Text: e.Pattern}, err)
		}
		for i := range out {
			if !col.valid(i) {
				out[i] = vNull
			} else if match(get(col.idx(i))) != e.Not {
				out[i] = vTrue
			}
		}
		return out, nil
	}
	panic("unreachable")
}

func (c *column) idx(i int) int {
	if c.index != nil {
		return c.index(i)
	}
	return i
}

func fill(v []uint8, x uint8) {
	for i := range v {
		v[i] = x
	}
}

func holds(op Op, c int) bool {
	if c == cmpUnordered {
		return op == OpNe
	}
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	}
	return c >= 0
}

func stringGetter(arr arrow.Array) (func(int) string, bool) {
	switch a := arr.(type) {
	case *array.String:
		return a.Value, true
	case *array.LargeString:
		return a.Value, true
	case *array.StringView:
		return a.Value, true
	}
	return nil, false
}

func int64Getter(arr arrow.Array) (func(int) int64, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int64:
		return a.Value, true
	case *array.Date32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Date64:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Timestamp:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Time32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Time64:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Decimal32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Decimal64:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	}
	return nil, false
}

// literalRat converts lit to an exact rational in the units of arr's integer representation.
func literalRat(arr arrow.Array, lit Literal) (*big.Rat, error) {
	switch t := arr.DataType().(type) {
	case *arrow.Date32Type:
		return dateRat(lit)
	case *arrow.Date64Type:
		r, err := dateRat(lit)
		if err != nil {
			return nil, err
		}
		if lit.Kind == LitNumber {
			return r, nil // raw milliseconds
		}
		return r.Mul(r, big.NewRat(86_400_000, 1)), nil
	case *arrow.TimestampType:
		return instantRat(lit, unitsPerSecond(t.Unit))
	case *arrow.Time32Type:
		return timeOfDayRat(lit, unitsPerSecond(t.Unit))
	case *arrow.Time64Type:
		return timeOfDayRat(lit, unitsPerSecond(t.Unit))
	}
	r, ok := ratOf(lit)
	if !ok {
		return nil, fmt.Errorf("expected a number, got %s", lit)
	}
	switch t := arr.DataType().(type) {
	case *arrow.Decimal32Type:
		return scaleRat(r, t.Scale), nil
	case *arrow.Decimal64Type:
		return scaleRat(r, t.Scale), nil
	case *arrow.Decimal128Type:
		return scaleRat(r, t.Scale), nil
	case *arrow.Decimal256Type:
		return scaleRat(r, t.Scale), nil
	}
	return r, nil
}

// comparator returns, for a values index, the sign of value - lit (or cmpUnordered).
func comparator(arr arrow.Array, lit Literal) (func(int) int, error) {
	if get, ok := int64Getter(arr); ok {
		r, err := literalRat(arr, lit)
		if err != nil {
			return nil, err
		}
		b := newIntBound(r)
		return func(i int) int { return b.cmp(get(i)) }, nil
	}
	switch a := arr.(type) {
	case *array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		r, err := literalRat(arr, lit)
		if err != nil {
			return nil, err
		}
		b := newUintBound(r)
		get := uint64Getter(a)
		return func(i int) int { return b.cmp(get(i)) }, nil
	case *array.Float16, *array.Float32, *array.Float64:
		f, ok := floatOf(lit)
		if !ok {
			return nil, fmt.Errorf("expected a number, got %s", lit)
		}
		get := float64Getter(a)
		return func(i int) int { return cmpFloat(get(i), f) }, nil
	case *array.Decimal128:
		r, err := literalRat(arr, lit)
		if err != nil {
			return nil, err
		}
		b := newBigBound(r)
		if b.floor.BitLen() > 126 {
			return constCmp(-b.floor.Sign()), nil // beyond any decimal128 value
		}
		f := decimal128.FromBigInt(b.floor)
		return func(i int) int {
			if c := a.Value(i).Cmp(f); c != 0 || !b.frac {
				return c
			}
			return -1
		}, nil
	case *array.Decimal256:
		r, err := literalRat(arr, lit)
		if err != nil {
			return nil, err
		}
		b := newBigBound(r)
		if b.floor.BitLen() > 254 {
			return constCmp(-b.floor.Sign()), nil
		}
		f := decimal256.FromBigInt(b.floor)
		return func(i int) int {
			if c := a.Value(i).Cmp(f); c != 0 || !b.frac {
				return c
			}
			return -1
		}, nil
	case *array.Boolean:
		v, ok := boolOf(lit)
		if !ok {
			return nil, fmt.Errorf("expected TRUE or FALSE, got %s", lit)
		}
		return func(i int) int { return cmpBool(a.Value(i), v) }, nil
	case *array.Binary, *array.LargeBinary, *array.BinaryView, *array.FixedSizeBinary:
		s, ok := textOf(lit)
		if !ok || lit.Kind != LitString {
			return nil, fmt.Errorf("expected a string, got %s", lit)
		}
		get := bytesGetter(a)
		want := []byte(s)
		return func(i int) int { return bytes.Compare(get(i), want) }, nil
	}
	if get, ok := stringGetter(arr); ok {
		s, ok := textOf(lit)
		if !ok {
			return nil, fmt.Errorf("expected a string, got %s", lit)
		}
		return func(i int) int { return strings.Compare(get(i), s) }, nil
	}
	return nil, fmt.Errorf("comparisons on %s columns are not supported", arr.DataType())
}

func constCmp(c int) func(int) int { return func(int) int { return c } }

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func uint64Getter(arr arrow.Array) func(int) uint64 {
	switch a := arr.(type) {
	case *array.Uint8:
		return func(i int) uint64 { return uint64(a.Value(i)) }
	case *array.Uint16:
		return func(i int) uint64 { return uint64(a.Value(i)) }
	case *array.Uint32:
		return func(i int) uint64 { return uint64(a.Value(i)) }
	}
	return arr.(*array.Uint64).Value
}

func float64Getter(arr arrow.Array) func(int) float64 {
	switch a := arr.(type) {
	case *array.Float16:
		return func(i int) float64 { return float64(a.Value(i).Float32()) }
	case *array.Float32:
		return func(i int) float64 { return float64(a.Value(i)) }
	}
	return arr.(*array.Float64).Value
}

func bytesGetter(arr arrow.Array) func(int) []byte {
	switch a := arr.(type) {
	case *array.Binary:
		return a.Value
	case *array.LargeBinary:
		return a.Value
	case *array.BinaryView:
		return a.Value
	}
	return arr.(*array.FixedSizeBinary).Value
}

// compileLike turns a LIKE pattern into a matcher. Common shapes (no wildcard, 'p%', '%s',
// '%x%') avoid regexp; everything else compiles to an anchored regexp.
func compileLike(pattern string) (func(string) bool, error) {
	var lit strings.Builder
	var re strings.Builder
	re.WriteString(`(?s)\A`)
	wild := false
	var shape []byte // sequence of 'L' (literal run), '%' and '_'
	var runs []string
	flush := func() {
		if lit.Len() > 0 {
			re.WriteString(regexp.QuoteMeta(lit.String()))
			runs = append(runs, lit.String())
			shape = append(shape, 'L')
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '\\':
			if i+1 >= len(pattern) {
				return nil, fmt.Errorf("pattern ends with an escape character")
			}
			i++
			lit.WriteByte(pattern[i])
		case '%':
			flush()
			wild = true
			if len(shape) == 0 || shape[len(shape)-1] != '%' {
				re.WriteString(`.*`)
				shape = append(shape, '%')
			}
		case '_':
			flush()
			wild = true
			re.WriteString(`.`)
			shape = append(shape, '_')
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	if !wild {
		s := strings.Join(runs, "")
		return func(v string) bool { return v == s }, nil
	}
	switch string(shape) {
	case "%":
		return func(string) bool { return true }, nil
	case "L%":
		p := runs[0]
		return func(v string) bool { return strings.HasPrefix(v, p) }, nil
	case "%L":
		p := runs[0]
		return func(v string) bool { return strings.HasSuffix(v, p) }, nil
	case "%L%":
		p := runs[0]
		return func(v string) bool { return strings.Contains(v, p) }, nil
	}
	re.WriteString(`\z`)
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil, err
	}
	return rx.MatchString, nil
}
