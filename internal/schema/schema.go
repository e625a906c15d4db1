// Package schema holds a Hudi table's schema in its Arrow form and the conversions readers
// need to bring data of older or differently-written files onto it.
//
// The table schema is an Avro record (commit metadata extraMetadata.schema, format doc §3.8);
// FromAvro turns it into an Arrow schema. Data reaches a reader in two shapes: Arrow columns
// read from Parquet (base files and Parquet log blocks), which Conform/ConformRecord project
// onto the table schema, and decoded Avro records (Avro log blocks), which a RecordAppender
// appends row by row. Both tolerate the on-write evolutions Hudi accepts (§11.1): added
// columns, numeric widening, string↔bytes, decimal precision growth, plus the LONG→STRING
// partition-column rewrite seen in real tables.
package schema

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Hudi meta column names, in the order they lead every base file and log record (§5.1).
const (
	CommitTimeField    = "_hoodie_commit_time"
	CommitSeqnoField   = "_hoodie_commit_seqno"
	RecordKeyField     = "_hoodie_record_key"
	PartitionPathField = "_hoodie_partition_path"
	FileNameField      = "_hoodie_file_name"
)

// MetaFields lists the meta column names in file order. It is an array (not a slice) so
// callers get a copy and cannot change the package's view of it.
var MetaFields = [...]string{CommitTimeField, CommitSeqnoField, RecordKeyField, PartitionPathField, FileNameField}

// IsMetaField reports whether name is one of the five Hudi meta columns.
func IsMetaField(name string) bool {
	switch name {
	case CommitTimeField, CommitSeqnoField, RecordKeyField, PartitionPathField, FileNameField:
		return true
	}
	return false
}

// WithMetaFields returns s with the five meta fields (nullable strings) in front, unless s
// already contains them; meta fields s already has keep their position and type. The
// schema metadata of s is kept.
func WithMetaFields(s *arrow.Schema) *arrow.Schema {
	missing := make([]arrow.Field, 0, len(MetaFields))
	for _, name := range MetaFields {
		if len(s.FieldIndices(name)) == 0 {
			missing = append(missing, arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true})
		}
	}
	if len(missing) == 0 {
		return s
	}
	fields := append(missing, s.Fields()...)
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// WithoutMetaFields returns s without the meta fields (the data schema Hudi stores in
// commit metadata).
func WithoutMetaFields(s *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, 0, s.NumFields())
	for _, f := range s.Fields() {
		if !IsMetaField(f.Name) {
			fields = append(fields, f)
		}
	}
	if len(fields) == s.NumFields() {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// FieldIndex returns the index of the top-level field called name, or -1. An exact match
// wins; otherwise the first case-insensitive match is used, because Spark (and so Hudi's
// Spark writers) resolve column names case-insensitively by default.
func FieldIndex(s *arrow.Schema, name string) int {
	if idx := s.FieldIndices(name); len(idx) > 0 {
		return idx[0]
	}
	return foldIndex(s.Fields(), name)
}

// structFieldIndex is FieldIndex for the fields of a struct type.
func structFieldIndex(st *arrow.StructType, name string) int {
	if i, ok := st.FieldIdx(name); ok {
		return i
	}
	return foldIndex(st.Fields(), name)
}

func foldIndex(fields []arrow.Field, name string) int {
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// joinPath extends a dotted field path used in error messages.
func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
