package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SchemaElement is one node of a Parquet file's schema exactly as its footer stores it
// (thrift SchemaElement), without arrow-go's interpretation: arrow-go derives a logical
// type from a converted type on read (MAP_KEY_VALUE reads back as a MAP logical type), so
// comparing two writers' layouts, as the golden tests against the Spark-written files do,
// needs the stored fields. Unset optional fields are -1 ("" for LogicalType).
type SchemaElement struct {
	Name          string
	Type          int32 // physical type (thrift Type); -1 for a group
	TypeLength    int32
	Repetition    int32 // thrift FieldRepetitionType: 0 required, 1 optional, 2 repeated
	NumChildren   int32 // -1 for a primitive
	ConvertedType int32
	Scale         int32
	Precision     int32
	FieldID       int32
	// LogicalType is the stored LogicalType union, rendered as its member's name and
	// fields (STRING, TIMESTAMP(1:true,2:MICROS), …); "" when the element has none.
	LogicalType string
}

var physicalNames = []string{"boolean", "int32", "int64", "int96", "float", "double", "binary", "fixed_len_byte_array"}

var convertedNames = []string{"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
	"TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8",
	"INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"}

var logicalNames = map[int16]string{1: "STRING", 2: "MAP", 3: "LIST", 4: "ENUM", 5: "DECIMAL", 6: "DATE", 7: "TIME",
	8: "TIMESTAMP", 10: "INTEGER", 11: "UNKNOWN", 12: "JSON", 13: "BSON", 14: "UUID", 15: "FLOAT16", 16: "VARIANT",
	17: "GEOMETRY", 18: "GEOGRAPHY"}

var timeUnitNames = map[int16]string{1: "MILLIS", 2: "MICROS", 3: "NANOS"}

func nameOf(names []string, v int32) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return strconv.Itoa(int(v))
}

// String renders the element as one line of parquet-mr's schema notation, with the
// stored converted and logical types spelled out (both, since writers differ in which
// they set).
func (e SchemaElement) String() string {
	var b strings.Builder
	switch e.Repetition {
	case 0:
		b.WriteString("required ")
	case 1:
		b.WriteString("optional ")
	case 2:
		b.WriteString("repeated ")
	case -1:
		b.WriteString("message ")
	default:
		fmt.Fprintf(&b, "repetition(%d) ", e.Repetition)
	}
	if e.NumChildren >= 0 || e.Type < 0 {
		b.WriteString("group ")
	} else {
		b.WriteString(nameOf(physicalNames, e.Type))
		if e.TypeLength >= 0 && e.Type == 7 {
			fmt.Fprintf(&b, "(%d)", e.TypeLength)
		}
		b.WriteByte(' ')
	}
	b.WriteString(e.Name)
	if e.ConvertedType >= 0 {
		fmt.Fprintf(&b, " converted=%s", nameOf(convertedNames, e.ConvertedType))
	}
	if e.LogicalType != "" {
		fmt.Fprintf(&b, " logical=%s", e.LogicalType)
	}
	if e.Precision >= 0 || e.Scale >= 0 {
		fmt.Fprintf(&b, " precision=%d scale=%d", e.Precision, e.Scale)
	}
	if e.FieldID >= 0 {
		fmt.Fprintf(&b, " id=%d", e.FieldID)
	}
	return b.String()
}

// FormatSchema renders a footer's schema elements one per line, children indented
// under their group, the root first.
func FormatSchema(els []SchemaElement) string {
	var b strings.Builder
	var walk func(i, depth int) int
	walk = func(i, depth int) int {
		if i >= len(els) {
			return i
		}
		e := els[i]
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(e.String())
		b.WriteByte('\n')
		i++
		for c := int32(0); c < e.NumChildren && i < len(els); c++ {
			i = walk(i, depth+1)
		}
		return i
	}
	for i := 0; i < len(els); {
		i = walk(i, 0)
	}
	return b.String()
}

