// Package keygen builds Hudi record keys and partition paths from field values the way
// Java's key generators do (see Generator). Readers of tables without meta fields and
// writers share it, so a key is spelled the same way everywhere.
package keygen

// Placeholders Java's ComplexKeyGenerator writes for null and empty key parts.
const (
	NullRecordKeyPlaceholder  = "__null__"
	EmptyRecordKeyPlaceholder = "__empty__"
)
