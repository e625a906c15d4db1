package hudi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/hfile"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/services/archive"
	"github.com/hudi-go/hudi/internal/services/clean"
	"github.com/hudi-go/hudi/internal/services/rollback"
	"github.com/hudi-go/hudi/internal/services/savepoint"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write"
)

// TestErrUnsupportedMatchesEverySentinel: each package's "unsupported" sentinel, wrapped as
// the packages wrap it, matches hudi.ErrUnsupported, keeps its own text, and still matches
// itself. Before there was one sentinel, these were seven unrelated errors.New values.
func TestErrUnsupportedMatchesEverySentinel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sentinel error
		text     string
	}{
		{"write", write.ErrUnsupported, "not supported by the hudi-go writer yet"},
		{"table", table.ErrUnsupportedWrite, "not supported by the hudi-go writer yet"},
		{"rollback", rollback.ErrUnsupported, "not supported by the hudi-go writer yet"},
		{"savepoint", savepoint.ErrUnsupported, "not supported by the hudi-go writer yet"},
		{"clean", clean.ErrUnsupported, "not supported by the hudi-go writer yet"},
		{"archive", archive.ErrUnsupported, "not supported by the hudi-go writer yet"},
		{"hfile", hfile.ErrUnsupported, "unsupported HFile feature"},
		{"merge payload", merge.ErrUnsupportedPayload, "payload class not supported by hudi-go yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("table x: doing y is %w", tc.sentinel)
			if !errors.Is(err, hudi.ErrUnsupported) {
				t.Errorf("errors.Is(%v, hudi.ErrUnsupported) = false", err)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(%v, its own sentinel) = false", err)
			}
			if tc.sentinel.Error() != tc.text {
				t.Errorf("text %q, want %q (unchanged)", tc.sentinel.Error(), tc.text)
			}
		})
	}
	// The table services refuse what the writer does not write (table.CheckLayoutWrites
	// wraps table.ErrUnsupportedWrite), so their sentinels are the writer's; other
	// packages' sentinels stay apart.
	for _, svc := range []error{rollback.ErrUnsupported, savepoint.ErrUnsupported, clean.ErrUnsupported, archive.ErrUnsupported, write.ErrUnsupported} {
		if svc != table.ErrUnsupportedWrite {
			t.Errorf("%v is not table.ErrUnsupportedWrite", svc)
		}
	}
	if errors.Is(hfile.ErrUnsupported, table.ErrUnsupportedWrite) || errors.Is(merge.ErrUnsupportedPayload, table.ErrUnsupportedWrite) {
		t.Error("two packages' sentinels match each other")
	}
}

// TestErrUnsupportedThroughAPI: refusals made behind the facade (create settings,
// compaction options) match hudi.ErrUnsupported.
func TestErrUnsupportedThroughAPI(t *testing.T) {
	ctx := context.Background()
	_, err := hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{Name: "u", Type: "mor", RecordKeyFields: []string{"id"},
		Schema: "id STRING, ts BIGINT", Settings: map[string]string{"hoodie.table.base.file.format": "ORC"}})
	if !errors.Is(err, hudi.ErrUnsupported) {
		t.Errorf("create with ORC base files: %v, want hudi.ErrUnsupported", err)
	}
	tb, err := hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{Name: "u", Type: "mor", RecordKeyFields: []string{"id"},
		Schema: "id STRING, ts BIGINT"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tb.Compact(ctx, hudi.CompactOptions{Settings: map[string]string{
		"hoodie.compaction.strategy": "org.apache.hudi.table.action.compact.strategy.DayBasedCompactionStrategy"}})
	if !errors.Is(err, hudi.ErrUnsupported) {
		t.Errorf("compaction with DayBasedCompactionStrategy: %v, want hudi.ErrUnsupported", err)
	}
}
