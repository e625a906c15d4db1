package azure_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/azuretest"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/azure"
	"github.com/hudi-go/hudi/storage/storagetest"
)

// The storage conformance suite against Azurite, through the registry as hudi opens
// abfs:// tables, with the account key in Hadoop's setting.
func TestConformance(t *testing.T) {
	c, settings := azuretest.Container(t)
	var n atomic.Int64
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		st, err := storage.OpenURL(context.Background(),
			fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/w/t%d", c, azuretest.Account, n.Add(1)), settings)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, storagetest.Options{
		// Listing past one page is blobstore's code, covered by the S3 suite; the
		// emulator's 1,100 creates took 15-30 s on a loaded machine, 150 still 12 s.
		ListEntries: 60,
	})
}

// A wasbs:// URL with AZURE_STORAGE_CONNECTION_STRING (no settings) reaches the same
// blobs as abfs:// with the account key: both name one container.
func TestConnectionStringAndWasb(t *testing.T) {
	c, settings := azuretest.Container(t)
	t.Setenv(azure.EnvConnectionString, azuretest.ConnectionString(azuretest.Addr(t)))
	ctx := context.Background()
	abfs, err := storage.OpenURL(ctx, fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/t", c, azuretest.Account), settings)
	if err != nil {
		t.Fatal(err)
	}
	wasb, err := storage.OpenURL(ctx, fmt.Sprintf("wasbs://%s@%s.blob.core.windows.net/t", c, azuretest.Account), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := abfs.Put(ctx, ".hoodie/hoodie.properties", []byte("x=1\n")); err != nil {
		t.Fatal(err)
	}
	b, err := wasb.ReadFile(ctx, ".hoodie/hoodie.properties")
	if err != nil || string(b) != "x=1\n" {
		t.Fatalf("through the connection string: %q, %v", b, err)
	}
	// A connection string for another account is refused, naming both.
	_, err = storage.OpenURL(ctx, fmt.Sprintf("wasbs://%s@other.blob.core.windows.net/t", c), nil)
	if err == nil || !strings.Contains(err.Error(), `"other"`) || !strings.Contains(err.Error(), azuretest.Account) {
		t.Fatalf("other account: %v", err)
	}
}

// Paths whose names gocloud.dev would store escaped are refused, named.
func TestNamesAzureCannotStoreRefused(t *testing.T) {
	c, settings := azuretest.Container(t)
	ctx := context.Background()
	st, err := storage.OpenURL(ctx, fmt.Sprintf("abfs://%s@%s.dfs.core.windows.net/t", c, azuretest.Account), settings)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Put(ctx, "city=a%2Fb/f.parquet", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), `'%'`) || !strings.Contains(err.Error(), "city=a%2Fb/f.parquet") {
		t.Fatalf("put: %v", err)
	}
}

// The client-credential keys under their account-specific names
// (KEY.ACCOUNT.dfs.core.windows.net) are honoured and win over the plain ones: a wrong
// plain secret beside the right account-specific one still reaches the storage.
func TestAzureADAccountSpecificKeys(t *testing.T) {
	srv := azuretest.OAuth(t)
	te := azuretest.NewTokenEndpoint(t)
	c := srv.Container(t)
	ctx := context.Background()
	settings := srv.OAuthSettings(te.URL, azuretest.ClientID, "wrong")
	settings[azure.KeyOAuthClientSecret+"."+azuretest.Account+".dfs.core.windows.net"] = azuretest.ClientSecret
	for k := range settings {
		if !storage.IsSetting(k) {
			t.Errorf("the registry does not take %s", k)
		}
	}
	loc, err := storage.ParseLocation(fmt.Sprintf("abfss://%s@%s.dfs.core.windows.net/t", c, azuretest.Account))
	if err != nil {
		t.Fatal(err)
	}
	az, err := azure.Open(ctx, loc, settings, srv.Trust(t, te.Cert()))
	if err != nil {
		t.Fatal(err)
	}
	if err := az.Put(ctx, "f", []byte("x")); err != nil {
		t.Fatalf("put with the account-specific secret: %v", err)
	}
}

// Settings are checked before any request: each bad one is refused by name.
func TestSettingsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		url      string
		settings map[string]string
		want     string
	}{
		{"abfs://c@acct.dfs.core.windows.net/t", map[string]string{"fs.azure.sas.token": "x"}, "fs.azure.sas.token"},
		{"abfs://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "SAS"}, azure.KeyAuthType},
		{"abfs://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "SharedKey"}, "fs.azure.account.key.acct.dfs.core.windows.net"},
		{"abfs://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAlwaysHTTPS: "maybe"}, azure.KeyAlwaysHTTPS},
		{"abfs://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyEndpoint: "http://h:1/x"}, azure.KeyEndpoint},
		{"abfs://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "OAuth", azure.KeyAlwaysHTTPS: "false"}, "https"},
		{"abfs://acct.dfs.core.windows.net/t", nil, "container@"},
		// Azure AD through Hadoop's client-credential keys: each missing or wrong one named.
		{"abfss://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "OAuth", azure.KeyOAuthProvider: "org.apache.hadoop.fs.azurebfs.oauth2.MsiTokenProvider"}, "MsiTokenProvider"},
		{"abfss://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyOAuthProvider: azure.ClientCredsProvider}, azure.KeyAuthType + "=OAuth"},
		{"abfss://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "OAuth", azure.KeyOAuthProvider: azure.ClientCredsProvider,
			azure.KeyOAuthEndpoint: "https://login.microsoftonline.com/x/oauth2/token", azure.KeyOAuthClientID: "id"}, azure.KeyOAuthClientSecret},
		{"abfss://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "OAuth", azure.KeyOAuthProvider: azure.ClientCredsProvider,
			azure.KeyOAuthEndpoint: "http://login.example/x/oauth2/token", azure.KeyOAuthClientID: "id", azure.KeyOAuthClientSecret: "s"}, "must be https"},
		{"abfss://c@acct.dfs.core.windows.net/t", map[string]string{azure.KeyAuthType: "OAuth", azure.KeyOAuthClientSecret + ".acct.dfs.core.windows.net": "s"}, azure.KeyOAuthProvider},
		{"abfss://c@acct.dfs.core.windows.net/t", map[string]string{"fs.azure.account.oauth2.refresh.token": "x"}, "fs.azure.account.oauth2.refresh.token"},
		{"wasb://c@acct.queue.core.windows.net/t", nil, "ACCOUNT.blob"},
	} {
		_, err := storage.OpenURL(ctx, tc.url, tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: want an error naming %q, got %v", tc.url, tc.settings, tc.want, err)
		}
	}
}
