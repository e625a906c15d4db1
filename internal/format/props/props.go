// Package props reads and writes Java .properties text, the format of Hudi's
// .hoodie/hoodie.properties and of every .hoodie_partition_metadata file, and computes
// the table checksum Java Hudi stores in hoodie.properties.
//
// The codec follows the documented behaviour of java.util.Properties.load (on an
// InputStream, so the input is ISO-8859-1) and Properties.store (on an OutputStream, so
// every character outside printable ASCII is written as a \uXXXX escape). Values are
// held as Go (UTF-8) strings; \uXXXX surrogate pairs are joined into one rune, and an
// unpaired surrogate becomes U+FFFD because a Go string cannot hold it.
package props

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"strconv"
	"time"
	"unicode/utf16"
)

// Keys of hoodie.properties that this package itself interprets.
const (
	KeyTableName     = "hoodie.table.name"
	KeyDatabaseName  = "hoodie.database.name"
	KeyTableChecksum = "hoodie.table.checksum"
)

// Properties is a set of string key/value pairs; the zero value is an empty set. Order is not kept: Java Hudi writes keys in hash order and nothing depends on it,
// so writers here emit keys sorted, which keeps output deterministic.
type Properties struct {
	m map[string]string
}

// New returns an empty Properties.
func New() *Properties { return &Properties{m: map[string]string{}} }

// Get returns the value of key and whether it is present.
func (p *Properties) Get(key string) (string, bool) {
	if p == nil {
		return "", false
	}
	v, ok := p.m[key]
	return v, ok
}

// Set sets key to value.
func (p *Properties) Set(key, value string) {
	if p.m == nil {
		p.m = map[string]string{}
	}
	p.m[key] = value
}

// Delete removes key; deleting an absent key is a no-op.
func (p *Properties) Delete(key string) {
	if p != nil {
		delete(p.m, key)
	}
}

// Len returns the number of keys.
func (p *Properties) Len() int {
	if p == nil {
		return 0
	}
	return len(p.m)
}

