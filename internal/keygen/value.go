package keygen

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// jkind is the Java class the Avro value of a cell has when Java's key generators see it
// (after HoodieAvroUtils.convertValueForSpecificDataTypes, with
// consistent.logical.timestamp.enabled=false, Hudi's default).
type jkind int

const (
	jNull    jkind = iota
	jString        // CharSequence (Utf8)
	jInt           // Integer: Spark byte/short/int
	jLong          // Long: bigint, and timestamps as raw micros
	jFloat         // Float
	jDouble        // Double
	jBool          // Boolean
	jDecimal       // BigDecimal (decimal logical type)
	jDate          // LocalDate (date logical type)
)

// jval is one cell as the Java object Hudi would stringify.
type jval struct {
	kind  jkind
	s     string   // jString
	i     int64    // jInt, jLong, jBool (0/1), jDate (epoch days)
	f     float64  // jFloat, jDouble
	unsc  *big.Int // jDecimal unscaled value
	scale int32    // jDecimal scale
}

// String is Java's toString of the value (StringUtils.objToString), which is what
// HoodieAvroUtils.getNestedFieldValAsString returns.
func (v jval) String() string {
	switch v.kind {
	case jString:
		return v.s
	case jInt, jLong:
		return strconv.FormatInt(v.i, 10)
	case jFloat:
		return JavaDoubleString(v.f, 32)
	case jDouble:
		return JavaDoubleString(v.f, 64)
	case jBool:
		if v.i != 0 {
			return "true"
		}
		return "false"
	case jDecimal:
		return JavaBigDecimalString(v.unsc, v.scale)
	case jDate:
		return javaLocalDate(v.i)
	}
	return ""
}

// supportedType reports whether Java would produce a meaningful key string for a column of
// type dt. Binary, nested and list types are refused: Java stringifies the ByteBuffer or
// container object (e.g. "java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]"), which no one should
// key on.
func supportedType(dt arrow.DataType) error {
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		return supportedType(t.ValueType)
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType,
		*arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float16Type, *arrow.Float32Type, *arrow.Float64Type, *arrow.BooleanType,
		*arrow.Date32Type, *arrow.Date64Type, *arrow.TimestampType,
		*arrow.Time32Type, *arrow.Time64Type,
		*arrow.Decimal128Type, *arrow.Decimal256Type, *arrow.NullType:
		return nil
	}
	return fmt.Errorf("type %s cannot be a key or partition field (Java would stringify the object, not its value)", dt)
}

