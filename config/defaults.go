package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LoadDefaultsFile reads a hudi-defaults.conf (Java's DFSPropertiesConfiguration
// format) into a Config. Warnings about unknown keys and ignored lines are
// dropped; use ParseDefaultsFile to see them.
func LoadDefaultsFile(r io.Reader) (*Config, error) {
	c, _, err := ParseDefaultsFile(r)
	return c, err
}

// ParseDefaultsFile reads a hudi-defaults.conf and returns the settings and the
// warnings (unknown keys, deprecated aliases, ignored lines), each prefixed with
// its line number. The format follows Java's DFSPropertiesConfiguration, so one
// file means the same to both:
//
//   - a line starting with # is a comment, an empty line is skipped;
//   - runs of whitespace are collapsed to one space (in the value too);
//   - a line containing = is split at the first =, otherwise at the first space;
//     key and value are trimmed; a line with neither is ignored;
//   - a later line for the same key wins.
//
// Two deliberate differences: a comment may be indented (Java would store it
// under an empty key), and an include= line is an error, because a reader has
// no file system to resolve it against and silently dropping the included
// settings would change what the file means.
func ParseDefaultsFile(r io.Reader) (*Config, []string, error) {
	c := New()
	var warnings []string
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		// ReadString rather than a Scanner: a value (an Avro schema, say) may be
		// longer than any fixed token limit.
		line, readErr := br.ReadString('\n')
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return nil, warnings, fmt.Errorf("config: reading defaults file at line %d: %w", lineNo, readErr)
		}
		if line == "" && readErr != nil {
			break
		}
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // editors on Windows add a BOM
		}
		line = collapseSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "include=") || strings.HasPrefix(line, "include ="):
			return nil, warnings, fmt.Errorf("config: defaults file line %d: %q: include is not supported", lineNo, line)
		default:
			sep := " "
			if strings.Contains(line, "=") {
				sep = "="
			}
			name, value, ok := strings.Cut(line, sep)
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if !ok || name == "" {
				warnings = append(warnings, fmt.Sprintf("line %d: ignored %q: want `key value` or `key=value`", lineNo, line))
				break
			}
			w, err := c.Set(name, value)
			if err != nil {
				return nil, warnings, fmt.Errorf("config: defaults file line %d: %w", lineNo, err)
			}
			if w != "" {
				warnings = append(warnings, fmt.Sprintf("line %d: %s", lineNo, w))
			}
		}
		if readErr != nil {
			break
		}
	}
	return c, warnings, nil
}

// collapseSpace trims the line and replaces each run of whitespace (Java's \s:
// space, \t, \n, \v, \f, \r) with one space, as DFSPropertiesConfiguration does.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			space = true
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteByte(ch)
		}
	}
	return b.String()
}
