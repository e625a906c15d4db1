// Package azuretest gives tests the Azure Blob emulator .ci/run starts (scripts/azurite):
// its address is in HUDI_TEST_AZURE (host:port); locally the tests skip without it, in CI
// (CI set) they fail.
package azuretest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
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

// OAuthServer is the emulator .ci/run starts for Azure AD (scripts/azurite --oauth): https
// with a self-signed certificate, bearer tokens accepted.
type OAuthServer struct {
	Addr string // host:port
	CA   string // the server's certificate (PEM), which clients trust as their CA
}

// OAuth returns the Azure AD emulator from HUDI_TEST_AZURE_OAUTH (host:port) and
// HUDI_TEST_AZURE_OAUTH_CA (its certificate), or skips t (fails in CI).
func OAuth(t testing.TB) OAuthServer {
	t.Helper()
	s := OAuthServer{Addr: os.Getenv("HUDI_TEST_AZURE_OAUTH"), CA: os.Getenv("HUDI_TEST_AZURE_OAUTH_CA")}
	if s.Addr == "" || s.CA == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("HUDI_TEST_AZURE_OAUTH / HUDI_TEST_AZURE_OAUTH_CA are not set: .ci/run starts Azurite with --oauth (scripts/azurite) and exports them")
		}
		t.Skip("HUDI_TEST_AZURE_OAUTH (host:port) and HUDI_TEST_AZURE_OAUTH_CA (its certificate) of an https Azurite with --oauth basic (scripts/azurite DIR PORT --oauth) are not set")
	}
	return s
}

// Trust returns a client option that trusts the server's certificate and extra ones (a
// token endpoint's), instead of the system's roots.
func (s OAuthServer) Trust(t testing.TB, extra ...*x509.Certificate) azure.Option {
	t.Helper()
	pool := x509.NewCertPool()
	pem, err := os.ReadFile(s.CA)
	if err != nil {
		t.Fatal(err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s: no certificate", s.CA)
	}
	for _, c := range extra {
		pool.AddCert(c)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	return func(o *azcore.ClientOptions) { o.Transport = hc }
}

// Container creates a new container on the server with the account key (over https) and
// returns its name.
func (s OAuthServer) Container(t testing.TB) string {
	t.Helper()
	var co azcore.ClientOptions
	s.Trust(t)(&co)
	cs := fmt.Sprintf("DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;BlobEndpoint=https://%s/%s;", Account, Key, s.Addr, Account)
	c, err := azblob.NewClientFromConnectionString(cs, &azblob.ClientOptions{ClientOptions: co})
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "ad-" + hex.EncodeToString(b[:])
	if _, err := c.CreateContainer(context.Background(), name, nil); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	return name
}

// OAuthSettings are the Hadoop ABFS settings of the client-credential flow against the
// server, with the token endpoint tokenURL.
func (s OAuthServer) OAuthSettings(tokenURL, clientID, secret string) map[string]string {
	return map[string]string{
		azure.KeyEndpoint: s.Addr, azure.KeyAuthType: "OAuth",
		azure.KeyOAuthProvider: azure.ClientCredsProvider, azure.KeyOAuthEndpoint: tokenURL,
		azure.KeyOAuthClientID: clientID, azure.KeyOAuthClientSecret: secret,
	}
}

// The tenant, client ID and secret TokenEndpoint knows.
const (
	Tenant       = "72f988bf-0000-4000-8000-00000000cafe"
	ClientID     = "hudi-go-test-client"
	ClientSecret = "the-right-secret"
)

// TokenEndpoint is a stand-in for Azure AD's token endpoint (login.microsoftonline.com,
// which the tests cannot reach): an https server that answers the client-credential
// request of a service principal (ClientID, ClientSecret) with a JWT of the claims Azure
// AD puts in a storage token — issuer https://sts.windows.net/TENANT/, audience
// https://storage.azure.com/, a lifetime — which the emulator validates (not signed: the
// emulator's basic OAuth mode does not check signatures). A wrong client or secret gets
// Azure AD's 401 answer (AADSTS7000215).
type TokenEndpoint struct {
	*httptest.Server
	URL      string // the v1 token URL: …/TENANT/oauth2/token
	Requests atomic.Int64
	// Issuer and Expired shape the tokens (tests of tokens the storage refuses).
	Issuer  string
	Expired bool
}

// NewTokenEndpoint starts one; it stops with t.
func NewTokenEndpoint(t testing.TB) *TokenEndpoint {
	te := &TokenEndpoint{Issuer: "https://sts.windows.net/" + Tenant + "/"}
	te.Server = httptest.NewTLSServer(http.HandlerFunc(te.serve))
	t.Cleanup(te.Server.Close)
	te.URL = te.Server.URL + "/" + Tenant + "/oauth2/token"
	return te
}

func (te *TokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	te.Requests.Add(1)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Method != http.MethodPost || r.URL.Path != "/"+Tenant+"/oauth2/token" || r.ParseForm() != nil ||
		r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("resource") != "https://storage.azure.com/" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"invalid_request","error_description":"AADSTS900144: unexpected request %s %s %v"}`, r.Method, r.URL.Path, r.PostForm)
		return
	}
	if r.PostForm.Get("client_id") != ClientID || r.PostForm.Get("client_secret") != ClientSecret {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.\r\nTrace ID: 0\r\nCorrelation ID: 0"}`, r.PostForm.Get("client_id"))
		return
	}
	now := time.Now()
	iat, exp := now.Add(-time.Minute), now.Add(time.Hour)
	if te.Expired {
		iat, exp = now.Add(-2*time.Hour), now.Add(-time.Hour)
	}
	seg := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	token := seg(map[string]string{"typ": "JWT", "alg": "RS256"}) + "." + seg(map[string]any{
		"aud": "https://storage.azure.com/", "iss": te.Issuer, "iat": iat.Unix(), "nbf": iat.Unix(), "exp": exp.Unix(),
		"appid": ClientID, "tid": Tenant, "ver": "1.0",
	}) + "." + base64.RawURLEncoding.EncodeToString([]byte("unsigned"))
	// AAD's v1 answer: numbers as strings.
	fmt.Fprintf(w, `{"token_type":"Bearer","expires_in":"%d","expires_on":"%d","resource":"https://storage.azure.com/","access_token":"%s"}`,
		int(time.Until(exp).Seconds()), exp.Unix(), token)
}

// Cert is the endpoint's certificate, for OAuthServer.Trust.
func (te *TokenEndpoint) Cert() *x509.Certificate { return te.Server.Certificate() }

// CABundle writes a PEM file trusting the server and the token endpoint, for processes
// (SSL_CERT_FILE), and returns its path.
func (s OAuthServer) CABundle(t testing.TB, te *TokenEndpoint) string {
	t.Helper()
	b, err := os.ReadFile(s.CA)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, pemCert(te.Cert())...)
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}
