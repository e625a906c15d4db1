package write_test

import (
	"context"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/table"
)

// openMeta opens the table behind tb with package table, for tests that inspect or change
// what the facade's read-only accessors do not give (hudi.Table no longer hands out its
// own *table.Table).
func openMeta(t testing.TB, tb *hudi.Table) *table.Table {
	t.Helper()
	m, err := table.Open(context.Background(), tb.Storage())
	if err != nil {
		t.Fatal(err)
	}
	return m
}
