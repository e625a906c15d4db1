package keygen

import "strings"

// DefaultPartitionPath is the directory name Java writes for a null or empty partition value
// (PartitionPathEncodeUtils.DEFAULT_PARTITION_PATH). Hudi before 0.12 used "default"; we never
// write that.
const DefaultPartitionPath = "__HIVE_DEFAULT_PARTITION__"

// needsEscape is Hive's FileUtils.escapePathName character set as copied into Hudi's
// PartitionPathEncodeUtils: ASCII control characters 0x00-0x1F, DEL, and
// " # % ' * / : = ? \ { [ ] ^. Characters at or above 0x80 are never escaped (Java's BitSet
// has 128 bits), so multi-byte UTF-8 passes through unchanged.
var needsEscape = func() (t [128]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for _, c := range "\"#%'*/:=?\\\x7f{[]^" {
		t[c] = true
	}
	return t
}()

// EscapePathName percent-encodes a partition value as Java's
// PartitionPathEncodeUtils.escapePathName does (uppercase hex, two digits). A null or empty
// value becomes DefaultPartitionPath, as in Java.
func EscapePathName(s string) string {
	if s == "" {
		return DefaultPartitionPath
	}
	first := -1
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x80 && needsEscape[c] {
			first = i
			break
		}
	}
	if first < 0 {
		return s // nothing to escape: no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:first])
	for i := first; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && needsEscape[c] {
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// UnescapePathName reverses EscapePathName the way Java's unescapePathName does: "%XY" with
// two hex digits becomes that byte; anything else is kept.
func UnescapePathName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if hi, ok1 := unhex(s[i+1]); ok1 {
				if lo, ok2 := unhex(s[i+2]); ok2 {
					b.WriteByte(hi<<4 | lo)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hasPathTraversal reports whether a partition path has a ".." segment. Hudi 0.14 did not
// check this, but a writer that let a data value escape the table base path would be a
// security bug, and newer Hudi (PartitionPathEncodeUtils.validateNoPathTraversal) rejects it.
func hasPathTraversal(p string) bool {
	// Segments are separated by '/' or '\\'; scan them without splitting.
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' || p[i] == '\\' {
			if i-start == 2 && p[start] == '.' && p[start+1] == '.' {
				return true
			}
			start = i + 1
		}
	}
	return false
}
