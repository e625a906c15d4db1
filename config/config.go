package config

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Config holds explicit settings, keyed by canonical name. Values are validated
// and normalized on the way in, so the getters cannot fail. Unset keys read as
// their default. A Config is not safe for concurrent Set; share it read-only
// (or Clone it) once built.
//
// A nil *Config reads as all defaults.
type Config struct {
	values map[string]string
}

// StoragePrefix starts the names of storage settings (Hadoop's file-system keys:
// fs.s3a.*, fs.gs.*, fs.azure.*), which the storage backends own and validate.
const StoragePrefix = "fs."

// New returns an empty Config: every key reads as its default.
func New() *Config { return &Config{values: map[string]string{}} }

// Set validates value for name and stores it under the canonical name.
//
// An unknown name is kept as given and a warning returned: engines and plugins
// have their own keys, and Java Hudi passes them through too. A deprecated alias
// is stored under the canonical name with a warning, as Java logs one. A value
// that does not parse as the key's kind is an error and nothing is stored.
func (c *Config) Set(name, value string) (warning string, err error) {
	name, value, warning, err = resolve(name, value)
	if err != nil {
		return "", err
	}
	if c.values == nil {
		c.values = map[string]string{}
	}
	c.values[name] = value
	return warning, nil
}

// resolve returns the canonical name and normalized value of one setting.
func resolve(name, value string) (canon, norm, warning string, err error) {
	if name == "" {
		return "", "", "", fmt.Errorf("config: empty key name (value %q)", value)
	}
	k, ok := canonical(name)
	if !ok {
		if strings.HasPrefix(name, StoragePrefix) {
			// Hadoop file-system settings (fs.s3a.endpoint, …): the table's storage
			// backend takes and validates them when the table is opened.
			return name, value, "", nil
		}
		return name, value, fmt.Sprintf("unknown configuration key %s; it is passed through", name), nil
	}
	norm, err = normalize(k, value)
	if err != nil {
		var ve *ValueError
		if errors.As(err, &ve) {
			ve.As = name
		}
		return "", "", "", err
	}
	if name != k.Name {
		warning = fmt.Sprintf("configuration key %s is deprecated; it is stored as %s", name, k.Name)
	}
	return k.Name, norm, warning, nil
}

// SetAll sets every entry of m, or none: if any value is malformed, the Config
// is unchanged and the error lists every malformed entry. When both a key and
// its alias are given, the canonical name wins, whatever the map order.
func (c *Config) SetAll(m map[string]string) ([]string, error) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	// Aliases first, then canonical names, each sorted: the canonical name is
	// applied last and wins, and the result does not depend on map iteration.
	isAlias := func(n string) bool { k, ok := canonical(n); return ok && k.Name != n }
	sort.Slice(names, func(i, j int) bool {
		ai, aj := isAlias(names[i]), isAlias(names[j])
		if ai != aj {
			return ai
		}
		return names[i] < names[j]
	})
	type setting struct{ given, name, value string }
	var (
		warnings []string
		errs     []error
		pending  []setting
		from     = map[string]string{} // canonical name → name it was last given as
	)
	for _, n := range names {
		canon, v, w, err := resolve(n, m[n])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if w != "" {
			warnings = append(warnings, w)
		}
		if prev, dup := from[canon]; dup {
			warnings = append(warnings, fmt.Sprintf("configuration keys %s and %s both set %s; using the value of %s", prev, n, canon, n))
		}
		from[canon] = n
		pending = append(pending, setting{n, canon, v})
	}
	if len(errs) > 0 {
		return warnings, errors.Join(errs...)
	}
	if c.values == nil {
		c.values = map[string]string{}
	}
	for _, s := range pending {
		c.values[s.name] = s.value
	}
	return warnings, nil
}

// storageName resolves the key's storage name, so a Key built with an alias as its
// Name still finds values set under the canonical name.
func storageName(k Key) string {
	if r, ok := canonical(k.Name); ok {
		return r.Name
	}
	return k.Name
}

func (c *Config) explicit(k Key) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.values[storageName(k)]
	return v, ok
}

