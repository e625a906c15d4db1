package read

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage/local"
)

// TestRetentionGuard: time travel and incremental queries ending before the earliest
// instant retained by the newest clean (completed, or a newer pending plan) fail; later
// ones and queries before the first commit do not.
func TestRetentionGuard(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := table.Create(ctx, local.New(dir), table.CreateOptions{Name: "t", Type: spec.CopyOnWrite, RecordKeyFields: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	put := func(name string, body []byte) {
		if err := os.WriteFile(filepath.Join(dir, ".hoodie", name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"20240101000000001", "20240101000000002", "20240101000000003", "20240101000000004"} {
		put(c+".commit", nil)
	}
	check := func(asOf string) error {
		tb, err := table.Open(ctx, local.New(dir))
		if err != nil {
			t.Fatal(err)
		}
		return checkRetained(ctx, tb, spec.InstantTime(asOf), "time travel to")
	}
	if err := check("20240101000000001"); err != nil {
		t.Fatalf("no clean yet: %v", err)
	}
	meta, err := commitmeta.EncodeCleanMetadata(&commitmeta.CleanMetadata{StartCleanTime: "20240101000000005",
		EarliestCommitToRetain: "20240101000000003", Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	put("20240101000000005.clean", meta)
	for asOf, wantErr := range map[string]bool{
		"20240101000000000": false, // before the first commit: empty, not partial
		"20240101000000001": true,
		"20240101000000002": true,
		"20240101000000003": false,
		"20240101000000004": false,
	} {
		err := check(asOf)
		if wantErr != (err != nil) {
			t.Errorf("as of %s: error %v", asOf, err)
		}
		if err != nil && (!errors.Is(err, ErrCleaned) || !strings.Contains(err.Error(), "earliest instant that can be queried is 20240101000000003") ||
			!strings.Contains(err.Error(), asOf)) {
			t.Errorf("as of %s: error %v", asOf, err)
		}
	}
	// A pending clean with a later window already bounds queries: it may be deleting.
	plan, err := commitmeta.EncodeCleanerPlan(&commitmeta.CleanerPlan{Policy: "KEEP_LATEST_COMMITS", Version: 2,
		EarliestInstantToRetain: &commitmeta.ActionInstant{Timestamp: "20240101000000004", Action: "commit", State: "COMPLETED"}})
	if err != nil {
		t.Fatal(err)
	}
	put("20240101000000006.clean.requested", plan)
	if err := check("20240101000000003"); !errors.Is(err, ErrCleaned) {
		t.Errorf("pending clean not honoured: %v", err)
	}
}
