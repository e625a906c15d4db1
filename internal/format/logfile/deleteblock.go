package logfile

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// DeleteRecordListNamespace is the namespace of the delete-record schema and its wrappers.
const DeleteRecordListNamespace = "org.apache.hudi.avro.model"

// DateValue is an ordering value of Avro's date logical type (DateWrapper): days since the
// Unix epoch.
type DateValue int32

// DecimalValue is an ordering value of DecimalWrapper: the big-endian two's-complement
// unscaled value of a decimal(30,15).
type DecimalValue []byte

// NewDecimalValue is the DecimalValue of the unscaled value n: its minimal big-endian
// two's-complement bytes, as Java's BigInteger.toByteArray gives them (and Avro's decimal
// conversion writes them).
func NewDecimalValue(n *big.Int) DecimalValue {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 has the complemented bits of n; one sign bit more than its length.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	size := m.BitLen()/8 + 1
	b := make([]byte, size)
	mb := m.Bytes()
	copy(b[size-len(mb):], mb)
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// DecimalWrapperPrecision and DecimalWrapperScale describe DecimalValue.
const (
	DecimalWrapperPrecision = 30
	DecimalWrapperScale     = 15
)

// TimeMicrosValue is an ordering value of TimeMicrosWrapper: microseconds after midnight.
type TimeMicrosValue int64

// TimestampMicrosValue is an ordering value of TimestampMicrosWrapper: microseconds since
// the Unix epoch, UTC.
type TimestampMicrosValue int64

// DeleteRecord is one key deleted by a DELETE_BLOCK.
type DeleteRecord struct {
	RecordKey     string
	PartitionPath string
	// OrderingValue decides, under event-time merging, whether the delete wins over a record
	// of the same key. It is nil, bool, int32, int64, float32, float64, []byte, string,
	// DateValue, DecimalValue, TimeMicrosValue or TimestampMicrosValue — one Go type per
	// wrapper of the union, so the wrapper survives a decode/encode round trip. Spark SQL
	// deletes write int32(0), Java's default ordering value.
	OrderingValue any
}

// The wrapper record names in union order (branch i+1; branch 0 is null).
const (
	wrapBoolean         = "BooleanWrapper"
	wrapInt             = "IntWrapper"
	wrapLong            = "LongWrapper"
	wrapFloat           = "FloatWrapper"
	wrapDouble          = "DoubleWrapper"
	wrapBytes           = "BytesWrapper"
	wrapString          = "StringWrapper"
	wrapDate            = "DateWrapper"
	wrapDecimal         = "DecimalWrapper"
	wrapTimeMicros      = "TimeMicrosWrapper"
	wrapTimestampMicros = "TimestampMicrosWrapper"
)

// deleteSchemas holds the parsed delete-record schemas. Parsing is deferred to first use so
// that importing the package costs nothing.
type deleteSchemas struct {
	// canonical is avroschema.DeleteRecordList; it encodes (with tagged union values naming the
	// wrapper).
	canonical *avro.Schema
	// view decodes. Decoded unions do not say which branch they came from, and several
	// wrappers share a shape (Int/Date, Long/TimeMicros/TimestampMicros, Bytes/Decimal).
	// Field names do not appear in Avro binary data, so view is avroschema.DeleteRecordList with
	// each wrapper's field renamed to the wrapper's name: the same bytes decode to
	// {"DateWrapper": 19000} instead of {"value": 19000}.
	view *avro.Schema
	err  error
}

var loadDeleteSchemas = sync.OnceValue(func() deleteSchemas {
	canonical, err := avro.Parse(avroschema.DeleteRecordList.JSON())
	if err != nil {
		return deleteSchemas{err: fmt.Errorf("parse delete record list schema: %w", err)}
	}
	viewJSON, err := wrapperFieldsRenamed(avroschema.DeleteRecordList.JSON())
	if err != nil {
		return deleteSchemas{err: fmt.Errorf("derive delete record list decoding schema: %w", err)}
	}
	view, err := avro.Parse(viewJSON)
	if err != nil {
		return deleteSchemas{err: fmt.Errorf("parse delete record list decoding schema: %w", err)}
	}
	return deleteSchemas{canonical: canonical, view: view}
})

// wrapperFieldsRenamed returns schemaJSON with the single field of every "*Wrapper" record
// renamed to the record's name.
func wrapperFieldsRenamed(schemaJSON string) (string, error) {
	var root any
	if err := json.Unmarshal([]byte(schemaJSON), &root); err != nil {
		return "", err
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			name, _ := v["name"].(string)
			if v["type"] == "record" && strings.HasSuffix(name, "Wrapper") {
				if fields, ok := v["fields"].([]any); ok && len(fields) == 1 {
					if f, ok := fields[0].(map[string]any); ok {
						f["name"] = name
					}
				}
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(root)
	out, err := json.Marshal(root)
	return string(out), err
}

// DecodeDeleteBlock decodes the content of a DELETE_BLOCK:
//
//	int32 version | int32 dataLength | dataLength bytes
//
// Version 3 data is the Avro binary of HoodieDeleteRecordList (avroschema.DeleteRecordList).
// Versions 1 and 2 (Hudi before 0.11) hold Java-serialized (Kryo) objects that cannot be read
// outside the JVM and are reported as unsupported. Like Java, bytes after the data are
// ignored.
func DecodeDeleteBlock(content []byte) ([]DeleteRecord, error) {
	c := cursor{b: content}
	version, ok := c.int32()
	if !ok {
		return nil, fmt.Errorf("decode delete block: %d bytes are too short for the version", len(content))
	}
	switch {
	case version == 1 || version == 2:
		return nil, fmt.Errorf("decode delete block: version %d holds Java-serialized (Kryo) delete keys written before Hudi 0.11; unsupported", version)
	case version != AvroDataBlockVersion:
		return nil, fmt.Errorf("decode delete block: unsupported delete block version %d (readable: %d)", version, AvroDataBlockVersion)
	}
	n, ok := c.int32()
	if !ok {
		return nil, fmt.Errorf("decode delete block: content ends before the data length")
	}
	data, ok := c.bytes(int(n))
	if !ok {
		return nil, fmt.Errorf("decode delete block: data length %d exceeds the %d content bytes left", n, c.remaining())
	}
	schemas := loadDeleteSchemas()
	if schemas.err != nil {
		return nil, schemas.err
	}
	v, _, err := schemas.view.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("decode delete block: avro HoodieDeleteRecordList: %w", err)
	}
	list, err := deleteRecordList(v)
	if err != nil {
		return nil, fmt.Errorf("decode delete block: %w", err)
	}
	return list, nil
}

// deleteRecordList converts the generic value decoded with the view schema.
func deleteRecordList(v any) ([]DeleteRecord, error) {
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decoded %T, not a record", v)
	}
	items, ok := root["deleteRecordList"].([]any)
	if !ok {
		return nil, fmt.Errorf("deleteRecordList decoded as %T, not an array", root["deleteRecordList"])
	}
	out := make([]DeleteRecord, len(items))
	for i, item := range items {
		rec, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("delete record %d decoded as %T, not a record", i, item)
		}
		key, _ := rec["recordKey"].(string)
		part, _ := rec["partitionPath"].(string)
		ord, err := orderingValueFromView(rec["orderingVal"])
		if err != nil {
			return nil, fmt.Errorf("delete record %d (key %q): %w", i, key, err)
		}
		out[i] = DeleteRecord{RecordKey: key, PartitionPath: part, OrderingValue: ord}
	}
	return out, nil
}