// ReadSchemaElements reads the schema elements of a Parquet file's footer (FileMetaData
// field 2), in the stored order (depth first, the root first).
func ReadSchemaElements(r io.ReaderAt, size int64) ([]SchemaElement, error) {
	if size < 12 {
		return nil, fmt.Errorf("%d bytes is too short to be Parquet", size)
	}
	var tail [8]byte
	if err := readFull(r, tail[:], size-8); err != nil {
		return nil, err
	}
	if string(tail[4:]) != "PAR1" {
		return nil, errors.New("no PAR1 footer magic (encrypted or not Parquet)")
	}
	flen := int64(binary.LittleEndian.Uint32(tail[:4]))
	if flen <= 0 || flen > size-12 {
		return nil, fmt.Errorf("footer length %d does not fit a %d-byte file", flen, size)
	}
	scratch := make([]byte, 0, footerChunk)
	end := size - 8
	t := &thriftWalker{r: r, pos: end - flen, end: end, scratch: &scratch}
	var out []SchemaElement
	var last int16
	for t.err == nil {
		id, typ, stop := t.fieldHeader(&last)
		if stop || t.err != nil {
			break
		}
		if id != 2 || typ != tList {
			t.skip(typ, false, 0)
			continue
		}
		n, elem := t.listHeader()
		if elem != tStruct && n > 0 {
			t.fail("schema is not a list of structs")
			break
		}
		for i := 0; i < n && t.err == nil; i++ {
			out = append(out, t.schemaElement())
		}
		break
	}
	if t.err != nil {
		return nil, t.err
	}
	if len(out) == 0 {
		return nil, errors.New("footer has no schema")
	}
	return out, nil
}

func (t *thriftWalker) i32() int32 {
	v := t.uvarint()
	return int32(int64(v>>1) ^ -int64(v&1))
}

func (t *thriftWalker) schemaElement() SchemaElement {
	e := SchemaElement{Type: -1, TypeLength: -1, Repetition: -1, NumChildren: -1, ConvertedType: -1, Scale: -1, Precision: -1, FieldID: -1}
	var last int16
	for t.err == nil {
		id, typ, stop := t.fieldHeader(&last)
		if stop {
			break
		}
		switch {
		case id == 4 && typ == tBinary:
			off, n := t.binaryRef()
			e.Name = t.stringAt(off, n)
		case id == 10 && typ == tStruct:
			e.LogicalType = t.render(typ, 0, logicalNames)
		case typ == tI32 && id >= 1 && id <= 9:
			v := t.i32()
			switch id {
			case 1:
				e.Type = v
			case 2:
				e.TypeLength = v
			case 3:
				e.Repetition = v
			case 5:
				e.NumChildren = v
			case 6:
				e.ConvertedType = v
			case 7:
				e.Scale = v
			case 8:
				e.Precision = v
			case 9:
				e.FieldID = v
			}
		default:
			t.skip(typ, false, 1)
		}
	}
	return e
}

// render renders a thrift value for SchemaElement.LogicalType: a union as its member's
// name (from names) and the member's fields in parentheses; a TimeUnit union by name.
func (t *thriftWalker) render(typ byte, depth int, names map[int16]string) string {
	if depth > maxThriftDepth {
		t.fail("nested too deeply")
		return ""
	}
	switch typ {
	case tTrue:
		return "true"
	case tFalse:
		return "false"
	case tByte:
		return strconv.Itoa(int(int8(t.byte1())))
	case tI16, tI32, tI64:
		v := t.uvarint()
		return strconv.FormatInt(int64(v>>1)^-int64(v&1), 10)
	case tStruct:
		var parts []string
		var last int16
		for t.err == nil {
			id, ft, stop := t.fieldHeader(&last)
			if stop {
				break
			}
			if names != nil {
				// a union: the member's name, then its fields
				name, ok := names[id]
				if !ok {
					name = strconv.Itoa(int(id))
				}
				inner := t.render(ft, depth+1, nil)
				if inner != "" && inner != "()" {
					name += inner
				}
				parts = append(parts, name)
				continue
			}
			if ft == tStruct && id == 2 {
				// TIMESTAMP and TIME: field 2 is the TimeUnit union
				parts = append(parts, fmt.Sprintf("%d:%s", id, strings.Trim(t.render(ft, depth+1, timeUnitNames), "()")))
				continue
			}
			parts = append(parts, fmt.Sprintf("%d:%s", id, t.render(ft, depth+1, nil)))
		}
		if names != nil {
			return strings.Join(parts, ",")
		}
		return "(" + strings.Join(parts, ",") + ")"
	default:
		t.skip(typ, false, depth)
		return "?"
	}
}
