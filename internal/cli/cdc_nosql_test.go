//go:build nosql

package cli

import "testing"

// seedSQL: a -tags nosql build has no SQL engine (cdc_sql_test.go has the check).
func seedSQL(t *testing.T, table string, in, want []string) {}
