package table

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

// TestSchemaHistoryFileChoice: the history read is the newest file of a completed commit
// (Java's getHistorySchemaStr); files of instants not on the timeline are ignored, and
// deleted by the next PersistSchemaHistory, which spares pending instants' files. When no
// completed commit's file is left, the newest file older than the active timeline counts
// (archived instants completed: hudi-go's choice).
func TestSchemaHistoryFileChoice(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Table(t, "cow/v6_nonpartitioned") // commits 20240418173550988, 20240418173551906
	put := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, ".hoodie", ".schema", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *Table {
		tb, err := Open(ctx, local.New(dir))
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	tb := open()
	if text, err := tb.SchemaHistoryText(ctx); err != nil || text != "" {
		t.Fatalf("Spark table without history: %q, %v", text, err)
	}
	if s, err := tb.InternalSchemaAt(ctx, ""); err != nil || s != nil {
		t.Fatalf("Spark table InternalSchemaAt: %v, %v", s, err)
	}
	put("20200101000000000.schemacommit", "archived")
	put("20240418173550988.schemacommit", "first")
	put("20240418173551906.schemacommit", "second")
	put("20990101000000000.schemacommit", "failed")
	if text, _ := open().SchemaHistoryText(ctx); text != "second" {
		t.Fatalf("history = %q, want the newest completed commit's", text)
	}
	for _, n := range []string{"20240418173550988.schemacommit", "20240418173551906.schemacommit"} {
		os.Remove(filepath.Join(dir, ".hoodie", ".schema", n))
	}
	if text, _ := open().SchemaHistoryText(ctx); text != "archived" {
		t.Fatalf("history = %q, want the one older than the timeline", text)
	}
	// A pending instant's files survive the residual cleanup; the failed one's go.
	pending := spec.InstantTime("20990101000000001")
	if err := os.WriteFile(filepath.Join(dir, ".hoodie", string(pending)+".commit.requested"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	put(string(pending)+".schemacommit", "pending")
	tb = open()
	if err := tb.PersistSchemaHistory(ctx, "20990101000000002", `{"schemas":[]}`); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"20990101000000000.schemacommit": false, string(pending) + ".schemacommit": true,
		"20200101000000000.schemacommit": true, "20990101000000002.schemacommit": true, "20990101000000002.schemacommit.inflight": true,
		"20990101000000002.schemacommit.requested": true} {
		_, err := os.Stat(filepath.Join(dir, ".hoodie", ".schema", name))
		if (err == nil) != want {
			t.Errorf("%s present = %v, want %v", name, err == nil, want)
		}
	}
	// The new instant's file is not read until its instant completes.
	if text, _ := open().SchemaHistoryText(ctx); text != "archived" {
		t.Fatalf("history = %q, want the archived one while the instant is pending", text)
	}
}
