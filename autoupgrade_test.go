package hudi_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
)

// TestWriteAutoUpgrade: a write with hoodie.write.table.version=9 on a version 6 table
// upgrades the table first and then writes, as Java's writers do with
// hoodie.write.auto.upgrade=true (its default; UpgradeDowngrade.needsUpgrade); the rows
// read back equal to a model, on copy-on-write and merge-on-read. With
// hoodie.write.auto.upgrade=false Java skips the upgrade and writes version 6 with a
// warning; hudi-go refuses (hudi-go's choice: a setting is never accepted and ignored) and
// the table stays version 6.
func TestWriteAutoUpgrade(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Type: typ, Name: "t", RecordKeyFields: []string{"id"},
				PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
			if err != nil {
				t.Fatal(err)
			}
			model := map[string]string{}
			write := func(rows []row, settings map[string]string) error {
				tb, _ = hudi.Open(ctx, dir)
				_, err := tb.Write(ctx, batchesOf(t, tb, rows), hudi.WriteOptions{Settings: settings})
				return err
			}
			if err := write([]row{{"id": "a", "ts": json.Number("1"), "v": "a1"}, {"id": "b", "ts": json.Number("1"), "v": "b1"}}, nil); err != nil {
				t.Fatal(err)
			}
			model["a"], model["b"] = "a1", "b1"
			if err := write([]row{{"id": "a", "ts": json.Number("2"), "v": "a2"}}, nil); err != nil {
				t.Fatal(err)
			}
			model["a"] = "a2"

			err = write([]row{{"id": "c", "ts": json.Number("1"), "v": "c1"}},
				map[string]string{"hoodie.write.table.version": "9", "hoodie.write.auto.upgrade": "false"})
			if err == nil || !strings.Contains(err.Error(), "hoodie.write.auto.upgrade=false") {
				t.Fatalf("write with auto upgrade off: %v", err)
			}
			if tb, _ = hudi.Open(ctx, dir); tb.Version() != 6 {
				t.Fatalf("version %d after the refused write", tb.Version())
			}

			if err := write([]row{{"id": "b", "ts": json.Number("3"), "v": "b3"}, {"id": "c", "ts": json.Number("1"), "v": "c1"}},
				map[string]string{"hoodie.write.table.version": "9"}); err != nil {
				t.Fatal(err)
			}
			model["b"], model["c"] = "b3", "c1"
			tb, _ = hudi.Open(ctx, dir)
			if tb.Version() != 9 {
				t.Fatalf("version %d after a write with hoodie.write.table.version=9", tb.Version())
			}
			if v, _ := tb.Config().Get("hoodie.table.initial.version"); v != "6" {
				t.Errorf("hoodie.table.initial.version=%q", v)
			}
			if _, err := os.Stat(filepath.Join(dir, ".hoodie", "timeline")); err != nil {
				t.Fatal(err)
			}
			// Later writes name version 9 or nothing.
			if err := write([]row{{"id": "a", "ts": json.Number("5"), "v": "a5"}}, map[string]string{"hoodie.write.table.version": "9"}); err != nil {
				t.Fatal(err)
			}
			model["a"] = "a5"
			if err := write([]row{{"id": "c", "ts": json.Number("0"), "v": "c0"}}, nil); err != nil {
				t.Fatal(err)
			}
			// EVENT_TIME_ORDERING after the upgrade: ts 0 loses to ts 1.
			tb, _ = hudi.Open(ctx, dir)
			got := readRows(t, tb, "id")
			if len(got) != len(model) {
				t.Fatalf("%d rows, want %d: %v", len(got), len(model), got)
			}
			for k, v := range model {
				if r := got[`"`+k+`"`]; r == nil || r["v"] != v {
					t.Errorf("%s: %v, want v=%s", k, r, v)
				}
			}
			// A lower version than the table's is refused.
			if err := write([]row{{"id": "d", "ts": json.Number("1"), "v": "d"}}, map[string]string{"hoodie.write.table.version": "6"}); err == nil ||
				!strings.Contains(err.Error(), "does not downgrade") {
				t.Errorf("write with hoodie.write.table.version=6 on version 9: %v", err)
			}
		})
	}
}

// TestWriteAutoUpgradeValidatesFirst: a write naming version 9 on a version 6 table whose
// other settings would be refused on version 9 (a merge mode contradicting the one the
// upgrade gives the table) is refused before the upgrade: the table stays version 6 with
// its metadata table. (hoodie.metadata.enable=true was refused too until hudi-go kept the
// metadata table on versions 8/9: TestUpgradeWriteKeepsMetadataTable.) An explicit upgrade of a table with change-data capture on is refused
// (hudi-go writes CDC on version 6 only).
func TestWriteAutoUpgradeValidatesFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Type: "cow", Name: "t", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "a", "ts": json.Number("1"), "v": "a1"}}), hudi.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, settings := range []map[string]string{
		{"hoodie.write.table.version": "9", "hoodie.record.merge.mode": "COMMIT_TIME_ORDERING"},
		{"hoodie.write.table.version": "9", "hoodie.metadata.index.column.stats.enable": "true"},
		{"hoodie.write.table.version": "9", "hoodie.metadata.index.bloom.filter.enable": "true"},
	} {
		tb, _ = hudi.Open(ctx, dir)
		_, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "b", "ts": json.Number("1"), "v": "b1"}}), hudi.WriteOptions{Settings: settings})
		if err == nil || !strings.Contains(err.Error(), "so the table is not upgraded") {
			t.Errorf("write with %v: %v", settings, err)
		}
		if tb, _ = hudi.Open(ctx, dir); tb.Version() != 6 {
			t.Fatalf("version %d after the refused write with %v", tb.Version(), settings)
		}
		if _, err := os.Stat(filepath.Join(dir, ".hoodie", "metadata")); err != nil {
			t.Errorf("metadata table gone after the refused write with %v: %v", settings, err)
		}
	}

	cdc := t.TempDir()
	tc, err := hudi.Create(ctx, cdc, hudi.CreateOptions{Type: "cow", Name: "c", RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING", Settings: map[string]string{"hoodie.table.cdc.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Upgrade(ctx, hudi.VersionChangeOptions{To: 9}); err == nil || !strings.Contains(err.Error(), "change-data capture") {
		t.Errorf("upgrade of a CDC table: %v", err)
	}
	if tc, _ = hudi.Open(ctx, cdc); tc.Version() != 6 {
		t.Errorf("CDC table version %d", tc.Version())
	}
}
