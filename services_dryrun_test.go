package hudi_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/hudi-go/hudi"
)

// TestRollbackAndRestoreDryRun: --dry-run of a rollback (with later instants) and of a
// restore lists the instants, in rollback order, and leaves the timeline and the rows as
// they were.
func TestRollbackAndRestoreDryRun(t *testing.T) {
	ctx := context.Background()
	tb, dir, write := newTable(t, "cow")
	first := write("insert", inserts(6))
	second := write("upsert", updates)
	third := write("upsert", []row{{"uuid": "kc", "ts": 5, "fare": 5.5, "city": "la"}})
	before, rows := timelineFiles(t, dir), scanAll(t, tb, hudi.ScanOptions{})

	res, err := tb.Rollback(ctx, second, hudi.RollbackOptions{IncludeLater: true, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || !reflect.DeepEqual(res.InstantsRolledBack, []string{third, second}) {
		t.Errorf("rollback dry run: %+v, want [%s %s]", res, third, second)
	}
	if _, err := tb.Rollback(ctx, second, hudi.RollbackOptions{DryRun: true}); err == nil {
		t.Error("a dry run without --include-later must refuse as the rollback would")
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, first, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	withSavepoint := timelineFiles(t, dir)
	sp, err := tb.Savepoint(ctx, hudi.SavepointRestore, first, hudi.SavepointOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sp.DryRun || !reflect.DeepEqual(sp.InstantsRolledBack, []string{third, second}) {
		t.Errorf("restore dry run: %+v, want [%s %s]", sp, third, second)
	}
	if got := timelineFiles(t, dir); !reflect.DeepEqual(got, withSavepoint) || len(got) <= len(before) {
		t.Errorf("dry runs changed the timeline:\n%v\nwas\n%v", got, withSavepoint)
	}
	sameSet(t, "rows after dry runs", scanAll(t, tb, hudi.ScanOptions{}), rows)
}
