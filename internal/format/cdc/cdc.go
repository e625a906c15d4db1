// Package cdc is the content of Hudi's change-data-capture log files (RFC-51): the
// supplemental logging modes, the Avro schema of the records in a CDC_DATA_BLOCK, and
// the encoding and decoding of those records.
//
// A CDC log file is a log file named ".<fileId>_<instant>.log.1_<writeToken>-cdc" (spec,
// CDCSuffix014) holding CDC_DATA_BLOCKs, whose content is laid out as an AVRO_DATA_BLOCK's
// (format/logfile) with an INSTANT_TIME and a SCHEMA header. Java writes one next to every
// base file a merge rewrites with changes (HoodieMergeHandleWithChangeLog, HoodieCDCLogger)
// and lists it in the write stat's cdcStats. What a record holds depends on
// hoodie.table.cdc.supplemental.logging.mode:
//
//	OP_KEY_ONLY        Record { op: [string,null], record_key: [string,null] }
//	DATA_BEFORE        CDC { op: [null,string], record_key: [null,string], before: [null,<table>] }
//	DATA_BEFORE_AFTER  CDC { op: [null,string], ts_ms: [null,string], before: [null,<table>], after: [null,<table>] }
//
// where <table> is the table's Avro record without the _hoodie_* meta fields
// (HoodieCDCUtils.schemaBySupplementalLoggingMode). The images a mode does not store are
// rebuilt by the reader from the base files before and after the commit.
package cdc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Mode is hoodie.table.cdc.supplemental.logging.mode (Java's
// HoodieCDCSupplementalLoggingMode).
type Mode int

// The supplemental logging modes, in Java's enum order.
const (
	OpKeyOnly Mode = iota
	DataBefore
	DataBeforeAfter
)

// DefaultMode is the mode of a table that does not name one (Hudi 0.13.0 on).
const DefaultMode = DataBeforeAfter

// String returns Java's enum constant name, the form hoodie.properties holds.
func (m Mode) String() string {
	switch m {
	case OpKeyOnly:
		return "OP_KEY_ONLY"
	case DataBefore:
		return "DATA_BEFORE"
	case DataBeforeAfter:
		return "DATA_BEFORE_AFTER"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses a mode name, ignoring case (Hudi 0.13 wrote them in lower case, 0.14 in
// upper case); "" is DefaultMode.
func ParseMode(s string) (Mode, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "":
		return DefaultMode, nil
	case "OP_KEY_ONLY":
		return OpKeyOnly, nil
	case "DATA_BEFORE":
		return DataBefore, nil
	case "DATA_BEFORE_AFTER":
		return DataBeforeAfter, nil
	}
	return 0, fmt.Errorf("hoodie.table.cdc.supplemental.logging.mode %q: want OP_KEY_ONLY, DATA_BEFORE or DATA_BEFORE_AFTER", s)
}

// StoresBefore reports whether the mode's records carry the before image.
func (m Mode) StoresBefore() bool { return m == DataBefore || m == DataBeforeAfter }

// StoresAfter reports whether the mode's records carry the after image.
func (m Mode) StoresAfter() bool { return m == DataBeforeAfter }

// Op is a change's operation (Java's HoodieCDCOperation values).
type Op byte

// Operations.
const (
	Insert Op = 'i'
	Update Op = 'u'
	Delete Op = 'd'
)

// String returns the op as CDC queries show it.
func (o Op) String() string { return string(rune(o)) }

// ParseOp parses "i", "u" or "d".
func ParseOp(s string) (Op, error) {
	switch s {
	case "i":
		return Insert, nil
	case "u":
		return Update, nil
	case "d":
		return Delete, nil
	}
	return 0, fmt.Errorf("CDC operation %q: want i, u or d", s)
}

// Field names of CDC records and of CDC query rows (HoodieCDCUtils).
const (
	FieldOp        = "op"
	FieldTS        = "ts_ms"
	FieldBefore    = "before"
	FieldAfter     = "after"
	FieldRecordKey = "record_key"
)

// OpKeySchema is the schema of OP_KEY_ONLY records, exactly as Java's
// HoodieCDCUtils.CDC_SCHEMA_OP_AND_RECORDKEY_STRING (Avro's toString of it is the same text).
const OpKeySchema = `{"type":"record","name":"Record","fields":[{"name":"op","type":["string","null"]},{"name":"record_key","type":["string","null"]}]}`

// Schema returns the schema of mode's records for a table whose Avro record schema without
// meta fields is tableSchema, as Java's Schema.toString prints
// HoodieCDCUtils.schemaBySupplementalLoggingMode: a record "CDC" in no namespace whose
// fields are nullable with doc "" and default null. The table record is written in full in
// "before" and referred to by its full name in "after".
//
// UNVERIFIED for 0.14: the record is created in no namespace as in the 0.13 source
// (Schema.createRecord("CDC", null, "", false)); master puts it in the table's namespace.
// Readers resolve records by field names, so either reads the other's blocks.
func Schema(mode Mode, tableSchema string) (string, error) {
	if mode == OpKeyOnly {
		return OpKeySchema, nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(tableSchema)); err != nil {
		return "", fmt.Errorf("CDC schema: table schema: %w", err)
	}
	var rec struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	if err := json.Unmarshal(compact.Bytes(), &rec); err != nil || rec.Type != "record" || rec.Name == "" {
		return "", errors.New("CDC schema: the table schema is not a named Avro record")
	}
	full := rec.Name
	if rec.Namespace != "" && !strings.Contains(rec.Name, ".") {
		full = rec.Namespace + "." + rec.Name
	}
	nullable := func(name, typ string) string {
		return `{"name":"` + name + `","type":["null",` + typ + `],"doc":"","default":null}`
	}
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"CDC","fields":[`)
	b.WriteString(nullable(FieldOp, `"string"`))
	b.WriteByte(',')
	if mode == DataBeforeAfter {
		b.WriteString(nullable(FieldTS, `"string"`))
	} else {
		b.WriteString(nullable(FieldRecordKey, `"string"`))
	}
	b.WriteByte(',')
	b.WriteString(nullable(FieldBefore, compact.String()))
	if mode == DataBeforeAfter {
		ref, _ := json.Marshal(full)
		b.WriteByte(',')
		b.WriteString(nullable(FieldAfter, string(ref)))
	}
	b.WriteString(`]}`)
	return b.String(), nil
}

// AppendRecord appends the Avro binary datum of one CDC record of mode, in the layout of
// Schema(mode, …): key is the record key (OP_KEY_ONLY, DATA_BEFORE) or the commit instant
// (DATA_BEFORE_AFTER's ts_ms); before and after are Avro binary datums of the table record
// without meta fields, nil for none (a mode that does not store an image ignores it).
func AppendRecord(dst []byte, mode Mode, op Op, key string, before, after []byte) []byte {
	if mode == OpKeyOnly {
		// ["string","null"]: the string is branch 0.
		dst = appendLong(dst, 0)
		dst = appendString(dst, op.String())
		dst = appendLong(dst, 0)
		return appendString(dst, key)
	}
	// ["null", …]: a value is branch 1.
	dst = appendLong(dst, 1)
	dst = appendString(dst, op.String())
	dst = appendLong(dst, 1)
	dst = appendString(dst, key)
	dst = appendImage(dst, before)
	if mode == DataBeforeAfter {
		dst = appendImage(dst, after)
	}
	return dst
}

func appendImage(dst, datum []byte) []byte {
	if datum == nil {
		return appendLong(dst, 0)
	}
	dst = appendLong(dst, 1)
	return append(dst, datum...)
}

// appendLong appends Avro's zig-zag varint encoding of v.
func appendLong(dst []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

func appendString(dst []byte, s string) []byte {
	dst = appendLong(dst, int64(len(s)))
	return append(dst, s...)
}

// Decoder decodes CDC records written with one writer schema (a block's SCHEMA header)
// into the shape of the table's current schema: images come back in the reader's fields,
// a field the writer lacked as null, as Java's HoodieCDCLogRecordIterator reads them with
// the CDC schema of the table's latest schema.
type Decoder struct {
	mode Mode
	s    *avroSchema
}

// Record is one decoded CDC record. Key is the record key (OP_KEY_ONLY, DATA_BEFORE) or
// the ts_ms instant (DATA_BEFORE_AFTER); Before and After are the images as generic Avro
// records (internal/avro shapes), nil for none or for an image the mode does not store.
type Record struct {
	Op            Op
	Key           string
	Before, After map[string]any
}

// NewDecoder returns a decoder of mode's records written with writerSchema, read as the
// table schema tableSchema (an Avro record without meta fields) has them.
func NewDecoder(mode Mode, writerSchema, tableSchema string) (*Decoder, error) {
	reader, err := Schema(mode, tableSchema)
	if err != nil {
		return nil, err
	}
	s, err := resolve(writerSchema, reader, mode)
	if err != nil {
		return nil, err
	}
	return &Decoder{mode: mode, s: s}, nil
}

// wantFields are the fields of mode's records, in order.
func wantFields(mode Mode) []string {
	switch mode {
	case OpKeyOnly:
		return []string{FieldOp, FieldRecordKey}
	case DataBefore:
		return []string{FieldOp, FieldRecordKey, FieldBefore}
	}
	return []string{FieldOp, FieldTS, FieldBefore, FieldAfter}
}

// Decode decodes one record's datum. Bytes after the record are ignored, as Java's
// HoodieAvroDataBlock reads one record from each length-framed datum.
func (d *Decoder) Decode(datum []byte) (Record, error) {
	v, err := d.s.decode(datum)
	if err != nil {
		return Record{}, fmt.Errorf("decode CDC record: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Record{}, fmt.Errorf("decode CDC record: got %T, not a record", v)
	}
	opText, ok := m[FieldOp].(string)
	if !ok {
		return Record{}, errors.New("decode CDC record: op is null")
	}
	op, err := ParseOp(opText)
	if err != nil {
		return Record{}, fmt.Errorf("decode CDC record: %w", err)
	}
	keyField := FieldRecordKey
	if d.mode == DataBeforeAfter {
		keyField = FieldTS
	}
	key, _ := m[keyField].(string)
	r := Record{Op: op, Key: key}
	if d.mode != DataBeforeAfter && m[keyField] == nil {
		return Record{}, errors.New("decode CDC record: record_key is null")
	}
	if d.mode.StoresBefore() {
		if r.Before, err = image(m, FieldBefore); err != nil {
			return Record{}, err
		}
	}
	if d.mode.StoresAfter() {
		if r.After, err = image(m, FieldAfter); err != nil {
			return Record{}, err
		}
	}
	return r, nil
}

func image(m map[string]any, field string) (map[string]any, error) {
	switch v := m[field].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("decode CDC record: %s is %T, not a record", field, v)
	}
}
