// Package crosscheck holds cross-implementation tests of the copy-on-write writer: tables
// written by hudi-go are compared structurally with the Spark-written fixture tables
// (hoodie.properties, timeline files, commit JSON, base file names, Parquet schema and
// footer, bloom filters, partition metadata), and every base file hudi-go writes is read
// back by an independent Parquet reader (DuckDB, through cgo) and compared value by value
// with hudi-go's own reader.
//
// It is the only package that links DuckDB in tests (see docs/architecture.md); the
// package itself has no code, so nothing else can import it.
package crosscheck
