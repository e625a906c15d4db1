// Package azuretest gives tests the Azure Blob emulator .ci/run starts (scripts/azurite):
// its address is in HUDI_TEST_AZURE (host:port); locally the tests skip without it, in CI
// (CI set) they fail.
package azuretest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/hudi-go/hudi/storage/azure"
)

// The emulator's well-known development account and its published key.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Addr returns the emulator's host:port, or skips t.
func Addr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("HUDI_TEST_AZURE")
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HUDI_TEST_AZURE is not set: .ci/run starts Azurite (scripts/azurite) and exports it")
		}
		t.Skip("HUDI_TEST_AZURE (host:port of an Azure Blob emulator, e.g. scripts/azurite) is not set")
	}
	return addr
}

// ConnectionString is the emulator's connection string (AZURE_STORAGE_CONNECTION_STRING).
func ConnectionString(addr string) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=http://%s/%s;", Account, Key, addr, Account)
}

// KeySettings are the Hadoop ABFS settings that reach the emulator with the account key.
func KeySettings(addr string) map[string]string {
	return map[string]string{
		azure.KeyEndpoint: addr, azure.KeyAlwaysHTTPS: "false",
		azure.KeyAccountKeyPrefix + Account + ".dfs.core.windows.net": Key,
	}
}

// Container creates a new container on the emulator and returns its name, with the
// account-key settings that reach it.
func Container(t testing.TB) (string, map[string]string) {
	t.Helper()
	addr := Addr(t)
	c, err := azblob.NewClientFromConnectionString(ConnectionString(addr), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "t-" + hex.EncodeToString(b[:])
	if _, err := c.CreateContainer(context.Background(), name, nil); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	return name, KeySettings(addr)
}
