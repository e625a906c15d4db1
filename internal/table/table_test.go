package table

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

func TestOpenEveryFixture(t *testing.T) {
	for _, id := range testutil.TableIDs(t) {
		t.Run(id, func(t *testing.T) {
			tb, err := Open(context.Background(), local.New(testutil.Table(t, id)))
			if err != nil {
				t.Fatal(err)
			}
			if tb.Config.Name() == "" || len(tb.Config.RecordKeyFields()) == 0 {
				t.Errorf("name %q, keys %v", tb.Config.Name(), tb.Config.RecordKeyFields())
			}
			if tb.Version >= 8 && tb.Timeline.Layout.Version() != 2 || tb.Version == 6 && tb.Timeline.Layout.Version() != 1 {
				t.Errorf("version %d has %s", tb.Version, tb.Timeline.Layout)
			}
		})
	}
}

func TestConfigAccessors(t *testing.T) {
	tb, err := Open(context.Background(), local.New(testutil.Table(t, "mor-parquet/v6_complexkeygen_hivestyle")))
	if err != nil {
		t.Fatal(err)
	}
	c := tb.Config
	if got := strings.Join(c.RecordKeyFields(), ","); got != "id,name" {
		t.Errorf("record keys = %s", got)
	}
	if got := strings.Join(c.PartitionFields(), ","); got != "byteField,shortField" {
		t.Errorf("partition fields = %s", got)
	}
	if got := strings.Join(c.OrderingFields(), ","); got != "longField" {
		t.Errorf("ordering = %s", got)
	}
	if !c.HiveStylePartitioning() || c.DropPartitionColumns() || !c.PopulateMetaFields() || tb.Type != spec.MergeOnRead {
		t.Errorf("flags wrong: hive=%v drop=%v meta=%v type=%v", c.HiveStylePartitioning(), c.DropPartitionColumns(), c.PopulateMetaFields(), tb.Type)
	}
	if c.BaseFileFormat() != "PARQUET" {
		t.Errorf("base format = %s", c.BaseFileFormat())
	}
}

func TestBackupPropertiesFallback(t *testing.T) {
	dir := testutil.Table(t, "cow/v6_nonpartitioned")
	p := filepath.Join(dir, ".hoodie", "hoodie.properties")
	if err := os.Rename(p, p+".backup"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), local.New(dir)); err != nil {
		t.Fatalf("Java readers fall back to hoodie.properties.backup; so must we: %v", err)
	}
}

func TestSchemaAtAndReplaced(t *testing.T) {
	ctx := context.Background()
	tb, err := Open(ctx, local.New(testutil.Table(t, "cow/v6_simplekeygen_nonhivestyle_overwritetable")))
	if err != nil {
		t.Fatal(err)
	}
	data := tb.Timeline.DataInstants()
	s, err := tb.SchemaAt(ctx, data[0].Time)
	if err != nil || !strings.Contains(s, `"record"`) {
		t.Fatalf("schema = %q, %v", s, err)
	}
	before, err := tb.ReplacedFileGroups(ctx, data[1].Time)
	if err != nil || len(before) != 0 {
		t.Errorf("replaced before the overwrite = %v, %v", before, err)
	}
	after, err := tb.ReplacedFileGroups(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ids := range after {
		n += len(ids)
	}
	if n == 0 {
		t.Error("INSERT OVERWRITE TABLE replaced no file groups")
	}
	empty, err := Open(ctx, local.New(testutil.Table(t, "cow/v6_empty")))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := empty.SchemaAt(ctx, ""); err != nil || s != empty.Config.CreateSchema() || s == "" {
		t.Errorf("empty table schema = %q, %v; want the create schema", s, err)
	}
}
