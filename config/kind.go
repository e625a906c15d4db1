// Package config holds the typed hoodie.* configuration of hudi-go: one Key per
// setting with its kind, default, older names and scope, and a Config that holds
// the explicit settings of one writer, reader or table.
//
// The defaults are those of Apache Hudi 0.14.1 (table version 6), taken from
// docs/defaults-0.14.md, not from the 0.8.0 docs the older key names come from:
// a Go writer that silently used 0.8.0 defaults (BLOOM index, 24 retained
// commits, …) would produce tables that behave differently from Spark's.
//
// Values are validated when they are set (Config.Set, SetAll, LoadDefaultsFile),
// so the typed getters never fail. Unknown keys are kept and passed through with
// a warning, as Java Hudi does, because engines and plugins have keys of their own.
package config

import "fmt"

// Kind is how a key's value is parsed and validated.
type Kind int

const (
	String Kind = iota // any text
	Bool               // true or false (case-insensitive, as Java's Boolean.parseBoolean)
	Int                // 32-bit signed integer (Java int)
	Long               // 64-bit signed integer (Java long)
	Double             // finite floating-point number
	Enum               // one of Key.Enum, case-insensitive; stored in the Enum's spelling
	Size               // bytes: an integer, optionally with a binary unit (KB, MB, GB, TB); stored in bytes
	List               // comma-separated; surrounding spaces and empty items are dropped
)

var kindNames = [...]string{"String", "Bool", "Int", "Long", "Double", "Enum", "Size", "List"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Scope says which part of Hudi a key configures. Table keys are persisted in
// .hoodie/hoodie.properties and must not change after the table is created;
// the others apply to one writer or reader.
type Scope int

const (
	Table Scope = iota
	Write
	Read
	KeyGen
	Index
	Storage
	Compaction
	Clean
	Archive
	Clustering
	Metadata
	Lock
	Metrics
)

var scopeNames = [...]string{"Table", "Write", "Read", "KeyGen", "Index", "Storage", "Compaction",
	"Clean", "Archive", "Clustering", "Metadata", "Lock", "Metrics"}

func (s Scope) String() string {
	if s >= 0 && int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Key describes one configuration key.
type Key struct {
	Name       string
	Kind       Kind
	Default    string // meaningful only when HasDefault
	HasDefault bool   // false: the key has no default (required, or inferred by the user of the key)
	// Aliases are older or alternate names (Java's withAlternatives, 0.8.0 names).
	// A value set under an alias is stored under Name.
	Aliases []string
	Enum    []string // allowed values for Kind Enum, in their canonical spelling
	Scope   Scope
	Doc     string
}

// key builds a Key with a default.
func key(name string, kind Kind, scope Scope, def, doc string) Key {
	return Key{Name: name, Kind: kind, Default: def, HasDefault: true, Scope: scope, Doc: doc}
}

// noDefault builds a Key without a default.
func noDefault(name string, kind Kind, scope Scope, doc string) Key {
	return Key{Name: name, Kind: kind, Scope: scope, Doc: doc}
}

func (k Key) alias(names ...string) Key {
	k.Aliases = append([]string(nil), names...)
	return k
}

func (k Key) enum(values ...string) Key {
	k.Enum = append([]string(nil), values...)
	return k
}

// clone copies the slices so that callers of Keys and Lookup cannot change the registry.
func (k Key) clone() Key {
	if k.Aliases != nil {
		k.Aliases = append([]string(nil), k.Aliases...)
	}
	if k.Enum != nil {
		k.Enum = append([]string(nil), k.Enum...)
	}
	return k
}
