package commit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hudi-go/hudi/storage/local"
)

// A killed process leaves the temp files of atomic writes behind. Rollback of failed
// writes removes those in the metadata folders once they are older than a heartbeat
// expiry, and nothing else: fresh temp files may belong to a running writer, and data
// files' temp files belong to the rollback of their instant.
func TestStaleTempFilesRemoved(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	now := time.Now()
	hb := HeartbeatOptions{Interval: time.Minute, TolerableMisses: 2}
	old := now.Add(-hb.Expiry() - time.Second)
	fresh := now.Add(-hb.Expiry() + 10*time.Second)
	for _, tc := range []struct {
		path    string
		mtime   time.Time
		removed bool
	}{
		{".hoodie/.20250101000000000.commit.tmp-123", old, true},
		{".hoodie/.20250101000000000.commit.tmp-124", fresh, false},
		{".hoodie/.hoodie.properties.tmp-9", old, true},
		{".hoodie/archived/..commits_.archive.1_1-0-1.tmp-77", old, true},
		{".hoodie/.heartbeat/.20250101000000000.tmp-5", old, true},
		{".hoodie/.heartbeat/.20250101000000001.tmp-6", fresh, false},
		// Not temp files, however old.
		{".hoodie/hoodie.properties", old, false},
		{".hoodie/.tmp-", old, false},
		{".hoodie/20240101000000000.commit", old, false},
		// Data files' temp files are the rollback's business, not this sweep's.
		{"p1/.f1-0_0-0-0_20250101000000000.parquet.tmp-3", old, false},
	} {
		p := filepath.Join(dir, filepath.FromSlash(tc.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tc.mtime, tc.mtime); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_, err := os.Stat(p)
			if gone := os.IsNotExist(err); gone != tc.removed {
				t.Errorf("%s: removed=%v, want %v", tc.path, gone, tc.removed)
			}
		}()
	}
	o := RollbackOptions{Now: func() time.Time { return now }, Location: time.UTC, Heartbeat: hb}
	if _, err := RollbackFailedWrites(ctx, local.New(dir), load(t, dir), o); err != nil {
		t.Fatal(err)
	}
}