// Keys returns all keys in ascending byte order.
func (p *Properties) Keys() []string {
	if p == nil {
		return nil
	}
	keys := make([]string, 0, len(p.m))
	for k := range p.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Map returns a copy of the contents as a plain map.
func (p *Properties) Map() map[string]string {
	out := make(map[string]string, p.Len())
	if p != nil {
		for k, v := range p.m {
			out[k] = v
		}
	}
	return out
}

// Clone returns an independent copy of p.
func (p *Properties) Clone() *Properties { return &Properties{m: p.Map()} }

// Parse reads properties text with the semantics of java.util.Properties.load on a byte
// stream: bytes are ISO-8859-1 characters; '#' or '!' as the first non-blank character
// makes a comment line; the key ends at the first unescaped '=', ':' or blank (space,
// tab, form feed), after which blanks and at most one '=' or ':' are skipped; a line ending
// in an odd number of backslashes continues on the next line (whose leading blanks are
// dropped); escapes are \t \n \r \f \uXXXX, and a backslash before any other character
// stands for that character. A later duplicate key replaces an earlier one, as in Java.
func Parse(r io.Reader) (*Properties, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read properties: %w", err)
	}
	p := New()
	err = logicalLines(data, func(line []byte, lineNo int) error {
		k, v, err := splitLine(line)
		if err != nil {
			return fmt.Errorf("parse properties line %d: %w", lineNo, err)
		}
		p.m[k] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// logicalLines splits data into logical lines (comments and blank lines dropped,
// continuations joined, escapes still in place) and calls emit with each one and the
// 1-based number of the natural line it starts on.
func logicalLines(data []byte, emit func(line []byte, lineNo int) error) error {
	var buf []byte
	cont := false // buf holds the start of a logical line continued on the next line
	startLine, lineNo := 0, 0
	for i := 0; i < len(data); {
		lineNo++
		// A natural line ends at \n, \r or \r\n.
		j := i
		for j < len(data) && data[j] != '\n' && data[j] != '\r' {
			j++
		}
		next := j
		if next < len(data) {
			if data[next] == '\r' && next+1 < len(data) && data[next+1] == '\n' {
				next += 2
			} else {
				next++
			}
		}
		atEOF := j == len(data)
		content := data[i:j]
		i = next
		for len(content) > 0 && isBlank(content[0]) {
			content = content[1:]
		}
		if !cont {
			if len(content) == 0 || content[0] == '#' || content[0] == '!' {
				continue
			}
			startLine = lineNo
		}
		trailing := 0
		for k := len(content) - 1; k >= 0 && content[k] == '\\'; k-- {
			trailing++
		}
		if trailing%2 == 1 {
			// The odd backslash escapes the line break; Java drops it even at EOF.
			buf = append(buf, content[:len(content)-1]...)
			if !atEOF {
				cont = true
				continue
			}
		} else {
			buf = append(buf, content...)
		}
		cont = false
		if len(buf) == 0 {
			// A line that reduced to nothing (e.g. a lone "\" then a blank line) is
			// skipped like a blank line.
			continue
		}
		if err := emit(buf, startLine); err != nil {
			return err
		}
		buf = buf[:0]
	}
	if len(buf) > 0 {
		// A continuation followed directly by end of input.
		return emit(buf, startLine)
	}
	return nil
}

// splitLine separates one logical line into its unescaped key and value.
func splitLine(line []byte) (string, string, error) {
	keyEnd, valStart := len(line), len(line)
	hasSep, escaped := false, false
	for k, c := range line {
		if !escaped && (c == '=' || c == ':') {
			keyEnd, valStart, hasSep = k, k+1, true
			break
		}
		if !escaped && isBlank(c) {
			keyEnd, valStart = k, k+1
			break
		}
		escaped = c == '\\' && !escaped
	}
	for valStart < len(line) {
		c := line[valStart]
		if isBlank(c) {
			valStart++
			continue
		}
		if !hasSep && (c == '=' || c == ':') {
			hasSep = true
			valStart++
			continue
		}
		break
	}
	key, err := unescape(line[:keyEnd])
	if err != nil {
		return "", "", fmt.Errorf("key: %w", err)
	}
	val, err := unescape(line[valStart:])
	if err != nil {
		return "", "", fmt.Errorf("value of %q: %w", key, err)
	}
	return key, val, nil
}

// unescape turns escaped ISO-8859-1 text into a Go string. Java strings are UTF-16, and
// \uXXXX escapes name UTF-16 code units, so the text is assembled as code units first.
func unescape(b []byte) (string, error) {
	u := make([]uint16, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		i++
		if c != '\\' {
			u = append(u, uint16(c))
			continue
		}
		if i == len(b) {
			// Unreachable from a logical line (a trailing odd backslash is a
			// continuation), kept so the function is total.
			break
		}
		c = b[i]
		i++
		switch c {
		case 't':
			u = append(u, '\t')
		case 'n':
			u = append(u, '\n')
		case 'r':
			u = append(u, '\r')
		case 'f':
			u = append(u, '\f')
		case 'u':
			if i+4 > len(b) {
				return "", errors.New(`malformed \uxxxx escape: fewer than 4 hex digits`)
			}
			v, err := strconv.ParseUint(string(b[i:i+4]), 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uxxxx escape %q`, b[i-2:i+4])
			}
			u = append(u, uint16(v))
			i += 4
		default:
			u = append(u, uint16(c))
		}
	}
	return string(utf16.Decode(u)), nil
}

// Store writes p in the text form of java.util.Properties.store on a byte stream: an
// optional "#comment" line (skipped when comment is empty), a "#<java.util.Date>" line for
// now, then one key=value line per key, sorted. Keys and values are escaped as Java does:
// backslash, '=', ':', '#', '!' get a backslash; tab, newline, carriage return and form
// feed use \t \n \r \f; a space is escaped everywhere in a key but only in first position
// of a value; every other character outside 0x20..0x7E becomes \uXXXX (UTF-16 units,
// upper-case hex). Lines end with "\n" (Java uses the platform separator; Hudi runs on
// Unix). Use it for .hoodie_partition_metadata with comment "partition metadata".
func Store(w io.Writer, p *Properties, comment string, now time.Time) error {
	bw := bufio.NewWriter(w)
	if comment != "" {
		writeComment(bw, comment)
	}
	bw.WriteString("#" + javaDate(now) + "\n")
	for _, k := range p.Keys() {
		bw.WriteString(escape(k, true))
		bw.WriteByte('=')
		bw.WriteString(escape(p.m[k], false))
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write properties: %w", err)
	}
	return nil
}

// Write writes p as Java Hudi writes hoodie.properties. When p already carries a valid
// hoodie.table.checksum the first comment is "Updated at <instant>"; otherwise the correct
// checksum is put into the written text (p itself is not changed) and the comment is
// "Properties saved on <instant>". The instant is now in UTC in java.time.Instant's
// ISO-8601 form. It fails when p has no hoodie.table.name, since no checksum can be made.
func Write(w io.Writer, p *Properties, now time.Time) error {
	prefix := "Updated at "
	if err := VerifyChecksum(p); err != nil {
		var mismatch *ChecksumMismatchError
		if !errors.Is(err, ErrNoChecksum) && !errors.As(err, &mismatch) {
			return fmt.Errorf("write hoodie.properties: %w", err)
		}
		p = p.Clone()
		if err := SetChecksum(p); err != nil {
			return fmt.Errorf("write hoodie.properties: %w", err)
		}
		prefix = "Properties saved on "
	}
	return Store(w, p, prefix+isoInstant(now), now)
}

// writeComment writes comment as Java's store does: line breaks inside it start a new
// comment line (no extra '#' when the next line already starts with '#' or '!'),
// characters above U+00FF become \uXXXX, and Latin-1 characters are written as is.
func writeComment(bw *bufio.Writer, comment string) {
	bw.WriteByte('#')
	u := utf16.Encode([]rune(comment))
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '\n' || c == '\r':
			bw.WriteByte('\n')
			if c == '\r' && i+1 < len(u) && u[i+1] == '\n' {
				i++
			}
			if i+1 >= len(u) || (u[i+1] != '#' && u[i+1] != '!') {
				bw.WriteByte('#')
			}
		case c > 0xFF:
			writeUnicodeEscape(bw, c)
		default:
			bw.WriteByte(byte(c))
		}
	}
	bw.WriteByte('\n')
}

// Java writes \uXXXX escapes with upper-case hex digits.
const upperHex = "0123456789ABCDEF"

func writeUnicodeEscape(bw *bufio.Writer, c uint16) {
	bw.Write(appendUnicodeEscape(nil, c))
}

func appendUnicodeEscape(b []byte, c uint16) []byte {
	return append(b, '\\', 'u', upperHex[c>>12&0xF], upperHex[c>>8&0xF], upperHex[c>>4&0xF], upperHex[c&0xF])
}

// escape renders a key (isKey) or value in store's escaped ASCII form.
func escape(s string, isKey bool) string {
	out := make([]byte, 0, len(s)+8)
	for i, c := range utf16.Encode([]rune(s)) {
		switch c {
		case '\\', '=', ':', '#', '!':
			out = append(out, '\\', byte(c))
		case ' ':
			if isKey || i == 0 {
				out = append(out, '\\')
			}
			out = append(out, ' ')
		case '\t':
			out = append(out, '\\', 't')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\f':
			out = append(out, '\\', 'f')
		default:
			if c < 0x20 || c > 0x7E {
				out = appendUnicodeEscape(out, c)
			} else {
				out = append(out, byte(c))
			}
		}
	}
	return string(out)
}

// javaDate formats t like java.util.Date.toString ("EEE MMM dd HH:mm:ss zzz yyyy") in
// t's location.
func javaDate(t time.Time) string { return t.Format("Mon Jan 02 15:04:05 MST 2006") }

// isoInstant formats t like java.time.Instant.toString: UTC, seconds always shown, and the
// fraction in as many groups of three digits as needed (none when zero).
func isoInstant(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	ns := t.Nanosecond()
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += fmt.Sprintf(".%03d", ns/1_000_000)
	case ns%1_000 == 0:
		s += fmt.Sprintf(".%06d", ns/1_000)
	default:
		s += fmt.Sprintf(".%09d", ns)
	}
	return s + "Z"
}

// TableChecksum is the value Java Hudi stores as hoodie.table.checksum: the CRC32 of the
// UTF-8 bytes of "<database>.<tableName>", database being "" when the table has none.
func TableChecksum(database, tableName string) uint32 {
	return crc32.ChecksumIEEE([]byte(database + "." + tableName))
}

// Error is a constant error of this package.
type Error string

func (e Error) Error() string { return string(e) }

const (
	// ErrNoChecksum reports that hoodie.table.checksum is absent. Hudi writers before
	// 0.9 did not write one, so callers may choose to accept such a file.
	ErrNoChecksum Error = "hoodie.properties has no " + KeyTableChecksum
	// ErrNoTableName reports that hoodie.table.name, needed for the checksum, is absent.
	ErrNoTableName Error = "hoodie.properties has no " + KeyTableName
)

// ChecksumMismatchError reports a stored checksum that is not the one the table's
// database and name give. Java Hudi treats such a file as corrupt.
type ChecksumMismatchError struct {
	Expected uint32 // computed from database and table name
	Stored   string // hoodie.table.checksum as written
}

func (e *ChecksumMismatchError) Error() string {
	return fmt.Sprintf("hoodie.properties checksum mismatch: expected %d, stored %q", e.Expected, e.Stored)
}

// expectedChecksum computes the checksum p should carry.
func expectedChecksum(p *Properties) (uint32, error) {
	name, ok := p.Get(KeyTableName)
	if !ok {
		return 0, ErrNoTableName
	}
	db, _ := p.Get(KeyDatabaseName)
	return TableChecksum(db, name), nil
}

// VerifyChecksum checks hoodie.table.checksum against the table's database and name. It
// returns ErrNoChecksum when the key is absent, ErrNoTableName when the name is, and a
// *ChecksumMismatchError when the stored value (a decimal number) differs.
func VerifyChecksum(p *Properties) error {
	stored, ok := p.Get(KeyTableChecksum)
	if !ok {
		return ErrNoChecksum
	}
	want, err := expectedChecksum(p)
	if err != nil {
		return err
	}
	// Java compares as a long, so the stored text must be a plain decimal number.
	got, err := strconv.ParseInt(stored, 10, 64)
	if err != nil || got != int64(want) {
		return &ChecksumMismatchError{Expected: want, Stored: stored}
	}
	return nil
}

// SetChecksum sets hoodie.table.checksum to the value the table's database and name give.
func SetChecksum(p *Properties) error {
	want, err := expectedChecksum(p)
	if err != nil {
		return err
	}
	p.Set(KeyTableChecksum, strconv.FormatUint(uint64(want), 10))
	return nil
}

// Value returns the value of key, "" when absent.
func (p *Properties) Value(key string) string {
	v, _ := p.Get(key)
	return v
}
