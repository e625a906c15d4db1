// Package gcstest gives tests the GCS emulator .ci/run starts (scripts/fake-gcs-server):
// its address is in HUDI_TEST_GCS (host:port); locally the tests skip without it, in CI
// (CI set) they fail.
package gcstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"cloud.google.com/go/storage"

	_ "github.com/hudi-go/hudi/storage/gcs" // registers gs://
)

// Addr returns the emulator's host:port, or skips t (fails in CI).
func Addr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("HUDI_TEST_GCS")
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HUDI_TEST_GCS is not set: .ci/run starts fake-gcs-server (scripts/fake-gcs-server) and exports it")
		}
		t.Skip("HUDI_TEST_GCS (host:port of a GCS emulator, e.g. scripts/fake-gcs-server) is not set")
	}
	return addr
}

// Bucket points STORAGE_EMULATOR_HOST at the test emulator for t and creates a bucket.
func Bucket(t *testing.T) string {
	t.Helper()
	t.Setenv("STORAGE_EMULATOR_HOST", Addr(t))
	return NewBucket(t)
}

// NewBucket creates a bucket on the emulator STORAGE_EMULATOR_HOST already names (a test
// that set it for parallel subtests, which cannot call Bucket's t.Setenv).
func NewBucket(t testing.TB) string {
	t.Helper()
	if os.Getenv("STORAGE_EMULATOR_HOST") == "" {
		t.Fatal("gcstest.NewBucket: STORAGE_EMULATOR_HOST is not set")
	}
	c, err := storage.NewClient(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var b [6]byte
	rand.Read(b[:])
	name := "t-" + hex.EncodeToString(b[:])
	if err := c.Bucket(name).Create(context.Background(), "hudi-test", nil); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}
