package local

import (
	"testing"

	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/storagetest"
)

// The storage conformance suite against a local directory.
func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Storage { return New(t.TempDir()) }, storagetest.Options{})
}
