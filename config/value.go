package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ValueError reports a value that does not parse as its key's kind.
type ValueError struct {
	Key   string // canonical key name
	As    string // the name the value was given under, when it was an alias
	Value string
	Want  string // what is accepted
}

func (e *ValueError) Error() string {
	name := e.Key
	if e.As != "" && e.As != e.Key {
		name = e.As + " (" + e.Key + ")"
	}
	return fmt.Sprintf("config: invalid value %q for %s: want %s", e.Value, name, e.Want)
}

// normalize validates v for k and returns the form that is stored: trimmed, enums
// in their canonical spelling, sizes in bytes. Storing the normalized form keeps
// Explicit() readable by Java, which accepts neither "120MB" nor "Snappy" in
// every place Go does.
func normalize(k Key, v string) (string, error) {
	bad := func(want string) (string, error) {
		return "", &ValueError{Key: k.Name, Value: v, Want: want}
	}
	t := strings.TrimSpace(v)
	switch k.Kind {
	case String:
		// Strings are kept exactly: class names never have spaces, but a date
		// pattern or delimiter regex may legitimately start or end with one.
		return v, nil
	case Bool:
		// Java's Boolean.parseBoolean turns anything but "true" into false, so a
		// typo like "ture" silently disables a feature there; here it is an error.
		switch strings.ToLower(t) {
		case "true":
			return "true", nil
		case "false":
			return "false", nil
		}
		return bad("true or false")
	case Int:
		n, err := strconv.ParseInt(t, 10, 32)
		if err != nil {
			return bad(fmt.Sprintf("an integer between %d and %d", math.MinInt32, math.MaxInt32))
		}
		return strconv.FormatInt(n, 10), nil
	case Long:
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return bad("a 64-bit integer")
		}
		return strconv.FormatInt(n, 10), nil
	case Double:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return bad("a finite number such as 0.1 or 1e-9")
		}
		return t, nil
	case Size:
		n, ok := parseSize(t)
		if !ok {
			return bad("a size in bytes, optionally with a unit: 104857600, 100MB, 1GB")
		}
		return strconv.FormatInt(n, 10), nil
	case Enum:
		for _, e := range k.Enum {
			if strings.EqualFold(t, e) {
				return e, nil
			}
		}
		return bad("one of " + strings.Join(k.Enum, ", ") + " (case-insensitive)")
	case List:
		return strings.Join(splitList(t), ","), nil
	}
	return bad("a value of a known kind, not " + k.Kind.String())
}

// sizeUnits are binary, as Hudi's docs count them: 120 MB = 125829120.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10},
	{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1},
}

func parseSize(s string) (int64, bool) {
	lower := strings.ToLower(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(lower, u.suffix) {
			mult = u.mult
			lower = strings.TrimSpace(strings.TrimSuffix(lower, u.suffix))
			break
		}
	}
	n, err := strconv.ParseInt(lower, 10, 64)
	if err != nil {
		return 0, false
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, false
	}
	return n * mult, true
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
