package azure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Hadoop ABFS's OAuth keys (org.apache.hadoop.fs.azurebfs.constants.ConfigurationKeys),
// each also under its account-specific name KEY.ACCOUNT.dfs.core.windows.net, which wins.
const (
	KeyOAuthProvider     = "fs.azure.account.oauth.provider.type"
	KeyOAuthEndpoint     = "fs.azure.account.oauth2.client.endpoint"
	KeyOAuthClientID     = "fs.azure.account.oauth2.client.id"
	KeyOAuthClientSecret = "fs.azure.account.oauth2.client.secret"
	// ClientCredsProvider is the provider class that fetches a token with a service
	// principal's client ID and secret from the token endpoint (Hadoop's
	// ClientCredsTokenProvider): the one provider this backend implements by name.
	ClientCredsProvider = "org.apache.hadoop.fs.azurebfs.oauth2.ClientCredsTokenProvider"
)

// oauthKeys are the keys above, which may carry an account suffix.
var oauthKeys = []string{KeyOAuthProvider, KeyOAuthEndpoint, KeyOAuthClientID, KeyOAuthClientSecret}

// accountSetting returns key for account a: its account-specific form
// (KEY.ACCOUNT.dfs.SUFFIX or KEY.ACCOUNT.blob.SUFFIX) before the plain key, the order in
// which Hadoop's AbfsConfiguration reads account-specific settings.
func accountSetting(a Account, settings map[string]string, key string) (string, string, bool) {
	for _, svc := range []string{"dfs", "blob"} {
		k := key + "." + a.Name + "." + svc + "." + a.Suffix
		if v, ok := settings[k]; ok {
			return strings.TrimSpace(v), k, true
		}
	}
	v, ok := settings[key]
	return strings.TrimSpace(v), key, ok
}

// accountSpecific reports whether k is one of the OAuth keys with an account suffix.
func accountSpecific(k string) bool {
	for _, base := range oauthKeys {
		if rest, ok := strings.CutPrefix(k, base+"."); ok && rest != "" {
			return true
		}
	}
	return false
}

// clientCredsSettings reads the client-credential settings of account a, or says which
// one is missing or wrong. ok is false when no OAuth provider is configured.
func clientCredsSettings(a Account, settings map[string]string, authType string) (c clientCreds, ok bool, err error) {
	provider, pkey, hasProvider := accountSetting(a, settings, KeyOAuthProvider)
	if !hasProvider {
		for _, k := range oauthKeys[1:] {
			if _, key, set := accountSetting(a, settings, k); set {
				return clientCreds{}, false, fmt.Errorf("%s is set but %s is not: set it to %s (the only provider this backend implements)", key, KeyOAuthProvider, ClientCredsProvider)
			}
		}
		return clientCreds{}, false, nil
	}
	if authType != "OAuth" {
		return clientCreds{}, false, fmt.Errorf("%s is set: it needs %s=OAuth", pkey, KeyAuthType)
	}
	if provider != ClientCredsProvider {
		return clientCreds{}, false, fmt.Errorf("%s=%q: this backend implements %s (a service principal's client ID and secret); without %s it uses the Azure SDK's default credential chain", pkey, provider, ClientCredsProvider, KeyOAuthProvider)
	}
	var missing []string
	get := func(k string) string {
		v, key, set := accountSetting(a, settings, k)
		if !set || v == "" {
			missing = append(missing, key)
		}
		return v
	}
	c = clientCreds{endpoint: get(KeyOAuthEndpoint), clientID: get(KeyOAuthClientID), secret: get(KeyOAuthClientSecret)}
	if len(missing) > 0 {
		return clientCreds{}, false, fmt.Errorf("%s=%s needs %s", pkey, provider, strings.Join(missing, ", "))
	}
	u, err := url.Parse(c.endpoint)
	if err != nil || u.Host == "" {
		return clientCreds{}, false, fmt.Errorf("%s=%q: want the token endpoint's URL (https://login.microsoftonline.com/TENANT/oauth2/token)", KeyOAuthEndpoint, c.endpoint)
	}
	if u.Scheme != "https" {
		// The client secret travels in the request body.
		return clientCreds{}, false, fmt.Errorf("%s=%q: the token endpoint must be https (the client secret is sent to it)", KeyOAuthEndpoint, c.endpoint)
	}
	return c, true, nil
}

