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

// Until hudi-go writes timeline layout 2 (table versions 8 and 9) for an operation (it
// writes copy-on-write tables; TestWritesOnSparkTables), the
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

// hoodie.write.table.version is honoured by create and refused, rather than ignored, by a
// write that names another version than the table's (upgrade and downgrade are not done
// yet); hoodie.record.merge.mode is refused on a version 6 table, which has no merge mode.
func TestWriteTableVersionSetting(t *testing.T) {
	ctx := context.Background()
	create := func(version int, settings map[string]string) (*hudi.Table, error) {
		return hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{TableVersion: version, Name: "t", RecordKeyFields: []string{"id"},
			PrecombineField: "ts", Schema: "id STRING, ts BIGINT", Settings: settings})
	}
	for _, tc := range []struct {
		version  int
		settings map[string]string
		want     int
		fail     string
	}{
		{0, nil, 6, ""},
		{0, map[string]string{"hoodie.write.table.version": "9"}, 9, ""},
		{0, map[string]string{"hoodie.write.table.version": "8"}, 8, ""},
		{9, map[string]string{"hoodie.write.table.version": "9"}, 9, ""},
		{9, map[string]string{"hoodie.write.table.version": "8"}, 0, "hoodie.write.table.version=8 contradicts the table version asked for, 9"},
		{0, map[string]string{"hoodie.write.table.version": "7"}, 0, "hoodie.write.table.version"},
		{5, nil, 0, "table version 5"},
	} {
		tb, err := create(tc.version, tc.settings)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("create(%d, %v): err = %v, want %q", tc.version, tc.settings, err, tc.fail)
			}
			continue
		}
		if err != nil {
			t.Fatalf("create(%d, %v): %v", tc.version, tc.settings, err)
		}
		if int(tb.Meta().Version) != tc.want {
			t.Errorf("create(%d, %v): version %d, want %d", tc.version, tc.settings, tb.Meta().Version, tc.want)
		}
	}

	v6, err := create(6, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"hoodie.write.table.version": "9", "hoodie.record.merge.mode": "EVENT_TIME_ORDERING"} {
		_, err := v6.Write(ctx, nil, hudi.WriteOptions{Operation: "delete_partition",
			Settings: map[string]string{k: v, "hoodie.datasource.write.partitions.to.delete": "*"}})
		if err == nil || !strings.Contains(err.Error(), k+"="+v) {
			t.Errorf("write with %s=%s on a version 6 table: %v", k, v, err)
		}
	}
	v9, err := create(9, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"hoodie.write.table.version": "6", "hoodie.record.merge.mode": "COMMIT_TIME_ORDERING",
		"hoodie.clean.automatic": "true", "hoodie.archive.automatic": "true"} {
		_, err := v9.Write(ctx, nil, hudi.WriteOptions{Operation: "delete_partition",
			Settings: map[string]string{k: v, "hoodie.datasource.write.partitions.to.delete": "*"}})
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("write with %s=%s on a version 9 table: %v", k, v, err)
		}
	}
}
