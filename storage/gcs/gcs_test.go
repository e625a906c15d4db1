package gcs_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/gcstest"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/storagetest"
)

// The storage conformance suite against a GCS emulator (fake-gcs-server), through the
// registry as hudi opens gs:// tables.
func TestConformance(t *testing.T) {
	bucket := gcstest.Bucket(t)
	var n atomic.Int64
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		st, err := storage.OpenURL(context.Background(), fmt.Sprintf("gs://%s/w/t%d", bucket, n.Add(1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, storagetest.Options{
		// Listing past one page is blobstore's code, covered by the S3 suite; the
		// emulator's 1,100 creates took 15-30 s on a loaded machine.
		ListEntries: 150,
	})
}

// GCS takes its credentials from Application Default Credentials (and
// STORAGE_EMULATOR_HOST): a Hadoop GCS connector key is refused by name, not ignored.
func TestSettingsRefusedByName(t *testing.T) {
	_, err := storage.OpenURL(context.Background(), "gs://b/t", map[string]string{"fs.gs.auth.service.account.json.keyfile": "/k.json"})
	if err == nil || !strings.Contains(err.Error(), "fs.gs.auth.service.account.json.keyfile") {
		t.Fatalf("want the key refused by name, got %v", err)
	}
}
