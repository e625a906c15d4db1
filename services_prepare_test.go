package hudi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/internal/write"
)

// giveMetadataTable adds a metadata table to a Spark-written v6 table (no v6 fixture has
// one), as a Hudi writer with hoodie.metadata.enable=true would leave it: a .hoodie/metadata
// folder and hoodie.table.metadata.partitions.
func giveMetadataTable(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	os.MkdirAll(filepath.Join(dir, ".hoodie", "metadata", ".hoodie"), 0o755)
	os.WriteFile(filepath.Join(dir, ".hoodie", "metadata", ".hoodie", "hoodie.properties"), []byte("hoodie.table.name=x_metadata\n"), 0o644)
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := openMeta(t, tb).UpdateProperties(ctx, func(p *props.Properties) { p.Set("hoodie.table.metadata.partitions", "files") }, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func latestDataInstant(t *testing.T, tb *hudi.Table) string {
	t.Helper()
	var last string
	for _, in := range tb.Timeline().Instants {
		if in.IsCompleted() && (in.Action == "commit" || in.Action == "deltacommit" || in.Action == "replacecommit") {
			last = string(in.Time)
		}
	}
	if last == "" {
		t.Fatal("no completed data instant")
	}
	return last
}

// serviceOps are the table services that change a table's files or timeline, each run on
// a fresh copy of a Spark-written fixture with the given settings.
var serviceOps = []struct {
	name    string
	fixture string
	run     func(ctx context.Context, tb *hudi.Table, instant string, settings map[string]string) error
}{
	{"compact", "mor-parquet/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, _ string, s map[string]string) error {
		_, err := tb.Compact(ctx, hudi.CompactOptions{Settings: s})
		return err
	}},
	{"cluster", "cow/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, _ string, s map[string]string) error {
		_, err := tb.Cluster(ctx, hudi.ClusterOptions{Settings: s})
		return err
	}},
	{"clean", "cow/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, _ string, s map[string]string) error {
		_, err := tb.Clean(ctx, hudi.CleanOptions{Settings: with(s, "hoodie.cleaner.commits.retained", "1")})
		return err
	}},
	{"rollback", "cow/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, instant string, s map[string]string) error {
		_, err := tb.Rollback(ctx, instant, hudi.RollbackOptions{Settings: s})
		return err
	}},
	{"savepoint create", "cow/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, instant string, s map[string]string) error {
		_, err := tb.Savepoint(ctx, hudi.SavepointCreate, instant, hudi.SavepointOptions{Settings: s})
		return err
	}},
	{"savepoint restore", "cow/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, instant string, s map[string]string) error {
		_, err := tb.Savepoint(ctx, hudi.SavepointRestore, instant, hudi.SavepointOptions{Settings: s})
		return err
	}},
}

// with returns a copy of settings with k=v.
func with(settings map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for kk, vv := range settings {
		out[kk] = vv
	}
	return out
}

// noMetadataTable turns the metadata table off, as a Java writer can.
var noMetadataTable = map[string]string{"hoodie.metadata.enable": "false"}

// Every service that changes a table, run with hoodie.metadata.enable=false, disables and
// deletes a metadata table first, as a write does (openForWrite): Java readers would
// otherwise list files through the stale metadata table and miss what the service wrote
// (Java does the same when a write client runs with the metadata table disabled:
// HoodieTable.maybeDeleteMetadataTable).
func TestServicesDisableMetadataTable(t *testing.T) {
	ctx := context.Background()
	for _, op := range serviceOps {
		t.Run(op.name, func(t *testing.T) {
			dir := testutil.Table(t, op.fixture)
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			instant := latestDataInstant(t, tb)
			if op.name == "savepoint restore" {
				if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, instant, hudi.SavepointOptions{Settings: noMetadataTable}); err != nil {
					t.Fatal(err)
				}
			}
			giveMetadataTable(t, dir)
			tb, _ = hudi.Open(ctx, dir)
			if err := op.run(ctx, tb, instant, noMetadataTable); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, ".hoodie", "metadata")); !os.IsNotExist(err) {
				t.Errorf(".hoodie/metadata survived %s", op.name)
			}
			tb, _ = hudi.Open(ctx, dir)
			if p := tb.Config().MetadataPartitions(); len(p) != 0 {
				t.Errorf("hoodie.table.metadata.partitions = %v after %s", p, op.name)
			}
		})
	}
}

