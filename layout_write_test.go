package hudi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/write"
)

// Until hudi-go writes timeline layout 2 (table versions 8 and 9) for an operation, the
// operation is refused on Spark's v8/v9 tables by the table's one layout check
// (table.CheckLayoutWrites), with an error naming the layout, before anything changes:
// not even the metadata table is dropped.
func TestLayoutTwoRefusesWhatItDoesNotWrite(t *testing.T) {
	ctx := context.Background()
	ops := []struct {
		name    string
		fixture string
		run     func(ctx context.Context, tb *hudi.Table, instant string) error
	}{
		{"write cow", "cow/v9_txns_simple_meta", func(ctx context.Context, tb *hudi.Table, _ string) error {
			_, err := tb.Write(ctx, nil, hudi.WriteOptions{Operation: "delete_partition",
				Settings: map[string]string{"hoodie.datasource.write.partitions.to.delete": "*"}})
			return err
		}},
		{"write mor", "mor-avro/v9_txns_simple_nometa", func(ctx context.Context, tb *hudi.Table, _ string) error {
			_, err := tb.Write(ctx, nil, hudi.WriteOptions{Operation: "delete_partition",
				Settings: map[string]string{"hoodie.datasource.write.partitions.to.delete": "*"}})
			return err
		}},
		{"compact", "mor-avro/v9_txns_simple_nometa", func(ctx context.Context, tb *hudi.Table, _ string) error {
			_, err := tb.Compact(ctx, hudi.CompactOptions{})
			return err
		}},
		{"cluster", "cow/v8_simplekeygen_nonhivestyle", func(ctx context.Context, tb *hudi.Table, _ string) error {
			_, err := tb.Cluster(ctx, hudi.ClusterOptions{})
			return err
		}},
		{"clean", "cow/v9_txns_simple_meta", func(ctx context.Context, tb *hudi.Table, _ string) error {
			_, err := tb.Clean(ctx, hudi.CleanOptions{Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}})
			return err
		}},
		{"archive", "cow/v9_txns_simple_meta", func(ctx context.Context, tb *hudi.Table, _ string) error {
			_, err := tb.Archive(ctx, hudi.ArchiveOptions{})
			return err
		}},
		{"rollback", "cow/v9_txns_simple_meta", func(ctx context.Context, tb *hudi.Table, instant string) error {
			_, err := tb.Rollback(ctx, instant, hudi.RollbackOptions{})
			return err
		}},
		{"savepoint", "cow/v8_nonpartitioned", func(ctx context.Context, tb *hudi.Table, instant string) error {
			_, err := tb.Savepoint(ctx, hudi.SavepointCreate, instant, hudi.SavepointOptions{})
			return err
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			dir := testutil.Table(t, op.fixture)
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			instant := latestDataInstant(t, tb)
			before := listTree(t, dir)
			err = op.run(ctx, tb, instant)
			if !errors.Is(err, write.ErrUnsupported) || !strings.Contains(err.Error(), "(timeline layout 2)") {
				t.Fatalf("error %v: want an unsupported-table error naming timeline layout 2", err)
			}
			if after := listTree(t, dir); after != before {
				t.Errorf("the refused %s changed the table:\n%s\nvs\n%s", op.name, before, after)
			}
		})
	}
}