// IsSet reports whether k was set explicitly (under its name or an alias). Use it
// where Hudi infers a value when none is given, e.g. the key generator.
func (c *Config) IsSet(k Key) bool {
	_, ok := c.explicit(k)
	return ok
}

// Get returns the value of any key by name or alias, including unknown
// pass-through keys: the explicit value, else the registered default. ok is
// false when there is neither.
func (c *Config) Get(name string) (value string, ok bool) {
	if k, known := canonical(name); known {
		if v, set := c.explicit(k); set {
			return v, true
		}
		return k.Default, k.HasDefault
	}
	if c == nil {
		return "", false
	}
	v, set := c.values[name]
	return v, set
}

// String returns the explicit value of k, else its default, else "".
func (c *Config) String(k Key) string {
	if v, ok := c.explicit(k); ok {
		return v
	}
	return k.Default
}

// typed returns the first of (explicit value, default) that parse succeeds on,
// else the zero value. Set validated the explicit value against the registered
// key, so the fallbacks only matter for a caller-built Key of another kind.
func typed[T any](c *Config, k Key, parse func(string) (T, error)) T {
	if v, ok := c.explicit(k); ok {
		if x, err := parse(v); err == nil {
			return x
		}
	}
	if k.HasDefault {
		if x, err := parse(k.Default); err == nil {
			return x
		}
	}
	var zero T
	return zero
}

// Bool returns k as a bool (explicit value or default).
func (c *Config) Bool(k Key) bool {
	return typed(c, k, func(s string) (bool, error) {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, strconv.ErrSyntax
	})
}

// Long returns k as an int64 (explicit value or default). Size keys are in bytes.
func (c *Config) Long(k Key) int64 {
	return typed(c, k, func(s string) (int64, error) {
		if k.Kind == Size {
			if n, ok := parseSize(strings.TrimSpace(s)); ok {
				return n, nil
			}
			return 0, strconv.ErrSyntax
		}
		return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	})
}

// Int returns k as an int (explicit value or default).
func (c *Config) Int(k Key) int { return int(c.Long(k)) }

// Double returns k as a float64 (explicit value or default).
func (c *Config) Double(k Key) float64 {
	return typed(c, k, func(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) })
}

// List returns k split at commas, items trimmed, empty items dropped (explicit
// value or default); nil when empty.
func (c *Config) List(k Key) []string { return splitList(c.String(k)) }

// Merge returns a new Config with the settings of c overridden by those of
// other; neither is changed. Either may be nil.
func (c *Config) Merge(other *Config) *Config {
	out := c.Clone()
	if other != nil {
		for n, v := range other.values {
			out.values[n] = v
		}
	}
	return out
}

// Clone returns an independent copy of c.
func (c *Config) Clone() *Config {
	out := New()
	if c != nil {
		for n, v := range c.values {
			out.values[n] = v
		}
	}
	return out
}

// Explicit returns a copy of the explicit settings, by canonical name (unknown
// keys as given), values normalized. It is what a writer persists or passes on.
func (c *Config) Explicit() map[string]string {
	out := map[string]string{}
	if c != nil {
		for n, v := range c.values {
			out[n] = v
		}
	}
	return out
}

// ValidateArchival checks hoodie.keep.max.commits > hoodie.keep.min.commits >
// hoodie.cleaner.commits.retained, as Java's HoodieWriteConfig does.
func ValidateArchival(c *Config) error {
	maxKeep, minKeep, retained := c.Int(KeepMaxCommits), c.Int(KeepMinCommits), c.Int(CleanerCommitsRetained)
	var errs []error
	if maxKeep <= minKeep {
		errs = append(errs, fmt.Errorf("config: %s=%d must be greater than %s=%d: archiving trims the active "+
			"timeline from the max down to the min, so the max must leave something to trim",
			KeepMaxCommits.Name, maxKeep, KeepMinCommits.Name, minKeep))
	}
	if minKeep <= retained {
		errs = append(errs, fmt.Errorf("config: %s=%d must be greater than %s=%d: archiving instants whose file "+
			"slices the cleaner still retains would hide them from the active timeline and break incremental "+
			"and time-travel reads of them", KeepMinCommits.Name, minKeep, CleanerCommitsRetained.Name, retained))
	}
	return errors.Join(errs...)
}
