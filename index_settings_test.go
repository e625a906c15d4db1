package hudi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
)

// TestIndexSettingsRefusedNotIgnored: index settings hudi-go does not implement are
// refused before the write creates an instant, instead of being accepted and ignored (a
// custom hoodie.index.class, the BUCKET index's CONSISTENT_HASHING engine, a bucket count
// that is not positive — which used to become 256). Settings that do not apply (the bucket
// engine of a non-BUCKET index) and valid ones are written.
func TestIndexSettingsRefusedNotIgnored(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name        string
		settings    map[string]string
		refused     string // "" = the write commits
		unsupported bool
	}{
		{"custom index class", map[string]string{"hoodie.index.class": "com.example.MyIndex"}, "hoodie.index.class=com.example.MyIndex", true},
		{"consistent hashing", map[string]string{"hoodie.index.type": "BUCKET", "hoodie.index.bucket.engine": "CONSISTENT_HASHING"}, "hoodie.index.bucket.engine=CONSISTENT_HASHING", true},
		{"zero buckets", map[string]string{"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "0"}, "hoodie.bucket.index.num.buckets=0", false},
		{"negative buckets", map[string]string{"hoodie.bucket.index.num.buckets": "-3"}, "hoodie.bucket.index.num.buckets=-3", false},
		{"engine of another index", map[string]string{"hoodie.index.type": "SIMPLE", "hoodie.index.bucket.engine": "CONSISTENT_HASHING"}, "", false},
		{"simple engine", map[string]string{"hoodie.index.type": "BUCKET", "hoodie.index.bucket.engine": "SIMPLE", "hoodie.bucket.index.num.buckets": "4"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "t", Type: "mor", RecordKeyFields: []string{"id"},
				PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = tb.Write(ctx, batchesOf(t, tb, []row{{"id": "a", "ts": 1, "v": "x"}}), hudi.WriteOptions{Operation: "upsert", Settings: tc.settings})
			timeline, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
			instants := 0
			for _, e := range timeline {
				if strings.Contains(e.Name(), "commit") {
					instants++
				}
			}
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("write with %v: %v, want a refusal naming %s", tc.settings, err, tc.refused)
			}
			if tc.unsupported != errors.Is(err, hudi.ErrUnsupported) {
				t.Errorf("errors.Is(%v, ErrUnsupported) = %v", err, !tc.unsupported)
			}
			if instants != 0 {
				t.Errorf("the refused write left %d timeline files", instants)
			}
		})
	}
}