// With the metadata table on (Hudi 0.14's default), every service builds it on a table
// that has none (the v6 fixtures) and records what it did: afterwards the files partition
// lists exactly what storage holds (HoodieMetadataTableValidator's comparison). A restore
// drops it (hudi-go rebuilds instead of restoring it, docs/design/metadata-table.md) and
// the next write builds it again.
func TestServicesKeepMetadataTable(t *testing.T) {
	ctx := context.Background()
	for _, op := range serviceOps {
		t.Run(op.name, func(t *testing.T) {
			dir := testutil.Table(t, op.fixture)
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			instant := latestDataInstant(t, tb)
			if op.name == "savepoint restore" || op.name == "rollback" {
				// Build the metadata table first, so that the rollback or restore has one
				// to keep current (with its deltacommit of the instant rolled back).
				if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, instant, hudi.SavepointOptions{}); err != nil {
					t.Fatal(err)
				}
				validateMDT(t, dir, "after the savepoint")
				tb, _ = hudi.Open(ctx, dir)
				if op.name == "rollback" {
					if _, err := tb.Savepoint(ctx, hudi.SavepointDelete, instant, hudi.SavepointOptions{}); err != nil {
						t.Fatal(err)
					}
					tb, _ = hudi.Open(ctx, dir)
				}
			}
			if op.name == "clean" {
				// Rewrite a file group, so that the clean deletes its older slice.
				for _, r := range readRows(t, tb, "id") {
					if _, err := tb.Write(ctx, batchesOf(t, tb, []row{r}), hudi.WriteOptions{Settings: map[string]string{"hoodie.clean.automatic": "false"}}); err != nil {
						t.Fatal(err)
					}
					break
				}
				tb, _ = hudi.Open(ctx, dir)
				res, err := tb.Clean(ctx, hudi.CleanOptions{Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}})
				if err != nil || res.FilesDeleted == 0 {
					t.Fatalf("clean deleted nothing: %+v %v", res, err)
				}
				validateMDT(t, dir, "after clean")
				return
			}
			if err := op.run(ctx, tb, instant, nil); err != nil {
				t.Fatal(err)
			}
			if op.name == "savepoint restore" {
				tb, _ = hudi.Open(ctx, dir)
				if p := tb.Config().MetadataPartitions(); len(p) != 0 {
					t.Fatalf("hoodie.table.metadata.partitions = %v after the restore, want none (dropped)", p)
				}
				if _, err := tb.Clean(ctx, hudi.CleanOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			validateMDT(t, dir, "after "+op.name)
		})
	}
}

// Writes and every service that changes a table refuse a bootstrapped table, until
// hudi-go writes them, and a table with CDC on but no meta fields, whose CDC log files
// hudi-go does not write (hudi-go's rules: Java writes both).
func TestWritesAndServicesRefuseBootstrapAndCDCTables(t *testing.T) {
	ctx := context.Background()
	ops := append([]struct {
		name    string
		fixture string
		run     func(ctx context.Context, tb *hudi.Table, instant string, settings map[string]string) error
	}{{"write", "cow/v6_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, _ string, _ map[string]string) error {
		_, err := tb.Write(ctx, nil, hudi.WriteOptions{Operation: "delete_partition",
			Settings: map[string]string{"hoodie.datasource.write.partitions.to.delete": "*"}})
		return err
	}}}, serviceOps...)
	for _, feature := range []struct{ key, value string }{{"hoodie.bootstrap.base.path", "/data/source"}, {"hoodie.populate.meta.fields", "false"}} {
		for _, op := range ops {
			t.Run(feature.key+"/"+op.name, func(t *testing.T) {
				dir := testutil.Table(t, op.fixture)
				tb, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				instant := latestDataInstant(t, tb)
				if err := openMeta(t, tb).UpdateProperties(ctx, func(p *props.Properties) {
					p.Set(feature.key, feature.value)
					if feature.key == "hoodie.populate.meta.fields" {
						p.Set("hoodie.table.cdc.enabled", "true")
					}
				}, time.Now()); err != nil {
					t.Fatal(err)
				}
				before := listTree(t, dir)
				tb, _ = hudi.Open(ctx, dir)
				err = op.run(ctx, tb, instant, nil)
				named := err != nil && (strings.Contains(err.Error(), feature.key) || strings.Contains(err.Error(), "meta fields"))
				if !named || !errors.Is(err, write.ErrUnsupported) {
					t.Fatalf("error %v: want an unsupported-table error naming %s", err, feature.key)
				}
				if after := listTree(t, dir); after != before {
					t.Errorf("the refused %s changed the table:\n%s\nvs\n%s", op.name, before, after)
				}
			})
		}
	}
}

func listTree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return strings.Join(out, "\n")
}