// clientCreds fetches Azure AD tokens with a service principal's client ID and secret
// from a token endpoint, the request Hadoop's ClientCredsTokenProvider
// (AzureADAuthenticator.getTokenUsingClientCreds) makes: a form POST with
// grant_type=client_credentials, client_id, client_secret and the storage resource
// (resource=https://storage.azure.com/ for a v1 endpoint, scope=…/.default for a
// /oauth2/v2.0/ one); the answer's access_token and expires_on or expires_in. The SDK's
// bearer-token policy caches the token until shortly before it expires.
type clientCreds struct {
	endpoint, clientID, secret string
	transport                  policy.Transporter // nil: http.DefaultClient
}

// The storage resource of a token request.
const (
	storageResource = "https://storage.azure.com/"
	storageScope    = "https://storage.azure.com/.default"
)

// GetToken implements azcore.TokenCredential.
func (c *clientCreds) GetToken(ctx context.Context, _ policy.TokenRequestOptions) (azcore.AccessToken, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {c.clientID}, "client_secret": {c.secret}}
	if strings.Contains(c.endpoint, "/oauth2/v2.0/") {
		form.Set("scope", storageScope)
	} else {
		form.Set("resource", storageResource)
	}
	body := form.Encode()
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return azcore.AccessToken{}, c.fail(ctx.Err())
			case <-time.After(time.Duration(500<<(attempt-1)) * time.Millisecond):
			}
		}
		tok, retry, err := c.request(ctx, body)
		if err == nil {
			return tok, nil
		}
		last = err
		if !retry || ctx.Err() != nil {
			break
		}
	}
	return azcore.AccessToken{}, last
}

func (c *clientCreds) fail(err error) error {
	return fmt.Errorf("Azure AD token for client ID %s from %s: %w", c.clientID, c.endpoint, err)
}

// request makes one token request; retry says whether another attempt may succeed
// (throttling, a server error, a failed connection).
func (c *clientCreds) request(ctx context.Context, body string) (azcore.AccessToken, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, strings.NewReader(body))
	if err != nil {
		return azcore.AccessToken{}, false, c.fail(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	do := http.DefaultClient.Do
	if c.transport != nil {
		do = c.transport.Do
	}
	resp, err := do(req)
	if err != nil {
		return azcore.AccessToken{}, true, c.fail(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return azcore.AccessToken{}, true, c.fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return azcore.AccessToken{}, retry, c.fail(fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorText(b)))
	}
	var tr struct {
		AccessToken string          `json:"access_token"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
		ExpiresOn   json.RawMessage `json:"expires_on"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || tr.AccessToken == "" {
		return azcore.AccessToken{}, false, c.fail(fmt.Errorf("the answer is not a token (want JSON with access_token): %.200q", b))
	}
	// AAD's v1 endpoint gives both as strings, v2 expires_in as a number; expires_on wins,
	// as in Hadoop.
	exp := time.Time{}
	if on, ok := jsonInt(tr.ExpiresOn); ok && on > 0 {
		exp = time.Unix(on, 0)
	} else if in, ok := jsonInt(tr.ExpiresIn); ok {
		exp = time.Now().Add(time.Duration(in) * time.Second)
	} else {
		return azcore.AccessToken{}, false, c.fail(fmt.Errorf("the token's answer has neither expires_on nor expires_in"))
	}
	return azcore.AccessToken{Token: tr.AccessToken, ExpiresOn: exp}, false, nil
}

// jsonInt reads a JSON number or a string holding one.
func jsonInt(raw json.RawMessage) (int64, bool) {
	s := string(bytes.Trim(bytes.TrimSpace(raw), `"`))
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// errorText is the readable part of a token endpoint's error answer: AAD's
// error and error_description, else the body's start.
func errorText(b []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(b, &e) == nil && (e.Error != "" || e.Description != "") {
		d, _, _ := strings.Cut(e.Description, "\r\n") // AAD appends trace and correlation ids
		return strings.TrimSpace(e.Error + ": " + d)
	}
	if len(b) > 300 {
		b = b[:300]
	}
	return strings.TrimSpace(string(b))
}

var _ azcore.TokenCredential = (*clientCreds)(nil)
