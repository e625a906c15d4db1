package hudi_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
)

// TestHudi1PartialUpdatesRefused: Hudi 1.x's partial updates are not implemented, and
// every way into them is refused with ErrUnsupported instead of merging whole records
// (which would overwrite the columns a partial update left out): a write with a partial
// write schema or a partial update mode, and reads, writes and compactions of a table
// whose hoodie.properties has a partial update mode (IGNORE_DEFAULTS is what 1.1's
// upgrade gives a PartialUpdateAvroPayload table) or PartialUpdateAvroPayload as its
// legacy payload class.
func TestHudi1PartialUpdatesRefused(t *testing.T) {
	ctx := context.Background()
	newTable := func(t *testing.T) (string, *hudi.Table) {
		dir := filepath.Join(t.TempDir(), "t")
		tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "p", Type: "mor", TableVersion: 9, RecordKeyFields: []string{"id"},
			PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "a", "ts": json.Number("1"), "v": "x"}}), hudi.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		return dir, tb
	}
	for _, setting := range []string{"hoodie.write.partial.update.schema", "hoodie.table.partial.update.mode"} {
		t.Run("write setting "+setting, func(t *testing.T) {
			_, tb := newTable(t)
			_, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "a", "ts": json.Number("2"), "v": "y"}}),
				hudi.WriteOptions{Settings: map[string]string{setting: "IGNORE_DEFAULTS"}})
			if !errors.Is(err, hudi.ErrUnsupported) || !strings.Contains(err.Error(), setting) {
				t.Fatalf("write with %s: %v, want ErrUnsupported naming it", setting, err)
			}
		})
	}
	for _, prop := range []string{"hoodie.table.partial.update.mode=IGNORE_DEFAULTS",
		"hoodie.legacy.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload"} {
		t.Run("table with "+prop, func(t *testing.T) {
			dir, _ := newTable(t)
			p := filepath.Join(dir, ".hoodie", "hoodie.properties")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(b, []byte(strings.ReplaceAll(prop, ":", `\:`)+"\n")...), 0o644); err != nil {
				t.Fatal(err)
			}
			tb := reopen(t, dir)
			key := strings.SplitN(prop, "=", 2)[0]
			if _, err := tb.Scan(ctx, hudi.ScanOptions{}); !errors.Is(err, hudi.ErrUnsupported) || !strings.Contains(err.Error(), key) {
				t.Errorf("read: %v, want ErrUnsupported naming %s", err, key)
			}
			if _, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": "a", "ts": json.Number("2"), "v": "y"}}), hudi.WriteOptions{}); !errors.Is(err, hudi.ErrUnsupported) {
				t.Errorf("write: %v, want ErrUnsupported", err)
			}
		})
	}
}
