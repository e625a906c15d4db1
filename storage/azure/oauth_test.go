package azure_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/objstore/azuretest"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/azure"
)

// TestAzureADClientCredentials: with Hadoop's client-credential keys
// (fs.azure.account.oauth.provider.type=…ClientCredsTokenProvider, the token endpoint, the
// client ID and secret) the backend fetches a token from the endpoint and sends it as a
// bearer token over https to Azurite (--oauth basic: it checks the token's issuer,
// audience and lifetime). Every storage operation hudi uses works, one token serves them
// all; a wrong secret, and tokens the storage refuses, fail with errors that say so.
func TestAzureADClientCredentials(t *testing.T) {
	srv := azuretest.OAuth(t)
	te := azuretest.NewTokenEndpoint(t)
	c := srv.Container(t)
	ctx := context.Background()
	open := func(t *testing.T, secret string) storage.Storage {
		t.Helper()
		loc, err := storage.ParseLocation(fmt.Sprintf("abfss://%s@%s.dfs.core.windows.net/w/t", c, azuretest.Account))
		if err != nil {
			t.Fatal(err)
		}
		st, err := azure.Open(ctx, loc, srv.OAuthSettings(te.URL, azuretest.ClientID, secret), srv.Trust(t, te.Cert()))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	t.Run("right secret", func(t *testing.T) {
		before := te.Requests.Load()
		st := open(t, azuretest.ClientSecret)
		if err := st.Put(ctx, ".hoodie/hoodie.properties", []byte("hoodie.table.name=t\n")); err != nil {
			t.Fatal(err)
		}
		w, err := st.Create(ctx, ".hoodie/001.commit")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("{}"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		w, _ = st.Create(ctx, ".hoodie/001.commit")
		w.Write([]byte("{}"))
		if err := w.Close(); !errors.Is(err, storage.ErrExist) {
			t.Fatalf("second create of one instant = %v, want ErrExist", err)
		}
		if b, err := st.ReadFile(ctx, ".hoodie/hoodie.properties"); err != nil || string(b) != "hoodie.table.name=t\n" {
			t.Fatalf("read = %q, %v", b, err)
		}
		if l, err := st.List(ctx, ".hoodie"); err != nil || len(l) != 2 {
			t.Fatalf("list = %v, %v", l, err)
		}
		cs := st.(storage.ConditionalStorage)
		_, v, err := cs.ReadVersion(ctx, ".hoodie/001.commit")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.PutIfMatch(ctx, ".hoodie/001.commit", []byte("{ }"), v); err != nil {
			t.Fatal(err)
		}
		if err := st.Delete(ctx, ".hoodie/001.commit"); err != nil {
			t.Fatal(err)
		}
		if n := te.Requests.Load() - before; n != 1 {
			t.Errorf("%d token requests for one client, want 1 (the token is cached until it expires)", n)
		}
	})

	t.Run("wrong secret", func(t *testing.T) {
		st := open(t, "not-the-secret")
		_, err := st.ReadFile(ctx, ".hoodie/hoodie.properties")
		for _, want := range []string{"Azure AD token", azuretest.ClientID, te.URL, "HTTP 401", "AADSTS7000215", "hoodie.properties"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("read with a wrong client secret: %v, want an error naming %q", err, want)
			}
		}
		t.Logf("%v", err)
		if err != nil && strings.Contains(err.Error(), "not-the-secret") {
			t.Errorf("the error shows the secret: %v", err)
		}
	})

	// Azurite validates the token it gets: one from another issuer or an expired one is
	// refused, so the test above shows the token authorized the requests.
	for _, tc := range []struct {
		name    string
		issuer  string
		expired bool
		want    string
	}{
		{"foreign issuer", "https://tokens.example.com/", false, "Invalid token issuer"},
		{"expired token", "", true, "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te.Issuer, te.Expired = "https://sts.windows.net/"+azuretest.Tenant+"/", tc.expired
			if tc.issuer != "" {
				te.Issuer = tc.issuer
			}
			t.Cleanup(func() { te.Issuer, te.Expired = "https://sts.windows.net/"+azuretest.Tenant+"/", false })
			st := open(t, azuretest.ClientSecret)
			_, err := st.ReadFile(ctx, ".hoodie/hoodie.properties")
			if err == nil || !strings.Contains(err.Error(), "hoodie.properties") || !strings.Contains(err.Error(), "AuthenticationFailed") {
				t.Fatalf("read with a token the storage refuses: %v, want AuthenticationFailed naming the file", err)
			}
			t.Logf("%v", err)
		})
	}
}