// orderingValueFromView maps a decoded wrapper {"<Name>Wrapper": value} to its Go type.
func orderingValueFromView(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	w, ok := v.(map[string]any)
	if !ok || len(w) != 1 {
		return nil, fmt.Errorf("orderingVal decoded as %T, not a wrapper record", v)
	}
	for name, val := range w {
		switch name {
		case wrapBoolean, wrapInt, wrapLong, wrapFloat, wrapDouble, wrapString:
			return val, nil
		case wrapBytes:
			if x, ok := val.([]byte); ok {
				return append([]byte{}, x...), nil // do not alias the block content
			}
		case wrapDate:
			if x, ok := val.(int32); ok {
				return DateValue(x), nil
			}
		case wrapDecimal:
			if x, ok := val.([]byte); ok {
				return DecimalValue(append([]byte{}, x...)), nil
			}
		case wrapTimeMicros:
			if x, ok := val.(int64); ok {
				return TimeMicrosValue(x), nil
			}
		case wrapTimestampMicros:
			if x, ok := val.(int64); ok {
				return TimestampMicrosValue(x), nil
			}
		}
		return nil, fmt.Errorf("orderingVal %s decoded as unexpected %T", name, val)
	}
	return nil, nil // unreachable: len(w) == 1
}

// orderingValueToAvro maps a Go ordering value to the tagged union value that selects its
// wrapper branch when encoding with the canonical schema.
func orderingValueToAvro(v any) (any, error) {
	var name string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		name = wrapBoolean
	case int32:
		name = wrapInt
	case int64:
		name = wrapLong
	case float32:
		name = wrapFloat
	case float64:
		name = wrapDouble
	case []byte:
		name = wrapBytes
	case string:
		name = wrapString
	case DateValue:
		name, v = wrapDate, int32(x)
	case DecimalValue:
		name, v = wrapDecimal, []byte(x)
	case TimeMicrosValue:
		name, v = wrapTimeMicros, int64(x)
	case TimestampMicrosValue:
		name, v = wrapTimestampMicros, int64(x)
	default:
		return nil, fmt.Errorf("ordering value of type %T has no wrapper (want nil, bool, int32, int64, float32, float64, []byte, string, DateValue, DecimalValue, TimeMicrosValue or TimestampMicrosValue)", v)
	}
	return map[string]any{DeleteRecordListNamespace + "." + name: map[string]any{"value": v}}, nil
}

// EncodeDeleteBlock builds the content of a version-3 DELETE_BLOCK. Keys and partition paths
// are always written as strings (Java never writes null ones).
func EncodeDeleteBlock(recs []DeleteRecord) ([]byte, error) {
	schemas := loadDeleteSchemas()
	if schemas.err != nil {
		return nil, schemas.err
	}
	items := make([]any, len(recs))
	for i, r := range recs {
		ord, err := orderingValueToAvro(r.OrderingValue)
		if err != nil {
			return nil, fmt.Errorf("encode delete block: record %d (key %q): %w", i, r.RecordKey, err)
		}
		items[i] = map[string]any{"recordKey": r.RecordKey, "partitionPath": r.PartitionPath, "orderingVal": ord}
	}
	out := make([]byte, 8, 8+32*len(recs))
	out, err := schemas.canonical.AppendEncode(out, map[string]any{"deleteRecordList": items})
	if err != nil {
		return nil, fmt.Errorf("encode delete block: avro HoodieDeleteRecordList: %w", err)
	}
	if err := checkInt32Len("encode delete block: data", len(out)-8); err != nil {
		return nil, err
	}
	binary.BigEndian.PutUint32(out[0:], uint32(AvroDataBlockVersion))
	binary.BigEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out, nil
}