// cellValue reads row i of arr as the Java object Hudi's Avro path would hold.
func cellValue(arr arrow.Array, i int) (jval, error) {
	if arr.IsNull(i) {
		return jval{}, nil
	}
	switch a := arr.(type) {
	case *array.Dictionary:
		return cellValue(a.Dictionary(), a.GetValueIndex(i))
	case *array.String:
		return jval{kind: jString, s: a.Value(i)}, nil
	case *array.LargeString:
		return jval{kind: jString, s: a.Value(i)}, nil
	case *array.StringView:
		return jval{kind: jString, s: a.Value(i)}, nil
	case *array.Int8:
		return jval{kind: jInt, i: int64(a.Value(i))}, nil
	case *array.Int16:
		return jval{kind: jInt, i: int64(a.Value(i))}, nil
	case *array.Int32:
		return jval{kind: jInt, i: int64(a.Value(i))}, nil
	case *array.Int64:
		return jval{kind: jLong, i: a.Value(i)}, nil
	case *array.Uint8:
		return jval{kind: jInt, i: int64(a.Value(i))}, nil
	case *array.Uint16:
		return jval{kind: jInt, i: int64(a.Value(i))}, nil
	case *array.Uint32:
		// Spark reads UINT_32 as bigint.
		return jval{kind: jLong, i: int64(a.Value(i))}, nil
	case *array.Uint64:
		// Spark reads UINT_64 as decimal(20,0).
		return jval{kind: jDecimal, unsc: new(big.Int).SetUint64(a.Value(i))}, nil
	case *array.Float16:
		return jval{kind: jFloat, f: float64(a.Value(i).Float32())}, nil
	case *array.Float32:
		return jval{kind: jFloat, f: float64(a.Value(i))}, nil
	case *array.Float64:
		return jval{kind: jDouble, f: a.Value(i)}, nil
	case *array.Boolean:
		v := jval{kind: jBool}
		if a.Value(i) {
			v.i = 1
		}
		return v, nil
	case *array.Date32:
		return jval{kind: jDate, i: int64(a.Value(i))}, nil
	case *array.Date64:
		return jval{kind: jDate, i: floorDiv(int64(a.Value(i)), 86400000)}, nil
	case *array.Timestamp:
		// Hudi's Avro schema stores every Spark timestamp as timestamp-micros, and with
		// consistent.logical.timestamp.enabled=false the key is that raw long.
		return jval{kind: jLong, i: toMicros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)}, nil
	case *array.Time32:
		// Avro time-millis is an int.
		return jval{kind: jInt, i: int64(a.Value(i))}, nil
	case *array.Time64:
		return jval{kind: jLong, i: toMicros(int64(a.Value(i)), a.DataType().(*arrow.Time64Type).Unit)}, nil
	case *array.Decimal128:
		return jval{kind: jDecimal, unsc: a.Value(i).BigInt(), scale: a.DataType().(*arrow.Decimal128Type).Scale}, nil
	case *array.Decimal256:
		return jval{kind: jDecimal, unsc: a.Value(i).BigInt(), scale: a.DataType().(*arrow.Decimal256Type).Scale}, nil
	case *array.Null:
		return jval{}, nil
	}
	return jval{}, supportedType(arr.DataType())
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func toMicros(v int64, u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return v * 1e6
	case arrow.Millisecond:
		return v * 1e3
	case arrow.Nanosecond:
		return floorDiv(v, 1e3)
	}
	return v
}

// JavaDoubleString formats f as Java's Double.toString (bitSize 64) or Float.toString
// (bitSize 32): plain decimal with at least one fractional digit for 1e-3 <= |f| < 1e7,
// otherwise computerized scientific notation like "1.0E10" or "1.5E-4". Digits are the
// shortest that round-trip, which is what JDK 19+ prints; older JDKs occasionally printed one
// more digit for rare values (JDK-4511638) — UNVERIFIED which values Hudi 0.14 on Java 8/11
// would render differently.
func JavaDoubleString(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bitSize)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bitSize) // e.g. "1e+10", "-1.5e-04"
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(exp, "+-")
	exp = strings.TrimLeft(exp, "0")
	if exp == "" {
		exp = "0"
	}
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// JavaBigDecimalString formats unscaled×10^-scale as Java's BigDecimal.toString: plain when
// scale >= 0 and the adjusted exponent is >= -6, otherwise scientific ("1.23E-7", "1E+3").
func JavaBigDecimalString(unscaled *big.Int, scale int32) string {
	if unscaled == nil {
		unscaled = new(big.Int)
	}
	digits := new(big.Int).Abs(unscaled).String()
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	if scale == 0 {
		return sign + digits
	}
	adjusted := -int64(scale) + int64(len(digits)-1)
	if scale > 0 && adjusted >= -6 {
		sc := int(scale)
		if len(digits) > sc {
			return sign + digits[:len(digits)-sc] + "." + digits[len(digits)-sc:]
		}
		return sign + "0." + strings.Repeat("0", sc-len(digits)) + digits
	}
	var b strings.Builder
	b.WriteString(sign)
	b.WriteByte(digits[0])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('E')
	if adjusted >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.FormatInt(adjusted, 10))
	return b.String()
}

// javaLocalDate is LocalDate.ofEpochDay(days).toString(): yyyy-MM-dd, four-digit years padded
// (with "-" before negative ones) and "+" before years above 9999.
func javaLocalDate(days int64) string {
	t := epochDayTime(days)
	y := t.Year()
	var ys string
	switch {
	case y > 9999:
		ys = "+" + strconv.Itoa(y)
	default:
		ys = pad(int64(y), 4)
	}
	return ys + "-" + pad(int64(t.Month()), 2) + "-" + pad(int64(t.Day()), 2)
}
